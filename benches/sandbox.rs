//! What confining a command costs per spawn: building the Landlock ruleset (and strict's seccomp
//! program) in the agent, and the child's fork + restrict + exec, against an unconfined spawn.
//! Harness-less: prints a markdown table of medians (`cargo bench --bench sandbox`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent::exec::sandbox::policy::Settings;
use agent::exec::sandbox::{Confinement, Kernel, Mode};

const ROUNDS: usize = 1000;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Time each case `ROUNDS` times, interleaved round by round so that load from elsewhere on the
/// machine falls on every case alike; returns the medians in order.
fn measure(cases: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    for case in cases.iter_mut() {
        for _ in 0..20 {
            case();
        }
    }
    let mut samples = vec![Vec::with_capacity(ROUNDS); cases.len()];
    for _ in 0..ROUNDS {
        for (case, times) in cases.iter_mut().zip(samples.iter_mut()) {
            let t = Instant::now();
            case();
            times.push(t.elapsed());
        }
    }
    samples.into_iter().map(median).collect()
}

fn spawn_true(hook: Option<&std::sync::Arc<Confinement>>, fork: bool) {
    let mut cmd = Command::new("true");
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    if let Some(c) = hook {
        // SAFETY: the hook only makes async-signal-safe system calls.
        unsafe { cmd.pre_exec(c.hook()) };
    } else if fork {
        // A no-op hook: std then forks instead of using posix_spawn, which isolates that cost.
        // SAFETY: does nothing.
        unsafe { cmd.pre_exec(|| Ok(())) };
    }
    let status = cmd.status().expect("true runs");
    assert!(status.success(), "a confined `true` must succeed");
}

fn main() {
    let kernel = Kernel::detect();
    if !kernel.filesystem() {
        println!(
            "Landlock is unavailable here ({:?}); nothing to measure.",
            kernel.missing
        );
        return;
    }
    let tmp = std::env::temp_dir().join(format!("agent-bench-sandbox-{}", std::process::id()));
    let skill = tmp.join("skill");
    std::fs::create_dir_all(&skill).expect("temp folder");
    let settings = |mode| Settings::new(mode, kernel.clone(), &tmp, Some(Path::new("/nonexistent")), None, &[]);
    let on = settings(Mode::On);
    let strict = settings(Mode::Strict);
    let build = |s: &Settings| {
        Confinement::build(&s.policy(&skill, &[], false))
            .expect("ruleset")
            .expect("confined")
    };

    let spawn_names = [
        "unconfined (posix_spawn)",
        "unconfined, forced fork",
        "confined, `on`: build + fork + restrict + exec",
        "confined, `strict`: the same + seccomp",
    ];
    let spawn_times = measure(&mut [
        &mut || spawn_true(None, false),
        &mut || spawn_true(None, true),
        &mut || spawn_true(Some(&build(&on)), false),
        &mut || spawn_true(Some(&build(&strict)), false),
    ]);
    let build_names = [
        "policy + Landlock ruleset, `on`",
        "policy + ruleset + seccomp program, `strict`",
    ];
    let build_times = measure(&mut [&mut || drop(build(&on)), &mut || drop(build(&strict))]);
    let spawn_times_base = spawn_times[0];
    let spawns = spawn_names.into_iter().zip(spawn_times);
    let builds = build_names.into_iter().zip(build_times);
    let us = |t: Duration| t.as_secs_f64() * 1e6;
    let base = us(spawn_times_base);
    println!(
        "Landlock ABI {} ({}); medians of {ROUNDS} runs.\n",
        kernel.abi,
        kernel.name()
    );
    println!("| spawn of `true` | per spawn | vs unconfined |");
    println!("|---|---|---|");
    for (name, t) in spawns {
        println!("| {name} | {:.0} µs | {:+.0} µs |", us(t), us(t) - base);
    }
    println!("\n| built in the agent, per command | time |");
    println!("|---|---|");
    for (name, t) in builds {
        println!("| {name} | {:.0} µs |", us(t));
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
