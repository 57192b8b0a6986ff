//! Sessions as text for a person: the listing of `agent sessions list` and `/sessions` (a table on
//! a terminal, tab-separated lines for scripts), and the chat's `/usage`, `/context`, `/compact`,
//! `/resume`, `/fork` and `/export` answers. First messages, folders and skill names came from
//! outside: they are shown with anything invisible escaped.

use std::path::Path;

use super::skill_list::short_path;
use super::table::Table;
use crate::output::session::{
    CompactReport, ContextUse, SessionExported, SessionList, SessionResumed, SessionSummary, UsageReport, WindowSource,
    age,
};
use crate::support::terminal_text::visible;

const HEADERS: [&str; 6] = ["ID", "WHEN", "FOLDER", "TURNS", "TOKENS", "FIRST MESSAGE"];
/// The FOLDER column, left out first on a narrow terminal.
const FOLDER_COLUMN: usize = 2;

/// The listing: a table `width` columns wide on a terminal, else one tab-separated line per
/// session (id, start as RFC 3339, folder, turns, tokens in, tokens out, first message).
pub(crate) fn list_lines(list: &SessionList, tty: bool, width: usize) -> Vec<String> {
    if !tty {
        return list.sessions.iter().map(tsv_line).collect();
    }
    if list.sessions.is_empty() {
        return Vec::new();
    }
    let cwd = std::env::current_dir().ok();
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let rows = list
        .sessions
        .iter()
        .map(|s| {
            vec![
                s.id.clone(),
                age(s.started_at, list.now),
                visible(&short_path(Path::new(&s.cwd), cwd.as_deref(), home.as_deref())).into_owned(),
                s.turns.to_string(),
                tokens(s.prompt_tokens + s.completion_tokens, s.estimated),
                visible(s.first_message.as_deref().unwrap_or("")).into_owned(),
            ]
        })
        .collect();
    Table {
        headers: &HEADERS,
        rows,
        droppable: Some(FOLDER_COLUMN),
    }
    .render(width)
}

fn tsv_line(s: &SessionSummary) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        s.id,
        s.started,
        visible(&s.cwd),
        s.turns,
        s.prompt_tokens,
        s.completion_tokens,
        visible(s.first_message.as_deref().unwrap_or(""))
    )
}

/// `12.3k` tokens, `~` in front when estimated.
fn tokens(n: u64, estimated: bool) -> String {
    let mark = if estimated { "~" } else { "" };
    if n >= 10_000 {
        format!("{mark}{:.1}k", n as f64 / 1000.0)
    } else {
        format!("{mark}{n}")
    }
}

/// What `agent sessions list` says on stderr: where sessions are, and how to go on with one.
pub(crate) fn list_notes(list: &SessionList) -> Vec<String> {
    let mut err: Vec<String> = list
        .problems
        .iter()
        .map(|p| format!("warning: {}", visible(p)))
        .collect();
    if list.sessions.is_empty() {
        err.push(format!(
            "no sessions stored yet in {}",
            visible(&list.dir.display().to_string())
        ));
    }
    err
}

/// `, 1200 cache write, 9800 cache read, $0.0042` — the parts the provider reported.
fn cache_and_cost(write: u64, read: u64, cost: Option<crate::support::money::Usd>) -> String {
    let mut out = String::new();
    if write > 0 || read > 0 {
        out.push_str(&format!(", {write} cache write, {read} cache read"));
    }
    if let Some(cost) = cost {
        out.push_str(&format!(", {cost}"));
    }
    out
}

/// `/usage`: one line per turn, then the session.
pub(crate) fn usage_lines(r: &UsageReport) -> Vec<String> {
    let mut lines: Vec<String> = r
        .turns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let message: String = visible(&t.message).chars().take(50).collect();
            format!(
                "  {:>3}. {:>8} in {:>7} out{}  {}{message}",
                i + 1,
                tokens(t.prompt_tokens, t.estimated),
                tokens(t.completion_tokens, t.estimated),
                cache_and_cost(t.cache_write_tokens, t.cache_read_tokens, t.cost_usd),
                if t.calls == 1 {
                    String::new()
                } else {
                    format!("({} calls) ", t.calls)
                }
            )
        })
        .collect();
    let t = &r.totals;
    lines.push(format!(
        "  session: {} in, {} out{}{}",
        tokens(t.prompt_tokens, t.estimated),
        tokens(t.completion_tokens, t.estimated),
        cache_and_cost(t.cache_write_tokens, t.cache_read_tokens, t.cost_usd),
        if t.estimated {
            " (~estimated: the server sent no usage for some calls; bytes / 4)"
        } else {
            ""
        }
    ));
    let window = r.window.map_or_else(
        || "an unknown window (AGENT_CONTEXT_WINDOW sets it)".to_string(),
        |w| format!("a window of {w} ({}%)", r.context_tokens * 100 / w.max(1)),
    );
    lines.push(format!(
        "  context: the next request holds ~{} tokens of {window}; /context breaks it down",
        r.context_tokens
    ));
    lines
}

/// `/context`: each part of the next request, then the total against the window.
pub(crate) fn context_lines(c: &ContextUse) -> Vec<String> {
    let mut lines: Vec<String> = c
        .parts
        .iter()
        .map(|p| {
            let name = match &p.name {
                Some(skill) => format!("skill {}", visible(skill)),
                None => p.part.replace('_', " "),
            };
            format!("  {name:<22} {:>8} B  ~{:>6} tokens", p.bytes, p.tokens)
        })
        .collect();
    let window = match (c.window, c.window_source) {
        (Some(w), WindowSource::Server) => format!("of a {w}-token window (from the server)"),
        (Some(w), _) => format!("of a {w}-token window (AGENT_CONTEXT_WINDOW)"),
        (None, _) => "of an unknown window (set AGENT_CONTEXT_WINDOW)".to_string(),
    };
    let share = c
        .window
        .filter(|w| *w > 0)
        .map(|w| format!(" = {}%", c.tokens * 100 / w))
        .unwrap_or_default();
    lines.push(format!(
        "  {:<22} {:>8} B  ~{:>6} tokens {window}{share}",
        "total", c.bytes, c.tokens
    ));
    lines.push(match c.compact_at {
        Some(limit) => format!("  compacts by itself past ~{limit} tokens (AGENT_COMPACT_AT); /compact now"),
        None => "  no automatic compaction (window unknown or AGENT_COMPACT_AT=off): old outputs are shortened past \
                 AGENT_HISTORY_BUDGET; /compact now"
            .into(),
    });
    lines
}

/// `/compact`: how much smaller the request got, and which skills were sent again.
pub(crate) fn compacted_line(r: &CompactReport) -> String {
    let skills = if r.skills.is_empty() {
        String::new()
    } else {
        format!("; skills sent again: {}", visible(&r.skills.join(", ")))
    };
    format!(
        "compacted {} messages into a summary: ~{} → ~{} tokens{skills} (the session file keeps them all)",
        r.replaced, r.tokens_before, r.tokens_after
    )
}

/// `-c`, `--resume` and `/resume`: what was taken up.
pub(crate) fn resumed_lines(r: &SessionResumed) -> Vec<String> {
    let mut lines = vec![format!(
        "resumed session {} ({} turns) · model {}",
        r.resumed,
        r.turns,
        visible(&r.model)
    )];
    match &r.session_id {
        Some(id) if *id != r.resumed => lines.push(format!(
            "session {} is open in another agent: this one goes on in a fork of it, {id}",
            r.resumed
        )),
        Some(_) => {}
        None => lines.push("sessions are not stored in this run (AGENT_SESSIONS=0 or --no-session)".into()),
    }
    if r.lost_turn {
        lines.push("its last turn had not finished (the agent was stopped): it is marked as interrupted".into());
    }
    lines
}

/// `/export` and `sessions export -o`: where the file went.
pub(crate) fn exported_line(r: &SessionExported) -> String {
    format!(
        "wrote session {} as {} to {}",
        r.id,
        r.format,
        visible(&r.path.display().to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::session::{ContextPart, Totals, TurnUsage};

    #[test]
    fn usage_marks_estimates() {
        let r = UsageReport {
            turns: vec![TurnUsage {
                message: "weather\x1b in Tokyo".into(),
                calls: 3,
                prompt_tokens: 12_345,
                completion_tokens: 40,
                estimated: true,
                ..Default::default()
            }],
            totals: Totals {
                prompt_tokens: 12_345,
                completion_tokens: 40,
                estimated: true,
                ..Default::default()
            },
            context_tokens: 8192,
            window: Some(32768),
        };
        let lines = usage_lines(&r);
        assert_eq!(
            lines[0],
            "    1.   ~12.3k in     ~40 out  (3 calls) weather\\x1b in Tokyo"
        );
        assert!(lines[1].contains("~estimated"), "{lines:?}");
        assert!(
            lines[2].contains("~8192 tokens of a window of 32768 (25%)"),
            "{lines:?}"
        );
    }

    #[test]
    fn usage_shows_cache_counts_and_cost_when_reported() {
        let cost = Some(crate::support::money::Usd::from_dollars(0.0042));
        let turn = TurnUsage {
            message: "hi".into(),
            calls: 1,
            prompt_tokens: 11_000,
            completion_tokens: 40,
            cache_write_tokens: 1_000,
            cache_read_tokens: 9_800,
            cost_usd: cost,
            estimated: false,
        };
        let r = UsageReport {
            turns: vec![turn.clone()],
            totals: Totals::of(&[turn]),
            context_tokens: 100,
            window: None,
        };
        let lines = usage_lines(&r);
        assert!(
            lines[0].contains("out, 1000 cache write, 9800 cache read, $0.0042"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("40 out, 1000 cache write, 9800 cache read, $0.0042"),
            "{lines:?}"
        );
    }

    #[test]
    fn context_shows_the_window_and_the_share() {
        let c = ContextUse {
            parts: vec![ContextPart {
                part: "tool_outputs",
                name: None,
                bytes: 4000,
                tokens: 1000,
            }],
            bytes: 4000,
            tokens: 1000,
            window: Some(8000),
            window_source: WindowSource::Server,
            compact_at: Some(6400),
        };
        let lines = context_lines(&c);
        assert!(lines[0].starts_with("  tool outputs"), "{lines:?}");
        assert!(
            lines[1].contains("of a 8000-token window (from the server) = 12%"),
            "{lines:?}"
        );
        assert!(lines[2].contains("past ~6400 tokens"), "{lines:?}");
    }
}
