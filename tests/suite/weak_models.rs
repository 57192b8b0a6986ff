//! What small local models write, through the real binary (issue 33): a tool call written as the
//! reply's text is taken as that call and goes through the same approval as a native one; text
//! that only mentions a command never runs; an answer that rests on nothing that ran is marked,
//! and `--require-tool` makes it exit 9. The replies are the shapes a real 1.5B model wrote on
//! llama.cpp (bench/real_model/ records them).

use crate::common::*;
use serde_json::{Value, json};

const TIME_SKILL: &str = "---\nname: time\ndescription: Tells the current time in a timezone.\n---\n# time\n\nRun `./run.sh ZONE`.\n\nExample output:\n\n    2026-11-29 21:04 JST\n";
const TIME_SCRIPT: &str = "#!/bin/sh\necho \"2031-01-02 03:04 ${1:-UTC}\"\n";

fn events(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// All the text that streamed to the screen (`message_delta`s), in order.
fn streamed(events: &[Value]) -> String {
    of_type(events, "message_delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

async fn once(ws: &Workspace, replies: Vec<Reply>, args: &[&str]) -> (i32, Vec<Value>, MockLlm) {
    once_with(ws, replies, args, &[]).await
}

/// [`once`] with the compact prompt a small local model gets (and its second chance).
async fn once_compact(ws: &Workspace, replies: Vec<Reply>, args: &[&str]) -> (i32, Vec<Value>, MockLlm) {
    once_with(ws, replies, args, &[("AGENT_PROMPT", "compact")]).await
}

async fn once_with(
    ws: &Workspace,
    replies: Vec<Reply>,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, Vec<Value>, MockLlm) {
    let mock = MockLlm::start(replies).await;
    let mut cmd = ws.agent(&mock);
    cmd.envs(env.iter().copied());
    cmd.args(["--json", "--approve", "auto", "--once", "what time is it in Tokyo?"])
        .args(args);
    let (code, out, err) = run_outcome(cmd).await;
    assert!(!out.is_empty(), "{err}");
    (code, events(&out), mock)
}

#[tokio::test]
async fn calls_written_as_text_run_through_the_same_approval() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        // The skill named as if it were a tool, in a fence (what Qwen2.5-Coder-1.5B wrote).
        text("```json\n{\"name\": \"time\", \"arguments\": {}}\n```"),
        // Then the command in tags, arguments as a JSON string.
        text(
            "<tool_call>\n{\"name\": \"run_command\", \"arguments\": \"{\\\"command\\\": \\\"./run.sh JST\\\"}\"}\n</tool_call>",
        ),
        text("It is 2031-01-02 03:04 in Tokyo."),
    ];
    let (code, events, mock) = once(&ws, replies, &[]).await;
    assert_eq!(code, 0, "{events:?}");
    let recovered = of_type(&events, "tool_call_recovered");
    assert_eq!(recovered.len(), 2, "{events:?}");
    assert_eq!(recovered[0]["tool"], "activate_skill");
    assert_eq!(recovered[1]["tool"], "run_command");
    assert_eq!(of_type(&events, "skill_selected")[0]["skill"], "time");
    let started = of_type(&events, "command_started");
    assert!(
        started[0]["argv"].is_array(),
        "pre-approved as the skill's own script: {started:?}"
    );
    // The call's text is never shown as an answer; the real answer is.
    let shown = streamed(&events);
    assert_eq!(shown, "It is 2031-01-02 03:04 in Tokyo.");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");
    // The model sees its calls as native calls with their results, so the next request is valid.
    let requests = mock.requests().await;
    assert!(last_tool_result(&requests[2]).contains("2031-01-02 03:04 JST"));
    let assistant = requests[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(assistant["tool_calls"][0]["function"]["name"], "run_command");
}

#[tokio::test]
async fn a_recovered_command_the_policy_would_ask_about_is_denied_without_a_terminal() {
    let ws = Workspace::new();
    let canary = ws.work().join("canary");
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        text("{\"name\": \"activate_skill\", \"arguments\": {\"name\": \"time\"}}"),
        text(&format!(
            "{{\"function\": \"run_command\", \"parameters\": {{\"command\": \"touch {} && ./run.sh\"}}}}",
            canary.display()
        )),
        text("I could not run it."),
    ];
    // The classic rule (with the sandbox on, `auto` would run it contained, as a native call).
    let (code, events, _) = once(&ws, replies, &["--sandbox", "off"]).await;
    assert_eq!(code, 6, "the same denial as a native call: {events:?}");
    assert_eq!(of_type(&events, "command_denied").len(), 1);
    assert!(!canary.exists());
}

#[tokio::test]
async fn text_that_mentions_a_command_never_runs() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    for reply in [
        "Run `./run.sh JST` to see the time in Tokyo.",
        "You could call run_command with {\"command\": \"./run.sh JST\"}.",
        "```bash\n./run.sh JST\n```",
    ] {
        let (code, events, mock) = once(&ws, vec![text(reply)], &[]).await;
        assert_eq!(code, 0, "{reply}");
        assert!(of_type(&events, "command_started").is_empty(), "{reply}: {events:?}");
        assert!(of_type(&events, "tool_call_recovered").is_empty(), "{reply}");
        assert_eq!(of_type(&events, "message")[0]["text"], reply);
        assert_eq!(mock.requests().await.len(), 1);
    }
}

#[tokio::test]
async fn an_answer_with_nothing_run_after_an_activation_is_marked_and_fails_with_require_tool() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    // The model answers with nothing run, gets its second chance, and answers again the same way.
    let replies = || {
        vec![
            tool("activate_skill", json!({"name": "time"})),
            text("It is 9 pm in Tokyo."),
            text("It is 9 pm in Tokyo, as I said."),
        ]
    };
    let (code, events, mock) = once_compact(&ws, replies(), &[]).await;
    assert_eq!(code, 0, "marked, not failed, by default");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    let asked = contents(&mock.requests().await[2], "user");
    assert!(
        asked.last().unwrap().starts_with("[agent]") && asked.last().unwrap().contains("run_command"),
        "the model is told what to do: {asked:?}"
    );
    let marked = of_type(&events, "answer_unverified");
    assert_eq!(marked.len(), 1, "{events:?}");
    assert_eq!(marked[0]["skill"], "time");
    assert!(marked[0]["reason"].as_str().unwrap().contains("no command ran"));
    let (code, _, _) = once_compact(&ws, replies(), &["--require-tool"]).await;
    assert_eq!(code, 9);
    // Under the full prompt a capable model gets no second chance: its first answer is marked.
    let (code, events, mock) = once(&ws, replies(), &["--require-tool"]).await;
    assert_eq!(code, 9);
    assert!(of_type(&events, "answer_retried").is_empty());
    assert_eq!(mock.requests().await.len(), 2);

    // In human mode the user reads it on stderr, under the answer.
    let mock = MockLlm::start(replies()).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_PROMPT", "compact")
        .args(["--approve", "auto", "--once", "time in Tokyo"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0);
    assert_eq!(
        out.trim(),
        "It is 9 pm in Tokyo, as I said.",
        "the reply set aside is not shown"
    );
    assert!(
        err.contains("unverified answer")
            && err.contains("no command ran")
            && err.contains("asking the model once more"),
        "{err}"
    );
}

#[tokio::test]
async fn example_output_copied_from_the_skill_is_marked_even_after_a_command() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some("#!/bin/sh\necho 'unknown zone' >&2\nexit 1\n"));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("The current time in Tokyo is 2026-11-29 21:04 JST."),
        // Repeated: a stuck model, asked once more; a third time it is shown, marked.
        text("The current time in Tokyo is 2026-11-29 21:04 JST."),
        text("The current time in Tokyo is 2026-11-29 21:04 JST."),
    ];
    let (code, events, _) = once_compact(&ws, replies, &["--require-tool"]).await;
    assert_eq!(code, 9, "{events:?}");
    let reason = of_type(&events, "answer_unverified")[0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("example output") && reason.contains("2026-11-29 21:04 JST"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_backed_answer_and_a_plain_chat_answer_are_not_marked() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let (code, events, _) = once(
        &ws,
        activate_run_answer("time", "./run.sh JST", "It is 2031-01-02 03:04 JST."),
        &["--require-tool"],
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert!(of_type(&events, "answer_unverified").is_empty());
    let (code, events, _) = once(&ws, vec![text("Hello! How can I help?")], &["--require-tool"]).await;
    assert_eq!(code, 0, "no skill involved: nothing to back");
    assert!(of_type(&events, "answer_unverified").is_empty());
}

#[tokio::test]
async fn a_call_of_an_unknown_tool_written_as_text_is_said_and_not_run() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let reply = "{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Asia/Tokyo\"}}";
    let (code, events, _) = once_compact(&ws, vec![text(reply), text(reply)], &["--require-tool"]).await;
    assert_eq!(code, 9);
    assert!(of_type(&events, "command_started").is_empty());
    let reason = of_type(&events, "answer_unverified")[0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("tool call as text") && reason.contains("get_time"),
        "{reason}"
    );
}

#[tokio::test]
async fn skills_check_names_example_output_that_looks_real() {
    let ws = Workspace::new();
    let dir = ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let mut check = ws.bare_agent();
    check.args(["skills", "check"]).arg(&dir);
    let (_, out, err) = run_outcome(check).await;
    let all = format!("{out}{err}");
    assert!(
        all.contains("looks like a real result") && all.contains("SKILL.md:11:"),
        "{all}"
    );
    std::fs::write(
        dir.join("SKILL.md"),
        TIME_SKILL.replace("2026-11-29 21:04 JST", "<YYYY-MM-DD HH:MM> JST"),
    )
    .unwrap();
    let mut check = ws.bare_agent();
    check.args(["skills", "check"]).arg(&dir);
    let (_, out, err) = run_outcome(check).await;
    assert!(!format!("{out}{err}").contains("looks like a real result"));
    // The bundled skills show placeholders.
    for bundled in ["time", "report"] {
        let mut check = ws.bare_agent();
        check.args(["skills", "check"]).arg(repo_path("skills").join(bundled));
        let (_, out, err) = run_outcome(check).await;
        assert!(
            !format!("{out}{err}").contains("looks like a real result"),
            "{bundled}: {out}{err}"
        );
    }
}

fn system_text(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn a_small_model_on_llama_cpp_gets_the_compact_prompt_and_progress_chunks() {
    // Each run its own HOME: what a server says is cached per address, and a port is reused.
    let run = |params: u64, prompt: Option<&'static str>| async move {
        let ws = Workspace::new();
        ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
        for i in 0..30 {
            ws.skill(
                    &format!("extra-{i}"),
                    &format!("---\nname: extra-{i}\ndescription: Converts files of kind {i} into other kinds of files for reports.\n---\nBody.\n"),
                    None,
                );
        }
        // Two replies: where the time skill is pre-activated, "Hello." gets a second chance.
        let mock = MockLlm::start(vec![text("Hello."), text("Hello.")]).await;
        as_llama_cpp(&mock, params).await;
        let mut cmd = ws.agent(&mock);
        cmd.env("AGENT_TOOL_CHECK", "1")
            .args(["--once", "what time is it in Tokyo now?"]);
        if let Some(p) = prompt {
            cmd.env("AGENT_PROMPT", p);
        }
        let (code, _, err) = run_outcome(cmd).await;
        assert_eq!(code, 0, "{err}");
        mock.chat_requests().await.remove(0)
    };
    let small = run(1_543_714_304, None).await;
    let big = run(8_000_000_000, None).await;
    assert_eq!(
        small["return_progress"], true,
        "llama.cpp streams its prompt processing"
    );
    assert_eq!(big["return_progress"], true);
    let (small_bytes, big_bytes) = (system_text(&small).len(), system_text(&big).len());
    assert!(
        small_bytes * 10 < big_bytes * 6,
        "system prompt: compact {small_bytes} B vs full {big_bytes} B"
    );
    let (small_tools, big_tools) = (small["tools"].to_string().len(), big["tools"].to_string().len());
    assert!(
        small_tools * 2 < big_tools,
        "tools: compact {small_tools} B vs full {big_tools} B"
    );
    assert_eq!(small["tools"].as_array().unwrap().len(), 2, "{}", small["tools"]);
    let names = small["tools"][0]["function"]["parameters"]["properties"]["name"]["enum"].clone();
    assert!(
        names.as_array().unwrap().iter().any(|n| n == "time"),
        "the request's skill is listed: {names}"
    );
    assert!(
        system_text(&small).contains("To use a skill"),
        "{}",
        system_text(&small)
    );
    // The request's skill was activated before the first request (a round trip saved).
    assert!(small.to_string().contains("Skill time activated"), "{small}");
    // Forced either way.
    let forced = run(8_000_000_000, Some("compact")).await;
    assert_eq!(forced["tools"].as_array().unwrap().len(), 2);
    let full = run(1_543_714_304, Some("full")).await;
    assert_eq!(tool_names(&full), FULL_TOOLS);
}

#[tokio::test]
async fn a_server_that_is_not_llama_cpp_is_not_sent_return_progress() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let mock = MockLlm::start(vec![text("Hello.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_TOOL_CHECK", "1").args(["--once", "hi"]);
    assert_eq!(run_outcome(cmd).await.0, 0);
    let request = mock.chat_requests().await.remove(0);
    assert!(request.get("return_progress").is_none(), "{request}");
    assert_eq!(tool_names(&request), FULL_TOOLS);
}

#[tokio::test]
async fn llama_cpps_prompt_progress_chunks_are_read_as_nothing_said() {
    use wiremock::ResponseTemplate;
    let chunk = |delta: Value, progress: Option<Value>| {
        let mut c = json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        if let Some(p) = progress {
            c["prompt_progress"] = p;
        }
        format!("data: {c}\n\n")
    };
    let body = [
        chunk(
            json!({"role": "assistant", "content": null}),
            Some(json!({"total": 900, "cache": 0, "processed": 0, "time_ms": 0})),
        ),
        chunk(
            json!({"role": "assistant", "content": null}),
            Some(json!({"total": 900, "cache": 0, "processed": 512, "time_ms": 9000})),
        ),
        chunk(json!({"content": "Hel"}), None),
        chunk(json!({"content": "lo."}), None),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let mock = MockLlm::serving(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")).await;
    let ws = Workspace::new();
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hi"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "Hello.");
}

#[tokio::test]
async fn a_model_that_says_nothing_after_a_denial_ends_the_turn_with_the_denial() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "/elsewhere/run.sh Tokyo"})),
        text(""),
    ];
    let (code, events, _) = once(&ws, replies, &["--sandbox", "off"]).await;
    assert_eq!(code, 6, "the denial is what happened: {events:?}");
    assert!(of_type(&events, "error").is_empty(), "{events:?}");
    assert!(
        of_type(&events, "warning")
            .iter()
            .any(|w| w["message"].as_str().unwrap().contains("without an answer"))
    );
    // With nothing before it, an empty reply is still the endpoint's error (exit 4).
    let (code, _, _) = once(&ws, vec![text("")], &[]).await;
    assert_eq!(code, 4);
}

#[tokio::test]
async fn an_answer_after_a_pre_activation_with_nothing_run_is_marked() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let mock = MockLlm::start(vec![text("It is 21:04 in Tokyo."), text("It is 21:04 in Tokyo.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_PREACTIVATE", "1").args([
        "--json",
        "--approve",
        "auto",
        "--require-tool",
        "--once",
        "current time timezone tokyo",
    ]);
    let (code, out, err) = run_outcome(cmd).await;
    let events = events(&out);
    assert!(
        mock.chat_requests().await[0]
            .to_string()
            .contains("Skill time activated"),
        "pre-activated: {err}"
    );
    assert_eq!(code, 9, "{events:?}");
    assert_eq!(of_type(&events, "answer_unverified")[0]["skill"], "time");
}

#[tokio::test]
async fn a_model_that_says_nothing_after_a_command_leaves_its_output_as_the_answer() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        tool("activate_skill", json!({"name": "time"})),
        text(""),
    ];
    let (code, events, mock) = once(&ws, replies, &["--require-tool"]).await;
    assert_eq!(code, 0, "{events:?}");
    let answer = of_type(&events, "message")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("2031-01-02 03:04 JST"), "{answer}");
    assert!(of_type(&events, "answer_unverified").is_empty());
    // A repeated activation says to stop activating.
    assert!(last_tool_result(&mock.requests().await[3]).contains("Do not activate it again"));
}

#[tokio::test]
async fn an_answer_dressed_as_a_tool_result_nothing_printed_is_marked() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        text("<tool_response>\nexit code: 0\nstdout:\n2031-05-06 07:08 JST\n</tool_response>"),
        text("<tool_response>\nexit code: 0\nstdout:\n2031-05-06 07:08 JST\n</tool_response>"),
    ];
    let (code, events, _) = once_compact(&ws, replies, &["--require-tool"]).await;
    assert_eq!(code, 9, "{events:?}");
    assert!(
        of_type(&events, "answer_unverified")[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no command of this turn printed")
    );
}

#[tokio::test]
async fn a_resumed_session_keeps_the_catalog_its_first_turn_listed() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    for i in 0..40 {
        ws.skill(
            &format!("convert-{i}"),
            &format!("---\nname: convert-{i}\ndescription: Converts spreadsheets of kind {i} into reports and charts.\n---\nBody.\n"),
            None,
        );
    }
    let turn = |args: &'static [&'static str], message: &'static str| {
        let ws = &ws;
        async move {
            let mock = MockLlm::start(vec![text("ok"), text("ok")]).await;
            let mut cmd = ws.agent(&mock);
            cmd.env("AGENT_PROMPT", "compact").args(args).args(["--once", message]);
            let (code, _, err) = run_outcome(cmd).await;
            assert_eq!(code, 0, "{err}");
            mock.chat_requests().await.remove(0)
        }
    };
    let first = turn(&[], "what time is it in Tokyo").await;
    let second = turn(&["-c"], "convert the spreadsheet of kind 7 into a chart").await;
    assert_eq!(
        system_text(&first),
        system_text(&second),
        "the same catalog, byte for byte"
    );
    assert_eq!(first["tools"], second["tools"]);
    // What the new request needs and the kept list lacks comes as a note on its message.
    let last_user = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap();
    assert!(
        last_user["content"]
            .as_str()
            .unwrap()
            .contains("[agent: skills not in the list above"),
        "{last_user}"
    );
}

/// The second chance works when the model takes it: told that nothing ran, it runs the skill's
/// command and answers from its output, which is not marked. A command refused for want of an
/// active skill, then parroted, gets the same chance.
#[tokio::test]
async fn a_second_chance_turns_an_unbacked_answer_into_a_real_one() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        text("Tokyo: 2026-11-29 21:04 JST"),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let (code, events, _) = once_compact(&ws, replies, &["--require-tool"]).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");
    let messages = of_type(&events, "message");
    assert_eq!(messages.len(), 1, "{events:?}");
    assert_eq!(messages[0]["text"], "It is 2031-01-02 03:04 JST.");
    let deltas = streamed(&events);
    assert!(
        !deltas.contains("21:04"),
        "the reply set aside never streamed: {deltas}"
    );

    // run_command before any activation, refused; the model parrots the refusal. The one skill
    // that clearly fits the request is activated for it, and it is told to run.
    let replies = vec![
        tool("run_command", json!({"command": "date"})),
        text("To use a skill, call activate_skill first."),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let env = [("AGENT_PROMPT", "compact"), ("AGENT_PREACTIVATE", "0")];
    let (code, events, mock) = once_with(&ws, replies, &["--require-tool"], &env).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert!(
        of_type(&events, "answer_retried")[0]["reason"]
            .as_str()
            .unwrap()
            .contains("active skill")
    );
    assert_eq!(of_type(&events, "skill_selected")[0]["skill"], "time", "{events:?}");
    assert_eq!(of_type(&events, "message")[0]["text"], "It is 2031-01-02 03:04 JST.");
    let third = &mock.requests().await[2];
    let asked = contents(third, "user");
    let note = asked.last().unwrap();
    assert!(note.contains("time fits") && note.contains("run_command"), "{note}");
    assert!(
        contents(third, "tool").iter().any(|t| t.contains("./run.sh ZONE")),
        "the skill's instructions are in the request: {third}"
    );

    // Only one second chance a turn, and none for an answer that needs no command.
    let (code, events, mock) = once_with(&ws, vec![text("Hello! How can I help?")], &[], &env).await;
    assert_eq!(code, 0);
    assert!(of_type(&events, "answer_retried").is_empty());
    assert_eq!(mock.requests().await.len(), 1);
}

/// Under the compact prompt, with a skill active and nothing run yet, a reply of nothing but a
/// fenced command line is that command (through approval); after the second chance, one quoted
/// invocation of the skill's own script in a sentence is too. A capable model's same reply
/// under the full prompt is shown, never run.
#[tokio::test]
async fn a_small_models_command_in_a_fence_or_quoted_after_its_second_chance_runs() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let fenced = || {
        vec![
            tool("activate_skill", json!({"name": "time"})),
            text("```bash\n./run.sh JST\n```"),
            text("It is 2031-01-02 03:04 JST."),
        ]
    };
    let (code, events, _) = once_compact(&ws, fenced(), &["--require-tool"]).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "tool_call_recovered")[0]["shape"], "fenced command");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");

    let quoted = vec![
        tool("activate_skill", json!({"name": "time"})),
        text("It is 9 pm."),
        text("To get the time, run `./run.sh JST`"),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let (code, events, _) = once_compact(&ws, quoted, &["--require-tool"]).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "tool_call_recovered")[0]["shape"], "quoted script");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");

    let (code, events, mock) = once(&ws, fenced(), &[]).await;
    assert_eq!(code, 0, "{events:?}");
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert_eq!(mock.requests().await.len(), 2);
}

const DB_SKILL: &str = "---\nname: database\ndescription: Read-only SQL queries on a SQLite database file. Use to answer questions from the data in a database.\n---\n# database\n\nRun `./run.sh \"SQL\"`.\n";
const DB_SCRIPT: &str = "#!/bin/sh\necho \"count(*)\"; echo 7\n";
const REPORT_SKILL: &str = "---\nname: report\ndescription: A briefing for a city from its time and weather.\n---\n# report\n\nRun `./run.sh CITY`.\n";

/// What the 1.5B model did with "How many orders are in the shop database?": SQL proposed as a
/// command before any skill, refused, then a number made up. The skill whose words clearly fit
/// is activated for it on its second chance; where no skill clearly fits, the best ones are only
/// named and nothing is activated.
#[tokio::test]
async fn a_command_with_no_skill_gets_the_skill_that_clearly_fits() {
    let ws = Workspace::new();
    ws.skill("database", DB_SKILL, Some(DB_SCRIPT));
    ws.skill("report", REPORT_SKILL, Some(TIME_SCRIPT));
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let env = [("AGENT_PROMPT", "compact"), ("AGENT_PREACTIVATE", "0")];
    let ws = &ws;
    let ask = |request: &'static str, replies: Vec<Reply>| async move {
        let mock = MockLlm::start(replies).await;
        let mut cmd = ws.agent(&mock);
        cmd.envs(env)
            .args(["--json", "--approve", "auto", "--require-tool", "--once", request]);
        let (code, out, err) = run_outcome(cmd).await;
        assert!(!out.is_empty(), "{err}");
        (code, events(&out), mock)
    };
    let replies = vec![
        tool("run_command", json!({"command": "SELECT count(*) FROM orders;"})),
        text("There are 42 orders."),
        tool(
            "run_command",
            json!({"command": "./run.sh \"SELECT count(*) FROM orders\""}),
        ),
        text("There are 7 orders."),
    ];
    let (code, events, _) = ask("How many orders are in the shop database?", replies).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "skill_selected").len(), 1, "{events:?}");
    assert_eq!(of_type(&events, "skill_selected")[0]["skill"], "database");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");
    assert_eq!(of_type(&events, "message")[0]["text"], "There are 7 orders.");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");

    // Two skills share the request's words alike: no clear fit, so both are named and the model,
    // which answers again without a command, is marked (exit 9 under --require-tool).
    ws.skill(
        "warehouse",
        &DB_SKILL.replace("name: database", "name: warehouse"),
        Some(DB_SCRIPT),
    );
    let replies = vec![
        tool("run_command", json!({"command": "date"})),
        text("It is noon."),
        text("It is noon."),
    ];
    let (code, events, mock) = ask("How many orders were placed? Use SQL.", replies).await;
    assert_eq!(code, 9, "{events:?}");
    assert!(of_type(&events, "skill_selected").is_empty(), "{events:?}");
    let asked = contents(&mock.requests().await[2], "user");
    let note = asked.last().unwrap();
    assert!(
        note.contains("activate_skill") && note.contains("fit this request best"),
        "{note}"
    );
    assert!(note.contains("database") && note.contains("warehouse"), "{note}");
}

/// The bench's 1.5B model ran the right script and then answered with advice of its own. Under
/// the compact prompt, an answer that uses nothing a successful command printed is held back and
/// the model is shown what it printed; an answer that uses it is shown at once.
#[tokio::test]
async fn an_answer_that_ignores_the_commands_output_gets_a_second_chance() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("Install tzdata to see the time."),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let env = [("AGENT_PROMPT", "compact"), ("AGENT_PREACTIVATE", "0")];
    let (code, events, mock) = once_with(&ws, replies, &[], &env).await;
    assert_eq!(code, 0, "{events:?}");
    let retried = of_type(&events, "answer_retried");
    assert_eq!(retried.len(), 1, "{events:?}");
    assert!(
        retried[0]["reason"].as_str().unwrap().contains("2031-01-02 03:04"),
        "{retried:?}"
    );
    let messages = of_type(&events, "message");
    assert_eq!(messages.len(), 1, "{events:?}");
    assert_eq!(messages[0]["text"], "It is 2031-01-02 03:04 JST.");
    let deltas = streamed(&events);
    assert!(
        !deltas.contains("tzdata"),
        "the reply set aside never streamed: {deltas}"
    );
    let asked = contents(&mock.requests().await[3], "user");
    let note = asked.last().unwrap();
    assert!(
        note.contains("2031-01-02 03:04 JST") && note.contains("Answer"),
        "{note}"
    );

    // An answer from the output is shown as it is: three requests, no retry.
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("It is 03:04 in Tokyo."),
    ];
    let (code, events, mock) = once_with(&ws, replies, &[], &env).await;
    assert_eq!(code, 0, "{events:?}");
    assert!(of_type(&events, "answer_retried").is_empty(), "{events:?}");
    assert_eq!(mock.requests().await.len(), 3);
}

/// Told to call run_command, the bench's 1.5B model wrote the call in a language's syntax:
/// `run_command("…")`, once as `Run_command('…')`. Such a reply is that call, through the same
/// approval; the same call inside a sentence is a mention and never runs.
#[tokio::test]
async fn a_call_in_call_syntax_runs_and_a_mention_of_one_does_not() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        text("Run_command('./run.sh JST')"),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let (code, events, _) = once_compact(&ws, replies, &["--require-tool"]).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "tool_call_recovered")[0]["shape"], "call syntax");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");
    let deltas = streamed(&events);
    assert!(
        !deltas.contains("Run_command"),
        "the call never streamed as text: {deltas}"
    );

    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        text("To see the time, call run_command(\"./run.sh JST\") yourself."),
    ];
    let (_, events, _) = once(&ws, replies, &[]).await;
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert!(of_type(&events, "tool_call_recovered").is_empty(), "{events:?}");
}

/// The bench's 1.5B model ran the same query six times, its output unchanged each time. Under
/// the compact prompt a `run_command` that repeats one that already ran and succeeded in the turn
/// is not run again: the model is told to answer from its output. Under the full prompt it runs again (a
/// capable model reruns a command on purpose).
#[tokio::test]
async fn the_same_command_again_at_once_is_not_rerun_for_a_small_model() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = || {
        vec![
            tool("activate_skill", json!({"name": "time"})),
            tool("run_command", json!({"command": "./run.sh JST"})),
            tool("run_command", json!({"command": "./run.sh JST"})),
            text("It is 2031-01-02 03:04 JST."),
        ]
    };
    let env = [("AGENT_PROMPT", "compact"), ("AGENT_PREACTIVATE", "0")];
    let (code, events, mock) = once_with(&ws, replies(), &[], &env).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");
    let told = contents(&mock.requests().await[3], "tool");
    assert!(told.last().unwrap().contains("not run again"), "{told:?}");

    let (code, events, _) = once(&ws, replies(), &[]).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "command_finished").len(), 2, "{events:?}");

    // Nor back to an earlier command of the turn after another (the database skill's schema
    // after its query).
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        tool("run_command", json!({"command": "./run.sh UTC"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let (code, events, _) = once_with(&ws, replies, &[], &env).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "command_finished").len(), 2, "{events:?}");
}

/// The bench's 1.5B model explained the calls it would make, in a fence amid prose, and ended
/// with "their result". Nothing is run, and the answer, resting on nothing that ran, is marked
/// (exit 9 with --require-tool); under the compact prompt it first gets its second chance.
#[tokio::test]
async fn calls_shown_inside_an_explanation_do_not_run_and_the_answer_is_marked() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let explained = format!(
        "{}\n\n```json\n{{\"name\": \"activate_skill\", \"arguments\": {{\"name\": \"time\"}}}}\n```\n\nThis shows it is 21:04 in Tokyo.",
        "To find the time we first load the skill and then run its script, step by step, as follows. ".repeat(4)
    );
    let (code, events, _) = once(&ws, vec![text(&explained)], &["--require-tool"]).await;
    assert_eq!(code, 9, "{events:?}");
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    let marked = of_type(&events, "answer_unverified");
    assert!(
        marked[0]["reason"].as_str().unwrap().contains("activate_skill"),
        "{marked:?}"
    );

    let env = [("AGENT_PROMPT", "compact"), ("AGENT_PREACTIVATE", "0")];
    let replies = vec![
        text(&explained),
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let (code, events, _) = once_with(&ws, replies, &["--require-tool"], &env).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");
}

/// The bench's 1.5B model fenced the time skill's example output after a pre-activation, which
/// was then run as a command (exit 127). A fenced line whose first word is no program on the
/// PATH and no file of the skill or the working folder is not a command: the reply is an answer
/// copied from the example, and is judged as one.
#[tokio::test]
async fn a_fenced_line_that_names_no_program_is_not_run() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        text("```\n2026-11-29 21:04 JST\n```"),
        text("```\n2026-11-29 21:04 JST\n```"),
    ];
    let (code, events, _) = once_compact(&ws, replies, &["--require-tool"]).await;
    assert_eq!(code, 9, "{events:?}");
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert!(of_type(&events, "tool_call_recovered").is_empty(), "{events:?}");
    let marked = of_type(&events, "answer_unverified");
    assert!(
        marked[0]["reason"].as_str().unwrap().contains("example output"),
        "{marked:?}"
    );
}

/// Under the compact prompt a request asks for temperature 0 (a small model sampling at a
/// server's default wrote the call format far less often on the bench); the full prompt leaves
/// sampling to the server; AGENT_TEMPERATURE sets one, or `default` sends none; a bad value is a
/// configuration error naming the variable.
#[tokio::test]
async fn the_compact_prompt_asks_for_temperature_0_and_agent_temperature_chooses() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    for (mut env, sent) in [
        (vec![("AGENT_PROMPT", "compact")], Some(0.0)),
        (vec![("AGENT_PROMPT", "full")], None),
        (vec![("AGENT_PROMPT", "full"), ("AGENT_TEMPERATURE", "0.7")], Some(0.7)),
        (
            vec![("AGENT_PROMPT", "compact"), ("AGENT_TEMPERATURE", "default")],
            None,
        ),
    ] {
        // A plain answer, with no skill pre-activated to hold it to.
        env.push(("AGENT_PREACTIVATE", "0"));
        let (code, events, mock) = once_with(&ws, vec![text("Hello.")], &[], &env).await;
        assert_eq!(code, 0, "{env:?}: {events:?}");
        let request = &mock.requests().await[0];
        let temperature = request.get("temperature").and_then(Value::as_f64);
        assert_eq!(temperature.map(|t| (t * 10.0).round() / 10.0), sent, "{env:?}");
    }
    let mock = MockLlm::start(vec![text("Hello.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_TEMPERATURE", "hot").args(["--once", "hi"]);
    let (code, _, err) = run_outcome(cmd).await;
    // Exit 3, the configuration's code, as for every bad setting.
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("AGENT_TEMPERATURE"), "{err}");
}
