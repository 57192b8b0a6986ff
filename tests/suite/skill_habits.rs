//! Skills written for other agents work as their instructions say (issue 34 §3), under `auto`
//! with no terminal: a Python skill run as `python3 -m scripts.x` whose script imports its sibling
//! module (as anthropics' skill-creator does), a PDF-style script importing a helper from the
//! skill's folder, package managers whose caches the sandbox would otherwise refuse, and a script
//! committed without its execute bit.

use crate::common::*;
use serde_json::Value;

/// A skill in the shape of anthropics/skills' skill-creator: `scripts/` is a package whose
/// modules import each other by the package name, run with `python -m scripts.package_skill`.
fn packager(ws: &Workspace) -> std::path::PathBuf {
    let dir = ws.skill(
        "packager",
        "---\nname: packager\ndescription: Packages a folder into a zip.\n---\nRun `python3 -m scripts.package_skill NAME`.\n",
        None,
    );
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(dir.join("scripts/__init__.py"), "").unwrap();
    std::fs::write(
        dir.join("scripts/quick_validate.py"),
        "def validate(name):\n    return name.isidentifier()\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("scripts/package_skill.py"),
        "import sys\nfrom scripts.quick_validate import validate\nname = sys.argv[1]\n\
         open(name + '.txt', 'w').write('packaged')\nprint('valid' if validate(name) else 'invalid', name)\n",
    )
    .unwrap();
    // A PDF-skill-style script that imports a helper kept at the skill's top (on PYTHONPATH).
    std::fs::write(dir.join("pdfhelpers.py"), "def pages():\n    return 3\n").unwrap();
    std::fs::write(
        dir.join("scripts/count_pages.py"),
        "from pdfhelpers import pages\nprint('pages', pages())\n",
    )
    .unwrap();
    dir
}

async fn turn(ws: &Workspace, commands: &[&str], extra: &[&str]) -> (i32, String, Vec<String>) {
    let mock = MockLlm::start(activate_run_all_answer("packager", commands, "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "go", "--approve", "auto"]).args(extra);
    let out = run_output(cmd).await;
    let results = contents(&mock.requests().await[2], "tool")[1..].to_vec();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        results,
    )
}

#[tokio::test]
async fn a_python_module_of_the_skill_runs_as_its_own_code_and_imports_its_siblings() {
    let ws = Workspace::new();
    packager(&ws);
    // Own code: it runs under the classic rule too (sandbox off), as `python3 scripts/x.py` would.
    for extra in [&["--sandbox", "off"][..], &[]] {
        let commands = [
            "python3 -m scripts.package_skill demo",
            "python3 scripts/count_pages.py",
        ];
        let (code, stderr, results) = turn(&ws, &commands, extra).await;
        assert_eq!(code, 0, "{extra:?}: {stderr} {results:?}");
        assert!(results[0].contains("valid demo"), "{extra:?}: {}", results[0]);
        assert!(results[1].contains("pages 3"), "{extra:?}: {}", results[1]);
        assert_eq!(std::fs::read_to_string(ws.work().join("demo.txt")).unwrap(), "packaged");
    }
    // A module of the same name in the working folder would be what Python runs: not the skill's.
    std::fs::create_dir_all(ws.work().join("scripts")).unwrap();
    let (code, _, results) = turn(&ws, &["python3 -m scripts.package_skill demo"], &["--sandbox", "off"]).await;
    assert_eq!(code, 6);
    assert!(results[0].starts_with("denied:"), "{}", results[0]);
}

/// The tools' caches: writable folders under the agent's cache, named through the tools' own
/// variables, for a contained command and a skill's own script alike.
#[tokio::test]
async fn package_caches_are_writable_places_the_agent_owns() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    packager(&ws);
    let commands = [
        "echo \"$PIP_CACHE_DIR\" && touch \"$PIP_CACHE_DIR/probe\" \"$UV_CACHE_DIR/probe\" \"$npm_config_cache/probe\"",
        "pip cache dir",
        // LibreOffice's profile, as a URL (`soffice` will not start without a writable one).
        "echo \"$UserInstallation\" && touch \"${UserInstallation#file://}/probe\"",
    ];
    let (code, stderr, results) = turn(&ws, &commands, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let tools = ws.home().join(".cache/agent/tools");
    assert!(
        results[0].contains(&tools.join("pip").display().to_string()),
        "{}",
        results[0]
    );
    assert!(
        results[2].contains(&format!("file://{}", tools.join("libreoffice").display())),
        "{}",
        results[2]
    );
    for tool in ["pip", "uv", "npm", "libreoffice"] {
        assert!(tools.join(tool).join("probe").exists(), "{tool}: {}", results[0]);
    }
    if on_path("pip") {
        assert!(
            results[1].contains(&tools.join("pip").display().to_string()),
            "{}",
            results[1]
        );
    }
    // The rest of the agent's cache stays out of reach.
    let (_, _, results) = turn(&ws, &["touch \"$PIP_CACHE_DIR/../../planted\""], &[]).await;
    assert!(!ws.home().join(".cache/agent/planted").exists(), "{}", results[0]);
}

/// A script committed without `+x` (openai's skill-creator ships its scripts so) runs by its
/// `#!` line, inside the same walls; one without a `#!` line fails as a shell would say, 126 "not
/// executable", and nothing blames the sandbox for it: a model told the sandbox refused would
/// look for the wrong fix. Named with its interpreter, it runs.
#[tokio::test]
async fn a_script_without_its_execute_bit_runs_by_its_shebang_or_is_named_as_not_executable() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    let dir = packager(&ws);
    std::fs::write(dir.join("scripts/init.sh"), "echo made \"$1\"\n").unwrap();
    std::fs::write(dir.join("scripts/new.sh"), "#!/bin/sh\necho new \"$1\"\n").unwrap();
    let mock = MockLlm::start(activate_run_all_answer(
        "packager",
        &["scripts/init.sh demo", "sh scripts/init.sh demo", "scripts/new.sh demo"],
        "done",
    ))
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--json", "--once", "go"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let results = contents(&mock.chat_requests().await[2], "tool");
    let first = &results[1];
    assert!(first.contains("not executable"), "{first}");
    assert!(!first.contains("sandbox:"), "{first}");
    let finished: Vec<Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "command_finished")
        .collect();
    assert_eq!(finished[0]["exit_code"], 126, "{finished:?}");
    assert!(finished[0]["sandbox_hint"].is_null(), "{finished:?}");
    assert!(results[2].contains("made demo"), "{}", results[2]);
    assert!(results[3].contains("new demo"), "{}", results[3]);
}
