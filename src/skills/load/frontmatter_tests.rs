//! Unit tests of splitting and lenient YAML parsing of frontmatter.

use std::borrow::Cow;

use super::*;

#[test]
fn plain_frontmatter() {
    let s = split("---\nname: a\ndescription: b\n---\n# Body\n");
    assert_eq!(s.yaml.as_deref(), Some("name: a\ndescription: b"));
    assert_eq!(s.body, "# Body\n");
    assert!(s.findings.is_empty());
}

#[test]
fn bom_and_crlf_are_normalized() {
    let n = normalize(b"\xef\xbb\xbf---\r\nname: a\r\n---\r\nbody");
    assert_eq!(n.text, "---\nname: a\n---\nbody");
    assert_eq!(n.findings.len(), 2);
}

#[test]
fn blank_line_before_fence_is_warned_but_read() {
    let s = split("\n---\nname: a\n---\nbody");
    assert_eq!(s.yaml.as_deref(), Some("name: a"));
    assert_eq!(s.findings[0].line, Some(2));
}

#[test]
fn unclosed_frontmatter_is_salvaged() {
    let s = split("---\nname: a\ndescription: b\n\n# Title\ntext");
    assert_eq!(s.yaml.as_deref(), Some("name: a\ndescription: b"));
    assert!(s.body.starts_with("\n# Title"));
    assert!(s.findings[0].message.contains("never closed"));
}

#[test]
fn later_markdown_rule_does_not_swallow_the_body() {
    let s = split("---\nname: a\ndescription: b\n\n# Title\n\ntext\n\n---\nmore");
    assert_eq!(s.yaml.as_deref(), Some("name: a\ndescription: b"));
    assert!(s.findings[0].message.contains("markdown rule"));
}

#[test]
fn fields_without_fences() {
    let s = split("name: a\ndescription: b\n\n# Title");
    assert_eq!(s.yaml.as_deref(), Some("name: a\ndescription: b"));
}

#[test]
fn unquoted_colon_is_retried_as_string() {
    let f = parse_yaml("name: a\ndescription: Use when: the user asks", 2);
    let map = f.map.unwrap();
    assert_eq!(map["description"], "Use when: the user asks");
    assert_eq!(f.findings.len(), 1);
}

#[test]
fn broken_yaml_falls_back_to_lines() {
    let f = parse_yaml("name: a\ndescription: [unclosed\nallowed-tools:\n  - Read\n  - Bash", 2);
    let map = f.map.unwrap();
    assert_eq!(map["name"], "a");
    assert_eq!(map["allowed-tools"], serde_json::json!(["Read", "Bash"]));
    assert!(f.findings[0].message.contains("not valid YAML"));
}

#[test]
fn flow_maps_and_numbers_parse() {
    let f = parse_yaml("name: a\nversion: 1.0\nmetadata: {\"a\": {\"b\": 1}}", 2);
    let map = f.map.unwrap();
    assert_eq!(map["metadata"]["a"]["b"], 1);
    assert!(map["version"].is_number());
}

#[test]
fn non_mapping_is_reported() {
    let f = parse_yaml("just a sentence", 2);
    assert!(f.map.is_none());
    assert!(f.findings[0].message.contains("string"));
}

#[test]
fn clean_text_is_borrowed_and_quirky_text_is_fixed() {
    let clean = "---\nname: a\n---\nbody\n";
    assert!(matches!(normalize(clean.as_bytes()).text, Cow::Borrowed(_)));
    for (raw, text, findings) in [
        (&b"\xef\xbb\xbfname: a\n"[..], "name: a\n", 1),
        (b"a\r\nb\rc", "a\nb\nc", 1),
        (b"\xef\xbb\xbfa\xff\r\n", "a\u{fffd}\n", 3),
        (b"\xffa", "\u{fffd}a", 1),
    ] {
        let n = normalize(raw);
        assert_eq!(n.text, text, "{raw:?}");
        assert_eq!(n.findings.len(), findings, "{raw:?}");
    }
}

#[test]
fn borrowed_parts_are_what_split_copies() {
    for text in [
        "",
        "\n\n",
        "---\nname: a\n---\n# Body\n",
        "\n---\nname: a\n---\nbody",
        "---\nname: a\ndescription: b\n\n# Title\ntext",
        "---\nname: a\ndescription: b\n\n# Title\n\ntext\n\n---\nmore",
        "name: a\ndescription: b\n\n# Title",
        "# Just markdown\n",
    ] {
        let parts = split_parts(text);
        let copied = split(text);
        assert_eq!(parts.yaml, copied.yaml.as_deref(), "{text:?}");
        assert_eq!(parts.body, copied.body, "{text:?}");
        assert_eq!(parts.yaml_line, copied.yaml_line, "{text:?}");
        assert_eq!(parts.findings, copied.findings, "{text:?}");
    }
}

#[test]
fn key_lines_are_found_on_demand() {
    let yaml = "name: a\n# note\ndescription: >\n  b\nname: again\nmeta.data: x\n  inner: y\nk-1_v: z";
    // Top-level keys only, each at its first line; an indented key is not one.
    for (key, line) in [
        ("name", Some(5)),
        ("description", Some(7)),
        ("meta.data", Some(10)),
        ("k-1_v", Some(12)),
        ("inner", None),
        ("missing", None),
    ] {
        assert_eq!(key_line(yaml, 5, key), line, "{key}");
    }
}

#[test]
fn the_control_character_scan_agrees_with_the_char_scan() {
    for yaml in [
        "a: b",
        "a: b\tc\n",
        "a: \u{1}",
        "a: \u{7f}",
        "a: \u{85}x",
        "a: é\u{9f}",
        "a: \u{a0}",
        "a: ü",
    ] {
        let slow = yaml
            .char_indices()
            .find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\t'))
            .map(|(i, _)| i);
        assert_eq!(first_control(yaml), slow, "{yaml:?}");
    }
}

#[test]
fn yaml_key_lines_are_recognised_as_before() {
    let slow = |line: &str| {
        line.split_once(':').is_some_and(|(key, _)| {
            !key.is_empty()
                && !key.starts_with(char::is_whitespace)
                && key.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
    };
    for line in [
        "name: a",
        "name:",
        ":x",
        " name: a",
        "na me: a",
        "é.x-y_z: 1",
        "a#b: c",
        "plain",
        "a:b:c",
        "",
    ] {
        assert_eq!(looks_like_yaml_key(line), slow(line), "{line:?}");
    }
}
