//! Running one approved [`Plan`]: as an argv without a shell, or `sh -c` when a person allowed it;
//! with a timeout, bounded capture, and an end to every process it started
//! (docs/design.md#processes).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::process::Signal;
use tokio::process::{Child, Command};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::approval::{Argv, Plan};
use super::capture::{Caps, capture};
pub(crate) use super::capture::{Captured, Live};
use super::sandbox::Confinement;
use super::tree::{self, Tree};
use crate::support::redact::Redactor;

/// Bytes of each stream kept from the start and from the end; the middle is cut.
pub(crate) const DEFAULT_HEAD_BYTES: usize = 8 * 1024;
pub(crate) const DEFAULT_TAIL_BYTES: usize = 8 * 1024;
/// How long a timed-out command gets between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(2);
/// How long output pipes may stay open after the command's own process is gone, before what it
/// left behind is killed, and again after that before reading stops regardless.
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// What to run and how.
#[derive(Debug, Clone)]
pub(crate) struct CommandSpec<'a> {
    pub(crate) plan: &'a Plan,
    /// Where it runs: the user's working folder.
    pub(crate) cwd: &'a Path,
    pub(crate) env: &'a BTreeMap<String, String>,
    pub(crate) timeout: Duration,
    pub(crate) head_bytes: usize,
    pub(crate) tail_bytes: usize,
    /// Secrets are replaced in the output before it is capped (docs/design.md#secrets).
    pub(crate) redactor: &'a Redactor,
    /// The sandbox the child enters between fork and exec; `None` runs it unconfined.
    pub(crate) confinement: Option<&'a Arc<Confinement>>,
    /// Who sees stdout and stderr (in that order) as they are read, if anyone.
    pub(crate) live: [Option<Live>; 2],
    /// Bytes written to the child's stdin, which is then closed (a hook reads its event there);
    /// `None`: no stdin at all.
    pub(crate) stdin: Option<&'a [u8]>,
}

/// The outcome of a command.
#[derive(Debug, Clone)]
pub(crate) struct CommandOutput {
    /// Exit status, `None` when killed by a signal.
    pub(crate) exit_code: Option<i32>,
    pub(crate) signal: Option<i32>,
    pub(crate) stdout: Captured,
    pub(crate) stderr: Captured,
    pub(crate) timed_out: bool,
    pub(crate) duration: Duration,
    /// The agent itself knows why the command failed (its program is not executable, or not
    /// there), so no sandbox refusal is guessed from the output.
    pub(crate) cause_known: bool,
}

/// Run `spec.plan`. Errors only when the program cannot be started.
pub(crate) async fn run(spec: &CommandSpec<'_>) -> std::io::Result<CommandOutput> {
    tree::become_subreaper();
    let started = Instant::now();
    let (mut child, tree) = match spawn(spec) {
        Ok(spawned) => spawned,
        Err(e) => return not_started(spec.plan, &e, started).ok_or(e),
    };
    if let (Some(bytes), Some(mut pipe)) = (spec.stdin, child.stdin.take()) {
        // Written beside the wait: a child that never reads its stdin must not hold the run up,
        // and one that exits early only breaks the pipe.
        let bytes = bytes.to_vec();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = pipe.write_all(&bytes).await;
        });
    }
    let (stop, stopped) = watch::channel(false);
    let caps = Caps {
        head: spec.head_bytes,
        tail: spec.tail_bytes,
    };
    let [live_out, live_err] = spec.live.clone();
    let mut streams = [
        Stream::new(
            child
                .stdout
                .take()
                .map(|s| tokio::spawn(capture(s, caps, spec.redactor.clone(), stopped.clone(), live_out))),
        ),
        Stream::new(
            child
                .stderr
                .take()
                .map(|s| tokio::spawn(capture(s, caps, spec.redactor.clone(), stopped, live_err))),
        ),
    ];

    let mut timed_out = false;
    let (status, tree) = match tokio::time::timeout(spec.timeout, child.wait()).await {
        Ok(status) => (status?, Some(tree)),
        Err(_) => {
            timed_out = true;
            tree.signal_all(Signal::TERM);
            match tokio::time::timeout(KILL_GRACE, child.wait()).await {
                Ok(status) => (status?, Some(tree)),
                Err(_) => {
                    let tree = kill_all(tree).await;
                    (child.wait().await?, tree)
                }
            }
        }
    };
    // The command's own process is gone. Background writers get a moment to finish, then
    // everything the command left is ended, and reading stops after a last grace in any case.
    join_captures(&mut streams, DRAIN_GRACE).await;
    if let Some(tree) = tree {
        // If the blocking pool is gone (shutdown), the tree's drop does the same work.
        let _ = tokio::task::spawn_blocking(move || tree.finish()).await;
    }
    join_captures(&mut streams, DRAIN_GRACE).await;
    let _ = stop.send(true);
    join_captures(&mut streams, DRAIN_GRACE).await;
    let [stdout, stderr] = streams.map(Stream::take);

    use std::os::unix::process::ExitStatusExt;
    Ok(CommandOutput {
        exit_code: status.code(),
        signal: status.signal(),
        stdout,
        stderr,
        timed_out,
        duration: started.elapsed(),
        cause_known: false,
    })
}

/// An argv whose program cannot be executed ends the way a shell would report it (126: found but
/// not executable, 127: not found), with the reason on stderr, so the model and the user see the
/// same outcome whether or not a shell was involved. Other start failures stay errors.
fn not_started(plan: &Plan, err: &std::io::Error, started: Instant) -> Option<CommandOutput> {
    let Plan::Argv(argv) = plan else {
        return None;
    };
    let program = argv.program().display().to_string();
    let (code, reason, cause_known) = match err.kind() {
        std::io::ErrorKind::PermissionDenied if crate::support::fs::lacks_exec_bit(argv.program()) => (
            126,
            format!("{program}: Permission denied (it is not executable: `chmod +x` it, or name its interpreter)"),
            true,
        ),
        // Executable by its mode, yet refused: the sandbox may be why, and its hint may say so.
        std::io::ErrorKind::PermissionDenied => (126, format!("{program}: Permission denied"), false),
        std::io::ErrorKind::NotFound => (127, format!("{program}: not found"), true),
        _ => return None,
    };
    let text = format!("{reason}\n");
    Some(CommandOutput {
        exit_code: Some(code),
        signal: None,
        stdout: Captured::default(),
        stderr: Captured {
            total_bytes: text.len() as u64,
            text,
            truncated: false,
            binary: false,
        },
        timed_out: false,
        duration: started.elapsed(),
        cause_known,
    })
}

/// Start the plan's process and register it, so its tree is ended when the returned [`Tree`] is.
fn spawn(spec: &CommandSpec<'_>) -> std::io::Result<(Child, Tree)> {
    let mut roots = tree::spawn_lock();
    let child = match spec.plan {
        Plan::Argv(argv) => match argv_command(argv, spec, &Launch::Direct).spawn() {
            // A script without a `#!` line: what a shell would do, still as an argv.
            Err(e) if e.raw_os_error() == Some(libc::ENOEXEC) => argv_command(argv, spec, &Launch::Shell).spawn()?,
            // A script committed without `+x` (public skills often are): run by the interpreter
            // its `#!` line names, as exec would with the bit set. The argv is already the
            // skill's own script or a grant, so this runs nothing else.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => match interpreter(argv.program()) {
                Some(words) => argv_command(argv, spec, &Launch::Interpreter(words)).spawn()?,
                None => return Err(e),
            },
            other => other?,
        },
        Plan::Shell(shell) => {
            let mut cmd = Command::new("sh");
            cmd.arg("-c").arg(shell.command());
            prepared(cmd, spec).spawn()?
        }
    };
    let pid = child.id().and_then(|id| i32::try_from(id).ok()).unwrap_or(0);
    let tree = Tree::register(pid, &mut roots);
    Ok((child, tree))
}

/// How an argv's program is started.
enum Launch {
    /// Executed itself, `argv[0]` as written.
    Direct,
    /// `sh program args…`: a script without a `#!` line.
    Shell,
    /// The `#!` line's interpreter (and its one argument) with the program as its script.
    Interpreter(Vec<String>),
}

/// The argv as a command, started as `how` says.
fn argv_command(argv: &Argv, spec: &CommandSpec<'_>, how: &Launch) -> Command {
    let (first, rest) = argv
        .words()
        .split_first()
        .map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
    let mut cmd = match how {
        Launch::Direct => {
            let mut cmd = Command::new(argv.program());
            cmd.arg0(first);
            cmd
        }
        Launch::Shell => {
            let mut cmd = Command::new("sh");
            cmd.arg(argv.program());
            cmd
        }
        Launch::Interpreter(words) => {
            let mut cmd = Command::new(words.first().map_or("sh", String::as_str));
            cmd.args(words.iter().skip(1)).arg(argv.program());
            cmd
        }
    };
    cmd.args(rest);
    prepared(cmd, spec)
}

/// The interpreter a script without its execute bit names on its `#!` line, as the kernel reads
/// it: the path, then the rest of the line as one argument (`#!/usr/bin/env python3`).
fn interpreter(program: &std::path::Path) -> Option<Vec<String>> {
    use std::io::Read;
    if !crate::support::fs::lacks_exec_bit(program) {
        return None;
    }
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).and_then(|mut f| f.read(&mut head)).ok()?;
    let line = head[..n].strip_prefix(b"#!")?.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim();
    let (path, arg) = line.split_once([' ', '\t']).unwrap_or((line, ""));
    if path.is_empty() {
        return None;
    }
    let arg = arg.trim();
    Some(
        std::iter::once(path)
            .chain((!arg.is_empty()).then_some(arg))
            .map(str::to_string)
            .collect(),
    )
}

/// Where and with what a command runs: the folder it is given (the user's working folder), the
/// child environment, no stdin (unless it is given bytes), piped output, its own process group
/// (so a terminal's Ctrl-C reaches the agent, which ends it), and the sandbox, entered by the
/// child before exec.
fn prepared(mut cmd: Command, spec: &CommandSpec<'_>) -> Command {
    cmd.current_dir(spec.cwd)
        .env_clear()
        .envs(spec.env)
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(confinement) = spec.confinement {
        // SAFETY: the hook makes only async-signal-safe system calls, as code between fork and
        // exec in a multi-threaded process must (see `Confinement::hook`).
        unsafe {
            cmd.pre_exec(confinement.hook());
        }
    }
    cmd
}

/// End every process of the command, off the async threads (it reads `/proc` and sleeps briefly);
/// the tree comes back for the final sweep unless the blocking task was lost.
async fn kill_all(tree: Tree) -> Option<Tree> {
    tokio::task::spawn_blocking(move || {
        tree.kill_all();
        tree
    })
    .await
    .ok()
}

/// One output stream being captured, and its result once the capture ended.
struct Stream {
    task: Option<JoinHandle<Captured>>,
    done: Option<Captured>,
}

impl Stream {
    fn new(task: Option<JoinHandle<Captured>>) -> Self {
        Self { task, done: None }
    }

    fn take(self) -> Captured {
        self.done.unwrap_or_default()
    }
}

/// Wait up to `grace` for the captures still running to end.
async fn join_captures(streams: &mut [Stream], grace: Duration) {
    let deadline = tokio::time::Instant::now() + grace;
    for stream in streams.iter_mut() {
        if let Some(task) = stream.task.as_mut()
            && let Ok(joined) = tokio::time::timeout_at(deadline, task).await
        {
            stream.done = Some(joined.unwrap_or_default());
            stream.task = None;
        }
    }
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
