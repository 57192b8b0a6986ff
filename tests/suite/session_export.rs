//! Exporting a stored session through the real binary: Markdown, one self-contained HTML page
//! (checked strictly: no scripts, no handlers, every element closed, hostile text escaped) and
//! JSON; `sessions show`, `list` and `rm`.

use crate::common::*;
use serde_json::Value;

use crate::common::sessions::{WEATHER, once, records};

const HOSTILE: &str = "<script>alert(1)</script><img src=x onerror=alert(2)></details>";

/// A once run that activates weather, runs a command whose output is hostile markup, and answers
/// with more of it; returns the session's id.
async fn session_with_tool_calls(ws: &Workspace) -> String {
    ws.skill("weather", WEATHER, Some(&format!("#!/bin/sh\necho '{HOSTILE}'\n")));
    let mock = MockLlm::start(activate_run_answer(
        "weather",
        "./run.sh Tokyo",
        &format!("Sunny {HOSTILE}"),
    ))
    .await;
    let (code, _, err) = once(ws, &mock, "weather in Tokyo", &[]).await;
    assert_eq!(code, 0, "{err}");
    records(&ws.session_files()[0])[0]["id"].as_str().unwrap().to_string()
}

/// A strict little check of an HTML document: every non-void element is closed in order, no
/// `<script`, no event-handler attributes, no outside resources, no bare `<` in text.
fn check_html(html: &str) -> Result<(), String> {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let mut open: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if name.is_empty() {
            return Err(format!("a bare '<' in text: <{tag}>"));
        }
        let attributes = tag.to_ascii_lowercase();
        let handler = attributes.split_whitespace().skip(1).any(|a| a.starts_with("on"));
        if ["script", "iframe", "object", "embed", "link", "img"].contains(&name.as_str())
            || handler
            || attributes.contains("src=")
            || attributes.contains("href=")
        {
            return Err(format!("active or outside content: <{tag}>"));
        }
        if tag.starts_with('/') {
            match open.pop() {
                Some(o) if o == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
        } else if !VOID.contains(&name.as_str()) && !tag.ends_with('/') {
            open.push(name);
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("never closed: {open:?}"))
    }
}

#[tokio::test]
async fn exports_show_tool_calls_and_html_is_self_contained_and_escaped() {
    let ws = Workspace::new();
    let id = session_with_tool_calls(&ws).await;
    let export = |format: &str, file: &str| {
        let path = ws.dir.path().join(file);
        let mut cmd = ws.bare_agent();
        cmd.args(["sessions", "export", &id[..15], "--format", format, "-o"])
            .arg(&path);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(path).unwrap()
    };
    let md = export("md", "s.md");
    for needle in ["weather in Tokyo", "./run.sh Tokyo", "Sunny", "weather"] {
        assert!(md.contains(needle), "md lacks {needle}:\n{md}");
    }
    let html = export("html", "s.html");
    check_html(&html).unwrap_or_else(|e| panic!("{e}:\n{html}"));
    assert!(html.contains("<details"), "commands and outputs fold");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "hostile text is escaped"
    );
    assert!(html.contains("./run.sh Tokyo") && html.contains("<style"));
    let json: Value = serde_json::from_str(&export("json", "s.json")).unwrap();
    assert_eq!(json["session"]["id"], id);
    let records = json["records"].as_array().unwrap();
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "activation" && r["skill"] == "weather")
    );
    assert!(
        records
            .iter()
            .any(|r| r["role"] == "tool" && r["content"].as_str().unwrap().contains("alert(2)"))
    );
    // `show` prints the Markdown; `rm` deletes; `list` shows what is left.
    let mut show = ws.bare_agent();
    show.args(["sessions", "show", &id]);
    assert_eq!(String::from_utf8_lossy(&show.output().unwrap().stdout), md);
    let mut list = ws.bare_agent();
    list.args(["sessions", "list"]);
    let listed = String::from_utf8_lossy(&list.output().unwrap().stdout).into_owned();
    assert!(listed.contains(&id) && listed.contains("weather in Tokyo"), "{listed}");
    let mut rm = ws.bare_agent();
    rm.args(["sessions", "rm", &id]);
    assert!(rm.output().unwrap().status.success());
    assert!(ws.session_files().is_empty());
}

#[test]
fn the_html_checker_can_fail() {
    assert!(check_html("<p><details>x</p>").is_err());
    assert!(check_html("<p>a < b</p>").is_err());
    assert!(check_html("<p><script>x</script></p>").is_err());
    assert!(check_html("<p onclick=x>a</p>").is_err());
    assert!(check_html("<p>a &lt; b<br></p>").is_ok());
}
