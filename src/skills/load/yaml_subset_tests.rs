use proptest::prelude::*;

use super::*;

/// What the YAML parser makes of `yaml`, when it is a mapping.
fn parser(yaml: &str) -> Option<Map<String, Value>> {
    match crate::support::yaml::to_json(yaml) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

#[test]
fn typical_frontmatter_is_read_without_the_parser() {
    for yaml in [
        "name: pdf-tools\ndescription: Extract text and tables from PDF files. Use when asked (politely).",
        "name: x\nlicense: MIT\ncompatibility: Needs sqlite3 3.37 or newer",
        "name: x\ndescription: \"Use when: the user asks for # things\"\nlicense: 'Apache-2.0, it''s fine'",
        "name: x\nallowed-tools:\n  - Read\n  - Bash(git:*)\nmetadata:\n  author: acme\n  version: \"1.2.0\"",
        "description: >\n  Folded text over\n  two lines.\n\nlicense: |-\n  Literal\n  # not a comment\nmetadata:\n  tags: [pdf, office docs, x-y]\n  none: []",
    ] {
        let fast = read(yaml).unwrap_or_else(|| panic!("not in the subset: {yaml}"));
        assert_eq!(Some(fast), parser(yaml), "{yaml}");
    }
}

#[test]
fn everything_else_goes_to_the_parser() {
    for yaml in [
        "name: a\nversion: 1.0",
        "name: yes",
        "name: a\ndescription: b: c",
        "name: a\n  more",
        "tags: [a, 1]",
        "tags: [a, [b]]",
        "description: >\n  folded\n\n  with a blank line",
        "description: >\n  folded\n    more indented",
        "description: >2\n  indicator",
        "description: \"an \\\"escape\\\"\"",
        "description: 'lone ' quote'",
        "name: a # comment",
        "name: a\tb",
        "meta:\n  deep:\n    x: y",
        "list:\n- a",
        "name:",
        "Name: upper",
        "name: a\nname: b",
    ] {
        assert!(read(yaml).is_none(), "{yaml}");
    }
}

#[test]
fn printable_checks_ascii_by_byte_as_by_char() {
    let mut samples: Vec<String> = (0u8..=127).map(|b| format!("x{}y", b as char)).collect();
    samples.extend(["", "é", "a\u{85}", "\u{feff}", "ok \u{fffe}", "ü\u{1}", "tail é\t"].map(str::to_string));
    for s in &samples {
        assert_eq!(all_printable(s), s.chars().all(printable), "{s:?}");
    }
}

#[test]
fn keys_split_where_split_once_does() {
    for line in [
        "a: b",
        "a:b: c",
        "a::  b",
        ": x",
        "a:",
        "no colon",
        "é: ü: x",
        "a :b",
        "",
    ] {
        assert_eq!(split_key(line), line.split_once(": "), "{line:?}");
    }
}

#[test]
fn typed_words_are_caught_in_any_case() {
    for word in ["true", "False", "YES", "no", "On", "OFF", "Null", "y", "N"] {
        assert!(plain(word).is_none(), "{word}");
    }
    assert_eq!(plain("Yesterday").as_deref(), Some("Yesterday"));
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("name".to_string()),
        Just("description".to_string()),
        Just("allowed-tools".to_string()),
        Just("metadata".to_string()),
        "[a-z_-]{1,6}",
        "[a-zA-Z0-9_ -]{1,4}",
    ]
}

/// Values with everything that could trip a hand-written reader, and many that are fine.
fn value() -> impl Strategy<Value = String> {
    let tricky = "[a-zA-Z0-9 :#'\"\\\\,\\[\\]{}&*!|>%@`?.()~=+/-]{0,16}|[a-zé ü\u{a0}\u{2028}\u{85}]{1,6}";
    let fine = "[a-zA-Z][a-zA-Z0-9 .,()'/#:*-]{0,20}";
    prop_oneof![
        3 => fine.prop_map(|s| s),
        2 => tricky.prop_map(|s| s),
        2 => tricky.prop_map(|s| format!("\"{s}\"")),
        2 => tricky.prop_map(|s| format!("'{s}'")),
        1 => Just("true".to_string()),
        1 => Just("Null".to_string()),
        1 => Just("1.5".to_string()),
        1 => Just("~".to_string()),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (key(), value()).prop_map(|(k, v)| format!("{k}: {v}")),
        1 => key().prop_map(|k| format!("{k}:")),
        1 => (key(), prop_oneof![Just(">"), Just("|"), Just(">-"), Just("|-"), Just(">+")]).prop_map(|(k, s)| format!("{k}: {s}")),
        1 => "\\[[a-zA-Z0-9 ,._:#'-]{0,12}\\]".prop_map(|l| format!("tags: {l}")),
        1 => (" {1,2}", "[a-zA-Z0-9 #:'\"-]{0,12}").prop_map(|(i, t)| format!("{i}{t}")),
        2 => (" {1,2}", value()).prop_map(|(i, v)| format!("{i}- {v}")),
        2 => (" {1,2}", key(), value()).prop_map(|(i, k, v)| format!("{i}{k}: {v}")),
        1 => Just(String::new()),
        1 => "[ #a-z:-]{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn the_subset_reads_like_the_parser(lines in proptest::collection::vec(line(), 1..6)) {
        let yaml = lines.join("\n");
        if let Some(fast) = read(&yaml) {
            prop_assert_eq!(Some(fast), parser(&yaml), "{:?}", yaml);
        }
    }
}
