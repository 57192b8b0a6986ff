//! The chat in a pseudo-terminal (rexpect): the real binary with a clean environment, and the
//! few steps every pty test takes (type a line, leave with Ctrl-D, wait off the async threads).

use std::process::Command;

use rexpect::process::WaitStatus;
use rexpect::session::{PtySession, spawn_command};

use super::{MockLlm, Workspace};

/// The real binary for a pty: a clean environment and HOME, 100 columns, no colour, skills from
/// the workspace, run in its work folder, with Ctrl-C and Ctrl-\ acting as they do on a person's
/// terminal (a suite started in the background by a script inherits them ignored, and the
/// tests that press Ctrl-C would wait for nothing).
pub fn pty_agent(ws: &Workspace) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent"));
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
            Ok(())
        });
    }
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", ws.home())
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env("AGENT_TOOL_CHECK", "0")
        .arg("--skills-dir")
        .arg(ws.skills())
        .current_dir(ws.work());
    cmd
}

/// The chat in a pty, talking to `mock`.
pub fn chat(ws: &Workspace, mock: &MockLlm, extra: &[&str]) -> PtySession {
    chat_with_env(ws, mock, &[], extra)
}

/// [`chat`] with more environment variables set.
pub fn chat_with_env(ws: &Workspace, mock: &MockLlm, env: &[(&str, &str)], extra: &[&str]) -> PtySession {
    let mut cmd = pty_agent(ws);
    cmd.env("AGENT_RETRIES", "0")
        .env("AGENT_BASE_URL", mock.base_url())
        .env("AGENT_API_KEY", "sk-test-key-0123456789")
        .env("AGENT_MODEL", "gpt-4.1-mini")
        .envs(env.iter().copied())
        .args(extra);
    let mut p = spawn_command(cmd, Some(10_000)).unwrap();
    p.exp_string("/help for commands").unwrap();
    p
}

/// `text` as rexpect reports terminal output: one char per byte (non-ASCII arrives as Latin-1).
pub fn pty_text(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

/// Terminal output as rexpect reports it, decoded back to UTF-8.
pub fn from_pty(out: &str) -> String {
    String::from_utf8_lossy(&out.chars().map(|c| c as u32 as u8).collect::<Vec<u8>>()).into_owned()
}

pub fn type_line(p: &mut PtySession, line: &str) {
    p.send(line).unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
}

/// Ctrl-D at the prompt ends the chat with exit 0. A Ctrl-D sent in the instant the line editor
/// switches the terminal back to raw mode can be dropped with the terminal's pending input (as a
/// key pressed then would be), so it is sent again, at most three times, until the chat ends.
pub fn ctrl_d_exits_zero(mut p: PtySession) {
    let mut ended = false;
    for _ in 0..3 {
        p.send_control('d').unwrap();
        if p.exp_eof().is_ok() {
            ended = true;
            break;
        }
    }
    assert!(ended, "the chat did not end on Ctrl-D");
    assert!(matches!(p.process().wait().unwrap(), WaitStatus::Exited(_, 0)));
}

/// Run the pty part on a blocking thread while the mock keeps serving.
pub async fn blocking<F: FnOnce() + Send + 'static>(f: F) {
    tokio::task::spawn_blocking(f).await.unwrap()
}
