//! Text rules for the less direct ways of running fetched or decoded code, beside the plain
//! `curl | sh` of [`super::rules`]: a download passed through other commands before the shell,
//! decoded text run by a substitution (`bash -c "$(… | base64 -d)"`). The forms that span
//! commands or lines (a file downloaded then run, a decoded variable then executed) are code, in
//! [`super::flows`].

use super::rules::Rule;
use super::{Class, Level, refine};

/// Shells and interpreters, and a command held in a variable (`$SH`, `"${SHELL:-sh}"`).
macro_rules! runner {
    () => {
        r#"(?:sudo\s+(?:-\S+\s+)*)?(?:/usr/bin/env\s+|/bin/|/usr/bin/)?(?:(?:ba|z|k|da|fi|tc|c)?sh|python[0-9.]*|perl|ruby|node|php)|["']?\$\{?[A-Za-z_]\w*(?::?[-=][^}\s|]*)?\}?["']?"#
    };
}

/// Decoders whose output is code when it is run (`base64 -d`, `xxd -r -p`, `rev`, ROT13 by `tr`).
macro_rules! decoder {
    () => {
        r#"(?:\bbase(?:64|32|nc)\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b|\bxxd\s+(?:-\w+\s+)*-r|\brev\b|\bopenssl\s+(?:base64|enc)\b[^\n|]{0,60}\s-d\b|\b(?:gunzip|zcat|uudecode|bunzip2)\b|\btr\s+['"]?(?:a-z|A-Z|n-z|N-Z|\[a-z))"#
    };
}

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "download-pipeline-shell",
        keys: &["curl", "wget"],
        class: Class::DownloadExecute,
        level: Level::Critical,
        pattern: concat!(
            r"(?i)\b(?:curl|wget)\b[^\n|]{0,300}(?:\|[^\n|]{0,120}){1,4}\|\s*(?:",
            runner!(),
            r")(?:$|[^\w.-])"
        ),
        why: "downloads code and runs it after passing it through other commands (tee, a decoder): still curl | sh",
        advice: "do not run it; if the tool is needed, install it from its vendor's documented source yourself",
        refine: Some(refine::piped_code_only),
    },
    Rule {
        id: "decode-subst-shell",
        // The substitution that runs: a decoder alone is common (decoding data), run it is not.
        keys: &[
            "-c \"$(",
            "-c '$(",
            "-c $(",
            "-c \"`",
            "-c `",
            "eval \"$(",
            "eval $(",
            "eval '$(",
            "eval \"`",
            "eval `",
            "<<<",
            "<(",
            "exec \"$(",
            "exec $(",
        ],
        class: Class::Obfuscation,
        level: Level::Critical,
        pattern: concat!(
            r#"(?i)(?:\b(?:(?:ba|z|k|da)?sh|python[0-9.]*|perl|node)\s+(?:-\w+\s+)*|\beval\s+|\bsource\s+|\.\s+|\bexec\s+)["']?(?:\$\(|`|<\(|<<<\s*["']?\$\()[^\n]{0,200}"#,
            decoder!()
        ),
        why: "runs decoded text through a substitution (`bash -c \"$(… | base64 -d)\"`): code nobody reads",
        advice: "decode it without running it to see what it is; do not install the skill",
        refine: None,
    },
    Rule {
        id: "decode-here-shell",
        keys: &["<<<"],
        class: Class::Obfuscation,
        level: Level::Critical,
        pattern: r#"(?i)\b(?:(?:ba|z|k|da)?sh|eval)\s+(?:-\w+\s+)*<<<\s*["']?[A-Za-z0-9+/=]{40,}"#,
        why: "feeds a long encoded string to a shell",
        advice: "decode it without running it to see what it is; do not install the skill",
        refine: None,
    },
];
