//! Property tests for the SKILL.md parser: it never panics, and well-formed input round-trips.

use agent::skills::load::fields::parse_skill_text;
use agent::skills::{Dialect, Severity};
use proptest::prelude::*;

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_any_bytes(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let t = parse_skill_text(&raw, "folder", None);
        prop_assert!(!t.name.is_empty());
        if let Some(d) = t.description {
            prop_assert!(!d.trim().is_empty());
        }
    }

    #[test]
    fn never_panics_on_frontmatter_like_text(
        lines in proptest::collection::vec("(---|name:|description:|metadata:|  - |\\{|\\[|#|>|\\||'|\"|:|\\r|\u{feff}| |[a-z]{1,8}){1,6}", 0..20)
    ) {
        let text = lines.join("\n");
        let _ = parse_skill_text(text.as_bytes(), "folder", None);
    }

    #[test]
    fn valid_frontmatter_round_trips(
        name in "[a-z][a-z0-9]{0,10}(-[a-z0-9]{1,8}){0,3}",
        description in "[A-Za-z0-9][A-Za-z0-9 ,.()/'!?-]{10,200}",
        body in "[ -~\n]{0,300}",
    ) {
        let quoted = serde_json::to_string(&description).unwrap();
        let text = format!("---\nname: {name}\ndescription: {quoted}\n---\n{body}");
        let t = parse_skill_text(text.as_bytes(), &name, None);
        prop_assert_eq!(&t.name, &name);
        prop_assert_eq!(t.description, Some(collapse(&description)));
        prop_assert_eq!(t.dialect, Some(Dialect::AgentSkills));
        let warnings: Vec<_> = t.findings.iter().filter(|f| f.severity >= Severity::Warning).collect();
        prop_assert!(warnings.is_empty(), "{:?}", warnings);
    }

    #[test]
    fn any_single_line_description_survives_as_a_quoted_string(description in "\\PC{1,300}") {
        prop_assume!(!description.trim().is_empty());
        let quoted = serde_json::to_string(&description).unwrap();
        let text = format!("---\nname: x\ndescription: {quoted}\n---\n");
        let t = parse_skill_text(text.as_bytes(), "x", None);
        prop_assert_eq!(t.description, Some(collapse(&description)));
    }
}
