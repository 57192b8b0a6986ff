//! Unit tests of splitting and lenient YAML parsing of frontmatter.

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
