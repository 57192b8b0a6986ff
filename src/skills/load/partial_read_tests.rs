use std::io::Cursor;

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::skills::load::frontmatter::Finding;

const CAP: u64 = 1024 * 1024;

/// What a skill keeps of a parse: everything but the body.
#[derive(Debug, PartialEq)]
struct Kept {
    name: String,
    description: Option<String>,
    findings: Vec<Finding>,
    allowed_tools: Vec<String>,
    license: Option<String>,
    compatibility: Option<String>,
}

fn kept(t: &SkillText) -> Kept {
    Kept {
        name: t.name.clone(),
        description: t.description.clone(),
        findings: t.findings.clone(),
        allowed_tools: t.allowed_tools.clone(),
        license: t.license.clone(),
        compatibility: t.compatibility.clone(),
    }
}

fn front(text: &str, first: usize) -> Front {
    parse_front_with(Cursor::new(text.as_bytes()), first, 0, CAP, "x", None).unwrap()
}

fn long_body() -> String {
    "Some words about the skill.\n\n".repeat(4000)
}

#[test]
fn a_frontmatter_skill_is_read_only_as_far_as_its_first_read() {
    let text = format!(
        "---\nname: x\ndescription: Does x things for people.\n---\n{}",
        long_body()
    );
    let f = parse_front(Cursor::new(text.as_bytes()), CAP, "x", None).unwrap();
    assert_eq!((f.read, f.whole), (FIRST_READ, false));
    assert_eq!(f.text.description.as_deref(), Some("Does x things for people."));
}

#[test]
fn a_long_frontmatter_grows_the_read_until_it_closes() {
    let padding = "  ".to_string() + &"word ".repeat(20_000);
    let text = format!("---\nname: x\ndescription: >\n{padding}\n---\n{}", long_body());
    let f = parse_front(Cursor::new(text.as_bytes()), CAP, "x", None).unwrap();
    assert!(!f.whole && f.read >= 100_000 && f.read < text.len(), "{}", f.read);
    assert_eq!(kept(&f.text), kept(&parse_skill_text(text.as_bytes(), "x", None)));
}

#[test]
fn an_scp_description_section_near_the_top_is_enough() {
    let text = format!("# X\n\n## Description\n\nTurns x into y.\n\n## Usage\n{}", long_body());
    let f = parse_front(Cursor::new(text.as_bytes()), CAP, "x", None).unwrap();
    assert_eq!((f.read, f.whole), (FIRST_READ, false));
    assert_eq!(f.text.description.as_deref(), Some("Turns x into y."));
}

#[test]
fn markdown_without_a_description_section_is_read_whole_since_one_may_follow() {
    let text = format!(
        "# X\n\nFirst paragraph.\n\n{}## Description\n\nThe real one.\n",
        long_body()
    );
    let f = parse_front(Cursor::new(text.as_bytes()), CAP, "x", None).unwrap();
    assert!(f.whole);
    assert_eq!(f.text.description.as_deref(), Some("The real one."));
}

#[test]
fn a_manifest_description_settles_an_scp_skill() {
    let manifest = json!({"description": "From the manifest."});
    let text = format!("# X\n\nFirst paragraph.\n\n{}", long_body());
    let f = parse_front(Cursor::new(text.as_bytes()), CAP, "x", manifest.as_object()).unwrap();
    assert!(!f.whole);
    assert_eq!(f.text.description.as_deref(), Some("From the manifest."));
}

#[test]
fn an_unclosed_block_is_read_to_the_end_to_name_the_line_that_closes_it() {
    let text = format!(
        "---\nname: x\ndescription: d for x things\n\n# Body\n{}---\nmore\n",
        long_body()
    );
    let f = front(&text, 64);
    assert!(f.whole);
    assert_eq!(kept(&f.text), kept(&parse_skill_text(text.as_bytes(), "x", None)));
}

#[test]
fn binary_files_are_decided_by_their_first_bytes() {
    let mut bytes = vec![b'a'; 100];
    bytes.push(0);
    bytes.extend(std::iter::repeat_n(b'b', 50_000));
    let f = parse_front(Cursor::new(&bytes), CAP, "x", None).unwrap();
    assert!(!f.whole);
    assert!(f.text.findings.iter().any(|f| f.message.contains("binary")));
}

#[test]
fn the_cap_ends_the_read() {
    let text = format!("# X\n\nNo description section.\n\n{}", long_body());
    let f = parse_front(Cursor::new(text.as_bytes()), 20_000, "x", None).unwrap();
    assert_eq!((f.read, f.whole), (20_000, true));
}

/// Files whose front is read in several rounds and needs normalizing: each is parsed the same
/// read whole, read as a front, and read as a front by the first read alone.
#[test]
fn quirky_fronts_parse_like_whole_files() {
    let body = long_body();
    let texts = [
        format!("\u{feff}---\r\nname: x\r\ndescription: Does x things for people.\r\n---\r\n{body}"),
        format!("\n\n---\nname: x\ndescription: \"Quoted: x things\"\n---\n{body}"),
        format!("---\nname: x\ndescription: |\n  Literal\n  lines here.\n---\n{body}"),
        format!("---\nname: x\ndescription: >-\n  Folded\n  lines here.\n---\n{body}"),
        format!("---\nname: x\ndescription: 'it''s x'\n---\n{body}"),
        format!("---\nname: x\ndescription: Use when: x happens\n---\n{body}"),
        format!("---\nname: x\ndescription: bad \u{1} char here\n---\n{body}"),
        format!("---\nname: x\ndescription: never closed\n\n# Title\n{body}"),
        format!("---\nname: X Y\nlicense: MIT\n---\n# X\n\n## Description\n\nFrom the\nmarkdown.\n\n{body}"),
        format!("# X\n\n## Description\n\nTurns x\r\ninto y.\r\n\r\n{body}"),
        format!("name: x\ndescription: no fences at all\n\n{body}"),
    ];
    let mut cases: Vec<Vec<u8>> = texts.iter().map(|t| t.clone().into_bytes()).collect();
    let mut early_invalid = b"---\nname: x\ndescription: caf\xe9 things\n---\n".to_vec();
    early_invalid.extend_from_slice(body.as_bytes());
    cases.push(early_invalid);
    let mut nul = b"---\nname: x\ndescription: d\0 things\n---\n".to_vec();
    nul.extend_from_slice(body.as_bytes());
    cases.push(nul);
    let manifest = json!({"description": "From the manifest.", "name": "x"});
    for bytes in &cases {
        for manifest in [None, manifest.as_object()] {
            let whole = parse_skill_text(bytes, "x", manifest);
            let f = parse_front(Cursor::new(bytes), CAP, "x", manifest).unwrap();
            // Small reads too, where no manifest could settle the file before its CRLF is seen.
            let small = parse_front_with(Cursor::new(bytes), 16, 0, CAP, "x", manifest).unwrap();
            let small = manifest.is_none().then_some(&small.text);
            for text in std::iter::once(&f.text).chain(small) {
                assert_eq!(kept(text), kept(&whole), "{:?}", String::from_utf8_lossy(&bytes[..60]));
                assert_eq!((text.dialect, &text.version), (whole.dialect, &whole.version));
                assert_eq!(text.description_from, whole.description_from);
            }
        }
    }
}

/// Lines that exercise every branch of the split and of the markdown description.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("---".to_string()),
        Just("...".to_string()),
        Just(String::new()),
        Just("## Description".to_string()),
        Just("# Title".to_string()),
        Just("```".to_string()),
        Just("![badge](x)".to_string()),
        Just("name: x".to_string()),
        Just("description: does x things".to_string()),
        Just("description: >".to_string()),
        Just("license: MIT".to_string()),
        Just("  - item".to_string()),
        Just("| a | b |".to_string()),
        "[a-z]{1,8}: [a-z ]{0,12}",
        "  [a-z ]{1,12}",
        "[A-Za-z][a-z ,.]{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn the_front_parses_like_the_whole_file(
        lines in proptest::collection::vec(line(), 0..40),
        first in 1usize..200,
        trailing_newline in any::<bool>(),
        manifest_description in any::<bool>(),
    ) {
        let mut text = lines.join("\n");
        if trailing_newline {
            text.push('\n');
        }
        let manifest = json!({"description": "From the manifest."});
        let manifest = manifest.as_object().filter(|_| manifest_description);
        let f = parse_front_with(Cursor::new(text.as_bytes()), first, 0, CAP, "x", manifest).unwrap();
        let whole = parse_skill_text(text.as_bytes(), "x", manifest);
        prop_assert_eq!(kept(&f.text), kept(&whole));
        prop_assert_eq!(f.text.dialect, whole.dialect);
        prop_assert_eq!(f.text.version, whole.version);
        prop_assert!(f.read <= text.len().max(first));
    }
}
