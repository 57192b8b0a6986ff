//! Reports as text for a person: what goes to stdout and what to stderr. Pure functions of the
//! report and the terminal's shape, so every wording is testable without a terminal. Names,
//! descriptions, paths and bodies came from skill folders: one-line fields are shown with anything
//! invisible escaped, bodies with controls escaped and newlines kept.

use std::path::Path;

use super::chat_text::chat;
use super::session_text;
use super::skill_list::{table_lines, tsv_lines};
use crate::output::report::{Report, SkillCheck, SkillList, SkillNew, SkillSearch, SkillShow, Trusted};
use crate::skills::roots::RootKind;
use crate::skills::{Diagnostic, Severity};
use crate::support::terminal_text::{MAX_NAMED, for_terminal, short_list, visible};

/// Bundled files `skills show` lists.
const MAX_SHOWN_FILES: usize = 50;
/// The columns of `skills search` on a terminal.
const SEARCH_HEADERS: [&str; 4] = ["#", "SKILL", "SCORE", "DESCRIPTION"];

/// The shape of the terminal a report is drawn on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Screen {
    /// stdout is a terminal (a listing is a table rather than tab-separated lines).
    pub(crate) stdout_tty: bool,
    /// Columns of stdout, and of stderr (where chat replies go).
    pub(crate) stdout_width: usize,
    pub(crate) stderr_width: usize,
}

/// A report as lines: `out` on stdout first, then `err` on stderr.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Text {
    pub(crate) out: Vec<String>,
    pub(crate) err: Vec<String>,
}

/// The text of `report` on `screen`. Chat replies and notes are all `err`; generated text
/// ([`Report::Text`]) is written as it is and has no lines here.
pub(crate) fn render(report: &Report, screen: Screen) -> Text {
    match report {
        Report::SkillList(r) => skill_list(r, screen),
        Report::SkillShow(r) => out_only(skill_show(r)),
        Report::SkillSearch(r) => skill_search(r, screen),
        Report::SkillCheck(r) => out_only(skill_check(r)),
        Report::SkillAudit(r) => super::audit_text::audit(r),
        Report::SkillsVerified(r) => super::audit_text::verified(r),
        Report::KeyAdded(r) => super::audit_text::key_added(r),
        Report::SkillNew(r) => out_only(skill_new(r)),
        Report::EvalCase(c) => out_only(vec![super::eval_text::case(c)]),
        Report::Eval(r) => out_only(super::eval_text::summary(r)),
        Report::EvalDraft(r) => out_only(super::eval_text::draft(r)),
        Report::Tune(r) => out_only(super::eval_text::tune(r)),
        Report::Trusted(r) => trusted(r),
        Report::SkillsAdded(r) => super::library_text::added(r),
        Report::SkillsOutdated(r) => super::library_text::outdated(r),
        Report::SkillsUpdated(r) => super::library_text::updated(r),
        Report::SkillRemoved(r) => super::library_text::removed(r),
        Report::SkillTrusted(r) => super::library_text::trusted_skill(r),
        Report::ManPages(r) => out_only(r.written.iter().map(|p| format!("wrote {}", p.display())).collect()),
        Report::SandboxStatus(r) => out_only(super::sandbox_text::status_lines(r)),
        Report::Note(note) => Text {
            out: Vec::new(),
            err: vec![format!("note: {}", for_terminal(note))],
        },
        Report::Chat(reply) => Text {
            out: Vec::new(),
            err: chat(reply, screen.stderr_width),
        },
        Report::Text(_) => Text::default(),
        Report::SessionList(list) => Text {
            out: session_text::list_lines(list, screen.stdout_tty, screen.stdout_width),
            err: session_text::list_notes(list),
        },
        Report::SessionExported(r) => Text {
            out: Vec::new(),
            err: vec![session_text::exported_line(r)],
        },
        Report::SessionRemoved(r) => Text {
            out: Vec::new(),
            err: vec![format!("removed session {} ({})", r.removed, path(&r.path))],
        },
        Report::McpServers(r) => super::mcp_text::servers(r),
        Report::Hooks(r) => super::hooks_text::list(r),
        Report::McpTools(r) => super::mcp_text::tools(r),
        Report::McpChanged(r) => super::mcp_text::changed(r),
    }
}

fn out_only(out: Vec<String>) -> Text {
    Text { out, err: Vec::new() }
}

pub(super) fn one(text: &str) -> String {
    visible(text).into_owned()
}

pub(super) fn path(p: &Path) -> String {
    one(&p.display().to_string())
}

/// `skills list`: a table on a terminal, tab-separated lines when piped; notes on stderr.
fn skill_list(r: &SkillList, screen: Screen) -> Text {
    let out = match (screen.stdout_tty, r.skills.is_empty()) {
        (true, true) => Vec::new(),
        (true, false) => table_lines(&r.skills, screen.stdout_width, Some(r.catalog_budget)),
        (false, _) => tsv_lines(&r.skills),
    };
    let mut err: Vec<String> = r.problems.iter().map(|p| format!("warning: {}", one(p))).collect();
    // Outside project folders only a changed installed skill is untrusted: its reason names
    // `agent trust --skill NAME`, which the folder-wide hint would not.
    let (project, other): (Vec<_>, Vec<_>) = r
        .skills
        .iter()
        .filter(|s| !s.trusted)
        .partition(|s| s.root_kind == RootKind::Project);
    err.extend(
        other
            .iter()
            .filter_map(|s| s.blocked.as_deref())
            .map(|b| format!("untrusted: {}", one(b))),
    );
    if !project.is_empty() {
        err.push("untrusted: project skills can't run commands until you run `agent trust` in this folder".into());
    }
    if r.skills.iter().any(|s| s.warnings > 0) {
        err.push("warnings: `agent skills show NAME` lists them with file, line and fix".into());
    }
    if r.skills.is_empty() {
        err.push("no skills found; see docs/skills.md, \"Where skills come from\"".into());
    }
    Text { out, err }
}

fn skill_show(r: &SkillShow) -> Vec<String> {
    let s = &r.summary;
    let mut out = vec![
        format!("name:        {}", one(&s.name)),
        format!("description: {}", one(&s.description)),
        format!("folder:      {}", path(&s.dir)),
        format!("root:        {}", path(&s.root)),
        format!("dialect:     {}", s.dialect),
        format!("catalog:     {} B in every request", s.catalog_bytes),
    ];
    if let Some(e) = &s.entry {
        out.push(format!("entry:       {}", one(e)));
    }
    let files: Vec<&str> = r.files.iter().take(MAX_SHOWN_FILES).map(String::as_str).collect();
    if !files.is_empty() {
        out.push(format!("files:       {}", one(&files.join(", "))));
    }
    if !s.allowed_tools.is_empty() {
        out.push(format!("allowed:     {}", one(&s.allowed_tools.join(" "))));
    }
    if let Some(reason) = &s.blocked {
        out.push(format!("blocked:     {}", one(reason)));
    }
    if let Some(n) = s.accepted_findings {
        out.push(format!(
            "audit:       installed over {n} finding(s) of high or critical severity (skills-lock.json lists them; `agent skills audit {}` shows them)",
            one(&s.dir.display().to_string())
        ));
    }
    if let Some(sig) = s.signature {
        out.push(format!("signature:   {}", sig.name()));
    }
    out.extend(super::sandbox_text::policy_lines(&r.sandbox));
    out.push(format!("invoked:     {}", invocation_line(&s.name, &r.invocation)));
    for need in &r.needs {
        out.push(format!("needs:       {}", need_line(need)));
    }
    for d in &r.diagnostics {
        out.push(format!("{:?}: {}", d.severity, one(&d.to_string())));
    }
    out.push(String::new());
    out.push(for_terminal(r.body.trim()).into_owned());
    out
}

/// One declared need with ✓ or ✗, and where a missing one is set (a found program: where it is).
fn need_line(need: &crate::skills::check::needs_met::Need) -> String {
    use crate::skills::check::needs_met::{MCP_UNAVAILABLE, NeedKind, WHERE_TO_SET};
    let mark = if need.met { "✓" } else { "✗" };
    match (need.kind, need.met) {
        (NeedKind::Env, true) => format!("{mark} environment variable {} (set)", one(&need.name)),
        (NeedKind::Env, false) => format!("{mark} environment variable {} ({WHERE_TO_SET})", one(&need.name)),
        (NeedKind::Bin, true) => format!(
            "{mark} program {} ({})",
            one(&need.name),
            need.found_at.as_deref().map(path).unwrap_or_default()
        ),
        (NeedKind::Bin, false) => format!("{mark} program {} (not found on PATH)", one(&need.name)),
        (NeedKind::Mcp, true) => format!("{mark} MCP server {}", one(&need.name)),
        (NeedKind::Mcp, false) => format!(
            "{mark} MCP server {} (not configured: {MCP_UNAVAILABLE})",
            one(&need.name)
        ),
    }
}

/// Who invokes a skill, for `skills show`: the model, people (with the command and its hint), both.
fn invocation_line(name: &str, inv: &crate::skills::load::invocation::Invocation) -> String {
    let hint = inv
        .argument_hint
        .as_deref()
        .map(|h| format!(" {}", one(h)))
        .unwrap_or_default();
    // A slash command ends at the first space: `/Apify Automation` cannot be typed, `--skill` can.
    let command = if name.chars().any(char::is_whitespace) {
        format!(
            "agent --skill {}{hint} (the name has spaces, so there is no /command)",
            shell_words::quote(&one(name))
        )
    } else {
        format!("/{}{hint}", one(name))
    };
    match (inv.model, inv.user) {
        (true, true) => format!("by the model, or by hand with {command}"),
        (false, true) => format!("by hand only, with {command} (disable-model-invocation)"),
        (true, false) => "by the model (user-invocable: false hides it from / completion)".to_string(),
        (false, false) => format!("by hand only, with {command} (hidden from / completion)"),
    }
}

/// `skills search`: on a terminal a table whose descriptions are cut at a word to fit its width,
/// as `skills list` is; piped, one tab-separated line per hit with the whole description.
fn skill_search(r: &SkillSearch, screen: Screen) -> Text {
    if r.results.is_empty() {
        return Text {
            out: Vec::new(),
            err: vec![format!("no skill matches {:?}", r.query)],
        };
    }
    let cells = |h: &crate::output::report::SearchHit| {
        vec![
            h.rank.to_string(),
            visible(&h.name).into_owned(),
            format!("{:.2}", h.score),
            visible(&h.description).into_owned(),
        ]
    };
    if !screen.stdout_tty {
        return out_only(r.results.iter().map(|h| cells(h).join("\t")).collect());
    }
    let table = super::table::Table {
        headers: &SEARCH_HEADERS,
        rows: r.results.iter().map(cells).collect(),
        droppable: None,
    };
    out_only(table.render(screen.stdout_width))
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// `skills check`: per skill a status line and its findings, then problems and a tally.
fn skill_check(r: &SkillCheck) -> Vec<String> {
    let level = |d: &Diagnostic| {
        if r.counts_as_error(d) {
            "error"
        } else {
            severity_word(d.severity)
        }
    };
    let mut out = Vec::new();
    for skill in &r.skills {
        let status = if !skill.ok {
            "FAIL"
        } else if skill.findings.iter().any(|d| d.severity == Severity::Warning) {
            "warn"
        } else {
            "ok"
        };
        out.push(format!(
            "{status:4}  {}  ({} B in the catalog)",
            one(&skill.name),
            skill.catalog_bytes
        ));
        for d in &skill.findings {
            out.push(format!("      {}: {}", level(d), one(&d.to_string())));
        }
        out.extend(skill.portability.iter().map(field_line));
    }
    if r.skills.iter().any(|s| !s.portability.is_empty()) {
        out.push(format!(
            "(fields: what agent does, then Claude Code, Codex, Copilot CLI, opencode, Gemini CLI as their documentation \
             said on {})",
            crate::skills::check::portable_fields::AS_OF
        ));
    }
    for d in &r.problems {
        out.push(format!("{}: {}", level(d), one(&d.to_string())));
    }
    let mode = match (r.strict, r.spec.is_some()) {
        (true, true) => " (--strict: warnings count as errors; Agent Skills rules for every skill)",
        (true, false) => " (--strict: warnings count as errors; each skill held to its own dialect)",
        (false, true) => " (Agent Skills rules for every skill)",
        (false, false) => "",
    };
    out.push(format!(
        "{} skill(s) checked, {} skipped: {} error(s), {} warning(s){mode}",
        r.skills.len(),
        r.skipped,
        r.errors,
        r.warnings
    ));
    out
}

/// One field a skill uses and who honours it, on one line.
fn field_line(f: &crate::skills::check::portable_fields::FieldSupport) -> String {
    let note = if f.note.is_empty() {
        String::new()
    } else {
        format!(" ({})", f.note)
    };
    format!(
        "      field {}: agent {}{note}; Claude Code {}, Codex {}, Copilot CLI {}, opencode {}, Gemini CLI {}",
        f.field,
        f.agent.word(),
        f.claude_code.word(),
        f.codex.word(),
        f.copilot_cli.word(),
        f.opencode.word(),
        f.gemini_cli.word()
    )
}

/// `skills new`: what was written and how to try it.
fn skill_new(r: &SkillNew) -> Vec<String> {
    let shown = r.created.display();
    let mut out = vec![format!("created {shown} ({})", r.dialect)];
    for (file, purpose) in r.files.iter().zip(&r.purposes) {
        out.push(format!("  {file:<19} {purpose}"));
    }
    out.push("next:".into());
    out.push(format!("  {shown}/run.sh hello"));
    out.push(format!("  agent skills eval {shown}/tests/routing.yaml"));
    out.push(format!(
        "  replace the description's \"(replace with …)\" parts, then: agent skills check --strict {shown}"
    ));
    if !r.found_by_agent {
        let root = r.created.parent().unwrap_or(&r.created).display();
        out.push(format!(
            "note: agent does not search {root} for skills; pass --skills-dir {root} or add it to AGENT_SKILLS_PATH"
        ));
    }
    if let Some(project) = &r.untrusted_project {
        let project = project.display();
        out.push(format!(
            "note: {project} is not trusted with this skill, so it cannot run commands until you run `agent trust \
             {project}`"
        ));
    }
    out
}

/// `agent trust`: what each folder may now do.
fn trusted(r: &Trusted) -> Text {
    let mut out = Vec::new();
    for folder in &r.folders {
        out.push(format!("trusted {}", path(&folder.trusted)));
        out.push(match &folder.dotenv_keys {
            Some(keys) if keys.is_empty() => "  .env: its settings are used (none readable)".to_string(),
            Some(keys) => format!("  .env: its settings are used ({})", short_list(keys, MAX_NAMED)),
            None => "  .env: none".to_string(),
        });
        let skills = if folder.skills.is_empty() {
            "none yet".to_string()
        } else {
            one(&folder.skills.join(", "))
        };
        out.push(format!("  skills that may run commands: {skills}"));
    }
    let err =
        vec!["A change to the .env or to a skill asks again (without a terminal: run `agent trust` again).".into()];
    Text { out, err }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::approval::ApprovalPolicy;
    use crate::output::ChatReply;

    const SCREEN: Screen = Screen {
        stdout_tty: false,
        stdout_width: 80,
        stderr_width: 80,
    };

    fn chat_lines(reply: ChatReply) -> Vec<String> {
        render(&Report::Chat(reply), SCREEN).err
    }

    #[test]
    fn chat_replies_read_as_before() {
        assert_eq!(
            chat_lines(ChatReply::Model {
                model: "m\x1b".into(),
                changed: true
            }),
            ["model is now m\\x1b"]
        );
        assert_eq!(
            chat_lines(ChatReply::Approval {
                policy: ApprovalPolicy::Auto,
                changed: false
            }),
            ["approval policy: auto"]
        );
        assert_eq!(
            chat_lines(ChatReply::UnknownCommand {
                command: "skils".into(),
                suggestion: Some("/skills".into())
            }),
            ["unknown command /skils; did you mean /skills? /help lists them"]
        );
        assert_eq!(
            chat_lines(ChatReply::History {
                messages: Vec::new(),
                entries: Vec::new()
            }),
            ["no messages yet"]
        );
    }
}
