//! The house rules that hold the crate's shape, checked on its source: imports between top-level
//! modules flow one way (`main → app → {ui, agent}`, `agent → sessions → output → {llm, exec}`,
//! `exec → skills → audit → support`, mcp beside llm under agent and app (over exec: a project's
//! servers run in its sandbox), sessions over llm and output (the session facts it computes are
//! output's vocabulary), with `cli`, `config` and `exit` beside `app`; `ALLOWED` lists every arrow
//! and lib.rs draws the same), and only `ui/` (and `main.rs`) write to stdout, stderr or the
//! terminal — but for `acp/`, which hands stdout to the ACP SDK for its protocol frames, the one
//! hand-over checked below. `cargo test --test all architecture -- --nocapture` prints the import graph.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which top-level modules each one may import from.
const ALLOWED: [(&str, &[&str]); 16] = [
    ("support", &[]),
    ("exit", &[]),
    // The audit reads a folder's files and knows nothing of skills' loading: a leaf over support.
    ("audit", &["support"]),
    // skills records an install's audit verdict in skills-lock.json and keeps signatures out of renames.
    ("skills", &["audit", "support"]),
    // Folder trust hashes a project's skill folders and the sandbox protects its skill roots: both
    // ask skills::roots, the one place that says which folders are skill roots, so a skill that
    // can be found is a skill that trust covers (these rules lived in support/ before).
    ("exec", &["skills", "support"]),
    ("llm", &["support"]),
    ("mcp", &["exec", "support"]),
    // Hooks are the user's own commands, run through the process layer (timeouts, process trees).
    ("hooks", &["exec", "support"]),
    ("sessions", &["llm", "output", "support"]),
    ("output", &["audit", "exec", "llm", "skills", "support"]),
    (
        "agent",
        &[
            "audit", "output", "exec", "hooks", "llm", "mcp", "sessions", "skills", "support",
        ],
    ),
    ("ui", &["audit", "output", "exec", "skills", "support"]),
    // The editor's front end (`agent acp`) sits where ui sits: it runs the agent's turns and
    // turns their events into protocol messages; app builds its sessions.
    ("acp", &["agent", "exec", "mcp", "output", "support"]),
    ("cli", &["exec"]),
    // config keeps what was learnt of the server (its tool support, its size) between runs.
    (
        "config",
        &["cli", "exec", "exit", "llm", "sessions", "skills", "support"],
    ),
    (
        "app",
        &[
            "acp", "agent", "audit", "cli", "config", "exec", "exit", "hooks", "llm", "mcp", "output", "sessions",
            "skills", "support", "ui",
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

/// The code of a file without its unit tests: a `*_tests.rs` file is all test, and a
/// `#[cfg(test)] mod NAME { … }` block or `#[cfg(test)] mod NAME;` line is left out. Everything
/// else is production code, including whatever follows a test module and items that are only
/// compiled for tests but are not a module (they are scanned: a test-only import upward is still
/// an import upward).
fn production_code(rel: &str, text: &str) -> String {
    if rel.ends_with("_tests.rs") {
        return String::new();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let item = after.trim_start();
        let is_mod = item.starts_with("mod ") || item.starts_with("pub mod ") || item.starts_with("pub(crate) mod ");
        if !is_mod {
            rest = after;
            continue;
        }
        let head_end = item.find([';', '{']).unwrap_or(item.len());
        rest = if item[head_end..].starts_with('{') {
            &item[head_end + block_len(&item[head_end..])..]
        } else {
            &item[(head_end + 1).min(item.len())..]
        };
    }
    out.push_str(rest);
    out
}

/// The length of the `{ … }` block `text` starts with, braces inside string and char literals
/// and comments not counted.
fn block_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if i + 2 < bytes.len() && (bytes[i + 2] == b'\'' || bytes[i + 1] == b'\\') => {
                i += if bytes[i + 1] == b'\\' { 3 } else { 2 };
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The top-level modules one `crate::` path names: `crate::llm::X` → `llm`, and every member of
/// a group, `crate::{llm::X, skills}` → `llm`, `skills`.
fn named_modules(rest: &str) -> Vec<String> {
    let name = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![name(rest)];
    };
    let end = block_len(&format!("{{{group}")).saturating_sub(2);
    let inner = &group[..end.min(group.len())];
    let mut names = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                names.push(name(&inner[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    names.push(name(&inner[start..]));
    names.into_iter().filter(|n| !n.is_empty()).collect()
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
        let code = production_code(&rel, &text);
        for (at, _) in code.match_indices("crate::") {
            for target in named_modules(&code[at + "crate::".len()..]) {
                if target != module {
                    targets.insert(target);
                }
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

/// A room does not hand a lower room's items on as its own (`pub use crate::sessions::X` in
/// `output/`): whoever imports them then depends on that lower room without the table seeing it.
#[test]
fn no_room_re_exports_another_rooms_items() {
    let mut found = Vec::new();
    for (rel, text) in sources() {
        let code = production_code(&rel, &text);
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            let re_export = ["pub use crate::", "pub(crate) use crate::"]
                .iter()
                .find_map(|p| line.strip_prefix(p));
            let Some(rest) = re_export else {
                continue;
            };
            let module = module_of(&rel);
            if named_modules(rest).iter().any(|m| m != module) && !matches!(module, "lib" | "main") {
                found.push(format!("src/{rel}:{}: {line}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "re-exports of another room's items (import them from their room instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_reads_past_test_modules_and_into_groups() {
    let text = "use crate::support::x;\n#[cfg(test)]\nmod tests {\n    use crate::app::y;\n    fn f() { let s = \"}\"; }\n}\n#[cfg(test)]\nmod more_tests;\nuse crate::{llm::Z, skills};\n#[cfg(test)]\nfn helper() { crate::ui::w(); }\n";
    let code = production_code("config.rs", text);
    assert!(!code.contains("crate::app"), "{code}");
    assert!(
        code.contains("crate::{llm::Z, skills}") && code.contains("crate::ui::w"),
        "{code}"
    );
    assert_eq!(
        named_modules("{llm::Z, skills::{a, b}, support}"),
        ["llm", "skills", "support"]
    );
    assert_eq!(named_modules("exec::sandbox"), ["exec"]);
    assert!(production_code("exec/approval_tests.rs", text).is_empty());
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

/// The one place stdout is handed to something else: `agent acp` gives it to the ACP SDK, whose
/// connection writes only protocol frames there (docs/design.md#editors). The check above cannot
/// see the SDK write, so the hand-over itself is kept to that one file.
const HANDS_STDOUT_TO_THE_PROTOCOL: &str = "acp/mod.rs";

#[test]
fn only_the_acp_server_hands_stdout_to_the_protocol_sdk() {
    let handing: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| text.contains("Stdio::new()") || text.contains("Stdio::default()"))
        .map(|(rel, _)| rel)
        .collect();
    assert_eq!(
        handing,
        [HANDS_STDOUT_TO_THE_PROTOCOL],
        "only the ACP server may give stdout to the protocol's connection"
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
