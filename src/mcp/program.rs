//! Whether a stdio server's program can be started, said when it is added rather than first at
//! `mcp list` as an operating-system error: a launcher that is not installed (`uvx`, `npx`) is
//! the usual reason, and each has a known way to get it.

use std::path::Path;

use crate::support::fs::is_executable_file;

/// Why `program` cannot be started with `path` as the `PATH`, and what to do; `None` when it is
/// found (or holds a `${VAR}`, known only when the server starts).
pub(crate) fn missing(program: &str, path: &str) -> Option<String> {
    if program.contains('$') {
        return None;
    }
    if program.contains('/') {
        return (!is_executable_file(Path::new(program))).then(|| format!("{program} is not an executable file"));
    }
    let found = std::env::split_paths(path).any(|dir| is_executable_file(&dir.join(program)));
    (!found).then(|| format!("`{program}` is not on PATH: {}", install_hint(program)))
}

/// How to get `program`, for the launchers MCP servers are usually started with.
fn install_hint(program: &str) -> String {
    match program {
        "uvx" | "uv" => "install uv (https://docs.astral.sh/uv/, or `pip install uv`), or install the server \
                         with pip (`pip install PACKAGE`) and add it as `-- python3 -m MODULE`"
            .into(),
        "npx" | "npm" | "node" => "install Node.js (https://nodejs.org/), which brings npx".into(),
        "docker" => "install Docker (https://docs.docker.com/get-docker/)".into(),
        _ => format!("install it, or give its full path (`-- /path/to/{program} …`)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_looked_up_on_the_path_given() {
        assert_eq!(missing("sh", "/bin:/usr/bin"), None);
        let why = missing("uvx", "/nonexistent").unwrap_or_default();
        assert!(why.contains("not on PATH") && why.contains("pip install"), "{why}");
        assert_eq!(missing("${HOME}/srv", ""), None);
        assert!(missing("/nonexistent/srv", "").is_some());
    }
}
