//! `AGENT_PHASES=1`: the hidden switch the turn benchmark uses to see where a one-shot run's time
//! goes. On, stderr ends with one `agent-phase NAME UNIX_NANOS` line per phase, in order; off,
//! nothing of it appears.

use crate::common::*;

#[tokio::test]
async fn a_one_shot_run_marks_each_phase_in_order_only_when_asked() {
    let mock = MockLlm::repeating(vec![text("Hello!")]).await;
    let ws = Workspace::new();
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_PHASES", "1").args(["--once", "hello"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Hello!"));
    let marks: Vec<(String, u128)> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("agent-phase "))
        .map(|l| {
            let (name, at) = l.split_once(' ').unwrap();
            (name.to_string(), at.parse().unwrap())
        })
        .collect();
    let names: Vec<&str> = marks.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "start",
            "config",
            "discovery",
            "request",
            "connected",
            "first-byte",
            "last-byte",
            "exit"
        ],
        "{stderr}"
    );
    assert!(marks.windows(2).all(|w| w[0].1 <= w[1].1), "{marks:?}");

    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hello"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0);
    assert!(!stderr.contains("agent-phase"), "{stderr}");
}
