//! Secret redaction (SPEC §6): the one place secret values are replaced before text leaves the agent.

use std::borrow::Cow;
use std::collections::BTreeMap;

const SECRET_WORDS: [&str; 5] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"];
const MIN_SECRET_LEN: usize = 8;

/// Replaces the values of secret-looking environment variables with `[REDACTED:NAME]`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// (value, name), longest value first so that overlapping secrets redact fully.
    secrets: Vec<(String, String)>,
}

/// Whether a variable's name marks its value as secret.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
}

impl Redactor {
    /// Collect every secret from an environment.
    pub fn from_env(vars: &BTreeMap<String, String>) -> Self {
        let mut secrets: Vec<(String, String)> = vars
            .iter()
            .filter(|(name, value)| is_secret_name(name) && value.chars().count() >= MIN_SECRET_LEN)
            .map(|(name, value)| (value.clone(), name.clone()))
            .collect();
        secrets.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.1.cmp(&b.1)));
        secrets.dedup_by(|a, b| a.0 == b.0);
        Self { secrets }
    }

    /// The text with every secret value replaced.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (value, name) in &self.secrets {
            if out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), &format!("[REDACTED:{name}]")));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_secret_values_only() {
        let vars: BTreeMap<String, String> = [
            ("GITHUB_TOKEN", "ghp_abcdefghijkl"),
            ("MY_PASSWORD", "short"),
            ("HOME", "/home/someone-long"),
            ("db_secret", "s3cr3t-value"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let r = Redactor::from_env(&vars);
        let text = "token ghp_abcdefghijkl pw short home /home/someone-long db s3cr3t-value";
        assert_eq!(
            r.redact(text),
            "token [REDACTED:GITHUB_TOKEN] pw short home /home/someone-long db [REDACTED:db_secret]"
        );
    }
}
