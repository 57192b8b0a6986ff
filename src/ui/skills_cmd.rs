//! `agent skills list|show`: what discovery found, for people and for scripts.

use std::io::Write;

use serde_json::json;

use crate::cli::SkillsCommand;
use crate::exit::{AppError, ExitCode};
use crate::skills::Skill;
use crate::skills::discover::Discovery;

pub fn run(action: &SkillsCommand, discovery: &Discovery, json: bool) -> Result<ExitCode, AppError> {
    let mut out = std::io::stdout().lock();
    match action {
        SkillsCommand::List => {
            if json {
                let skills: Vec<_> = discovery.skills.iter().map(summary).collect();
                let skipped: Vec<_> = discovery
                    .skipped
                    .iter()
                    .chain(&discovery.warnings)
                    .map(|d| d.to_string())
                    .collect();
                let _ = writeln!(out, "{}", json!({"v": 1, "skills": skills, "problems": skipped}));
            } else {
                for s in &discovery.skills {
                    let warn = if s
                        .diagnostics
                        .iter()
                        .any(|d| d.severity >= crate::skills::Severity::Warning)
                    {
                        " (!)"
                    } else {
                        ""
                    };
                    let desc: String = s.description.chars().take(80).collect();
                    let _ = writeln!(out, "{}{warn}\t{}\t{}\t{desc}", s.name, s.dialect, s.root.display());
                }
                for d in discovery.skipped.iter().chain(&discovery.warnings) {
                    eprintln!("warning: {d}");
                }
                if discovery.skills.is_empty() {
                    eprintln!("no skills found; see README \"Where skills come from\"");
                }
            }
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
                let mut v = summary(skill);
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
                if !skill.allowed_tools.is_empty() {
                    let _ = writeln!(out, "allowed:     {}", skill.allowed_tools.join(" "));
                }
                for d in &skill.diagnostics {
                    let _ = writeln!(out, "{:?}: {d}", d.severity);
                }
                let _ = writeln!(out, "\n{}", body.trim());
            }
            Ok(ExitCode::Answered)
        }
    }
}

fn summary(s: &Skill) -> serde_json::Value {
    json!({
        "name": s.name,
        "description": s.description,
        "dir": s.dir,
        "root": s.root,
        "dialect": s.dialect,
        "entry": s.entry,
        "allowed_tools": s.allowed_tools,
        "warnings": s.diagnostics.iter().filter(|d| d.severity >= crate::skills::Severity::Warning).count(),
    })
}
