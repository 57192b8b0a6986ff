//! Embeds the bundled skills (`skills/`) in the binary, so an installed `agent` has them wherever
//! it runs: `src/skills/bundled.rs` writes them out to the user's data folder on first use.

// Cargo reads a build script's instructions from its stdout.
#![allow(clippy::print_stdout)]

use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join("skills");
    println!("cargo:rerun-if-changed=skills");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut out =
        String::from("/// Every bundled skill file: path below `skills/`, contents, whether it is executable.\n");
    out.push_str("pub(super) static FILES: &[(&str, &[u8], bool)] = &[\n");
    // Paths relative to the manifest folder as the compiler sees it: one target folder may serve
    // several copies of the checkout (CI tests a fresh copy with the same target), and a path
    // written here would point into whichever copy ran this script last.
    for (rel, _, exec) in &files {
        let _ = writeln!(
            out,
            "    ({rel:?}, include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/skills/\", {rel:?})), {exec}),"
        );
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("bundled_skills.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        println!("cargo:warning=cannot write {}: {e}", dest.display());
        std::process::exit(1);
    }
}

/// Regular files below `dir` (hidden ones skipped), as (path relative to `root`, absolute path,
/// executable).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String, bool)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            collect(root, &path, files);
        } else if meta.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            let exec = meta.permissions().mode() & 0o111 != 0;
            files.push((rel, path.to_string_lossy().into_owned(), exec));
        }
    }
}
