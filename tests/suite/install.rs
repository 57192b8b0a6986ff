//! Getting `agent` into the shell: completion scripts and manual pages generated from the same
//! clap definitions as the parser, printed by the real binary.

use std::process::Command;

use crate::common::*;

fn agent(ws: &Workspace, args: &[&str]) -> (i32, String, String) {
    let out = ws.bare_agent().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn completions_name_the_subcommands_for_each_shell() {
    let ws = Workspace::new();
    // A broken .env does not matter: completions come from the flag definitions alone.
    std::fs::write(ws.work().join(".env"), "this is not a dotenv line\n").unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let (code, script, stderr) = agent(&ws, &["completions", shell]);
        assert_eq!(code, 0, "{shell}: {stderr}");
        for word in ["skills", "check", "new", "completions", "--skills-dir", "--approve"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
        let checker = match shell {
            "bash" => "bash -n",
            "zsh" => "zsh -n",
            _ => "fish --no-execute",
        };
        let program = checker.split(' ').next().unwrap();
        if have(program) {
            let path = ws.dir.path().join(format!("agent.{shell}"));
            std::fs::write(&path, &script).unwrap();
            let check = Command::new("sh")
                .args(["-c", &format!("{checker} \"$1\""), "sh"])
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                check.status.success(),
                "{shell}: {}",
                String::from_utf8_lossy(&check.stderr)
            );
        }
    }
    let (code, _, stderr) = agent(&ws, &["completions", "tcsh"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn the_man_page_is_valid_roff_describing_the_commands() {
    let ws = Workspace::new();
    let (code, page, stderr) = agent(&ws, &["man"]);
    assert_eq!(code, 0, "{stderr}");
    for want in [
        ".TH agent 1",
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH SUBCOMMANDS",
        ".SH ENVIRONMENT",
        ".SH \"EXIT STATUS\"",
        // The synopsis names what each option takes.
        "[\\-\\-model NAME]",
        "[\\-\\-resume [ID]]",
        "[\\-\\-skills\\-dir DIR]...",
    ] {
        assert!(page.contains(want), "the page lacks {want:?}");
    }
    assert!(!page.contains(".SH EXTRA"), "{page}");
    let environment = &page[page.find(".SH ENVIRONMENT").unwrap()..];
    assert!(
        environment.contains("\\fBAGENT_API_KEY, OPENAI_API_KEY\\fR"),
        "{environment}"
    );
    let exit = &page[page.find("EXIT STATUS").unwrap()..];
    assert!(exit.contains(".TP\n\\fB130\\fR\ninterrupted"), "{exit}");
    assert!(page.contains("skills") && page.contains("completions"));
    let path = ws.dir.path().join("agent.1");
    std::fs::write(&path, &page).unwrap();
    if have("groff") {
        // -ww: every warning; -z: parse only. Valid roff leaves stderr empty.
        let out = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if have("man") {
        let out = Command::new("man")
            .arg("-l")
            .arg(&path)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("SYNOPSIS") && text.contains("--skills-dir"), "{text}");
    }
}

#[test]
fn man_dir_writes_a_page_per_command() {
    let ws = Workspace::new();
    let dir = ws.dir.path().join("man1");
    let out = ws.bare_agent().args(["man", "--dir"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for page in [
        "agent.1",
        "agent-skills.1",
        "agent-skills-check.1",
        "agent-skills-new.1",
        "agent-completions.1",
    ] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".SH NAME"), "{page}");
    }
    let new_page = std::fs::read_to_string(dir.join("agent-skills-new.1")).unwrap();
    assert!(new_page.contains("\\-\\-scp"), "{new_page}");
}

#[test]
fn each_command_lists_only_the_flags_that_mean_something_to_it() {
    let ws = Workspace::new();
    let help = |args: &[&str]| {
        let (code, out, err) = agent(&ws, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        out
    };
    let run_only = ["--sandbox", "--allow-write", "--record", "--replay", "--skills-dir"];
    for args in [
        &["completions", "--help"][..],
        &["man", "--help"],
        &["sessions", "list", "--help"],
        &["trust", "--help"],
    ] {
        let text = help(args);
        for flag in run_only {
            assert!(!text.contains(flag), "{args:?} lists {flag}:\n{text}");
        }
        assert!(text.contains("--json"), "--json is on every command: {text}");
    }
    let list = help(&["skills", "list", "--help"]);
    assert!(
        list.contains("--skills-dir") && !list.contains("--sandbox") && !list.contains("--replay"),
        "{list}"
    );
    let show = help(&["skills", "show", "--help"]);
    assert!(show.contains("--sandbox") && show.contains("--allow-write"), "{show}");
    let eval = help(&["skills", "eval", "--help"]);
    assert!(eval.contains("--replay") && eval.contains("--record"), "{eval}");
    let top = help(&["--help"]);
    assert!(top.contains("--sandbox") && top.contains("on, strict or off"), "{top}");
    let skills = help(&["skills", "--help"]);
    assert!(
        !skills.contains("Inspect the skills") && skills.contains("install"),
        "{skills}"
    );
    // A subcommand's own flag is used, after the subcommand or before it.
    let root = repo_path("skills");
    let root = root.to_str().unwrap();
    for args in [
        &["skills", "list", "--skills-dir", root][..],
        &["--skills-dir", root, "skills", "list"],
    ] {
        assert!(help(args).contains("weather"), "{args:?}");
    }
}
