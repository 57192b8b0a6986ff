//! Asking on the terminal whether a command may run or a folder may be trusted. Everything shown
//! comes from outside (the model's command, skill names, folder paths, `.env` keys), so it is
//! shown with anything invisible made visible: what the user reads is what runs.

use crate::audit::{Counts, Finding, Level};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex};

use super::human::HumanRenderer;
use crate::exec::trust::{Assessment, MCP_CONFIG_KEY, Standing, is_config_key};
use crate::output::{ApprovalRequest, Approver};
use crate::support::terminal_text::{for_terminal, visible};

/// Most skills named in a trust question; the rest are counted.
const MAX_LISTED_SKILLS: usize = 12;

/// Asks on `/dev/tty`, so it works even when stdout is piped.
pub(crate) struct TerminalApprover {
    interactive: bool,
    renderer: Option<Arc<HumanRenderer>>,
    /// Skills (and MCP tools, by their names for the model) the user said "always" for, this
    /// session.
    always: Mutex<HashSet<String>>,
}

impl TerminalApprover {
    /// Asks on the terminal when `interactive`; clears `renderer`'s spinner first.
    pub(crate) fn new(interactive: bool, renderer: Option<Arc<HumanRenderer>>) -> Self {
        Self {
            interactive,
            renderer,
            always: Mutex::new(HashSet::new()),
        }
    }

    fn prompt(&self, question: &str) -> String {
        if let Some(r) = &self.renderer {
            r.stop_waiting();
        }
        ask_tty(question)
    }
}

/// Print `question` on the terminal and read the answer, lowercased ("" when unreadable).
pub(crate) fn ask_tty(question: &str) -> String {
    let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
        return String::new();
    };
    let mut writer = &tty;
    let _ = write!(writer, "{question}");
    let _ = writer.flush();
    let mut answer = String::new();
    if BufReader::new(&tty).read_line(&mut answer).is_err() {
        return String::new();
    }
    answer.trim().to_ascii_lowercase()
}

/// Ask whether a folder may be trusted, showing what it would change; `true` means yes.
pub(crate) fn ask_folder_trust(assessment: &Assessment, audit: &[(String, Vec<Finding>)]) -> bool {
    matches!(
        ask_tty(&with_audit(folder_question(assessment), audit)).as_str(),
        "y" | "yes"
    )
}

/// The trust question with the audit's findings in the skills it would let run, before the
/// question itself (docs/design.md#audit): a person decides having seen them.
pub(crate) fn with_audit(question: String, audit: &[(String, Vec<Finding>)]) -> String {
    if audit.is_empty() {
        return question;
    }
    let at = question.rfind("Trust this folder?").unwrap_or(question.len());
    let (head, tail) = question.split_at(at);
    let mut q = head.to_string();
    for (key, findings) in audit {
        q.push_str(&format!(
            "  the audit found in {}: {}\n",
            visible(key),
            super::audit_text::tally(&Counts::of(findings))
        ));
        for line in super::audit_text::finding_lines(findings, 6) {
            q.push_str(&line);
            q.push('\n');
        }
    }
    if audit.iter().flat_map(|(_, f)| f).any(|f| f.severity == Level::Critical) {
        q.push_str("  A critical finding is what malicious skills do: say no unless you know why it is there.\n");
    }
    q.push_str(tail);
    q
}

/// The trust question: the folder, the `.env` keys it would set (never values), the skills it
/// adds or changed, and what saying yes means.
pub(crate) fn folder_question(a: &Assessment) -> String {
    let folder = visible(&a.folder.display().to_string()).into_owned();
    let mut q = match a.standing {
        Standing::New => format!("This folder is not trusted yet: {folder}\n"),
        Standing::Trusted => format!("This folder changed since you trusted it: {folder}\n"),
        Standing::Declined => format!("This folder changed since you chose not to trust it: {folder}\n"),
    };
    if let Some(env) = &a.changes.dotenv {
        let keys: Vec<String> = env
            .keys
            .iter()
            .map(|k| {
                let mut shown = visible(k).into_owned();
                if let Some(note) = key_note(k) {
                    shown.push_str(&format!(" ({note})"));
                }
                if !env.first_time && env.added.contains(k) {
                    shown.push_str(" [new]");
                }
                shown
            })
            .collect();
        let what = if env.first_time {
            "its .env sets"
        } else {
            "its .env changed; it now sets"
        };
        let keys = if keys.is_empty() {
            "no variables".to_string()
        } else {
            keys.join(", ")
        };
        q.push_str(&format!("  {what}: {keys}\n"));
    }
    let (new_config, new_skills): (Vec<String>, Vec<String>) =
        a.changes.new_skills.iter().cloned().partition(|k| is_config_key(k));
    let (changed_config, changed_skills): (Vec<String>, Vec<String>) =
        a.changes.changed_skills.iter().cloned().partition(|k| is_config_key(k));
    let is_mcp = |k: &String| k == MCP_CONFIG_KEY;
    let (new_mcp, changed_mcp): (Vec<&String>, Vec<&String>) = (
        new_config.iter().filter(|k| is_mcp(k)).collect(),
        changed_config.iter().filter(|k| is_mcp(k)).collect(),
    );
    hook_lines(&mut q, a, &new_config, &changed_config);
    if !new_mcp.is_empty() || !changed_mcp.is_empty() {
        let what = if changed_mcp.is_empty() { "its" } else { "its changed" };
        let servers: Vec<String> = a
            .snapshot
            .mcp_servers
            .iter()
            .map(|s| for_terminal(s).into_owned())
            .collect();
        q.push_str(&format!(
            "  {what} .mcp.json would start these MCP servers: {}\n",
            if servers.is_empty() {
                "none".to_string()
            } else {
                servers.join("; ")
            }
        ));
    }
    if !new_skills.is_empty() {
        let label = if a.standing == Standing::New {
            "skills it adds"
        } else {
            "new skills"
        };
        q.push_str(&format!("  {label} (they can run commands): {}\n", list(&new_skills)));
    }
    if !changed_skills.is_empty() {
        q.push_str(&format!("  skills changed since: {}\n", list(&changed_skills)));
    }
    q.push_str(
        "Trust this folder? Its .env settings are used, its skills may run commands and its hooks run; a change asks again. [y/N] ",
    );
    q
}

/// The lines of the trust question naming the hooks a project's settings files would run: they
/// are commands from the repository, run outside the sandbox at every tool call.
fn hook_lines(q: &mut String, a: &Assessment, new: &[String], changed: &[String]) {
    for key in new.iter().chain(changed).filter(|k| k.as_str() != MCP_CONFIG_KEY) {
        let what = if changed.contains(key) {
            "changed hooks"
        } else {
            "hooks"
        };
        let commands: Vec<String> = a
            .snapshot
            .hook_commands
            .get(key)
            .into_iter()
            .flatten()
            .map(|c| for_terminal(c).into_owned())
            .collect();
        q.push_str(&format!(
            "  its {key} has {what} (your commands, run outside the sandbox): {}\n",
            if commands.is_empty() {
                "none".to_string()
            } else {
                commands.join("; ")
            }
        ));
    }
}

fn list(names: &[String]) -> String {
    let mut shown: Vec<String> = names
        .iter()
        .take(MAX_LISTED_SKILLS)
        .map(|n| visible(n).into_owned())
        .collect();
    if names.len() > MAX_LISTED_SKILLS {
        shown.push(format!("… and {} more", names.len() - MAX_LISTED_SKILLS));
    }
    shown.join(", ")
}

/// Why a `.env` key deserves a second look before trusting it.
fn key_note(key: &str) -> Option<&'static str> {
    let upper = key.to_ascii_uppercase();
    Some(match upper.as_str() {
        "AGENT_BASE_URL" | "OPENAI_BASE_URL" => "where your API key is sent",
        "AGENT_API_KEY" | "OPENAI_API_KEY" => "the API key used",
        "AGENT_APPROVE" => "which commands run without asking",
        "AGENT_SKILLS_PATH" => "where skills are loaded from",
        "AGENT_SANDBOX" | "AGENT_ALLOW_WRITE" => "what commands may write and reach",
        "AGENT_ALLOW_COMMANDS" | "AGENT_ALLOW_NETWORK" => {
            "ignored in a project's .env: only your own settings widen this"
        }
        "PATH" | "BASH_ENV" | "ENV" | "SHELLOPTS" | "PYTHONPATH" | "PYTHONSTARTUP" | "PERL5LIB" | "RUBYOPT" => {
            "changes what commands run"
        }
        k if k.starts_with("LD_") || k.starts_with("DYLD_") || k.starts_with("GIT_") || k.ends_with("_OPTIONS") => {
            "changes what commands run"
        }
        _ => return None,
    })
}

impl Approver for TerminalApprover {
    fn can_ask(&self) -> bool {
        self.interactive
    }

    fn ask(&self, request: &ApprovalRequest) -> bool {
        let mut always = self.always.lock().unwrap_or_else(|p| p.into_inner());
        if always.contains(&request.skill) {
            return true;
        }
        let skill = visible(&request.skill);
        let answer = self.prompt(&format!(
            "Run `{}`\n  skill {skill} · in {}\n  {}\n  [y]es / [n]o / [a]lways for {skill} this session? ",
            visible(&request.command),
            visible(&request.cwd),
            super::sandbox_text::reach_summary(&request.sandbox),
        ));
        match answer.as_str() {
            "y" | "yes" => true,
            "a" | "always" => {
                always.insert(request.skill.clone());
                true
            }
            _ => false,
        }
    }

    fn ask_trust(&self, assessment: &Assessment) -> bool {
        if let Some(r) = &self.renderer {
            r.stop_waiting();
        }
        let keys = assessment
            .snapshot
            .skill_keys()
            .filter(|k| !assessment.trusted_skills.contains_key(*k));
        ask_folder_trust(assessment, &crate::audit::audit_keys(&assessment.folder, keys))
    }

    fn ask_yes_no(&self, question: &str) -> bool {
        self.interactive && matches!(self.prompt(&for_terminal(question)).as_str(), "y" | "yes")
    }

    fn ask_tool(&self, key: &str, question: &str) -> bool {
        let mut always = self.always.lock().unwrap_or_else(|p| p.into_inner());
        if always.contains(key) {
            return true;
        }
        if !self.interactive {
            return false;
        }
        let answer = self.prompt(&format!(
            "{}\n  [y]es / [n]o / [a]lways for this tool this session? ",
            for_terminal(question)
        ));
        match answer.as_str() {
            "y" | "yes" => true,
            "a" | "always" => {
                always.insert(key.to_string());
                true
            }
            _ => false,
        }
    }

    fn always_granted(&self) -> Vec<String> {
        let always = self.always.lock().unwrap_or_else(|p| p.into_inner());
        let mut skills: Vec<String> = always.iter().cloned().collect();
        skills.sort();
        skills
    }

    fn allow_always(&self, skills: &[String]) {
        let mut always = self.always.lock().unwrap_or_else(|p| p.into_inner());
        always.extend(skills.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::trust::{DotenvState, Snapshot, assess};
    use std::path::{Path, PathBuf};

    #[test]
    fn the_trust_question_shows_audit_findings_before_asking() {
        let finding = Finding {
            rule: "reverse-shell".into(),
            class: crate::audit::Class::ReverseShell,
            severity: Level::Critical,
            file: "scripts/x.sh".into(),
            line: 2,
            evidence: "bash -i …".into(),
            why: "gives a remote host a shell".into(),
            advice: "do not install the skill".into(),
        };
        let q = with_audit(
            "This folder is not trusted yet: /r\nTrust this folder? [y/N] ".into(),
            &[("skills/x".into(), vec![finding])],
        );
        let found = q.find("the audit found in skills/x: 1 critical").unwrap();
        assert!(found < q.find("Trust this folder?").unwrap(), "{q}");
        assert!(
            q.contains("reverse-shell  scripts/x.sh:2") && q.contains("malicious"),
            "{q}"
        );
        assert_eq!(with_audit("Trust this folder? ".into(), &[]), "Trust this folder? ");
    }

    #[test]
    fn the_question_names_keys_and_skills_but_never_values() {
        let snapshot = Snapshot {
            dotenv_key: String::new(),
            dotenv: Some(DotenvState {
                path: PathBuf::from("/r/.env"),
                keys: vec![
                    "AGENT_BASE_URL".into(),
                    "GIT_CONFIG_COUNT".into(),
                    "AGENT_SANDBOX".into(),
                    "X\x1b[2J".into(),
                ],
                hash: "h".into(),
            }),
            skills: [("skills/weather".to_string(), "1".to_string())].into(),
            ..Snapshot::default()
        };
        let q = folder_question(&assess(Path::new("/r\x1b]0;t\x07"), snapshot, None));
        assert!(q.contains("not trusted yet: /r\\x1b]0;t\\x07"), "{q}");
        assert!(q.contains("AGENT_BASE_URL (where your API key is sent)"), "{q}");
        assert!(q.contains("GIT_CONFIG_COUNT (changes what commands run)"), "{q}");
        assert!(q.contains("AGENT_SANDBOX (what commands may write and reach)"), "{q}");
        assert!(q.contains("X\\x1b[2J") && !q.contains('\x1b'), "{q}");
        assert!(
            q.contains("skills it adds (they can run commands): skills/weather"),
            "{q}"
        );
    }

    #[test]
    fn the_question_lists_the_mcp_servers_a_project_would_start() {
        let snapshot = Snapshot {
            skills: [(MCP_CONFIG_KEY.to_string(), "h".to_string())].into(),
            mcp_servers: vec!["db: npx -y evil-server\x1b[2J".into()],
            ..Snapshot::default()
        };
        let q = folder_question(&assess(Path::new("/r"), snapshot, None));
        assert!(
            q.contains("its .mcp.json would start these MCP servers: db: npx -y evil-server\\x1b[2J"),
            "{q}"
        );
        assert!(!q.contains("skills it adds"), "the file is not a skill: {q}");
    }

    #[test]
    fn the_question_lists_the_hooks_a_projects_settings_would_run() {
        let key = ".claude/settings.json".to_string();
        let snapshot = Snapshot {
            skills: [(key.clone(), "h".to_string())].into(),
            hook_commands: [(key, vec!["PreToolUse Bash: ./hooks/guard.sh\x1b[2J".to_string()])].into(),
            ..Snapshot::default()
        };
        let q = folder_question(&assess(Path::new("/r"), snapshot, None));
        assert!(
            q.contains("its .claude/settings.json has hooks (your commands, run outside the sandbox): PreToolUse Bash: ./hooks/guard.sh\\x1b[2J"),
            "{q}"
        );
        assert!(!q.contains("skills it adds") && !q.contains(".mcp.json"), "{q}");
    }
}
