//! The house rules that hold the crate's shape, checked on its source: imports between top-level
//! modules flow one way (`main → app → {ui, agent} → output → {llm, skills, exec, sessions} → support`,
//! mcp beside llm under agent and app (over exec: a project's servers run in its sandbox),
//! sessions over llm,
//! with `cli`, `config` and `exit` beside `app`), and only `ui/` (and `main.rs`) write to stdout,
//! stderr or the terminal. `cargo test --test all architecture -- --nocapture` prints the import graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which top-level modules each one may import from.
const ALLOWED: [(&str, &[&str]); 13] = [
    ("support", &[]),
    ("exit", &[]),
    ("skills", &["support"]),
    ("exec", &["support"]),
    ("llm", &["support"]),
    ("mcp", &["exec", "support"]),
    ("sessions", &["llm", "support"]),
    ("output", &["exec", "llm", "sessions", "skills", "support"]),
    (
        "agent",
        &["output", "exec", "llm", "mcp", "sessions", "skills", "support"],
    ),
    ("ui", &["output", "exec", "skills", "support"]),
    ("cli", &["exec"]),
    ("config", &["cli", "exec", "exit", "sessions", "skills", "support"]),
    (
        "app",
        &[
            "agent", "cli", "config", "exec", "exit", "llm", "mcp", "output", "sessions", "skills", "support", "ui",
        ],
    ),
];

/// What writes to the terminal; allowed only in the renderers and terminal input.
const PRINTING: [&str; 8] = [
    "stdout()",
    "stderr()",
    "/dev/tty",
    "print!(",
    "println!(",
    "eprint!(",
    "eprintln!(",
    "dbg!(",
];

/// Files that name the terminal device without writing to it: the sandbox lists the devices a
/// confined command may write.
const NAMES_THE_TERMINAL: [&str; 1] = ["exec/sandbox/confine.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every source file with its path relative to `src/`.
fn sources() -> Vec<(String, String)> {
    let src = crate::common::repo_path("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().display().to_string();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The top-level module a file belongs to (`agent/turn.rs` → `agent`, `cli.rs` → `cli`).
fn module_of(rel: &str) -> &str {
    let first = rel.split('/').next().unwrap_or(rel);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The code of a file without its unit tests (a `#[cfg(test)]` module, a `*_tests.rs` file).
fn production_code<'a>(rel: &str, text: &'a str) -> &'a str {
    if rel.ends_with("_tests.rs") {
        return "";
    }
    text.split("#[cfg(test)]").next().unwrap_or(text)
}

/// Top-level module → the other top-level modules its production code names as `crate::X`.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in sources() {
        let module = module_of(&rel);
        if matches!(module, "lib" | "main") {
            continue;
        }
        let targets = graph.entry(module.to_string()).or_default();
        for (at, _) in production_code(&rel, &text).match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            let target: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !target.is_empty() && target != module {
                targets.insert(target);
            }
        }
    }
    graph
}

#[test]
fn imports_between_modules_flow_one_way() {
    let graph = import_graph();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.into_iter().collect();
    println!("| module | imports |\n|---|---|");
    for (module, targets) in &graph {
        let list: Vec<&str> = targets.iter().map(String::as_str).collect();
        println!("| {module} | {} |", list.join(", "));
    }
    let mut wrong = Vec::new();
    for (module, targets) in &graph {
        let Some(may) = allowed.get(module.as_str()) else {
            wrong.push(format!(
                "{module} is not in the layering table of tests/suite/architecture.rs"
            ));
            continue;
        };
        for target in targets.iter().filter(|t| !may.contains(&t.as_str())) {
            wrong.push(format!("{module} imports {target}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering (lib.rs draws it):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn only_ui_and_main_write_to_the_terminal() {
    let mut found = Vec::new();
    for (rel, text) in sources() {
        if rel.starts_with("ui/") || rel == "main.rs" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            if let Some(what) = PRINTING.iter().find(|p| line.contains(*p)) {
                if *what == "/dev/tty" && NAMES_THE_TERMINAL.contains(&rel.as_str()) {
                    continue;
                }
                found.push(format!("src/{rel}:{}: {what}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "only ui/ and main.rs may write to stdout, stderr or /dev/tty; say it with an Event or a Report:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_what_it_checks() {
    // A check that reads nothing passes for nothing: the scan must find the crate's modules and
    // the renderers' own writes.
    let graph = import_graph();
    for module in ["agent", "app", "exec", "llm", "output", "skills", "support", "ui"] {
        assert!(graph.contains_key(module), "{module} not scanned");
    }
    assert!(graph["app"].contains("ui") && graph["agent"].contains("llm"));
    let ui_prints = sources()
        .iter()
        .any(|(rel, text)| rel.starts_with("ui/") && text.contains("stdout()"));
    assert!(ui_prints, "the renderers write to stdout");
    assert_eq!(module_of("agent/turn.rs"), "agent");
    assert_eq!(module_of("cli.rs"), "cli");
}
