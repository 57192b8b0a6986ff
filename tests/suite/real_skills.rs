//! Skills shaped like the ones people install (Claude Code layout: `scripts/*.py` importing a
//! sibling module, instructions naming files in another letter case, scripts printing their error
//! on stdout, `requires.mcp`), run through the real binary under the default sandbox: commands run
//! in the user's working folder, installs never change themselves, files are found, failures say
//! why, and the bundled skills come with the binary.

use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::{Value, json};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A bibliography skill written the Claude Code way: `python scripts/format_refs.py IN -o OUT`,
/// the script importing `scripts/bibtools.py`, the body pointing at `REFERENCE.md` (the file is
/// `reference.md`).
fn bib_skill(src: &Path) -> PathBuf {
    let dir = src.join("bib-format");
    write(
        &dir.join("SKILL.md"),
        "---\nname: bib-format\ndescription: Format and deduplicate BibTeX files. Use when the user asks to clean up a .bib file.\n---\n\
         # BibTeX formatting\n\nRun `python3 scripts/format_refs.py refs.bib -o formatted.bib`.\n\
         See REFERENCE.md for the rules.\n",
    );
    write(&dir.join("reference.md"), "Entries are keyed by their citation key.\n");
    write(
        &dir.join("scripts/bibtools.py"),
        "def dedupe(text):\n    seen, out = set(), []\n    for chunk in text.split('@')[1:]:\n        key = chunk.split('{', 1)[1].split(',', 1)[0].strip()\n        if key not in seen:\n            seen.add(key)\n            out.append('@' + chunk.strip())\n    return out\n",
    );
    write(
        &dir.join("scripts/format_refs.py"),
        "import sys\nfrom bibtools import dedupe\n\nargs = sys.argv[1:]\nout = args[args.index('-o') + 1]\nentries = dedupe(open(args[0]).read())\nwith open(out, 'w') as f:\n    f.write('\\n\\n'.join(entries) + '\\n')\nprint(f'wrote {len(entries)} entries to {out}')\n",
    );
    dir
}

const REFS: &str =
    "@article{knuth84, title={Literate}}\n@book{knuth84, title={Literate again}}\n@misc{lamport94, title={LaTeX}}\n";

/// `skills add` of a local folder into the workspace's `~/.agents/skills`.
async fn install(ws: &Workspace, source: &Path) {
    let mut add = ws.bare_agent();
    add.args(["skills", "add"]).arg(source);
    let (code, _, err) = run_outcome(add).await;
    assert_eq!(code, 0, "{err}");
}

fn files_below(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_below(&path));
        } else {
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out
}

#[tokio::test]
async fn an_installed_claude_code_skill_reads_and_writes_in_the_working_folder_run_after_run() {
    let ws = Workspace::new();
    let src = ws.dir.path().join("src");
    install(&ws, &bib_skill(&src)).await;
    let installed = ws.home().join(".agents/skills/bib-format");
    let before = files_below(&installed);
    let mut show = ws.bare_agent();
    show.args(["--json", "skills", "show", "bib-format"]);
    let (code, out, err) = run_outcome(show).await;
    assert_eq!(code, 0, "{err}");
    let shown: Value = serde_json::from_str(&out).unwrap();
    assert!(
        shown["sandbox"]["write"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["grant"] != "skill-folder")
            && shown["sandbox"]["skipped"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["grant"] == "skill-folder"),
        "skills show says the installed folder is read-only: {}",
        shown["sandbox"]
    );
    std::fs::write(ws.work().join("refs.bib"), REFS).unwrap();
    let command = "python3 scripts/format_refs.py refs.bib -o formatted.bib";
    for run in 1..=3 {
        std::fs::remove_file(ws.work().join("formatted.bib")).ok();
        let mock = MockLlm::start(activate_run_answer("bib-format", command, "Formatted.")).await;
        let mut cmd = ws.agent(&mock);
        // PYTHONDONTWRITEBYTECODE is not in the test's environment (env_clear): agent sets it.
        cmd.args(["--approve", "auto", "--once", "format and deduplicate refs.bib"]);
        let (code, _, err) = run_outcome(cmd).await;
        assert_eq!(code, 0, "run {run}: {err}");
        let requests = mock.requests().await;
        let activation = last_tool_result(&requests[1]);
        assert!(
            activation.contains(&installed.display().to_string())
                && activation.contains(&format!("working folder {}", ws.work().display())),
            "the model is told both folders: {activation}"
        );
        let result = last_tool_result(&requests[2]);
        assert!(
            result.contains("wrote 2 entries to formatted.bib"),
            "run {run}: {result}"
        );
        let formatted = std::fs::read_to_string(ws.work().join("formatted.bib")).unwrap();
        assert!(formatted.contains("lamport94") && formatted.matches("knuth84").count() == 1);
    }
    assert_eq!(
        files_below(&installed),
        before,
        "three runs left the installed skill exactly as installed (no __pycache__, no outputs)"
    );
}

#[tokio::test]
async fn a_script_insisting_on_writing_into_its_installed_folder_is_told_where_outputs_go() {
    let ws = Workspace::new();
    let src = ws.dir.path().join("src/stubborn");
    write(
        &src.join("SKILL.md"),
        "---\nname: stubborn\ndescription: Writes its report next to itself.\n---\nRun `scripts/report.sh`.\n",
    );
    std::fs::create_dir_all(src.join("scripts")).unwrap();
    write_script(
        &src.join("scripts/report.sh"),
        "#!/bin/sh\necho report > \"$SKILL_DIR/report.txt\"\n",
    );
    install(&ws, &src).await;
    let installed = ws.home().join(".agents/skills/stubborn");
    let mock = MockLlm::start(activate_run_answer("stubborn", "scripts/report.sh", "Done.")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "auto", "--json", "--once", "write the report"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(!installed.join("report.txt").exists(), "the install was not changed");
    let finished: Value = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "command_finished")
        .unwrap();
    if finished["sandbox_hint"].is_null() {
        // Without Landlock nothing is confined: say so rather than pass silently.
        eprintln!("skipped: the kernel sandbox is not available here");
        return;
    }
    let hint = finished["sandbox_hint"].as_str().unwrap();
    assert!(
        hint.contains("installed skill's own folder is read-only") && hint.contains("working folder"),
        "{hint}"
    );
}

#[tokio::test]
async fn scp_skills_run_their_own_script_which_finds_its_files() {
    let ws = Workspace::new();
    let dir = ws.skill(
        "greeting",
        "# Greeting\n\nGreets a person in the house style.\n\n## Usage\n\n`./run.sh NAME`\n",
        Some("#!/bin/sh\nstyle=$(cat \"$(dirname \"$0\")/style.txt\")\nprintf '%s, %s! (from %s)\\n' \"$style\" \"$1\" \"$(basename \"$PWD\")\"\n"),
    );
    std::fs::write(dir.join("style.txt"), "Good day").unwrap();
    let mock = MockLlm::start(activate_run_all_answer(
        "greeting",
        &["./run.sh Ada", "./run.sh Bob | tr a-z A-Z"],
        "Greeted.",
    ))
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "greet Ada"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let results = contents(&mock.requests().await[2], "tool");
    assert!(results[1].contains("Good day, Ada! (from work)"), "{results:?}");
    assert!(
        results[2].contains("GOOD DAY, BOB! (FROM WORK)"),
        "a shell command's leading ./run.sh is the skill's too: {results:?}"
    );
}

#[tokio::test]
async fn a_file_named_in_other_letter_case_is_read_and_a_missing_one_gets_suggestions() {
    let ws = Workspace::new();
    let src = ws.dir.path().join("src");
    let dir = bib_skill(&src);
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "bib-format"})),
        tool(
            "read_skill_file",
            json!({"skill": "bib-format", "path": "REFERENCE.md"}),
        ),
        tool(
            "read_skill_file",
            json!({"skill": "bib-format", "path": "scripts/format_ref.py"}),
        ),
        text("Read."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.arg("--skills-dir").arg(dir.parent().unwrap());
    cmd.args(["--once", "what are the rules?"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.requests().await;
    let read = last_tool_result(&requests[2]);
    assert!(
        read.contains("\"reference.md\", the same name in other letter case")
            && read.contains("keyed by their citation key"),
        "{read}"
    );
    let missing = last_tool_result(&requests[3]);
    assert!(
        missing.contains("closest files are: scripts/format_refs.py"),
        "{missing}"
    );
}

#[tokio::test]
async fn a_script_that_prints_its_error_on_stdout_shows_why_it_failed() {
    let ws = Workspace::new();
    ws.skill(
        "chem",
        "---\nname: chem\ndescription: Checks molecules.\n---\nRun `./run.sh SMILES`.\n",
        Some("#!/bin/sh\necho 'Checking environment...'\necho 'Error: RDKit not installed. Install it with: pip install rdkit'\nexit 1\n"),
    );
    let mock = MockLlm::start(activate_run_answer("chem", "./run.sh CCO", "It failed.")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "check ethanol"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("exit 1 ·"), "{err}");
    assert!(err.contains("│ Error: RDKit not installed"), "{err}");

    let mock = MockLlm::start(activate_run_answer("chem", "./run.sh CCO", "It failed.")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--json", "--once", "check ethanol"]);
    let (_, out, _) = run_outcome(cmd).await;
    let finished: Value = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "command_finished")
        .unwrap();
    assert_eq!(finished["stderr_tail"], json!([]));
    assert_eq!(
        finished["stdout_tail"],
        json!([
            "Checking environment...",
            "Error: RDKit not installed. Install it with: pip install rdkit"
        ])
    );
}

#[tokio::test]
async fn a_skill_needing_an_mcp_server_says_so_to_the_model_and_in_one_line() {
    let ws = Workspace::new();
    ws.skill(
        "stripe-automation",
        "---\nname: stripe-automation\ndescription: \"Automate Stripe via Rube MCP: customers, charges.\"\nrequires:\n  mcp: [rube]\n---\n\
         # Stripe\n\nCall `RUBE_SEARCH_TOOLS` first.\n",
        None,
    );
    let mock = MockLlm::start(activate_run_answer("stripe-automation", "echo hi", "I cannot.")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "list my stripe customers"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 6, "the command was refused: {err}");
    let requests = mock.requests().await;
    let activation = last_tool_result(&requests[1]);
    assert!(
        activation.contains("needs the MCP server rube, which is not configured"),
        "{activation}"
    );
    assert!(last_tool_result(&requests[2]).contains("MCP server rube"));
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("MCP server rube")).collect();
    assert!(!lines.is_empty(), "{err}");

    let mut check = ws.bare_agent();
    check.args(["skills", "check"]).arg(ws.skills());
    let (_, out, err) = run_outcome(check).await;
    assert!(
        !format!("{out}{err}").contains("malformed-requires"),
        "requires.mcp is a recognised need: {out}{err}"
    );
}

#[tokio::test]
async fn trust_is_the_repositorys_whichever_subfolder_decided() {
    let ws = Workspace::new();
    let repo = ws.work();
    std::fs::create_dir(repo.join(".git")).unwrap();
    let deep = repo.join("pkg/src");
    std::fs::create_dir_all(&deep).unwrap();
    let dir = repo.join(".claude/skills/build");
    write(
        &dir.join("SKILL.md"),
        "---\nname: build\ndescription: Builds the project.\n---\nRun ./run.sh\n",
    );
    write_script(&dir.join("run.sh"), "#!/bin/sh\necho built\n");
    let mut trust = ws.bare_agent();
    trust.current_dir(&deep).arg("trust");
    let (code, _, err) = run_outcome(trust).await;
    assert_eq!(code, 0, "{err}");
    for folder in [repo.clone(), repo.join("pkg"), deep.clone()] {
        let mock = MockLlm::start(activate_run_answer("build", "./run.sh", "Built.")).await;
        let mut cmd = ws.agent(&mock);
        cmd.current_dir(&folder)
            .args(["--approve", "auto", "--once", "build it"]);
        let (code, _, err) = run_outcome(cmd).await;
        assert_eq!(code, 0, "in {}: {err}", folder.display());
        assert!(
            last_tool_result(&mock.requests().await[2]).contains("built"),
            "in {}",
            folder.display()
        );
    }
}

#[tokio::test]
async fn the_installed_binary_answers_the_weather_request_from_any_folder() {
    let ws = Workspace::new();
    // What `cargo install --root R` leaves: the binary alone in R/bin, no checkout beside it.
    let bin = ws.dir.path().join("installed/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(assert_cmd::cargo::cargo_bin("agent"), bin.join("agent")).unwrap();
    let weather = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::path("/Tokyo"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_string("Tokyo: ☀️ +21°C"))
        .mount(&weather)
        .await;
    let mock = MockLlm::start(activate_run_answer("weather", "./run.sh Tokyo", "Sunny, 21°C.")).await;
    let elsewhere = ws.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mut cmd = ws.clean_command(bin.join("agent"));
    cmd.envs(mock.env())
        .env("AGENT_MODEL", TEST_MODEL)
        .env("WEATHER_BASE_URL", weather.uri())
        .current_dir(&elsewhere)
        .args(["--approve", "auto", "--once", "weather in Tokyo"]);
    let mut cmd = assert_cmd::Command::from_std(cmd);
    cmd.timeout(std::time::Duration::from_secs(60));
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Sunny, 21°C."), "{out}");
    let requests = mock.requests().await;
    assert!(
        all_text(&requests[0]).contains("weather"),
        "the catalog lists the bundled weather skill"
    );
    assert!(last_tool_result(&requests[2]).contains("Tokyo: ☀️ +21°C"));
    let copy = ws.home().join(".local/share/agent/bundled");
    assert!(copy.is_dir(), "written to the user's data folder");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_person_asked_sees_the_shell_command_as_it_will_run() {
    use crate::common::pty::*;
    let ws = std::sync::Arc::new(Workspace::new());
    let dir = ws.skill(
        "shout",
        "---\nname: shout\ndescription: Repeats words loudly.\n---\nRun `./run.sh WORDS | tr a-z A-Z`.\n",
        Some("#!/bin/sh\necho \"$@\"\n"),
    );
    let mock =
        std::sync::Arc::new(MockLlm::start(activate_run_answer("shout", "./run.sh hi | tr a-z A-Z", "Shouted.")).await);
    let (w, m) = (ws.clone(), mock.clone());
    let script = format!("{}/run.sh hi | tr a-z A-Z", dir.display());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "shout hi");
        p.exp_string(&script).unwrap();
        p.exp_string("[y]es").unwrap();
        type_line(&mut p, "y");
        p.exp_string("Shouted.").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let requests = mock.requests().await;
    let ran = requests
        .iter()
        .rfind(|r| r.get("messages").is_some())
        .map(last_tool_result)
        .unwrap();
    assert!(ran.contains("HI"), "{ran}");
}
