use super::*;

/// A skill in a temporary folder holding `files` (made executable).
fn skill_with(files: &[&str]) -> (tempfile::TempDir, Skill) {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let path = dir.path().join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
    }
    std::fs::write(dir.path().join("SKILL.md"), "---\nname: s\n---\n").unwrap();
    let mut skill = Skill::synthetic("s", "d");
    skill.dir = dir.path().to_path_buf();
    skill.skill_file = dir.path().join("SKILL.md");
    (dir, skill)
}

/// `(text, needs_argument)` of each start.
fn pairs(starts: Vec<Start>) -> Vec<(String, bool)> {
    starts.into_iter().map(|s| (s.text, s.needs_argument)).collect()
}

fn start(text: &str, needs_argument: bool) -> Start {
    Start {
        text: text.into(),
        needs_argument,
    }
}

#[test]
fn code_blocks_give_the_scripts_and_programs_a_skill_runs() {
    let (_d, skill) = skill_with(&["scripts/roman.py", "scripts/helpers.py"]);
    let body = "# Roman\n\n```\nscripts/roman.py VALUE   # a number or a numeral\n```\nExample:\n```\n$ python3 scripts/roman.py 14\nXIV\nsh -c 'exit 1'\n```\n";
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        pairs(starts(&skill, body, &path)),
        [
            ("scripts/roman.py".into(), true),
            ("python3 scripts/roman.py".into(), true),
            ("sh".into(), true)
        ]
    );
    // Output lines (`Tokyo: …`) and files only mentioned in prose are not commands; a script
    // shown once alone takes its arguments as optional.
    let (_d, skill) = skill_with(&["run.sh"]);
    let body = "```\n./run.sh Tokyo\nTokyo: 12:00 JST\n./run.sh\n```\nSee `notes.md`.";
    assert_eq!(pairs(starts(&skill, body, "")), [("./run.sh".into(), false)]);
    // A block of Python is code its interpreter runs: its lines name no program (`file`).
    let body = "```python\nfile = open('a.txt')\nprint(file.read())\n```\n```yaml\nls: x\n```";
    assert_eq!(
        pairs(starts(&skill, body, &path)),
        [("python3".into(), true), ("python".into(), true)]
    );
}

#[test]
fn inline_code_counts_when_no_block_has_a_command() {
    let (_d, mut skill) = skill_with(&["scripts/query.sh", "scripts/schema.sh"]);
    let body = "1. `scripts/schema.sh` prints tables.\n2. `scripts/query.sh \"SELECT …\"` prints rows as `col | col`; `ls -l` shows the file.\n";
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        pairs(starts(&skill, body, &path)),
        [("scripts/schema.sh".into(), false), ("scripts/query.sh".into(), true)]
    );
    // allowed-tools come first, and a folder placeholder before a bundled file is kept as written.
    skill.allowed_tools = vec!["Bash(gh pr view:*)".into(), "Bash(*)".into(), "Read".into()];
    let body = "```bash\npython3 {baseDir}/scripts/query.sh x\n```";
    assert_eq!(
        pairs(starts(&skill, body, "")),
        [
            ("gh".into(), false),
            ("python3 {baseDir}/scripts/query.sh".into(), true)
        ]
    );
    assert!(starts(&Skill::synthetic("bare", "d"), "Just be kind.", "").is_empty());
    // Instructions that name no command: the scripts it bundles, not its data or references.
    let (_d, skill) = skill_with(&["scripts/fetch.py", "reference.md", "templates/a.sh", "tool.sh"]);
    assert_eq!(
        pairs(starts(&skill, "Fetch the page with the script.", "")),
        [("scripts/fetch.py".into(), false), ("./tool.sh".into(), false)]
    );
}

#[test]
fn the_pattern_holds_a_command_to_its_starts_as_json_text() {
    let starts = [
        start("scripts/schema.sh", false),
        start("python3 {baseDir}/a.py", true),
        start("./run.sh", false),
    ];
    assert_eq!(
        pattern(&starts).unwrap(),
        r#"^((\./)?scripts/schema\.sh( ([^"\\]|\\.)*)?|python3 \{baseDir\}/a\.py ([^"\\ ]|\\.)([^"\\]|\\.)*|\./run\.sh( ([^"\\]|\\.)*)?)$"#
    );
    assert_eq!(super::pattern(&[start("say \"hi\"", false)]), None);
}

#[test]
fn example_values_are_the_data_an_example_passes() {
    let starts = [start("scripts/count.py", true), start("scripts/b64.py", true)];
    let body = "```\nscripts/count.py FILE [--top N]\nscripts/count.py essay.md --top 5\n./scripts/b64.py decode \"aGVsbG8=\"\nother.py 42\n```\nRun `scripts/count.py notes.txt`.";
    assert_eq!(example_values(body, &starts), ["essay.md", "aGVsbG8="]);
    assert_eq!(after_start("./scripts/b64.py decode x", &starts), Some(" decode x"));
    assert_eq!(after_start("scripts/b64.pyx", &starts), None);
    assert_eq!(
        after_start("python3 scripts/count.py essay.md", &starts),
        Some(" essay.md")
    );
}

#[test]
fn a_command_shown_to_the_user_is_found_in_code() {
    let starts = [start("scripts/parse.py", true)];
    let reply = "First parse the log:\n\n```\nscripts/parse.py app.log\n```\nthen summarize.";
    assert_eq!(shown_command(reply, &starts), Some("scripts/parse.py app.log"));
    assert_eq!(
        shown_command("Run `./scripts/parse.py app.log` first.", &starts),
        Some("./scripts/parse.py app.log")
    );
    assert_eq!(shown_command("scripts/parse.py app.log found 3 errors.", &starts), None);
}
