//! File tools in the working folder (docs/running-skills.md "File tools"), named and shaped as
//! skills written for Claude Code expect: `Read` (with offset and limit; a binary file is
//! described, not dumped), `Write`, `Edit` (one exact string, or all of them), `Glob`, `Grep`.
//! Skills say "read the output", "write this XML into the document", "create input.json": without
//! these, every such step was a shell command (`cat`, a heredoc) that `auto` denies.
//!
//! Reads reach the working folder and the active skill's folder; writes only the working folder,
//! never a place other tools run on their own or the sandbox protects ([`place`]). Writes go
//! through the approval policy: `auto` writes where an enforced sandbox would let a command write
//! (the working folder), or with an `allowed-tools` grant of `Write`/`Edit`; `ask` asks; `no`
//! writes nothing; and a skill whose commands may not run (untrusted, changed) writes nothing.

mod edit;
pub(crate) mod place;
mod read;
mod search;

use crate::agent::outcome::Refusal;
use std::path::Path;

use super::ToolRunner;
use crate::agent::outcome::ToolOutcome;
use crate::exec::approval::ApprovalPolicy;
use crate::exec::grant::grants_file_tool;
use crate::exec::sandbox::policy::Enforcement;
use crate::output::Event;
use crate::support::terminal_text::visible;
use place::{Places, Resolved, WriteRefused};

/// The names the model calls them by (Claude Code's, which `allowed-tools` and hooks use).
pub(crate) const FILE_TOOLS: [&str; 5] = ["Read", "Write", "Edit", "Glob", "Grep"];

/// Whether `name` is a file tool.
pub(crate) fn is_file_tool(name: &str) -> bool {
    FILE_TOOLS.contains(&name)
}

impl ToolRunner {
    /// The folders the file tools work in, for the `current` skill.
    fn places<'a>(&'a self, current: Option<&str>) -> Places<'a> {
        Places {
            workdir: &self.settings.workdir,
            skill_dir: current.and_then(|n| self.skills.get(n)).map(|s| s.dir.as_path()),
        }
    }

    /// The text of `path` as an editor holds it (`agent acp` with a client that reads files: its
    /// unsaved buffers), for a file inside the working folder only; `None`: read the disk.
    async fn open_buffer(&self, current: Option<&str>, path: &str) -> Option<String> {
        if !self.approver.reads_buffers() {
            return None;
        }
        let real = self.places(current).for_reading(path).ok()?.real;
        let workdir = std::fs::canonicalize(&self.settings.workdir).ok()?;
        if !real.starts_with(&workdir) || !real.is_file() {
            return None;
        }
        let approver = self.approver.clone();
        tokio::task::spawn_blocking(move || approver.read_buffer(&real))
            .await
            .ok()
            .flatten()
    }

    /// Carry out the file tool `name` with `raw_args` for the `current` skill.
    pub(super) async fn call_file_tool(&self, current: Option<&str>, name: &str, raw_args: &str) -> ToolOutcome {
        let args = match parse(raw_args) {
            Ok(args) => args,
            Err(e) => return ToolOutcome::refused(format!("the arguments of {name} are not a JSON object ({e})")),
        };
        let text = |key: &str| args.get(key).and_then(serde_json::Value::as_str);
        let number = |key: &str| args.get(key).and_then(serde_json::Value::as_u64);
        let need = |what: &str| ToolOutcome::refused(format!("{name} needs {what}"));
        match name {
            "Read" => match text("file_path").or(text("path")) {
                Some(path) => {
                    let buffer = self.open_buffer(current, path).await;
                    self.read_file(current, path, number("offset"), number("limit"), buffer)
                }
                None => need(r#"{"file_path": "<path>", "offset": <line>, "limit": <lines>}"#),
            },
            "Write" => match (text("file_path").or(text("path")), text("content")) {
                (Some(path), Some(content)) => self.write_file(current, path, content).await,
                _ => need(r#"{"file_path": "<path>", "content": "<text>"}"#),
            },
            "Edit" => match (
                text("file_path").or(text("path")),
                text("old_string"),
                text("new_string"),
            ) {
                (Some(path), Some(old), Some(new)) => {
                    let all = args.get("replace_all").and_then(serde_json::Value::as_bool) == Some(true);
                    self.edit_file(current, path, old, new, all).await
                }
                _ => need(r#"{"file_path": "<path>", "old_string": "<exact text>", "new_string": "<text>"}"#),
            },
            "Glob" => match text("pattern") {
                Some(pattern) => self.glob(current, pattern, text("path")),
                None => need(r#"{"pattern": "**/*.csv", "path": "<folder>"}"#),
            },
            "Grep" => match text("pattern") {
                Some(pattern) => {
                    let options = search::GrepOptions {
                        path: text("path"),
                        glob: text("glob"),
                        ignore_case: args.get("-i").and_then(serde_json::Value::as_bool) == Some(true),
                        mode: text("output_mode"),
                        head_limit: number("head_limit").and_then(|n| usize::try_from(n).ok()),
                    };
                    self.grep(current, pattern, &options)
                }
                None => need(r#"{"pattern": "<regex>", "path": "<folder>", "glob": "*.py"}"#),
            },
            other => ToolOutcome::refused(format!("there is no file tool named {other:?}")),
        }
    }

    /// `path` as a place `tool` may write, else the outcome that says why not: a path elsewhere is
    /// an error the model corrects; one inside a place that runs later or that the sandbox
    /// protects (the sandbox's own list, a project's skill folder aside) is a denial the user sees
    /// too, under every policy.
    fn writable(&self, current: Option<&str>, tool: &str, path: &str) -> Result<Resolved, ToolOutcome> {
        let kept = match self.places(current).for_writing(path) {
            Ok(target) => match self.settings.sandbox.protected.conflict_for_file(&target.real) {
                None => return Ok(target),
                Some(conflict) => format!(
                    "{} is a protected place ({conflict}): file tools never write there",
                    target.shown
                ),
            },
            Err(WriteRefused::Elsewhere(why)) => return Err(ToolOutcome::refused(why)),
            Err(WriteRefused::Kept(why)) => why,
        };
        self.emit(Event::CommandDenied {
            skill: current.map(str::to_string),
            command: format!("{tool} {path}"),
            reason: kept.clone(),
        });
        Err(ToolOutcome::denied(kept))
    }

    /// Whether `tool` may write `target` now, else why not (the model reads the reason; the user
    /// sees a `command_denied` line naming what would allow it).
    async fn approve_write(
        &self,
        current: Option<&str>,
        tool: &str,
        target: &Resolved,
        summary: &str,
    ) -> Result<(), Refusal> {
        let denied = |reason: String| {
            self.emit(Event::CommandDenied {
                skill: current.map(str::to_string),
                command: format!("{tool} {}", target.shown),
                reason: reason.clone(),
            });
            Err(reason)
        };
        let policy = self.settings.approve;
        if policy == ApprovalPolicy::No {
            return denied("denied by policy: --approve no writes nothing".into());
        }
        let skill = current.and_then(|n| self.skills.get(n)).cloned();
        if let Some(skill) = &skill
            && let Some(refusal) = self.untrusted(skill).await
        {
            return denied(refusal);
        }
        let granted = skill
            .as_ref()
            .is_some_and(|s| grants_file_tool(&s.allowed_tools, tool, &target.shown));
        let walls = self.sandbox_contains_writes();
        // As for commands: a grant or the walls let a write go without asking under `auto` only.
        if policy == ApprovalPolicy::Yes || (policy == ApprovalPolicy::Auto && (granted || walls)) {
            return Ok(());
        }
        if !self.approver.can_answer() {
            let off = self.settings.sandbox.mode == crate::exec::sandbox::Mode::Off;
            let way = match (policy, walls) {
                (ApprovalPolicy::Auto, _) if off => format!(
                    "--approve auto lets file tools write only inside the sandbox, which --sandbox off turns off; \
                     rerun without --sandbox off, or grant `{tool}` in the skill's allowed-tools"
                ),
                (ApprovalPolicy::Auto, _) => format!(
                    "--approve auto lets file tools write only inside the kernel sandbox, which this machine lacks; \
                     run on a terminal to be asked, grant `{tool}` in the skill's allowed-tools, or rerun with --yes \
                     (which allows every command too)"
                ),
                (_, true) => "rerun with --approve auto: the sandbox is enforced here, so file tools then write \
                              in the working folder"
                    .to_string(),
                _ => "run on a terminal to be asked, or rerun with --yes (which allows every command too)".to_string(),
            };
            return denied(format!("needs approval but there is no terminal to ask on; {way}"));
        }
        // "Always" holds for this tool for the rest of the session, as for an MCP tool.
        let question = format!("{tool} {} ({})", visible(&target.shown), visible(summary));
        let approver = self.approver.clone();
        let key = format!("file tool {tool}");
        let yes = tokio::task::spawn_blocking(move || approver.ask_tool(&key, &question))
            .await
            .unwrap_or(false);
        if yes {
            Ok(())
        } else {
            denied("denied by the user".into())
        }
    }

    /// Whether the kernel sandbox is enforced for commands this run, so a write to the working
    /// folder is what a confined command could do anyway.
    fn sandbox_contains_writes(&self) -> bool {
        let workdir = &self.settings.workdir;
        matches!(
            self.settings.sandbox.policy(workdir, &[], false).enforcement(),
            Enforcement::Confined
        )
    }

    /// Tell the user what a file tool did.
    fn file_event(&self, tool: &str, path: &str, bytes: u64) {
        self.emit(Event::FileTool {
            tool: tool.to_string(),
            path: path.to_string(),
            bytes,
        });
    }
}

/// The JSON object of a call's arguments (an empty text is an empty object).
fn parse(raw: &str) -> Result<serde_json::Map<String, serde_json::Value>, Refusal> {
    if raw.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err("not an object".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether the first bytes of a file say it is binary (a NUL byte).
fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|b| *b == 0)
}

/// Write `content` to `path` atomically (a temporary file beside it, then a rename), creating
/// its folders; an existing file keeps its permissions.
fn write_atomically(path: &Path, content: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(content)?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.persist(path).map(|_| ()).map_err(|e| e.error)
}
