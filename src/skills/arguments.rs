//! Invoking a skill by hand (`/NAME ARGS`, `--skill NAME ARGS`): the arguments, their
//! substitution into the body as Claude Code does it, and the nearest names for a typo.
//!
//! Substitution follows Claude Code's documented rules so one SKILL.md works in both:
//! `$ARGUMENTS` is the whole argument text as typed; `$ARGUMENTS[N]` and its shorthand `$N` are
//! the N-th argument counting from 0, split shell-style (quotes group words and are removed);
//! names declared in `arguments:` frontmatter stand for the arguments in order (`$issue`).
//! A placeholder with no argument becomes empty. When the body holds no placeholder, nothing is
//! replaced and the arguments are the user's request instead.

/// The arguments of one invocation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Arguments {
    /// Everything after the skill name, trimmed: what `$ARGUMENTS` stands for.
    pub(crate) raw: String,
    /// `raw` split shell-style; plain whitespace splitting when its quotes do not close.
    pub(crate) words: Vec<String>,
}

impl Arguments {
    /// Split `raw` into words the way a shell would, without expanding anything.
    pub(crate) fn parse(raw: &str) -> Self {
        let raw = raw.trim().to_string();
        let words = shell_words::split(&raw).unwrap_or_else(|_| raw.split_whitespace().map(str::to_string).collect());
        Self { raw, words }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    fn word(&self, index: usize) -> &str {
        self.words.get(index).map_or("", String::as_str)
    }
}

/// A body after substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Substituted {
    pub(crate) text: String,
    /// Whether the body held any placeholder (then the arguments are in it).
    pub(crate) placeholders: bool,
}

/// Replace the placeholders of `body` with `args`; `named` are the names declared in the skill's
/// `arguments:` frontmatter, in order.
pub(crate) fn substitute(body: &str, args: &Arguments, named: &[String]) -> Substituted {
    let mut out = String::with_capacity(body.len() + args.raw.len());
    let mut placeholders = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match placeholder(after, named) {
            Some((value, used)) => {
                placeholders = true;
                out.push_str(match value {
                    Value::All => &args.raw,
                    Value::Word(i) => args.word(i),
                });
                rest = &after[used..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Substituted {
        text: out,
        placeholders,
    }
}

enum Value {
    All,
    Word(usize),
}

/// The placeholder that `text` (what follows a `$`) starts with, and how many bytes it takes.
fn placeholder(text: &str, named: &[String]) -> Option<(Value, usize)> {
    if let Some(after) = text.strip_prefix("ARGUMENTS") {
        if let Some(inner) = after.strip_prefix('[')
            && let Some(close) = inner.find(']')
            && let Ok(index) = inner[..close].trim().parse::<usize>()
        {
            return Some((Value::Word(index), "ARGUMENTS[".len() + close + 1));
        }
        if !after.starts_with(is_name_char) {
            return Some((Value::All, "ARGUMENTS".len()));
        }
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let index = text[..digits].parse().ok()?;
        return Some((Value::Word(index), digits));
    }
    let name_len = text.find(|c: char| !is_name_char(c)).unwrap_or(text.len());
    let name = &text[..name_len];
    // A declared name ending in a hyphen-joined word (`$old-name`) is taken whole.
    named.iter().position(|n| n == name).map(|i| (Value::Word(i), name_len))
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The names declared in `arguments:` frontmatter: a list, or one space-separated string.
pub(crate) fn declared_arguments(value: &serde_json::Value) -> Vec<String> {
    let names: Vec<String> = match value {
        serde_json::Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str().map(|s| s.trim().to_string()))
            .collect(),
        _ => Vec::new(),
    };
    names
        .into_iter()
        .map(|n| n.trim_start_matches('$').to_string())
        .filter(|n| !n.is_empty() && n.chars().all(is_name_char) && n != "ARGUMENTS")
        .collect()
}

/// Claude Code's `${CLAUDE_SKILL_DIR}` (the skill's folder) written as `dir`: the model gets the
/// skill's absolute folder, since commands run in the user's working folder, so a body written for
/// Claude Code (`python3 ${CLAUDE_SKILL_DIR}/scripts/x.py`, `cat ${CLAUDE_SKILL_DIR}/ref.md`)
/// names the skill's files wherever a word of it stands. `skills check` passes `.` to read the
/// same paths relative to the skill.
pub(crate) fn claude_skill_dir(body: String, dir: &str) -> String {
    const PLACEHOLDER: &str = "${CLAUDE_SKILL_DIR}";
    if body.contains(PLACEHOLDER) {
        body.replace(PLACEHOLDER, dir)
    } else {
        body
    }
}

/// Up to `limit` of `names` closest to `wanted`, closest first: names that contain it or that
/// it contains, then those within a small edit distance.
pub(crate) fn nearest<'a>(wanted: &str, names: &[&'a str], limit: usize) -> Vec<&'a str> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(f64, &str)> = names
        .iter()
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let similarity = strsim::normalized_damerau_levenshtein(&wanted, &lower);
            let contains = !wanted.is_empty() && (lower.contains(&wanted) || wanted.contains(&lower));
            let score = if contains { 1.0 + similarity } else { similarity };
            (contains || similarity >= 0.5).then_some((score, *name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(limit).map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(body: &str, raw: &str) -> Substituted {
        substitute(body, &Arguments::parse(raw), &[])
    }

    #[test]
    fn arguments_whole_and_positional_from_zero() {
        let s = sub(
            "Deploy $ARGUMENTS now; env $0, region $ARGUMENTS[1], none $2.",
            "staging eu-west",
        );
        assert_eq!(
            s.text,
            "Deploy staging eu-west now; env staging, region eu-west, none ."
        );
        assert!(s.placeholders);
    }

    #[test]
    fn quotes_group_words_but_arguments_keeps_them() {
        let s = sub("[$ARGUMENTS] [$0] [$1]", r#""my button" react"#);
        assert_eq!(s.text, r#"["my button" react] [my button] [react]"#);
        let unbalanced = sub("$0|$1", "it's fine");
        assert_eq!(unbalanced.text, "it's|fine");
    }

    #[test]
    fn other_dollars_are_left_alone() {
        let s = sub("Costs $ and $HOME and ${X} and $ARGUMENTSX and $1x.", "a");
        assert_eq!(s.text, "Costs $ and $HOME and ${X} and $ARGUMENTSX and x.");
        let s = sub("Costs $ and $HOME and ${X} and $ARGUMENTSX.", "a");
        assert!(!s.placeholders);
        assert_eq!(sub("$ARGUMENTS[x]", "a").text, "a[x]");
        assert_eq!(sub("", "a").text, "");
        assert_eq!(sub("end $", "a").text, "end $");
    }

    #[test]
    fn declared_names_stand_for_positions() {
        let named = declared_arguments(&serde_json::json!("issue $old-name"));
        assert_eq!(named, ["issue", "old-name"]);
        let s = substitute("Fix $issue ($old-name, $other)", &Arguments::parse("42 foo"), &named);
        assert_eq!(s.text, "Fix 42 (foo, $other)");
        assert_eq!(
            declared_arguments(&serde_json::json!(["a", 3, "b c", "ARGUMENTS"])),
            ["a"]
        );
    }

    #[test]
    fn claude_code_skill_folder_is_the_skills_folder() {
        assert_eq!(
            claude_skill_dir(
                "Run `python3 ${CLAUDE_SKILL_DIR}/scripts/x.py \"${CLAUDE_SKILL_DIR}/ref.md\"`.".into(),
                "/s/pdf"
            ),
            "Run `python3 /s/pdf/scripts/x.py \"/s/pdf/ref.md\"`."
        );
        assert_eq!(
            claude_skill_dir("$CLAUDE_SKILL_DIRS ${SKILL_DIR}".into(), "/s/pdf"),
            "$CLAUDE_SKILL_DIRS ${SKILL_DIR}"
        );
    }

    #[test]
    fn nearest_names_for_a_typo() {
        let names = ["deploy", "weather", "deploy-docs", "pdf"];
        assert_eq!(nearest("deplyo", &names, 3)[0], "deploy");
        assert_eq!(nearest("deploy", &names, 3), ["deploy", "deploy-docs"]);
        assert_eq!(nearest("docs", &names, 3), ["deploy-docs"]);
        assert!(nearest("zzzzzz", &names, 3).is_empty());
    }
}
