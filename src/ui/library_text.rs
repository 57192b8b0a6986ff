//! `skills add|outdated|update|remove` for a person: their reports as text, and the terminal
//! prompts they ask (which skills of a repository to install, whether to replace one after its
//! changes were shown). Names, paths and diff lines come from fetched repositories: each is shown
//! with anything invisible made visible.

use crate::audit::{Finding, Level};
use crate::output::library::{
    Choice, ClashKind, InstalledSkill, LibraryAsker, SkillRemoved, SkillTrusted, SkillUpdate, SkillsAdded,
    SkillsOutdated, SkillsUpdated, Standing, UpdateOutcome,
};
use crate::skills::library::diff::{Change, FolderDiff};
use crate::support::terminal_text::visible;

use super::approve::ask_tty;
use super::report_text::Text;

fn one(text: &str) -> String {
    visible(text).into_owned()
}

fn short(commit: Option<&str>) -> String {
    commit.map_or_else(|| "-".to_string(), |c| c.chars().take(12).collect())
}

/// `skills add`: each skill installed, where, and what remains to do.
pub(crate) fn added(r: &SkillsAdded) -> Text {
    let mut out = Vec::new();
    let mut err = Vec::new();
    for s in &r.installed {
        out.push(installed_line(s));
        if s.declared_name != s.name {
            err.push(format!(
                "note: {}'s SKILL.md names it {:?}; its folder keeps the source's name (name-folder-mismatch in `agent skills check`)",
                one(&s.name),
                one(&s.declared_name)
            ));
        }
        for p in &s.fixed {
            err.push(format!(
                "fixed: {} {} ({})",
                one(&p.path.display().to_string()),
                p.message(),
                p.issue.code()
            ));
        }
        for p in &s.unfixed {
            err.push(format!(
                "warning: {} {} ({}); fix: {}",
                one(&p.path.display().to_string()),
                p.message(),
                p.issue.code(),
                one(&p.fix_command())
            ));
        }
    }
    if !r.already.is_empty() {
        let names: Vec<String> = r.already.iter().map(|n| one(n)).collect();
        err.push(format!(
            "already installed from this source, left as they are: {} (`agent skills update` refreshes them)",
            names.join(", ")
        ));
    }
    err.extend(left_out(r));
    err.push(format!("recorded in {}", one(&r.lock.display().to_string())));
    if r.project {
        err.push("project skills run commands once this folder is trusted: `agent trust`".into());
    }
    Text { out, err }
}

/// The template skeletons `--all` left out and each clash with its `--as` command, then a count.
fn left_out(r: &SkillsAdded) -> Vec<String> {
    let mut err = Vec::new();
    if !r.templates.is_empty() {
        let names: Vec<String> = r
            .templates
            .iter()
            .map(|t| format!("{} ({})", one(t.subdir.as_deref().unwrap_or(&t.name)), t.reason))
            .collect();
        err.push(format!(
            "left out template skeleton(s), not skills to run: {} (`--skill NAME` installs one asked for by name)",
            names.join(", ")
        ));
    }
    for c in &r.clashes {
        let what = match c.kind {
            ClashKind::FolderTaken => "its folder is taken by",
            ClashKind::NameTaken => "its name is taken by",
            ClashKind::SameSource => "an earlier skill of this source has its name:",
        };
        let from = match c.subdir.as_deref() {
            Some(sub) if sub != c.skill => format!(" ({})", one(sub)),
            _ => String::new(),
        };
        err.push(format!(
            "not installed: {}{from} — {what} {}; to take it under another name: {}",
            one(&c.skill),
            one(&c.taken_by.display().to_string()),
            one(&c.fix)
        ));
    }
    for refusal in &r.refused {
        // The gate's message starts with the skill's name.
        err.push(format!("not installed: {}", one(&refusal.message)));
    }
    if !r.clashes.is_empty() {
        err.push(format!(
            "installed {}, {} not installed because their names are taken (each above, with the command that takes it)",
            r.installed.len(),
            r.clashes.len()
        ));
    }
    err
}

fn installed_line(s: &InstalledSkill) -> String {
    let mut from = one(&s.source);
    if let Some(r) = &s.reference {
        from.push_str(&format!("@{}", one(r)));
    }
    if let Some(sub) = &s.subdir {
        from.push_str(&format!("#{}", one(sub)));
    }
    let commit = s
        .commit
        .as_deref()
        .map(|c| format!(" at {}", short(Some(c))))
        .unwrap_or_default();
    format!(
        "installed {} into {} from {from}{commit}",
        one(&s.name),
        one(&s.dir.display().to_string())
    )
}

/// `skills outdated`: one line per installed skill.
pub(crate) fn outdated(r: &SkillsOutdated) -> Text {
    if r.skills.is_empty() {
        return Text {
            out: Vec::new(),
            err: vec!["no skill was installed with `agent skills add` (no skills-lock.json lists one)".into()],
        };
    }
    // Only what needs attention is listed: with a thousand skills the rest is a count.
    let mut out = Vec::new();
    let (mut current, mut pinned) = (0, 0);
    for s in &r.skills {
        let state = match &s.standing {
            Standing::UpToDate if !s.edited => {
                current += 1;
                continue;
            }
            Standing::Pinned if !s.edited => {
                pinned += 1;
                continue;
            }
            Standing::UpToDate => "up to date".to_string(),
            Standing::Outdated => format!(
                "outdated: {} → {}",
                short(s.installed.as_deref()),
                short(s.latest.as_deref())
            ),
            Standing::Pinned => format!("pinned to {}", short(s.reference.as_deref())),
            Standing::Unknown { reason } => format!("unknown: {}", one(reason)),
        };
        let edited = if s.edited {
            "; edited since installed (needs trust to run)"
        } else {
            ""
        };
        out.push(format!("{:<20} {state}{edited}", one(&s.name)));
    }
    let outdated = r.skills.iter().filter(|s| s.standing == Standing::Outdated).count();
    out.push(format!(
        "{outdated} outdated, {current} up to date, {pinned} pinned to a commit, of {} installed",
        r.skills.len()
    ));
    let err = if outdated > 0 {
        vec!["`agent skills update [NAME]` shows the changes and asks before replacing".into()]
    } else {
        Vec::new()
    };
    Text { out, err }
}

/// `skills update`: what happened to each skill.
pub(crate) fn updated(r: &SkillsUpdated) -> Text {
    let mut out = Vec::new();
    let mut err = Vec::new();
    for s in &r.skills {
        // A name installed both in the project and for the user: say which copy a line is about.
        let twice = r.skills.iter().filter(|o| o.name == s.name).count() > 1;
        let name = match s.dir.parent().filter(|_| twice) {
            Some(root) => format!("{} ({})", one(&s.name), one(&root.display().to_string())),
            None => one(&s.name),
        };
        match s.outcome {
            UpdateOutcome::UpToDate => out.push(format!("{name}: up to date")),
            UpdateOutcome::Updated => {
                out.push(format!(
                    "{name}: updated {} → {}",
                    short(s.from_commit.as_deref()),
                    short(s.to_commit.as_deref())
                ));
                out.extend(diff_lines(&s.diff, DiffDetail::Files));
            }
            UpdateOutcome::Declined => out.push(format!("{name}: kept as it is")),
            UpdateOutcome::NotConfirmed => {
                out.push(format!("{name}: not updated"));
                out.extend(diff_lines(&s.diff, DiffDetail::Lines));
                err.push(format!(
                    "{name} has changes, but there is no terminal to ask on: rerun with --yes to replace it"
                ));
            }
        }
    }
    Text { out, err }
}

/// `agent trust --skill`.
pub(crate) fn trusted_skill(r: &SkillTrusted) -> Text {
    Text {
        out: vec![format!(
            "trusted {} as it is now ({})",
            one(&r.name),
            one(&r.dir.display().to_string())
        )],
        err: vec![format!(
            "recorded in {}; a later change asks again",
            one(&r.lock.display().to_string())
        )],
    }
}

/// `skills remove`.
pub(crate) fn removed(r: &SkillRemoved) -> Text {
    Text {
        out: vec![format!(
            "removed {} ({})",
            one(&r.name),
            one(&r.dir.display().to_string())
        )],
        err: vec![format!("recorded in {}", one(&r.lock.display().to_string()))],
    }
}

/// How much of a difference [`diff_lines`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DiffDetail {
    /// The files that differ, with line counts.
    Files,
    /// The files, and the changed lines of SKILL.md and scripts under each.
    Lines,
}

/// The files that differ, with line counts, and their changed lines as `detail` says.
pub(crate) fn diff_lines(diff: &FolderDiff, detail: DiffDetail) -> Vec<String> {
    let mut out = Vec::new();
    for f in &diff.files {
        let mark = match f.change {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        };
        let counts = match (f.lines_added, f.lines_removed) {
            (Some(a), Some(r)) => format!(" (+{a} -{r})"),
            _ => " (binary)".to_string(),
        };
        out.push(format!("  {mark:<8} {}{counts}", one(&f.path)));
        if detail == DiffDetail::Lines {
            out.extend(f.lines.iter().map(|l| format!("      {}", one(l))));
        }
    }
    if detail == DiffDetail::Lines && diff.lines_not_shown > 0 {
        out.push(format!("  … {} more changed lines not shown", diff.lines_not_shown));
    }
    out
}

/// Asks on `/dev/tty` when there is a person to ask.
pub(crate) struct TerminalLibraryAsker {
    pub(crate) interactive: bool,
}

impl LibraryAsker for TerminalLibraryAsker {
    fn can_ask(&self) -> bool {
        self.interactive
    }

    fn choose(&self, source: &str, choices: &[Choice]) -> Vec<usize> {
        let mut q = format!("{} holds {} skills:\n", one(source), choices.len());
        for (i, c) in choices.iter().enumerate() {
            let desc: String = c.description.chars().take(70).collect();
            q.push_str(&format!("  {:>2}. {:<20} {}\n", i + 1, one(&c.name), one(&desc)));
        }
        q.push_str("Install which? (numbers separated by spaces, `all`, or Enter for none) ");
        parse_choice(&ask_tty(&q), choices.len())
    }

    fn confirm(&self, question: &str) -> bool {
        matches!(ask_tty(&format!("{} [y/N] ", one(question))).as_str(), "y" | "yes")
    }

    fn confirm_update(&self, update: &SkillUpdate) -> bool {
        let mut q = format!(
            "{} {} → {}:\n",
            one(&update.name),
            short(update.from_commit.as_deref()),
            short(update.to_commit.as_deref())
        );
        for line in diff_lines(&update.diff, DiffDetail::Lines) {
            q.push_str(&line);
            q.push('\n');
        }
        if update.edited {
            q.push_str("Your edits to the installed copy are replaced too.\n");
        }
        q.push_str("Replace the installed copy with this version? [y/N] ");
        matches!(ask_tty(&q).as_str(), "y" | "yes")
    }

    fn confirm_findings(&self, name: &str, findings: &[Finding], worst: Level) -> bool {
        let answer = ask_tty(&super::audit_text::gate_question(name, findings, worst));
        if worst == Level::Critical {
            answer == "install"
        } else {
            matches!(answer.as_str(), "y" | "yes")
        }
    }
}

/// The indices an answer names: `all`, or 1-based numbers separated by spaces or commas.
fn parse_choice(answer: &str, count: usize) -> Vec<usize> {
    if answer == "all" || answer == "a" {
        return (0..count).collect();
    }
    let mut picked = Vec::new();
    for n in answer.split([' ', ',']).filter_map(|w| w.trim().parse::<usize>().ok()) {
        if (1..=count).contains(&n) && !picked.contains(&(n - 1)) {
            picked.push(n - 1);
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_from_numbers_or_all() {
        assert_eq!(parse_choice("all", 3), [0, 1, 2]);
        assert_eq!(parse_choice("2, 3 9 2 x", 3), [1, 2]);
        assert!(parse_choice("", 3).is_empty());
    }
}
