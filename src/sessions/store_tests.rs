use super::*;
use crate::llm::ChatMessage;
use std::os::unix::fs::MetadataExt;

fn start(cwd: &str) -> NewSession {
    NewSession {
        provider: None,
        model: "m".into(),
        base_url: "http://127.0.0.1:9/v1".into(),
        skill_roots: vec!["/skills".into()],
        cwd: cwd.into(),
        parent: None,
        chat: false,
    }
}

fn store() -> (tempfile::TempDir, SessionStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::at(dir.path().join("state/agent/sessions"));
    (dir, store)
}

#[test]
fn a_new_session_is_a_private_file_with_its_header() {
    let (_tmp, store) = store();
    let mut writer = store.create(start("/w"), Redactor::NONE).unwrap();
    writer.append(&Record::Message(ChatMessage::user("hi"))).unwrap();
    let folder = std::fs::metadata(store.dir()).unwrap();
    assert_eq!(folder.mode() & 0o777, 0o700);
    assert_eq!(std::fs::metadata(writer.path()).unwrap().mode() & 0o777, 0o600);
    let loaded = store.load(writer.id()).unwrap();
    assert_eq!(loaded.header.id, writer.id().as_str());
    assert_eq!(loaded.header.cwd, "/w");
    assert_eq!(loaded.records, [Record::Message(ChatMessage::user("hi"))]);
    assert_eq!(store.header(writer.id()).unwrap(), loaded.header);
}

#[test]
fn a_state_folder_under_a_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("state"), "a file").unwrap();
    let store = SessionStore::at(dir.path().join("state/agent/sessions"));
    let err = store.create(start("/w"), Redactor::NONE).unwrap_err().to_string();
    assert!(err.starts_with("cannot create the session folder "), "{err}");
    assert!(err.contains("state/agent/sessions"), "{err}");
    assert!(store.ids().is_err() || store.ids().unwrap().is_empty());
}

#[test]
fn prefixes_name_one_session_or_list_the_candidates() {
    let (_tmp, store) = store();
    std::fs::create_dir_all(store.dir()).unwrap();
    for id in ["20261201-112233-aaaa", "20261201-112233-aaab", "20261202-000000-zzzz"] {
        std::fs::write(store.dir().join(format!("{id}.jsonl")), "").unwrap();
    }
    std::fs::write(store.dir().join("notes.txt"), "").unwrap();
    let ids: Vec<String> = store.ids().unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(
        ids,
        ["20261202-000000-zzzz", "20261201-112233-aaab", "20261201-112233-aaaa"]
    );
    assert_eq!(store.find("20261202").unwrap().as_str(), "20261202-000000-zzzz");
    assert_eq!(
        store.find("20261201-112233-aaab").unwrap().as_str(),
        "20261201-112233-aaab"
    );
    match store.find("20261201") {
        Err(SessionError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, ["20261201-112233-aaab", "20261201-112233-aaaa"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(store.find("2025"), Err(SessionError::NotFound(_))));
    assert!(matches!(store.find("../x"), Err(SessionError::NotFound(_))));
}

#[test]
fn the_newest_session_of_a_folder_with_an_exchange_is_found() {
    let (_tmp, store) = store();
    let session = |cwd: &str, records: &[Record]| {
        let mut writer = store.create(start(cwd), Redactor::NONE).unwrap();
        writer.append_all(records).unwrap();
        writer.id().clone()
    };
    let a = session("/a", &[used()]);
    let b = session("/b", &[used()]);
    // Newer, but it never reached the model.
    session("/a", &[Record::Message(ChatMessage::user("no key"))]);
    assert_eq!(store.latest_in("/a", false).unwrap(), Some(a));
    assert_eq!(store.latest_in("/b", false).unwrap(), Some(b));
    assert_eq!(store.latest_in("/c", false).unwrap(), None);
}

fn used() -> Record {
    Record::Usage(crate::sessions::CallUsage {
        prompt_tokens: 5,
        completion_tokens: 1,
        estimated: false,
        ..Default::default()
    })
}

#[test]
fn of_sessions_started_in_the_same_second_the_last_written_is_the_newest() {
    let (_tmp, store) = store();
    std::fs::create_dir_all(store.dir()).unwrap();
    let now = SystemTime::now();
    for (id, age) in [
        ("20261201-112233-zzzz", 60),
        ("20261201-112233-aaaa", 0),
        ("20261201-112200-zzzz", 0),
    ] {
        let header = crate::sessions::record::test_header(id, "/w");
        let id = SessionId::parse(id).unwrap();
        let path = store.path_of(&id);
        let lines = [Record::Session(header), used()].map(|r| serde_json::to_string(&r).unwrap() + "\n");
        std::fs::write(&path, lines.concat()).unwrap();
        let file = File::options().write(true).open(&path).unwrap();
        file.set_modified(now - std::time::Duration::from_secs(age)).unwrap();
    }
    let newest = store.latest_in("/w", false).unwrap().unwrap();
    assert_eq!(newest.as_str(), "20261201-112233-aaaa");
}

#[test]
fn a_held_session_is_forked_not_shared() {
    let (_tmp, store) = store();
    let mut holder = store.create(start("/w"), Redactor::NONE).unwrap();
    holder.append(&Record::Message(ChatMessage::user("first"))).unwrap();
    let id = holder.id().clone();
    let opened = store.open(&id, start("/w"), Redactor::NONE).unwrap();
    assert_eq!(opened.forked_from.as_ref(), Some(&id));
    assert_ne!(opened.writer.id(), &id);
    let fork = store.load(opened.writer.id()).unwrap();
    assert_eq!(fork.header.parent.as_deref(), Some(id.as_str()));
    assert_eq!(fork.records, [Record::Message(ChatMessage::user("first"))]);
    assert!(matches!(store.remove(&id), Err(SessionError::InUse(_))));
    drop(holder);
    let again = store.open(&id, start("/w"), Redactor::NONE).unwrap();
    assert_eq!(again.forked_from, None);
    assert_eq!(again.writer.id(), &id);
}

#[test]
fn resuming_cuts_a_torn_line_before_appending() {
    let (_tmp, store) = store();
    let mut writer = store.create(start("/w"), Redactor::NONE).unwrap();
    writer.append(&Record::Message(ChatMessage::user("one"))).unwrap();
    let id = writer.id().clone();
    let path = writer.path().to_path_buf();
    drop(writer);
    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(&mut file, b"{\"type\":\"mess").unwrap();
    let mut opened = store.open(&id, start("/w"), Redactor::NONE).unwrap();
    assert_eq!(opened.loaded.warnings.len(), 1, "{:?}", opened.loaded.warnings);
    opened
        .writer
        .append(&Record::Message(ChatMessage::user("two")))
        .unwrap();
    let loaded = store.load(&id).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(
        loaded.records,
        [
            Record::Message(ChatMessage::user("one")),
            Record::Message(ChatMessage::user("two"))
        ]
    );
}

#[test]
fn removing_deletes_the_file_and_unknown_ids_are_named() {
    let (_tmp, store) = store();
    let id = store.create(start("/w"), Redactor::NONE).unwrap().id().clone();
    let path = store.remove(&id).unwrap();
    assert!(!path.exists());
    assert!(matches!(store.remove(&id), Err(SessionError::NotFound(_))));
    assert!(matches!(store.load(&id), Err(SessionError::NotFound(_))));
}
