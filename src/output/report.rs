//! The results of subcommands as typed values. With `--json` each is one JSON document per line,
//! `{"v":1,…}` with exactly the fields below (docs/events.md, "Subcommands"); a person gets the
//! same facts as text. Fields marked `#[serde(skip)]` only shape the human text.

use std::path::PathBuf;

use serde::Serialize;

use super::ChatReply;
use super::session::{SessionExported, SessionList, SessionRemoved};
use crate::exec::sandbox::{Mode, Policy};
use crate::skills::roots::RootKind;
use crate::skills::{Diagnostic, Dialect};

/// The result of a command, for a renderer to show.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Report {
    /// `skills list`.
    SkillList(SkillList),
    /// `skills show NAME`.
    SkillShow(Box<SkillShow>),
    /// `skills search QUERY`.
    SkillSearch(SkillSearch),
    /// `skills check`.
    SkillCheck(SkillCheck),
    /// `skills audit [PATH|SOURCE]`.
    SkillAudit(super::audit::SkillAudit),
    /// `skills verify [NAME]`.
    SkillsVerified(super::audit::SkillsVerified),
    /// `skills keys add KEY`.
    KeyAdded(super::audit::KeyAdded),
    /// `skills new NAME`.
    SkillNew(SkillNew),
    /// One case of `skills eval`, as soon as it is decided (progress: the summary holds every case).
    EvalCase(EvalCase),
    /// `skills eval`, once every case ran.
    Eval(EvalSummary),
    /// `skills eval --draft SKILL`.
    EvalDraft(EvalDraft),
    /// `skills tune SKILL`.
    Tune(TuneReport),
    /// `agent trust [DIR]`.
    Trusted(Trusted),
    /// `skills add SOURCE`.
    SkillsAdded(super::library::SkillsAdded),
    /// `skills outdated`.
    SkillsOutdated(super::library::SkillsOutdated),
    /// `skills update [NAME]`.
    SkillsUpdated(super::library::SkillsUpdated),
    /// `skills remove NAME`.
    SkillRemoved(super::library::SkillRemoved),
    /// `agent trust --skill NAME`.
    SkillTrusted(super::library::SkillTrusted),
    /// `man --dir DIR`.
    ManPages(ManPages),
    /// `sandbox status`.
    SandboxStatus(SandboxStatus),
    /// Generated text printed exactly as it is, in every mode: a completion script, a manual page.
    Text(String),
    /// A remark about how the command was spelled (a moved subcommand); never part of a document.
    Note(String),
    /// The answer to a chat command (`/model`, `/skills` …).
    Chat(ChatReply),
    /// `agent sessions list`.
    SessionList(SessionList),
    /// `agent sessions export ID -o FILE`.
    SessionExported(SessionExported),
    /// `agent sessions rm ID`.
    SessionRemoved(SessionRemoved),
    /// `agent mcp list` (and `/mcp`).
    McpServers(super::mcp::McpServerList),
    /// `agent mcp tools [SERVER]`.
    McpTools(super::mcp::McpToolList),
    /// `agent mcp add|remove`.
    McpChanged(super::mcp::McpChanged),
    /// `agent hooks list`.
    Hooks(super::hooks::HookList),
}

/// What a listing says about one skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SkillSummary {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) dir: PathBuf,
    pub(crate) root: PathBuf,
    pub(crate) root_kind: RootKind,
    /// Whose folder the root is: `agent`, or another agent's (`claude`, `codex`, `gemini`, `opencode`).
    pub(crate) tool: crate::skills::roots::Tool,
    pub(crate) dialect: Dialect,
    pub(crate) entry: Option<String>,
    pub(crate) allowed_tools: Vec<String>,
    /// How many findings of warning level or worse the loader made.
    pub(crate) warnings: usize,
    /// Their codes, in order (`skills show` has the findings in full).
    pub(crate) codes: Vec<&'static str>,
    /// Whether the skill may run commands as far as folder trust goes.
    pub(crate) trusted: bool,
    /// Why it may not, naming `agent trust`.
    pub(crate) blocked: Option<String>,
    /// Bytes its line adds to every request's catalog (what listing it costs).
    pub(crate) catalog_bytes: usize,
    /// Its `paths:` match no file of the working folder: kept out of the catalog here.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) hidden_by_paths: bool,
    /// Installed (`skills add`/`update`) over audit findings of high or critical severity: how
    /// many were accepted (skills-lock.json has them). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) accepted_findings: Option<usize>,
    /// Its publisher signature (SKILL.sig) against your keys: present for installed skills and
    /// for skills that ship a signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) signature: Option<crate::audit::signature::Status>,
}

/// `skills list`: every skill found, and the problems that belong to no single skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SkillList {
    pub(crate) skills: Vec<SkillSummary>,
    /// Skipped skill folders, unreadable roots and shadowed names, one line each.
    pub(crate) problems: Vec<String>,
    /// The same problems as findings, with their codes.
    pub(crate) findings: Vec<Diagnostic>,
    /// The most bytes of catalog one request holds; over it, each request lists the skills most
    /// relevant to it that fit.
    pub(crate) catalog_budget: usize,
}

/// `skills show NAME`: one skill in full.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SkillShow {
    #[serde(flatten)]
    pub(crate) summary: SkillSummary,
    /// Bundled files relative to the skill folder, sorted (at most 1000).
    pub(crate) files: Vec<String>,
    pub(crate) license: Option<String>,
    pub(crate) compatibility: Option<String>,
    pub(crate) version: Option<String>,
    /// The `SKILL.md` instructions, or why they could not be read.
    pub(crate) body: String,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// What its commands may write and reach under this run's sandbox settings.
    pub(crate) sandbox: Policy,
    /// Who may invoke it, and its argument hint.
    pub(crate) invocation: crate::skills::load::invocation::Invocation,
    /// Each declared need (`requires`, `skill.json`'s required `env[]`) and whether it is met here.
    pub(crate) needs: Vec<crate::skills::check::needs_met::Need>,
}

/// `skills search QUERY`: skills ranked by relevance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SkillSearch {
    pub(crate) query: String,
    /// `lexical`, or `fused` with the embeddings of `model`.
    pub(crate) ranking: &'static str,
    /// The embeddings model, when the ranking is fused.
    pub(crate) model: Option<String>,
    pub(crate) results: Vec<SearchHit>,
}

/// One ranked skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SearchHit {
    /// 1 for the best match.
    pub(crate) rank: usize,
    pub(crate) name: String,
    /// What the order is by: the fused score, or the lexical score.
    pub(crate) score: f64,
    /// The BM25F score (0 when no word matches).
    pub(crate) lexical: f64,
    /// Cosine similarity of the request's and the skill's embeddings, when fused.
    pub(crate) semantic: Option<f64>,
    pub(crate) description: String,
    pub(crate) dir: PathBuf,
}

/// `skills check`: every finding per skill and a tally.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SkillCheck {
    /// Warnings count as errors.
    pub(crate) strict: bool,
    /// `agent-skills` when every skill is held to that spec.
    pub(crate) spec: Option<&'static str>,
    pub(crate) errors: usize,
    pub(crate) warnings: usize,
    /// Skill folders that could not be loaded at all (each is also in `problems`).
    pub(crate) skipped: usize,
    pub(crate) skills: Vec<CheckedSkill>,
    /// Findings that belong to no loaded skill: skipped folders, roots, shadowed names.
    pub(crate) problems: Vec<Diagnostic>,
}

impl SkillCheck {
    /// Whether a finding fails the check under these rules.
    pub(crate) fn counts_as_error(&self, d: &Diagnostic) -> bool {
        use crate::skills::Severity;
        d.severity == Severity::Error || (self.strict && d.severity == Severity::Warning)
    }
}

/// One checked skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CheckedSkill {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    pub(crate) dialect: Dialect,
    /// Bytes this skill adds to every request's catalog.
    pub(crate) catalog_bytes: usize,
    /// No finding fails the check.
    pub(crate) ok: bool,
    pub(crate) findings: Vec<Diagnostic>,
    /// The fields it uses that other tools define, and who honours them (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) portability: Vec<crate::skills::check::portable_fields::FieldSupport>,
}

/// `skills new NAME`: the skeleton written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SkillNew {
    /// The new skill folder.
    pub(crate) created: PathBuf,
    pub(crate) dialect: Dialect,
    /// The files written, relative to `created`.
    pub(crate) files: Vec<&'static str>,
    /// Whether `agent` searches the folder it was written in.
    pub(crate) found_by_agent: bool,
    /// The project folder the skill was written into when that folder is not trusted with it:
    /// the skill is listed, but runs no command until `agent trust` there.
    pub(crate) untrusted_project: Option<PathBuf>,
    /// What each file is for, in the order of `files`.
    #[serde(skip)]
    pub(crate) purposes: Vec<&'static str>,
}

/// One routing case of `skills eval`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EvalCase {
    pub(crate) prompt: String,
    /// The skill the case is about, or `none` (no skill should be chosen).
    pub(crate) expected: String,
    /// Whether `expected` should be chosen (a should-not case when `false`).
    pub(crate) should_trigger: bool,
    /// `train` or `validation`: the case's half of the stable split.
    pub(crate) split: String,
    /// The skill the model activated in the first run, or `none`.
    pub(crate) activated: String,
    /// What it activated in each run, in run order.
    pub(crate) activations: Vec<String>,
    pub(crate) runs: u32,
    /// Runs in which `expected` was chosen (with `none`: in which any skill was).
    pub(crate) triggers: u32,
    pub(crate) trigger_rate: f64,
    /// Where `expected` stood in the catalog the model was shown (1-based, first run); `None` when
    /// it was not listed.
    pub(crate) shown_at: Option<usize>,
    /// The model found `expected` with `search_skills` (the catalog was over its budget).
    pub(crate) found_by_search: bool,
    pub(crate) pass: bool,
}

/// `skills eval`: pass rates of one half of the split.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EvalHalf {
    pub(crate) passed: usize,
    pub(crate) total: usize,
    /// `passed / total`; `None` when the half holds no case.
    pub(crate) pass_rate: Option<f64>,
}

/// `skills eval`: how reliably one skill is chosen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EvalSkill {
    pub(crate) skill: String,
    /// Mean trigger rate over its should-trigger cases; `None` without any.
    pub(crate) should_rate: Option<f64>,
    /// Mean trigger rate over its should-not-trigger cases (lower is better); `None` without any.
    pub(crate) should_not_rate: Option<f64>,
    pub(crate) passed: usize,
    pub(crate) total: usize,
    /// Its failed cases' requests, worst first (at most three).
    pub(crate) worst: Vec<String>,
}

/// `skills eval`: how many cases passed, against the threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EvalSummary {
    pub(crate) passed: usize,
    pub(crate) total: usize,
    pub(crate) pass_rate: f64,
    /// The lowest passing rate (`--min-rate`).
    pub(crate) threshold: f64,
    /// The pass rate reached the threshold.
    pub(crate) ok: bool,
    pub(crate) llm_calls: u32,
    /// Runs of each case.
    pub(crate) runs: u32,
    pub(crate) train: EvalHalf,
    pub(crate) validation: EvalHalf,
    pub(crate) skills: Vec<EvalSkill>,
    pub(crate) cases: Vec<EvalCase>,
}

/// `skills eval --draft SKILL`: the cases added to the skill's routing file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EvalDraft {
    pub(crate) skill: String,
    /// The routing file written (`tests/routing.yaml` in the skill).
    pub(crate) file: PathBuf,
    /// Cases added.
    pub(crate) added: usize,
    /// Of those, should-trigger cases (the rest are should-not).
    pub(crate) should_trigger: usize,
    /// Cases the file already held, kept as they were.
    pub(crate) kept: usize,
}

/// `skills tune SKILL`: the description before and after, how each did, and what was tried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TuneReport {
    pub(crate) skill: String,
    pub(crate) before: String,
    /// The best description found (the same as `before` when none did better).
    pub(crate) after: String,
    /// Pass rates of the train and validation halves, before and after.
    pub(crate) train_before: f64,
    pub(crate) train_after: f64,
    pub(crate) validation_before: f64,
    pub(crate) validation_after: f64,
    /// Each proposal, with its rates or why it was refused, in order.
    pub(crate) tried: Vec<String>,
    /// Why the loop stopped.
    pub(crate) stopped: String,
    /// Tokens used (the server's counts, else estimated).
    pub(crate) tokens: u64,
    pub(crate) llm_calls: u32,
    /// The file the new description was written to; `None`: not written.
    pub(crate) written: Option<PathBuf>,
}

/// `agent trust [DIR]`: each folder trusted, one JSON line each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Trusted {
    pub(crate) folders: Vec<TrustedFolder>,
}

/// One folder trusted as it is now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TrustedFolder {
    /// The folder (canonical).
    pub(crate) trusted: PathBuf,
    /// The keys its `.env` sets; `null` when it has none.
    pub(crate) dotenv_keys: Option<Vec<String>>,
    /// Its project skills, by key relative to the folder (`skills/weather`).
    pub(crate) skills: Vec<String>,
}

/// `man --dir DIR`: the pages written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ManPages {
    pub(crate) written: Vec<PathBuf>,
}

/// `sandbox status`: what this machine's kernel can enforce, and whether a confined command really
/// cannot write outside its folders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SandboxStatus {
    /// The mode this run's settings select (`--sandbox`, `AGENT_SANDBOX`).
    pub(crate) mode: Mode,
    /// What commands get under it: `landlock-v7`-style, `unavailable` or `off`.
    pub(crate) in_force: String,
    /// The Landlock ABI the kernel reports (0: none).
    pub(crate) kernel_abi: u32,
    /// The ABI `agent` uses: the kernel's, capped at the newest tested one (and by `AGENT_SANDBOX_ABI`).
    pub(crate) abi: u32,
    /// Why there is no Landlock, when there is none.
    pub(crate) missing: Option<String>,
    /// Writes are confined.
    pub(crate) filesystem: bool,
    /// Truncating files outside the writable folders is refused too (ABI 3).
    pub(crate) truncate: bool,
    /// TCP connect and bind can be refused (ABI 4; `strict` needs it).
    pub(crate) tcp: bool,
    /// Device ioctl is refused (ABI 5).
    pub(crate) device_ioctl: bool,
    /// Signals and abstract Unix sockets are scoped under `strict` (ABI 6).
    pub(crate) scopes: bool,
    /// The seccomp filter `strict` adds (UDP and other sockets) can be built here.
    pub(crate) seccomp: bool,
    /// A confined `sh` could not create a file outside its folders; `null` when there was nothing
    /// to check or the check could not run.
    pub(crate) enforced: Option<bool>,
    /// What the check did or why it could not.
    pub(crate) check: String,
    /// What the mode promises that this machine cannot keep.
    pub(crate) warning: Option<String>,
}
