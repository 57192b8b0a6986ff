//! The model's three tools (SPEC §4). Every failure becomes a tool result the model can act on.

use std::path::{Component, Path};

use serde_json::Value;

use crate::exec::approval::{self, ApprovalPolicy, Plan, SkillScope, Verdict};
use crate::exec::env::child_env;
use crate::exec::process::{self, CommandOutput, CommandSpec, DEFAULT_HEAD_BYTES, DEFAULT_TAIL_BYTES};
use crate::skills::Skill;
use crate::skills::catalog::model_line;
use crate::skills::discover::RootKind;
use crate::support::fs::read_regular;

use super::turn::Agent;
use crate::output::{ApprovalRequest, Event};

/// Most bytes `read_skill_file` returns.
const MAX_READ_BYTES: u64 = 64 * 1024;
/// Most files listed on activation.
const MAX_LISTED_FILES: usize = 100;
/// Lines of stderr a `command_finished` event carries, and the most characters of each.
const STDERR_TAIL_LINES: usize = 5;
const STDERR_TAIL_CHARS: usize = 300;

impl Agent {
    /// Run one tool call and return the text the model gets back.
    pub(super) async fn dispatch(&mut self, name: &str, raw_args: &str) -> String {
        match decode_call(name, raw_args) {
            Ok(ToolRequest::Activate { name }) => self.activate_off_thread(&name).await,
            Ok(ToolRequest::Run { command }) => self.run_command(&command).await,
            Ok(ToolRequest::Read { skill, path }) => self.read_skill_file(&skill, &path).await,
            Ok(ToolRequest::Search { query }) => self.search_skills(&query),
            Err(message) => message,
        }
    }

    fn unknown_skill(&self, name: &str) -> String {
        let similar: Vec<&str> = self
            .skills
            .search(&name.replace(['-', '_'], " "), 5)
            .iter()
            .map(|(s, _)| s.name.as_str())
            .collect();
        let names = if similar.is_empty() {
            self.skills.names()
        } else {
            similar
        };
        let shown = names
            .iter()
            .take(50)
            .map(|n| model_line(n))
            .collect::<Vec<_>>()
            .join(", ");
        format!("error: there is no skill named {name:?}; known skills include: {shown}")
    }

    fn search_skills(&self, query: &str) -> String {
        let hits = self.skills.search(query, 10);
        if hits.is_empty() {
            return format!("no skill matches {query:?}; try other keywords");
        }
        hits.iter()
            .map(|(s, _)| {
                let desc: String = model_line(&s.description).chars().take(300).collect();
                format!("- {}: {desc}\n", model_line(&s.name))
            })
            .collect()
    }

    /// Activate by hand (before a request, `/NAME`): reads the skill's files on this thread.
    pub(super) fn activate(&mut self, name: &str) -> String {
        let files = self.not_yet_active(name).map(|skill| SkillFiles::read(&skill));
        self.activate_with(name, files)
    }

    /// Activate for the model: the skill's files are read off the async threads.
    async fn activate_off_thread(&mut self, name: &str) -> String {
        let files = match self.not_yet_active(name) {
            Some(skill) => tokio::task::spawn_blocking(move || SkillFiles::read(&skill)).await.ok(),
            None => None,
        };
        self.activate_with(name, files)
    }

    /// The skill called `name`, when activating it must read its files.
    fn not_yet_active(&self, name: &str) -> Option<Skill> {
        self.skills
            .get(name)
            .filter(|s| !self.activated.contains(&s.name))
            .cloned()
    }

    fn activate_with(&mut self, name: &str, files: Option<SkillFiles>) -> String {
        let Some(skill) = self.skills.get(name).cloned() else {
            return self.unknown_skill(name);
        };
        let dir = skill.dir.display().to_string();
        self.current = Some(skill.name.clone());
        if self.activated.contains(&skill.name) {
            return format!(
                "Skill {} is already active; its instructions are above. Commands run in {dir}.",
                model_line(&skill.name)
            );
        }
        let SkillFiles { body, mut files } = files.unwrap_or_else(|| SkillFiles::read(&skill));
        let body = match body {
            Ok(b) => b,
            Err(e) => return format!("error: cannot read {}: {e}", skill.skill_file.display()),
        };
        self.activated.push(skill.name.clone());
        self.emit(Event::SkillSelected {
            skill: skill.name.clone(),
            dir: dir.clone(),
        });
        if files.len() == MAX_LISTED_FILES {
            files.push("… (more not listed)".into());
        }
        let files = if files.is_empty() {
            "(none besides SKILL.md)".to_string()
        } else {
            files.join(", ")
        };
        super::prompt::activation(&skill.name, &dir, &files, &body)
    }

    async fn run_command(&mut self, command: &str) -> String {
        let Some(skill) = self.current.as_deref().and_then(|n| self.skills.get(n)).cloned() else {
            self.emit(Event::CommandDenied {
                skill: None,
                command: command.to_string(),
                reason: "no skill is active".into(),
            });
            return "error: no skill is active; call activate_skill first, then run the commands its instructions give"
                .into();
        };
        let command = command.trim();
        if command.is_empty() {
            return "error: the command is empty".into();
        }
        let plan = match self.approve(&skill, command).await {
            Ok(plan) => plan,
            Err(reason) => {
                self.commands_denied += 1;
                self.emit(Event::CommandDenied {
                    skill: Some(skill.name.clone()),
                    command: command.to_string(),
                    reason: reason.clone(),
                });
                return format!(
                    "denied: {reason}. The command did not run; do not retry it. Tell the user what you would have run."
                );
            }
        };
        let cwd = skill.dir.display().to_string();
        self.emit(Event::CommandStarted {
            skill: skill.name.clone(),
            command: command.to_string(),
            cwd,
            argv: match &plan {
                Plan::Argv(argv) => Some(argv.words().to_vec()),
                Plan::Shell(_) => None,
            },
        });
        let env = child_env(
            &self.options.base_env,
            &skill.name,
            &skill.dir,
            &self.options.skill_roots,
        );
        let spec = CommandSpec {
            plan: &plan,
            cwd: &skill.dir,
            env: &env,
            timeout: self.options.command_timeout,
            head_bytes: DEFAULT_HEAD_BYTES,
            tail_bytes: DEFAULT_TAIL_BYTES,
            redactor: &self.options.redactor,
        };
        match process::run(&spec).await {
            Ok(out) => {
                self.emit(Event::CommandFinished {
                    skill: skill.name.clone(),
                    command: command.to_string(),
                    exit_code: out.exit_code,
                    signal: out.signal,
                    duration_ms: u64::try_from(out.duration.as_millis()).unwrap_or(u64::MAX),
                    stdout_bytes: out.stdout.total_bytes,
                    stderr_bytes: out.stderr.total_bytes,
                    timed_out: out.timed_out,
                    stderr_tail: last_lines(&self.options.redactor.redact(&out.stderr.text), STDERR_TAIL_LINES),
                });
                format_output(&out, self.options.command_timeout.as_secs())
            }
            Err(e) => {
                let program = match &plan {
                    Plan::Argv(argv) => argv.program().display().to_string(),
                    Plan::Shell(_) => "sh".to_string(),
                };
                let message = format!("could not start {program} in {}: {e}", skill.dir.display());
                self.emit(Event::Warning {
                    message: message.clone(),
                });
                format!("error: {message}")
            }
        }
    }

    /// What runs, once the policy (or a person) allowed it; else why not.
    async fn approve(&self, skill: &Skill, command: &str) -> Result<Plan, String> {
        if let Some(reason) = self.untrusted(skill).await {
            return Err(reason);
        }
        match approval::evaluate(self.options.approve, command, &scope_of(skill)) {
            Verdict::Run(plan) => Ok(plan),
            Verdict::Deny(reason) => Err(reason),
            Verdict::AskUser(pending) if !self.approver.can_ask() => Err(no_terminal(pending.plan())),
            Verdict::AskUser(pending) => {
                let approver = self.approver.clone();
                let request = ApprovalRequest {
                    skill: skill.name.clone(),
                    command: self.options.redactor.redact(command).into_owned(),
                    cwd: skill.dir.display().to_string(),
                };
                let approved = tokio::task::spawn_blocking(move || approver.ask(&request))
                    .await
                    .unwrap_or(false);
                if approved {
                    Ok(pending.approve())
                } else {
                    Err("denied by the user".to_string())
                }
            }
        }
    }

    /// Project skills run commands only once their folder is trusted with their current content
    /// (SPEC §3). `--yes` does not stand in for that; `--approve no` runs nothing anyway.
    async fn untrusted(&self, skill: &Skill) -> Option<String> {
        if skill.root_kind != RootKind::Project || self.options.approve == ApprovalPolicy::No {
            return None;
        }
        let trust = self.options.trust.clone();
        let (t, dir) = (trust.clone(), skill.dir.clone());
        // Hashing reads the skill's files: off the async threads.
        if tokio::task::spawn_blocking(move || t.skill_may_run(&dir))
            .await
            .unwrap_or(false)
        {
            return None;
        }
        let folder = trust.folder().display().to_string();
        let refusal = format!(
            "the project skill {} is not trusted (new, or changed since {folder} was trusted); \
             run `agent trust` in {folder} to let its skills run commands (--yes does not)",
            trust.skill_key(&skill.dir)
        );
        if !self.approver.can_ask() || trust.declined() {
            return Some(refusal);
        }
        let approver = self.approver.clone();
        let asked = trust.clone();
        let decided = tokio::task::spawn_blocking(move || {
            let assessment = asked.assess();
            let yes = approver.ask_trust(&assessment);
            (yes, asked.decide(&assessment, yes))
        })
        .await;
        let Ok((agreed, saved)) = decided else {
            return Some(refusal);
        };
        if let Err(e) = saved {
            self.emit(Event::Warning {
                message: format!("decided for this session only: {e}"),
            });
        }
        if !agreed || !trust.skill_may_run(&skill.dir) {
            return Some(refusal);
        }
        None
    }

    /// Off the async threads: even a checked, non-blocking read is disk I/O.
    async fn read_skill_file(&self, name: &str, path: &str) -> String {
        let Some(skill) = self.skills.get(name) else {
            return self.unknown_skill(name);
        };
        let (dir, rel) = (skill.dir.clone(), path.to_string());
        match tokio::task::spawn_blocking(move || read_inside(&dir, &rel)).await {
            Ok(Ok(text)) => text,
            Ok(Err(e)) => format!("error: {e}"),
            Err(e) => format!("error: reading {path:?} failed: {e}"),
        }
    }
}

/// What approval needs of a skill: its folder, entry script and grants.
fn scope_of(skill: &Skill) -> SkillScope {
    SkillScope {
        dir: skill.dir.clone(),
        entry: skill.entry.clone(),
        grants: skill.allowed_tools.clone(),
    }
}

/// What activating a skill reads from its folder.
struct SkillFiles {
    body: std::io::Result<String>,
    files: Vec<String>,
}

impl SkillFiles {
    /// Blocking: the `SKILL.md` body (a checked, capped read) and the bundled file list.
    fn read(skill: &Skill) -> Self {
        Self {
            body: skill.read_body(),
            files: skill.bundled_files(MAX_LISTED_FILES),
        }
    }
}

/// Why a command that needs a yes was denied without a terminal, naming the narrowest setting that
/// would have let it run (`--approve auto` for the skill's own literal script, else `--yes`).
fn no_terminal(plan: &Plan) -> String {
    match plan {
        Plan::Argv(_) => "needs approval but there is no terminal to ask on; rerun with --approve auto to let \
                          the skill's own scripts run"
            .to_string(),
        Plan::Shell(shell) => format!(
            "needs approval ({}) but there is no terminal to ask on; rerun with --yes (or --approve yes) to allow \
             every command",
            shell.why()
        ),
    }
}

/// A tool call the model made, decoded and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolRequest {
    Activate { name: String },
    Run { command: String },
    Read { skill: String, path: String },
    Search { query: String },
}

/// Decode a tool call; the error is the tool result that tells the model how to fix it.
pub fn decode_call(name: &str, raw_args: &str) -> Result<ToolRequest, String> {
    let args = parse_args(raw_args).map_err(|e| {
        format!(
            "error: the arguments of {name} are not a JSON object ({e}); send e.g. {}",
            example(name)
        )
    })?;
    let need = || format!("error: {name} needs {}", example(name));
    match name {
        "activate_skill" => str_arg(&args, "name")
            .map(|n| ToolRequest::Activate { name: n.to_string() })
            .ok_or_else(need),
        "run_command" => str_arg(&args, "command")
            .map(|c| ToolRequest::Run { command: c.to_string() })
            .ok_or_else(need),
        "read_skill_file" => match (str_arg(&args, "skill"), str_arg(&args, "path")) {
            (Some(skill), Some(path)) => Ok(ToolRequest::Read {
                skill: skill.to_string(),
                path: path.to_string(),
            }),
            _ => Err(need()),
        },
        "search_skills" => str_arg(&args, "query")
            .map(|q| ToolRequest::Search { query: q.to_string() })
            .ok_or_else(need),
        other => Err(format!(
            "error: there is no tool named {other:?}; use activate_skill, run_command or read_skill_file"
        )),
    }
}

fn parse_args(raw: &str) -> Result<serde_json::Map<String, Value>, String> {
    if raw.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        // Some models double-encode: a JSON string holding the object.
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err("got a string".into()),
        },
        Ok(other) => Err(format!("got {}", crate::support::yaml::kind_of(&other))),
        Err(e) => Err(e.to_string()),
    }
}

fn str_arg<'a>(args: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty())
}

fn example(tool: &str) -> &'static str {
    match tool {
        "activate_skill" => r#"{"name": "<skill>"}"#,
        "run_command" => r#"{"command": "<shell command>"}"#,
        "read_skill_file" => r#"{"skill": "<skill>", "path": "<relative path>"}"#,
        "search_skills" => r#"{"query": "<keywords>"}"#,
        _ => "{}",
    }
}

fn format_output(out: &CommandOutput, timeout_secs: u64) -> String {
    let mut text = match (out.timed_out, out.exit_code, out.signal) {
        (true, _, _) => format!("timed out after {timeout_secs}s and was killed\n"),
        (false, Some(code), _) => format!("exit code: {code}\n"),
        (false, None, Some(sig)) => format!("killed by signal {sig}\n"),
        (false, None, None) => "exit status unknown\n".to_string(),
    };
    for (label, cap) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if cap.total_bytes == 0 {
            continue;
        }
        let binary = if cap.binary {
            " (binary data, shown lossily)"
        } else {
            ""
        };
        text.push_str(&format!("{label}{binary}:\n{}", cap.text));
        if !cap.text.ends_with('\n') {
            text.push('\n');
        }
    }
    if out.stdout.total_bytes == 0 && out.stderr.total_bytes == 0 {
        text.push_str("(no output)\n");
    }
    text
}

/// The last `n` non-blank lines of `text` as a terminal would show them (a `\r` redraw keeps
/// only what came after it), each cut to [`STDERR_TAIL_CHARS`].
fn last_lines(text: &str, n: usize) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .rev()
        .map(|l| l.rsplit('\r').next().unwrap_or(l).trim_end())
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .map(|l| match l.char_indices().nth(STDERR_TAIL_CHARS) {
            Some((cut, _)) => format!("{}…", &l[..cut]),
            None => l.to_string(),
        })
        .collect();
    lines.reverse();
    lines
}

/// Read `rel` inside `dir`, refusing anything that resolves outside it.
pub fn read_inside(dir: &Path, rel: &str) -> Result<String, String> {
    let rel_path = Path::new(rel);
    if rel_path.is_absolute() || rel_path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!(
            "{rel:?} is outside the skill folder; give a path relative to it without `..`"
        ));
    }
    let root = std::fs::canonicalize(dir).map_err(|e| format!("cannot open the skill folder: {e}"))?;
    let target = std::fs::canonicalize(dir.join(rel_path)).map_err(|e| format!("cannot open {rel:?}: {e}"))?;
    if !target.starts_with(&root) {
        return Err(format!("{rel:?} leads outside the skill folder (symlink); refused"));
    }
    if target.is_dir() {
        return Err(format!("{rel:?} is a folder; name a file in it"));
    }
    let read = read_regular(&target, MAX_READ_BYTES).map_err(|e| format!("cannot read {rel:?}: {e}"))?;
    let mut text = read.text();
    if read.truncated() {
        text.push_str(&format!(
            "\n[… file is {} bytes; only the first {MAX_READ_BYTES} are shown]",
            read.size
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_inside_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hi").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link")).unwrap();
        assert_eq!(read_inside(dir.path(), "a.txt").unwrap(), "hi");
        assert!(read_inside(dir.path(), "../x").is_err());
        assert!(read_inside(dir.path(), "/etc/passwd").is_err());
        assert!(read_inside(dir.path(), "link").unwrap_err().contains("outside"));
        let fifo = dir.path().join("pipe");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
        assert!(read_inside(dir.path(), "pipe").unwrap_err().contains("FIFO"));
    }

    #[test]
    fn calls_decode_or_explain() {
        assert_eq!(
            decode_call("run_command", r#"{"command":"ls"}"#),
            Ok(ToolRequest::Run { command: "ls".into() })
        );
        assert!(
            decode_call("run_command", "{}")
                .unwrap_err()
                .contains(r#"{"command": "<shell command>"}"#)
        );
        assert!(decode_call("read_skill_file", r#"{"skill":"a"}"#).is_err());
        assert!(decode_call("fly", "{}").unwrap_err().contains("no tool named"));
    }

    #[test]
    fn stderr_tail_is_the_last_visible_lines() {
        let text = "one\n\ntwo\n  \nprogress 10%\rprogress 100%\nthree\n";
        assert_eq!(last_lines(text, 3), ["two", "progress 100%", "three"]);
        assert_eq!(last_lines("", 3), Vec::<String>::new());
        let long = "x".repeat(STDERR_TAIL_CHARS + 10);
        assert_eq!(last_lines(&long, 1)[0].chars().count(), STDERR_TAIL_CHARS + 1);
    }

    #[test]
    fn args_parse_leniently() {
        assert!(parse_args("").unwrap().is_empty());
        assert_eq!(parse_args(r#""{\"name\":\"x\"}""#).unwrap()["name"], "x");
        assert!(parse_args("[1]").is_err());
        assert!(parse_args("{bad").is_err());
    }
}
