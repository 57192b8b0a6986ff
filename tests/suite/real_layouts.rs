//! Skills shaped like the public repositories (issue 23), written here by hand: `skills check`
//! reports what a person must fix and stays quiet about what real skills do on every page (bare
//! names of bundled scripts, example names, scripts run through an interpreter).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::*;
use serde_json::Value;

fn write(path: &Path, text: &str, mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `skills check --json DIR`: the exit code and every finding as (code, message).
fn findings(ws: &Workspace, args: &[&str], dir: &Path) -> (i32, Vec<(String, String)>, Value) {
    let out = ws
        .bare_agent()
        .args(["skills", "check", "--json"])
        .args(args)
        .arg(dir)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut all = Vec::new();
    for skill in report["skills"].as_array().unwrap() {
        for f in skill["findings"].as_array().unwrap() {
            all.push((
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            ));
        }
    }
    for f in report["problems"].as_array().unwrap() {
        all.push((
            f["code"].as_str().unwrap().to_string(),
            f["message"].as_str().unwrap().to_string(),
        ));
    }
    (out.status.code().unwrap_or(-1), all, report)
}

#[test]
fn check_reports_real_problems_and_not_the_habits_of_real_skills() {
    let ws = Workspace::new();
    let root = ws.skills();
    let body = "---\nname: pr-comments\ndescription: Fetches and answers review comments on a pull request.\n---\n\
        # PR comments\n\n\
        Run `python scripts/fetch_comments.py --pr 12`; `comment.py` posts the answers.\n\
        Run the helper with `python -m scripts.tools.summarise`.\n\n\
        ```bash\n\
        python3 scripts/fetch_comments.py --pr 12 -o report.md\n\
        node scripts/render.js report.md > ./summary.html\n\
        ./scripts/post.sh --dry-run ./output\n\
        ```\n\n\
        Write your own server as `your_server.py`, or list files `a.py` and `b.py`.\n\
        Example: `assets/logo.png` for brand assets.\n\
        Details are in [the forms guide](references/FORMS.md) and `scripts/gone.sh`.\n\
        ```\n\
        project/\n\
        ├── train.py\n\
        ```\n";
    let skill = root.join("pr-comments");
    write(&skill.join("SKILL.md"), body, 0o644);
    // Run through interpreters: no executable bit needed, shebang or not.
    write(
        &skill.join("scripts/fetch_comments.py"),
        "#!/usr/bin/env python3\nimport util\n",
        0o644,
    );
    write(&skill.join("scripts/util.py"), "#!/usr/bin/env python3\n", 0o644);
    write(
        &skill.join("scripts/tools/summarise.py"),
        "#!/usr/bin/env python3\n",
        0o644,
    );
    write(&skill.join("scripts/render.js"), "#!/usr/bin/env node\n", 0o644);
    write(&skill.join("scripts/comment.py"), "print('x')\n", 0o644);
    // Sourced by post.sh: a library, not an entry.
    write(
        &skill.join("scripts/lib.sh"),
        "#!/bin/sh\nsay() { echo \"$1\"; }\n",
        0o644,
    );
    // Run directly, without its bit: a real problem.
    write(
        &skill.join("scripts/post.sh"),
        "#!/bin/sh\n. \"$(dirname \"$0\")/lib.sh\"\nsay hi\n",
        0o644,
    );
    write(&skill.join("references/forms.md"), "# Forms\n", 0o644);

    let (code, found, _) = findings(&ws, &[], &root);
    assert_eq!(code, 0, "warnings only: {found:?}");
    let codes: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        codes,
        ["not-executable", "missing-file", "file-name-case"],
        "exactly the three real problems: {found:?}"
    );
    assert!(
        found[0].1.contains("`./scripts/post.sh`") && found[0].1.contains("chmod +x scripts/post.sh"),
        "{found:?}"
    );
    assert!(
        found[2].1.contains("`references/FORMS.md`") && found[2].1.contains("`references/forms.md`"),
        "{found:?}"
    );
    assert!(found[1].1.contains("`scripts/gone.sh`"), "{found:?}");

    // The same script, once a shell script run by name, needs its bit whatever its neighbours do.
    write(
        &skill.join("scripts/post.sh"),
        "#!/bin/sh\n. \"$(dirname \"$0\")/lib.sh\"\nsay hi\n",
        0o755,
    );
    write(&skill.join("scripts/gone.sh"), "#!/bin/sh\necho gone\n", 0o644);
    write(
        &skill.join("SKILL.md"),
        &body.replace("references/FORMS.md", "references/forms.md"),
        0o644,
    );
    let (_, found, _) = findings(&ws, &[], &root);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].0 == "not-executable" && found[0].1.contains("gone.sh") && found[0].1.contains("chmod +x"),
        "a shebang script nothing runs through an interpreter still needs its bit: {found:?}"
    );
}

#[tokio::test]
async fn many_imperfect_skills_cost_one_short_line_pointing_at_check() {
    let ws = Workspace::new();
    for i in 0..40 {
        let name = format!("Tool {i:02} Automation");
        ws.skill(
            &format!("tool-{i:02}"),
            &format!("---\nname: {name}\ndescription: Automates tool number {i} through its API.\n---\nbody\n"),
            None,
        );
    }
    let mock = MockLlm::start(vec![text("ok")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hi"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("loaded with problems")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("40 skill(s)") && lines[0].contains("and 37 more"),
        "{err}"
    );
    assert!(lines[0].contains("agent skills check") && lines[0].len() < 200, "{err}");
    assert!(!err.contains("Tool 39 Automation"), "{err}");
}

#[test]
fn a_check_that_found_no_skill_warns_and_fails_strictly_naming_hidden_folders() {
    let ws = Workspace::new();
    let skills = ws.dir.path().join("openai-like/skills");
    for (category, name) in [(".curated", "gh-fix-ci"), (".system", "skill-creator")] {
        write(
            &skills.join(category).join(name).join("SKILL.md"),
            &format!("---\nname: {name}\ndescription: The {name} skill, for tests of checking.\n---\nbody\n"),
            0o644,
        );
    }
    let (code, found, report) = findings(&ws, &[], &skills);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["warnings"], 1, "{report}");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "no-skills");
    assert!(
        found[0].1.contains(".curated") && found[0].1.contains(".system"),
        "{found:?}"
    );
    let (code, _, report) = findings(&ws, &["--strict"], &skills);
    assert_eq!(code, 1, "checking nothing fails a strict check: {report}");
    // Checked by name, the hidden folders' skills are found.
    let (code, found, _) = findings(&ws, &["--strict"], &skills.join(".curated"));
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
}

#[test]
fn a_reference_to_another_skills_script_names_that_skill() {
    let ws = Workspace::new();
    let root = ws.skills();
    write(
        &root.join("schematics/SKILL.md"),
        "---\nname: schematics\ndescription: Draws schematic diagrams from a text description.\n---\nbody\n",
        0o644,
    );
    write(&root.join("schematics/scripts/draw.py"), "print('x')\n", 0o644);
    write(
        &root.join("writing/SKILL.md"),
        "---\nname: writing\ndescription: Writes scientific papers with figures.\n---\nRun `python scripts/draw.py 'a figure'`.\n",
        0o644,
    );
    let (_, found, _) = findings(&ws, &[], &root);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "missing-file", "still reported: it fails from this folder");
    assert!(
        found[0].1.contains("a file of the skill `schematics` beside it"),
        "{found:?}"
    );
}
