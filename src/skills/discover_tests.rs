//! Discovery's unit tests: roots, links, and the cache read cold and warm finding what reading finds.

use super::*;
use std::fs;

fn skill(root: &Path, folder: &str, name: &str) {
    let dir = root.join(folder);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: does {name} things\n---\nbody"),
    )
    .unwrap();
}

#[test]
fn first_root_wins_and_shadowed_are_warned() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    skill(a.path(), "x", "x");
    skill(b.path(), "x", "x");
    skill(b.path(), "y", "y");
    let d = discover(&[
        SkillRoot::new(a.path().into(), RootKind::Flag),
        SkillRoot::new(b.path().into(), RootKind::User),
    ]);
    let names: Vec<_> = d.skills.iter().map(|s| (s.name.as_str(), s.root.clone())).collect();
    assert_eq!(names, [("x", a.path().to_path_buf()), ("y", b.path().to_path_buf())]);
    assert_eq!(d.warnings[0].code, code::SHADOWED);
}

#[test]
fn hidden_and_node_modules_skipped_symlinks_followed() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    skill(root.path(), ".hidden", "hidden");
    skill(root.path(), "node_modules", "nm");
    skill(elsewhere.path(), "linked", "linked");
    std::os::unix::fs::symlink(elsewhere.path().join("linked"), root.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(root.path().join("loop"), root.path().join("loop")).unwrap();
    // A link to a file is no skill and no warning; one to nothing is a warning.
    fs::write(elsewhere.path().join("notes.md"), "x").unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("notes.md"), root.path().join("notes")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("gone"), root.path().join("dangling")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let roots = [SkillRoot::new(root.path().into(), RootKind::Flag)];
    let cached = Scan::routing(Some(CacheDir::at(cache.path())));
    for d in [
        discover(&roots),
        discover_with(&roots, &cached),
        discover_with(&roots, &cached),
    ] {
        let names: Vec<_> = d.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["linked"]);
        let warned: Vec<_> = d
            .warnings
            .iter()
            .map(|w| (w.code, w.file.file_name().unwrap()))
            .collect();
        assert_eq!(
            warned,
            [
                (code::BROKEN_LINK, "dangling".as_ref()),
                (code::BROKEN_LINK, "loop".as_ref())
            ]
        );
    }
}

/// What a listing shows of each skill, and every finding.
fn seen(d: &Discovery) -> Vec<String> {
    let mut out: Vec<String> = d
        .skills
        .iter()
        .map(|s| {
            let codes: Vec<_> = s.diagnostics.iter().map(|d| d.code).collect();
            format!(
                "{} {:?} {:?} model={} signed={} {:?} {codes:?}",
                s.name,
                s.description,
                s.entry,
                s.invocation.model,
                s.may_be_signed,
                s.skill_file.file_name()
            )
        })
        .collect();
    out.extend(d.skipped.iter().chain(&d.warnings).map(|d| d.to_string()));
    out
}

/// Write `text` to `path` below `r` with permissions `mode`.
fn write(r: &Path, path: &str, text: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let p = r.join(path);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, text).unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
}

/// What discovery finds in root `r` read plainly, which the cache read cold and warm must
/// find too; joined in lines.
fn read_alike(r: &Path) -> String {
    let cache = tempfile::tempdir().unwrap();
    let roots = [SkillRoot::new(r.into(), RootKind::Flag)];
    let plain = seen(&discover_with(&roots, &Scan::routing(None)));
    let cached = Scan::routing(Some(CacheDir::at(cache.path())));
    let cold = seen(&discover_with(&roots, &cached));
    let warm = seen(&discover_with(&roots, &cached));
    assert_eq!(cold, plain);
    assert_eq!(warm, plain);
    plain.join("\n")
}

#[test]
fn the_cache_read_cold_and_warm_finds_what_reading_finds() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    for name in [
        "plain",
        "runs",
        "not-exec",
        "declared",
        "missing-entry",
        "codex",
        "manifest-only",
    ] {
        skill(r, name, name);
    }
    write(r, "runs/run.sh", "#!/bin/sh\n", 0o755);
    write(r, "not-exec/run.sh", "#!/bin/sh\n", 0o644);
    write(r, "declared/skill.json", r#"{"entry": "bin/go"}"#, 0o644);
    write(r, "declared/bin/go", "#!/bin/sh\n", 0o755);
    write(r, "missing-entry/skill.json", r#"{"entry": "nope.sh"}"#, 0o644);
    let codex = "policy:\n  allow_implicit_invocation: false\n";
    write(r, "codex/agents/openai.yaml", codex, 0o644);
    let body = "# manifest-only\n\nbody without a description\n";
    write(r, "manifest-only/SKILL.md", body, 0o644);
    let manifest = r#"{"description": "from the manifest"}"#;
    write(r, "manifest-only/skill.json", manifest, 0o644);
    let joined = read_alike(r);
    for expected in [
        "not-executable",
        "missing-entry",
        "model=false",
        "Some(\"bin/go\")",
        "from the manifest",
    ] {
        assert!(joined.contains(expected), "{expected} in {joined}");
    }
}

#[test]
fn the_skill_file_in_any_case_signatures_and_links_are_read_alike_cold_and_warm() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    skill(r, "plain", "plain");
    skill(r, "signed", "signed");
    let front = |name: &str| format!("---\nname: {name}\ndescription: d\n---\n");
    write(r, "lower/skill.md", &front("lower"), 0o644);
    write(r, "odd/Skill.md", &front("odd"), 0o644);
    write(r, "odd/SKILL.MD", &front("odd-upper"), 0o644);
    write(r, "folder-named-so/SKILL.md/x", "", 0o644);
    write(r, "folder-named-so/skill.md", &front("folder-named-so"), 0o644);
    write(r, "signed/SKILL.sig", "x", 0o644);
    write(r, "none/README.md", "not a skill", 0o644);
    let elsewhere = tempfile::tempdir().unwrap();
    skill(elsewhere.path(), "target", "linked");
    fs::write(elsewhere.path().join("target/SKILL.sig"), "x").unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("target/SKILL.md"), r.join("lower/SKILL.MD")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("target"), r.join("linked")).unwrap();
    let joined = read_alike(r);
    for expected in [
        "lower \"d\" None model=true signed=false Some(\"skill.md\")",
        "odd-upper \"d\" None model=true signed=false Some(\"SKILL.MD\")",
        "folder-named-so \"d\" None model=true signed=false Some(\"skill.md\")",
        "signed \"does signed things\" None model=true signed=true",
        "plain \"does plain things\" None model=true signed=false",
        "linked \"does linked things\" None model=true signed=true",
    ] {
        assert!(joined.contains(expected), "{expected} in {joined}");
    }
    assert!(!joined.contains("README"), "{joined}");
}

#[test]
fn same_root_twice_is_scanned_once() {
    let root = tempfile::tempdir().unwrap();
    skill(root.path(), "x", "x");
    let r = SkillRoot::new(root.path().into(), RootKind::Flag);
    let d = discover(&[r.clone(), SkillRoot::new(root.path().into(), RootKind::Project)]);
    assert_eq!(d.skills.len(), 1);
    assert!(d.warnings.is_empty());
}
