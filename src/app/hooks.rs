//! The session's hooks (docs/hooks.md#where-hooks-come-from): the user's own settings file, and a
//! project's settings files only when the folder is trusted with exactly the hooks they hold now
//! (the trust question lists them; a change asks again). `--no-hooks` and `AGENT_HOOKS=0` leave
//! them all out. Also `agent hooks list`.

use std::path::PathBuf;
use std::sync::Arc;

use super::Run;
use crate::exec::trust::HOOK_SETTINGS;
use crate::exit::{AppError, ExitCode};
use crate::hooks::{FailureStore, Hook, HookSettings, Hooks, OnFailure, load_file, skill_hooks, user_file};
use crate::output::hooks::{HookEntry, HookList};
use crate::output::{Event, EventSink, Report};
use crate::skills::discover::discover_with;
use crate::skills::roots::RootKind;

/// Every configured hook with whether it runs in this folder, and what keeps some from running.
fn configured(run: &Run<'_>) -> (Vec<(Hook, bool)>, Vec<String>) {
    let mut hooks = Vec::new();
    let mut notes = Vec::new();
    if let Some(file) = user_file() {
        let loaded = load_file(&file);
        notes.extend(loaded.problems);
        hooks.extend(loaded.hooks.into_iter().map(|h| (h, run.config.hooks.on)));
    }
    for key in HOOK_SETTINGS {
        let file: PathBuf = run.trust.laid_out().join(key);
        let loaded = load_file(&file);
        notes.extend(loaded.problems);
        let trusted = run.trust.hook_settings_trusted(key);
        if !trusted && !loaded.hooks.is_empty() {
            notes.push(format!(
                "the hooks of {} are not used: this folder is not trusted with them as they are; run `agent trust` to use them",
                file.display()
            ));
        }
        hooks.extend(loaded.hooks.into_iter().map(|h| (h, run.config.hooks.on && trusted)));
    }
    (hooks, notes)
}

/// The hooks in the frontmatter of every skill found (docs/hooks.md#hooks-in-a-skill), each with
/// `skill NAME` as its source; they run only while that skill is active, and a project skill's
/// only when the folder's trust covers it.
fn skills_hooks(run: &Run<'_>, hooks: &mut Vec<(Hook, bool)>, notes: &mut Vec<String>) {
    let discovery = discover_with(&run.config.skill_roots, &run.config.routing_scan());
    let before = hooks.len();
    for skill in &discovery.skills {
        let Some(events) = &skill.invocation.hooks else {
            continue;
        };
        let loaded = skill_hooks(&skill.name, events);
        notes.extend(
            loaded
                .problems
                .iter()
                .map(|p| format!("the skill {}'s hooks: {p}", skill.name)),
        );
        let trusted = skill.root_kind != RootKind::Project || run.trust.skill_may_run(&skill.dir);
        if !trusted && !loaded.hooks.is_empty() {
            notes.push(format!(
                "the hooks of the project skill {} do not run: this folder's trust does not cover it; run `agent trust` to use them",
                skill.name
            ));
        }
        hooks.extend(loaded.hooks.into_iter().map(|h| (h, run.config.hooks.on && trusted)));
    }
    if hooks.len() > before {
        notes.push(
            "a skill's hooks run only while that skill is active, as its own commands (approval, sandbox, trust)"
                .into(),
        );
    }
}

/// The hooks this session runs, after saying what in the settings files cannot be used.
pub(super) fn session_hooks(run: &Run<'_>, sink: &dyn EventSink) -> Arc<Hooks> {
    if !run.config.hooks.on {
        return Arc::new(Hooks::none());
    }
    let (hooks, notes) = configured(run);
    for message in notes {
        sink.emit(Event::Warning { message });
    }
    let settings = HookSettings {
        fail_closed: run.config.hooks.fail_closed,
        cwd: run.config.sandbox.cwd.clone(),
        env: run.config.env.merged(),
        redactor: run.redactor.clone(),
        failures: FailureStore::user(),
    };
    let active = hooks.into_iter().filter(|(_, on)| *on).map(|(h, _)| h).collect();
    Arc::new(Hooks::new(active, settings))
}

/// `agent hooks list`.
pub(super) fn list(run: &Run<'_>) -> Result<ExitCode, AppError> {
    let (mut hooks, mut notes) = configured(run);
    skills_hooks(run, &mut hooks, &mut notes);
    if !run.config.hooks.on {
        notes.push("hooks are off for this run (--no-hooks or AGENT_HOOKS=0)".into());
    }
    let failures = FailureStore::user().map(|s| s.load()).unwrap_or_default();
    let hooks = hooks
        .into_iter()
        .map(|(h, active)| {
            let last = failures.get(&h.key());
            HookEntry {
                event: h.event.name().into(),
                matcher: h.matcher.as_written().into(),
                command: h.command.clone(),
                timeout_secs: h.timeout.as_secs_f64(),
                on_failure: if h.on_failure == OnFailure::Block || run.config.hooks.fail_closed {
                    "block"
                } else {
                    "pass"
                },
                source: h.source.display().to_string(),
                active,
                last_failure: last.map(|f| f.message.clone()),
                last_failure_at: last.map(|f| f.at),
            }
        })
        .collect();
    run.front.output.report(Report::Hooks(HookList { hooks, notes }));
    Ok(ExitCode::Answered)
}
