//! The rough edges of a new user's first day (issue 39), each through the real binary: what a
//! running command shows on the terminal, and the smaller surprises of the commands around it.

use std::sync::Arc;
use std::time::Duration;

use crate::common::pty::{blocking, chat, ctrl_d_exits_zero, from_pty, type_line};
use crate::common::*;

/// Terminal output after the last time the spinner's line was wiped: what stays on screen.
fn after_last_wipe(before: &str) -> String {
    let text = from_pty(before);
    let at = text.rfind("\r\x1b[2K").map_or(0, |i| i + 5);
    text[at..].to_string()
}

/// A command's output shows under it while it runs (its last lines), and stays in the transcript
/// when it ends or is interrupted (item 1).
#[tokio::test(flavor = "multi_thread")]
async fn a_running_commands_output_shows_live_and_stays_after_it_ends_or_is_interrupted() {
    let ws = Arc::new(Workspace::new());
    ws.skill("quick", "# Quick\n\nSays hello.\n", Some("#!/bin/sh\necho first-out\n"));
    ws.skill(
        "countdown",
        "# Countdown\n\nCounts down.\n",
        Some("#!/bin/sh\necho tick30\necho tick29\nprintf tick28\nsleep 300\n"),
    );
    let mut replies = activate_run_answer("quick", "./run.sh", "done one");
    replies.extend(activate_run_answer("countdown", "./run.sh", "never"));
    let mock = Arc::new(MockLlm::start(replies).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &["--yes"]);
        type_line(&mut p, "say hello");
        let before = p.exp_string("exit 0").unwrap();
        let kept = after_last_wipe(&before);
        assert!(kept.contains("│ first-out"), "{kept:?}");
        p.exp_string("done one").unwrap();

        type_line(&mut p, "count down");
        p.exp_string("run [countdown] ./run.sh").unwrap();
        // The unfinished last line is on screen while the command still sleeps.
        p.exp_string("tick28").unwrap();
        p.send_control('c').unwrap();
        let before = p.exp_string("interrupted").unwrap();
        let kept = after_last_wipe(&before);
        let at = |s: &str| kept.find(s).unwrap_or_else(|| panic!("{s} not kept: {kept:?}"));
        assert!(
            at("│ tick30") < at("│ tick29") && at("│ tick29") < at("│ tick28"),
            "{kept:?}"
        );
        ctrl_d_exits_zero(p);
    })
    .await;
}

/// Copy a folder tree (the checkout's skills into a newcomer's clone).
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// The README's first block, run line by line as a newcomer's script would (no terminal, no
/// network: the model mocked), succeeds: trust comes before the first question, and the first
/// question is one the offline `time` skill answers for real (item 2).
#[tokio::test]
async fn the_readmes_first_commands_succeed_in_a_script_offline() {
    let readme = std::fs::read_to_string(repo_path("README.md")).unwrap();
    let block = readme.split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    let commands: Vec<Vec<String>> = block
        .lines()
        .filter_map(|l| l.strip_prefix("cargo run --release -- "))
        .map(|rest| shell_words::split(rest.split("  #").next().unwrap()).unwrap())
        .collect();
    let first_question = commands.iter().position(|c| c.contains(&"--once".to_string()));
    let trust = commands.iter().position(|c| c[0] == "trust");
    assert!(
        matches!((trust, first_question), (Some(t), Some(q)) if t < q),
        "{commands:?}"
    );

    let ws = Workspace::new();
    copy_tree(&repo_path("skills"), &ws.work().join("skills"));
    let mock = MockLlm::start(activate_run_answer("time", "./run.sh Tokyo", "It is evening in Tokyo.")).await;
    for args in &commands {
        let mut cmd = ws.bare_agent();
        cmd.envs(mock.env()).args(args);
        let (code, out, err) = run_outcome(cmd).await;
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    }
    let reqs = mock.requests().await;
    assert_eq!(reqs.len(), 3, "one question, answered through the time skill");
    let result = last_tool_result(&reqs[2]);
    assert!(
        result.contains("Asia/Tokyo") && result.contains("exit code: 0"),
        "{result}"
    );
}

/// `-c` opening the chat goes on with the last chat, not a one-shot run made since, and says which
/// it resumed; a one-shot `-c` still takes the newest of either (item 14).
#[tokio::test(flavor = "multi_thread")]
async fn continue_in_the_chat_takes_the_last_chat_not_a_later_one_shot() {
    use crate::common::sessions::{once, pty_chat};
    let ws = Arc::new(Workspace::new());
    let mock = Arc::new(MockLlm::start(vec![text("Chat answer."), text("Once answer."), text("Chat goes on.")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = pty_chat(&w, &m, &[]);
        type_line(&mut p, "chat question");
        p.exp_string("Chat answer.").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(once(&ws, &mock, "one-shot question", &[]).await.0, 0);
    let chat_id = ws
        .session_files()
        .iter()
        .map(|f| crate::common::sessions::records(f)[0].clone())
        .find(|h| h["chat"] == true)
        .and_then(|h| h["id"].as_str().map(str::to_string))
        .expect("the chat's session is marked");
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = pty_chat(&w, &m, &["-c"]);
        p.exp_string(&format!("resumed session {chat_id}")).unwrap();
        type_line(&mut p, "go on");
        p.exp_string("Chat goes on.").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let requests = mock.requests().await;
    let users = crate::common::sessions::users(requests.last().unwrap());
    assert_eq!(users, ["chat question", "go on"]);
}

/// `mcp add` with a launcher that is not installed says so at once, with how to get it, and
/// `mcp list` says the same rather than a raw operating-system error (item 3).
#[tokio::test]
async fn adding_an_mcp_server_whose_program_is_missing_says_how_to_get_it() {
    let ws = Workspace::new();
    let empty = ws.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let mut add = ws.bare_agent();
    add.env("PATH", &empty)
        .args(["mcp", "add", "time", "--", "uvx", "mcp-server-time"]);
    let (code, out, err) = run_outcome(add).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("MCP server time: `uvx` is not on PATH") && err.contains("pip install uv"),
        "{err}"
    );
    let mut list = ws.bare_agent();
    list.env("PATH", &empty).args(["mcp", "list"]);
    let (_, out, err) = run_outcome(list).await;
    assert!(out.contains("`uvx` is not on PATH"), "{out}{err}");
    assert!(!out.contains("os error"), "{out}");
    // A program that is there is added without a word.
    let mut add = ws.bare_agent();
    add.args(["mcp", "add", "shell", "--", "sh", "-c", "exit 0"]);
    let (code, _, err) = run_outcome(add).await;
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not on PATH"), "{err}");
}

/// `skills show` and `--skill` say the same of an unknown name: the nearest names, not the whole
/// library (item 8).
#[tokio::test]
async fn an_unknown_skill_name_gets_the_same_suggestion_everywhere() {
    let ws = Workspace::new();
    for name in [
        "weather", "slugify", "alpha", "beta", "gamma", "delta", "epsilon", "zeta",
    ] {
        ws.skill(
            name,
            &format!("---\nname: {name}\ndescription: Does {name} things.\n---\n"),
            None,
        );
    }
    let mock = MockLlm::start(vec![]).await;
    let mut show = ws.agent(&mock);
    show.args(["skills", "show", "weathr"]);
    let (code, _, err) = run_outcome(show).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("weathr: there is no skill of that name; did you mean weather?"),
        "{err}"
    );
    assert!(!err.contains("epsilon"), "the whole library is not listed: {err}");
    let mut invoke = ws.agent(&mock);
    invoke.args(["--skill", "slugfy", "x"]);
    let (code, _, err) = run_outcome(invoke).await;
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("slugfy: there is no skill of that name; did you mean slugify?"),
        "{err}"
    );
}

/// Skills named and described at length, as a public collection's are.
fn a_collection(ws: &Workspace, count: usize) {
    for i in 0..count {
        let name = format!("collection-tool-number-{i:02}-with-a-long-name");
        ws.skill(
            &name,
            &format!(
                "---\nname: {name}\ndescription: Automates tool number {i} through its web API, with pagination, \
                 retries and rate limits handled. Use when the user asks about tool {i}.\n---\nbody\n"
            ),
            None,
        );
    }
}

/// The same notices every run are said once per change (more with -v), and the catalog notice
/// counts the skills as `skills list` does (item 4).
#[tokio::test]
async fn repeated_notices_are_said_once_per_change_and_counts_agree() {
    let ws = Workspace::new();
    a_collection(&ws, 30);
    ws.skill(
        "Bad Name",
        "---\nname: Bad Name\ndescription: Has a name against the rules.\n---\n",
        None,
    );
    let mock = MockLlm::start((0..6).map(|_| text("ok")).collect()).await;
    let run = |extra: &[&str]| {
        let mut cmd = ws.agent(&mock);
        cmd.env("AGENT_CATALOG_BUDGET", "2000")
            .args(["--once", "hi"])
            .args(extra);
        run_outcome(cmd)
    };
    let (code, _, first) = run(&[]).await;
    assert_eq!(code, 0, "{first}");
    assert!(first.contains("loaded with problems"), "{first}");
    assert!(first.contains("31 skills do not fit the catalog budget"), "{first}");
    let (_, _, second) = run(&[]).await;
    assert!(!second.contains("loaded with problems"), "{second}");
    assert!(!second.contains("do not fit"), "{second}");
    let (_, _, asked) = run(&["-v"]).await;
    assert!(asked.contains("do not fit") && asked.contains("Bad Name"), "{asked}");
    // A change is news again.
    ws.skill(
        "Other Bad",
        "---\nname: Other Bad\ndescription: Another name against the rules.\n---\n",
        None,
    );
    let (_, _, changed) = run(&[]).await;
    assert!(changed.contains("2 skill(s) loaded with problems"), "{changed}");
    assert!(changed.contains("32 skills do not fit"), "{changed}");
    // --json says the one summary every run (a script's output does not depend on an earlier
    // run), each problem only with -v.
    let warnings = |out: &str| -> Vec<String> {
        out.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|e| e["type"] == "warning")
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let (_, out, _) = run(&["--json"]).await;
    let said = warnings(&out);
    let summaries = said
        .iter()
        .filter(|w| w.contains("2 skill(s) loaded with problems"))
        .count();
    assert_eq!(summaries, 1, "{said:?}");
    assert!(!said.iter().any(|w| w.contains("SKILL.md:")), "{said:?}");
    let (_, out, _) = run(&["--json", "-v"]).await;
    let said = warnings(&out);
    assert!(said.iter().filter(|w| w.contains("SKILL.md:")).count() >= 2, "{said:?}");

    let mut list = ws.agent(&mock);
    list.env("AGENT_CATALOG_BUDGET", "2000")
        .args(["--json", "skills", "list"]);
    let (_, out, _) = run_outcome(list).await;
    let doc: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let costing = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["catalog_bytes"].as_u64() > Some(0))
        .count();
    assert_eq!(costing, 32, "{doc}");
}

/// `skills list` on a narrow terminal: the footer wraps at words rather than being cut, and a
/// ROOT column left out is said (items 5 and 20); `skills check`'s info line has no runs of
/// spaces (item 5).
#[tokio::test]
async fn narrow_listings_wrap_at_words_and_say_what_they_leave_out() {
    let ws = Arc::new(Workspace::new());
    a_collection(&ws, 30);
    let w = ws.clone();
    let screen = blocking_text(move || {
        let mut cmd = crate::common::pty::pty_agent(&w);
        cmd.env("COLUMNS", "80")
            .env("AGENT_CATALOG_BUDGET", "2000")
            .args(["skills", "list"]);
        let mut p = rexpect::session::spawn_command(cmd, Some(15_000)).unwrap();
        from_pty(&p.exp_eof().unwrap())
    })
    .await;
    let lines: Vec<&str> = screen.lines().map(|l| l.trim_end_matches('\r')).collect();
    // Under the table (whose rows keep a minimum of description, so long names overflow).
    let under = lines
        .iter()
        .position(|l| l.starts_with("(ROOT left out"))
        .expect(&screen);
    let long: Vec<&&str> = lines[under..].iter().filter(|l| l.chars().count() > 80).collect();
    assert!(long.is_empty(), "{long:?}");
    let joined = lines[under..].join(" ");
    assert!(joined.contains("those most relevant to it (largest:"), "{screen}");
    assert!(
        joined.contains("(ROOT left out: the table needs more than 80 columns"),
        "{screen}"
    );
    assert!(!lines[0].contains("ROOT"), "{screen}");

    let mut check = ws.bare_agent();
    check
        .env("AGENT_CATALOG_BUDGET", "400")
        .args(["skills", "check"])
        .arg(ws.skills());
    let (_, out, _) = run_outcome(check).await;
    assert!(out.contains("catalog line costs"), "{out}");
    assert!(!out.contains("    library"), "{out}");
    assert!(!out.lines().any(|l| l.trim_start().contains("      ")), "{out}");
}

/// Run `f` off the async threads and return what it returns.
async fn blocking_text<F: FnOnce() -> String + Send + 'static>(f: F) -> String {
    tokio::task::spawn_blocking(f).await.unwrap()
}

/// `skills check` reports a short description once, and its list of known keys names every key
/// it accepts (item 12).
#[tokio::test]
async fn a_short_description_is_one_finding_and_known_keys_are_all_named() {
    let ws = Workspace::new();
    ws.skill(
        "terse",
        "---\nname: terse\ndescription: Does it.\nargument-hint: \"[file]\"\ncolour: blue\n---\nbody\n",
        None,
    );
    let mut check = ws.bare_agent();
    check.args(["--json", "skills", "check"]).arg(ws.skills());
    let (_, out, err) = run_outcome(check).await;
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{out}{err}"));
    let findings = report["skills"][0]["findings"].as_array().unwrap().clone();
    let about_length = findings
        .iter()
        .filter(|f| matches!(f["code"].as_str(), Some("description-too-short" | "vague-description")))
        .count();
    assert_eq!(about_length, 1, "{findings:?}");
    let unknown = findings
        .iter()
        .find(|f| f["code"] == "unknown-key")
        .expect("colour is unknown");
    let message = unknown["message"].as_str().unwrap();
    for key in [
        "requires",
        "argument-hint",
        "disable-model-invocation",
        "arguments",
        "user-invocable",
    ] {
        assert!(message.contains(key), "{key} missing from: {message}");
    }
    assert!(
        !findings
            .iter()
            .any(|f| f["message"].as_str().unwrap_or("").contains("`argument-hint`")),
        "{findings:?}"
    );
}

/// A file named in a plain sentence (`fill in FORMS.md`) where the skill has `forms.md` is
/// reported as a case mismatch, as it is in backticks; a word of prose naming no file is not
/// called missing (item 18).
#[tokio::test]
async fn a_file_named_in_prose_in_other_letter_case_is_reported() {
    let ws = Workspace::new();
    let dir = ws.skill(
        "forms",
        "---\nname: forms\ndescription: Fills PDF forms from the fields a user gives. Use for form filling.\n---\n\
         First read FORMS.md for the field names, then fill them.\nSee also NOTES.md if you have one.\n",
        None,
    );
    std::fs::write(dir.join("forms.md"), "fields\n").unwrap();
    let mut check = ws.bare_agent();
    check.args(["--json", "skills", "check"]).arg(ws.skills());
    let (_, out, err) = run_outcome(check).await;
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{out}{err}"));
    let findings = report["skills"][0]["findings"].as_array().unwrap();
    let case: Vec<&serde_json::Value> = findings.iter().filter(|f| f["code"] == "file-name-case").collect();
    assert_eq!(case.len(), 1, "{findings:?}");
    assert!(
        case[0]["message"].as_str().unwrap().contains("write `forms.md`"),
        "{case:?}"
    );
    assert_eq!(case[0]["line"], 5, "{case:?}");
    assert!(!findings.iter().any(|f| f["code"] == "missing-file"), "{findings:?}");
}

/// Whether `shell` runs here; when it does not, the test is reported skipped (a failure under
/// `AGENT_TEST_NO_SKIP=1`: `.ci/run` installs both shells).
fn has_shell(shell: &str) -> bool {
    let runs = on_path(shell);
    if !runs {
        crate::common::kernel::skipped(&format!("{shell} is not installed (.ci/run installs it)"));
    }
    runs
}

/// A workspace with three skills whose names share prefixes (`we…`), for completion.
fn three_skills() -> Workspace {
    let ws = Workspace::new();
    for name in ["weather", "web-search", "time"] {
        ws.skill(
            name,
            &format!("---\nname: {name}\ndescription: The {name} skill for tests.\n---\n"),
            None,
        );
    }
    ws
}

/// Bash completes skill names after `skills show`, `skills tune` and `--skill`, from the skills
/// the agent finds (item 15); other words are still clap's.
#[test]
fn bash_completes_skill_names() {
    if !has_shell("bash") {
        return;
    }
    let ws = three_skills();
    let out = ws.bare_agent().args(["completions", "bash"]).output().unwrap();
    let script = ws.dir.path().join("agent.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_agent"))
        .parent()
        .unwrap()
        .to_path_buf();
    let complete = |words: &str| {
        let out = ws
            .clean_command("bash")
            .args([
                "-c",
                &format!(
                    "source \"$1\"; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                     _agent_skill_names \"${{COMP_WORDS[0]}}\" \"${{COMP_WORDS[COMP_CWORD]}}\" \
                     \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\""
                ),
                "sh",
            ])
            .arg(&script)
            .env(
                "PATH",
                format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()),
            )
            .env("AGENT_SKILLS_PATH", ws.skills())
            .env("AGENT_BUNDLED_SKILLS", "0")
            .output()
            .unwrap();
        let mut got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        got.sort();
        got
    };
    assert_eq!(complete("agent skills show we"), ["weather", "web-search"]);
    assert_eq!(complete("agent --skill ti"), ["time"]);
    assert!(
        complete("agent skills sh").contains(&"show".to_string()),
        "clap's own words still complete"
    );
}

/// A path an instruction gives to a file the skill has elsewhere (`references/api.md` for
/// `api.md`) is read by the model and not reported missing: `read_skill_file` and `skills check`
/// resolve it by the same rule; a command's path must still be exact (item 19).
#[tokio::test]
async fn check_and_the_models_read_resolve_a_misplaced_path_alike() {
    let ws = Workspace::new();
    let dir = ws.skill(
        "api",
        "---\nname: api\ndescription: Calls the example API for its records. Use for API records.\n---\n\
         Read `references/api.md` for the endpoints.\nThen run `python3 scripts/fetch.py` to fetch.\n",
        None,
    );
    std::fs::write(dir.join("api.md"), "GET /records\n").unwrap();
    std::fs::write(dir.join("fetch.py"), "print('x')\n").unwrap();
    let mut check = ws.bare_agent();
    check.args(["--json", "skills", "check"]).arg(ws.skills());
    let (_, out, err) = run_outcome(check).await;
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{out}{err}"));
    let missing: Vec<String> = report["skills"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "missing-file")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(
        missing[0].contains("scripts/fetch.py") && missing[0].contains("`fetch.py`"),
        "{missing:?}"
    );

    let mock = MockLlm::start(vec![
        tool("activate_skill", serde_json::json!({"name": "api"})),
        tool(
            "read_skill_file",
            serde_json::json!({"skill": "api", "path": "references/api.md"}),
        ),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "records please"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(
        result.contains("GET /records") && result.contains("the skill's only file of that name"),
        "{result}"
    );
}

/// With only a key set, an endpoint that cannot be looked up says what was tried and why: the
/// default endpoint, chosen because the key is set, which also skipped looking for a local server,
/// never "check the spelling" of a base URL the user did not set (item 13). The lookup fails for
/// real, without the network: the binary runs in a network namespace of its own.
#[tokio::test]
async fn an_unresolvable_default_endpoint_names_the_key_that_chose_it() {
    let isolated = std::process::Command::new("unshare")
        .args(["--map-current-user", "--net", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !isolated {
        eprintln!("SKIP an_unresolvable_default_endpoint: no unprivileged network namespace here");
        return;
    }
    let ws = Workspace::new();
    let mut cmd = assert_cmd::Command::new("unshare");
    cmd.args(["--map-current-user", "--net"])
        .arg(assert_cmd::cargo::cargo_bin("agent"))
        .args(["--once", "hello"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", ws.home())
        .env("AGENT_RETRIES", "0")
        .env("AGENT_MODEL", "gpt-4.1-mini")
        .env("AGENT_TOOL_CHECK", "0")
        .env("AGENT_BUNDLED_SKILLS", "0")
        .env("AGENT_API_KEY", "sk-test-key-0123456789")
        .current_dir(ws.work())
        .timeout(Duration::from_secs(60));
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 4, "an unreachable endpoint is an LLM error: {out}{err}");
    assert!(err.contains("api.openai.com"), "names what was tried: {err}");
    assert!(
        err.contains("because AGENT_API_KEY is set") && err.contains("no local server"),
        "says why, and what was skipped: {err}"
    );
    assert!(
        err.contains("AGENT_BASE_URL=http://127.0.0.1"),
        "says the way to a local server: {err}"
    );
    assert!(!err.contains("check the spelling"), "the user set no base URL: {err}");
}

/// zsh completes skill names where a skill is named (item 15): the script clap writes parses, and
/// its helper lists the skills the agent finds where it runs (which names match the typed prefix
/// is zsh's own `compadd`, stood in for here).
#[test]
fn zsh_completes_skill_names() {
    if !has_shell("zsh") {
        return;
    }
    let ws = three_skills();
    let out = ws.bare_agent().args(["completions", "zsh"]).output().unwrap();
    assert!(out.status.success());
    let script = ws.dir.path().join("_agent");
    std::fs::write(&script, &out.stdout).unwrap();
    let syntax = std::process::Command::new("zsh")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_agent"))
        .parent()
        .unwrap()
        .to_path_buf();
    let listed = std::process::Command::new("zsh")
        .args([
            "-fc",
            "autoload -Uz compinit && compinit -u -D; source \"$1\"; \
             compadd() { print -l -- ${(P)2} }; words=(agent skills show we); _agent_skill_names",
            "zsh",
        ])
        .arg(&script)
        .env_clear()
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()),
        )
        .env("HOME", ws.home())
        .env("AGENT_SKILLS_PATH", ws.skills())
        .env("AGENT_BUNDLED_SKILLS", "0")
        .current_dir(ws.work())
        .output()
        .unwrap();
    let mut names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["time", "weather", "web-search"],
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
}
