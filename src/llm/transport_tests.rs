use super::*;

#[test]
fn retry_after_seconds_and_cap() {
    let mut h = HeaderMap::new();
    h.insert(RETRY_AFTER, "2".parse().unwrap());
    assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
    h.insert(RETRY_AFTER, "3600".parse().unwrap());
    assert_eq!(retry_after(&h), Some(MAX_RETRY_AFTER));
    h.insert(RETRY_AFTER, "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
    assert_eq!(retry_after(&h), Some(Duration::ZERO));
}

#[test]
fn server_message_prefers_error_message() {
    assert_eq!(server_message(r#"{"error":{"message":"bad model"}}"#), "bad model");
    assert_eq!(server_message("plain text"), "plain text");
    assert_eq!(server_message(""), "no details in the response");
}

#[test]
fn non_completions_are_described() {
    let v: serde_json::Value = serde_json::from_str(r#"{"object":"list","data":[]}"#).unwrap();
    assert!(!is_completion_like(&v));
    assert_eq!(describe_json(&v), "an object with `data`, `object`");
    assert!(is_completion_like(&serde_json::json!({"choices": []})));
    assert!(is_completion_like(&serde_json::json!({"error": {"message": "x"}})));
    assert_eq!(describe_json(&serde_json::json!([1, 2])), "an array of 2 item(s)");
}

#[test]
fn an_unresolved_default_host_names_the_key_that_chose_it() {
    let mut info = EndpointInfo {
        base_url: "https://api.openai.com/v1".into(),
        model: "m".into(),
        key_var: Some("AGENT_API_KEY"),
        base_url_given: false,
        provider: crate::llm::Provider::OpenAi,
    };
    let hint = unresolved_hint(&info);
    assert!(
        hint.contains("because AGENT_API_KEY is set") && hint.contains("no local server"),
        "{hint}"
    );
    assert!(!hint.contains("spelling"), "{hint}");
    info.base_url_given = true;
    assert!(unresolved_hint(&info).contains("check the spelling of the base URL"));
}

#[test]
fn backoff_grows_and_is_capped() {
    assert!(backoff(0) >= Duration::from_millis(500) && backoff(0) < Duration::from_millis(700));
    assert!(backoff(10) <= Duration::from_secs(10));
}
