//! The audit's updatable data: `data/audit/indicators.txt`, compiled in. Campaign addresses,
//! hosts and hashes change weekly; keeping them as data means an update is an edit of one file
//! and a version bump, not a code change. The file's header documents its sections.

use std::collections::HashSet;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// The data file as shipped.
const SHIPPED: &str = include_str!("../../data/audit/indicators.txt");

/// What kind of host or address an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostKind {
    /// A known campaign address or host.
    Campaign,
    /// A paste site or file drop.
    Paste,
    /// A webhook catcher, tunnel or bot API.
    Exfil,
    /// A vendor's install script host.
    Installer,
}

/// The parsed data.
#[derive(Debug)]
pub(crate) struct Indicators {
    /// `version` from the file.
    pub(crate) version: String,
    /// Known payload SHA-256 hashes, lowercase hex.
    pub(crate) hashes: HashSet<String>,
    /// Well-known names imitators copy.
    pub(crate) known_names: Vec<String>,
    hosts: Vec<(String, HostKind)>,
    matcher: Option<AhoCorasick>,
}

/// One host or address found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostHit {
    pub(crate) kind: HostKind,
    /// Where it starts in the text.
    pub(crate) start: usize,
    pub(crate) entry: String,
}

impl Indicators {
    /// Parse the data file format; unknown sections and malformed lines are ignored (the shipped
    /// file is checked by a unit test).
    pub(crate) fn parse(text: &str) -> Self {
        let mut version = String::from("0");
        let (mut hashes, mut known_names, mut hosts) = (HashSet::new(), Vec::new(), Vec::new());
        let mut section = "";
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if let Some(v) = line.strip_prefix("version ") {
                version = v.trim().to_string();
            } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = match name {
                    "ip" | "domain" | "sha256" | "paste-host" | "exfil-host" | "installer-host" | "known-name" => name,
                    _ => "",
                };
            } else {
                let entry = line.to_ascii_lowercase();
                match section {
                    "ip" | "domain" => hosts.push((entry, HostKind::Campaign)),
                    "paste-host" => hosts.push((entry, HostKind::Paste)),
                    "exfil-host" => hosts.push((entry, HostKind::Exfil)),
                    "installer-host" => hosts.push((entry, HostKind::Installer)),
                    "sha256" => drop(hashes.insert(entry)),
                    "known-name" => known_names.push(entry),
                    _ => {}
                }
            }
        }
        let matcher = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(hosts.iter().map(|(h, _)| h.as_str()))
            .ok();
        Self {
            version,
            hashes,
            known_names,
            hosts,
            matcher,
        }
    }

    /// Every listed host or address in `text` that stands as a name of its own (not the tail
    /// of a longer host name, not the head of a longer one).
    pub(crate) fn hosts_in(&self, text: &str) -> Vec<HostHit> {
        let Some(matcher) = &self.matcher else {
            return Vec::new();
        };
        let bytes = text.as_bytes();
        let mut hits = Vec::new();
        for m in matcher.find_iter(text) {
            let Some((entry, kind)) = self.hosts.get(m.pattern().as_usize()) else {
                continue;
            };
            let before = m.start().checked_sub(1).and_then(|i| bytes.get(i)).copied();
            let after = bytes.get(m.end()).copied();
            let name_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
            let starts_clean = before.is_none_or(|b| !name_byte(b) && b != b'.');
            let ends_clean = entry.contains('/') || after.is_none_or(|b| !name_byte(b));
            if starts_clean && ends_clean {
                hits.push(HostHit {
                    kind: *kind,
                    start: m.start(),
                    entry: entry.clone(),
                });
            }
        }
        hits
    }

    /// Whether a URL of `host` (lowercase, no userinfo or port) and `path` is a vendor's install
    /// script: the host equal to a listed one or a true subdomain of it (`x.get.docker.com`, never
    /// `get.docker.com.evil.net`); an entry with a path (`ollama.com/install.sh`) needs that host
    /// exactly and a path starting with its own.
    pub(crate) fn is_installer_url(&self, host: &str, path: &str) -> bool {
        self.hosts
            .iter()
            .filter(|(_, k)| *k == HostKind::Installer)
            .any(|(entry, _)| match entry.split_once('/') {
                Some((entry_host, entry_path)) => {
                    host == entry_host
                        && path
                            .to_ascii_lowercase()
                            .trim_start_matches('/')
                            .starts_with(entry_path)
                }
                None => host == entry || host.strip_suffix(entry.as_str()).is_some_and(|p| p.ends_with('.')),
            })
    }
}

static DATA: LazyLock<Indicators> = LazyLock::new(|| Indicators::parse(SHIPPED));

/// The shipped indicators, parsed once.
pub(crate) fn get() -> &'static Indicators {
    &DATA
}
