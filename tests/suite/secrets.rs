//! Secrets (docs/design.md#secrets) through the real binary: every way a secret used to slip out is
//! closed — the model's own tool-call arguments, a secret straddling the output cap, the human
//! answer and progress lines, and base64 forms.

use crate::common::*;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::json;

/// Bytes chosen so that base64 uses `+` and `/` (standard) versus `-` and `_` (URL-safe).
const SECRET: &str = "s3cr3t?>>?~~value-0123456789";

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.skill(
        "plain",
        "---\nname: plain\ndescription: A plain skill.\n---\nbody\n",
        None,
    );
    ws
}

fn agent(ws: &Workspace, mock: &MockLlm) -> assert_cmd::Command {
    let mut cmd = ws.agent(mock);
    cmd.env("MY_SERVICE_TOKEN", SECRET).args(["--once", "x", "--yes"]);
    cmd
}

/// Every request body the mock received, as text.
async fn sent(mock: &MockLlm) -> String {
    mock.raw_requests()
        .await
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn tool_call_arguments_sent_back_to_the_model_are_redacted() {
    let ws = workspace();
    let command = format!("echo {SECRET} > /dev/null; echo done");
    let mock = MockLlm::start(activate_run_answer("plain", &command, "ok")).await;
    let (code, _, stderr) = run_outcome(agent(&ws, &mock)).await;
    assert_eq!(code, 0, "{stderr}");
    let requests = mock.requests().await;
    let echoed = requests[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["function"]["arguments"].as_str().unwrap().to_string())
        .find(|a| a.contains("echo"))
        .unwrap();
    assert!(echoed.contains("[REDACTED:MY_SERVICE_TOKEN]"), "{echoed}");
    assert!(
        !sent(&mock).await.contains("s3cr3t"),
        "the secret went back to the model"
    );
}

#[tokio::test]
async fn a_secret_straddling_the_output_cap_is_redacted_whole() {
    let ws = workspace();
    // 8 KB of head and 8 KB of tail are kept: put a secret across each cut.
    let command = "head -c 8180 /dev/zero | tr '\\0' a; printf %s \"$MY_SERVICE_TOKEN\"; \
                   head -c 50000 /dev/zero | tr '\\0' b; printf %s \"$MY_SERVICE_TOKEN\"; \
                   head -c 8180 /dev/zero | tr '\\0' c";
    let mock = MockLlm::start(activate_run_answer("plain", command, "ok")).await;
    let (code, _, stderr) = run_outcome(agent(&ws, &mock)).await;
    assert_eq!(code, 0, "{stderr}");
    let result = contents(&mock.requests().await[2], "tool").pop().unwrap();
    assert!(result.contains("bytes cut"), "the output was capped");
    assert_eq!(
        result.matches("[REDACTED:MY_SERVICE_TOKEN]").count(),
        2,
        "{}",
        &result[8000..8300]
    );
    for half in [&SECRET[..10], &SECRET[SECRET.len() - 10..]] {
        assert!(!result.contains(half), "part of the secret was sent: {half}");
    }
}

#[tokio::test]
async fn the_answer_and_the_run_line_on_the_terminal_are_redacted() {
    let ws = workspace();
    let command = format!("echo {SECRET} > /dev/null");
    let answer = format!("Your token is {SECRET}, keep it safe.");
    let mock = MockLlm::start(activate_run_answer("plain", &command, &answer)).await;
    let (code, stdout, stderr) = run_outcome(agent(&ws, &mock)).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "Your token is [REDACTED:MY_SERVICE_TOKEN], keep it safe.\n");
    assert!(
        stderr.contains("▸ run [plain] echo [REDACTED:MY_SERVICE_TOKEN] > /dev/null"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cr3t") && !stdout.contains("s3cr3t"));
}

#[tokio::test]
async fn base64_forms_of_a_secret_are_redacted() {
    let ws = workspace();
    let forms = [
        STANDARD.encode(SECRET),
        URL_SAFE_NO_PAD.encode(SECRET),
        STANDARD.encode(format!("x{SECRET}yz")),
        STANDARD.encode(format!("xy{SECRET}")),
        URL_SAFE_NO_PAD.encode(format!("{{\"auth\":\"{SECRET}\"}}")),
    ];
    assert!(forms[0].contains('+') || forms[0].contains('/'), "{}", forms[0]);
    let command = forms.iter().map(|f| format!("echo {f}")).collect::<Vec<_>>().join("; ");
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "plain"})),
        tool("run_command", json!({ "command": command })),
        text(&format!("decoded: {}", forms[2])),
    ])
    .await;
    let (code, stdout, stderr) = run_outcome(agent(&ws, &mock)).await;
    assert_eq!(code, 0, "{stderr}");
    let result = contents(&mock.requests().await[2], "tool").pop().unwrap();
    assert_eq!(
        result.matches("[REDACTED:MY_SERVICE_TOKEN]").count(),
        forms.len(),
        "{result}"
    );
    let body = sent(&mock).await;
    for form in &forms {
        // The stable middle of each form is what must be gone.
        let middle = &form[4..form.len() - 4];
        assert!(!body.contains(middle), "{form} reached the model");
        assert!(
            !stdout.contains(middle) && !stderr.contains(middle),
            "{form} reached the terminal"
        );
    }
}

/// A secret the model streams across several chunks is redacted whole in a `--record` cassette,
/// never stored in pieces.
#[tokio::test]
async fn a_cassette_never_keeps_a_streamed_secret_in_pieces() {
    let ws = Workspace::new();
    let secret = "zq9Xv7Wp4Lm2Kd8R";
    // The mock streams text four characters at a time, so the secret spans several chunks.
    let mock = MockLlm::start(vec![text(&format!("the token is {secret}, as asked"))]).await;
    let cassette = ws.dir.path().join("run.jsonl");
    let mut cmd = ws.agent(&mock);
    cmd.env("MY_SERVICE_TOKEN", secret)
        .arg("--record")
        .arg(&cassette)
        .args(["--once", "x"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("[REDACTED:MY_SERVICE_TOKEN]"), "{stdout}");
    let recorded = std::fs::read_to_string(&cassette).unwrap();
    let chars: Vec<char> = secret.chars().collect();
    for piece in chars.windows(4) {
        let piece: String = piece.iter().collect();
        assert!(
            !recorded.contains(&piece),
            "{piece} of the secret is in the cassette: {recorded}"
        );
    }
    assert!(recorded.contains("[REDACTED:MY_SERVICE_TOKEN]"), "{recorded}");
}

/// A password in the base URL is used, but never stored in the session nor printed.
#[tokio::test]
async fn credentials_in_the_base_url_are_never_stored_or_printed() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text("hello")]).await;
    let url = mock
        .base_url()
        .replacen("http://", "http://urluser:pw-in-url-12345@", 1);
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_BASE_URL", &url).args(["--json", "--once", "x"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let session = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["type"] == "session")
        .unwrap();
    let shown = session["base_url"].as_str().unwrap();
    assert!(shown.contains("***@127.0.0.1"), "{shown}");
    assert!(
        !stdout.contains("pw-in-url") && !stderr.contains("pw-in-url"),
        "{stdout}{stderr}"
    );
    let files = ws.session_files();
    assert!(!files.is_empty());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("pw-in-url") && !text.contains("urluser"), "{text}");
    }
    assert_eq!(mock.requests().await.len(), 1, "the URL with its credentials was used");
}
