//! `skills eval` for people: one line per case as it is decided, then a summary read at a glance
//! (the pass rate against the threshold, each half of the split, each skill's rates and worst
//! cases).

use super::report_text::path;
use crate::output::report::{EvalCase, EvalDraft, EvalHalf, EvalSummary, TuneReport};
use crate::support::terminal_text::visible;

/// One case: verdict, trigger rate, what was chosen, where the skill stood in the catalog.
pub(crate) fn case(c: &EvalCase) -> String {
    let verdict = if c.pass { "PASS" } else { "FAIL" };
    let kind = if c.expected == "none" {
        "no skill".to_string()
    } else if c.should_trigger {
        visible(&c.expected).into_owned()
    } else {
        format!("not {}", visible(&c.expected))
    };
    let shown = match (c.shown_at, c.found_by_search, c.expected.as_str()) {
        (_, _, "none") => String::new(),
        (Some(at), _, _) => format!(", shown #{at}"),
        (None, true, _) => ", found by search".to_string(),
        (None, false, _) => ", NOT SHOWN".to_string(),
    };
    let chose = if c.pass {
        String::new()
    } else {
        format!(" → chose {}", visible(&c.activations.join(", ")))
    };
    format!(
        "{verdict}  {}/{} {kind:<20} {:?} ({}{shown}){chose}",
        c.triggers,
        c.runs,
        visible(&c.prompt),
        c.split
    )
}

fn rate(r: Option<f64>) -> String {
    r.map_or_else(|| "–".to_string(), |r| format!("{:.0}%", r * 100.0))
}

fn half(name: &str, h: &EvalHalf) -> String {
    format!("{name} {}/{} ({})", h.passed, h.total, rate(h.pass_rate))
}

/// The summary lines.
pub(crate) fn summary(r: &EvalSummary) -> Vec<String> {
    let mut out = vec![format!(
        "{}/{} passed ({:.0}%), threshold {:.0}%: {}",
        r.passed,
        r.total,
        r.pass_rate * 100.0,
        r.threshold * 100.0,
        if r.ok { "ok" } else { "FAILED" }
    )];
    out.push(format!(
        "  {} · {} · {} run{} per case · {} model calls",
        half("train", &r.train),
        half("validation", &r.validation),
        r.runs,
        if r.runs == 1 { "" } else { "s" },
        r.llm_calls
    ));
    for s in r.skills.iter().filter(|s| s.skill != "none") {
        out.push(format!(
            "  {}: chosen {} when it should be, {} when it should not ({}/{} cases)",
            visible(&s.skill),
            rate(s.should_rate),
            rate(s.should_not_rate),
            s.passed,
            s.total
        ));
        for worst in &s.worst {
            out.push(format!("    worst: {:?}", visible(worst)));
        }
    }
    out
}

/// What `--draft` added.
pub(crate) fn draft(r: &EvalDraft) -> Vec<String> {
    if r.added == 0 {
        return vec![format!(
            "no new cases for {}: the model proposed only requests {} already holds",
            visible(&r.skill),
            path(&r.file)
        )];
    }
    vec![
        format!(
            "added {} cases for {} to {} ({} should pick it, {} should not; {} kept as they were)",
            r.added,
            visible(&r.skill),
            path(&r.file),
            r.should_trigger,
            r.added - r.should_trigger,
            r.kept
        ),
        format!("review them, then: agent skills eval {}", path(&r.file)),
    ]
}

/// `skills tune`: rates before and after on both halves, the description's diff, what was tried.
pub(crate) fn tune(r: &TuneReport) -> Vec<String> {
    let pct = |x: f64| format!("{:.0}%", x * 100.0);
    let mut out = vec![format!(
        "{}: train {} → {}, validation {} → {} ({}; {} model calls, {} tokens)",
        visible(&r.skill),
        pct(r.train_before),
        pct(r.train_after),
        pct(r.validation_before),
        pct(r.validation_after),
        r.stopped,
        r.llm_calls,
        r.tokens
    )];
    for (i, t) in r.tried.iter().enumerate() {
        out.push(format!("  try {}: {}", i + 1, visible(t)));
    }
    if r.before == r.after {
        out.push("no proposal did better on the validation half: the description stays as it is".into());
        return out;
    }
    out.push("description:".into());
    let diff = similar::TextDiff::from_words(r.before.as_str(), r.after.as_str());
    let mut line = String::from("  ");
    for change in diff.iter_all_changes() {
        let word = visible(change.value()).into_owned();
        match change.tag() {
            similar::ChangeTag::Equal => line.push_str(&word),
            similar::ChangeTag::Delete => line.push_str(&format!("[-{word}-]")),
            similar::ChangeTag::Insert => line.push_str(&format!("{{+{word}+}}")),
        }
    }
    out.push(line);
    out.push(match &r.written {
        Some(file) => format!("written to {}", path(file)),
        None => "not written (answer yes at the question, or pass --write where nobody can be asked)".into(),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_case_says_what_was_chosen_and_where_the_skill_stood() {
        let c = EvalCase {
            prompt: "weather in Oslo".into(),
            expected: "weather".into(),
            should_trigger: true,
            split: "validation".into(),
            activated: "none".into(),
            activations: vec!["none".into(), "time".into(), "weather".into()],
            runs: 3,
            triggers: 1,
            trigger_rate: 1.0 / 3.0,
            shown_at: Some(4),
            found_by_search: false,
            pass: false,
        };
        assert_eq!(
            case(&c),
            "FAIL  1/3 weather              \"weather in Oslo\" (validation, shown #4) → chose none, time, weather"
        );
    }
}
