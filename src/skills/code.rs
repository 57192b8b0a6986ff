//! The stable codes of loader findings and lint (kebab-case): `skills check --json` and
//! `skills show --json` carry them, and code that needs to know what a finding is about matches
//! the code, never the message (which may be reworded).

// Discovery.
/// `AGENT_SKILLS_PATH` names a folder that does not exist.
pub(crate) const MISSING_ROOT: &str = "missing-root";
/// A skill root that cannot be opened or listed.
pub(crate) const UNREADABLE_ROOT: &str = "unreadable-root";
/// A skill hidden by one of the same name in an earlier root.
pub(crate) const SHADOWED: &str = "shadowed";
/// An entry of a root that cannot be followed (a broken or looping symlink).
pub(crate) const BROKEN_LINK: &str = "broken-link";
/// The loader itself failed on a folder.
pub(crate) const INTERNAL_ERROR: &str = "internal-error";

// Loading one skill.
/// The skill file is `skill.md`, not `SKILL.md`.
pub(crate) const LOWERCASE_SKILL_MD: &str = "lowercase-skill-md";
/// The skill file cannot be read (the skill is skipped).
pub(crate) const UNREADABLE_FILE: &str = "unreadable-file";
/// The skill file is over the read cap; the rest is ignored.
pub(crate) const FILE_TOO_LARGE: &str = "file-too-large";
/// The skill file holds NUL bytes: not markdown.
pub(crate) const BINARY_FILE: &str = "binary-file";
/// No description anywhere (the skill is skipped).
pub(crate) const MISSING_DESCRIPTION: &str = "missing-description";
/// `skill.json` cannot be read or is too large.
pub(crate) const MANIFEST_UNREADABLE: &str = "manifest-unreadable";
/// `skill.json` is JSON, but not an object.
pub(crate) const MANIFEST_NOT_OBJECT: &str = "manifest-not-object";
/// `skill.json` is not valid JSON.
pub(crate) const MANIFEST_INVALID_JSON: &str = "manifest-invalid-json";
/// `skill.json`'s `entry` names a file that does not exist.
pub(crate) const MISSING_ENTRY: &str = "missing-entry";
/// A script the skill runs has no execute bit.
pub(crate) const NOT_EXECUTABLE: &str = "not-executable";

// The text of SKILL.md and its frontmatter.
/// The skill file is not valid UTF-8.
pub(crate) const INVALID_UTF8: &str = "invalid-utf8";
/// The skill file starts with a byte-order mark.
pub(crate) const BYTE_ORDER_MARK: &str = "byte-order-mark";
/// The skill file uses CRLF line endings.
pub(crate) const CRLF_LINE_ENDINGS: &str = "crlf-line-endings";
/// Blank lines before the opening `---`.
pub(crate) const FRONTMATTER_NOT_FIRST: &str = "frontmatter-not-first";
/// Frontmatter without a closing `---`.
pub(crate) const UNCLOSED_FRONTMATTER: &str = "unclosed-frontmatter";
/// Frontmatter fields without `---` around them.
pub(crate) const MISSING_DELIMITERS: &str = "missing-delimiters";
/// Frontmatter with nothing in it.
pub(crate) const EMPTY_FRONTMATTER: &str = "empty-frontmatter";
/// A control character inside the frontmatter.
pub(crate) const CONTROL_CHARACTER: &str = "control-character";
/// Frontmatter that is YAML, but not `key: value` pairs.
pub(crate) const FRONTMATTER_NOT_MAPPING: &str = "frontmatter-not-mapping";
/// A value with an unquoted `: ` (read as a string).
pub(crate) const UNQUOTED_COLON: &str = "unquoted-colon";
/// Frontmatter YAML that does not parse (read line by line).
pub(crate) const INVALID_YAML: &str = "invalid-yaml";

// Fields.
/// Frontmatter without `name` (the folder name is used).
pub(crate) const MISSING_NAME: &str = "missing-name";
/// A name that breaks the Agent Skills naming rules.
pub(crate) const INVALID_NAME: &str = "invalid-name";
/// A name that differs from its folder's.
pub(crate) const NAME_FOLDER_MISMATCH: &str = "name-folder-mismatch";
/// Frontmatter without `description` (taken from the markdown).
pub(crate) const DESCRIPTION_FROM_MARKDOWN: &str = "description-from-markdown";
/// A description over 1024 characters (the catalog cuts it).
pub(crate) const DESCRIPTION_TOO_LONG: &str = "description-too-long";
/// A description too short to say what and when.
pub(crate) const DESCRIPTION_TOO_SHORT: &str = "description-too-short";
/// A field of the wrong YAML kind (a list where a string belongs).
pub(crate) const WRONG_TYPE: &str = "wrong-type";
/// `compatibility` over 500 characters.
pub(crate) const COMPATIBILITY_TOO_LONG: &str = "compatibility-too-long";
/// A frontmatter key the spec does not know (ignored).
pub(crate) const UNKNOWN_KEY: &str = "unknown-key";
/// `requires` (or one of its fields) has a shape that cannot be read.
pub(crate) const MALFORMED_REQUIRES: &str = "malformed-requires";
/// `version` in frontmatter: read, but not an Agent Skills field.
pub(crate) const VERSION_NOT_IN_SPEC: &str = "version-not-in-spec";
/// `hooks` (Claude Code) in frontmatter has a shape that cannot be read, or names what agent does
/// not run for a skill.
pub(crate) const MALFORMED_HOOKS: &str = "malformed-hooks";

// Lint (`skills check`).
/// An SCP skill held to the Agent Skills spec, which needs frontmatter.
pub(crate) const NO_FRONTMATTER: &str = "no-frontmatter";
/// A key the spec does not allow, under `--strict` or `--spec agent-skills`.
pub(crate) const UNEXPECTED_KEY: &str = "unexpected-key";
/// A description with too few words to route on.
pub(crate) const VAGUE_DESCRIPTION: &str = "vague-description";
/// A description that gives the model orders.
pub(crate) const ADDRESSES_THE_MODEL: &str = "addresses-the-model";
/// The description is still the one `skills new` wrote, placeholders and all.
pub(crate) const SKELETON_PLACEHOLDER: &str = "skeleton-placeholder";
/// A body over 500 lines.
pub(crate) const LONG_BODY: &str = "long-body";
/// Example output in the body that shows a live value (a date, a clock time) a model may copy.
pub(crate) const EXAMPLE_LOOKS_REAL: &str = "example-looks-real";
/// Control or invisible characters in the name, description or body.
pub(crate) const HIDDEN_CHARACTERS: &str = "hidden-characters";
/// A file `SKILL.md` names that is not in the skill folder.
pub(crate) const MISSING_FILE: &str = "missing-file";
/// A file `SKILL.md` names that the skill has only in another letter case (`FORMS.md`, `forms.md`).
pub(crate) const FILE_NAME_CASE: &str = "file-name-case";
/// Bash-only syntax in a script that says `#!/bin/sh`.
pub(crate) const BASHISM: &str = "bashism";

// Other tools' conventions and scripts that work everywhere.
/// Another tool's frontmatter key whose absence of effect in agent matters (`hooks`, `when_to_use`).
pub(crate) const OTHER_TOOL_KEY: &str = "other-tool-key";
/// Claude Code's shell preprocessing (`` !`command` ``) in a body: agent does not run it.
pub(crate) const OTHER_TOOL_SYNTAX: &str = "other-tool-syntax";
/// Codex's `agents/openai.yaml` cannot be read or parsed.
pub(crate) const OPENAI_YAML_INVALID: &str = "openai-yaml-invalid";
/// Codex's `agents/openai.yaml` declares tools (MCP servers) agent does not provide.
pub(crate) const UNSUPPORTED_DEPENDENCY: &str = "unsupported-dependency";
/// A script with CRLF line endings.
pub(crate) const SCRIPT_CRLF: &str = "script-crlf";
/// A file named `Skill.md` or another case of `SKILL.md`.
pub(crate) const SKILL_MD_CASE: &str = "skill-md-case";
/// `skills check` found no skill to check at all.
pub(crate) const NO_SKILLS: &str = "no-skills";
/// A declared need (`requires.env`, `requires.bins`) that is not met here.
pub(crate) const UNMET_REQUIREMENT: &str = "unmet-requirement";
/// A catalog line long enough to crowd other skills out of a budgeted catalog.
pub(crate) const CATALOG_COST: &str = "catalog-cost";

/// Every code above, so a code read back from the cache folder can be checked against them.
pub(crate) const ALL: &[&str] = &[
    MISSING_ROOT,
    UNREADABLE_ROOT,
    SHADOWED,
    BROKEN_LINK,
    INTERNAL_ERROR,
    LOWERCASE_SKILL_MD,
    UNREADABLE_FILE,
    FILE_TOO_LARGE,
    BINARY_FILE,
    MISSING_DESCRIPTION,
    MANIFEST_UNREADABLE,
    MANIFEST_NOT_OBJECT,
    MANIFEST_INVALID_JSON,
    MISSING_ENTRY,
    NOT_EXECUTABLE,
    INVALID_UTF8,
    BYTE_ORDER_MARK,
    CRLF_LINE_ENDINGS,
    FRONTMATTER_NOT_FIRST,
    UNCLOSED_FRONTMATTER,
    MISSING_DELIMITERS,
    EMPTY_FRONTMATTER,
    CONTROL_CHARACTER,
    FRONTMATTER_NOT_MAPPING,
    UNQUOTED_COLON,
    INVALID_YAML,
    MISSING_NAME,
    INVALID_NAME,
    NAME_FOLDER_MISMATCH,
    DESCRIPTION_FROM_MARKDOWN,
    DESCRIPTION_TOO_LONG,
    DESCRIPTION_TOO_SHORT,
    WRONG_TYPE,
    COMPATIBILITY_TOO_LONG,
    UNKNOWN_KEY,
    MALFORMED_REQUIRES,
    VERSION_NOT_IN_SPEC,
    MALFORMED_HOOKS,
    NO_FRONTMATTER,
    UNEXPECTED_KEY,
    VAGUE_DESCRIPTION,
    ADDRESSES_THE_MODEL,
    SKELETON_PLACEHOLDER,
    LONG_BODY,
    EXAMPLE_LOOKS_REAL,
    HIDDEN_CHARACTERS,
    MISSING_FILE,
    FILE_NAME_CASE,
    BASHISM,
    OTHER_TOOL_KEY,
    OTHER_TOOL_SYNTAX,
    OPENAI_YAML_INVALID,
    UNSUPPORTED_DEPENDENCY,
    SCRIPT_CRLF,
    SKILL_MD_CASE,
    NO_SKILLS,
    UNMET_REQUIREMENT,
    CATALOG_COST,
];

/// The code `code` names, when it is one of [`ALL`].
pub(crate) fn known(code: &str) -> Option<&'static str> {
    ALL.iter().copied().find(|c| *c == code)
}

#[cfg(test)]
mod tests {
    #[test]
    fn codes_are_unique_and_kebab_case() {
        let source = include_str!("code.rs");
        let codes: Vec<&str> = source
            .lines()
            .filter_map(|l| l.strip_prefix("pub(crate) const "))
            .filter_map(|l| l.split('"').nth(1))
            .collect();
        assert!(codes.len() > 40, "{codes:?}");
        assert_eq!(codes, super::ALL, "ALL lists every code, in order");
        let unique: std::collections::BTreeSet<_> = codes.iter().collect();
        assert_eq!(unique.len(), codes.len(), "a code is used twice");
        for code in codes {
            let kebab = code
                .split('-')
                .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
            assert!(kebab, "{code} is not kebab-case");
        }
    }
}
