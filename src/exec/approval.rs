//! Deciding whether a proposed command may run, and HOW it runs (docs/design.md#approval-boundary).
//!
//! The decision is a [`Plan`], and the plan is what `process` executes, so what was checked is
//! what runs: a pre-approved command becomes an argument vector run without a shell; anything
//! else becomes `sh -c COMMAND`, which only a person's yes (or `--approve yes`) can release.

use std::path::{Component, Path, PathBuf};

use super::grant::{Grant, glob_match, has_wildcards, parse_grant};
use super::{cmdline, installer, pymodule};

/// What approval needs to know of the skill a command is proposed for: where it lives, its entry
/// script and its `allowed-tools` grants. Built by the caller from the loaded skill, so this module
/// need not know how skills are loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SkillScope {
    /// The skill folder: what "the skill's own script" is relative to (commands run in the user's
    /// working folder; the script words are made absolute).
    pub(crate) dir: PathBuf,
    /// The entry script relative to `dir` (`run.sh`), when the skill has one.
    pub(crate) entry: Option<String>,
    /// The `allowed-tools` entries, as written.
    pub(crate) grants: Vec<String>,
    /// The command would run without the kernel sandbox: grants that let anything run (bare
    /// `Bash`) pre-approve nothing then, since nothing would wall in what they let through.
    pub(crate) unconfined: bool,
    /// The user's own grants (`AGENT_ALLOW_COMMANDS` in their environment or `~/.config/agent/.env`),
    /// in the same `Bash(pdftotext:*)` form; unlike a skill's, they also let installers run.
    pub(crate) user_grants: Vec<String>,
    /// The sandbox can wall in any command here (issue 34 §2): writes, the network and secrets
    /// confined as [`Verdict::Contained`] says. Under `auto` such a command runs unasked.
    pub(crate) containable: bool,
    /// The user's working folder, where commands run (a module there shadows the skill's).
    pub(crate) workdir: PathBuf,
}

/// The approval policy in force; also the values of `--approve` (clap reads the variant names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ApprovalPolicy {
    /// Every command needs a yes from the user.
    Ask,
    /// A skill's own scripts (and its grants) run; other commands run contained where the sandbox can wall them in; anything else needs a yes (denied without a terminal).
    Auto,
    /// Everything runs.
    Yes,
    /// Nothing runs.
    No,
}

impl ApprovalPolicy {
    /// The name `parse` reads back (and `--approve` takes).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Ask => "ask",
            Self::Auto => "auto",
            Self::Yes => "yes",
            Self::No => "no",
        }
    }

    /// Read a policy name (`ask`, `auto`, `yes`, `no`, any case).
    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ask" => Some(Self::Ask),
            "auto" => Some(Self::Auto),
            "yes" => Some(Self::Yes),
            "no" => Some(Self::No),
            _ => None,
        }
    }
}

/// A literal command, checked, ready to execute without a shell. Only this module makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Argv {
    program: PathBuf,
    words: Vec<String>,
}

impl Argv {
    /// What to execute: an absolute path inside the skill folder, or a bare name (an interpreter
    /// or a granted program) looked up on the child's `PATH`.
    pub(crate) fn program(&self) -> &Path {
        &self.program
    }

    /// The words as executed: `words[0]` is the child's `argv[0]` (the skill's script as an absolute
    /// path, else the program as written), then the arguments (an interpreter's script absolute).
    pub(crate) fn words(&self) -> &[String] {
        &self.words
    }
}

/// A command that is not pre-approved, to run with `sh -c` once someone allowed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellCommand {
    command: String,
    why: String,
}

impl ShellCommand {
    /// A command of the user's own configuration (a hook), run with `sh -c` as written: it is
    /// not a skill's proposal, so nothing judges it.
    pub(crate) fn users_own(command: &str) -> Self {
        Self {
            command: command.to_string(),
            why: "the user's own command".to_string(),
        }
    }

    /// The command exactly as proposed (and as shown to the person asked).
    pub(crate) fn command(&self) -> &str {
        &self.command
    }

    /// Why it is not pre-approved, for denial messages.
    pub(crate) fn why(&self) -> &str {
        &self.why
    }

    /// The program, when the command is one simple command of literal words (an `allowed-tools`
    /// grant could then let it run); `None` for anything a shell must read (operators, `$(…)`).
    pub(crate) fn program(&self) -> Option<String> {
        cmdline::literal_words(&self.command, "")
            .ok()
            .and_then(|words| words.into_iter().next())
            .filter(|p| !p.contains('/'))
    }
}

/// How an allowed command is executed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// One literal simple command of the skill's own script or a grant: executed as this argv.
    Argv(Argv),
    /// Anything else: `sh -c COMMAND`, exactly as shown.
    Shell(ShellCommand),
}

impl Plan {
    #[cfg(test)]
    /// The plan for `command` proposed for `skill`: an argv when it would be pre-approved.
    pub(crate) fn for_command(command: &str, skill: &SkillScope) -> Self {
        Self::with_reach(command, skill).0
    }

    /// The plan, and whether an argv is allowed only by a skill's grant of any command (so it
    /// runs as contained as any other command would).
    fn with_reach(command: &str, skill: &SkillScope) -> (Self, bool) {
        match preapproved_argv(command, skill) {
            Ok((argv, broad)) => (Plan::Argv(argv), broad),
            Err(why) => (
                Plan::Shell(ShellCommand {
                    command: anchor_leading_script(command, skill),
                    why,
                }),
                false,
            ),
        }
    }

    /// The narrowest way to let this run, as advice: `--approve auto` for what the agent would
    /// pre-approve itself; for anything else a person's yes on a terminal, never `--yes`, which
    /// would let every command through with it.
    pub(crate) fn narrowest_way(&self) -> String {
        match self {
            Plan::Argv(_) => "rerun with --approve auto".into(),
            Plan::Shell(shell) if installer::find(shell.command()).is_some() => installer_way(shell),
            Plan::Shell(shell) => match (installer::sweeping_removal(shell.command()), shell.program()) {
                (Some(why), _) => format!("{why}: run it on a terminal to look at it and approve it once"),
                (None, Some(program)) => format!(
                    "run it on a terminal to approve it once, or allow it yourself with \
                     AGENT_ALLOW_COMMANDS='Bash({program}:*)' in ~/.config/agent/.env (or grant it in the \
                     skill's allowed-tools) to let it run unasked"
                ),
                (None, None) => "run it on a terminal to look at it and approve it once".into(),
            },
        }
    }
}

/// How an installer that writes outside the working folder could be let run.
fn installer_way(shell: &ShellCommand) -> String {
    let Some(found) = installer::find(shell.command()) else {
        return "run it on a terminal to look at it and approve it once".into();
    };
    format!(
        "`{}` installs into {}, outside the working folder, which nothing run unasked may do \
                 (a skill's grant does not change that): approve it on a terminal, or allow it yourself with \
                 AGENT_ALLOW_COMMANDS='{}' in ~/.config/agent/.env and --allow-write for where it installs; \
                 or install into the working folder (a virtual environment there, `pip install --target DIR`)",
        found.words,
        found.writes,
        found.grant()
    )
}

/// What the policy says about one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Run this without asking.
    Run(Plan),
    /// Run this without asking, but only inside the tightest walls: writes to the working folder,
    /// the temp folder and declared places, no network unless declared or allowed by the user, no
    /// undeclared secrets (the caller applies them).
    Contained(Plan),
    /// A person must decide; a yes releases the plan.
    AskUser(Pending),
    /// Refused without asking, with the reason the model and user are told.
    Deny(String),
}

/// A command waiting for a person's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pending(Plan);

impl Pending {
    /// What would run.
    pub(crate) fn plan(&self) -> &Plan {
        &self.0
    }

    /// A person said yes: this is what runs.
    pub(crate) fn approve(self) -> Plan {
        self.0
    }
}

/// Apply `policy` to `command` proposed for `skill`.
///
/// Under `auto`, where the sandbox can contain it ([`SkillScope::containable`]), a command that is
/// not the skill's own script runs contained with `sh -c` (issue 34 §2), unless it installs
/// software outside the working folder; so does one only a skill's grant of any command allows.
pub(crate) fn evaluate(policy: ApprovalPolicy, command: &str, skill: &SkillScope) -> Verdict {
    let (plan, broad) = Plan::with_reach(command, skill);
    match (policy, plan) {
        (ApprovalPolicy::Yes, plan) => Verdict::Run(plan),
        (ApprovalPolicy::No, plan) => Verdict::Deny(format!(
            "denied by policy: --approve no runs nothing (to allow it: {})",
            plan.narrowest_way()
        )),
        (ApprovalPolicy::Auto, plan @ Plan::Argv(_)) if broad && skill.containable => {
            match installer::sweeping_removal(command) {
                // A grant of any command does not make `rm -rf /` one to run unasked.
                Some(why) => Verdict::AskUser(Pending(Plan::Shell(ShellCommand {
                    command: command.to_string(),
                    why,
                }))),
                None => Verdict::Contained(plan),
            }
        }
        (ApprovalPolicy::Auto, plan @ Plan::Argv(_)) => Verdict::Run(plan),
        (ApprovalPolicy::Auto, Plan::Shell(shell))
            if skill.containable
                && installer::find(shell.command()).is_none()
                && installer::sweeping_removal(shell.command()).is_none() =>
        {
            Verdict::Contained(Plan::Shell(shell))
        }
        (ApprovalPolicy::Auto | ApprovalPolicy::Ask, plan) => Verdict::AskUser(Pending(plan)),
    }
}

/// Interpreters that may run one of the skill's own scripts: `sh ./run.sh`, `python3 scripts/x.py`.
const INTERPRETERS: [&str; 7] = ["sh", "bash", "python3", "python", "node", "ruby", "perl"];

/// The argv of `command` when it is one literal simple command of the skill's own script or
/// allowed by a grant, and whether only a skill's grant of any command allows it; otherwise why not,
/// as text: the reason is only ever shown (to the model and the person asked), never matched.
fn preapproved_argv(command: &str, skill: &SkillScope) -> Result<(Argv, bool), String> {
    let dir = skill.dir.to_string_lossy();
    let words = cmdline::literal_words(command, &dir)
        .map_err(|e| format!("it is not one simple command of literal words: {e}"))?;
    // A skill's grant never lets an installer write outside the working folder; the user's may.
    let installs = installer::of_words(&words).is_some();
    let (grants, set_aside): (Vec<Grant>, Vec<Grant>) = skill
        .grants
        .iter()
        .filter(|_| !installs)
        .filter_map(|t| parse_grant(t))
        .partition(|g| !(skill.unconfined && g.runs_anything()));
    let granted_by = |grants: &[Grant]| {
        grants.iter().any(|g| {
            g.allows(&words, |pattern, word| {
                same_program(
                    &pattern.replace("${SKILL_DIR}", &dir).replace("$SKILL_DIR", &dir),
                    word,
                    &skill.dir,
                )
            })
        })
    };
    let user: Vec<Grant> = skill.user_grants.iter().filter_map(|t| parse_grant(t)).collect();
    let (narrow, any): (Vec<Grant>, Vec<Grant>) = grants.into_iter().partition(|g| !g.runs_anything());
    let own = runs_own_script(&words, skill) || pymodule::runs_skill_module(&words, &skill.dir, &skill.workdir);
    let plainly = own || granted_by(&user) || granted_by(&narrow);
    if !plainly && !granted_by(&any) {
        let aside = if installs && skill.grants.iter().any(|g| parse_grant(g).is_some()) {
            " (it installs software, which no skill's grant covers)"
        } else if set_aside.is_empty() {
            ""
        } else {
            " (its grant of any shell command counts only inside the sandbox, which is off here)"
        };
        // Name the scripts the skill has: a small model that wrote `./run.sh scripts/x.py` for a
        // skill without a run.sh can correct itself from this.
        let own = match skill.entry.as_deref() {
            Some(entry) => format!("./{entry} or a file under scripts/, named by a path"),
            None => "a file under scripts/, named by a path; this skill has no run.sh".to_string(),
        };
        return Err(format!(
            "`{}` is not the skill's own script ({own}) and no allowed-tools grant matches{aside}",
            words[0],
        ));
    }
    let mut words = words;
    // Commands run in the user's working folder, but the skill's own files they name as the
    // program (`./run.sh`, `scripts/x.py`) or as an interpreter's script (`python3 scripts/x.py`)
    // are the skill's: those words become absolute paths inside the skill folder, so what was
    // checked is what runs wherever the command runs, and `$0` / `__file__` lead back to the skill.
    let script_word = usize::from(words.len() > 1 && INTERPRETERS.contains(&words[0].as_str()));
    for word in words.iter_mut().take(script_word + 1) {
        if word.contains('/') && !word.starts_with('-') {
            *word = in_skill(&skill.dir, word).display().to_string();
        }
    }
    let program = PathBuf::from(&words[0]);
    Ok((Argv { program, words }, !plainly))
}

/// `path` (relative to the skill folder, or absolute) as an absolute, lexically normal path.
fn in_skill(dir: &Path, path: &str) -> PathBuf {
    dir.join(path)
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect()
}

/// `command` with its leading script (`./run.sh …`, `python3 scripts/x.py …`) written as the
/// absolute path of that file in the skill folder, when it names one: shell commands run in the
/// user's working folder too, and the skill's instructions name their scripts relative to the
/// skill. Only a plain leading word that is a relative path to a regular file inside the skill is
/// rewritten; the rewritten text is what the person is shown and what runs.
fn anchor_leading_script(command: &str, skill: &SkillScope) -> String {
    let body = command.trim_start();
    let lead = &command[..command.len() - body.len()];
    let (interpreter, rest) = match split_word(body) {
        Some((word, rest)) if INTERPRETERS.contains(&word) => (Some(word), rest.trim_start()),
        _ => (None, body),
    };
    let Some((word, after)) = split_word(rest) else {
        return command.to_string();
    };
    let plain = word.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b));
    if !plain || !word.contains('/') || word.starts_with(['/', '-']) || resolve_inside(&skill.dir, word).is_none() {
        return command.to_string();
    }
    let path = in_skill(&skill.dir, word).display().to_string();
    let quoted = shell_words::quote(&path);
    match interpreter {
        Some(i) => format!("{lead}{i} {quoted}{after}"),
        None => format!("{lead}{quoted}{after}"),
    }
}

/// The first word of `text` and what follows it, when the word ends at a blank, a shell
/// operator or the end.
fn split_word(text: &str) -> Option<(&str, &str)> {
    let end = text
        .find(|c: char| c.is_whitespace() || ";|&<>()".contains(c))
        .unwrap_or(text.len());
    (end > 0).then(|| text.split_at(end))
}

/// A call of the skill's entry script or a file under its `scripts/`, named by a path (never a
/// bare word a `PATH` lookup would resolve), optionally through an interpreter.
fn runs_own_script(words: &[String], skill: &SkillScope) -> bool {
    let script = match words {
        [program, script, ..] if INTERPRETERS.contains(&program.as_str()) => script,
        [program, ..] => program,
        [] => return false,
    };
    if !script.contains('/') || script.starts_with('-') {
        return false;
    }
    let Some(target) = resolve_inside(&skill.dir, script) else {
        return false;
    };
    let is_entry = skill
        .entry
        .as_deref()
        .and_then(|e| resolve_inside(&skill.dir, e))
        .is_some_and(|entry| entry == target);
    let in_scripts = resolve_inside_dir(&skill.dir, "scripts").is_some_and(|scripts| target.starts_with(scripts));
    is_entry || in_scripts
}

/// The real path of `path` (relative to `dir`, or absolute) when it is a regular file inside `dir`.
fn resolve_inside(dir: &Path, path: &str) -> Option<PathBuf> {
    let root = std::fs::canonicalize(dir).ok()?;
    let target = std::fs::canonicalize(dir.join(path)).ok()?;
    (target.starts_with(&root) && target.is_file()).then_some(target)
}

/// The real path of the folder `name` inside `dir`, when it stays inside.
fn resolve_inside_dir(dir: &Path, name: &str) -> Option<PathBuf> {
    let root = std::fs::canonicalize(dir).ok()?;
    let target = std::fs::canonicalize(dir.join(name)).ok()?;
    (target.starts_with(&root) && target.is_dir()).then_some(target)
}

/// Whether a grant's program `pattern` names the program `word`: bare names match bare names
/// (as `PATH` would find them); paths match paths, literally or by resolving to the same file.
fn same_program(pattern: &str, word: &str, dir: &Path) -> bool {
    if pattern.contains('/') != word.contains('/') {
        return false;
    }
    if !word.contains('/') {
        return glob_match(pattern, word);
    }
    let climbs = Path::new(word).components().any(|c| c == Component::ParentDir);
    if !climbs && glob_match(pattern, word) {
        return true;
    }
    if has_wildcards(pattern) {
        return false;
    }
    match (
        std::fs::canonicalize(dir.join(pattern)),
        std::fs::canonicalize(dir.join(word)),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;
