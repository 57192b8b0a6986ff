use super::*;

fn watch(root: &Path) -> Watch {
    Watch {
        roots: vec![std::fs::canonicalize(root).unwrap()],
        skip: Vec::new(),
    }
}

#[test]
fn new_places_that_run_later_are_removed_and_old_ones_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(root.join("old/.git")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    let snap = Snapshot::before(watch(&root));
    assert_eq!(snap.nested(10), vec![root.join("old/.git")]);
    // What a command plants.
    std::fs::write(root.join(".envrc"), "touch x").unwrap();
    std::fs::create_dir_all(root.join(".vscode")).unwrap();
    std::fs::write(root.join(".vscode/tasks.json"), "{}").unwrap();
    std::fs::create_dir_all(root.join("sub/.git/hooks")).unwrap();
    std::fs::create_dir_all(root.join("src/deep/.idea")).unwrap();
    std::fs::write(root.join("src/new.txt"), "ok").unwrap();
    std::fs::write(root.join(".git/hooks/post-checkout"), "x").unwrap();
    let swept = snap.sweep();
    assert!(!swept.incomplete);
    let mut removed: Vec<PathBuf> = swept.removed.into_iter().map(|r| r.path).collect();
    removed.sort();
    let mut expected = vec![
        root.join(".envrc"),
        root.join(".vscode"),
        root.join("src/deep/.idea"),
        root.join("sub/.git"),
    ];
    expected.sort();
    assert_eq!(removed, expected);
    for p in &expected {
        assert!(std::fs::symlink_metadata(p).is_err(), "{} stayed", p.display());
    }
    assert!(root.join("src/new.txt").exists() && root.join("sub").is_dir());
    assert!(
        root.join(".git/hooks").is_dir() && root.join("old/.git").is_dir(),
        "old ones stay"
    );
}

#[test]
fn removal_never_follows_a_symlink_out() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("w");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(outside.join("keep")).unwrap();
    std::fs::write(outside.join("keep/file"), "precious").unwrap();
    let snap = Snapshot::before(watch(&root));
    std::os::unix::fs::symlink(&outside, root.join(".idea")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    let removed = snap.sweep().removed;
    assert_eq!(removed.len(), 1, "{removed:?}");
    assert!(removed[0].message().contains("removed") && removed[0].message().contains(".idea"));
    assert!(std::fs::symlink_metadata(root.join(".idea")).is_err());
    assert_eq!(std::fs::read_to_string(outside.join("keep/file")).unwrap(), "precious");
}

#[test]
fn skipped_places_and_unlisted_folders_are_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::create_dir_all(root.join("opened")).unwrap();
    let mut w = watch(&root);
    w.skip.push(root.join("opened"));
    let snap = Snapshot::before(w);
    std::fs::create_dir_all(root.join("opened/.git")).unwrap();
    assert!(snap.sweep().removed.is_empty());
    assert!(root.join("opened/.git").exists());
    // Nothing was listed before: nothing is judged new.
    let none = Snapshot::default();
    assert!(none.sweep().removed.is_empty());
    // A root too big to list: what was directly inside it before is still known, and kept.
    std::fs::write(root.join(".envrc"), "mine").unwrap();
    let mut snap = Snapshot::before(watch(&root));
    snap.listed.clear();
    snap.entries.retain(|p| p.ends_with(".envrc"));
    assert!(snap.sweep().removed.is_empty());
    assert!(root.join(".envrc").exists());
}

#[test]
fn a_flood_of_entries_does_not_hide_a_new_place_directly_inside() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let snap = Snapshot::before(watch(&root));
    for i in 0..(2 * MAX_ENTRIES + 10) {
        std::fs::write(root.join(format!("f{i}")), "").unwrap();
    }
    std::fs::write(root.join(".envrc"), "x").unwrap();
    let swept = snap.sweep();
    assert!(swept.incomplete, "the walk was cut short");
    assert_eq!(swept.removed.len(), 1);
    assert!(!root.join(".envrc").exists());
    assert!(
        swept
            .messages()
            .iter()
            .any(|m| m.contains("not all of them were checked"))
    );
}
