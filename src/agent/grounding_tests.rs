use super::*;

#[test]
fn an_answer_that_uses_none_of_what_the_command_printed_is_found() {
    let out = "exit code: 0\nstdout:\nserver.port = 8080\n";
    assert_eq!(
        ignored_output("The server listens on port 5000.", out).as_deref(),
        Some("server.port = 8080")
    );
    assert_eq!(ignored_output("It listens on 8080.", out), None);
    // A count of one digit is still a value the answer must carry.
    let out = "exit code: 0\nstdout:\n7\n";
    assert_eq!(ignored_output("There are 7 orders.", out), None);
    assert!(ignored_output("To count orders, install sqlite.", out).is_some());
    // A failed command, nothing distinctive printed, or stderr alone: not judged.
    assert_eq!(ignored_output("No idea.", "exit code: 1\nstdout:\n8080\n"), None);
    assert_eq!(ignored_output("Done.", "exit code: 0\nstdout:\nok\n"), None);
    assert_eq!(ignored_output("Done.", "exit code: 0\nstderr:\nwarning 42\n"), None);
    assert_eq!(ignored_output("Done.", "exit code: 0\n(no output)\n"), None);
    // Words count too, case aside: an answer that says "TRUE" used "true".
    let out = "exit code: 0\nstdout:\nprime: true\n";
    assert_eq!(ignored_output("Yes, it is PRIME.", out), None);
    assert!(ignored_output("Install sympy first.", out).is_some());
}

#[test]
fn figures_an_answer_carries_from_the_output() {
    let out = "exit code: 0\nstdout:\n1001 is not prime\ndivisors: 8\n";
    let said = "how many divisors does 1001 have?";
    assert!(uses_figures("1001 has 8 divisors.", out, said));
    // The request's own figure is no sign the output was read.
    assert!(!uses_figures("Run the script on 1001 to see.", out, said));
    // Nothing of its own printed: nothing to carry.
    assert!(uses_figures("Done.", "exit code: 0\nstdout:\nok 1001\n", said));
}

#[test]
fn a_figure_after_commands_that_all_failed_is_unbacked() {
    let failed = TurnTrace {
        ran: 1,
        outputs: "exit code: 2\nstderr:\nusage: convert.py VALUE FROM TO\n".into(),
        said: "how many liters are in 5 us gallons?".into(),
        ..TurnTrace::default()
    };
    let none = |_: &str| None;
    assert_eq!(
        judge("5 US gallons is 16.3871 liters.", &failed, none),
        Some(Unbacked::AllFailed {
            figure: "16.3871".into()
        })
    );
    // Saying what failed, or repeating the request's figures, claims nothing.
    assert_eq!(
        judge("The converter printed its usage (exit code 2).", &failed, none),
        None
    );
    assert_eq!(judge("I could not convert 5 gallons.", &failed, none), None);
    // One command that succeeded backs the turn as before.
    let one_ok = TurnTrace {
        succeeded: 1,
        ..failed.clone()
    };
    assert_eq!(judge("5 US gallons is 16.3871 liters.", &one_ok, none), None);
}

fn skill_with(body: &str, entry: bool) -> (tempfile::TempDir, Skill) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("SKILL.md"), body).unwrap();
    let mut skill = Skill::synthetic("time", "Tells the time.");
    skill.dir = dir.path().to_path_buf();
    skill.skill_file = dir.path().join("SKILL.md");
    skill.entry = entry.then(|| "run.sh".to_string());
    (dir, skill)
}

const TIME: &str = "# time\nRun `./run.sh Asia/Tokyo`.\n\nExample output:\n\n    2026-11-29 21:04 JST\n";

#[test]
fn an_answer_after_an_activation_with_nothing_run_is_unbacked() {
    let (_d, skill) = skill_with(TIME, true);
    let trace = TurnTrace {
        activated: vec!["time".into()],
        ..TurnTrace::default()
    };
    let verdict = judge("It is 9 pm in Tokyo.", &trace, |_| Some(&skill));
    assert_eq!(verdict, Some(Unbacked::NothingRan { skill: "time".into() }));
}

#[test]
fn a_copied_example_is_named_even_when_something_ran() {
    let (_d, skill) = skill_with(TIME, true);
    let trace = TurnTrace {
        activated: vec!["time".into()],
        ran: 1,
        attempted: 1,
        outputs: "exit code: 1\nstderr: unknown zone\n".into(),
        ..TurnTrace::default()
    };
    for answer in [
        "The time in Tokyo is 2026-11-29 21:04 JST.",
        "Current time:\n2026-11-29 21:04 JST\n",
    ] {
        assert_eq!(
            judge(answer, &trace, |_| Some(&skill)),
            Some(Unbacked::CopiedExample {
                skill: "time".into(),
                line: "2026-11-29 21:04 JST".into()
            }),
            "{answer}"
        );
    }
    // Commands of the body are not output: an answer that names one is not a copy.
    let (_c, cmd) = skill_with("```bash\npython3 scripts/fit.py --order 2\n```\n", true);
    assert_eq!(
        judge("I ran python3 scripts/fit.py --order 2.", &trace, |_| Some(&cmd)),
        None
    );
}

#[test]
fn an_answer_dressed_as_a_tool_result_is_backed_only_by_that_result() {
    let dressed = "<tool_response>\nexit code: 0\nstdout:\nwords: 119\n</tool_response>";
    let nothing = TurnTrace::default();
    assert_eq!(
        judge(dressed, &nothing, |_| None),
        Some(Unbacked::ImitatedOutput {
            line: "words: 119".into()
        })
    );
    let ran = TurnTrace {
        ran: 1,
        attempted: 1,
        outputs: "exit code: 0\nstdout:\nwords: 119\n".into(),
        ..TurnTrace::default()
    };
    assert_eq!(judge(dressed, &ran, |_| None), None);
    assert_eq!(judge("The exit code: 0 means success.", &nothing, |_| None), None);
}

#[test]
fn backed_answers_pass() {
    let (_d, skill) = skill_with(TIME, true);
    let ran = TurnTrace {
        activated: vec!["time".into()],
        ran: 1,
        attempted: 1,
        outputs: "exit code: 0\nstdout:\n2026-12-03 18:44 JST\n".into(),
        ..TurnTrace::default()
    };
    assert_eq!(judge("2026-12-03 18:44 JST", &ran, |_| Some(&skill)), None);
    // The real output may equal the example: then it is backed.
    let same = TurnTrace {
        outputs: "2026-11-29 21:04 JST".into(),
        ..ran.clone()
    };
    assert_eq!(judge("2026-11-29 21:04 JST", &same, |_| Some(&skill)), None);
    // No skill, or a skill of pure guidance: nothing to run, nothing to mark.
    assert_eq!(judge("Hello!", &TurnTrace::default(), |_| Some(&skill)), None);
    let (_g, guide) = skill_with("# style\nWrite short sentences.\n", false);
    let trace = TurnTrace {
        activated: vec!["style".into()],
        ..TurnTrace::default()
    };
    assert_eq!(judge("Short sentences are best.", &trace, |_| Some(&guide)), None);
}

#[test]
fn an_answer_after_a_command_refused_for_want_of_a_skill_rests_on_nothing() {
    // What the 1.5B model did: run_command before any activation, refused, then "e.g. 5 US
    // gallons = 18.93705852 liters".
    let refused = TurnTrace {
        attempted: 1,
        unactivated: 1,
        ..TurnTrace::default()
    };
    let verdict = judge("5 US gallons = 18.93705852 liters", &refused, |_| None);
    assert_eq!(verdict, Some(Unbacked::NoSkillActive));
    assert!(verdict.unwrap().reason().contains("nothing ran"));
    // Once a command ran, the answer may rest on it.
    let ran = TurnTrace {
        ran: 1,
        succeeded: 1,
        ..refused
    };
    assert_eq!(judge("18.93 liters", &ran, |_| None), None);
}

#[test]
fn an_answer_about_a_named_file_nothing_read_rests_on_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("essay.txt"), "one two three").unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/sales.csv"), "amount\n3\n").unwrap();
    let named = named_files(
        "How many words are in \"essay.txt\"? And the max of ./data/sales.csv, or missing.txt, or https://x.io/a.txt.",
        dir.path(),
    );
    assert_eq!(named, vec!["essay.txt".to_string(), "./data/sales.csv".to_string()]);
    assert!(named_files("What is 2.5 times 4? Is e.g. fine?", dir.path()).is_empty());
    let trace = TurnTrace {
        named_files: named,
        ..TurnTrace::default()
    };
    assert_eq!(
        judge("essay.txt has 119 words.", &trace, |_| None),
        Some(Unbacked::UnreadFile {
            file: "essay.txt".into()
        })
    );
    // A read, or any command that ran, may back it.
    let read = TurnTrace {
        ran: 1,
        attempted: 1,
        ..trace.clone()
    };
    assert_eq!(judge("essay.txt has 3 words.", &read, |_| None), None);
}

#[test]
fn an_answer_after_a_denied_command_rests_on_nothing() {
    let (_g, skill) = skill_with("# time\nRun `./run.sh ZONE`.\n", true);
    // What the 1.5B model did: its command was denied, and it answered with an output.
    let denied = TurnTrace {
        activated: vec!["time".into()],
        attempted: 1,
        outputs: "denied: needs approval\n".into(),
        ..TurnTrace::default()
    };
    assert_eq!(
        judge("This will output 2026-01-01 00:00 JST.", &denied, |_| Some(&skill)),
        Some(Unbacked::NothingRan { skill: "time".into() })
    );
}
