//! Dynamic context (docs/skills.md#dynamic-context): the `` !`command` `` markers of a skill body
//! run on activation as that skill's commands, through [`ToolRunner::run_for`] (trust, approval,
//! sandbox, timeout, caps, events: no side door), and their output takes the marker's place. A
//! command that does not run or fails leaves a marker saying so, never nothing.

use super::ToolRunner;
use super::run::CommandRun;
use crate::skills::Skill;
use crate::skills::dynamic::{MAX_MARKERS, Marker, fill, markers};

/// Characters of a failed command's last stderr line kept in its marker.
const REASON_CHARS: usize = 200;

impl ToolRunner {
    /// `body` with each marker replaced by its command's output, or by why there is none. The
    /// commands run one after another, in the order they appear.
    pub(super) async fn fill_dynamic(&self, skill: &Skill, body: &str) -> String {
        let found = markers(body);
        let mut fills = Vec::with_capacity(found.len());
        for (i, marker) in found.iter().enumerate() {
            let text = if i < MAX_MARKERS {
                let run = self.run_for(skill, &marker.command).await;
                filling(marker, run, self.settings.command_timeout.as_secs())
            } else {
                not_run(
                    marker,
                    &format!("a skill runs at most {MAX_MARKERS} dynamic context commands"),
                )
            };
            fills.push(text);
        }
        fill(body, &found, &fills)
    }
}

/// `body` with every marker left unrun, saying `why`: instructions sent again where nothing may
/// be awaited (a resumed session) keep what their commands printed out of the text.
pub(super) fn leave_dynamic(body: &str, why: &str) -> String {
    let found = markers(body);
    let fills: Vec<String> = found.iter().map(|m| not_run(m, why)).collect();
    fill(body, &found, &fills)
}

/// What takes a marker's place once its command was tried.
fn filling(marker: &Marker, run: CommandRun, timeout_secs: u64) -> String {
    let output = match run {
        CommandRun::NotRun(outcome) => return not_run(marker, outcome.message()),
        CommandRun::Ran { output, .. } => output,
    };
    let command = &marker.command;
    if output.timed_out {
        return format!("[dynamic context `{command}` timed out after {timeout_secs}s and was killed]");
    }
    if output.exit_code == Some(0) {
        return output.stdout.text.trim_end_matches(['\n', '\r']).to_string();
    }
    let status = match (output.exit_code, output.signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "exit status unknown".into(),
    };
    let said = [&output.stderr.text, &output.stdout.text]
        .into_iter()
        .find_map(|t| t.lines().rev().map(str::trim).find(|l| !l.is_empty()))
        .map(|l| format!(": {}", l.chars().take(REASON_CHARS).collect::<String>()))
        .unwrap_or_default();
    format!("[dynamic context `{command}` failed ({status}){said}]")
}

/// The marker of a command that did not run.
fn not_run(marker: &Marker, why: &str) -> String {
    let why = why.replace('\n', " ");
    format!("[dynamic context `{}` not run: {why}]", marker.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unrun_markers_say_why() {
        let body = "Now: !`date`\n```\n!`rm x`\n```\n";
        assert_eq!(
            leave_dynamic(body, "resumed"),
            "Now: [dynamic context `date` not run: resumed]\n```\n!`rm x`\n```\n"
        );
    }
}
