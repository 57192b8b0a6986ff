//! An answer about a file of the working folder that nothing read (issue 33): the 1.5B model on
//! llama.cpp answered "How many words are in essay.txt?" with a number, activating nothing and
//! running nothing. Such an answer is marked, `--require-tool` makes it exit 9, and under the
//! compact prompt the skill that clearly fits is activated for it, before the first request or on
//! its one second chance.

use crate::common::*;
use serde_json::{Value, json};

const WORDS_SKILL: &str = "---\nname: word-count\ndescription: Counts the words, lines and characters of a text file.\n---\n# word-count\n\nRun `./run.sh FILE`.\n";
const WORDS_SCRIPT: &str = "#!/bin/sh\necho \"words: $(wc -w < \"$1\" | tr -d ' ')\"\n";

/// One `--json --once` run asking `request`, with `env` and `args`; the exit code, the events
/// and the mock.
async fn ask(
    ws: &Workspace,
    request: &str,
    replies: Vec<Reply>,
    env: &[(&str, &str)],
    args: &[&str],
) -> (i32, Vec<Value>, MockLlm) {
    let mock = MockLlm::start(replies).await;
    let mut cmd = ws.agent(&mock);
    cmd.envs(env.iter().copied())
        .args(["--json", "--approve", "auto", "--once", request])
        .args(args);
    let (code, out, err) = run_outcome(cmd).await;
    let events = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}\n{err}")))
        .collect();
    (code, events, mock)
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.skill("word-count", WORDS_SKILL, Some(WORDS_SCRIPT));
    std::fs::write(ws.work().join("essay.txt"), "one two three\n").unwrap();
    ws
}

#[tokio::test]
async fn an_answer_about_a_file_nothing_read_is_marked() {
    let ws = workspace();
    let request = "How many words are in essay.txt?";
    let (code, events, _) = ask(
        &ws,
        request,
        vec![text("essay.txt has 119 words.")],
        &[],
        &["--require-tool"],
    )
    .await;
    assert_eq!(code, 9, "{events:?}");
    let marked = of_type(&events, "answer_unverified");
    assert_eq!(marked.len(), 1, "{events:?}");
    let reason = marked[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("essay.txt") && reason.contains("nothing in this turn read"),
        "{reason}"
    );

    // Once the skill ran on it, the same kind of answer stands.
    let replies = vec![
        tool("activate_skill", json!({"name": "word-count"})),
        tool("run_command", json!({"command": "./run.sh essay.txt"})),
        text("essay.txt has 3 words."),
    ];
    let (code, events, _) = ask(&ws, request, replies, &[], &["--require-tool"]).await;
    assert_eq!(code, 0, "{events:?}");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");

    // A file that is not there, or a request that names none, is nothing to read.
    for request in ["How many words are in missing.txt?", "What is 2.5 times 4?"] {
        let (code, events, _) = ask(&ws, request, vec![text("10.")], &[], &["--require-tool"]).await;
        assert_eq!(code, 0, "{request}: {events:?}");
    }
}

#[tokio::test]
async fn a_small_model_gets_a_second_chance_with_the_skill_that_fits() {
    let ws = workspace();
    let replies = vec![
        text("essay.txt has 119 words."),
        tool("run_command", json!({"command": "./run.sh essay.txt"})),
        text("essay.txt has 3 words."),
    ];
    // Pre-activation off: the second chance activates the skill that fits.
    let env = [("AGENT_PROMPT", "compact"), ("AGENT_PREACTIVATE", "0")];
    let (code, events, mock) = ask(
        &ws,
        "How many words are in essay.txt?",
        replies,
        &env,
        &["--require-tool"],
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");
    let messages = of_type(&events, "message");
    assert!(
        messages
            .iter()
            .all(|m| !m["text"].as_str().unwrap_or("").contains("119")),
        "the reply set aside is not shown: {events:?}"
    );
    let asked = contents(&mock.requests().await[1], "user");
    let note = asked.last().unwrap();
    assert!(
        note.starts_with("[agent]") && note.contains("essay.txt") && note.contains("word-count fits"),
        "{note}"
    );
}

/// Pre-activation (on under the compact prompt) needs the winner's words to explain enough of
/// the request, which "What's the largest amount in sales.csv?" does not for a statistics skill.
/// A request that names a file of the working folder needs a tool all the same, so there the
/// clear margin alone activates the skill; naming a file that is not there changes nothing.
#[tokio::test]
async fn a_request_naming_a_file_pre_activates_the_skill_that_clearly_fits() {
    let ws = workspace();
    ws.skill(
        "csv-stats",
        "---\nname: csv-stats\ndescription: Summary statistics of one numeric column of a CSV file.\n---\n# csv-stats\n\nRun `./run.sh FILE COLUMN`.\n",
        Some("#!/bin/sh\necho max 99\n"),
    );
    std::fs::write(ws.work().join("sales.csv"), "amount\n5\n99\n").unwrap();
    let env = [("AGENT_PROMPT", "compact")];
    let replies = || {
        vec![
            tool("run_command", json!({"command": "./run.sh sales.csv amount"})),
            text("The largest amount is 99."),
        ]
    };
    let (code, events, _) = ask(&ws, "What's the largest amount in sales.csv?", replies(), &env, &[]).await;
    assert_eq!(code, 0, "{events:?}");
    let selected = of_type(&events, "skill_selected");
    assert_eq!(selected.len(), 1, "{events:?}");
    assert_eq!(selected[0]["skill"], "csv-stats");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");

    let replies = vec![text("There is no other.csv here.")];
    let (code, events, _) = ask(&ws, "What's the largest amount in other.csv?", replies, &env, &[]).await;
    assert_eq!(code, 0, "{events:?}");
    assert!(of_type(&events, "skill_selected").is_empty(), "{events:?}");
}
