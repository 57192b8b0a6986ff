//! Finding skill folders below the skill roots, first name wins (docs/design.md#skill-roots).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use std::os::fd::{AsFd, OwnedFd};

use super::cache::{Found, RootCache, Stamp, open_folder};
use super::load::parse::{FolderLoad, Reading};
use super::{Diagnostic, Severity, Skill, code};
use crate::skills::roots::skill_dirs::{find_skill_file, is_ignored};
use crate::skills::roots::{RootKind, SkillRoot};
use crate::support::cache_file::CacheDir;

mod folder;
use folder::{Loading, load_one};

/// Everything a scan found: the winning skills and every finding along the way.
#[derive(Debug, Default)]
pub struct Discovery {
    pub skills: Vec<Skill>,
    /// Folders that have a skill file but could not be loaded, with the reason.
    pub skipped: Vec<Diagnostic>,
    /// Problems that belong to no single skill (unreadable roots, shadowed names).
    pub warnings: Vec<Diagnostic>,
}

/// How a scan reads skill folders.
#[derive(Debug, Clone)]
pub struct Scan {
    /// How much of each skill file is read.
    pub(crate) reading: Reading,
    /// Where folders parsed by earlier runs are kept ([`super::cache`]); used only when
    /// `reading` is [`Reading::Front`], since a whole read finds more.
    pub(crate) cache: Option<CacheDir>,
}

impl Scan {
    /// Every skill file read whole, nothing cached: what `skills check` and `skills show` need.
    pub(crate) fn whole() -> Self {
        Self {
            reading: Reading::Whole,
            cache: None,
        }
    }

    /// What routing needs: the fronts of skill files, through the cache folder `cache` when set.
    pub fn routing(cache: Option<CacheDir>) -> Self {
        Self {
            reading: Reading::Front,
            cache,
        }
    }
}

/// Scan every root in order, reading every skill file whole.
pub fn discover(roots: &[SkillRoot]) -> Discovery {
    discover_with(roots, &Scan::whole())
}

/// Scan every root in order, as `scan` says.
pub fn discover_with(roots: &[SkillRoot], scan: &Scan) -> Discovery {
    let cache_dir = scan.cache.as_ref().filter(|_| scan.reading == Reading::Front);
    let mut out = Discovery::default();
    let mut seen_roots = HashSet::new();
    // Each name's winner, as its place in `out.skills`.
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for root in roots {
        let canonical = match std::fs::canonicalize(&root.path) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if root.kind == RootKind::EnvPath {
                    out.warnings.push(Diagnostic::new(
                        code::MISSING_ROOT,
                        Severity::Warning,
                        &root.path,
                        None,
                        "AGENT_SKILLS_PATH names a folder that does not exist",
                    ));
                }
                continue;
            }
            Err(e) => {
                out.warnings.push(Diagnostic::new(
                    code::UNREADABLE_ROOT,
                    Severity::Warning,
                    &root.path,
                    None,
                    format!("cannot open skill root: {e}"),
                ));
                continue;
            }
        };
        if !seen_roots.insert(canonical) {
            continue;
        }
        let ((dirs, root_fd), cache) = list_and_open(&root.path, cache_dir, &mut out.warnings);
        let (found, entries, mut broken) = load_all(&dirs, (&root.path, root_fd.as_ref()), &cache, scan.reading);
        out.warnings.append(&mut broken);
        if cache.enabled()
            && let Err(e) = cache.save_found(entries)
        {
            tracing::debug!("skill cache of {} not saved: {e}", root.path.display());
        }
        by_name.reserve(found.len());
        out.skills.reserve(found.len());
        for loaded in found {
            match loaded {
                FolderLoad::Skill(mut skill) => match by_name.get(&skill.name) {
                    // A bundled skill is a default: any other of the same name replaces it.
                    Some(_) if root.kind == RootKind::Bundled => {}
                    Some(&winner) => out.warnings.push(Diagnostic::new(
                        code::SHADOWED,
                        Severity::Warning,
                        &skill.skill_file,
                        Some(1),
                        format!(
                            "skill `{}` is shadowed by {} (first match wins)",
                            skill.name,
                            out.skills[winner].dir.display()
                        ),
                    )),
                    None => {
                        skill.root_kind = root.kind;
                        skill.tool = root.tool;
                        by_name.insert(skill.name.clone(), out.skills.len());
                        out.skills.push(*skill);
                    }
                },
                FolderLoad::Skipped(reason) => out.skipped.push(reason),
                FolderLoad::NotASkill => {}
            }
        }
    }
    out
}

/// Cache files larger than this (a few hundred skills) are read on a thread of their own while
/// the root is listed; smaller ones cost less than starting the thread.
const READ_ASIDE_BYTES: u64 = 256 * 1024;

/// The folders of `root` ([`skill_dirs`]) and its cache, the two read at once when both are large.
fn list_and_open(root: &Path, cache_dir: Option<&CacheDir>, warnings: &mut Vec<Diagnostic>) -> (Folders, RootCache) {
    if !RootCache::larger_than(cache_dir, root, READ_ASIDE_BYTES) {
        return (skill_dirs(root, warnings), RootCache::open(cache_dir, root));
    }
    std::thread::scope(|scope| {
        let opening = scope.spawn(|| RootCache::open(cache_dir, root));
        let dirs = skill_dirs(root, warnings);
        // A panic while reading the cache is a bug; this run then goes without the cache.
        (dirs, opening.join().unwrap_or_default())
    })
}

/// A folder below a root: its path, its stamp when listing the root took it already, and
/// whether it is a symlink not followed yet (the thread that loads it follows it, once).
type Folder = (PathBuf, Option<Stamp>, bool);

/// A root's folders, and the root open (to look below it without walking its path again).
type Folders = (Vec<Folder>, Option<OwnedFd>);

/// Folders a loading thread takes at a time: small enough that threads finish together even when
/// one of them shares its core with another program, large enough that taking costs nothing.
const FOLDERS_PER_TAKE: usize = 32;

/// Threads that load folders: one per core, at most 8. Asked once per run: the standard library
/// reads the cgroup's CPU quota files each time.
fn loading_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(8))
}

/// Load every folder, in parallel on large roots, keeping the folders' order in the result; with
/// the cache entries of this run (empty when `cache` is off) and the links found broken.
fn load_all(
    dirs: &[Folder],
    (root, root_fd): (&Path, Option<&OwnedFd>),
    cache: &RootCache,
    reading: Reading,
) -> (Vec<FolderLoad>, Vec<(String, Found)>, Vec<Diagnostic>) {
    let threads = loading_threads();
    let root_fd = root_fd.map(AsFd::as_fd);
    let one =
        |at: usize, (d, meta, link): &Folder| load_one(d, at, (meta.as_ref(), *link), (root, root_fd), cache, reading);
    // Threads cost more than they save on small roots.
    let all: Vec<Loading> = if threads < 2 || dirs.len() < 64 {
        dirs.iter().enumerate().map(|(at, folder)| one(at, folder)).collect()
    } else {
        // Each thread takes the next few folders until none are left, so a thread slowed down
        // (by another program on its core) takes fewer instead of holding everyone up.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            let mut done: Vec<(usize, Vec<Loading>)> = Vec::new();
            loop {
                let start = next.fetch_add(FOLDERS_PER_TAKE, std::sync::atomic::Ordering::Relaxed);
                let Some(part) = dirs.get(start..(start + FOLDERS_PER_TAKE).min(dirs.len())) else {
                    return done;
                };
                if part.is_empty() {
                    return done;
                }
                done.push((
                    start,
                    part.iter()
                        .enumerate()
                        .map(|(i, folder)| one(start + i, folder))
                        .collect(),
                ));
            }
        };
        let mut parts: Vec<(usize, Vec<Loading>)> = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
            let mut parts = work();
            for helper in helpers {
                match helper.join() {
                    Ok(more) => parts.extend(more),
                    // A panic in the loader is a bug; report it, don't lose the rest.
                    Err(_) => parts.push((
                        usize::MAX,
                        vec![(
                            FolderLoad::Skipped(Diagnostic::new(
                                code::INTERNAL_ERROR,
                                Severity::Error,
                                root,
                                None,
                                "internal error while loading",
                            )),
                            None,
                            None,
                        )],
                    )),
                }
            }
            parts
        });
        parts.sort_unstable_by_key(|(start, _)| *start);
        parts.into_iter().flat_map(|(_, part)| part).collect()
    };
    let (mut entries, mut broken) = (Vec::new(), Vec::new());
    let found = all
        .into_iter()
        .map(|(loaded, entry, warning)| {
            entries.extend(entry);
            broken.extend(warning);
            loaded
        })
        .collect();
    (found, entries, broken)
}

/// Direct subfolders of `root` (symlinks followed), sorted by name for a stable order. A root that
/// is itself a skill folder counts as one skill, since that is what people point `--skills-dir` at.
/// Links are followed later, by the thread that loads them: a link to a file is no skill, one
/// that leads nowhere is a warning.
fn skill_dirs(root: &Path, warnings: &mut Vec<Diagnostic>) -> Folders {
    let entries = match std::fs::read_dir(root) {
        Ok(e) => e,
        Err(e) => {
            warnings.push(Diagnostic::new(
                code::UNREADABLE_ROOT,
                Severity::Warning,
                root,
                None,
                format!("cannot list skill root: {e}"),
            ));
            return (Vec::new(), None);
        }
    };
    let fd = open_folder(root);
    // The one listing of the root also tells whether the root is itself a skill folder: a
    // thousand-skill root is listed once, not once more to look for its own `SKILL.md`.
    let mut own_skill_file = false;
    let mut dirs: Vec<Folder> = Vec::new();
    let mut broken = Vec::new();
    // Without the root open, links are followed by their full path anyway: here, as before.
    let defer_links = fd.is_some();
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name();
        let kind = e.file_type().ok();
        if name.as_encoded_bytes().eq_ignore_ascii_case(b"skill.md") {
            own_skill_file |= match kind {
                Some(k) if k.is_symlink() => std::fs::metadata(e.path()).is_ok_and(|m| !m.is_dir()),
                Some(k) => !k.is_dir(),
                None => find_skill_file(root).is_some(),
            };
        }
        if is_ignored(&name.to_string_lossy()) {
            continue;
        }
        let path = e.path();
        // The entry's type comes with the listing: a folder is stamped later, on the thread that
        // loads it, and so is a link followed; only file systems that do not say are asked here.
        match kind {
            Some(k) if k.is_dir() => {
                dirs.push((path, None, false));
                continue;
            }
            Some(k) if k.is_symlink() && defer_links => {
                dirs.push((path, None, true));
                continue;
            }
            Some(k) if !k.is_symlink() => continue,
            _ => {}
        }
        let stamp = match &fd {
            Some(fd) => Stamp::in_folder(fd, Path::new(&name)),
            None => std::fs::metadata(&path).map(|m| Stamp::of(&m)),
        };
        match stamp {
            Ok(s) if s.is_dir() => dirs.push((path, Some(s), false)),
            Ok(_) => {}
            Err(err) => broken.push(Diagnostic::new(
                code::BROKEN_LINK,
                Severity::Warning,
                &path,
                None,
                format!("skipped: {err} (broken or looping symlink?)"),
            )),
        }
    }
    if own_skill_file {
        return (vec![(root.to_path_buf(), None, false)], fd);
    }
    warnings.append(&mut broken);
    // All are `root.join(name)`: ordering their bytes orders the names as comparing the paths
    // would, without splitting each into components at every comparison.
    dirs.sort_unstable_by(|a, b| {
        a.0.as_os_str()
            .as_encoded_bytes()
            .cmp(b.0.as_os_str().as_encoded_bytes())
    });
    (dirs, fd)
}

#[cfg(test)]
#[path = "discover_tests.rs"]
mod tests;
