//! `agent skills list|show|trust`: what discovery found, for people and for scripts.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use serde_json::json;

use super::skill_list;
use crate::cli::SkillsCommand;
use crate::config::Config;
use crate::exec::trust::TrustStore;
use crate::exit::{AppError, ExitCode};
use crate::skills::Diagnostic;
use crate::skills::discover::{Discovery, RootKind, SkillRoot, discover};
use crate::skills::lint::{Rules, catalog_bytes, lint};
use crate::skills::search::SkillIndex;
use crate::skills::{Severity, Skill};

pub fn run(action: &SkillsCommand, config: &Config, discovery: &Discovery, json: bool) -> Result<ExitCode, AppError> {
    let trust = TrustStore::load();
    let mut out = std::io::stdout().lock();
    match action {
        SkillsCommand::List => {
            list(&mut out, discovery, &trust, json);
            Ok(ExitCode::Answered)
        }
        SkillsCommand::Show { name } => {
            let Some(skill) = discovery.skills.iter().find(|s| s.name == *name) else {
                let names: Vec<&str> = discovery.skills.iter().map(|s| s.name.as_str()).collect();
                return Err(AppError::usage(format!(
                    "no skill named {name:?}; known: {}",
                    names.join(", ")
                )));
            };
            let body = skill.read_body().unwrap_or_else(|e| format!("(cannot read body: {e})"));
            if json {
                let mut v = summary(skill, &trust);
                v["files"] = json!(skill.bundled_files(1000));
                v["license"] = json!(skill.license);
                v["compatibility"] = json!(skill.compatibility);
                v["version"] = json!(skill.version);
                v["body"] = json!(body);
                v["diagnostics"] = json!(skill.diagnostics);
                let _ = writeln!(out, "{v}");
            } else {
                let _ = writeln!(
                    out,
                    "name:        {}\ndescription: {}\nfolder:      {}\nroot:        {}\ndialect:     {}",
                    skill.name,
                    skill.description,
                    skill.dir.display(),
                    skill.root.display(),
                    skill.dialect
                );
                if let Some(e) = &skill.entry {
                    let _ = writeln!(out, "entry:       {e}");
                }
                let files = skill.bundled_files(50);
                if !files.is_empty() {
                    let _ = writeln!(out, "files:       {}", files.join(", "));
                }
                if !skill.allowed_tools.is_empty() {
                    let _ = writeln!(out, "allowed:     {}", skill.allowed_tools.join(" "));
                }
                if let Some(reason) = blocked_reason(skill, &trust) {
                    let _ = writeln!(out, "blocked:     {reason}");
                }
                for d in &skill.diagnostics {
                    let _ = writeln!(out, "{:?}: {d}", d.severity);
                }
                let _ = writeln!(out, "\n{}", body.trim());
            }
            Ok(ExitCode::Answered)
        }
        SkillsCommand::Check { dirs, strict, spec } => {
            let rules = Rules {
                strict: *strict,
                agent_skills_everywhere: spec.is_some(),
            };
            check(dirs, rules, discovery, json)
        }
        SkillsCommand::Search { query, limit } => {
            let query = query.join(" ");
            let index = SkillIndex::build(&discovery.skills);
            let hits = index.search(&query, *limit);
            if json {
                let results: Vec<_> = hits
                    .iter()
                    .enumerate()
                    .map(|(rank, h)| {
                        let s = &discovery.skills[h.index];
                        json!({"rank": rank + 1, "name": s.name, "score": h.score, "description": s.description, "dir": s.dir})
                    })
                    .collect();
                let _ = writeln!(out, "{}", json!({"v": 1, "query": query, "results": results}));
            } else if hits.is_empty() {
                eprintln!("no skill matches {query:?}");
            } else {
                for (rank, h) in hits.iter().enumerate() {
                    let s = &discovery.skills[h.index];
                    let desc: String = s.description.chars().take(90).collect();
                    let _ = writeln!(out, "{:>2}. {:<20} {:>6.2}  {desc}", rank + 1, s.name, h.score);
                }
            }
            Ok(ExitCode::Answered)
        }
        SkillsCommand::New { name, scp, dir } => super::skill_new::run(name, *scp, dir.as_deref(), config, json),
        SkillsCommand::Eval { .. } => Err(AppError::internal("eval runs through the session, not here")),
        SkillsCommand::Trust { dirs } => {
            let targets: Vec<PathBuf> = if dirs.is_empty() {
                config
                    .skill_roots
                    .iter()
                    .filter(|r| r.kind == RootKind::Project && r.path.is_dir())
                    .map(|r| r.path.clone())
                    .collect()
            } else {
                dirs.clone()
            };
            if targets.is_empty() {
                return Err(AppError::usage(
                    "no project skill folder here (./.agents/skills or ./skills); name the folder to trust",
                ));
            }
            for dir in targets {
                if !dir.is_dir() {
                    return Err(AppError::usage(format!("{} is not a folder", dir.display())));
                }
                let key = trust.trust(&dir).map_err(AppError::config)?;
                let _ = writeln!(out, "trusted {}", key.display());
            }
            Ok(ExitCode::Answered)
        }
    }
}

/// `skills list`: JSON, a table on a terminal, tab-separated lines when piped; notes on stderr.
fn list(out: &mut dyn Write, discovery: &Discovery, trust: &TrustStore, json: bool) {
    if json {
        let skills: Vec<_> = discovery.skills.iter().map(|s| summary(s, trust)).collect();
        let problems: Vec<_> = discovery
            .skipped
            .iter()
            .chain(&discovery.warnings)
            .map(|d| d.to_string())
            .collect();
        let _ = writeln!(out, "{}", json!({"v": 1, "skills": skills, "problems": problems}));
    } else {
        if std::io::stdout().is_terminal() {
            let width = skill_list::terminal_width(&console::Term::stdout());
            if !discovery.skills.is_empty() {
                for line in skill_list::table_lines(&discovery.skills, trust, width) {
                    let _ = writeln!(out, "{line}");
                }
            }
        } else {
            skill_list::write_tsv(out, &discovery.skills, trust);
        }
        let any_untrusted = discovery.skills.iter().any(|s| skill_list::is_untrusted(s, trust));
        for d in discovery.skipped.iter().chain(&discovery.warnings) {
            eprintln!("warning: {d}");
        }
        if any_untrusted {
            eprintln!("untrusted: project skills can't run commands until you run `agent skills trust` here");
        }
        if discovery
            .skills
            .iter()
            .any(|s| s.diagnostics.iter().any(|d| d.severity >= Severity::Warning))
        {
            eprintln!("warnings: `agent skills show NAME` lists them with file, line and fix");
        }
        if discovery.skills.is_empty() {
            eprintln!("no skills found; see README \"Where skills come from\"");
        }
    }
}

/// Why a skill cannot run commands at all, if it can't.
fn blocked_reason(skill: &Skill, trust: &TrustStore) -> Option<String> {
    skill_list::is_untrusted(skill, trust).then(|| {
        format!(
            "project folder {} is not trusted: run `agent skills trust` there once, or use --yes",
            skill.root.display()
        )
    })
}

fn summary(s: &Skill, trust: &TrustStore) -> serde_json::Value {
    let blocked = blocked_reason(s, trust);
    json!({
        "name": s.name,
        "description": s.description,
        "dir": s.dir,
        "root": s.root,
        "root_kind": s.root_kind,
        "dialect": s.dialect,
        "entry": s.entry,
        "allowed_tools": s.allowed_tools,
        "warnings": s.diagnostics.iter().filter(|d| d.severity >= Severity::Warning).count(),
        "trusted": blocked.is_none(),
        "blocked": blocked,
    })
}

/// `agent skills check`: every finding per skill, a summary, and exit 1 on errors.
fn check(dirs: &[PathBuf], rules: Rules, configured: &Discovery, json: bool) -> Result<ExitCode, AppError> {
    let strict = rules.strict;
    let own;
    let discovery = if dirs.is_empty() {
        configured
    } else {
        for d in dirs {
            if !d.is_dir() {
                return Err(AppError::config(format!("{}: not a folder", d.display())));
            }
        }
        let roots: Vec<SkillRoot> = dirs.iter().map(|d| SkillRoot::new(d.clone(), RootKind::Flag)).collect();
        own = discover(&roots);
        &own
    };
    let counts_as_error = |d: &Diagnostic| d.severity == Severity::Error || (strict && d.severity == Severity::Warning);
    let mut errors = 0usize;
    let mut warnings = 0usize;
    let mut tally = |d: &Diagnostic| {
        if counts_as_error(d) {
            errors += 1;
        } else if d.severity == Severity::Warning {
            warnings += 1;
        }
    };
    let mut reports = Vec::new();
    for skill in &discovery.skills {
        let mut findings: Vec<Diagnostic> = skill.diagnostics.clone();
        findings.extend(lint(skill, rules));
        findings.iter().for_each(&mut tally);
        reports.push((skill, findings));
    }
    let problems: Vec<&Diagnostic> = discovery.skipped.iter().chain(&discovery.warnings).collect();
    problems.iter().for_each(|d| tally(d));
    let mut out = std::io::stdout().lock();
    if json {
        let skills: Vec<_> = reports
            .iter()
            .map(|(s, f)| {
                json!({
                    "name": s.name,
                    "dir": s.dir,
                    "dialect": s.dialect,
                    "catalog_bytes": catalog_bytes(s),
                    "ok": !f.iter().any(counts_as_error),
                    "findings": f,
                })
            })
            .collect();
        let _ = writeln!(
            out,
            "{}",
            json!({"v": 1, "strict": strict, "spec": rules.agent_skills_everywhere.then_some("agent-skills"), "errors": errors, "warnings": warnings, "skills": skills, "problems": problems})
        );
    } else {
        for (skill, findings) in &reports {
            let status = if findings.iter().any(counts_as_error) {
                "FAIL"
            } else if findings.iter().any(|d| d.severity == Severity::Warning) {
                "warn"
            } else {
                "ok"
            };
            let _ = writeln!(
                out,
                "{status:4}  {}  ({} B in the catalog)",
                skill.name,
                catalog_bytes(skill)
            );
            for d in findings {
                let level = if counts_as_error(d) {
                    "error"
                } else {
                    severity_word(d.severity)
                };
                let _ = writeln!(out, "      {level}: {d}");
            }
        }
        for d in &problems {
            let level = if counts_as_error(d) {
                "error"
            } else {
                severity_word(d.severity)
            };
            let _ = writeln!(out, "{level}: {d}");
        }
        let mode = match (strict, rules.agent_skills_everywhere) {
            (true, true) => " (--strict: warnings count as errors; Agent Skills rules for every skill)",
            (true, false) => " (--strict: warnings count as errors; each skill held to its own dialect)",
            (false, true) => " (Agent Skills rules for every skill)",
            (false, false) => "",
        };
        let _ = writeln!(
            out,
            "{} skill(s) checked, {} skipped: {errors} error(s), {warnings} warning(s){mode}",
            reports.len(),
            discovery.skipped.len()
        );
    }
    Ok(if errors > 0 {
        ExitCode::Internal
    } else {
        ExitCode::Answered
    })
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}
