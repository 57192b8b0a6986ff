//! One folder below a skill root, read once: opened below the root's open folder (the kernel walks
//! only its name, not the root's path again), listed with one read of its entries, and then only
//! what the listing shows is there is stamped or opened. Real libraries' folders lack most of the
//! optional files (`skill.json`, `run.sh`, `agents/`, `SKILL.sig`), and asking for each of them by
//! name costs a failed lookup per file and skill, through the folder's symlink each time.

use std::ffi::OsStr;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, StatxFlags};

use super::super::cache::{Entry, FolderStamp, Found, RootCache, Stamp};
use super::super::{Diagnostic, Severity, code};
use crate::skills::load::parse::{
    FolderLoad, Known, Reading, declared_entry, load_skill_as, load_skill_file, load_skill_opened,
};
use crate::support::fs::open_regular_at;

/// One folder's result, its cache entry when it can be kept, and a warning when it is a link
/// that leads nowhere.
pub(super) type Loading = (FolderLoad, Option<(String, Found)>, Option<Diagnostic>);

/// What a folder's one listing showed.
struct Listed {
    /// The folder, open: files in it are opened and stamped relative to it.
    dir: Dir,
    /// The skill file's name as [`crate::skills::roots::skill_dirs::find_skill_file`] picks it, and
    /// whether it is a regular file (anything else is loaded by its path, which says what it is).
    skill_file: Option<(Vec<u8>, bool)>,
    manifest: bool,
    run_sh: bool,
    agents: bool,
    signature: bool,
}

impl Listed {
    /// Open the folder `dir` (below `root`, open as `root_fd`) and list it.
    fn open(root_fd: Option<BorrowedFd<'_>>, dir: &Path, root: &Path) -> std::io::Result<Self> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = match (root_fd, name_below(dir, root)) {
            (Some(fd), Some(name)) => rustix::fs::openat(fd, name, flags, Mode::empty())?,
            _ => rustix::fs::open(dir, flags, Mode::empty())?,
        };
        let mut listing = Dir::new(fd)?;
        let (mut manifest, mut run_sh, mut agents, mut signature) = (false, false, false, false);
        let mut candidates: Vec<(Vec<u8>, FileType)> = Vec::new();
        while let Some(entry) = listing.read() {
            let entry = entry?;
            match entry.file_name().to_bytes() {
                b"skill.json" => manifest = true,
                b"run.sh" => run_sh = true,
                b"agents" => agents = true,
                b"SKILL.sig" => signature = true,
                name if name.eq_ignore_ascii_case(b"skill.md") => candidates.push((name.to_vec(), entry.file_type())),
                _ => {}
            }
        }
        let skill_file = pick_skill_file(listing.fd()?, candidates);
        Ok(Self {
            dir: listing,
            skill_file,
            manifest,
            run_sh,
            agents,
            signature,
        })
    }

    /// The stamp of `name` in the folder (symlinks followed).
    fn stamp(&self, name: &str) -> std::io::Result<Stamp> {
        Stamp::in_folder(self.dir.fd()?, Path::new(name))
    }

    /// What loading need not ask again: which optional files are there, and `run.sh`'s mode and
    /// stamp when it is.
    fn known(&self) -> (Known, std::io::Result<Stamp>) {
        let run_sh = match self.run_sh {
            true => self.stamp("run.sh"),
            false => Err(std::io::ErrorKind::NotFound.into()),
        };
        let known = Known {
            manifest: Some(self.manifest),
            agents: Some(self.agents),
            run_sh: match &run_sh {
                Ok(stamp) => Some(Some(stamp.mode)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
                // The file system did not say (no permission, say): loading looks for itself.
                Err(_) => None,
            },
        };
        (known, run_sh)
    }
}

/// `dir`'s name when it is `root`'s direct subfolder (`root.join(name)`, as discovery's folders
/// are), compared as bytes rather than path components.
fn name_below<'a>(dir: &'a Path, root: &Path) -> Option<&'a OsStr> {
    let name = dir
        .as_os_str()
        .as_encoded_bytes()
        .strip_prefix(root.as_os_str().as_encoded_bytes())?
        .strip_prefix(b"/")?;
    (!name.is_empty() && !name.contains(&b'/') && name != b"." && name != b"..").then(|| OsStr::from_bytes(name))
}

/// The skill file among the listed names spelled `skill.md` in any case: `SKILL.md`, else
/// `skill.md`, else the first other spelling in byte order; whatever kind of file it is, but not
/// a folder (links are followed to tell). With whether it is a regular file.
fn pick_skill_file(dir: BorrowedFd<'_>, mut candidates: Vec<(Vec<u8>, FileType)>) -> Option<(Vec<u8>, bool)> {
    let rank = |name: &[u8]| match name {
        b"SKILL.md" => 0,
        b"skill.md" => 1,
        _ => 2,
    };
    candidates.sort_unstable_by(|a, b| (rank(&a.0), &a.0).cmp(&(rank(&b.0), &b.0)));
    candidates.into_iter().find_map(|(name, kind)| {
        let kind = match kind {
            FileType::Symlink | FileType::Unknown => {
                let st = rustix::fs::statx(dir, name.as_slice(), AtFlags::empty(), StatxFlags::TYPE).ok()?;
                FileType::from_raw_mode(u32::from(st.stx_mode))
            }
            kind => kind,
        };
        (kind != FileType::Directory).then_some((name, kind == FileType::RegularFile))
    })
}

/// Load the folder `dir`, the `at`th of `root` (open as `root_fd`): from `cache` when nothing it
/// was parsed from changed, else from disk, stamping its files first so that a change while it is
/// read is seen next time. `stamp` is the folder's stamp when listing the root took it already,
/// `link` whether it is a symlink that was not followed yet.
pub(super) fn load_one(
    dir: &Path,
    at: usize,
    (stamp, link): (Option<&Stamp>, bool),
    (root, root_fd): (&Path, Option<BorrowedFd<'_>>),
    cache: &RootCache,
    reading: Reading,
) -> Loading {
    let place = cache.enabled().then(|| cache.place(dir, at));
    let mut dir_stamp = stamp.copied();
    if let Some(place) = place.as_ref().filter(|place| cache.has(place)) {
        dir_stamp = dir_stamp.or_else(|| cache.stamp_folder(place));
        if let Some(loaded) = dir_stamp.and_then(|s| cache.lookup(place, &s)) {
            return (loaded, Some((place.key.clone(), Found::Kept)), None);
        }
    }
    let listed = match Listed::open(root_fd, dir, root) {
        Ok(listed) => listed,
        Err(e) if link => return unlisted_link(dir, root, reading, &e),
        // What cannot be listed is looked at file by file, which says why it cannot be read.
        Err(_) => return (load_skill_as(dir, root, reading), None, None),
    };
    let Some((name, regular)) = &listed.skill_file else {
        return (FolderLoad::NotASkill, None, None);
    };
    let file = dir.join(OsStr::from_bytes(name));
    let (known, run_sh) = listed.known();
    let Some(place) = place else {
        let loaded = load_listed(&listed, dir, &file, *regular, root, reading, known).0;
        return (loaded, None, None);
    };
    // The folder is stamped before it is read (its listing was, just now).
    let Some(dir_stamp) = dir_stamp.or_else(|| listed.dir.fd().ok().and_then(|fd| Stamp::of_open(fd).ok())) else {
        return (
            load_listed(&listed, dir, &file, *regular, root, reading, known).0,
            None,
            None,
        );
    };
    let manifest = match listed.manifest {
        true => listed.stamp("skill.json").ok(),
        false => None,
    };
    let (loaded, file_meta) = load_listed(&listed, dir, &file, *regular, root, reading, known);
    // Codex's `agents/openai.yaml` shapes how a skill may be invoked, and the folder's stamps do
    // not cover a file inside a subfolder: such folders are read every time, never cached.
    let stamp = file_meta
        .filter(|_| !listed.agents)
        .and_then(|meta| FolderStamp::before_reading_seen(dir_stamp, &file, &meta, manifest));
    let entry = stamp.and_then(|mut stamp| {
        if let FolderLoad::Skill(skill) = &loaded {
            // A declared entry script that is missing is stamped as missing, so its appearance
            // (even in a subfolder) is seen.
            let missing = skill.diagnostics.iter().any(|d| d.code == code::MISSING_ENTRY);
            let declared = if missing {
                Some(declared_entry(dir)?)
            } else {
                skill.entry.clone()
            };
            // `run.sh` was stamped before loading looked at it.
            stamp.stamp_entry(declared.as_deref(), |name| match name {
                "run.sh" => run_sh.as_ref().ok().copied(),
                _ => listed.stamp(name).ok(),
            });
        }
        Entry::new(stamp, &loaded)
    });
    (loaded, entry.map(|e| (place.key, Found::New(Box::new(e)))), None)
}

/// Load the skill whose file `file` the listing found (`regular` when it is a regular file), with
/// what `stat` said of the file as it was opened: the stamp of what was read.
fn load_listed(
    listed: &Listed,
    dir: &Path,
    file: &Path,
    regular: bool,
    root: &Path,
    reading: Reading,
    known: Known,
) -> (FolderLoad, Option<std::fs::Metadata>) {
    let (mut loaded, meta) = if regular {
        let opened = listed
            .dir
            .fd()
            .map_err(std::io::Error::from)
            .and_then(|fd| open_regular_at(fd, Path::new(file.file_name().unwrap_or_default())));
        let meta = opened.as_ref().ok().map(|(_, meta)| meta.clone());
        let opened = opened.map(|(handle, meta)| (handle, meta.len()));
        (load_skill_opened(dir, file, opened, root, reading, known), meta)
    } else {
        match std::fs::metadata(file) {
            Ok(meta) => (load_skill_file(dir, file, &meta, root, reading, known), Some(meta)),
            Err(_) => (load_skill_as(dir, root, reading), None),
        }
    };
    if let FolderLoad::Skill(skill) = &mut loaded {
        skill.may_be_signed = listed.signature;
    }
    (loaded, meta)
}

/// A link below the root that could not be opened as a folder (`error`): a link to a file is no
/// skill; one whose target cannot be reached is a warning; a folder that cannot be listed is
/// looked at file by file.
fn unlisted_link(dir: &Path, root: &Path, reading: Reading, error: &std::io::Error) -> Loading {
    if error.raw_os_error() == Some(libc::ENOTDIR) {
        return (FolderLoad::NotASkill, None, None);
    }
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => (load_skill_as(dir, root, reading), None, None),
        Ok(_) => (FolderLoad::NotASkill, None, None),
        Err(e) => {
            let warning = Diagnostic::new(
                code::BROKEN_LINK,
                Severity::Warning,
                dir,
                None,
                format!("skipped: {e} (broken or looping symlink?)"),
            );
            (FolderLoad::NotASkill, None, Some(warning))
        }
    }
}
