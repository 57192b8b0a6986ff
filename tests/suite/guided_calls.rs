//! Guided calls (issue 33, docs/configuration.md "Small local models"), through the real binary:
//! after a small model answered with nothing run, or proposed a command whose first word is no
//! program, the next request carries the JSON schema of the call it must make (llama.cpp holds
//! the reply to it), and the reply is run as that call through the same approval. An empty reply
//! after a command gets one more request.

use crate::common::*;
use serde_json::{Value, json};

const TIME_SKILL: &str =
    "---\nname: time\ndescription: Tells the current time in a timezone.\n---\n# time\n\nRun `./run.sh ZONE`.\n";
const TIME_SCRIPT: &str = "#!/bin/sh\necho \"2031-01-02 03:04 ${1:-UTC}\"\n";
const DB_SKILL: &str = "---\nname: database\ndescription: Read-only SQL queries on the shop database.\n---\n# Database\n\n1. `scripts/schema.sh` prints the tables.\n2. `scripts/query.sh \"SELECT …\"` prints rows.\n";

/// Guided calls on, whatever the server (the mock is no llama.cpp).
const ON: [(&str, &str); 1] = [("AGENT_GUIDED_CALLS", "on")];

fn events(out: &str) -> Vec<Value> {
    out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// One `--json --once` run of `request` with the compact prompt, no pre-activation and `env`:
/// exit code, events and the chat requests the model got.
async fn run(ws: &Workspace, mock: &MockLlm, request: &str, env: &[(&str, &str)]) -> (i32, Vec<Value>, Vec<Value>) {
    let mut cmd = ws.agent(mock);
    cmd.envs([("AGENT_PROMPT", "compact"), ("AGENT_PREACTIVATE", "0")])
        .envs(env.iter().copied())
        .args(["--json", "--approve", "auto", "--require-tool", "--once", request]);
    let (code, out, err) = run_outcome(cmd).await;
    assert!(!out.is_empty(), "{err}");
    (code, events(&out), mock.chat_requests().await)
}

/// The JSON schema a request held the reply to, if it did.
fn guide(request: &Value) -> Option<&Value> {
    request.pointer("/response_format/json_schema/schema")
}

/// A reply as the server writes it under a guide: the call as JSON text.
fn guided(name: &str, arguments: Value) -> Reply {
    text(&json!({"name": name, "arguments": arguments}).to_string())
}

#[tokio::test]
async fn an_answer_with_nothing_run_is_followed_by_a_request_held_to_the_skills_command() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        text("I'm sorry, I can't run commands."),
        guided("run_command", json!({"command": "./run.sh JST"})),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "what time is it in Tokyo?", &ON).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(requests.len(), 4);
    let held = guide(&requests[2]).unwrap_or_else(|| panic!("the third request is guided: {}", requests[2]));
    assert_eq!(requests[2]["tool_choice"], "none", "llama.cpp takes a grammar only so");
    assert_eq!(held["properties"]["name"]["const"], "run_command");
    let pattern = held["properties"]["arguments"]["properties"]["command"]["pattern"]
        .as_str()
        .unwrap();
    assert!(pattern.contains(r"run\.sh"), "{pattern}");
    assert_eq!(
        requests[2]["tools"], requests[1]["tools"],
        "the tools stay, so the prompt cache holds"
    );
    for i in [0, 1, 3] {
        assert!(
            guide(&requests[i]).is_none() && requests[i].get("tool_choice").is_none(),
            "{i}"
        );
    }
    let recovered = of_type(&events, "tool_call_recovered");
    assert_eq!(recovered.len(), 1, "{events:?}");
    assert_eq!(recovered[0]["shape"], "guided");
    assert_eq!(of_type(&events, "command_finished").len(), 1);
    assert!(of_type(&events, "answer_unverified").is_empty());
    assert_eq!(of_type(&events, "message")[0]["text"], "It is 2031-01-02 03:04 JST.");
}

#[tokio::test]
async fn with_no_skill_active_the_guide_is_an_activation_then_a_run() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Weather of a city.\n---\nRun `./run.sh CITY`.\n",
        Some("#!/bin/sh\necho sunny\n"),
    );
    let replies = vec![
        // Dressed as a tool's result: nothing printed it, and no skill is active.
        text("<tool_response>\nTokyo: 2026-11-29 21:04 JST\n</tool_response>"),
        guided("activate_skill", json!({"name": "time"})),
        guided("run_command", json!({"command": "./run.sh JST"})),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "what time is it in Tokyo?", &ON).await;
    assert_eq!(code, 0, "{events:?}");
    let activation = guide(&requests[1]).expect("the activation is guided");
    assert_eq!(activation["properties"]["name"]["const"], "activate_skill");
    let names = &activation["properties"]["arguments"]["properties"]["name"]["enum"];
    // Among the skills whose words match the request: not the weather.
    assert_eq!(names, &json!(["time"]), "{names}");
    let then = guide(&requests[2]).expect("then the run is guided");
    assert_eq!(then["properties"]["name"]["const"], "run_command");
    assert!(guide(&requests[3]).is_none());
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");

    // A request no skill's words match is never guided to one ("What is 2+2?").
    let replies = vec![text("<tool_response>\n4\n</tool_response>"), text("4")];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "what is 2+2?", &ON).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert!(requests.iter().all(|r| guide(r).is_none()), "{requests:?}");
}

#[tokio::test]
async fn guides_are_sent_only_where_the_server_takes_them() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = || {
        vec![
            tool("activate_skill", json!({"name": "time"})),
            text("I'm sorry, I can't run commands."),
            tool("run_command", json!({"command": "./run.sh JST"})),
            text("It is 2031-01-02 03:04 JST."),
        ]
    };
    // A server that is not llama.cpp: auto sends none, and the second chance is a plain request.
    let mock = MockLlm::start(replies()).await;
    let (code, _, requests) = run(&ws, &mock, "what time is it in Tokyo?", &[]).await;
    assert_eq!(code, 0);
    assert!(requests.iter().all(|r| guide(r).is_none()), "{requests:?}");
    // llama.cpp, as it describes itself when asked: auto guides.
    let mock = MockLlm::start(replies()).await;
    as_llama_cpp(&mock, 1_500_000_000).await;
    let (code, _, requests) = run(&ws, &mock, "what time is it in Tokyo?", &[("AGENT_TOOL_CHECK", "1")]).await;
    assert_eq!(code, 0);
    assert!(guide(&requests[2]).is_some(), "{}", requests[2]);
    // off: never.
    let mock = MockLlm::start(replies()).await;
    as_llama_cpp(&mock, 1_500_000_000).await;
    let off = [("AGENT_TOOL_CHECK", "1"), ("AGENT_GUIDED_CALLS", "off")];
    let (code, _, requests) = run(&ws, &mock, "what time is it in Tokyo?", &off).await;
    assert_eq!(code, 0);
    assert!(requests.iter().all(|r| guide(r).is_none()));
    // A value that is none of them is a configuration error, named.
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_GUIDED_CALLS", "sometimes").args(["--once", "hi"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("AGENT_GUIDED_CALLS") && err.contains("auto, on, off"),
        "{err}"
    );
}

#[tokio::test]
async fn a_command_whose_first_word_is_no_program_is_refused_and_the_next_reply_held() {
    let ws = Workspace::new();
    let dir = ws.skill("database", DB_SKILL, None);
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    write_script(&scripts.join("schema.sh"), "#!/bin/sh\necho 'table orders'\n");
    write_script(&scripts.join("query.sh"), "#!/bin/sh\necho \"count\"; echo 3\n");
    let replies = vec![
        tool("activate_skill", json!({"name": "database"})),
        tool("run_command", json!({"command": "SELECT COUNT(*) FROM orders"})),
        guided(
            "run_command",
            json!({"command": "scripts/query.sh \"SELECT COUNT(*) FROM orders\""}),
        ),
        text("There are 3 orders."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "how many orders are in the shop database?", &ON).await;
    assert_eq!(code, 0, "{events:?}");
    let denied = of_type(&events, "command_denied");
    assert_eq!(denied.len(), 1, "{events:?}");
    assert_eq!(denied[0]["command"], "SELECT COUNT(*) FROM orders");
    let told = last_tool_result(&requests[2]);
    assert!(
        told.contains("not run") && told.contains("`scripts/query.sh`"),
        "{told}"
    );
    let pattern = guide(&requests[2]).expect("guided")["properties"]["arguments"]["properties"]["command"]["pattern"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        pattern.contains(r"scripts/query\.sh") && pattern.contains(r"scripts/schema\.sh"),
        "{pattern}"
    );
    let finished = of_type(&events, "command_finished");
    assert_eq!(finished.len(), 1, "only the real command ran: {events:?}");
    assert!(finished[0]["command"].as_str().unwrap().starts_with("scripts/query.sh"));
    // Shell words and programs on PATH are commands, refused by nothing of this.
    let replies = vec![
        tool("activate_skill", json!({"name": "database"})),
        tool("run_command", json!({"command": "echo hi"})),
        text("It printed hi."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, _) = run(&ws, &mock, "how many orders are in the shop database?", &ON).await;
    assert_eq!(code, 0, "{events:?}");
    assert!(of_type(&events, "command_denied").is_empty(), "{events:?}");
}

#[tokio::test]
async fn an_empty_reply_after_a_command_gets_one_more_request() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text(""),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "what time is it in Tokyo?", &[]).await;
    assert_eq!(code, 0, "{events:?}");
    let retried = of_type(&events, "answer_retried");
    assert_eq!(retried.len(), 1, "{events:?}");
    assert!(retried[0]["reason"].as_str().unwrap().contains("empty"));
    assert!(contents(&requests[3], "user").last().unwrap().contains("was empty"));
    assert_eq!(of_type(&events, "message")[0]["text"], "It is 2031-01-02 03:04 JST.");
    // Silent twice: the command's output is the answer, as before.
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text(""),
        text(""),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "what time is it in Tokyo?", &[]).await;
    assert_eq!((code, requests.len()), (0, 4), "{events:?}");
    assert!(
        of_type(&events, "message")[0]["text"]
            .as_str()
            .unwrap()
            .contains("2031-01-02 03:04 JST")
    );
}

#[tokio::test]
async fn a_value_copied_from_the_skills_example_is_held_back_once() {
    let ws = Workspace::new();
    let body = "---\nname: word-count\ndescription: Counts the words of a text file.\n---\n# Word count\n\n```\nscripts/count.py FILE\n```\nExample:\n```\nscripts/count.py essay.md\n```\n";
    let dir = ws.skill("word-count", body, None);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    write_script(&dir.join("scripts/count.py"), "#!/bin/sh\necho \"words: 42 ($1)\"\n");
    std::fs::write(ws.work().join("essay.txt"), "some words\n").unwrap();
    let replies = vec![
        tool("activate_skill", json!({"name": "word-count"})),
        tool("run_command", json!({"command": "scripts/count.py essay.md"})),
        guided("run_command", json!({"command": "scripts/count.py essay.txt"})),
        text("essay.txt has 42 words."),
    ];
    let mock = MockLlm::start(replies).await;
    let request = "how many words are in essay.txt?";
    let (code, events, requests) = run(&ws, &mock, request, &ON).await;
    assert_eq!(code, 0, "{events:?}");
    let denied = of_type(&events, "command_denied");
    assert_eq!(denied.len(), 1, "{events:?}");
    assert!(
        denied[0]["reason"].as_str().unwrap().contains("`essay.md`"),
        "{denied:?}"
    );
    assert!(last_tool_result(&requests[2]).contains("values of the user's request"));
    assert!(guide(&requests[2]).is_some());
    let finished = of_type(&events, "command_finished");
    assert_eq!(finished.len(), 1, "{events:?}");
    assert!(finished[0]["command"].as_str().unwrap().ends_with("essay.txt"));
    // The model insists: the second time it runs (the value may be meant after all), and a value
    // the request gives is never held back.
    let replies = vec![
        tool("activate_skill", json!({"name": "word-count"})),
        tool("run_command", json!({"command": "scripts/count.py essay.md"})),
        tool("run_command", json!({"command": "scripts/count.py essay.md"})),
        text("essay.md has 42 words."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, _) = run(&ws, &mock, request, &ON).await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "command_denied").len(), 1, "{events:?}");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");
    let replies = vec![
        tool("activate_skill", json!({"name": "word-count"})),
        tool("run_command", json!({"command": "scripts/count.py essay.md"})),
        text("essay.md has 42 words."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, _) = run(&ws, &mock, "how many words are in essay.md?", &[]).await;
    assert_eq!(code, 0, "{events:?}");
    assert!(of_type(&events, "command_denied").is_empty(), "{events:?}");
}

#[tokio::test]
async fn an_answer_telling_the_user_to_run_the_skills_command_after_a_failure_gets_it_run() {
    let ws = Workspace::new();
    log_skill(
        &ws,
        "#!/bin/sh\necho 'not parsed: run scripts/parse.sh first' >&2\nexit 1\n",
    );
    let replies = vec![
        tool("activate_skill", json!({"name": "log-triage"})),
        tool("run_command", json!({"command": "scripts/summary.sh app.log"})),
        text("You need to parse the log first:\n\n```\nscripts/parse.sh app.log\n```\n"),
        guided("run_command", json!({"command": "scripts/parse.sh app.log"})),
        // The reply set aside, again: the model is stuck, and is asked once more, guided to an
        // answer or the next command.
        text("You need to parse the log first:\n\n```\nscripts/parse.sh app.log\n```\n"),
        text(&json!({"answer": "The log is parsed."}).to_string()),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "how many errors are in app.log?", &ON).await;
    assert_eq!(code, 0, "{events:?}");
    let retried = of_type(&events, "answer_retried");
    assert_eq!(retried.len(), 2, "{events:?}");
    assert!(
        retried[0]["reason"].as_str().unwrap().contains("tells the user to run"),
        "{retried:?}"
    );
    assert!(
        retried[1]["reason"].as_str().unwrap().contains("repeats"),
        "{retried:?}"
    );
    assert!(guide(&requests[3]).is_some(), "{}", requests[3]);
    let either = guide(&requests[5]).expect("the last request is guided");
    assert_eq!(either["anyOf"][0]["required"], json!(["answer"]), "{either}");
    assert_eq!(of_type(&events, "command_finished").len(), 2, "{events:?}");
    let shown: String = of_type(&events, "message_delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(
        !shown.contains("You need to parse"),
        "the reply set aside never streamed: {shown}"
    );
    assert!(
        !shown.contains("{\"answer\""),
        "the answer shows as text, not JSON: {shown}"
    );
    assert_eq!(of_type(&events, "message")[0]["text"], "The log is parsed.");
}

/// The log skill of the tests below: parse, then summarize the parsed file.
fn log_skill(ws: &Workspace, summary: &str) {
    let body = "---\nname: log-triage\ndescription: Counts the errors of a log file.\n---\n# Log triage\n\n```\nscripts/parse.sh FILE.log\nscripts/summary.sh FILE.log.parsed\n```\n";
    let dir = ws.skill("log-triage", body, None);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    write_script(&dir.join("scripts/parse.sh"), "#!/bin/sh\necho parsed\n");
    write_script(&dir.join("scripts/summary.sh"), summary);
}

#[tokio::test]
async fn a_repeated_command_is_refused_and_the_next_reply_guided_to_the_next_step_or_an_answer() {
    let ws = Workspace::new();
    log_skill(&ws, "#!/bin/sh\necho 'errors: 3'\n");
    let replies = vec![
        tool("activate_skill", json!({"name": "log-triage"})),
        tool("run_command", json!({"command": "scripts/parse.sh app.log"})),
        tool("run_command", json!({"command": "scripts/parse.sh app.log"})),
        guided("run_command", json!({"command": "scripts/summary.sh app.log.parsed"})),
        text("There are 3 errors."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "how many errors are in app.log?", &ON).await;
    assert_eq!(code, 0, "{events:?}");
    assert!(last_tool_result(&requests[3]).contains("not run again"));
    let either = guide(&requests[3]).expect("guided");
    let pattern = either["anyOf"][1]["properties"]["arguments"]["properties"]["command"]["pattern"]
        .as_str()
        .unwrap();
    // Only the step that has not run yet.
    assert!(
        pattern.contains(r"scripts/summary\.sh") && !pattern.contains("parse"),
        "{pattern}"
    );
    assert_eq!(of_type(&events, "command_finished").len(), 2);
    // A skill with one command, which ran: no next step to guide to.
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        text("It is 2031-01-02 03:04 JST."),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, _, requests) = run(&ws, &mock, "what time is it in Tokyo?", &ON).await;
    assert_eq!(code, 0);
    assert!(requests.iter().all(|r| guide(r).is_none()));
}

#[tokio::test]
async fn a_reply_set_aside_and_repeated_after_its_once_more_leaves_the_output_as_the_answer() {
    let ws = Workspace::new();
    ws.skill("time", TIME_SKILL, Some(TIME_SCRIPT));
    let explained = "To see the time, run the time skill's script with the zone.";
    let replies = vec![
        tool("activate_skill", json!({"name": "time"})),
        tool("run_command", json!({"command": "./run.sh JST"})),
        // Uses nothing the command printed: set aside; then repeated, twice.
        text(explained),
        text(explained),
        text(explained),
    ];
    let mock = MockLlm::start(replies).await;
    let (code, events, requests) = run(&ws, &mock, "what time is it in Tokyo?", &[]).await;
    assert_eq!((code, requests.len()), (0, 5), "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 2, "{events:?}");
    let warned: Vec<&str> = of_type(&events, "warning")
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert!(
        warned.iter().any(|w| w.contains("repeated a reply set aside")),
        "{warned:?}"
    );
    let answer = of_type(&events, "message")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("2031-01-02 03:04 JST"), "{answer}");
    let shown: String = of_type(&events, "message_delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(!shown.contains("To see the time"), "{shown}");
}
