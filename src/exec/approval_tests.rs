//! Unit tests of the approval decision against real skill folders in temp dirs.

use super::*;

/// A skill folder on disk: `run.sh`, `scripts/q.sh`, a folder with a space in its path.
fn skill_in(root: &Path) -> SkillScope {
    let dir = root.join("my skill");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(dir.join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::write(dir.join("scripts/q.sh"), "#!/bin/sh\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    SkillScope {
        dir,
        entry: Some("run.sh".into()),
        grants: Vec::new(),
        unconfined: false,
        ..SkillScope::default()
    }
}

fn argv(verdict: Verdict) -> Option<Vec<String>> {
    match verdict {
        Verdict::Run(Plan::Argv(a)) => Some(a.words().to_vec()),
        _ => None,
    }
}

#[test]
fn auto_runs_the_skills_own_scripts_as_argv() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill_in(tmp.path());
    let dir = s.dir.display().to_string();
    let run = |c: &str| argv(evaluate(ApprovalPolicy::Auto, c, &s));
    // The skill's own script words become absolute (commands run in the user's folder); the
    // arguments stay as written, relative to that folder.
    let own = |rel: &str| format!("{dir}/{rel}");
    assert_eq!(run("./run.sh Tokyo").unwrap(), [own("run.sh"), "Tokyo".into()]);
    assert_eq!(run("./run.sh 'New York'").unwrap(), [own("run.sh"), "New York".into()]);
    assert_eq!(run("./run.sh Zürich").unwrap(), [own("run.sh"), "Zürich".into()]);
    assert_eq!(
        run("sh ./run.sh Paris").unwrap(),
        ["sh".into(), own("run.sh"), "Paris".into()]
    );
    assert_eq!(run("bash scripts/q.sh").unwrap(), ["bash".into(), own("scripts/q.sh")]);
    assert_eq!(run("scripts/q.sh -v").unwrap(), [own("scripts/q.sh"), "-v".into()]);
    assert_eq!(
        run("python3 scripts/q.sh in/refs.bib -o out.bib").unwrap(),
        [
            "python3".into(),
            own("scripts/q.sh"),
            "in/refs.bib".into(),
            "-o".into(),
            "out.bib".into()
        ],
        "only the script word is the skill's; the user's files stay relative to the working folder"
    );
    assert_eq!(
        run("\"$SKILL_DIR\"/run.sh Oslo").unwrap(),
        [format!("{dir}/run.sh"), "Oslo".into()]
    );
    // Unquoted, with a space in the folder: still one word, because no shell splits it.
    assert_eq!(
        run("$SKILL_DIR/run.sh x").unwrap(),
        [format!("{dir}/run.sh"), "x".into()]
    );
    assert_eq!(
        run(&format!("'{dir}/run.sh' x")).unwrap(),
        [format!("{dir}/run.sh"), "x".into()]
    );
    let Verdict::Run(Plan::Argv(a)) = evaluate(ApprovalPolicy::Auto, "./run.sh", &s) else {
        panic!("not argv");
    };
    assert_eq!(a.program(), s.dir.join("run.sh"), "the program is absolute");
}

#[test]
fn auto_asks_for_everything_else() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill_in(tmp.path());
    std::os::unix::fs::symlink("/bin/sh", s.dir.join("scripts/out.sh")).unwrap();
    std::os::unix::fs::symlink("/bin", s.dir.join("bin")).unwrap();
    for ask in [
        "run.sh",
        "sh run.sh",
        "./run.sh x; rm -rf ~",
        "./run.sh $(whoami)",
        "./run.sh \"$(id)\"",
        "./run.sh x | sh",
        "./run.sh 2>&1",
        "rm -rf ~",
        "./other.sh",
        "./notes.txt",
        "./scripts",
        "../x/run.sh",
        "scripts/../../my skill/run.sh",
        "./scripts/out.sh -c id",
        "./bin/sh",
        "sh -c ./run.sh",
        "sh -x ./run.sh",
        "/bin/sh ./run.sh",
        "X=1 ./run.sh",
        "./run.sh #'\ntouch CANARY #'",
        "./run.sh &>/dev/null touch CANARY",
        ">/dev/null X=/../run.sh touch CANARY",
    ] {
        let verdict = evaluate(ApprovalPolicy::Auto, ask, &s);
        assert!(
            matches!(&verdict, Verdict::AskUser(p) if matches!(p.plan(), Plan::Shell(_))),
            "{ask:?}: {verdict:?}"
        );
    }
}

#[test]
fn the_entry_may_be_reached_by_another_path_that_resolves_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill_in(tmp.path());
    let run = |c: &str| argv(evaluate(ApprovalPolicy::Auto, c, &s));
    assert!(run("scripts/../run.sh").is_some());
    assert!(run(".//run.sh").is_some());
    std::fs::remove_file(s.dir.join("run.sh")).unwrap();
    std::os::unix::fs::symlink("/bin/true", s.dir.join("run.sh")).unwrap();
    assert!(
        run("./run.sh").is_none(),
        "an entry linked outside the folder is not the skill's own"
    );
}

#[test]
fn grants_approve_one_literal_command() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = skill_in(tmp.path());
    let check = |s: &SkillScope, cmd: &str| argv(evaluate(ApprovalPolicy::Auto, cmd, s)).is_some();
    s.grants = vec![
        "Bash(git:*)".into(),
        "Read".into(),
        "Bash(curl -s wttr.in/*)".into(),
        "Bash(npm run test)".into(),
        "Bash(ls *)".into(),
    ];
    assert!(check(&s, "git log --oneline -5"));
    assert!(check(&s, "curl -s wttr.in/Tokyo:format=3"));
    assert!(check(&s, "npm run test"));
    assert!(check(&s, "ls -la"));
    assert!(!check(&s, "git status && git diff"));
    assert!(!check(&s, "./run.sh x | git hash-object --stdin"));
    assert!(!check(&s, "git status; rm -rf ~"));
    assert!(!check(&s, "git log > /tmp/x"));
    assert!(!check(&s, "curl -s evil.example/x"));
    assert!(!check(&s, "curl -s wttr.in/x -o /etc/passwd"));
    assert!(!check(&s, "npm run test -- --evil"));
    assert!(!check(&s, "gitx status"));
    assert!(!check(&s, "./git status"), "a path is not the granted program");
    assert!(!check(&s, "GIT_DIR=/x git status"));
    s.grants = vec!["Bash".into()];
    assert!(check(&s, "rm -rf /tmp/whatever"));
    assert!(!check(&s, "echo $(id)"));
    assert!(!check(&s, "a && b"));
}

#[test]
fn grants_of_any_command_count_only_inside_the_sandbox() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = skill_in(tmp.path());
    let cases = [
        ("Bash", "python3 -c 1"),
        ("Bash(*)", "python3 -c 1"),
        ("Bash(sh:*)", "sh -c id"),
        ("Bash(python3:*)", "python3 -c 1"),
        ("Bash(env:*)", "env id"),
    ];
    for (broad, command) in cases {
        s.grants = vec![broad.into(), "Bash(git:*)".into()];
        s.unconfined = false;
        assert!(
            argv(evaluate(ApprovalPolicy::Auto, command, &s)).is_some(),
            "{broad} inside the sandbox"
        );
        s.unconfined = true;
        assert!(
            matches!(evaluate(ApprovalPolicy::Auto, command, &s), Verdict::AskUser(_)),
            "{broad} let `{command}` run unconfined"
        );
        assert!(
            argv(evaluate(ApprovalPolicy::Auto, "git status", &s)).is_some(),
            "a narrow grant still holds"
        );
        assert!(
            argv(evaluate(ApprovalPolicy::Auto, "./run.sh x", &s)).is_some(),
            "the own script still runs"
        );
    }
}

#[test]
fn path_grants_match_the_same_file_and_never_a_path_lookup() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = skill_in(tmp.path());
    std::fs::write(s.dir.join("tool.sh"), "#!/bin/sh\n").unwrap();
    s.grants = vec!["Bash(./tool.sh:*)".into(), "Bash(./scripts/*)".into()];
    let check = |cmd: &str| argv(evaluate(ApprovalPolicy::Auto, cmd, &s)).is_some();
    assert!(check("./tool.sh a b"));
    assert!(check("$SKILL_DIR/tool.sh a"));
    assert!(!check("tool.sh a"), "a bare word is looked up on PATH");
    assert!(check("./scripts/q.sh"));
    assert!(!check("./scripts/../../x"), "a wildcard never matches a climbing path");
}

#[test]
fn yes_no_and_ask() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill_in(tmp.path());
    assert!(matches!(
        evaluate(ApprovalPolicy::Yes, "rm -rf /tmp/x; id", &s),
        Verdict::Run(Plan::Shell(_))
    ));
    assert!(matches!(
        evaluate(ApprovalPolicy::Yes, "./run.sh", &s),
        Verdict::Run(Plan::Argv(_))
    ));
    let Verdict::Deny(reason) = evaluate(ApprovalPolicy::No, "./run.sh", &s) else {
        panic!("no must deny");
    };
    assert!(reason.contains("--approve auto"), "{reason}");
    let Verdict::Deny(reason) = evaluate(ApprovalPolicy::No, "rm -rf x", &s) else {
        panic!("no must deny");
    };
    // Never `--yes` for what the agent would not run by itself: the narrower way.
    assert!(!reason.contains("--yes"), "{reason}");
    assert!(reason.contains("Bash(rm:*)"), "{reason}");
    let Verdict::Deny(reason) = evaluate(ApprovalPolicy::No, "make && rm -rf x", &s) else {
        panic!("no must deny");
    };
    assert!(
        !reason.contains("--yes") && reason.contains("on a terminal"),
        "{reason}"
    );
    let Verdict::AskUser(pending) = evaluate(ApprovalPolicy::Ask, "./run.sh", &s) else {
        panic!("ask must ask");
    };
    assert_eq!(pending.plan().narrowest_way(), "rerun with --approve auto");
    assert!(matches!(pending.approve(), Plan::Argv(_)));
    let Verdict::AskUser(pending) = evaluate(ApprovalPolicy::Auto, "./run.sh | id", &s) else {
        panic!("auto must ask");
    };
    let Plan::Shell(shell) = pending.approve() else {
        panic!("shell plan");
    };
    assert_eq!(shell.command(), format!("'{}/run.sh' | id", s.dir.display()));
    assert!(shell.why().contains("operator"), "{}", shell.why());
}

#[test]
fn names_round_trip() {
    for p in [
        ApprovalPolicy::Ask,
        ApprovalPolicy::Auto,
        ApprovalPolicy::Yes,
        ApprovalPolicy::No,
    ] {
        assert_eq!(ApprovalPolicy::parse(p.as_str()), Some(p));
    }
}

#[test]
fn shell_commands_name_the_skills_leading_script_absolutely() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill_in(tmp.path());
    let dir = s.dir.display().to_string();
    let shell = |c: &str| match Plan::for_command(c, &s) {
        Plan::Shell(sh) => sh.command().to_string(),
        Plan::Argv(_) => panic!("{c} is not a shell command"),
    };
    assert_eq!(
        shell("./run.sh a | tr a-z A-Z"),
        format!("'{dir}/run.sh' a | tr a-z A-Z")
    );
    assert_eq!(
        shell("python3 scripts/q.sh in.bib > out.bib"),
        format!("python3 '{dir}/scripts/q.sh' in.bib > out.bib")
    );
    assert_eq!(shell("./notes.txt;id"), format!("'{dir}/notes.txt';id"));
    // Not the skill's, or not a plain leading path: as proposed.
    for same in [
        "./missing.sh | x",
        "cat notes.txt | wc",
        "$SKILL_DIR/run.sh | x",
        "run.sh | x",
        "../x/run.sh | y",
        "echo ./run.sh | sh",
    ] {
        assert_eq!(shell(same), same);
    }
}

#[test]
fn auto_contains_what_the_sandbox_can_wall_in_but_never_an_installer() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = skill_in(tmp.path());
    s.grants = vec!["Bash".into()];
    let verdict = |s: &SkillScope, c: &str| evaluate(ApprovalPolicy::Auto, c, s);
    // Without containment (sandbox off, no network rules): the classic rule.
    assert!(matches!(verdict(&s, "pdftotext a.pdf | wc -l"), Verdict::AskUser(_)));
    s.containable = true;
    assert!(matches!(
        verdict(&s, "pdftotext a.pdf | wc -l"),
        Verdict::Contained(Plan::Shell(_))
    ));
    // A skill's grant of any command runs contained too; its own script runs as ever.
    assert!(matches!(
        verdict(&s, "pdftotext a.pdf out.txt"),
        Verdict::Contained(Plan::Argv(_))
    ));
    assert!(matches!(verdict(&s, "./run.sh x"), Verdict::Run(Plan::Argv(_))));
    // Nor does it make a sweeping removal one: that is asked about, as a shell command.
    assert!(matches!(verdict(&s, "rm -rf /"), Verdict::AskUser(_)));
    assert!(matches!(verdict(&s, "rm -rf build"), Verdict::Contained(_)));
    // An installer writing outside the working folder is asked about, the grant of `Bash`
    // notwithstanding, and the way to allow it names the user's own setting.
    for installer in [
        "pip install requests",
        "cd x && npm install -g y",
        "python3 -m pip install z",
    ] {
        let Verdict::AskUser(pending) = verdict(&s, installer) else {
            panic!("{installer} was not asked about");
        };
        let way = pending.plan().narrowest_way();
        assert!(
            way.contains("AGENT_ALLOW_COMMANDS='Bash(") && way.contains("--allow-write"),
            "{way}"
        );
        if let Plan::Shell(shell) = pending.plan()
            && !installer.contains("&&")
        {
            assert!(shell.why().contains("no skill's grant covers"), "{}", shell.why());
        }
    }
    // The user's own grant lets it run (as its words, inside the walls of the skill).
    s.user_grants = vec!["Bash(pip install:*)".into()];
    assert!(matches!(
        verdict(&s, "pip install requests"),
        Verdict::Run(Plan::Argv(_))
    ));
    // `ask` still asks about everything not pre-approved.
    assert!(matches!(evaluate(ApprovalPolicy::Ask, "ls", &s), Verdict::AskUser(_)));
}

#[test]
fn a_python_module_of_the_skill_is_its_own_code() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = skill_in(tmp.path());
    std::fs::write(s.dir.join("scripts/fill.py"), "").unwrap();
    s.workdir = tmp.path().join("work");
    std::fs::create_dir_all(&s.workdir).unwrap();
    let run = |s: &SkillScope, c: &str| argv(evaluate(ApprovalPolicy::Auto, c, s));
    assert_eq!(
        run(&s, "python3 -m scripts.fill in.pdf").unwrap(),
        ["python3", "-m", "scripts.fill", "in.pdf"]
    );
    assert!(run(&s, "python3 -m http.server").is_none());
    std::fs::write(s.workdir.join("scripts.py"), "").unwrap();
    assert!(
        run(&s, "python3 -m scripts.fill in.pdf").is_none(),
        "shadowed by the working folder"
    );
}
