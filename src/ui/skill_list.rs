//! The skill listing of `agent skills list` and the chat's `/skills`: a table that fits the
//! terminal for people, one tab-separated line per skill for scripts.

use std::path::Path;

use super::table::Table;
use crate::output::report::SkillSummary;
use crate::skills::roots::Tool;
use crate::support::terminal_text::visible;

const HEADERS: [&str; 5] = ["NAME", "DIALECT", "STATUS", "ROOT", "DESCRIPTION"];
/// The ROOT column, left out first on a narrow terminal.
const ROOT_COLUMN: usize = 3;

/// `ok`, or what stands in a skill's way: `warnings` (see `skills show`), `untrusted`,
/// `over-findings` (installed over audit findings), `hidden-by-paths` (its `paths:` match nothing
/// here), and a signature's standing (`signed`, `invalid`).
pub(crate) fn status(skill: &SkillSummary) -> String {
    let mut marks = Vec::new();
    if skill.warnings > 0 {
        marks.push("warnings");
    }
    if !skill.trusted {
        marks.push("untrusted");
    }
    if skill.accepted_findings.is_some() {
        marks.push("over-findings");
    }
    if skill.hidden_by_paths {
        marks.push("hidden-by-paths");
    }
    if let Some(sig) = skill
        .signature
        .filter(|s| *s != crate::audit::signature::Status::Unsigned)
    {
        marks.push(sig.name());
    }
    if marks.is_empty() { "ok".into() } else { marks.join(",") }
}

/// The table for a terminal `width` columns wide; roots shown relative to `cwd` or as `~/…`. With
/// the catalog's per-request cap (`budget`), the footer says what a request holds.
pub(crate) fn table_lines(skills: &[SkillSummary], width: usize, budget: Option<usize>) -> Vec<String> {
    let cwd = std::env::current_dir().ok();
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let rows = skills
        .iter()
        .map(|s| {
            vec![
                visible(&s.name).into_owned(),
                s.dialect.to_string(),
                status(s),
                root_cell(s, cwd.as_deref(), home.as_deref()),
                visible(&s.description).into_owned(),
            ]
        })
        .collect();
    let table = Table {
        headers: &HEADERS,
        rows,
        droppable: Some(ROOT_COLUMN),
    };
    let mut lines = table.render(width);
    if table.drops_a_column(width) {
        lines.extend(super::table::wrap_words(
            &format!(
                "(ROOT left out: the table needs more than {width} columns for it; `agent skills show NAME`, \
                 the piped listing and --json have it)"
            ),
            width,
        ));
    }
    if let Some(footer) = catalog_footer(skills, budget) {
        // Wrapped at words, never cut: the footer's end says what a request holds.
        lines.extend(super::table::wrap_words(&footer, width));
    }
    lines
}

/// What the catalog costs a request, and its largest line (`--json` has each skill's). Over the
/// cap (`budget`), a request holds the skills most relevant to it that fit, not all of them.
fn catalog_footer(skills: &[SkillSummary], budget: Option<usize>) -> Option<String> {
    let largest = skills.iter().max_by_key(|s| s.catalog_bytes)?;
    let total: usize = skills.iter().map(|s| s.catalog_bytes).sum();
    // The skills the model may pick (one only a person invokes costs nothing), as the run's
    // notice over the budget counts them.
    let count = skills.iter().filter(|s| s.catalog_bytes > 0).count();
    let largest = format!("largest: {} {} B", visible(&largest.name), largest.catalog_bytes);
    Some(match budget {
        Some(cap) if total > cap => {
            // How many average lines fit: what ranking takes in, give or take their lengths.
            let fit = (cap * count / total.max(1)).min(count);
            format!(
                "catalog: {total} B in all, over the {cap} B cap per request: each request lists about {fit} of the {count} skills, those most relevant to it ({largest})"
            )
        }
        Some(cap) => format!("catalog: {total} B per request, within the {cap} B cap ({largest})"),
        None => format!("catalog: {total} B per request ({largest})"),
    })
}

/// The ROOT cell: the root, shortened, and whose folder it is when not ours (`~/.claude/skills (claude)`).
fn root_cell(s: &SkillSummary, cwd: Option<&Path>, home: Option<&Path>) -> String {
    let root = visible(&short_path(&s.root, cwd, home)).into_owned();
    match s.tool {
        Tool::Agent => root,
        other => format!("{root} ({other})"),
    }
}

/// One line per skill, no header, fields separated by tabs: name, dialect, status, root (absolute)
/// and the whole description. Tabs and newlines inside a field are shown escaped.
pub(crate) fn tsv_lines(skills: &[SkillSummary]) -> Vec<String> {
    skills
        .iter()
        .map(|s| {
            format!(
                "{}\t{}\t{}\t{}\t{}",
                visible(&s.name),
                s.dialect,
                status(s),
                visible(&s.root.display().to_string()),
                visible(&s.description)
            )
        })
        .collect()
}

/// The columns a terminal offers: `COLUMNS` when set (the usual override), else its size.
pub(crate) fn terminal_width(term: &console::Term) -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c > 0)
        .unwrap_or_else(|| usize::from(term.size().1))
}

/// `./x` under the working directory, `~/x` under the home folder, else the path itself.
pub(crate) fn short_path(path: &Path, cwd: Option<&Path>, home: Option<&Path>) -> String {
    if let Some(rel) = cwd.and_then(|c| path.strip_prefix(c).ok()) {
        return format!("./{}", rel.display());
    }
    if let Some(rel) = home.and_then(|h| path.strip_prefix(h).ok()) {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user skill `name` in the folder of that name under `root`.
    fn summary(name: &str, root: &str, catalog_bytes: usize) -> SkillSummary {
        SkillSummary {
            name: name.into(),
            description: "d".into(),
            dir: format!("{root}/{name}").into(),
            root: root.into(),
            root_kind: crate::skills::roots::RootKind::User,
            tool: Tool::Agent,
            dialect: crate::skills::Dialect::AgentSkills,
            entry: None,
            allowed_tools: Vec::new(),
            warnings: 0,
            codes: Vec::new(),
            trusted: true,
            blocked: None,
            catalog_bytes,
            hidden_by_paths: false,
            accepted_findings: None,
            signature: None,
        }
    }

    #[test]
    fn another_agents_root_names_its_tool() {
        let mut s = summary("pdf", "/h/.claude/skills", 0);
        s.tool = Tool::Claude;
        assert_eq!(root_cell(&s, None, Some(Path::new("/h"))), "~/.claude/skills (claude)");
        s.tool = Tool::Agent;
        assert_eq!(root_cell(&s, None, Some(Path::new("/h"))), "~/.claude/skills");
    }

    #[test]
    fn the_footer_shows_the_cap_and_what_a_request_holds() {
        let skill = |name: &str, bytes: usize| summary(name, "/s", bytes);
        let many: Vec<SkillSummary> = (0..1000).map(|i| skill(&format!("s{i}"), 170)).collect();
        let footer = catalog_footer(&many, Some(8192)).unwrap();
        assert!(
            footer.starts_with("catalog: 170000 B in all, over the 8192 B cap per request: each request lists about 48 of the 1000 skills"),
            "{footer}"
        );
        let few = [skill("a", 100), skill("b", 300)];
        assert_eq!(
            catalog_footer(&few, Some(8192)).unwrap(),
            "catalog: 400 B per request, within the 8192 B cap (largest: b 300 B)"
        );
    }

    #[test]
    fn roots_are_shortened() {
        let (cwd, home) = (Path::new("/w/proj"), Path::new("/home/u"));
        let short = |p: &str| short_path(Path::new(p), Some(cwd), Some(home));
        assert_eq!(short("/w/proj/skills"), "./skills");
        assert_eq!(short("/home/u/.agents/skills"), "~/.agents/skills");
        assert_eq!(short("/opt/skills"), "/opt/skills");
    }
}
