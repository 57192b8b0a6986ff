//! Any bytes as a SKILL.md (with and without a skill.json beside it): the lenient parser must
//! never panic, and whatever it reports must be self-consistent.
#![no_main]

use agent::skills::load::fields::parse_skill_text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = parse_skill_text(data, "fuzzed", None);
    if let Some(d) = &text.description {
        assert!(!d.trim().is_empty(), "an empty description must be reported as missing");
    }
    assert!(!text.name.is_empty());
    // The same bytes as a skill.json manifest beside an empty SKILL.md.
    if let Ok(serde_json::Value::Object(manifest)) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = parse_skill_text(b"", "fuzzed", Some(&manifest));
    }
});
