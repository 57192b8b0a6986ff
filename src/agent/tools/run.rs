//! `run_command`: approval (policy, a person, folder trust), then the command as a child process
//! in the user's working folder (the skill's own script words made absolute by approval), confined
//! by the sandbox, its output capped for the model and summed up for the user.

use crate::agent::outcome::Refusal;
use crate::exec::approval::{self, ApprovalPolicy, Plan, SkillScope, Verdict};
use crate::exec::private_temp::PrivateTemp;
use crate::exec::process::{self, CommandOutput, CommandSpec, DEFAULT_HEAD_BYTES, DEFAULT_TAIL_BYTES};
use crate::exec::sandbox::planted::{Snapshot, Watch};
use crate::exec::sandbox::policy::Enforcement;
use crate::exec::sandbox::{Confinement, Mode, Policy, hint};
use crate::exec::trust::Comparison;
use crate::output::{ApprovalRequest, Event};
use crate::skills::Skill;
use crate::skills::library::lock::Installed;
use crate::skills::roots::RootKind;

use super::ToolRunner;
use super::hook_run::HookInput;
use super::live::LiveOutput;
use crate::agent::outcome::ToolOutcome;

use super::run_output::{STDERR_TAIL_LINES, format_output, last_lines};
/// At most this many nested `.git` (and the like) found below the writable folders are kept
/// read-only for a command: each costs two mounts.
const MAX_NESTED_KEPT: usize = 64;

impl ToolRunner {
    /// Run `command` for the `current` skill in the working folder, once approval (and folder
    /// trust) allow it, confined by the sandbox to what the skill may write and reach.
    pub(super) async fn run_command(&self, current: Option<&str>, command: &str) -> ToolOutcome {
        let Some(skill) = current.and_then(|n| self.skills.get(n)).cloned() else {
            self.emit(Event::CommandDenied {
                skill: None,
                command: command.to_string(),
                reason: "no skill is active".into(),
            });
            return ToolOutcome::refused(
                "no skill is active; call activate_skill first, then run the commands its instructions give",
            );
        };
        self.run_for(&skill, command).await.into_outcome()
    }

    /// Run `command` as `skill`'s: every check and wall of [`Self::run_command`], with the
    /// command's output kept beside the model's text (dynamic context reads its stdout).
    pub(super) async fn run_for(&self, skill: &Skill, command: &str) -> CommandRun {
        self.run_as(skill, command, None).await
    }

    /// [`Self::run_for`], for one of the skill's hooks when `hook` is given: the event on stdin,
    /// the hook's own timeout.
    pub(super) async fn run_as(&self, skill: &Skill, command: &str, hook: Option<&HookInput<'_>>) -> CommandRun {
        let command = command.trim();
        if command.is_empty() {
            return CommandRun::NotRun(ToolOutcome::refused("the command is empty"));
        }
        if let Err(reason) = self.as_shipped(skill).await {
            self.emit(Event::CommandDenied {
                skill: Some(skill.name.clone()),
                command: command.to_string(),
                reason: reason.clone(),
            });
            return CommandRun::NotRun(ToolOutcome::denied(reason));
        }
        let requires = &skill.requires;
        let sandbox = &self.settings.sandbox;
        if sandbox.mode != Mode::Off && sandbox.kernel.filesystem() {
            sandbox.extra.ensure_tool_dirs();
        }
        let mut policy = sandbox.policy(&skill.dir, &requires.write, requires.network);
        if self.is_locked(skill).await {
            policy = policy.lock_skill_folder();
        }
        // The tighter walls a command that is not the skill's own runs in under `auto`, if any.
        let tight = policy.contained(requires.network, sandbox.extra.network);
        let plan = match self.approve(skill, command, &policy, tight.is_some()).await {
            Ok((plan, true)) => {
                policy = tight.unwrap_or(policy);
                Approved { plan, contained: true }
            }
            Ok((plan, false)) => Approved { plan, contained: false },
            Err(reason) => {
                self.emit(Event::CommandDenied {
                    skill: Some(skill.name.clone()),
                    command: command.to_string(),
                    reason: reason.clone(),
                });
                return CommandRun::NotRun(ToolOutcome::denied(reason));
            }
        };
        self.execute(skill, command, &plan, &policy, hook).await
    }

    /// Start the approved `plan` in the sandbox `policy` describes and report how it ended.
    async fn execute(
        &self,
        skill: &Skill,
        command: &str,
        approved: &Approved,
        policy: &Policy,
        hook: Option<&HookInput<'_>>,
    ) -> CommandRun {
        let plan = &approved.plan;
        // Its own temp folder, removed when this returns (and the command's processes are gone).
        let temp = PrivateTemp::create(&self.settings.sandbox.temp)
            .inspect_err(|e| tracing::debug!("no private temp folder: {e}"))
            .ok();
        let with_temp = temp.as_ref().map(|t| policy.with_private_temp(t.path()));
        let policy = with_temp.as_ref().unwrap_or(policy);
        let (snapshot, watched) = self.watch(policy).await;
        let policy = watched.as_ref().unwrap_or(policy);
        // A sandbox that cannot be built is not silently skipped: the command does not run.
        let confinement = match Confinement::build(policy) {
            Ok(confinement) => confinement,
            Err(e) => return CommandRun::NotRun(self.not_started(format!("{command}: not run: {e}"))),
        };
        self.emit(Event::CommandStarted {
            skill: skill.name.clone(),
            command: command.to_string(),
            cwd: self.settings.workdir.display().to_string(),
            argv: match plan {
                Plan::Argv(argv) => Some(argv.words().to_vec()),
                Plan::Shell(_) => None,
            },
            contained: approved.contained,
        });
        let env = self.command_env(skill, policy, temp.as_ref(), approved.contained, hook.is_some());
        let live = LiveOutput::new(self.sink.clone(), &self.settings.redactor);
        let spec = CommandSpec {
            plan,
            cwd: &self.settings.workdir,
            env: &env,
            timeout: hook.map_or(self.settings.command_timeout, |h| h.timeout),
            head_bytes: DEFAULT_HEAD_BYTES,
            tail_bytes: DEFAULT_TAIL_BYTES,
            redactor: &self.settings.redactor,
            confinement: confinement.as_ref(),
            live: live.receivers(),
            stdin: hook.map(|h| h.stdin),
        };
        let ran = process::run(&spec).await;
        live.finish();
        match ran {
            Ok(out) => {
                let removed = self.sweep(snapshot).await;
                let outcome = self.finished(skill, command, policy, &out, &removed);
                CommandRun::Ran { outcome, output: out }
            }
            Err(e) => {
                let program = match plan {
                    Plan::Argv(argv) => argv.program().display().to_string(),
                    Plan::Shell(_) => "sh".to_string(),
                };
                CommandRun::NotRun(self.not_started(format!(
                    "could not start {program} in {}: {e}",
                    self.settings.workdir.display()
                )))
            }
        }
    }

    /// The `command_finished` event and the model's result for a command that ran, with the
    /// sandbox's hint when its failure looks like a refused write or connection (and the agent
    /// does not know better: a script without `+x` is not the sandbox's doing).
    fn finished(
        &self,
        skill: &Skill,
        command: &str,
        policy: &Policy,
        out: &CommandOutput,
        removed: &[String],
    ) -> ToolOutcome {
        let succeeded = !out.timed_out && out.exit_code == Some(0);
        // A tool that reports on stdout (or a command that sent stderr there) is read there.
        let said = if out.stderr.text.trim().is_empty() {
            &out.stdout.text
        } else {
            &out.stderr.text
        };
        let guessed = (!out.cause_known)
            .then(|| hint::explain(policy, succeeded, said, &self.settings.workdir))
            .flatten();
        let hint = guessed.map(|h| {
            h.naming_protected(&self.settings.sandbox.protected, &self.settings.workdir)
                .message()
        });
        let stderr_tail = last_lines(&self.settings.redactor.redact(&out.stderr.text), STDERR_TAIL_LINES);
        // A script that prints its error on stdout still says why it failed.
        let stdout_tail = if succeeded || !stderr_tail.is_empty() {
            Vec::new()
        } else {
            last_lines(&self.settings.redactor.redact(&out.stdout.text), STDERR_TAIL_LINES)
        };
        self.emit(Event::CommandFinished {
            skill: skill.name.clone(),
            command: command.to_string(),
            exit_code: out.exit_code,
            signal: out.signal,
            duration_ms: u64::try_from(out.duration.as_millis()).unwrap_or(u64::MAX),
            stdout_bytes: out.stdout.total_bytes,
            stderr_bytes: out.stderr.total_bytes,
            timed_out: out.timed_out,
            stderr_tail,
            stdout_tail,
            sandbox_hint: hint.clone(),
        });
        let mut text = format_output(out, self.settings.command_timeout.as_secs());
        if let Some(hint) = hint {
            text.push_str(&format!("sandbox: {hint}\n"));
        }
        for line in removed {
            text.push_str(&format!("sandbox: {line}\n"));
        }
        ToolOutcome::ok(text)
    }

    /// Before a confined command: what its writable folders hold (a bounded walk, off the async
    /// threads), and the policy with the nested `.git` and the like found there kept read-only
    /// too (`None`: unchanged). Nothing when the command runs unconfined.
    async fn watch(&self, policy: &Policy) -> (Option<Snapshot>, Option<Policy>) {
        if policy.enforcement() != Enforcement::Confined {
            return (None, None);
        }
        let watch = Watch::of(policy);
        let Ok(snapshot) = tokio::task::spawn_blocking(move || Snapshot::before(watch)).await else {
            return (None, None);
        };
        let nested = snapshot.nested(MAX_NESTED_KEPT);
        let kept = (policy.read_only_unavailable.is_none() && !nested.is_empty()).then(|| {
            let mut kept = policy.clone();
            kept.read_only
                .extend(nested.into_iter().filter(|p| !policy.read_only.contains(p)));
            kept
        });
        (Some(snapshot), kept)
    }

    /// After the command: remove what it created that runs later (`.envrc`, a nested `.git` …),
    /// each with a warning; the lines for the model.
    async fn sweep(&self, snapshot: Option<Snapshot>) -> Vec<String> {
        let Some(snapshot) = snapshot else {
            return Vec::new();
        };
        let swept = tokio::task::spawn_blocking(move || snapshot.sweep())
            .await
            .unwrap_or_default();
        let lines = swept.messages();
        for message in &lines {
            self.emit(Event::Warning {
                message: message.clone(),
            });
        }
        lines
    }

    /// A command that could not start: a warning for the user, the reason for the model.
    fn not_started(&self, message: String) -> ToolOutcome {
        self.emit(Event::Warning {
            message: message.clone(),
        });
        ToolOutcome::failed(message)
    }

    /// What runs, once the policy (or a person) allowed it; else why not. A command the sandbox
    /// must refuse (`strict` where the kernel cannot enforce it) is not even asked about.
    /// `containable`: the sandbox could wall in any command here; the flag returned says the plan
    /// runs contained (the caller then tightens the walls).
    async fn approve(
        &self,
        skill: &Skill,
        command: &str,
        policy: &Policy,
        containable: bool,
    ) -> Result<(Plan, bool), Refusal> {
        // Before anything is asked: a command of a skill missing what it needs would fail halfway.
        if let Some(reason) = self.unmet(skill) {
            return Err(reason);
        }
        if let Some(reason) = self.untrusted(skill).await {
            return Err(reason);
        }
        if let Enforcement::Refused(why) = policy.enforcement() {
            return Err(why);
        }
        let mut scope = scope_of(skill, matches!(policy.enforcement(), Enforcement::Unconfined));
        scope.containable = containable;
        scope.user_grants = self.settings.sandbox.extra.commands.clone();
        scope.workdir = self.settings.workdir.clone();
        let plan = match approval::evaluate(self.settings.approve, command, &scope) {
            Verdict::Contained(plan) => return Ok((plan, true)),
            verdict => self.decide(skill, command, policy, verdict).await?,
        };
        Ok((plan, false))
    }

    /// What a person (or the lack of one) decides about a verdict that is not contained.
    async fn decide(&self, skill: &Skill, command: &str, policy: &Policy, verdict: Verdict) -> Result<Plan, Refusal> {
        match verdict {
            // Pre-approval leans on the walls; where a protected place beneath a writable one
            // cannot be kept read-only, a person decides instead (docs/design.md#approval-boundary).
            Verdict::Run(plan)
                if self.settings.approve == ApprovalPolicy::Auto && !policy.guard.unguarded.is_empty() =>
            {
                let why = format!(
                    "not run without asking: {} cannot be kept read-only in the folders commands may write",
                    policy.guard.unguarded.join("; ")
                );
                if !self.approver.can_answer() {
                    return Err(format!(
                        "{why}; approve it on a terminal, or start agent in a folder that holds no protected place"
                    ));
                }
                if self.ask_person(skill, command, policy).await {
                    Ok(plan)
                } else {
                    Err("denied by the user".to_string())
                }
            }
            Verdict::Run(plan) | Verdict::Contained(plan) => Ok(plan),
            Verdict::Deny(reason) => Err(reason),
            Verdict::AskUser(pending) if !self.approver.can_answer() => Err(no_terminal(pending.plan())),
            Verdict::AskUser(pending) => {
                // The person sees exactly what would run: a shell command with its leading skill
                // script made absolute, as approval rewrote it.
                let shown = match pending.plan() {
                    Plan::Shell(shell) => shell.command(),
                    Plan::Argv(_) => command,
                };
                if self.ask_person(skill, shown, policy).await {
                    Ok(pending.approve())
                } else {
                    Err("denied by the user".to_string())
                }
            }
        }
    }

    /// Ask the person whether `shown` may run for `skill` under `policy`.
    async fn ask_person(&self, skill: &Skill, shown: &str, policy: &Policy) -> bool {
        let approver = self.approver.clone();
        let request = ApprovalRequest {
            skill: skill.name.clone(),
            command: self.settings.redactor.redact(shown).into_owned(),
            cwd: self.settings.workdir.display().to_string(),
            sandbox: policy.clone(),
        };
        tokio::task::spawn_blocking(move || approver.ask(&request))
            .await
            .unwrap_or(false)
    }

    /// A bundled skill's files on disk are put back as the binary has them before its command runs
    /// (docs/sandbox.md, "Bundled skills run as shipped"), with a warning naming what was changed:
    /// the command then runs what shipped. Its instructions were read at the start of the run, so a
    /// changed `SKILL.md` (which could have granted more) refuses the command until the next run
    /// reads the restored one; so does a copy that cannot be restored.
    async fn as_shipped(&self, skill: &Skill) -> Result<(), Refusal> {
        if skill.root_kind != RootKind::Bundled {
            return Ok(());
        }
        // Every bundled skill, not only this one: one calls another's script (`report`).
        let root = skill.dir.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
        let now = tokio::task::spawn_blocking(move || crate::skills::bundled::restore_all(&root))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
            .map_err(|e| {
                format!(
                    "the bundled skill {} differs from the copy in the binary and could not be restored ({e}); not run",
                    skill.name
                )
            })?;
        for (name, files) in crate::skills::bundled::restored_at_start().iter().chain(&now) {
            self.emit(Event::Warning {
                message: format!(
                    "the bundled skill {name} was changed on disk ({}); restored from the copy in the binary, which is what runs",
                    files.join(", ")
                ),
            });
        }
        if now
            .iter()
            .any(|(name, files)| *name == skill.name && files.iter().any(|f| f == "SKILL.md"))
        {
            return Err(format!(
                "the bundled skill {}'s SKILL.md was changed on disk after this run read it; it is restored, and its \
                 commands run again once agent is started anew",
                skill.name
            ));
        }
        Ok(())
    }

    /// Whether `skill` is installed (`skills-lock.json` lists it) or bundled: its folder is then
    /// read-only to its own commands, so no run can change what was recorded.
    async fn is_locked(&self, skill: &Skill) -> bool {
        if skill.root_kind == RootKind::Bundled {
            return true;
        }
        let dir = skill.dir.clone();
        tokio::task::spawn_blocking(move || Installed::of(&dir).is_some())
            .await
            .unwrap_or(true)
    }

    /// Project skills run commands only once their folder is trusted with their current content
    /// (docs/design.md#folder-trust). `--yes` does not stand in for that; `--approve no` runs
    /// nothing anyway.
    pub(super) async fn untrusted(&self, skill: &Skill) -> Option<String> {
        if self.settings.approve == ApprovalPolicy::No {
            return None;
        }
        if let Some(changed) = self.changed_since_installed(skill).await {
            return Some(changed);
        }
        if skill.root_kind != RootKind::Project {
            return None;
        }
        let trust = self.settings.trust.clone();
        let (t, dir) = (trust.clone(), skill.dir.clone());
        // Hashing reads the skill's files: off the async threads.
        let standing = tokio::task::spawn_blocking(move || (!t.skill_may_run(&dir)).then(|| t.skill_standing(&dir)))
            .await
            .unwrap_or(Some(None));
        let why = match standing {
            None => return None,
            Some(Some(comparison @ Comparison::Unverifiable(_))) => comparison.describe(),
            Some(Some(comparison)) if comparison != Comparison::Same => {
                format!("changed since it was trusted: {}", comparison.describe())
            }
            Some(_) => "new, or not trusted".into(),
        };
        let folder = trust.folder().display().to_string();
        let refusal = format!(
            "the project skill {} is not trusted ({why}); \
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
}

/// What approval needs of a skill: its folder, entry script and grants, and whether its command
/// would run without the sandbox.
fn scope_of(skill: &Skill, unconfined: bool) -> SkillScope {
    SkillScope {
        dir: skill.dir.clone(),
        entry: skill.entry.clone(),
        grants: skill.allowed_tools.clone(),
        unconfined,
        ..SkillScope::default()
    }
}

/// How a command of a skill ended: it ran (its output, and the model's text of it), or it did not.
pub(super) enum CommandRun {
    /// It started; `output` is what it printed, capped and redacted.
    Ran {
        outcome: ToolOutcome,
        output: CommandOutput,
    },
    /// Denied, refused or not started: why, as the model reads it.
    NotRun(ToolOutcome),
}

impl CommandRun {
    /// What the model reads of it.
    pub(super) fn into_outcome(self) -> ToolOutcome {
        match self {
            Self::Ran { outcome, .. } | Self::NotRun(outcome) => outcome,
        }
    }
}

/// A plan someone (or the policy) allowed, and whether it runs contained.
struct Approved {
    plan: Plan,
    contained: bool,
}

/// Why a command that needs a yes was denied without a terminal, with the narrowest way that
/// would have let it run: `--approve auto` for the skill's own literal script; for anything else
/// a yes on a terminal or a grant, never `--yes` (it would let every command through).
fn no_terminal(plan: &Plan) -> String {
    match plan {
        Plan::Argv(_) => "needs approval but there is no terminal to ask on; rerun with --approve auto to let \
                          the skill's own scripts run"
            .to_string(),
        Plan::Shell(shell) => format!(
            "needs approval ({}) but there is no terminal to ask on; {}",
            shell.why(),
            plan.narrowest_way()
        ),
    }
}
