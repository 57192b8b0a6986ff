//! `skills audit` for a person, and the findings the install gate and the trust question show.
//! Evidence was escaped by the audit; names and paths come from the skill and are escaped here.

use crate::audit::{Counts, Finding, Level};
use crate::output::audit::{AuditedSkill, KeyAdded, SkillAudit, SkillsVerified};
use crate::support::terminal_text::visible;

use super::report_text::Text;

/// The whole report: per skill a headline and its findings, then a tally.
pub(crate) fn audit(r: &SkillAudit) -> Text {
    let mut out = Vec::new();
    for s in &r.skills {
        out.push(headline(s));
        out.extend(finding_lines(&s.findings, usize::MAX));
        if let Some(opinion) = &s.llm_opinion {
            out.push("  second opinion from the model (not part of the verdict):".to_string());
            out.extend(opinion.lines().map(|l| format!("    {}", visible(l))));
        }
    }
    let mut err = Vec::new();
    err.push(format!(
        "audited {} skill(s) with rules {}: {}",
        r.skills.len(),
        r.rules,
        tally(&r.counts)
    ));
    Text { out, err }
}

fn headline(s: &AuditedSkill) -> String {
    let verdict = if s.findings.is_empty() {
        "clean".to_string()
    } else {
        tally(&s.counts)
    };
    format!(
        "{}  {}  {} ({} file(s))",
        visible(&s.name),
        visible(&s.dir.display().to_string()),
        verdict,
        s.files
    )
}

/// `2 critical, 1 high` (only the severities that occur), or `no findings`.
pub(crate) fn tally(c: &Counts) -> String {
    let parts: Vec<String> = [
        (c.critical, "critical"),
        (c.high, "high"),
        (c.medium, "medium"),
        (c.low, "low"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, name)| format!("{n} {name}"))
    .collect();
    if parts.is_empty() {
        "no findings".to_string()
    } else {
        parts.join(", ")
    }
}

/// At most `max` findings, each as: severity, rule, file:line; the evidence; why; what to do.
pub(crate) fn finding_lines(findings: &[Finding], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for f in findings.iter().take(max) {
        let place = if f.line > 0 {
            format!("{}:{}", f.file.display(), f.line)
        } else {
            f.file.display().to_string()
        };
        out.push(format!("  {:<8} {}  {}", f.severity.name(), f.rule, visible(&place)));
        out.push(format!("    │ {}", f.evidence));
        out.push(format!("    why: {}; {}", f.why, f.advice));
    }
    if findings.len() > max {
        out.push(format!(
            "  … {} more (`agent skills audit` lists them all)",
            findings.len() - max
        ));
    }
    out
}

/// The question the install gate asks about `findings` of skill `name`, worst `worst`.
pub(crate) fn gate_question(name: &str, findings: &[Finding], worst: Level) -> String {
    let mut q = format!(
        "The audit of {} found {} finding(s), the worst {}:\n",
        visible(name),
        findings.len(),
        worst.name()
    );
    for line in finding_lines(findings, 12) {
        q.push_str(&line);
        q.push('\n');
    }
    q.push_str(if worst == Level::Critical {
        "This looks like a malicious skill. Install it anyway? Type `install` to confirm: "
    } else {
        "Install it anyway? [y/N] "
    });
    q
}

/// `skills verify`: per installed skill, whether its digest still matches and its signature.
pub(crate) fn verified(r: &SkillsVerified) -> Text {
    let out = r
        .skills
        .iter()
        .map(|s| {
            let digest = match (&s.recorded, s.matches) {
                (None, _) => "no digest recorded (installed before digests; `skills update` records one)",
                (Some(_), true) => "digest matches",
                (Some(_), false) => "CHANGED since install: the digest differs",
            };
            format!(
                "{}  {}  {digest}, {}",
                visible(&s.name),
                visible(&s.dir.display().to_string()),
                s.signature.name()
            )
        })
        .collect();
    let err = if r.skills.is_empty() {
        vec!["no skill installed with `agent skills add` to verify".to_string()]
    } else {
        Vec::new()
    };
    Text { out, err }
}

/// `skills keys add`: where the key went.
pub(crate) fn key_added(r: &KeyAdded) -> Text {
    let mut out = vec![format!("added key {} to {}", visible(&r.key), r.path.display())];
    for prefix in &r.require_for {
        out.push(format!("  skills from {} must now be signed by it", visible(prefix)));
    }
    Text { out, err: Vec::new() }
}
