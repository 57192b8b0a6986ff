//! A long chat learns of skill edits from the file system (`AGENT_WATCH`): an edit in place, a
//! save by rename, a skill added or removed, and an edit of a symlinked skill's target are each
//! in the next turn's request, with file-system events and with the per-turn stamp check alike;
//! a chat whose skills did not change never scans again.

use std::path::Path;
use std::time::Duration;

use crate::common::pty::*;
use crate::common::*;
use rexpect::session::{PtySession, spawn_command};

const ANSWER: &str = "ANSWER-DONE";
/// What the chat says when it scanned again.
const RELOADED: &str = "skills loaded";

fn skill_md(name: &str, marker: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name} things, {marker}.\n---\nBody of {name}.\n")
}

/// The chat in a pty with `AGENT_WATCH` set to `mode` (unset for `auto`).
fn watched_chat(ws: &Workspace, mock: &MockLlm, mode: &str) -> PtySession {
    let mut cmd = pty_agent(ws);
    talking_to(&mut cmd, mock);
    if mode != "auto" {
        cmd.env("AGENT_WATCH", mode);
    }
    let mut p = spawn_command(cmd, Some(20_000)).unwrap();
    p.exp_string("/help for commands").unwrap();
    p
}

/// One turn; whether the chat scanned again before it.
fn turn_reloaded(p: &mut PtySession) -> bool {
    type_line(p, "hello");
    p.exp_string(ANSWER).unwrap().contains(RELOADED)
}

/// Turns until one starts with a scan: events arrive on their own thread, so a change may be
/// marked only after the next Enter. At most 50 turns, 100 ms apart. Returns how many turns.
fn turns_until_reloaded(p: &mut PtySession, what: &str) -> usize {
    for taken in 1..=50 {
        if turn_reloaded(p) {
            return taken;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no scan after {what}");
}

/// Write `text` to `path` as an editor that saves by rename does.
fn save_by_rename(path: &Path, text: &str) {
    let tmp = path.with_extension("md.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn changes_reach_the_next_request(mode: &'static str) {
    let ws = std::sync::Arc::new(Workspace::new());
    ws.skill("alpha", &skill_md("alpha", "alpha-one"), None);
    ws.skill("beta", &skill_md("beta", "beta-one"), None);
    let elsewhere = ws.dir.path().join("elsewhere/gamma");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("SKILL.md"), skill_md("gamma", "gamma-one")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, ws.skills().join("gamma")).unwrap();
    let mock = std::sync::Arc::new(MockLlm::repeating(vec![text(ANSWER)]).await);
    let (w, m) = (ws.clone(), mock.clone());
    let steps = tokio::task::spawn_blocking(move || {
        let mut p = watched_chat(&w, &m, mode);
        let mut turns = 0;
        for _ in 0..3 {
            assert!(!turn_reloaded(&mut p), "{mode}: nothing changed, nothing scanned");
            turns += 1;
        }
        let alpha = w.skills().join("alpha/SKILL.md");
        let mut steps = Vec::new();
        let mut step = |p: &mut PtySession, what: &'static str, change: &dyn Fn()| {
            change();
            turns += turns_until_reloaded(p, what);
            steps.push((what, turns - 1));
        };
        step(&mut p, "an edit in place", &|| {
            std::fs::write(&alpha, skill_md("alpha", "alpha-two")).unwrap()
        });
        step(&mut p, "a save by rename", &|| {
            save_by_rename(&alpha, &skill_md("alpha", "alpha-three"))
        });
        step(&mut p, "a skill added", &|| {
            w.skill("delta", &skill_md("delta", "delta-one"), None);
        });
        step(&mut p, "a skill removed", &|| {
            std::fs::remove_dir_all(w.skills().join("beta")).unwrap()
        });
        step(&mut p, "a linked skill's target edited", &|| {
            std::fs::write(elsewhere.join("SKILL.md"), skill_md("gamma", "gamma-two")).unwrap()
        });
        assert!(!turn_reloaded(&mut p), "{mode}: nothing changed since the last scan");
        ctrl_d_exits_zero(p);
        steps
    })
    .await
    .unwrap();
    let requests = mock.requests().await;
    let system = |turn: usize| contents(&requests[turn], "system").join("\n");
    assert!(system(0).contains("alpha-one") && system(0).contains("beta-one"));
    for ((what, turn), (seen, gone)) in steps.iter().zip([
        ("alpha-two", "alpha-one"),
        ("alpha-three", "alpha-two"),
        ("delta-one", "beta-two"),
        ("gamma-one", "beta-one"),
        ("gamma-two", "gamma-one"),
    ]) {
        let catalog = system(*turn);
        assert!(catalog.contains(seen), "{mode}, {what}: {seen} not in {catalog}");
        assert!(!catalog.contains(gone), "{mode}, {what}: {gone} still in {catalog}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn file_system_events_bring_each_change_to_the_next_turn() {
    changes_reach_the_next_request("auto").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_polling_check_brings_each_change_to_the_next_turn() {
    changes_reach_the_next_request("poll").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_watching_off_only_reload_scans() {
    let ws = std::sync::Arc::new(Workspace::new());
    ws.skill("alpha", &skill_md("alpha", "alpha-one"), None);
    let mock = std::sync::Arc::new(MockLlm::repeating(vec![text(ANSWER)]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = watched_chat(&w, &m, "off");
        assert!(!turn_reloaded(&mut p));
        std::fs::write(w.skills().join("alpha/SKILL.md"), skill_md("alpha", "alpha-two")).unwrap();
        assert!(!turn_reloaded(&mut p), "off: a turn does not look");
        type_line(&mut p, "/reload");
        p.exp_string(RELOADED).unwrap();
        assert!(!turn_reloaded(&mut p));
        ctrl_d_exits_zero(p);
    })
    .await;
    let requests = mock.requests().await;
    assert!(all_text(&requests[1]).contains("alpha-one"));
    assert!(all_text(&requests[2]).contains("alpha-two"));
}
