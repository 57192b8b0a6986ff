use super::*;
use crate::llm::types::FunctionCall;
use crate::llm::{ChatMessage, ToolCall};
use crate::sessions::record::{CallUsage, FORMAT_VERSION};

const HOSTILE: &str = "</pre></details><script>alert(1)</script><img src=x onerror=alert(2)> ``` & \x1b]0;t\x07";

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        kind: "function",
        function: FunctionCall {
            name: name.into(),
            arguments: args.to_string(),
        },
    }
}

fn session() -> SessionFile {
    let header = Header {
        provider: None,
        v: FORMAT_VERSION,
        id: "20261201-112233-k3f9".into(),
        agent_version: "0.1.0".into(),
        model: "mock-model".into(),
        base_url: "http://127.0.0.1:9/v1".into(),
        skill_roots: vec!["/s".into()],
        cwd: "/work/<project>".into(),
        started_at: 1_796_124_153,
        parent: None,
        chat: false,
    };
    let m = Record::Message;
    let records = vec![
        m(ChatMessage::user("weather in Tokyo")),
        m(ChatMessage::assistant(
            None,
            vec![call("a", "activate_skill", serde_json::json!({"name": "weather"}))],
        )),
        Record::Usage(CallUsage {
            prompt_tokens: 100,
            completion_tokens: 5,
            estimated: false,
            ..Default::default()
        }),
        m(ChatMessage::tool("a", "Skill weather activated. Run ./run.sh CITY")),
        Record::Activation {
            skill: "weather".into(),
            dir: "/s/weather".into(),
            hash: Some("h".into()),
            by_hand: false,
        },
        m(ChatMessage::assistant(
            None,
            vec![call(
                "b",
                "run_command",
                serde_json::json!({"command": "./run.sh 'Tokyo' <in"}),
            )],
        )),
        m(ChatMessage::tool("b", format!("exit code: 0\nstdout:\n{HOSTILE}"))),
        m(ChatMessage::assistant(Some(format!("Sunny. {HOSTILE}")), Vec::new())),
        Record::Usage(CallUsage {
            prompt_tokens: 200,
            completion_tokens: 20,
            estimated: true,
            ..Default::default()
        }),
        m(ChatMessage::user("and Oslo?")),
        Record::Interrupted { by: Interruption::User },
    ];
    SessionFile {
        header,
        records,
        warnings: Vec::new(),
        complete_len: 0,
    }
}

#[test]
fn tool_calls_pair_with_their_results() {
    let items = items(&session().records);
    assert_eq!(items[0], Item::User("weather in Tokyo".into()));
    assert!(
        matches!(&items[1], Item::Activated { skill, result } if skill == "weather" && result.contains("Run ./run.sh"))
    );
    match &items[2] {
        Item::Command { command, result } => {
            assert_eq!(command, "./run.sh 'Tokyo' <in");
            assert!(result.as_deref().unwrap().starts_with("exit code: 0"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&items[3], Item::Answer(t) if t.starts_with("Sunny.")));
    assert_eq!(items[5], Item::Interrupted(Interruption::User));
}

#[test]
fn html_is_one_well_formed_document_without_scripts() {
    let html = render(&session(), Format::Html);
    assert!(html.starts_with("<!DOCTYPE html>\n"));
    // The strict parser fails on any unclosed or stray element: hostile text stayed text.
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{html}"));
    let allowed = [
        "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "dl", "dt", "dd", "section", "div",
        "pre", "details", "summary", "p",
    ];
    for node in doc.descendants().filter(|n| n.is_element()) {
        let name = node.tag_name().name();
        assert!(allowed.contains(&name), "unexpected <{name}>");
        assert!(
            node.attributes().all(|a| !a.name().starts_with("on")),
            "handler on <{name}>"
        );
    }
    let details = doc.descendants().filter(|n| n.has_tag_name("details")).count();
    assert_eq!(details, 2, "the activation and the command fold");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("section")).count(), 2);
    let text: String = doc
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    assert!(
        text.contains("<script>alert(1)</script>"),
        "the hostile text is shown as text"
    );
    assert!(text.contains("\\x1b]0;t\\x07"), "controls are shown escaped");
    assert!(text.contains("/work/<project>"));
    assert!(text.contains("300 in, 25 out (~estimated)"), "{text}");
}

#[test]
fn markdown_fences_hold_hostile_output() {
    let md = render(&session(), Format::Markdown);
    assert!(md.starts_with("# agent session 20261201-112233-k3f9\n"), "{md}");
    assert!(md.contains("- Started: 2026-12-01T11:22:33Z\n"), "{md}");
    assert!(md.contains("## Turn 1\n\n**You:**\n\n> weather in Tokyo\n"), "{md}");
    assert!(
        md.contains("````sh\n./run.sh 'Tokyo' <in\n````\n") || md.contains("```sh\n./run.sh 'Tokyo' <in\n```\n"),
        "{md}"
    );
    assert!(
        md.contains("````text\nexit code: 0\n"),
        "the output holds ``` so its fence is longer:\n{md}"
    );
    assert!(md.contains("*Interrupted by the user.*"), "{md}");
    assert!(!md.contains('\x1b'));
}

#[test]
fn json_is_the_records() {
    let json: serde_json::Value = serde_json::from_str(&render(&session(), Format::Json)).unwrap();
    assert_eq!(json["v"], 1);
    assert_eq!(json["session"]["id"], "20261201-112233-k3f9");
    assert_eq!(json["records"].as_array().unwrap().len(), 11);
    assert_eq!(json["records"][0]["type"], "message");
    assert_eq!(Format::parse("MD"), Some(Format::Markdown));
    assert_eq!(Format::from_path(std::path::Path::new("/t/s.html")), Some(Format::Html));
    assert_eq!(Format::parse("pdf"), None);
}
