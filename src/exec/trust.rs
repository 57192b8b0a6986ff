//! Folder trust (docs/design.md#folder-trust): a cloned repository is not the user. Its `.env`, its
//! project skills and their commands are used only once the user has trusted that folder, and only
//! as they were when trusted: each decision is stored with content hashes, and a change needs a new
//! decision.
//!
//! This module decides and remembers; asking the person is the front end's job.

mod content;
pub(crate) mod digest;
pub(crate) mod manifests;
mod store;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::skills::roots::skill_dirs::PROJECT_SKILL_ROOTS;

pub(crate) use content::{
    HOOK_SETTINGS, MCP_CONFIG_KEY, hook_settings, is_config_key, mcp_config, project_skills, relative_key,
    skills_in_roots,
};
pub(crate) use digest::{Manifest, UNVERIFIABLE, hash_bytes, is_unchanged};
pub(crate) use manifests::{Comparison, ManifestStore};
pub(crate) use store::{DotenvRecord, SaveError, TrustRecord, TrustStore};

/// A folder's `.env` as the decision sees it: keys (never values) and a content hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DotenvState {
    pub(crate) path: PathBuf,
    pub(crate) keys: Vec<String>,
    pub(crate) hash: String,
}

/// What a folder brings right now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub(crate) dotenv: Option<DotenvState>,
    /// Where that `.env`'s folder is, relative to the trusted folder (`""`: the folder itself).
    pub(crate) dotenv_key: String,
    /// Project skills by key relative to the folder (`skills/weather`), with content hashes (a
    /// skill too large to verify has `unverifiable: why`, which never counts as trusted); the
    /// folder's `.mcp.json` too, under [`MCP_CONFIG_KEY`].
    pub(crate) skills: BTreeMap<String, String>,
    /// The file lists behind those hashes, kept when a decision is recorded.
    pub(crate) manifests: BTreeMap<String, Manifest>,
    /// What the servers of its `.mcp.json` would start (`name: command args…`), for the question.
    pub(crate) mcp_servers: Vec<String>,
    /// What the hooks of its settings files run, by file (`PreToolUse Bash: ./guard.sh`), for
    /// the question; their hashes are in `skills` under the file's key.
    pub(crate) hook_commands: BTreeMap<String, Vec<String>>,
}

impl Snapshot {
    /// The keys of the project skills alone (`.mcp.json` and settings files left out): what is audited
    /// and listed as skills.
    pub(crate) fn skill_keys(&self) -> impl Iterator<Item = &String> {
        self.skills.keys().filter(|k| !is_config_key(k))
    }

    /// Hash every skill of `folder`'s project roots (`roots`; `None`: its own `./.agents/skills`
    /// and `./skills`); `dotenv` was read by the caller.
    pub(crate) fn hash_folder(folder: &Path, dotenv: Option<DotenvState>, roots: Option<&[PathBuf]>) -> Self {
        let found = match roots {
            Some(roots) => skills_in_roots(folder, roots),
            None => project_skills(folder),
        };
        let dotenv_key = dotenv
            .as_ref()
            .and_then(|d| d.path.parent())
            .map(|dir| relative_key(folder, dir))
            .unwrap_or_default();
        let mut snapshot = Self {
            dotenv,
            dotenv_key,
            ..Self::default()
        };
        for (key, dir) in found {
            match Manifest::of(&dir) {
                Ok(manifest) => {
                    snapshot.skills.insert(key.clone(), manifest.hash());
                    snapshot.manifests.insert(key, manifest);
                }
                Err(why) => {
                    snapshot.skills.insert(key, format!("{UNVERIFIABLE}{why}"));
                }
            }
        }
        if let Some((hash, servers)) = mcp_config(folder) {
            snapshot.skills.insert(MCP_CONFIG_KEY.to_string(), hash);
            snapshot.mcp_servers = servers;
        }
        for key in HOOK_SETTINGS {
            if let Some((hash, commands)) = hook_settings(folder, key) {
                snapshot.skills.insert(key.to_string(), hash);
                snapshot.hook_commands.insert(key.to_string(), commands);
            }
        }
        snapshot
    }

    /// The record of a decision about this snapshot. A yes keeps what an earlier yes covered in
    /// other subfolders (their skills and `.env` files are not in this snapshot); a no covers all.
    fn record(&self, trusted: bool, old: Option<&TrustRecord>) -> TrustRecord {
        let mut record = match old {
            Some(old) if trusted && old.trusted => old.clone(),
            _ => TrustRecord::default(),
        };
        record.trusted = trusted;
        record.set_dotenv(
            &self.dotenv_key,
            self.dotenv.as_ref().map(|d| DotenvRecord {
                hash: d.hash.clone(),
                keys: d.keys.clone(),
            }),
        );
        record
            .skills
            .extend(self.skills.iter().map(|(k, h)| (k.clone(), h.clone())));
        record.decided_at = store::now();
        record
    }
}

/// Where a folder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Never decided.
    New,
    /// Trusted (possibly for an older version of its content).
    Trusted,
    /// The user said no (possibly to an older version of its content).
    Declined,
}

/// A `.env` that is new or different since the last decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DotenvChange {
    /// Every key it sets now.
    pub(crate) keys: Vec<String>,
    /// Keys it did not set at the last decision (all of them the first time).
    pub(crate) added: Vec<String>,
    /// No earlier version of it was decided on.
    pub(crate) first_time: bool,
}

/// What is undecided: everything the first time, else what changed since the last decision.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    pub(crate) dotenv: Option<DotenvChange>,
    pub(crate) new_skills: Vec<String>,
    pub(crate) changed_skills: Vec<String>,
}

impl Changes {
    pub(crate) fn is_empty(&self) -> bool {
        self.dotenv.is_none() && self.new_skills.is_empty() && self.changed_skills.is_empty()
    }
}

/// A folder's content weighed against its record.
#[derive(Debug, Clone)]
pub(crate) struct Assessment {
    /// The folder (canonical).
    pub(crate) folder: PathBuf,
    pub(crate) standing: Standing,
    pub(crate) snapshot: Snapshot,
    pub(crate) changes: Changes,
    /// The `.env` may be read.
    pub(crate) dotenv_trusted: bool,
    /// Skills that may run commands, with the content hash they were trusted at.
    pub(crate) trusted_skills: BTreeMap<String, String>,
}

impl Assessment {
    /// Whether a person should be asked: something is undecided.
    pub(crate) fn needs_decision(&self) -> bool {
        !self.changes.is_empty()
    }
}

/// Where a folder stands by its last decision alone.
fn standing_of(record: Option<&TrustRecord>) -> Standing {
    match record {
        None => Standing::New,
        Some(r) if r.trusted => Standing::Trusted,
        Some(_) => Standing::Declined,
    }
}

/// Weigh `now` against the last decision: only content that is exactly as trusted is trusted.
pub(crate) fn assess(folder: &Path, now: Snapshot, record: Option<&TrustRecord>) -> Assessment {
    let trusted = record.is_some_and(|r| r.trusted);
    let old_skills = record.map(|r| &r.skills);
    let old_dotenv = record.and_then(|r| r.dotenv_at(&now.dotenv_key));
    let mut changes = Changes::default();
    let mut trusted_skills = BTreeMap::new();
    for (key, hash) in &now.skills {
        match old_skills.and_then(|s| s.get(key)) {
            Some(old) if old == hash && !hash.starts_with(UNVERIFIABLE) => {
                if trusted {
                    trusted_skills.insert(key.clone(), hash.clone());
                }
            }
            Some(_) => changes.changed_skills.push(key.clone()),
            None => changes.new_skills.push(key.clone()),
        }
    }
    let dotenv_same = match (&now.dotenv, old_dotenv) {
        (None, _) => true,
        (Some(d), Some(old)) => d.hash == old.hash,
        (Some(_), None) => false,
    };
    if !dotenv_same && let Some(d) = &now.dotenv {
        let before: Vec<&String> = old_dotenv.map(|o| o.keys.iter().collect()).unwrap_or_default();
        changes.dotenv = Some(DotenvChange {
            keys: d.keys.clone(),
            added: d.keys.iter().filter(|k| !before.contains(k)).cloned().collect(),
            first_time: old_dotenv.is_none(),
        });
    }
    Assessment {
        folder: folder.to_path_buf(),
        standing: standing_of(record),
        dotenv_trusted: trusted && dotenv_same && now.dotenv.is_some(),
        snapshot: now,
        changes,
        trusted_skills,
    }
}

/// What this session may use of one folder, shared by everything that runs commands.
#[derive(Debug)]
pub(crate) struct FolderTrust {
    /// The folder as laid out (the repository root holding the working directory, else the
    /// working directory), so skill folders below it have keys.
    laid_out: PathBuf,
    /// The folder canonicalised: the store's key.
    canonical: PathBuf,
    store: TrustStore,
    /// The `.env` as read at start.
    dotenv: Option<DotenvState>,
    /// Every project root whose skills this folder's trust covers (`None`: its own two).
    roots: Option<Vec<PathBuf>>,
    session: Mutex<Session>,
}

#[derive(Debug, Default)]
struct Session {
    /// Skills that may run commands, at the hash they were trusted at.
    skills: BTreeMap<String, String>,
    /// The user said no this session: don't ask again until the next run.
    declined: bool,
}

impl FolderTrust {
    pub(crate) fn open(folder: &Path, dotenv: Option<DotenvState>, store: TrustStore) -> Self {
        Self {
            laid_out: folder.to_path_buf(),
            canonical: std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf()),
            store,
            dotenv,
            roots: None,
            session: Mutex::default(),
        }
    }

    /// Cover the skills of these project roots: the working folder's, its parents' up to the
    /// repository root, and the other agents' project folders (docs/design.md#skill-roots, kinds 3
    /// and 5).
    pub(crate) fn covering(mut self, roots: Vec<PathBuf>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// The folder, canonical.
    pub(crate) fn folder(&self) -> &Path {
        &self.canonical
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Weigh the folder's content now against its record (or, never decided, against the folders
    /// trusted before folder trust existed: their skills stay trusted, their `.env` is new).
    pub(crate) fn assess(&self) -> Assessment {
        let now = Snapshot::hash_folder(&self.laid_out, self.dotenv.clone(), self.roots.as_deref());
        let record = self.store.get(&self.canonical).or_else(|| self.migrate(&now));
        assess(&self.canonical, now, record.as_ref())
    }

    /// A record for a folder whose skill roots were trusted under the old scheme, saved so later
    /// edits are noticed. The old scheme never covered `.env`, so the record holds none.
    fn migrate(&self, now: &Snapshot) -> Option<TrustRecord> {
        let legacy = self.store.legacy_roots();
        if legacy.is_empty() {
            return None;
        }
        let roots: Vec<&str> = PROJECT_SKILL_ROOTS
            .iter()
            .copied()
            .filter(|r| std::fs::canonicalize(self.laid_out.join(r)).is_ok_and(|c| legacy.contains(&c)))
            .collect();
        if roots.is_empty() {
            return None;
        }
        let under = |key: &str| roots.iter().any(|r| key == *r || key.starts_with(&format!("{r}/")));
        let record = TrustRecord {
            trusted: true,
            dotenv: None,
            dotenvs: BTreeMap::new(),
            skills: now
                .skills
                .iter()
                .filter(|(k, _)| under(k))
                .map(|(k, h)| (k.clone(), h.clone()))
                .collect(),
            decided_at: store::now(),
        };
        if let Err(e) = self.store.put(&self.canonical, record.clone()) {
            tracing::debug!("could not save the migrated trust record: {e}");
        }
        Some(record)
    }

    /// Where the folder stands by its last decision. Unlike [`Self::assess`], a folder with a
    /// record is not hashed: the standing does not depend on its content.
    pub(crate) fn standing(&self) -> Standing {
        match self.store.get(&self.canonical) {
            Some(record) => standing_of(Some(&record)),
            // No record yet: one may come from the old scheme, which `assess` migrates.
            None => self.assess().standing,
        }
    }

    /// Take an assessment as this session's standing without a new decision.
    pub(crate) fn adopt(&self, assessment: &Assessment) {
        let mut session = self.lock();
        session.skills = assessment.trusted_skills.clone();
        session.declined = assessment.standing == Standing::Declined && !assessment.needs_decision();
    }

    /// Record the user's answer about the folder as assessed; the session follows it even when
    /// it cannot be saved (the error says why).
    pub(crate) fn decide(&self, assessment: &Assessment, trusted: bool) -> Result<(), SaveError> {
        {
            let mut session = self.lock();
            session.declined = !trusted;
            session.skills = if trusted {
                assessment.snapshot.skills.clone()
            } else {
                BTreeMap::new()
            };
        }
        if trusted {
            let kept = self.manifest_store();
            assessment.snapshot.manifests.values().for_each(|m| kept.remember(m));
        }
        let old = self.store.get(&self.canonical);
        self.store
            .put(&self.canonical, assessment.snapshot.record(trusted, old.as_ref()))
    }

    /// Where the file lists behind this folder's recorded hashes are kept: beside its records.
    fn manifest_store(&self) -> ManifestStore {
        ManifestStore::at(self.store.path().and_then(Path::parent).map(|d| d.join("skill-files")))
    }

    /// Whether the user said no during this session (so nobody is asked again until next run).
    pub(crate) fn declined(&self) -> bool {
        self.lock().declined
    }

    /// Whether the project skill in `dir` may run commands: it was trusted with exactly the
    /// content it has now.
    pub(crate) fn skill_may_run(&self, dir: &Path) -> bool {
        let key = relative_key(&self.laid_out, dir);
        let Some(trusted_hash) = self.lock().skills.get(&key).cloned() else {
            return false;
        };
        is_unchanged(dir, &trusted_hash)
    }

    /// How the project skill in `dir` compares with the content this session trusts it at, else
    /// with the content the folder's record trusted (`None`: it was never trusted), naming the
    /// files that changed when the record allows.
    pub(crate) fn skill_standing(&self, dir: &Path) -> Option<Comparison> {
        let key = relative_key(&self.laid_out, dir);
        let session = self.lock().skills.get(&key).cloned();
        let trusted_hash = session.or_else(|| {
            let record = self.store.get(&self.canonical).filter(|r| r.trusted)?;
            record.skills.get(&key).cloned()
        })?;
        Some(self.manifest_store().compare(dir, &trusted_hash))
    }

    /// Whether the folder's `.mcp.json` may start its servers: it was trusted with exactly the
    /// content it has now.
    pub(crate) fn mcp_config_trusted(&self) -> bool {
        let Some(trusted_hash) = self.lock().skills.get(MCP_CONFIG_KEY).cloned() else {
            return false;
        };
        mcp_config(&self.laid_out).is_some_and(|(hash, _)| hash == trusted_hash)
    }

    /// Whether the hooks of the settings file `key` ([`HOOK_SETTINGS`]) may run: the folder was
    /// trusted with exactly the hooks it has now.
    pub(crate) fn hook_settings_trusted(&self, key: &str) -> bool {
        let Some(trusted_hash) = self.lock().skills.get(key).cloned() else {
            return false;
        };
        hook_settings(&self.laid_out, key).is_some_and(|(hash, _)| hash == trusted_hash)
    }

    /// The folder the record's keys are relative to (the repository root): where a project's
    /// `.mcp.json` is read.
    pub(crate) fn laid_out(&self) -> &Path {
        &self.laid_out
    }

    /// The key a skill folder has in this folder's record (`skills/weather`).
    pub(crate) fn skill_key(&self, dir: &Path) -> String {
        relative_key(&self.laid_out, dir)
    }
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
