//! The stable codes of loader findings and lint (kebab-case): `skills check --json` and
//! `skills show --json` carry them, and code that needs to know what a finding is about matches
//! the code, never the message (which may be reworded).

// Discovery.
/// `AGENT_SKILLS_PATH` names a folder that does not exist.
pub const MISSING_ROOT: &str = "missing-root";
/// A skill root that cannot be opened or listed.
pub const UNREADABLE_ROOT: &str = "unreadable-root";
/// A skill hidden by one of the same name in an earlier root.
pub const SHADOWED: &str = "shadowed";
/// An entry of a root that cannot be followed (a broken or looping symlink).
pub const BROKEN_LINK: &str = "broken-link";
/// The loader itself failed on a folder.
pub const INTERNAL_ERROR: &str = "internal-error";

// Loading one skill.
pub const LOWERCASE_SKILL_MD: &str = "lowercase-skill-md";
pub const UNREADABLE_FILE: &str = "unreadable-file";
pub const FILE_TOO_LARGE: &str = "file-too-large";
pub const BINARY_FILE: &str = "binary-file";
pub const MISSING_DESCRIPTION: &str = "missing-description";
pub const MANIFEST_UNREADABLE: &str = "manifest-unreadable";
pub const MANIFEST_NOT_OBJECT: &str = "manifest-not-object";
pub const MANIFEST_INVALID_JSON: &str = "manifest-invalid-json";
pub const MISSING_ENTRY: &str = "missing-entry";
pub const NOT_EXECUTABLE: &str = "not-executable";

// The text of SKILL.md and its frontmatter.
pub const INVALID_UTF8: &str = "invalid-utf8";
pub const BYTE_ORDER_MARK: &str = "byte-order-mark";
pub const CRLF_LINE_ENDINGS: &str = "crlf-line-endings";
pub const FRONTMATTER_NOT_FIRST: &str = "frontmatter-not-first";
pub const UNCLOSED_FRONTMATTER: &str = "unclosed-frontmatter";
pub const MISSING_DELIMITERS: &str = "missing-delimiters";
pub const EMPTY_FRONTMATTER: &str = "empty-frontmatter";
pub const CONTROL_CHARACTER: &str = "control-character";
pub const FRONTMATTER_NOT_MAPPING: &str = "frontmatter-not-mapping";
pub const UNQUOTED_COLON: &str = "unquoted-colon";
pub const INVALID_YAML: &str = "invalid-yaml";

// Fields.
pub const MISSING_NAME: &str = "missing-name";
pub const INVALID_NAME: &str = "invalid-name";
pub const NAME_FOLDER_MISMATCH: &str = "name-folder-mismatch";
pub const DESCRIPTION_FROM_MARKDOWN: &str = "description-from-markdown";
pub const DESCRIPTION_TOO_LONG: &str = "description-too-long";
pub const DESCRIPTION_TOO_SHORT: &str = "description-too-short";
/// A field of the wrong YAML kind (a list where a string belongs).
pub const WRONG_TYPE: &str = "wrong-type";
pub const COMPATIBILITY_TOO_LONG: &str = "compatibility-too-long";
pub const UNKNOWN_KEY: &str = "unknown-key";
/// `version` in frontmatter: read, but not an Agent Skills field.
pub const VERSION_NOT_IN_SPEC: &str = "version-not-in-spec";

// Lint (`skills check`).
pub const NO_FRONTMATTER: &str = "no-frontmatter";
/// A key the spec does not allow, under `--strict` or `--spec agent-skills`.
pub const UNEXPECTED_KEY: &str = "unexpected-key";
pub const VAGUE_DESCRIPTION: &str = "vague-description";
pub const ADDRESSES_THE_MODEL: &str = "addresses-the-model";
pub const LONG_BODY: &str = "long-body";
pub const HIDDEN_CHARACTERS: &str = "hidden-characters";
/// A file `SKILL.md` names that is not in the skill folder.
pub const MISSING_FILE: &str = "missing-file";
pub const BASHISM: &str = "bashism";

#[cfg(test)]
mod tests {
    #[test]
    fn codes_are_unique_and_kebab_case() {
        let source = include_str!("code.rs");
        let codes: Vec<&str> = source
            .lines()
            .filter_map(|l| l.strip_prefix("pub const "))
            .filter_map(|l| l.split('"').nth(1))
            .collect();
        assert!(codes.len() > 40, "{codes:?}");
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
