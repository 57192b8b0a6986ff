//! The chat in a pseudo-terminal (rexpect): the real binary in the clean environment, and the
//! few steps every pty test takes (type a line, leave with Ctrl-D, wait off the async threads).

use std::process::Command;

use rexpect::process::WaitStatus;
use rexpect::session::{PtySession, spawn_command};

use super::{MockLlm, TEST_MODEL, Workspace};

/// The real binary for a pty in the clean environment ([`Workspace::agent_command`]), with
/// `TERM` set and Ctrl-C and Ctrl-\ acting as they do on a person's terminal (a suite started in
/// the background by a script inherits them ignored, and the tests that press Ctrl-C would wait
/// for nothing). Every pty test starts from this.
pub fn pty_command(ws: &Workspace) -> Command {
    let mut cmd = ws.agent_command();
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
            Ok(())
        });
    }
    cmd.env("TERM", "xterm-256color");
    cmd
}

/// [`pty_command`] 100 columns wide, without colour, with skills from the workspace.
pub fn pty_agent(ws: &Workspace) -> Command {
    let mut cmd = pty_command(ws);
    cmd.env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .arg("--skills-dir")
        .arg(ws.skills());
    cmd
}

/// Points `cmd` at `mock`: its URL, the test key and the test model.
pub fn talking_to<'a>(cmd: &'a mut Command, mock: &MockLlm) -> &'a mut Command {
    cmd.envs(mock.env()).env("AGENT_MODEL", TEST_MODEL)
}

/// The chat in a pty, talking to `mock`.
pub fn chat(ws: &Workspace, mock: &MockLlm, extra: &[&str]) -> PtySession {
    chat_with_env(ws, mock, &[], extra)
}

/// [`chat`] with more environment variables set.
pub fn chat_with_env(ws: &Workspace, mock: &MockLlm, env: &[(&str, &str)], extra: &[&str]) -> PtySession {
    let mut cmd = pty_agent(ws);
    talking_to(&mut cmd, mock).envs(env.iter().copied()).args(extra);
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

/// Types `line` and Enter: the one way a test types at a prompt.
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

/// Waits until the chat shows it is waiting for the model and `mock` has the turn's request
/// (its `n`th chat request): from then on Ctrl-C interrupts the turn, rather than reaching the
/// agent before it listens for it.
pub fn thinking_about(p: &mut PtySession, mock: &MockLlm, n: usize) {
    p.exp_string("thinking").unwrap();
    let handle = tokio::runtime::Handle::current();
    super::wait_until("the turn's request", || {
        handle.block_on(mock.chat_requests()).len() >= n
    });
}
