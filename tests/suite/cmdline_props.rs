//! Property tests of the approval boundary's reading of a command
//! (docs/design.md#approval-boundary): whenever a command line is accepted as literal words, those
//! words are exactly the words POSIX `sh` makes of it — so executing them without a shell means
//! what the shell would mean — and a line with an unquoted metacharacter is never accepted.
//!
//! `sh` is the oracle, and it must not be able to run anything: it is asked only about lines the
//! checker accepted, as the ARGUMENTS of its builtin `printf`, with `PATH` pointing nowhere (an
//! empty `PATH` would mean the current directory) in an empty temp dir. Any operator that slipped
//! through would at worst fail to find a program.

use std::process::Command;

use agent::exec::cmdline::literal_words;
use proptest::prelude::*;

/// What `$SKILL_DIR` is for the checker and in the oracle's environment. No spaces or glob
/// characters: `sh` would split or expand those in an unquoted `$SKILL_DIR`, and the agent never
/// does (that difference is the point of executing argv; unit tests cover a folder with a space).
const SKILL_DIR: &str = "/skills/weather-2";

/// The words `sh` makes of `line`, as `printf '%s\0'` prints them.
fn sh_words(line: &str) -> Vec<String> {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("printf '%s\\0' {line}"))
        .env_clear()
        .env("PATH", "/nonexistent-agent-oracle")
        .env("SKILL_DIR", SKILL_DIR)
        .current_dir(empty.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sh failed on {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut words: Vec<String> = text.split('\0').map(str::to_string).collect();
    words.pop(); // after the last terminator
    words
}

/// Pieces a command line is built from: mostly literal material, some shell syntax, some
/// whitespace, some unicode, and the agent's own `$SKILL_DIR`.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[A-Za-z0-9_./,:@%+=-]{1,6}",
        1 => "[éü東ß٣Ж]{1,3}",
        3 => "'[ -&(-~é東；\\\\$`\"]{0,6}'",
        3 => "\"[ !#%&'()*+,./:;<=>?@A-Z\\[\\]^_a-z{|}~é東；-]{0,6}\"",
        2 => Just("$SKILL_DIR".to_string()),
        1 => Just("${SKILL_DIR}".to_string()),
        1 => Just("\"$SKILL_DIR\"".to_string()),
        4 => prop_oneof![Just(" "), Just("  "), Just("\t")].prop_map(str::to_string),
        2 => prop_oneof![
            Just(";"), Just("&"), Just("|"), Just("&&"), Just(">"), Just("<"), Just("2>&1"),
            Just("$(x)"), Just("`x`"), Just("$HOME"), Just("$1"), Just("\\"), Just("#"), Just("~"),
            Just("*"), Just("?"), Just("["), Just("{"), Just("}"), Just("!"), Just("("), Just(")"),
            Just("\n"), Just("\r"), Just("；"), Just("é"), Just("\u{a0}"), Just("\u{202e}"),
            Just("\"$x\""), Just("\"\\\\\""), Just("\"`\""), Just("'"), Just("\""),
        ]
        .prop_map(str::to_string),
    ]
}

/// Shell syntax that must make a line non-literal wherever it stands unquoted.
fn metacharacter() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        ";",
        "&",
        "|",
        "&&",
        "||",
        ">",
        "<",
        ">>",
        "2>&1",
        "&>",
        ">/dev/null",
        "<<EOF",
        "$(id)",
        "`id`",
        "$HOME",
        "${HOME}",
        "$SKILL_DIRX",
        "$1",
        "$",
        "\\",
        "\\;",
        "#",
        "#x",
        "~",
        "~/x",
        "*",
        "?",
        "[a]",
        "{a,b}",
        "}",
        "!",
        "(",
        ")",
        "\n",
        "\r",
        "\u{7}",
        "；",
        "｜",
        "＆",
        "＞",
        "\u{a0}",
        "\u{301}",
        "\u{200b}",
        "'open",
        "\"open",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn accepted_lines_are_exactly_the_words_sh_makes(pieces in prop::collection::vec(piece(), 1..10)) {
        let line: String = pieces.concat();
        if let Ok(words) = literal_words(&line, SKILL_DIR) {
            prop_assert_eq!(words, sh_words(&line), "line {:?}", line);
        }
    }

    #[test]
    fn an_unquoted_metacharacter_is_never_accepted(
        words in prop::collection::vec("[A-Za-z0-9_./-]{1,6}", 1..5),
        at in 0usize..6,
        joined in any::<bool>(),
        meta in metacharacter(),
    ) {
        let at = at.min(words.len());
        let mut parts: Vec<String> = words.clone();
        parts.insert(at, meta.to_string());
        let line = if joined { parts.concat() } else { parts.join(" ") };
        prop_assert!(literal_words(&line, SKILL_DIR).is_err(), "accepted {:?}", line);
    }

    #[test]
    fn a_leading_assignment_is_never_accepted(name in "[A-Za-z_][A-Za-z0-9_]{0,5}", value in "[a-z/.]{0,5}") {
        let line = format!("{name}={value} ./run.sh");
        prop_assert!(literal_words(&line, SKILL_DIR).is_err(), "accepted {:?}", line);
    }
}

#[test]
fn the_oracle_agrees_on_typical_commands() {
    for line in [
        "./run.sh Tokyo",
        "./run.sh 'New York' \"Los Angeles\" a'b'\"c\"",
        "\"$SKILL_DIR\"/run.sh ${SKILL_DIR}/x $SKILL_DIR-y ''",
        "python3 scripts/report.py --format=json -n 3 key=value a,b:c@d%e+f",
        "  ./run.sh\t'東京; #' \"a|b & c > d\"  ",
    ] {
        let words = literal_words(line, SKILL_DIR).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(words, sh_words(line), "{line:?}");
    }
}
