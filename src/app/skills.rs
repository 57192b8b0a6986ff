//! `agent skills list|show|search|check`: what discovery found, for people and for scripts.
//! Names, descriptions, paths and bodies come from skill folders, so human output shows them
//! with anything invisible escaped, and JSON output escapes what JSON itself would leave raw.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cli::SkillsCommand;
use crate::config::Config;
use crate::exec::trust::FolderTrust;
use crate::exit::{AppError, ExitCode};
use crate::skills::Diagnostic;
use crate::skills::discover::{Discovery, RootKind, SkillRoot, discover};
use crate::skills::lint::{Rules, catalog_bytes, lint};
use crate::skills::search::SkillIndex;
use crate::skills::{Severity, Skill};
use crate::support::terminal_text::{for_terminal, visible};
use crate::ui::json::escape_invisible;
use crate::ui::skill_list;

/// One line of outside text for a listing.
fn one(text: &str) -> String {
    visible(text).into_owned()
}

fn path(p: &Path) -> String {
    one(&p.display().to_string())
}

/// A JSON line with every invisible character escaped.
fn json_line(out: &mut impl Write, value: &serde_json::Value) {
    let _ = writeln!(out, "{}", escape_invisible(&value.to_string()));
}

pub fn run(
    action: &SkillsCommand,
    config: &Config,
    discovery: &Discovery,
    trust: &FolderTrust,
    json: bool,
) -> Result<ExitCode, AppError> {
    let mut out = std::io::stdout().lock();
    match action {
        SkillsCommand::List => {
            list(&mut out, discovery, trust, json);
            Ok(ExitCode::Answered)
        }
        SkillsCommand::Show { name } => {
            let Some(skill) = discovery.skills.iter().find(|s| s.name == *name) else {
                let names: Vec<&str> = discovery.skills.iter().map(|s| s.name.as_str()).collect();
                return Err(AppError::usage(format!(
                    "no skill named {name:?}; known: {}",
                    one(&names.join(", "))
                )));
            };
            let body = skill.read_body().unwrap_or_else(|e| format!("(cannot read body: {e})"));
            if json {
                let mut v = summary(skill, trust);
                v["files"] = json!(skill.bundled_files(1000));
                v["license"] = json!(skill.license);
                v["compatibility"] = json!(skill.compatibility);
                v["version"] = json!(skill.version);
                v["body"] = json!(body);
                v["diagnostics"] = json!(skill.diagnostics);
                json_line(&mut out, &v);
            } else {
                let _ = writeln!(
                    out,
                    "name:        {}\ndescription: {}\nfolder:      {}\nroot:        {}\ndialect:     {}",
                    one(&skill.name),
                    one(&skill.description),
                    path(&skill.dir),
                    path(&skill.root),
                    skill.dialect
                );
                if let Some(e) = &skill.entry {
                    let _ = writeln!(out, "entry:       {}", one(e));
                }
                let files = skill.bundled_files(50);
                if !files.is_empty() {
                    let _ = writeln!(out, "files:       {}", one(&files.join(", ")));
                }
                if !skill.allowed_tools.is_empty() {
                    let _ = writeln!(out, "allowed:     {}", one(&skill.allowed_tools.join(" ")));
                }
                if let Some(reason) = blocked_reason(skill, trust) {
                    let _ = writeln!(out, "blocked:     {}", one(&reason));
                }
                for d in &skill.diagnostics {
                    let _ = writeln!(out, "{:?}: {}", d.severity, one(&d.to_string()));
                }
                let _ = writeln!(out, "\n{}", for_terminal(body.trim()));
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
                json_line(&mut out, &json!({"v": 1, "query": query, "results": results}));
            } else if hits.is_empty() {
                eprintln!("no skill matches {query:?}");
            } else {
                for (rank, h) in hits.iter().enumerate() {
                    let s = &discovery.skills[h.index];
                    let desc: String = s.description.chars().take(90).collect();
                    let _ = writeln!(
                        out,
                        "{:>2}. {:<20} {:>6.2}  {}",
                        rank + 1,
                        one(&s.name),
                        h.score,
                        one(&desc)
                    );
                }
            }
            Ok(ExitCode::Answered)
        }
        SkillsCommand::New { name, scp, dir } => super::skill_new::run(name, *scp, dir.as_deref(), config, json),
        SkillsCommand::Eval { .. } => Err(AppError::internal("eval runs through the session, not here")),
        SkillsCommand::Trust { .. } => Err(AppError::internal("trust runs through the session, not here")),
    }
}

/// `skills list`: JSON, a table on a terminal, tab-separated lines when piped; notes on stderr.
fn list(out: &mut dyn Write, discovery: &Discovery, trust: &FolderTrust, json: bool) {
    if json {
        let skills: Vec<_> = discovery.skills.iter().map(|s| summary(s, trust)).collect();
        let problems: Vec<_> = discovery
            .skipped
            .iter()
            .chain(&discovery.warnings)
            .map(|d| d.to_string())
            .collect();
        let _ = writeln!(
            out,
            "{}",
            escape_invisible(&json!({"v": 1, "skills": skills, "problems": problems}).to_string())
        );
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
            eprintln!("warning: {}", one(&d.to_string()));
        }
        if any_untrusted {
            eprintln!("untrusted: project skills can't run commands until you run `agent trust` in this folder");
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
fn blocked_reason(skill: &Skill, trust: &FolderTrust) -> Option<String> {
    skill_list::is_untrusted(skill, trust).then(|| {
        format!(
            "{} is a project skill of {}, which is not trusted with this content: run `agent trust` there",
            trust.skill_key(&skill.dir),
            trust.folder().display()
        )
    })
}

fn summary(s: &Skill, trust: &FolderTrust) -> serde_json::Value {
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
        json_line(
            &mut out,
            &json!({"v": 1, "strict": strict, "spec": rules.agent_skills_everywhere.then_some("agent-skills"), "errors": errors, "warnings": warnings, "skills": skills, "problems": problems}),
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
                one(&skill.name),
                catalog_bytes(skill)
            );
            for d in findings {
                let level = if counts_as_error(d) {
                    "error"
                } else {
                    severity_word(d.severity)
                };
                let _ = writeln!(out, "      {level}: {}", one(&d.to_string()));
            }
        }
        for d in &problems {
            let level = if counts_as_error(d) {
                "error"
            } else {
                severity_word(d.severity)
            };
            let _ = writeln!(out, "{level}: {}", one(&d.to_string()));
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
