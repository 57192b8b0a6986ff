//! The rough edges of a new user's first day (issue 39), each through the real binary: what a
//! running command shows on the terminal, and the smaller surprises of the commands around it.

use std::sync::Arc;
use std::time::Duration;

use crate::common::pty::{blocking, chat, ctrl_d_exits_zero, from_pty, type_line};
use crate::common::*;

/// Terminal output after the last time the spinner's line was wiped: what stays on screen.
fn after_last_wipe(before: &str) -> String {
    let text = from_pty(before);
    let at = text.rfind("\r\x1b[2K").map_or(0, |i| i + 5);
    text[at..].to_string()
}

/// A command's output shows under it while it runs (its last lines), and stays in the transcript
/// when it ends or is interrupted (item 1).
#[tokio::test(flavor = "multi_thread")]
async fn a_running_commands_output_shows_live_and_stays_after_it_ends_or_is_interrupted() {
    let ws = Arc::new(Workspace::new());
    ws.skill("quick", "# Quick\n\nSays hello.\n", Some("#!/bin/sh\necho first-out\n"));
    ws.skill(
        "countdown",
        "# Countdown\n\nCounts down.\n",
        Some("#!/bin/sh\necho tick30\necho tick29\nprintf tick28\nsleep 300\n"),
    );
    let mut replies = activate_run_answer("quick", "./run.sh", "done one");
    replies.extend(activate_run_answer("countdown", "./run.sh", "never"));
    let mock = Arc::new(MockLlm::start(replies).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &["--yes"]);
        type_line(&mut p, "say hello");
        let before = p.exp_string("exit 0").unwrap();
        let kept = after_last_wipe(&before);
        assert!(kept.contains("│ first-out"), "{kept:?}");
        p.exp_string("done one").unwrap();

        type_line(&mut p, "count down");
        p.exp_string("run [countdown] ./run.sh").unwrap();
        // The unfinished last line is on screen while the command still sleeps.
        p.exp_string("tick28").unwrap();
        std::thread::sleep(Duration::from_millis(200));
        p.send_control('c').unwrap();
        let before = p.exp_string("interrupted").unwrap();
        let kept = after_last_wipe(&before);
        let at = |s: &str| kept.find(s).unwrap_or_else(|| panic!("{s} not kept: {kept:?}"));
        assert!(
            at("│ tick30") < at("│ tick29") && at("│ tick29") < at("│ tick28"),
            "{kept:?}"
        );
        ctrl_d_exits_zero(p);
    })
    .await;
}
