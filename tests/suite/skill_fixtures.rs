//! Every category of real-world SKILL.md mess, loaded through discovery: each loads with the
//! right fields and a located warning, or is skipped with a reason. Never a panic or a hang.

use std::path::{Path, PathBuf};

use crate::common::repo_path;
use agent::skills::discover::{Discovery, discover};
use agent::skills::roots::{RootKind, SkillRoot};
use agent::skills::{Dialect, Severity, Skill};

fn fixtures() -> PathBuf {
    repo_path("tests/fixtures")
}

fn load(roots: &[&Path]) -> Discovery {
    let roots: Vec<SkillRoot> = roots
        .iter()
        .map(|p| SkillRoot::new(p.to_path_buf(), RootKind::Flag))
        .collect();
    discover(&roots)
}

fn skill<'a>(d: &'a Discovery, name: &str) -> &'a Skill {
    d.skills.iter().find(|s| s.name == name).unwrap_or_else(|| {
        panic!(
            "{name} not loaded; skipped: {:?}",
            d.skipped.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        )
    })
}

/// The skill's warning (or worse) containing `needle`, which must carry a file and a line.
fn warned(s: &Skill, needle: &str) -> usize {
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.severity >= Severity::Warning && d.message.contains(needle))
        .unwrap_or_else(|| panic!("{}: no warning containing {needle:?} in {:#?}", s.name, s.diagnostics));
    assert!(d.file.starts_with(&s.dir), "{d}");
    d.line.unwrap_or_else(|| panic!("{d} has no line"))
}

fn clean(s: &Skill) {
    let bad: Vec<String> = s
        .diagnostics
        .iter()
        .filter(|d| d.severity >= Severity::Warning)
        .map(|d| d.to_string())
        .collect();
    assert!(bad.is_empty(), "{}: unexpected warnings {bad:?}", s.name);
}

#[test]
fn committed_fixtures_load_or_are_skipped_with_reasons() {
    let d = load(&[&fixtures().join("skills"), &fixtures().join("skills-other")]);

    let s = skill(&d, "h1-first");
    assert_eq!(
        (s.description.as_str(), s.dialect),
        ("Converts units between metric and imperial.", Dialect::Scp)
    );
    clean(s);
    assert_eq!(
        skill(&d, "text-first").description,
        "Converts currencies using daily rates. Works offline with cached rates."
    );

    assert_eq!(warned(skill(&d, "name-without-fences"), "without `---`"), 1);
    assert_eq!(warned(skill(&d, "unclosed"), "never closed"), 1);
    assert_eq!(skill(&d, "unclosed").description, "Frontmatter that is never closed.");
    assert_eq!(warned(skill(&d, "blank-before-fence"), "blank line"), 3);
    assert_eq!(warned(skill(&d, "closed-by-rule"), "markdown rule"), 1);
    assert_eq!(
        skill(&d, "closed-by-rule").description,
        "The only later fence is a markdown rule."
    );
    assert_eq!(warned(skill(&d, "closed-by-table"), "never closed"), 1);
    assert_eq!(warned(skill(&d, "bom"), "byte-order mark"), 1);
    let crlf = skill(&d, "crlf");
    assert_eq!(crlf.description, "Windows line endings throughout.");
    clean(crlf);
    let lower = skill(&d, "lowercase-file");
    assert!(lower.skill_file.ends_with("skill.md"));
    clean(lower);
    let colon = skill(&d, "unquoted-colon");
    assert_eq!(colon.description, "Use when: the user asks about colons");
    assert_eq!(warned(colon, "unquoted"), 3);
    let flow = skill(&d, "bad-flow");
    assert_eq!(flow.description, "Broken flow syntax in metadata.");
    warned(flow, "not valid YAML");
    assert_eq!(warned(skill(&d, "control-chars"), "control character"), 3);
    clean(skill(&d, "flow-map-metadata"));
    clean(skill(&d, "nested-metadata"));
    assert_eq!(warned(skill(&d, "scalar-metadata"), "`metadata` is a number"), 4);
    let v = skill(&d, "version-float");
    assert_eq!(v.version.as_deref(), Some("1.0"));
    clean(v);
    assert_eq!(warned(skill(&d, "compatibility-list"), "`compatibility` is a list"), 4);
    assert_eq!(skill(&d, "allowed-tools-list").allowed_tools, ["Read", "Bash(git:*)"]);
    assert_eq!(
        skill(&d, "allowed-tools-comma").allowed_tools,
        ["Read", "Grep", "Bash(git status)"]
    );
    let unknown = skill(&d, "unknown-keys");
    assert_eq!(warned(unknown, "`author`"), 4);
    assert_eq!(warned(unknown, "`tags`"), 5);
    warned(skill(&d, "name-missing"), "no `name`");
    assert_eq!(warned(skill(&d, "Name-Uppercase"), "uppercase"), 2);
    warned(skill(&d, "name with spaces"), "spaces");
    warned(skill(&d, "name_underscore"), "characters other than");
    warned(skill(&d, "-leading-hyphen"), "hyphen");
    assert_eq!(
        warned(skill(&d, "other-name"), "does not match its folder `folder-name`"),
        2
    );
    let from_body = skill(&d, "description-missing");
    assert_eq!(from_body.description, "The body says what it does.");
    warned(from_body, "no `description`");
    assert!(
        d.skipped
            .iter()
            .any(|x| x.file.parent().unwrap().ends_with("description-nowhere") && x.message.contains("no description"))
    );
    assert_eq!(warned(skill(&d, "description-long"), "1100 characters"), 3);
    assert_eq!(
        skill(&d, "description-folded").description,
        "Folded text over two lines."
    );
    assert_eq!(
        skill(&d, "description-literal").description,
        "Literal text keeps its lines."
    );
    assert_eq!(
        skill(&d, "description-multiline-plain").description,
        "Plain text continued on the next line."
    );
    assert_eq!(
        skill(&d, "description-single-quoted").description,
        "It's single-quoted: with a colon."
    );
    assert_eq!(
        skill(&d, "description-cjk").description,
        "天気を調べるスキルです。東京や大阪の天気を答えます。"
    );
    assert_eq!(
        skill(&d, "description-emoji").description,
        "🌦️ Weather with emoji 🌈 in the description."
    );
    assert_eq!(
        skill(&d, "description-angle").description,
        "Use <foo> & <bar> tags in HTML output."
    );
    let short = skill(&d, "description-short");
    assert!(
        short
            .diagnostics
            .iter()
            .any(|x| x.severity == Severity::Info && x.message.contains("only 8 characters"))
    );
    let json = skill(&d, "scp-json");
    assert_eq!(
        (json.description.as_str(), json.version.as_deref()),
        ("Description from skill.json.", Some("2.1.0"))
    );
    warned(json, "`entry` names `main.sh`");
    let bad_json = skill(&d, "scp-bad-json");
    assert_eq!(bad_json.description, "The skill.json beside me is broken.");
    warned(bad_json, "not valid JSON");

    // The same name twice in one root, and again in a later root: the first wins, both reported.
    assert_eq!(skill(&d, "twin").description, "The first twin in this root.");
    let shadowed: Vec<&str> = d
        .warnings
        .iter()
        .filter(|w| w.message.contains("`twin` is shadowed"))
        .map(|w| w.file.to_str().unwrap())
        .collect();
    assert_eq!(shadowed.len(), 2, "{shadowed:?}");
    assert!(shadowed.iter().any(|f| f.contains("twin-b")) && shadowed.iter().any(|f| f.contains("skills-other")));
}

#[test]
fn file_system_oddities() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let elsewhere = tmp.path().join("elsewhere/linked");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        elsewhere.join("SKILL.md"),
        "---\nname: linked\ndescription: Reached through a symlink.\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("linked")).unwrap();
    std::os::unix::fs::symlink(root.join("loop-a"), root.join("loop-b")).unwrap();
    std::os::unix::fs::symlink(root.join("loop-b"), root.join("loop-a")).unwrap();
    let make = |name: &str, bytes: &[u8]| {
        std::fs::create_dir_all(root.join(name)).unwrap();
        std::fs::write(root.join(name).join("SKILL.md"), bytes).unwrap();
    };
    let mut huge = b"---\nname: huge\ndescription: Ten megabytes of SKILL.md.\n---\n".to_vec();
    huge.resize(10 * 1024 * 1024, b'a');
    make("huge", &huge);
    make("binary", b"\x7fELF\x00\x00\x01binary junk");
    make("unreadable", b"---\nname: unreadable\ndescription: Mode 000.\n---\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(root.join("unreadable/SKILL.md"), std::fs::Permissions::from_mode(0o000)).unwrap();
    // A FIFO named SKILL.md must not block discovery.
    let fifo = std::ffi::CString::new(root.join("fifo").join("SKILL.md").to_str().unwrap()).unwrap();
    std::fs::create_dir_all(root.join("fifo")).unwrap();
    // SAFETY: mkfifo only creates a file at a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);

    let d = load(&[&root]);
    assert_eq!(skill(&d, "linked").description, "Reached through a symlink.");
    assert!(
        d.warnings.iter().any(|w| w.file.ends_with("loop-a")),
        "{:?}",
        d.warnings
    );
    let huge = skill(&d, "huge");
    assert_eq!(huge.description, "Ten megabytes of SKILL.md.");
    assert!(huge.diagnostics.iter().any(|x| x.message.contains("10485760 bytes")));
    assert!(
        d.skipped
            .iter()
            .any(|x| x.file.parent().unwrap().ends_with("binary") && x.message.contains("no description"))
    );
    assert!(d.skills.iter().all(|s| s.name != "fifo"));
    // Root can read a mode-000 file; anyone else gets a skip with the reason.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        assert!(d.skipped.iter().any(|x| x.message.contains("cannot read")));
    }
}
