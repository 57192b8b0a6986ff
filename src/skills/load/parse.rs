//! Loading one skill folder in either dialect: frontmatter fields, `skill.json`, markdown sections.

use std::fs::Metadata;
use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use super::fields::parse_skill_text;
use super::partial_read::parse_front;
use crate::skills::roots::skill_dirs::{find_skill_file_seen, has_usual_name};
use crate::skills::{Diagnostic, Dialect, Severity, Skill, code};
use crate::support::fs::{RegularFile, open_regular_seen, read_regular, read_whole};
use crate::support::yaml::kind_of;

/// Bytes of a `SKILL.md` that are read at most; the rest of a larger file is ignored.
pub const MAX_SKILL_FILE_BYTES: u64 = 1024 * 1024;

/// Result of looking at one folder below a skill root.
#[derive(Debug)]
pub enum FolderLoad {
    Skill(Box<Skill>),
    /// The folder has a skill file, but nothing usable as a description.
    Skipped(Diagnostic),
    /// The folder is not a skill (no `SKILL.md`).
    NotASkill,
}

/// Read a file, at most [`MAX_SKILL_FILE_BYTES`] of it.
pub(crate) fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    read_capped_with_size(path).map(|(buf, _)| buf)
}

/// Read at most [`MAX_SKILL_FILE_BYTES`] of a regular file, and its full size.
fn read_capped_with_size(path: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    let read = read_regular(path, MAX_SKILL_FILE_BYTES)?;
    Ok((read.bytes, read.size))
}

/// An info finding when the skill file is not named `SKILL.md` exactly.
fn unusual_name(file: &Path) -> Option<Diagnostic> {
    if has_usual_name(file) {
        return None;
    }
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Some(if name == "skill.md" {
        Diagnostic::new(
            code::LOWERCASE_SKILL_MD,
            Severity::Info,
            file,
            Some(1),
            "lowercase `skill.md`; `SKILL.md` is the usual name",
        )
    } else {
        Diagnostic::new(
            code::SKILL_MD_CASE,
            Severity::Info,
            file,
            Some(1),
            format!("`{name}` is read as the skill file; `SKILL.md` is the usual name (other tools may not find it)"),
        )
    })
}

/// How much of a skill file loading reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Only what routing needs (see [`super::front`]): listings, one-shot runs, the chat.
    Front,
    /// The whole file, up to [`MAX_SKILL_FILE_BYTES`]: `skills check` and `skills show`, whose
    /// findings cover the body too (bytes that are not UTF-8, CRLF, a NUL byte past the front).
    Whole,
}

/// Load the skill in `dir`, found under `root`, reading its skill file whole.
pub(crate) fn load_skill(dir: &Path, root: &Path) -> FolderLoad {
    load_skill_as(dir, root, Reading::Whole)
}

/// What a caller already found out about a skill folder's optional files, so that loading does
/// not ask the file system again: over thousands of skills, each question is a system call per
/// skill. `None` means not known: loading looks.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Known {
    /// Whether the folder has a `skill.json`.
    pub(crate) manifest: Option<bool>,
    /// Whether the folder has an `agents/` subfolder (Codex's `agents/openai.yaml`).
    pub(crate) agents: Option<bool>,
    /// The mode bits (`st_mode`) of the default entry script `run.sh`, symlinks followed:
    /// `Some(None)` when there is none.
    pub(crate) run_sh: Option<Option<u32>>,
}

/// Load the skill in `dir`, found under `root`, reading as much of its skill file as `reading` says.
pub(crate) fn load_skill_as(dir: &Path, root: &Path, reading: Reading) -> FolderLoad {
    match find_skill_file_seen(dir) {
        Some((file, meta)) => load_skill_file(dir, &file, &meta, root, reading, Known::default()),
        None => FolderLoad::NotASkill,
    }
}

/// [`load_skill_as`] once the skill file is known: `file`, which `stat` described as `meta`, in a
/// folder of which `known` is known.
pub(crate) fn load_skill_file(
    dir: &Path,
    file: &Path,
    meta: &Metadata,
    root: &Path,
    reading: Reading,
    known: Known,
) -> FolderLoad {
    load_skill_opened(dir, file, open_regular_seen(file, meta), root, reading, known)
}

/// [`load_skill_file`] once the skill file `file` was opened as `opened` (its handle and size),
/// or could not be.
pub(crate) fn load_skill_opened(
    dir: &Path,
    file: &Path,
    opened: std::io::Result<(RegularFile, u64)>,
    root: &Path,
    reading: Reading,
    known: Known,
) -> FolderLoad {
    let file = file.to_path_buf();
    let mut diags: Vec<Diagnostic> = unusual_name(&file).into_iter().collect();
    let unreadable = |e: std::io::Error| {
        FolderLoad::Skipped(Diagnostic::new(
            code::UNREADABLE_FILE,
            Severity::Error,
            &file,
            Some(1),
            format!("cannot read: {e}"),
        ))
    };
    let (handle, size) = match opened {
        Ok(opened) => opened,
        Err(e) => return unreadable(e),
    };
    if size > MAX_SKILL_FILE_BYTES {
        diags.push(Diagnostic::new(
            code::FILE_TOO_LARGE,
            Severity::Warning,
            &file,
            Some(1),
            format!("is {size} bytes; only the first {MAX_SKILL_FILE_BYTES} are read — move detail into references/"),
        ));
    }
    let manifest = match known.manifest {
        Some(false) => None,
        _ => read_manifest(dir, &mut diags),
    };
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = read_text(handle, size, reading, &folder, manifest.as_ref());
    let text = match text {
        Ok(text) => text,
        Err(e) => return unreadable(e),
    };
    diags.extend(
        text.findings
            .into_iter()
            .map(|f| Diagnostic::new(f.code, f.severity, &file, f.line, f.message)),
    );
    let Some(description) = text.description else {
        return FolderLoad::Skipped(Diagnostic::new(
            code::MISSING_DESCRIPTION,
            Severity::Error,
            &file,
            Some(1),
            "no description found: add `description:` frontmatter, a skill.json `description`, or a `## Description` section",
        ));
    };
    let entry = find_entry(dir, manifest.as_ref(), known.run_sh, &mut diags);
    let mut invocation = text.invocation;
    let (codex_policy, codex_findings) = match known.agents {
        Some(false) => (None, Vec::new()),
        _ => super::invocation::codex_policy(dir),
    };
    diags.extend(codex_findings);
    invocation.model &= codex_policy != Some(false);
    FolderLoad::Skill(Box::new(Skill {
        name: text.name,
        description,
        dir: dir.to_path_buf(),
        skill_file: file.clone(),
        root: root.to_path_buf(),
        root_kind: crate::skills::roots::RootKind::Flag,
        tool: crate::skills::roots::Tool::Agent,
        dialect: text.dialect.unwrap_or(Dialect::Scp),
        entry,
        allowed_tools: text.allowed_tools,
        version: text.version,
        license: text.license,
        compatibility: text.compatibility,
        requires: text.requires,
        invocation,
        diagnostics: diags,
        may_be_signed: true,
        paths_unmatched: false,
    }))
}

/// Parse the skill file opened as `handle` (`size` bytes), as much of it as `reading` says.
fn read_text(
    handle: RegularFile,
    size: u64,
    reading: Reading,
    folder: &str,
    manifest: Option<&Map<String, Value>>,
) -> std::io::Result<super::fields::SkillText> {
    // The file is read as large as it was when opened (`size`): reading stops there without
    // asking the kernel once more whether it has ended, and a file that grows while it is read
    // is read as it was. A size of 0 may be a file system that does not know sizes (procfs, some
    // FUSE ones): such a file is read to its end, up to the cap.
    let cap = match size {
        0 => MAX_SKILL_FILE_BYTES,
        size => size.min(MAX_SKILL_FILE_BYTES),
    };
    match reading {
        Reading::Front => parse_front(handle.take(cap), cap, folder, manifest).map(|f| f.text),
        Reading::Whole => {
            let mut raw = Vec::with_capacity(usize::try_from(cap).unwrap_or(0));
            handle.take(cap).read_to_end(&mut raw)?;
            Ok(parse_skill_text(&raw, folder, manifest))
        }
    }
}

/// The entry script a folder's `skill.json` declares, if it declares one (without checking it).
pub(crate) fn declared_entry(dir: &Path) -> Option<String> {
    let read = read_whole(&dir.join("skill.json"), MAX_MANIFEST_BYTES).ok()?;
    let manifest: Value = serde_json::from_slice(&read.bytes).ok()?;
    let entry = manifest.get("entry")?.as_str()?;
    Some(entry.trim_start_matches("./").to_string())
}

/// Bytes of a `skill.json` that are read at all; a larger manifest is ignored with a warning.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

fn read_manifest(dir: &Path, diags: &mut Vec<Diagnostic>) -> Option<Map<String, Value>> {
    let path = dir.join("skill.json");
    let text = match read_whole(&path, MAX_MANIFEST_BYTES) {
        Ok(read) => read.text(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            diags.push(Diagnostic::new(
                code::MANIFEST_UNREADABLE,
                Severity::Warning,
                &path,
                None,
                format!("cannot be used: {e}; ignored it"),
            ));
            return None;
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Some(map),
        Ok(other) => {
            diags.push(Diagnostic::new(
                code::MANIFEST_NOT_OBJECT,
                Severity::Warning,
                &path,
                Some(1),
                format!("is a JSON {}, not an object; ignored it", kind_of(&other)),
            ));
            None
        }
        Err(e) => {
            diags.push(Diagnostic::new(
                code::MANIFEST_INVALID_JSON,
                Severity::Warning,
                &path,
                Some(e.line()),
                format!("is not valid JSON ({e}); ignored it"),
            ));
            None
        }
    }
}

/// The entry script (the manifest's `entry`, else `run.sh`) when it is a file, with a finding when
/// it is missing or may not be run; `run_sh` is what is known of `run.sh` already.
fn find_entry(
    dir: &Path,
    manifest: Option<&Map<String, Value>>,
    run_sh: Option<Option<u32>>,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let declared = manifest.and_then(|m| m.get("entry")).and_then(Value::as_str);
    let entry = declared.unwrap_or("run.sh").trim_start_matches("./").to_string();
    let path = dir.join(&entry);
    // One `stat` answers both questions: is it there, and may it be run.
    let mode = match run_sh {
        Some(known) if entry == "run.sh" => known,
        _ => std::fs::metadata(&path).ok().map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.mode()
        }),
    };
    let Some(mode) = mode.filter(|m| m & libc::S_IFMT == libc::S_IFREG) else {
        if declared.is_some() {
            let manifest_path = dir.join("skill.json");
            let line = read_whole(&manifest_path, MAX_MANIFEST_BYTES)
                .ok()
                .and_then(|t| t.text().lines().position(|l| l.contains("\"entry\"")))
                .map_or(1, |i| i + 1);
            diags.push(Diagnostic::new(
                code::MISSING_ENTRY,
                Severity::Warning,
                &manifest_path,
                Some(line),
                format!("`entry` names `{entry}`, which does not exist"),
            ));
        }
        return None;
    };
    if !mode_executable(mode) {
        diags.push(Diagnostic::new(
            code::NOT_EXECUTABLE,
            Severity::Warning,
            &path,
            Some(1),
            format!("entry script is not executable; run `chmod +x {entry}`"),
        ));
    }
    Some(entry)
}

/// Whether any execute bit is set.
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).is_ok_and(|m| mode_executable(m.mode()))
}

/// Whether the mode bits `mode` (`st_mode`) allow running the file.
fn mode_executable(mode: u32) -> bool {
    mode & 0o111 != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_whose_size_is_unknown_is_read_to_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SKILL.md");
        std::fs::write(
            &path,
            "---\nname: s\ndescription: Reads files whose size is not known.\n---\nbody\n",
        )
        .unwrap();
        for reading in [Reading::Front, Reading::Whole] {
            let open = || open_regular_seen(&path, &std::fs::metadata(&path).unwrap()).unwrap().0;
            // What procfs and some FUSE file systems report: a size of 0 for a file with content.
            let unknown = read_text(open(), 0, reading, "s", None).unwrap();
            assert_eq!(
                unknown.description.as_deref(),
                Some("Reads files whose size is not known.")
            );
            // A known size is where reading stops.
            let cut = read_text(open(), 10, reading, "s", None).unwrap();
            assert_eq!(cut.description, None, "{reading:?}");
        }
    }
}
