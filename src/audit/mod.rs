//! The skill audit (docs/design.md#audit): a static reading of every file of a skill folder for
//! what the public incident reports found in poisoned marketplaces — download-and-execute lures
//! (also when written as "Prerequisites" for the user or the model), payloads and known campaign
//! indicators, credential access and exfiltration, reverse shells, persistence, obfuscation, hidden
//! text, prompt injection, over-broad grants and imitated names. Nothing in the folder is run.
//!
//! One file per rule class: `rules` (the text patterns, a table), `hidden` (invisible
//! characters, HTML comments), `files` (binaries and archives), `meta` (frontmatter grants and
//! names), `indicators` (the updatable data of `data/audit/indicators.txt`). `digest` is the
//! deterministic directory digest that provenance records and signatures cover.

pub(crate) mod digest;
mod evidence;
mod files;
mod flows;
mod hidden;
pub(crate) mod indicators;
mod meta;
mod refine;
mod rules;
mod rules_exec;
mod rules_lure;
mod scan;
pub(crate) mod signature;
mod walk;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The version of the rules, recorded with every verdict: the code's rule set, then the data's.
pub(crate) fn rules_version() -> String {
    format!("{RULES_CODE_VERSION}+{}", indicators::get().version)
}

/// Bumped whenever a rule is added, removed or changes severity.
const RULES_CODE_VERSION: &str = "2";

/// How much a finding matters; the gate refuses on `Critical` and asks on `High`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Level {
    /// Worth knowing; common in honest skills too.
    Low,
    /// Needs a look before trusting the skill.
    Medium,
    /// What malicious skills do; ask before installing.
    High,
    /// A lure or payload: refused unless the user confirms after seeing it.
    Critical,
}

impl Level {
    /// The lowercase name (`critical`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::Low => "low",
            Level::Medium => "medium",
            Level::High => "high",
            Level::Critical => "critical",
        }
    }
}

/// The family a rule belongs to; the benchmark reports detection per class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Class {
    /// Fetching code and running it in one step (`curl | sh`, `iex (iwr …)`).
    DownloadExecute,
    /// Shipped or linked executables, password-protected archives, raw-IP and paste-site URLs.
    Payload,
    /// A known campaign's address, host or file hash.
    Indicator,
    /// Reading keys, tokens, browser profiles, wallets, keychains.
    Credentials,
    /// Sending data to webhooks, bot APIs, tunnels or through DNS.
    Exfiltration,
    /// A shell served to a remote host.
    ReverseShell,
    /// Code that runs again later: cron, launch agents, systemd units, shell startup files.
    Persistence,
    /// Encoded or assembled code that is decoded and run.
    Obfuscation,
    /// Text a person does not see: zero-width and bidi characters, instructions in HTML comments.
    Hidden,
    /// Instructions aimed at the agent: override, conceal, skip confirmation, drop the sandbox.
    Injection,
    /// Grants wider than a skill needs (`allowed-tools: Bash(*)`).
    Permissions,
    /// A name that imitates a well-known skill or tool.
    Impersonation,
}

/// One thing the audit found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Finding {
    /// Stable rule id (`download-pipe-shell`).
    pub(crate) rule: String,
    pub(crate) class: Class,
    pub severity: Level,
    /// The file, relative to the audited folder (`SKILL.md`, `scripts/setup.sh`).
    pub(crate) file: PathBuf,
    /// 1-based line; 0 for a finding about the whole file.
    pub(crate) line: usize,
    /// The offending text: one line at most, control and invisible characters escaped, long
    /// encoded runs and secret-looking values replaced.
    pub(crate) evidence: String,
    /// Why it matters.
    pub(crate) why: String,
    /// What to do about it.
    pub(crate) advice: String,
}

impl Finding {
    /// `rule@file:line`: how an accepted finding is recorded in `skills-lock.json`.
    pub(crate) fn key(&self) -> String {
        format!("{}@{}:{}", self.rule, self.file.display(), self.line)
    }
}

/// Findings per severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Counts {
    pub(crate) critical: usize,
    pub(crate) high: usize,
    pub(crate) medium: usize,
    pub(crate) low: usize,
}

impl Counts {
    /// The counts of `findings`.
    pub(crate) fn of(findings: &[Finding]) -> Self {
        let mut counts = Self::default();
        for f in findings {
            match f.severity {
                Level::Critical => counts.critical += 1,
                Level::High => counts.high += 1,
                Level::Medium => counts.medium += 1,
                Level::Low => counts.low += 1,
            }
        }
        counts
    }
}

/// How findings of high or critical severity came to be accepted at install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Acceptance {
    /// A person saw them on the terminal and said yes.
    Confirmed,
    /// `--force`.
    Forced,
}

/// The audit's verdict as `skills-lock.json` records it (docs/skills-lock.md, `audit`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Verdict {
    /// The rules version that judged ([`rules_version`]).
    pub(crate) rules: String,
    /// The worst severity found; `null` when nothing was.
    pub(crate) worst: Option<Level>,
    pub(crate) counts: Counts,
    /// The findings of high or critical severity installed over, as `rule@file:line`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) accepted: Vec<String>,
    /// How they were accepted; absent when there were none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) accepted_by: Option<Acceptance>,
}

impl Verdict {
    /// The verdict of `audit`, nothing accepted yet.
    pub(crate) fn of(audit: &Audit) -> Self {
        Self {
            rules: rules_version(),
            worst: audit.worst(),
            counts: audit.counts(),
            accepted: Vec::new(),
            accepted_by: None,
        }
    }

    /// Whether the skill was installed over findings of high or critical severity.
    pub(crate) fn installed_over_findings(&self) -> bool {
        !self.accepted.is_empty()
    }
}

/// The audit of one skill folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Audit {
    /// The folder audited.
    pub(crate) dir: PathBuf,
    /// Files read.
    pub(crate) files: usize,
    /// Files too large or too many to read whole (their first bytes were still read); each is
    /// also a `not-audited` finding.
    pub(crate) partial: usize,
    /// Findings, worst first, then by file and line.
    pub(crate) findings: Vec<Finding>,
}

impl Audit {
    /// The worst severity found, if anything was.
    pub(crate) fn worst(&self) -> Option<Level> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// Findings per severity.
    pub(crate) fn counts(&self) -> Counts {
        Counts::of(&self.findings)
    }

    /// The findings at `level` or worse.
    pub(crate) fn at_least(&self, level: Level) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.severity >= level)
    }
}

/// Audit the skill folder `dir`: every regular file below it (`.git` skipped, symlinks not
/// followed), read up to a cap. Never fails, and never passes over anything in silence: what
/// could not be read whole (too large, unreadable, a pipe or device, a link out of the folder,
/// left out by the caps) is a `not-audited` finding of high severity, so no gate takes it for
/// clean.
pub(crate) fn audit_dir(dir: &Path) -> Audit {
    let data = indicators::get();
    let listing = walk::files(dir);
    let mut findings = Vec::new();
    let mut partial = listing.skipped;
    if listing.skipped > 0 {
        let why = format!("{} more file(s) or folder(s) past the audit's caps", listing.skipped);
        findings.push(not_audited(Path::new("."), why));
    }
    for (rel, why) in &listing.unread {
        findings.push(not_audited(rel, why.clone()));
    }
    for file in &listing.files {
        let read = match crate::support::fs::read_regular(&file.path, walk::MAX_FILE_BYTES) {
            Ok(read) => read,
            Err(e) => {
                findings.push(not_audited(&file.rel, format!("it cannot be read ({e})")));
                continue;
            }
        };
        let before = findings.len();
        let kind = files::binary_kind(&read.bytes);
        if let Some(kind) = kind {
            files::check_binary(&file.rel, &read.bytes, kind, data, &mut findings);
        }
        if let Some(text) = files::text_of(&read.bytes, kind) {
            scan_text(dir, &file.rel, &text, data, &mut findings);
        }
        cap_per_file(&mut findings, before);
        if read.truncated() && files::is_scanned(kind) {
            partial += 1;
            let why = format!("only its first {} bytes of {} were read", read.bytes.len(), read.size);
            findings.push(not_audited(&file.rel, why));
        }
    }
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.file.cmp(&b.file))
            .then(a.line.cmp(&b.line))
    });
    Audit {
        dir: dir.to_path_buf(),
        files: listing.files.len(),
        partial,
        findings,
    }
}

/// Every text rule over `text`, the content (or printable runs) of `rel`.
fn scan_text(dir: &Path, rel: &Path, text: &str, data: &indicators::Indicators, findings: &mut Vec<Finding>) {
    scan::scan(rel, text, data, findings);
    flows::scan(rel, text, data, findings);
    hidden::scan(rel, text, findings);
    if walk::is_skill_file(rel) {
        meta::scan(dir, text, data, findings);
    }
}

/// The finding for something of the folder the audit did not read in full.
fn not_audited(rel: &Path, why: String) -> Finding {
    Finding {
        rule: "not-audited".to_string(),
        class: Class::Payload,
        severity: Level::High,
        file: rel.to_path_buf(),
        line: 0,
        evidence: evidence::clean(&why, 0),
        why: format!("not audited: {why}; what it holds is unknown, so the skill cannot be called clean"),
        advice: "look at it yourself, or remove it, before trusting the skill".to_string(),
    }
}

/// The text rules over a piece of text that is not a file of a folder (a description proposed
/// by `skills tune`, before it is written into SKILL.md): every finding, `file` set to `name`.
pub(crate) fn audit_text(name: &str, text: &str) -> Vec<Finding> {
    let data = indicators::get();
    let mut findings = Vec::new();
    scan::scan(Path::new(name), text, data, &mut findings);
    flows::scan(Path::new(name), text, data, &mut findings);
    hidden::scan(Path::new(name), text, &mut findings);
    findings
}

/// The findings of medium severity or worse in the skill folders `keys` of `folder` (project
/// skills, keyed as folder trust keys them: `skills/weather`), leaving out skills without any.
/// What the folder-trust question shows and `agent trust` checks.
pub(crate) fn audit_keys<'a>(folder: &Path, keys: impl Iterator<Item = &'a String>) -> Vec<(String, Vec<Finding>)> {
    keys.map(|k| {
        let findings: Vec<Finding> = audit_dir(&folder.join(k))
            .findings
            .into_iter()
            .filter(|f| f.severity >= Level::Medium)
            .collect();
        (k.clone(), findings)
    })
    .filter(|(_, f)| !f.is_empty())
    .collect()
}

/// Most findings one file contributes: a generated file can match thousands of times, and the
/// first ones say all there is to say.
const MAX_FINDINGS_PER_FILE: usize = 50;

fn cap_per_file(findings: &mut Vec<Finding>, before: usize) {
    if findings.len() - before > MAX_FINDINGS_PER_FILE {
        // Keep the worst of them.
        findings[before..].sort_by_key(|f| std::cmp::Reverse(f.severity));
        findings.truncate(before + MAX_FINDINGS_PER_FILE);
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_benign;
#[cfg(test)]
mod tests_classes;
