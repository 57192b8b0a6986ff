//! The HTML export: one file that opens in any browser with nothing else, no scripts, the CSS
//! inline, commands and outputs folded in `<details>`. Every piece of text is escaped, so a hostile
//! answer or command output shows as text and never becomes markup. The markup is also
//! well-formed XML (every element closed, no `<`, `>` or `&` in the CSS), which tests check with a
//! strict parser.

use std::fmt::Write;

use super::Item;
use super::md::interrupted;
use crate::output::session::SessionSummary as Overview;
use crate::support::terminal_text::for_terminal;

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;\
color:#1d1d1f;background:#fff}\
h1{font-size:1.4rem}h2{font-size:1.1rem;border-top:1px solid #ddd;padding-top:1rem;margin-top:2rem}\
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dt{color:#666}dd{margin:0}\
pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0}\
.user{background:#eef4ff;border-radius:6px;padding:.5rem .8rem}\
.answer{padding:.3rem .8rem;border-left:3px solid #8a8}\
details{margin:.4rem 0;border:1px solid #ddd;border-radius:6px;padding:.3rem .8rem}\
summary{cursor:pointer;font-family:ui-monospace,monospace}\
.out{background:#f6f6f6;padding:.4rem;border-radius:4px}.note{color:#666;font-style:italic}\
.compacted{border:1px dashed #999;padding:.5rem .8rem}\
@media (prefers-color-scheme:dark){body{background:#161616;color:#ddd}.user{background:#1f2a3a}.out{background:#222}}";

/// The session as one self-contained HTML page: inline CSS, no scripts, every text escaped.
pub(super) fn render(o: &Overview, items: &[Item]) -> String {
    let mut out = String::with_capacity(4096);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\
<title>agent session {id}</title><style>{STYLE}</style></head>\n<body><main>\n<h1>agent session {id}</h1>\n{meta}",
        id = esc(&o.id),
        meta = meta(o),
    );
    let mut turn = 0;
    let mut open = false;
    for item in items {
        if let Item::User(_) = item {
            if open {
                out.push_str("</section>\n");
            }
            turn += 1;
            open = true;
            let _ = writeln!(out, "<section class=\"turn\"><h2>Turn {turn}</h2>");
        }
        out.push_str(&item_html(item));
    }
    if open {
        out.push_str("</section>\n");
    }
    out.push_str("</main></body></html>\n");
    out
}

fn meta(o: &Overview) -> String {
    let estimated = if o.estimated { " (~estimated)" } else { "" };
    let mut rows = vec![
        ("Started", esc(&o.started)),
        ("Working directory", esc(&o.cwd)),
        ("Model", format!("{} at {}", esc(&o.model), esc(&o.base_url))),
        ("Turns", o.turns.to_string()),
        (
            "Tokens",
            format!("{} in, {} out{estimated}", o.prompt_tokens, o.completion_tokens),
        ),
    ];
    if let Some(parent) = &o.parent {
        rows.push(("Forked from", esc(parent)));
    }
    let rows: String = rows
        .into_iter()
        .map(|(k, v)| format!("<dt>{k}</dt><dd>{v}</dd>"))
        .collect();
    format!("<dl>{rows}</dl>\n")
}

fn item_html(item: &Item) -> String {
    match item {
        Item::User(text) => format!("<div class=\"user\"><pre>{}</pre></div>\n", esc(text.trim())),
        Item::Answer(text) => format!("<div class=\"answer\"><pre>{}</pre></div>\n", esc(text.trim())),
        Item::Activated { skill, result } => fold(&format!("skill {} activated", esc(skill)), Some(result)),
        Item::Command { command, result } => fold(&format!("$ {}", esc(command)), result.as_deref()),
        Item::Tool {
            name,
            arguments,
            result,
        } => fold(&format!("{} {}", esc(name), esc(arguments)), result.as_deref()),
        Item::Compacted { summary, auto } => {
            let why = if *auto {
                "automatically, near the context limit"
            } else {
                "with /compact"
            };
            format!(
                "<div class=\"compacted\"><p class=\"note\">The history was compacted here ({why}). Summary:</p><pre>{}</pre></div>\n",
                esc(summary.trim())
            )
        }
        Item::Interrupted(by) => format!("<p class=\"note\">{}</p>\n", interrupted(*by)),
        Item::Note(text) => format!("<p class=\"note\">{}</p>\n", esc(text)),
    }
}

/// A folded block: `summary` (already escaped) always shown, `body` when opened.
fn fold(summary: &str, body: Option<&str>) -> String {
    let body = match body {
        Some(text) => format!("<pre class=\"out\">{}</pre>", esc(text.trim_end())),
        None => "<p class=\"note\">(no result recorded)</p>".to_string(),
    };
    format!("<details><summary>{summary}</summary>{body}</details>\n")
}

/// Text as HTML: markup characters as entities, invisible characters shown escaped, and the two
/// noncharacters XML forbids replaced.
pub(super) fn esc(text: &str) -> String {
    let shown = for_terminal(text);
    let mut out = String::with_capacity(shown.len() + 16);
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_never_becomes_markup() {
        assert_eq!(
            esc("</pre><script>alert('x')</script> & \"q\"\x1b[2J\u{FFFF}"),
            "&lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;\\x1b[2J\u{FFFD}"
        );
    }

    #[test]
    fn the_style_needs_no_escaping() {
        assert!(!STYLE.contains(['<', '>', '&']));
    }
}
