use super::*;
use crate::exec::trust::manifests::{Comparison, ManifestStore};

fn skill() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("SKILL.md"), "a").unwrap();
    std::fs::create_dir(dir.path().join("scripts")).unwrap();
    std::fs::write(dir.path().join("scripts/x.sh"), "echo").unwrap();
    dir
}

fn hash(dir: &Path) -> String {
    hash_skill_dir(dir).unwrap()
}

#[test]
fn a_skill_hash_changes_with_any_file() {
    let dir = skill();
    let first = hash(dir.path());
    assert!(first.starts_with(HASH_PREFIX), "{first}");
    assert_eq!(first, hash(dir.path()), "stable");
    std::fs::write(dir.path().join("scripts/x.sh"), "echo!").unwrap();
    let edited = hash(dir.path());
    assert_ne!(first, edited);
    std::fs::write(dir.path().join("scripts/y.sh"), "").unwrap();
    assert_ne!(edited, hash(dir.path()), "a new empty file counts");
}

#[test]
fn same_size_edits_and_the_execute_bit_count() {
    let dir = skill();
    let first = hash(dir.path());
    std::fs::write(dir.path().join("scripts/x.sh"), "ECHO").unwrap();
    let edited = hash(dir.path());
    assert_ne!(first, edited, "same length, other bytes");
    let script = dir.path().join("scripts/x.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_ne!(edited, hash(dir.path()), "made executable");
}

#[test]
fn every_byte_of_a_large_file_counts() {
    let dir = skill();
    let mut big = vec![b'#'; 5 * 1024 * 1024];
    std::fs::write(dir.path().join("run.sh"), &big).unwrap();
    let first = hash(dir.path());
    *big.last_mut().unwrap() = b'!';
    std::fs::write(dir.path().join("run.sh"), &big).unwrap();
    assert_ne!(first, hash(dir.path()), "the last byte past 4 MB");
}

#[test]
fn many_files_are_all_hashed_up_to_the_limit() {
    let dir = skill();
    for i in 0..1200 {
        std::fs::write(dir.path().join(format!("a{i:04}")), "x").unwrap();
    }
    std::fs::write(dir.path().join("run.sh"), "echo 1").unwrap();
    let first = hash(dir.path());
    std::fs::write(dir.path().join("run.sh"), "echo 2").unwrap();
    assert_ne!(first, hash(dir.path()), "a file sorted after the first thousand");
}

#[test]
fn a_skill_past_the_limits_is_unverifiable_not_verified() {
    let dir = skill();
    let many = dir.path().join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..=MAX_ENTRIES {
        std::fs::File::create(many.join(i.to_string())).unwrap();
    }
    let err = hash_skill_dir(dir.path()).unwrap_err();
    assert!(err.0.contains("too many to verify"), "{err}");
    assert!(!is_unchanged(dir.path(), &err.to_string()));
    let store = ManifestStore::at(None);
    let recorded = store.record(dir.path());
    assert!(recorded.starts_with(UNVERIFIABLE), "{recorded}");
    assert!(matches!(
        store.compare(dir.path(), &recorded),
        Comparison::Unverifiable(_)
    ));
}

#[test]
fn symlinked_folders_are_hashed_by_what_they_hold() {
    let dir = skill();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("lib.sh"), "one").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("lib")).unwrap();
    let m = Manifest::of(dir.path()).unwrap();
    assert!(m.files["lib/lib.sh"].starts_with("file "), "{m:?}");
    let first = m.hash();
    std::fs::write(outside.path().join("lib.sh"), "two").unwrap();
    assert_ne!(first, hash(dir.path()));
}

#[test]
fn fifos_and_link_loops_do_not_hang() {
    let dir = skill();
    let fifo = std::ffi::CString::new(dir.path().join("pipe").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo only creates a file at a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).unwrap();
    let m = Manifest::of(dir.path()).unwrap();
    assert_eq!(m.files["pipe"], "special");
    assert_eq!(m.files["loop"], "loop");
    assert_eq!(m.files["dangling"], "dangling");
}

#[test]
fn python_caches_are_left_out() {
    let dir = skill();
    let first = hash(dir.path());
    std::fs::create_dir(dir.path().join("scripts/__pycache__")).unwrap();
    std::fs::write(dir.path().join("scripts/__pycache__/x.cpython-312.pyc"), "c").unwrap();
    assert_eq!(first, hash(dir.path()));
    std::fs::write(dir.path().join("scripts/y.pyc"), "c").unwrap();
    assert_ne!(
        first,
        hash(dir.path()),
        "a .pyc outside __pycache__ is imported as code"
    );
}

#[test]
fn a_comparison_names_the_changed_files() {
    let dir = skill();
    let kept = tempfile::tempdir().unwrap();
    let store = ManifestStore::at(Some(kept.path().join("files")));
    let recorded = store.record(dir.path());
    assert_eq!(store.compare(dir.path(), &recorded), Comparison::Same);
    std::fs::write(dir.path().join("scripts/x.sh"), "ECHO").unwrap();
    std::fs::write(dir.path().join("new.py"), "").unwrap();
    std::fs::remove_file(dir.path().join("SKILL.md")).unwrap();
    let Comparison::Changed(Some(changes)) = store.compare(dir.path(), &recorded) else {
        panic!("expected named changes");
    };
    assert_eq!(changes.modified, ["scripts/x.sh"]);
    assert_eq!(changes.added, ["new.py"]);
    assert_eq!(changes.removed, ["SKILL.md"]);
    assert_eq!(
        changes.to_string(),
        "modified: scripts/x.sh; added: new.py; removed: SKILL.md"
    );
    let old = "0".repeat(64);
    assert_eq!(store.compare(dir.path(), &old), Comparison::OldRecord);
    assert!(Comparison::OldRecord.describe().contains("older agent"));
    let unknown = format!("{HASH_PREFIX}{}", "1".repeat(64));
    assert_eq!(store.compare(dir.path(), &unknown), Comparison::Changed(None));
}

#[test]
fn a_stamped_walk_reuses_digests_of_untouched_files_and_reads_changed_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one").unwrap();
    std::fs::write(dir.path().join("b.txt"), "two").unwrap();
    let (first, stamps) = Manifest::of_stamped(dir.path(), &Stamps::default()).unwrap();
    assert_eq!(first, Manifest::of(dir.path()).unwrap());
    assert_eq!(stamps.len(), 2);
    // A recorded digest is trusted only while the stamp matches: forge one to see it used.
    let mut forged = stamps.clone();
    forged.get_mut("a.txt").unwrap().1 = "file forged".into();
    let (again, _) = Manifest::of_stamped(dir.path(), &forged).unwrap();
    assert_eq!(
        again.files["a.txt"], "file forged",
        "an untouched file is not read again"
    );
    // A same-size rewrite moves the change time: read again, the forged digest is gone.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(dir.path().join("a.txt"), "uno").unwrap();
    let (after, _) = Manifest::of_stamped(dir.path(), &forged).unwrap();
    assert_eq!(after, Manifest::of(dir.path()).unwrap());
    assert_ne!(after.hash(), first.hash());
}
