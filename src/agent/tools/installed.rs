//! Installed skills under trust (docs/design.md#installed-and-bundled-skills): a skill that `agent
//! skills add` installed may run commands only while its content hash is the one `skills-lock.json`
//! records. Edited by hand (or changed in any other way) it is treated like an untrusted project
//! skill: asked about on a terminal (unless the audit of the changed content finds something of
//! high or critical severity: then only `agent trust --skill`, which shows the findings, can trust
//! it), refused without one, naming `agent trust --skill NAME`.

use super::ToolRunner;
use crate::exec::trust::{Comparison, ManifestStore};
use crate::output::Event;
use crate::skills::Skill;
use crate::skills::library::lock::Installed;

impl ToolRunner {
    /// Why an installed skill may not run commands now, if it may not.
    pub(super) async fn changed_since_installed(&self, skill: &Skill) -> Option<String> {
        let dir = skill.dir.clone();
        // Reading the lock file and hashing the folder are disk I/O: off the async threads.
        let (installed, comparison) = tokio::task::spawn_blocking(move || {
            let installed = Installed::of(&dir)?;
            let comparison = ManifestStore::load().compare(&dir, &installed.entry.hash);
            (comparison != Comparison::Same).then_some((installed, comparison))
        })
        .await
        .ok()??;
        let refusal = format!(
            "the installed skill {} changed since it was installed or last trusted ({}; {} records other content); \
             run `agent trust --skill {}` after checking it (--yes does not), or `agent skills update {}`",
            skill.name,
            comparison.describe(),
            installed.root.join("skills-lock.json").display(),
            skill.name,
            installed.name
        );
        if !self.approver.can_ask() || matches!(comparison, Comparison::Unverifiable(_)) {
            return Some(refusal);
        }
        // The quick question here shows no findings: content the audit objects to is trusted only
        // through `agent trust --skill`, which shows them (the install gate) before it records.
        let dir = skill.dir.clone();
        let objection = tokio::task::spawn_blocking(move || {
            let audit = crate::audit::audit_dir(&dir);
            let worst = audit.at_least(crate::audit::Level::High).next().cloned();
            worst.map(|f| format!("{} {} in {}:{}", f.severity.name(), f.rule, f.file.display(), f.line))
        })
        .await
        .ok()
        .flatten();
        if let Some(finding) = objection {
            return Some(format!("{refusal}; the audit of the changed content found {finding}"));
        }
        let approver = self.approver.clone();
        let question = format!(
            "The installed skill {} ({}) changed since it was installed or last trusted: {}.\nTrust it as it is now? [y/N] ",
            skill.name,
            skill.dir.display(),
            comparison.describe()
        );
        let agreed = tokio::task::spawn_blocking(move || approver.ask_yes_no(&question))
            .await
            .unwrap_or(false);
        if !agreed {
            return Some(refusal);
        }
        let dir = skill.dir.clone();
        let now = tokio::task::spawn_blocking(move || ManifestStore::load().record(&dir))
            .await
            .unwrap_or_default();
        if let Err(e) = installed.trust(&now) {
            self.emit(Event::Warning {
                message: format!("trusted for this session only: {e}"),
            });
        }
        None
    }
}
