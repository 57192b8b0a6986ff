//! Refinements of text-rule matches: the severity a match really has once its context is read.
//! The installer allowlist lives here, and it is judged on the host of the URL actually
//! downloaded, parsed, never on words elsewhere on the line: a comment (`# get.docker.com`), a
//! query string (`?mirror=brew.sh`) or a look-alike host (`get.docker.com.evil.net`) names an
//! installer without being one.

use super::Level;
use super::indicators::{HostKind, Indicators};

/// `curl URL | python3 -c '…'` (or `-m json.tool`, `node -e`) hands the interpreter its program
/// in the arguments and the download as data: the common way to read a JSON answer, not code from
/// the server. Everything else piped into a shell or interpreter stays, at its refined severity.
pub(super) fn piped_code_only(matched: &str, line: &str, data: &Indicators, level: Level) -> Option<Level> {
    let after = line.find(matched).map_or("", |at| &line[at + matched.len()..]);
    let interpreter = ["python", "perl", "ruby", "node", "php"]
        .iter()
        .any(|i| matched.to_ascii_lowercase().contains(i));
    let program_in_args = after.trim_start().starts_with("-c")
        || after.trim_start().starts_with("-m")
        || after.trim_start().starts_with("-e");
    if interpreter && program_in_args {
        return None;
    }
    installer_is_medium(matched, line, data, level)
}

/// `curl … | sh` from a vendor's documented install host is common in honest skills: medium.
/// Only when every URL of the command (from the match to the end of the line, comment cut off;
/// each URL's parsed host) is on the installer list and none is a campaign host; a command whose
/// URL cannot be seen (`curl $u`) stays at `level`.
pub(super) fn installer_is_medium(matched: &str, line: &str, data: &Indicators, level: Level) -> Option<Level> {
    let from = line.find(matched).map_or(matched, |at| &line[at..]);
    let command = without_comment(from);
    let urls: Vec<Url<'_>> = urls_in(command).collect();
    let campaign = data.hosts_in(command).iter().any(|h| h.kind == HostKind::Campaign);
    let all_installers = !urls.is_empty() && urls.iter().all(|u| data.is_installer_url(&u.host, u.path));
    Some(if !campaign && all_installers {
        Level::Medium
    } else {
        level
    })
}

/// A URL's parts the allowlist looks at.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Url<'a> {
    /// Lowercase, without userinfo or port.
    pub(super) host: String,
    /// From the first `/` after the host up to the query, or empty.
    pub(super) path: &'a str,
}

/// Every `http(s)://` URL in `text`, parsed.
pub(super) fn urls_in(text: &str) -> impl Iterator<Item = Url<'_>> {
    let lower = text.to_ascii_lowercase();
    let starts: Vec<usize> = lower
        .match_indices("://")
        .filter(|(at, _)| lower[..*at].ends_with("http") || lower[..*at].ends_with("https"))
        .map(|(at, _)| at + 3)
        .collect();
    starts
        .into_iter()
        .filter_map(move |start| parse_after_scheme(&text[start..]))
}

/// The host and path of the URL that `rest` (what follows `scheme://`) starts with.
fn parse_after_scheme(rest: &str) -> Option<Url<'_>> {
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>' | ')' | '|' | ';'))
        .unwrap_or(rest.len());
    let url = &rest[..end];
    let authority_end = url.find(['/', '?', '#']).unwrap_or(url.len());
    let authority = &url[..authority_end];
    // `user:pass@host`: the host is after the last `@`.
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host_port.split(':').next().unwrap_or(""),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let tail = &url[authority_end..];
    let path = if tail.starts_with('/') {
        &tail[..tail.find(['?', '#']).unwrap_or(tail.len())]
    } else {
        ""
    };
    Some(Url { host, path })
}

/// `text` up to a shell comment (`#` at the start or after blank space).
fn without_comment(text: &str) -> &str {
    let bytes = text.as_bytes();
    let at = (0..bytes.len()).find(|&i| bytes[i] == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()));
    at.map_or(text, |i| &text[..i])
}

/// `echo 'export API_KEY=…' >> ~/.bashrc` is how setup guides keep a setting: low. Anything else
/// appended to a startup file (a download, a substitution, a background job) stays high.
pub(super) fn plain_export_is_low(_matched: &str, line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let lower = line.to_ascii_lowercase();
    let plain = lower.contains("export ") || lower.contains("path=");
    let active = [
        "curl", "wget", "base64", "nohup", "&&", "| sh", "|sh", "eval", "nc ", "$(", "`", "alias ", ";",
    ]
    .iter()
    .any(|w| lower.contains(w));
    Some(if plain && !active { Level::Low } else { level })
}

/// `xattr -c` on anything is common; only the quarantine attribute or `-c` of an app matters, and
/// not on what a package manager installed (`$(brew --prefix)/bin/tool`: Homebrew's own files).
pub(super) fn quarantine_only(matched: &str, line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let lower = line.to_ascii_lowercase();
    let relevant =
        matched.to_ascii_lowercase().contains("spctl") || lower.contains("quarantine") || lower.contains(".app");
    let packaged = [
        "brew --prefix",
        "/opt/homebrew/",
        "/usr/local/cellar/",
        "/usr/local/bin/",
    ]
    .iter()
    .any(|p| lower.contains(p));
    if !relevant {
        return None;
    }
    Some(if packaged { Level::Low } else { level })
}

/// Loopback, private and link-local addresses are local services, not payload servers.
pub(super) fn public_ip_only(matched: &str, _line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let host = matched.rsplit("//").next().unwrap_or("");
    let ip: std::net::Ipv4Addr = host.parse().ok()?;
    let local = ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified() || ip.is_broadcast();
    (!local).then_some(level)
}

/// `data:image/png;base64,…` is an embedded picture, not a payload.
pub(super) fn not_data_uri(_matched: &str, line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let lower = line.to_ascii_lowercase();
    (!lower.contains("data:image/") && !lower.contains("data:font/") && !lower.contains(";base64,")).then_some(level)
}
