//! Starting the real binary: the one clean environment every run a test makes begins from, the
//! usual ways of running it, and finding the processes a run left.

use std::ffi::OsStr;
use std::process::Command as StdCommand;

use assert_cmd::Command;

use super::{MockLlm, Workspace};

/// The API key every run against a mock uses (tests look for it, redacted, in what is stored).
pub const TEST_KEY: &str = "sk-test-key-0123456789";

/// The model every run names: a named model skips asking the mock's `/v1/models`.
pub const TEST_MODEL: &str = "gpt-4.1-mini";

impl Workspace {
    /// `program` (the agent, or a wrapper that starts it) in the one clean environment: nothing
    /// of the test's own environment but PATH, HOME the workspace's, run in its work folder, no
    /// retries, no port probed for a local server (tests never reach a real one on this
    /// machine), and no question about tools (the mocks see only the requests tests count).
    pub fn clean_command(&self, program: impl AsRef<OsStr>) -> StdCommand {
        let mut cmd = StdCommand::new(program);
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("AGENT_RETRIES", "0")
            .env("AGENT_PROBE_PORTS", "")
            .env("AGENT_TOOL_CHECK", "0")
            .current_dir(self.work());
        cmd
    }

    /// The real binary in the clean environment, for a pty or a child the test drives itself.
    pub fn agent_command(&self) -> StdCommand {
        self.clean_command(env!("CARGO_BIN_EXE_agent"))
    }

    /// The real binary, clean, with the test model named and the skills shipped in the binary
    /// kept out of every catalog a test did not ask for (tests/suite/real_skills.rs turns them
    /// on), stopped after 60 s.
    pub fn bare_agent(&self) -> Command {
        quiet(self.agent_command())
    }

    /// The real binary with a clean environment pointed at `mock`, skills from this workspace.
    pub fn agent(&self, mock: &MockLlm) -> Command {
        let mut cmd = self.bare_agent();
        cmd.envs(mock.env()).arg("--skills-dir").arg(self.skills());
        cmd
    }
}

/// `cmd` (a clean command) as [`Workspace::bare_agent`] runs it: the test model named, the
/// bundled skills off, stopped after 60 s.
pub fn quiet(mut cmd: StdCommand) -> Command {
    cmd.env("AGENT_MODEL", TEST_MODEL).env("AGENT_BUNDLED_SKILLS", "0");
    let mut cmd = Command::from_std(cmd);
    cmd.timeout(std::time::Duration::from_secs(60));
    cmd
}

impl MockLlm {
    /// The variables that point a run at this mock: its URL and the test key.
    pub fn env(&self) -> [(&'static str, String); 2] {
        [
            ("AGENT_BASE_URL", self.base_url()),
            ("AGENT_API_KEY", TEST_KEY.to_string()),
        ]
    }
}

/// Run the binary on a blocking thread (the mock keeps serving) and return its output.
pub async fn run_output(mut cmd: Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// Run the binary and return (exit code, stdout, stderr).
pub async fn run_outcome(cmd: Command) -> (i32, String, String) {
    let out = run_output(cmd).await;
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Digits unique to this test process and `tag`: used as `sleep`'s fraction (`sleep 1005.DIGITS`)
/// they mark a test's processes, which [`processes_with`] then finds in `/proc`.
pub fn marker(tag: u32) -> String {
    format!("{tag}{:09}", std::process::id())
}

/// Command lines of the running processes whose arguments contain `marker`.
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        if let Ok(raw) = std::fs::read(entry.path().join("cmdline")) {
            let line = String::from_utf8_lossy(&raw).replace('\0', " ");
            if line.contains(marker) {
                found.push(line);
            }
        }
    }
    found
}

/// Waits until `ready` holds, checking every 50 ms; fails the test after 30 s with `what`.
/// For a state the screen does not show (a process started or gone), never a fixed sleep.
pub fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !ready() {
        assert!(std::time::Instant::now() < deadline, "waited 30 s for {what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A mock that answers as llama.cpp does about itself: `/props` (tools supported, `n_ctx`) and
/// `/v1/models` (`meta.n_params`).
pub async fn as_llama_cpp(mock: &MockLlm, params: u64) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    Mock::given(method("GET"))
        .and(path("/props"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "chat_template_caps": {"supports_tools": true},
            "default_generation_settings": {"n_ctx": 32768}
        })))
        .mount(&mock.server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "object": "list",
            "data": [{"id": "qwen.gguf", "object": "model", "owned_by": "llamacpp",
                      "meta": {"n_params": params, "n_ctx_train": 32768}}]
        })))
        .mount(&mock.server)
        .await;
}
