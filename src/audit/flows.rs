//! Lures that span commands or lines, which one-line patterns miss: a file downloaded and then
//! run (`curl -o f URL` … `bash f`), a decoded string kept in a variable and then executed
//! (`s = b64decode(…)` … `exec(s)`), and social-engineering prerequisites spread over a
//! paragraph (an archive link, its password two lines below). Each is read from the text with
//! `\` continuations joined, reported on the first line of the command or paragraph involved.

use std::path::Path;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder};
use regex::Regex;

use super::indicators::Indicators;
use super::{Class, Finding, Level, evidence, refine};

/// How many lines after a download or a decoding its use is looked for.
const FOLLOW: usize = 40;
/// Lines either side of a line that make up its paragraph.
const AROUND: usize = 3;

/// Compile `pattern` with ASCII word boundaries: a Unicode `\b` makes the regex engine fall
/// back to its slowest matcher on any text with a non-ASCII letter, and these patterns run over
/// whole files; the words they look for are ASCII.
pub(super) fn re(pattern: &str) -> Option<Regex> {
    Regex::new(&pattern.replace(r"\b", r"(?-u:\b)")).ok()
}

static DOWNLOAD: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r#"(?i)\b(curl|wget)\s+(?:-|["']?https?://|["']?\$)[^\n;&|]*"#));
static OUTPUT: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r#"(?:\s(?:-o|--output|-O|--output-document)(?:\s+|=)|\s-\w*o\s*|>\s*)["']?([^\s"';&|<>)]+)"#));
static DECODED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r#"(?im)^[ \t]*(?:const\s+|let\s+|var\s+|local\s+|export\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)\s*:?=\s*[^\n]*(?:b64decode|b32decode|a85decode|b85decode|decodebytes|bytes\.fromhex|unhexlify|codecs\.decode|atob\(|buffer\.from\([^)]{0,200}['"](?:base64|hex)['"]|\bbase(?:64|32)\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b|\bxxd\s+(?:-\w+\s+)*-r|\|\s*rev\b|zlib\.decompress|marshal\.loads|['"]rot[_-]?13['"])"#,
    )
});
/// What makes a line worth a closer look, in the order of [`TRIGGER_WORDS`].
#[derive(Debug, Clone, Copy)]
enum Trigger {
    Download,
    Decoder,
    Password,
    Program,
    Paste,
}

/// The words of each [`Trigger`] (any letter case): one automaton pass over a file finds the
/// few lines the patterns below are then tried on, as in [`super::scan`].
const TRIGGER_WORDS: [&[&str]; 5] = [
    &["curl", "wget"],
    &[
        "b64decode",
        "b32decode",
        "a85decode",
        "b85decode",
        "decodebytes",
        "fromhex",
        "unhexlify",
        "codecs.decode",
        "atob(",
        "buffer.from",
        "base64",
        "base32",
        "xxd",
        "| rev",
        "|rev",
        "rot13",
        "rot_13",
        "rot-13",
        "zlib.decompress",
        "marshal.loads",
    ],
    &["pass", "pwd", "pw"],
    &[
        ".exe",
        ".msi",
        ".dmg",
        ".pkg",
        ".appimage",
        ".scr",
        ".zip",
        ".rar",
        ".7z",
    ],
    &["paste"],
];

static TRIGGERS: LazyLock<Option<(AhoCorasick, Vec<Trigger>)>> = LazyLock::new(|| {
    let kinds = [
        Trigger::Download,
        Trigger::Decoder,
        Trigger::Password,
        Trigger::Program,
        Trigger::Paste,
    ];
    let (words, of): (Vec<&str>, Vec<Trigger>) = TRIGGER_WORDS
        .iter()
        .zip(kinds)
        .flat_map(|(words, kind)| words.iter().map(move |w| (*w, kind)))
        .unzip();
    let automaton = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .build(&words)
        .ok()?;
    Some((automaton, of))
});

/// For each [`Trigger`], the sorted indices of the lines holding one of its words.
fn triggers(text: &str, lines: &[Line<'_>]) -> Vec<Vec<usize>> {
    let mut found = vec![Vec::new(); TRIGGER_WORDS.len()];
    let Some((automaton, of)) = TRIGGERS.as_ref() else {
        return found;
    };
    for m in automaton.find_overlapping_iter(text) {
        let (Some(kind), index) = (of.get(m.pattern().as_usize()), line_index(lines, m.start())) else {
            continue;
        };
        if let Some(set) = found.get_mut(*kind as usize)
            && set.last() != Some(&index)
        {
            set.push(index);
        }
    }
    found
}

static PASSWORD: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r#"(?i)\b(?:pass(?:word|phrase|code)?|pwd|pw)\s*(?:is\s*)?[:=]\s*["'`*]*[^\s"'`*]{2,}"#));
static ARCHIVE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"(?i)[\w-]\.(?:zip|rar|7z)\b|\b(?:archive|unzip|unrar|extract|unpack|decompress|7-?zip)\b"));
static BINARY: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"(?i)[\w-]\.(?:exe|msi|dmg|pkg|appimage|scr)\b"));
static ZIP_LINK: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"(?i)https?://\S+\.(?:zip|rar|7z)\b"));
static RUN_PROGRAM: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:run|launch|execute|double-click|open)\s+(?:the\s+|it\s+)?(?:[\w-]+\s+)?(?:exe|binary|helper|installer|app|application|program|launcher|loader|agent|setup|executable)\b",
    )
});
static PREREQUISITE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?i)\bbefore\s+(?:using|you\s+use|running|you\s+run|starting)\b|\bprerequisite|\brequired\b|\bmust\s+(?:first\s+)?(?:download|install|run)|\bfirst,?\s+(?:download|install|run)|(?:will\s+not|won't|does\s+not|doesn't)\s+work\s+without|\binstall\s+the\s+[\w\s-]{0,30}(?:helper|agent|driver|runtime|companion|connector|launcher|loader)\b",
    )
});
static ACTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"(?i)\b(?:download|run|open|execute|launch|install|double-click)\b"));
static PASTE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?i)\bpaste\b[^\n]{0,80}\b(?:terminal|powershell|command\s+prompt|cmd|shell|console|run\s+dialog)\b|\b(?:terminal|powershell|command\s+prompt)\b[^\n]{0,60}\bpaste\b",
    )
});
static COPY_COMMAND: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"(?i)\bcopy\s+(?:the\s+|this\s+|that\s+)?(?:[\w-]+\s+)?(?:command|script|code|snippet|line|one-liner)")
});
static SITE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:from|at|on|visit|go\s+to|open|navigate\s+to|browse\s+to)\s+(?:<?https?://|www\.|(?:the|this|our|that)\s+(?:website|web\s*page|site|page|link))",
    )
});

/// One logical line: its byte offset in the text and its content.
type Line<'a> = (usize, &'a str);

/// Report the multi-line forms in `original` (the content of `rel`).
pub(crate) fn scan(rel: &Path, original: &str, data: &Indicators, findings: &mut Vec<Finding>) {
    let joined = super::scan::join_continuations(original);
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut offset = 0;
    for line in joined.split_inclusive('\n') {
        lines.push((offset, line.trim_end_matches(['\n', '\r'])));
        offset += line.len();
    }
    let mut push = |rule: &str, class, level, at: usize, why: &str, advice: &str| {
        let line = evidence::line_of(original, at);
        if findings
            .iter()
            .any(|f| f.rule == rule && f.file == rel && f.line == line)
        {
            return;
        }
        findings.push(Finding {
            rule: rule.to_string(),
            class,
            severity: level,
            file: rel.to_path_buf(),
            line,
            evidence: evidence::around(&joined, at, at),
            why: why.to_string(),
            advice: advice.to_string(),
        });
    };
    let triggers = triggers(&joined, &lines);
    for (at, level) in downloads_run(&lines, &triggers[Trigger::Download as usize], data) {
        push(
            "download-run-file",
            Class::DownloadExecute,
            level,
            at,
            "downloads a file and then runs it: what runs is whatever the server sent, unseen",
            "do not run it; if the tool is needed, install it from its vendor's documented source yourself",
        );
    }
    for at in decoded_run(&lines, &triggers[Trigger::Decoder as usize]) {
        push(
            "decode-and-exec",
            Class::Obfuscation,
            Level::Critical,
            at,
            "decodes hidden text into a variable and then runs it, so nobody reads what it does",
            "decode it without running it; do not install unless you can read all of it",
        );
    }
    for (rule, at, why) in paragraphs(&lines, &triggers) {
        push(
            rule,
            Class::Payload,
            Level::Critical,
            at,
            why,
            "do not follow these steps; a skill needs no program from a link or a pasted command; do not install the skill",
        );
    }
}

/// Offsets of downloads to a file that a later command (same line or the next [`FOLLOW`]) runs,
/// with their severity: medium when every URL of the download is a vendor's installer.
fn downloads_run(lines: &[Line<'_>], candidates: &[usize], data: &Indicators) -> Vec<(usize, Level)> {
    let (Some(download), Some(output)) = (DOWNLOAD.as_ref(), OUTPUT.as_ref()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for &index in candidates {
        let Some((offset, line)) = lines.get(index) else {
            continue;
        };
        for m in download.find_iter(line) {
            let command = m.as_str();
            let Some(name) = output_name(command, output) else {
                continue;
            };
            let Some(runs) = runs_file(&name) else { continue };
            let rest =
                std::iter::once(&line[m.end()..]).chain(lines.iter().skip(index + 1).take(FOLLOW).map(|(_, l)| *l));
            if rest.into_iter().any(|l| runs.is_match(l)) {
                let level = refine::installer_is_medium(command, command, data, Level::Critical);
                found.push((offset + m.start(), level.unwrap_or(Level::Critical)));
            }
        }
    }
    found
}

/// The index in `lines` of the line holding byte `at`.
fn line_index(lines: &[Line<'_>], at: usize) -> usize {
    lines.partition_point(|(offset, _)| *offset <= at).saturating_sub(1)
}

/// Whether a line within [`AROUND`] lines of `index` matches `re`.
fn near(lines: &[Line<'_>], index: usize, re: &Regex) -> bool {
    let window = &lines[index.saturating_sub(AROUND)..(index + AROUND + 1).min(lines.len())];
    window.iter().any(|(_, l)| re.is_match(l))
}

/// The file name a download command writes to (`-o f`, `-O f` of wget, `> f`, or the URL's last
/// part for `curl -O` and a bare `wget URL`), without its folders.
fn output_name(command: &str, output: &Regex) -> Option<String> {
    let lower = command.to_ascii_lowercase();
    let curl = lower.trim_start().starts_with("curl");
    let remote_name = curl
        && command
            .split_whitespace()
            .any(|w| w == "--remote-name" || (w.starts_with('-') && !w.starts_with("--") && w.contains('O')));
    let named = output
        .captures(command)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
        .filter(|n| !(curl && remote_name && n.contains("://")));
    let name = match named {
        Some(n) if !remote_name || !curl => n,
        _ if remote_name || !curl => refine::urls_in(command).last()?.path.rsplit('/').next()?.to_string(),
        _ => return None,
    };
    let base = name.rsplit('/').next()?.trim_matches(['"', '\'']).to_string();
    let file_like = base.chars().any(|c| c.is_ascii_alphanumeric())
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$' | '{' | '}'));
    (file_like && base != "null").then_some(base)
}

/// A pattern for a command that runs the file `name`: as a shell's or interpreter's script, or by
/// its path (`./f`, `/tmp/f`).
fn runs_file(name: &str) -> Option<Regex> {
    let name = regex::escape(name);
    re(&format!(
        r#"(?i)(?:^|[\s;&|(`])(?:sudo\s+(?:-\S+\s+)*)?(?:(?:(?:ba|z|k|da)?sh|source|\.|python[0-9.]*|perl|ruby|node|exec)\s+(?:-\S+\s+)*["']?(?:\S*/)?{name}|["']?(?:\.{{1,2}}/|/|~/|\$\{{?\w+\}}?/)(?:\S*/)?{name})["']?(?:\s|$|[;&|)`])"#
    ))
}

/// Offsets of lines that execute a variable assigned decoded text a few lines before.
fn decoded_run(lines: &[Line<'_>], candidates: &[usize]) -> Vec<usize> {
    let Some(decoded) = DECODED.as_ref() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for &index in candidates {
        let Some(name) = lines
            .get(index)
            .and_then(|(_, line)| decoded.captures(line))
            .and_then(|c| c.get(1))
        else {
            continue;
        };
        let Some(runs) = runs_variable(name.as_str()) else {
            continue;
        };
        let later = lines.iter().skip(index + 1).take(FOLLOW);
        if let Some((at, _)) = later.into_iter().find(|(_, l)| runs.is_match(l)) {
            found.push(*at);
        }
    }
    found
}

/// A pattern for a line that executes the variable `name`: `exec(name)`, `os.system(name)`,
/// `subprocess.run(name, …)`, `new Function(name)`, `eval "$name"`, `echo "$name" | sh`.
fn runs_variable(name: &str) -> Option<Regex> {
    let name = regex::escape(name);
    re(&format!(
        r#"(?i)\b(?:eval|exec|execute|os\.system|os\.popen|os\.exec\w*|execsync|child_process\.\w+|new\s+function|vm\.runin\w+|settimeout)\s*\(\s*(?:\w+\s*\(\s*)?{name}\b|(?-i:\bFunction)\s*\(\s*{name}\b|\bsubprocess\.\w+\s*\(\s*(?:\[\s*["'](?:/bin/)?(?:ba|z)?sh["']\s*,\s*["']-c["']\s*,\s*)?{name}\b|(?:\beval|\b(?:ba|z|k|da)?sh\s+-c|\bsource)\s+["']?\$\{{?{name}\b|\becho\s+["']?\$\{{?{name}\}}?["']?\s*\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"#
    ))
}

/// Social-engineering prerequisites whose parts sit on different lines of one paragraph: a
/// password near an archive, a program to fetch near "before using this skill", a command to
/// copy from a web page near "paste it into Terminal". (rule, offset, why) for each.
fn paragraphs(lines: &[Line<'_>], triggers: &[Vec<usize>]) -> Vec<(&'static str, usize, &'static str)> {
    let all = (
        PASSWORD.as_ref(),
        ARCHIVE.as_ref(),
        BINARY.as_ref(),
        ZIP_LINK.as_ref(),
        RUN_PROGRAM.as_ref(),
        PREREQUISITE.as_ref(),
        ACTION.as_ref(),
    );
    let (Some(password), Some(archive), Some(binary), Some(zip), Some(run), Some(prereq), Some(action)) = all else {
        return Vec::new();
    };
    let (Some(paste), Some(copy), Some(site)) = (PASTE.as_ref(), COPY_COMMAND.as_ref(), SITE.as_ref()) else {
        return Vec::new();
    };
    let line = |index: usize| lines.get(index).map_or("", |(_, l)| *l);
    let at = |index: usize| lines.get(index).map_or(0, |(offset, _)| *offset);
    let of = |trigger: Trigger| triggers.get(trigger as usize).map_or(&[][..], Vec::as_slice);
    let mut found = Vec::new();
    for &index in of(Trigger::Password) {
        if password.is_match(line(index)) && near(lines, index, archive) {
            found.push((
                "archive-password",
                at(index),
                "gives the password of an archive to download: the password keeps malware scanners out, as in the ClawHavoc lures",
            ));
        }
    }
    for &index in of(Trigger::Program) {
        let program = binary.is_match(line(index)) || (zip.is_match(line(index)) && near(lines, index, run));
        if program && near(lines, index, prereq) && near(lines, index, action) {
            found.push((
                "prerequisite-binary",
                at(index),
                "tells you to get and run a program before the skill works: the fake-prerequisite lure of the ClawHavoc campaign",
            ));
        }
    }
    for &index in of(Trigger::Paste) {
        if paste.is_match(line(index)) && near(lines, index, copy) && near(lines, index, site) {
            found.push((
                "paste-from-site",
                at(index),
                "tells you to copy a command from a web page and paste it into a terminal: what runs is whatever the page shows that day",
            ));
        }
    }
    found
}
