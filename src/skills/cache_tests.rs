use std::time::{Duration, SystemTime};

use super::*;
use crate::skills::{Diagnostic, Severity, Skill, code};

/// Set a file's (or folder's) modification time to a fixed day in 2023, so it is not "just
/// changed" and setting it again restores it exactly.
fn age(path: &Path) {
    let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    std::fs::File::open(path).unwrap().set_modified(past).unwrap();
}

struct Tree {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    cache: CacheDir,
}

fn tree() -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    let cache = CacheDir::at(tmp.path().join("cache"));
    std::fs::create_dir_all(&root).unwrap();
    Tree { _tmp: tmp, root, cache }
}

fn skill_folder(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: d\n---\n"),
    )
    .unwrap();
    age(&dir.join("SKILL.md"));
    age(&dir);
    dir
}

fn loaded(dir: &Path, root: &Path) -> FolderLoad {
    let mut skill = Skill::synthetic(&key_of(dir, root), "does things");
    skill.entry = Some("run.sh".into());
    skill.allowed_tools = vec!["Bash(git:*)".into()];
    skill.version = Some("1.0".into());
    // Only people invoke it, with a hint: fields the JSON form leaves out when empty.
    skill.invocation.model = false;
    skill.invocation.argument_hint = Some("[env]".into());
    skill.diagnostics = vec![Diagnostic::new(
        code::LONG_BODY,
        Severity::Warning,
        &dir.join("SKILL.md"),
        Some(3),
        "odd",
    )];
    FolderLoad::Skill(Box::new(skill))
}

/// Load a folder "for real" here: stamp, then build the result.
fn fresh(dir: &Path, root: &Path) -> (FolderLoad, Entry) {
    let meta = std::fs::metadata(dir).unwrap();
    let mut stamp = FolderStamp::before_reading(dir, &meta, &dir.join("SKILL.md")).unwrap();
    stamp.stamp_entry(None, |name| Stamp::at(&dir.join(name)));
    let l = loaded(dir, root);
    let entry = Entry::new(stamp, &l).unwrap();
    (l, entry)
}

fn lookup(cache: &RootCache, dir: &Path) -> Option<FolderLoad> {
    cache.lookup(&cache.place(dir, 0), &Stamp::of(&std::fs::metadata(dir).unwrap()))
}

fn name(l: &FolderLoad) -> &str {
    match l {
        FolderLoad::Skill(s) => &s.name,
        _ => "",
    }
}

#[test]
fn a_saved_entry_is_found_until_its_files_change() {
    let t = tree();
    let a = skill_folder(&t.root, "a");
    let b = skill_folder(&t.root, "b");
    let cache = RootCache::open(Some(&t.cache), &t.root);
    assert!(lookup(&cache, &a).is_none());
    let entries = vec![
        (key_of(&a, &t.root), fresh(&a, &t.root).1),
        (key_of(&b, &t.root), fresh(&b, &t.root).1),
    ];
    assert!(cache.save(entries.clone()).unwrap());

    let cache = RootCache::open(Some(&t.cache), &t.root);
    let hit = lookup(&cache, &a).unwrap();
    let FolderLoad::Skill(skill) = &hit else {
        panic!("{hit:?}")
    };
    let FolderLoad::Skill(mut expected) = loaded(&a, &t.root) else {
        unreachable!()
    };
    (expected.dir, expected.skill_file, expected.root) = (a.clone(), a.join("SKILL.md"), t.root.clone());
    assert_eq!(
        (skill.dir.clone(), skill.skill_file.clone(), skill.root.clone()),
        (a.clone(), a.join("SKILL.md"), t.root.clone())
    );
    assert_eq!(
        serde_json::to_value(skill).unwrap(),
        serde_json::to_value(&expected).unwrap()
    );
    // Saving what it already holds writes nothing.
    assert!(!cache.save(entries).unwrap());

    // Same size, modification time set back: not seen (the documented contract).
    std::fs::write(a.join("SKILL.md"), "---\nname: a\ndescription: e\n---\n").unwrap();
    age(&a.join("SKILL.md"));
    let cache = RootCache::open(Some(&t.cache), &t.root);
    assert_eq!(name(&lookup(&cache, &a).unwrap()), "a");
    // A new size is.
    std::fs::write(a.join("SKILL.md"), "---\nname: a\ndescription: longer\n---\n").unwrap();
    age(&a.join("SKILL.md"));
    assert!(lookup(&cache, &a).is_none());
    // So are a new file in the folder, and a mode change of the skill file.
    std::fs::write(b.join("skill.json"), "{}").unwrap();
    assert!(lookup(&cache, &b).is_none());
}

#[test]
fn kept_entries_are_written_back_as_they_were_and_only_changes_rewrite() {
    let t = tree();
    let a = skill_folder(&t.root, "a");
    let b = skill_folder(&t.root, "b");
    let (ka, kb) = (key_of(&a, &t.root), key_of(&b, &t.root));
    let cache = RootCache::open(Some(&t.cache), &t.root);
    let entries = vec![(ka.clone(), fresh(&a, &t.root).1), (kb.clone(), fresh(&b, &t.root).1)];
    assert!(cache.save(entries).unwrap());
    // Every entry held: nothing to write.
    let cache = RootCache::open(Some(&t.cache), &t.root);
    assert!(
        !cache
            .save_found(vec![(ka.clone(), Found::Kept), (kb.clone(), Found::Kept)])
            .unwrap()
    );
    // A kept key the file does not hold is ignored.
    let cache = RootCache::open(Some(&t.cache), &t.root);
    let unknown = (key_of(&t.root.join("c"), &t.root), Found::Kept);
    let all = vec![(ka.clone(), Found::Kept), (kb.clone(), Found::Kept), unknown];
    assert!(!cache.save_found(all).unwrap());
    // `b` not found again: the file is rewritten, `a` kept as it was.
    let cache = RootCache::open(Some(&t.cache), &t.root);
    assert!(cache.save_found(vec![(ka, Found::Kept)]).unwrap());
    let cache = RootCache::open(Some(&t.cache), &t.root);
    assert_eq!(name(&lookup(&cache, &a).unwrap()), "a");
    assert!(lookup(&cache, &b).is_none());
}

#[test]
fn keys_are_the_folder_below_the_root() {
    let r = Path::new("/r/skills");
    assert_eq!(key_of(&r.join("a b"), r), "a b");
    assert_eq!(key_of(r, r), ".");
    assert_eq!(key_of(Path::new("/r/skills/a/b"), r), "a/b");
    assert_eq!(key_of(Path::new("/r/skills//a"), r), "a");
    assert_eq!(key_of(&Path::new("/r/skills/").join("a"), Path::new("/r/skills/")), "a");
    assert_eq!(key_of(Path::new("/r/skills/.."), r), "..");
    assert_eq!(key_of(Path::new("/r/skills2/a"), r), "/r/skills2/a");
    assert_eq!(key_of(Path::new("/elsewhere/a"), r), "/elsewhere/a");
}

#[test]
fn entry_scripts_are_part_of_the_key() {
    let t = tree();
    let a = skill_folder(&t.root, "a");
    std::fs::write(a.join("run.sh"), "#!/bin/sh\n").unwrap();
    age(&a.join("run.sh"));
    age(&a);
    let cache = RootCache::open(Some(&t.cache), &t.root);
    cache.save(vec![(key_of(&a, &t.root), fresh(&a, &t.root).1)]).unwrap();
    let cache = RootCache::open(Some(&t.cache), &t.root);
    assert!(lookup(&cache, &a).is_some());
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(a.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(
        lookup(&cache, &a).is_none(),
        "chmod +x changes the entry script's stamp"
    );
}

#[test]
fn just_changed_files_are_not_cached() {
    let t = tree();
    let a = t.root.join("a");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(a.join("SKILL.md"), "x").unwrap();
    let cache = RootCache::open(Some(&t.cache), &t.root);
    assert!(!cache.save(vec![(key_of(&a, &t.root), fresh(&a, &t.root).1)]).unwrap());
    assert!(lookup(&RootCache::open(Some(&t.cache), &t.root), &a).is_none());
}

#[test]
fn a_root_that_is_a_skill_folder_and_skipped_folders_are_cached_too() {
    let t = tree();
    let a = skill_folder(&t.root, "a");
    let meta = std::fs::metadata(&a).unwrap();
    let stamp = FolderStamp::before_reading(&a, &meta, &a.join("SKILL.md")).unwrap();
    let skipped = FolderLoad::Skipped(Diagnostic::new(
        code::MISSING_DESCRIPTION,
        Severity::Error,
        &a.join("SKILL.md"),
        Some(1),
        "no description",
    ));
    let cache = RootCache::open(Some(&t.cache), &a);
    assert_eq!(key_of(&a, &a), ".");
    cache
        .save(vec![(key_of(&a, &a), Entry::new(stamp, &skipped).unwrap())])
        .unwrap();
    let hit = lookup(&RootCache::open(Some(&t.cache), &a), &a).unwrap();
    assert!(matches!(hit, FolderLoad::Skipped(d) if d.message == "no description"));
    assert!(
        Entry::new(
            FolderStamp::before_reading(&a, &meta, &a.join("SKILL.md")).unwrap(),
            &FolderLoad::NotASkill
        )
        .is_none()
    );
}

#[test]
fn off_damaged_or_foreign_caches_are_empty() {
    let t = tree();
    let a = skill_folder(&t.root, "a");
    let off = RootCache::open(None, &t.root);
    assert!(!off.enabled());
    assert!(!off.save(vec![(key_of(&a, &t.root), fresh(&a, &t.root).1)]).unwrap());
    assert!(!t.cache.path().exists());

    RootCache::open(Some(&t.cache), &t.root)
        .save(vec![(key_of(&a, &t.root), fresh(&a, &t.root).1)])
        .unwrap();
    let file = std::fs::read_dir(t.cache.path().join("catalog"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let good = std::fs::read(&file).unwrap();
    for bad in [b"garbage".to_vec(), good[..good.len() / 2].to_vec(), Vec::new()] {
        std::fs::write(&file, &bad).unwrap();
        assert!(lookup(&RootCache::open(Some(&t.cache), &t.root), &a).is_none());
    }
    // A valid file of another root (a hash collision) is not used either.
    std::fs::write(&file, &good).unwrap();
    let other = t.root.join("a");
    assert!(RootCache::open(Some(&t.cache), &other).slots.is_empty());
}

/// The encoding of a fixed entry. When this fails, the cache format changed: bump
/// `KIND.version`, then update the expected value.
#[test]
fn format_fingerprint() {
    let stamp = Stamp {
        size: 1,
        mtime: 2,
        mtime_nsec: 3,
        ino: 4,
        mode: 5,
    };
    let folder = FolderStamp {
        dir: stamp,
        file_name: "SKILL.md".into(),
        file: stamp,
        manifest: Some(stamp),
        entry: Some(("run.sh".into(), None)),
    };
    let entry = Entry::new(folder, &loaded(Path::new("/r/a"), Path::new("/r"))).unwrap();
    let entry = postcard::to_stdvec(&entry).unwrap();
    let payload = Payload {
        root: b"/r",
        entries: vec![("a", serde_bytes::Bytes::new(&entry))],
    };
    let bytes = postcard::to_stdvec(&payload).unwrap();
    assert_eq!(
        (KIND.version, format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes))),
        (7, "f70caa8dbbec8beb".to_string())
    );
}
