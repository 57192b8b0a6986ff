//! Running one shell command as its own process group: timeout, bounded capture, clean kill.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use super::redact::Redactor;

/// Bytes of each stream kept from the start and from the end; the middle is cut.
pub const DEFAULT_HEAD_BYTES: usize = 8 * 1024;
pub const DEFAULT_TAIL_BYTES: usize = 8 * 1024;
/// How long a process group gets between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(2);
/// How long output pipes may stay open after the command exits (background children holding them).
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// What to run and how.
#[derive(Debug, Clone)]
pub struct CommandSpec<'a> {
    pub command: &'a str,
    pub cwd: &'a Path,
    pub env: &'a BTreeMap<String, String>,
    pub timeout: Duration,
    pub head_bytes: usize,
    pub tail_bytes: usize,
    /// Secrets are replaced in the output before it is capped (SPEC §6).
    pub redactor: &'a Redactor,
}

/// One output stream, bounded: head and tail kept, the middle counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// Head, a cut marker when bytes were dropped, and tail; invalid UTF-8 replaced.
    pub text: String,
    /// Bytes the command wrote in total.
    pub total_bytes: u64,
    pub truncated: bool,
    /// The output was not valid UTF-8.
    pub binary: bool,
}

/// The outcome of a command.
#[derive(Debug, Clone)]
pub struct CommandOutput {
    /// Exit status, `None` when killed by a signal.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: Captured,
    pub stderr: Captured,
    pub timed_out: bool,
    pub duration: Duration,
}

/// Kills the whole process group when dropped while armed (Ctrl-C drops the running turn).
struct GroupGuard {
    pgid: Option<i32>,
}

impl GroupGuard {
    fn signal(&self, sig: i32) {
        if let Some(pgid) = self.pgid {
            // SAFETY: killpg only sends a signal; an empty or foreign group yields ESRCH/EPERM, ignored.
            unsafe {
                libc::killpg(pgid, sig);
            }
        }
    }
}

/// How long an interrupted command's group gets between SIGTERM and SIGKILL.
const INTERRUPT_GRACE: Duration = Duration::from_millis(500);

impl GroupGuard {
    fn group_alive(&self) -> bool {
        // SAFETY: signal 0 only checks that the group exists and may be signalled.
        self.pgid.is_some_and(|pgid| unsafe { libc::killpg(pgid, 0) } == 0)
    }
}

impl Drop for GroupGuard {
    /// Reached with the group still running only when the turn is dropped (Ctrl-C, agent exit):
    /// TERM, a short grace, then KILL. Blocking here is deliberate: nothing may outlive us.
    fn drop(&mut self) {
        if !self.group_alive() {
            return;
        }
        self.signal(libc::SIGTERM);
        let deadline = Instant::now() + INTERRUPT_GRACE;
        while self.group_alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.signal(libc::SIGKILL);
    }
}

/// Run `sh -c COMMAND` per `spec`. Errors only when the shell cannot be started.
pub async fn run(spec: &CommandSpec<'_>) -> std::io::Result<CommandOutput> {
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(spec.command)
        .current_dir(spec.cwd)
        .env_clear()
        .envs(spec.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let guard = GroupGuard {
        pgid: child.id().and_then(|id| i32::try_from(id).ok()),
    };
    let caps = Caps {
        head: spec.head_bytes,
        tail: spec.tail_bytes,
    };
    let stdout = child
        .stdout
        .take()
        .map(|s| tokio::spawn(capture(s, caps, spec.redactor.clone())));
    let stderr = child
        .stderr
        .take()
        .map(|s| tokio::spawn(capture(s, caps, spec.redactor.clone())));

    let mut timed_out = false;
    let status = match tokio::time::timeout(spec.timeout, child.wait()).await {
        Ok(status) => status?,
        Err(_) => {
            timed_out = true;
            guard.signal(libc::SIGTERM);
            match tokio::time::timeout(KILL_GRACE, child.wait()).await {
                Ok(status) => status?,
                Err(_) => {
                    guard.signal(libc::SIGKILL);
                    child.wait().await?
                }
            }
        }
    };
    // Background children may still hold the pipes; give them a moment, then end the group.
    let stdout = finish(stdout, &guard).await;
    let stderr = finish(stderr, &guard).await;
    // The command is over; whatever it left in the background goes with it.
    guard.signal(libc::SIGKILL);
    let mut guard = guard;
    guard.pgid = None;

    use std::os::unix::process::ExitStatusExt;
    Ok(CommandOutput {
        exit_code: status.code(),
        signal: status.signal(),
        stdout,
        stderr,
        timed_out,
        duration: started.elapsed(),
    })
}

async fn finish(task: Option<tokio::task::JoinHandle<Captured>>, guard: &GroupGuard) -> Captured {
    let Some(mut task) = task else {
        return Captured::default();
    };
    match tokio::time::timeout(DRAIN_GRACE, &mut task).await {
        Ok(joined) => joined.unwrap_or_default(),
        Err(_) => {
            guard.signal(libc::SIGKILL);
            task.await.unwrap_or_default()
        }
    }
}

/// Bytes of a stream shown from its start and from its end.
#[derive(Debug, Clone, Copy)]
struct Caps {
    head: usize,
    tail: usize,
}

/// Read a stream to its end keeping at most `head + tail` bytes plus, on each side, the length of
/// the longest secret form (so a secret straddling a cut is seen whole), so memory stays flat.
async fn capture(mut reader: impl AsyncRead + Unpin, caps: Caps, redactor: Redactor) -> Captured {
    let slack = redactor.longest();
    let (head_cap, tail_cap) = (caps.head + slack, if caps.tail > 0 { caps.tail + slack } else { 0 });
    let mut head = Vec::with_capacity(head_cap.min(64 * 1024));
    let mut tail: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut total: u64 = 0;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        total += n as u64;
        let mut chunk = &buf[..n];
        if head.len() < head_cap {
            let take = (head_cap - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if tail_cap > 0 && !chunk.is_empty() {
            if chunk.len() >= tail_cap {
                tail.clear();
                tail.extend(&chunk[chunk.len() - tail_cap..]);
            } else {
                let overflow = (tail.len() + chunk.len()).saturating_sub(tail_cap);
                tail.drain(..overflow);
                tail.extend(chunk);
            }
        }
    }
    assemble(&head, &Vec::from(tail), total, caps, &redactor)
}

/// Head and tail as the model sees them: secrets redacted first, then cut to the caps (a cut never
/// halves a secret nor its marker), with a marker for the bytes left out.
fn assemble(head: &[u8], tail: &[u8], total: u64, caps: Caps, redactor: &Redactor) -> Captured {
    let contiguous = total == (head.len() + tail.len()) as u64;
    let truncated = total > (caps.head + caps.tail) as u64;
    let binary = head.contains(&0) || tail.contains(&0) || !utf8_ok(head, true) || !utf8_ok(tail, contiguous);
    let (head_text, tail_text) = if contiguous {
        let whole = String::from_utf8_lossy(&[head, tail].concat()).into_owned();
        if !truncated {
            return Captured {
                text: redactor.redact(&whole).into_owned(),
                total_bytes: total,
                truncated,
                binary,
            };
        }
        (whole.clone(), whole)
    } else {
        (
            String::from_utf8_lossy(head).into_owned(),
            String::from_utf8_lossy(tail).into_owned(),
        )
    };
    let shown_head = redactor.redact_and_cut(&head_text, caps.head, false);
    let shown_tail = if caps.tail > 0 {
        redactor.redact_and_cut(&tail_text, caps.tail, true)
    } else {
        String::new()
    };
    let (kept_head, kept_tail) = (caps.head.min(head.len()), caps.tail.min(tail.len()));
    let cut = total.saturating_sub((caps.head + caps.tail) as u64);
    Captured {
        text: format!("{shown_head}\n[… {cut} bytes cut; first {kept_head} and last {kept_tail} kept …]\n{shown_tail}"),
        total_bytes: total,
        truncated,
        binary,
    }
}

/// Valid UTF-8, tolerating a character split at the cut edges.
fn utf8_ok(bytes: &[u8], starts_clean: bool) -> bool {
    let start = if starts_clean {
        0
    } else {
        bytes.iter().take(3).take_while(|b| (*b & 0xC0) == 0x80).count()
    };
    match std::str::from_utf8(&bytes[start..]) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(command: &'a str, env: &'a BTreeMap<String, String>, timeout: Duration) -> CommandSpec<'a> {
        CommandSpec {
            command,
            cwd: Path::new("/"),
            env,
            timeout,
            head_bytes: 100,
            tail_bytes: 100,
            redactor: &Redactor::NONE,
        }
    }

    #[tokio::test]
    async fn captures_exit_code_and_streams() {
        let env = BTreeMap::from([("PATH".to_string(), std::env::var("PATH").unwrap())]);
        let out = run(&spec("echo out; echo err >&2; exit 3", &env, Duration::from_secs(10)))
            .await
            .unwrap();
        assert_eq!(out.exit_code, Some(3));
        assert_eq!(out.stdout.text, "out\n");
        assert_eq!(out.stderr.text, "err\n");
        assert!(!out.timed_out);
    }

    #[tokio::test]
    async fn caps_output_keeping_head_and_tail() {
        let env = BTreeMap::from([("PATH".to_string(), std::env::var("PATH").unwrap())]);
        let out = run(&spec(
            "printf 'A%.0s' $(seq 1 500); seq 1 1000 | tr -d '\\n' >/dev/null; printf 'Z%.0s' $(seq 1 500)",
            &env,
            Duration::from_secs(10),
        ))
        .await
        .unwrap();
        assert_eq!(out.stdout.total_bytes, 1000);
        assert!(out.stdout.truncated);
        assert!(out.stdout.text.starts_with(&"A".repeat(100)));
        assert!(out.stdout.text.ends_with(&"Z".repeat(100)));
        assert!(out.stdout.text.contains("800 bytes cut"));
    }

    #[tokio::test]
    async fn timeout_kills_the_group() {
        let env = BTreeMap::from([("PATH".to_string(), std::env::var("PATH").unwrap())]);
        let out = run(&spec(
            "sleep 30 & sleep 30; echo never",
            &env,
            Duration::from_millis(300),
        ))
        .await
        .unwrap();
        assert!(out.timed_out);
        assert!(out.duration < Duration::from_secs(10));
        assert!(!out.stdout.text.contains("never"));
    }

    #[tokio::test]
    async fn stdin_is_empty() {
        let env = BTreeMap::from([("PATH".to_string(), std::env::var("PATH").unwrap())]);
        let out = run(&spec("cat; echo done", &env, Duration::from_secs(10)))
            .await
            .unwrap();
        assert_eq!(out.stdout.text, "done\n");
    }

    #[test]
    fn a_secret_straddling_a_cut_is_redacted_whole() {
        let vars = BTreeMap::from([("GITHUB_TOKEN".to_string(), "ghp_0123456789abcdef".to_string())]);
        let redactor = Redactor::from_env(&vars);
        let caps = Caps { head: 10, tail: 10 };
        // The secret starts 4 bytes before the head cap and, at the end, 4 bytes before the tail cap.
        let text = format!(
            "{}ghp_0123456789abcdef{}ghp_0123456789abcdef{}",
            "a".repeat(6),
            "m".repeat(100),
            "z".repeat(6)
        );
        let slack = redactor.longest();
        let (head, tail) = (
            &text.as_bytes()[..10 + slack],
            &text.as_bytes()[text.len() - 10 - slack..],
        );
        let out = assemble(head, tail, text.len() as u64, caps, &redactor);
        assert!(out.truncated);
        assert!(!out.text.contains("ghp_"), "{}", out.text);
        assert!(
            out.text.starts_with("aaaaaa[REDACTED:GITHUB_TOKEN]\n[…"),
            "{}",
            out.text
        );
        assert!(out.text.ends_with("…]\n[REDACTED:GITHUB_TOKEN]zzzzzz"), "{}", out.text);
    }

    #[tokio::test]
    async fn binary_output_is_flagged() {
        let env = BTreeMap::from([("PATH".to_string(), std::env::var("PATH").unwrap())]);
        let out = run(&spec("printf 'a\\377\\376b'", &env, Duration::from_secs(10)))
            .await
            .unwrap();
        assert!(out.stdout.binary);
    }
}
