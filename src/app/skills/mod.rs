//! `agent skills list|show|search|check|new|eval`: what discovery found, checked, created or
//! routed, each returned as a report for the front end to show.

mod add;
pub(super) mod audit;
mod check;
mod choose;
mod eval;
pub(super) mod gate;
mod installed;
mod library;
mod new;
mod outdated;
mod plan;
mod routing;
mod tune;
mod tune_write;
mod update;
mod verify;

use super::{Run, build, endpoint};
use crate::agent::retrieve::Method;
use crate::audit::signature::Status as SignatureStatus;
use crate::cli::SkillsCommand;
use crate::exec::trust::{Comparison, FolderTrust, ManifestStore};
use crate::exit::{AppError, ExitCode};
use crate::output::Report;
use crate::output::library::SkillTrusted;
use crate::output::report::{SearchHit, SkillList, SkillSearch, SkillShow, SkillSummary};
use crate::output::{Event, Output};
use crate::skills::check::lint::Rules;
use crate::skills::check::needs_met::Needs;
use crate::skills::discover::{Discovery, Scan, discover_with};
use crate::skills::library::lock::{Installed, Locks};
use crate::skills::roots::RootKind;
use crate::skills::{Severity, Skill, SkillSet};

/// Bundled files `skills show` lists at most.
const MAX_BUNDLED_FILES: usize = 1000;

/// Run one `skills` subcommand.
pub(super) async fn run(action: &SkillsCommand, mut run: Run<'_>) -> Result<ExitCode, AppError> {
    let output = run.front.output.clone();
    if let Some(done) = library::run(action, &run).await {
        let (report, code) = done?;
        output.report(report);
        return Ok(code);
    }
    // `check` and `show` report findings about the whole file; the rest needs only the fronts.
    let scan = match action {
        SkillsCommand::Check { .. } | SkillsCommand::Show { .. } => Scan::whole(),
        _ => run.config.routing_scan(),
    };
    let mut discovery = discover_with(&run.config.skill_roots, &scan);
    crate::skills::paths::mark_unmatched(&mut discovery.skills, &run.config.sandbox.cwd);
    let report = match action {
        SkillsCommand::List => Report::SkillList(list(discovery, &run.trust, run.config.catalog_budget)),
        SkillsCommand::Show { name, .. } => Report::SkillShow(Box::new(show(&discovery, &run, name)?)),
        SkillsCommand::Search { query, limit } => {
            Report::SkillSearch(search(&discovery, &run.config, &*output, &query.join(" "), *limit).await)
        }
        SkillsCommand::Check { dirs, strict, spec } => {
            let rules = Rules {
                strict: *strict,
                agent_skills_everywhere: spec.is_some(),
            };
            let report = check::check(
                dirs,
                rules,
                &discovery,
                &|skill| needs_of(skill, &run),
                run.config.catalog_budget,
            )?;
            let failed = report.errors > 0;
            output.report(Report::SkillCheck(report));
            // 1 is the documented "check failed" code.
            return Ok(if failed { ExitCode::Internal } else { ExitCode::Answered });
        }
        SkillsCommand::New { name, scp, dir } => {
            Report::SkillNew(new::new(name, *scp, dir.as_deref(), &run.config, &run.trust)?)
        }
        SkillsCommand::Eval { .. } | SkillsCommand::Tune { .. } => {
            return routing::run(action, run, discovery, &*output).await;
        }
        SkillsCommand::Audit { target, llm } => {
            let cwd = std::env::current_dir()
                .map_err(|e| AppError::context(ExitCode::Config, "cannot determine the working directory", e))?;
            let client = if *llm {
                endpoint::discover(run.cli, &mut run.config).await?;
                let sink: std::sync::Arc<dyn crate::output::EventSink> = output.clone();
                Some(build::llm_client(&run, &discovery, sink)?)
            } else {
                None
            };
            let (report, code) = audit::run(target.as_deref(), &discovery, &cwd, client.as_ref()).await?;
            output.report(Report::SkillAudit(report));
            return Ok(code);
        }
        SkillsCommand::Trust { .. } => return Err(AppError::internal("trust runs before configuration, not here")),
        SkillsCommand::Add { .. }
        | SkillsCommand::Outdated
        | SkillsCommand::Update { .. }
        | SkillsCommand::Remove { .. }
        | SkillsCommand::Verify { .. }
        | SkillsCommand::Keys { .. } => {
            return Err(AppError::internal("library commands are dispatched above"));
        }
    };
    output.report(report);
    Ok(ExitCode::Answered)
}

/// What a listing reads once however many skills it shows: each root's lock file (as asked), the
/// store of recorded file lists, and where a listing's file stamps are kept (files whose stamps
/// match the last listing keep their digests, so a thousand installed skills are not read whole).
struct Listing {
    locks: Locks,
    manifests: ManifestStore,
    stamps: Option<std::path::PathBuf>,
}

impl Listing {
    fn new() -> Self {
        Self {
            locks: Locks::default(),
            manifests: ManifestStore::load(),
            stamps: crate::support::cache_file::CacheDir::from_env(|k| std::env::var(k).ok())
                .map(|c| c.path().join("verified")),
        }
    }
}

/// What a listing says about `skill`: the one place that decides whether it is blocked.
pub(super) fn summary(skill: &Skill, trust: &FolderTrust) -> SkillSummary {
    summary_known(skill.clone(), trust, &mut Listing::new())
}

/// The summaries of `skills`, reading each root's lock file once rather than once per skill (a
/// listing can hold thousands of skills, and a lock file lists them all).
pub(super) fn summaries(skills: &[Skill], trust: &FolderTrust) -> Vec<SkillSummary> {
    summaries_of(skills.to_vec(), trust)
}

/// [`summaries`] of skills that are not needed afterwards: their text moves into the summaries.
fn summaries_of(skills: Vec<Skill>, trust: &FolderTrust) -> Vec<SkillSummary> {
    let mut listing = Listing::new();
    skills
        .into_iter()
        .map(|skill| summary_known(skill, trust, &mut listing))
        .collect()
}

/// [`summary`], with the lock files read so far (`locks`).
fn summary_known(skill: Skill, trust: &FolderTrust, listing: &mut Listing) -> SkillSummary {
    let blocked = blocked_reason(&skill, trust, listing);
    let codes: Vec<&'static str> = skill
        .diagnostics
        .iter()
        .filter(|d| d.severity >= Severity::Warning)
        .map(|d| d.code)
        .collect();
    // A skill only a person invokes is never listed to the model: it costs the catalog nothing.
    let catalog_bytes = if skill.offered_to_model() {
        crate::skills::catalog::line_len(&skill)
    } else {
        0
    };
    let (accepted_findings, signature) = provenance(&skill.dir, skill.may_be_signed, &mut listing.locks);
    SkillSummary {
        hidden_by_paths: skill.paths_unmatched,
        accepted_findings,
        signature,
        name: skill.name,
        description: skill.description,
        dir: skill.dir,
        root: skill.root,
        root_kind: skill.root_kind,
        tool: skill.tool,
        dialect: skill.dialect,
        entry: skill.entry,
        allowed_tools: skill.allowed_tools,
        warnings: codes.len(),
        codes,
        trusted: blocked.is_none(),
        blocked,
        catalog_bytes,
    }
}

/// What a listing says of a skill's provenance: the audit findings it was installed over, and
/// its signature. Only installed skills and skills shipping `SKILL.sig` pay for a digest, and only
/// folders whose listing at discovery showed a `SKILL.sig` (`may_be_signed`) are asked for one.
fn provenance(
    dir: &std::path::Path,
    may_be_signed: bool,
    locks: &mut Locks,
) -> (Option<usize>, Option<SignatureStatus>) {
    let installed = locks.installed(dir);
    let accepted = installed
        .as_ref()
        .and_then(|i| i.entry.audit.as_ref())
        .filter(|v| v.installed_over_findings())
        .map(|v| v.accepted.len());
    let signed = may_be_signed && dir.join(crate::audit::digest::SIGNATURE_FILE).is_file();
    let signature = (installed.is_some() || signed).then(|| {
        if !signed {
            return SignatureStatus::Unsigned;
        }
        let keys = crate::audit::signature::Keys::path()
            .and_then(|p| crate::audit::signature::Keys::read(&p).ok())
            .unwrap_or_default();
        let all: Vec<_> = keys.keys.iter().collect();
        crate::audit::digest::digest_dir(dir).map_or(SignatureStatus::Invalid, |d| {
            crate::audit::signature::check(dir, &d, &all)
        })
    });
    (accepted, signature)
}

/// Why a skill cannot run commands at all, if it can't: a project skill whose folder the user has
/// not trusted with its current content.
fn blocked_reason(skill: &Skill, trust: &FolderTrust, listing: &mut Listing) -> Option<String> {
    if let Some(installed) = listing.locks.installed(&skill.dir) {
        let comparison = listing
            .manifests
            .compare_listed(&skill.dir, &installed.entry.hash, listing.stamps.as_deref());
        if comparison != Comparison::Same {
            return Some(format!(
                "{} changed since it was installed or last trusted ({}): check it, then run `agent trust --skill {}`",
                skill.dir.display(),
                comparison.describe(),
                skill.name
            ));
        }
    }
    if skill.root_kind != RootKind::Project {
        return None;
    }
    let detail = match trust.skill_standing(&skill.dir) {
        Some(Comparison::Same) => return None,
        Some(comparison) => format!(" ({})", comparison.describe()),
        None => String::new(),
    };
    Some(format!(
        "{} is a project skill of {}, which is not trusted with this content{detail}: run `agent trust` there",
        trust.skill_key(&skill.dir),
        trust.folder().display()
    ))
}

/// `agent trust --skill NAME`: record an installed skill's content as it is now in its lock file,
/// after the install gate's audit of that content (findings of high or critical severity need a
/// yes on a terminal, else `force`): trusting edited content is installing it again.
pub(super) fn trust_installed(name: &str, force: bool, run: &Run<'_>) -> Result<SkillTrusted, AppError> {
    let discovery = discover_with(&run.config.skill_roots, &run.config.routing_scan());
    let skill = super::skill_once::find_skill(name, &discovery).map_err(AppError::usage)?;
    let Some(installed) = Installed::of(&skill.dir) else {
        let why = if skill.root_kind == RootKind::Project {
            "it is a project skill: project skills are trusted with their folder, so run `agent trust` there"
        } else {
            "it was not installed with `agent skills add` (no skills-lock.json lists it), and needs no trust"
        };
        return Err(AppError::usage(format!("{}: {why}", skill.dir.display())));
    };
    let asker = run.front.library_asker(run.config.interactive);
    gate::check_for(gate::Gate::Trust, &skill.dir, &skill.name, force, &asker)?;
    let hash = ManifestStore::load().record(&skill.dir);
    if let Some(why) = hash.strip_prefix(crate::exec::trust::UNVERIFIABLE) {
        return Err(AppError::config(format!(
            "{} cannot be trusted: {why}",
            skill.dir.display()
        )));
    }
    installed
        .trust(&hash)
        .map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    Ok(SkillTrusted {
        name: skill.name.clone(),
        dir: skill.dir.clone(),
        hash,
        lock: installed.root.join(crate::skills::library::lock::LOCK_FILE),
    })
}

/// `skills list`: every skill, and the problems of the scan.
fn list(discovery: Discovery, trust: &FolderTrust, catalog_budget: usize) -> SkillList {
    let findings: Vec<_> = discovery.skipped.into_iter().chain(discovery.warnings).collect();
    SkillList {
        skills: summaries_of(discovery.skills, trust),
        problems: findings.iter().map(|d| d.to_string()).collect(),
        findings,
        catalog_budget,
    }
}

/// `skills show NAME` (its own name or its folder's): one skill in full; a usage error naming the
/// nearest ones when there is none.
fn show(discovery: &Discovery, run: &Run<'_>, name: &str) -> Result<SkillShow, AppError> {
    let skill = super::skill_once::find_skill(name, discovery).map_err(AppError::usage)?;
    let requires = &skill.requires;
    Ok(SkillShow {
        summary: summary(skill, &run.trust),
        files: skill.bundled_files(MAX_BUNDLED_FILES),
        license: skill.license.clone(),
        compatibility: skill.compatibility.clone(),
        version: skill.version.clone(),
        body: skill.read_body().unwrap_or_else(|e| format!("(cannot read body: {e})")),
        diagnostics: skill.diagnostics.clone(),
        sandbox: {
            let policy = run.config.sandbox.policy(&skill.dir, &requires.write, requires.network);
            // As a command of it would get: an installed or bundled skill's folder is read-only.
            if skill.root_kind == RootKind::Bundled || Installed::of(&skill.dir).is_some() {
                policy.lock_skill_folder()
            } else {
                policy
            }
        },
        invocation: skill.invocation.clone(),
        needs: needs_of(skill, run).needs,
    })
}

/// `skill`'s declared needs, checked against the environment its commands would get.
pub(super) fn needs_of(skill: &Skill, run: &Run<'_>) -> Needs {
    let roots: Vec<std::path::PathBuf> = run.config.skill_roots.iter().map(|r| r.path.clone()).collect();
    let servers = super::mcp::configured_names(run);
    crate::agent::tools::declared_needs(skill, &run.config.env.merged(), &roots, &servers)
}

/// `skills search QUERY`: the ranking an over-budget catalog uses (fused with embeddings when a
/// model is configured); an embeddings failure is a warning, and words rank instead.
async fn search(
    discovery: &Discovery,
    config: &crate::config::Config,
    output: &dyn Output,
    query: &str,
    limit: usize,
) -> SkillSearch {
    let skills = SkillSet::with_cache(discovery.skills.clone(), config.cache.clone());
    let ranking = super::build::retriever(config).rank(&skills, query, limit).await;
    if let Some(message) = ranking.warning {
        output.emit(Event::Warning { message });
    }
    let results = ranking
        .ranked
        .iter()
        .enumerate()
        .filter_map(|(rank, r)| {
            let s = skills.all().get(r.index)?;
            Some(SearchHit {
                rank: rank + 1,
                name: s.name.clone(),
                score: f64::from(r.score),
                lexical: f64::from(r.lexical),
                semantic: r.semantic.map(f64::from),
                description: s.description.clone(),
                dir: s.dir.clone(),
            })
        })
        .collect();
    let (ranking, model) = match ranking.method {
        Method::Lexical => ("lexical", None),
        Method::Fused { model } => ("fused", Some(model)),
    };
    SkillSearch {
        query: query.to_string(),
        ranking,
        model,
        results,
    }
}
