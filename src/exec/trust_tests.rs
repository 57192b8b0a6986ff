use super::*;

fn dotenv(hash: &str, keys: &[&str]) -> DotenvState {
    DotenvState {
        path: PathBuf::from("/p/.env"),
        keys: keys.iter().map(|k| k.to_string()).collect(),
        hash: hash.into(),
    }
}

fn snapshot(env: Option<DotenvState>, skills: &[(&str, &str)]) -> Snapshot {
    Snapshot {
        dotenv: env,
        dotenv_key: String::new(),
        skills: skills.iter().map(|(k, h)| (k.to_string(), h.to_string())).collect(),
        mcp_servers: Vec::new(),
    }
}

#[test]
fn a_new_folder_trusts_nothing_and_asks_about_everything() {
    let a = assess(
        Path::new("/p"),
        snapshot(Some(dotenv("h", &["A"])), &[("skills/x", "1")]),
        None,
    );
    assert_eq!(a.standing, Standing::New);
    assert!(a.needs_decision() && !a.dotenv_trusted && a.trusted_skills.is_empty());
    assert_eq!(a.changes.new_skills, ["skills/x"]);
    assert!(a.changes.dotenv.as_ref().unwrap().first_time);
    assert!(!assess(Path::new("/p"), Snapshot::default(), None).needs_decision());
}

#[test]
fn only_content_exactly_as_trusted_is_trusted() {
    let trusted = snapshot(Some(dotenv("h", &["A"])), &[("skills/x", "1"), ("skills/y", "2")]).record(true, None);
    let same = assess(
        Path::new("/p"),
        snapshot(Some(dotenv("h", &["A"])), &[("skills/x", "1"), ("skills/y", "2")]),
        Some(&trusted),
    );
    assert!(!same.needs_decision() && same.dotenv_trusted && same.trusted_skills.len() == 2);

    let changed = assess(
        Path::new("/p"),
        snapshot(
            Some(dotenv("h2", &["A", "B"])),
            &[("skills/x", "1"), ("skills/y", "3"), ("skills/z", "4")],
        ),
        Some(&trusted),
    );
    assert!(changed.needs_decision() && !changed.dotenv_trusted);
    let env = changed.changes.dotenv.unwrap();
    assert_eq!((env.added, env.first_time), (vec!["B".to_string()], false));
    assert_eq!(changed.changes.changed_skills, ["skills/y"]);
    assert_eq!(changed.changes.new_skills, ["skills/z"]);
    assert_eq!(changed.trusted_skills.keys().collect::<Vec<_>>(), ["skills/x"]);
}

#[test]
fn a_no_is_remembered_until_the_content_changes() {
    let declined = snapshot(Some(dotenv("h", &["A"])), &[("skills/x", "1")]).record(false, None);
    let same = assess(
        Path::new("/p"),
        snapshot(Some(dotenv("h", &["A"])), &[("skills/x", "1")]),
        Some(&declined),
    );
    assert_eq!(same.standing, Standing::Declined);
    assert!(!same.needs_decision() && !same.dotenv_trusted && same.trusted_skills.is_empty());
    let edited = assess(Path::new("/p"), snapshot(None, &[("skills/x", "9")]), Some(&declined));
    assert!(edited.needs_decision());
}

fn project(dir: &Path) {
    std::fs::create_dir_all(dir.join("skills/x")).unwrap();
    std::fs::write(dir.join("skills/x/SKILL.md"), "x").unwrap();
}

#[test]
fn decisions_persist_and_edits_revoke_a_skill() {
    let state = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    project(folder.path());
    let store = || TrustStore::at(Some(state.path().join("trust.json")), None);
    let trust = FolderTrust::open(folder.path(), None, store());
    let first = trust.assess();
    assert!(first.needs_decision());
    trust.decide(&first, true).unwrap();
    let skill = folder.path().join("skills/x");
    assert!(trust.skill_may_run(&skill));
    std::fs::write(skill.join("run.sh"), "echo changed").unwrap();
    assert!(!trust.skill_may_run(&skill), "an edit needs trust again");

    let later = FolderTrust::open(folder.path(), None, store());
    let again = later.assess();
    assert_eq!(again.changes.changed_skills, ["skills/x"]);
    later.decide(&again, false).unwrap();
    assert!(later.declined() && !later.skill_may_run(&skill));
    let next_run = FolderTrust::open(folder.path(), None, store());
    let quiet = next_run.assess();
    next_run.adopt(&quiet);
    assert!(!quiet.needs_decision() && next_run.declined());
}

#[test]
fn folders_trusted_the_old_way_keep_their_skills_but_not_their_dotenv() {
    let state = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    project(folder.path());
    let legacy = state.path().join("trusted-folders");
    let root = std::fs::canonicalize(folder.path().join("skills")).unwrap();
    std::fs::write(&legacy, format!("{}\n", root.display())).unwrap();
    let store = TrustStore::at(Some(state.path().join("trust.json")), Some(legacy));
    let trust = FolderTrust::open(folder.path(), Some(dotenv("h", &["AGENT_APPROVE"])), store.clone());
    let a = trust.assess();
    assert_eq!(a.standing, Standing::Trusted);
    assert_eq!(a.trusted_skills.keys().collect::<Vec<_>>(), ["skills/x"]);
    assert!(!a.dotenv_trusted && a.changes.dotenv.is_some() && a.needs_decision());
    assert!(store.get(trust.folder()).is_some(), "the migrated record was saved");
}

#[test]
fn a_yes_in_one_subfolder_keeps_what_a_yes_in_another_covered() {
    let root = snapshot(Some(dotenv("h", &["A"])), &[("skills/x", "1")]);
    let first = root.record(true, None);
    let mut sub = snapshot(Some(dotenv("h9", &["B"])), &[("sub/.agents/skills/y", "2")]);
    sub.dotenv_key = "sub".into();
    let both = sub.record(true, Some(&first));
    assert_eq!(both.skills.len(), 2, "{both:?}");
    assert_eq!(both.dotenv_at("").unwrap().hash, "h");
    assert_eq!(both.dotenv_at("sub").unwrap().hash, "h9");
    // Assessed from the subfolder, nothing is new; from the root, neither.
    assert!(!assess(Path::new("/p"), sub.clone(), Some(&both)).needs_decision());
    assert!(!assess(Path::new("/p"), root.clone(), Some(&both)).needs_decision());
    // A no covers everything.
    let no = sub.record(false, Some(&both));
    assert_eq!(no.skills.len(), 1);
    assert!(!no.trusted);
}
