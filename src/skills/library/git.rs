//! The system `git`, run so that nothing from the fetched repository runs: hooks and fsmonitor are
//! off, no submodule is touched, no template is copied, no attribute from the repository or the
//! user's attributes file applies (so no filter driver of the user's configuration runs, and files
//! are kept exactly as committed), only fetching transports are allowed, and no prompt can wait for
//! a password that will never come.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// How long one git command may take (a large repository over a slow network) before it is killed.
pub(crate) const GIT_TIMEOUT: Duration = Duration::from_secs(300);

/// Settings given to every git command, before its subcommand.
const SAFE_CONFIG: [&str; 14] = [
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.attributesFile=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "submodule.recurse=false",
    "-c",
    "init.templateDir=",
    "-c",
    "advice.detachedHead=false",
];

/// Attributes for every path of a fetched tree, read before the repository's own
/// `.gitattributes`: no filter driver (a repository could otherwise name one from the user's git
/// configuration and have checkout run it), no line-ending, `$Id$` or encoding conversion (the
/// files are installed exactly as committed), no diff or merge driver.
const NEUTRAL_ATTRIBUTES: &str = "* -filter -text -eol -ident -working-tree-encoding -diff -merge\n";

/// The transports git may use (`GIT_ALLOW_PROTOCOL`).
const ALLOWED_PROTOCOLS: &str = "file:git:http:https:ssh";

/// Variables that would point git at another repository or index than the one meant.
const REDIRECTING_VARS: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
];

/// Why git could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git is not installed (or not on PATH); install git to add skills from a repository")]
    Missing,
    #[error("`git {command}` failed: {stderr}")]
    Failed { command: String, stderr: String },
    #[error("`git {command}` took longer than {} seconds and was stopped", GIT_TIMEOUT.as_secs())]
    TimedOut { command: String },
    #[error("cannot run git: {0}")]
    Io(std::io::Error),
}

/// Run `git ARGS` in `dir` (when given) and return its stdout.
async fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, GitError> {
    let mut command = Command::new("git");
    command
        .args(SAFE_CONFIG)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "true")
        .env("GCM_INTERACTIVE", "never")
        // Only transports that fetch: never `ext::` (git runs a command), whatever the user's
        // config allows, since a project's lock file names sources too.
        .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
        .kill_on_drop(true);
    for var in REDIRECTING_VARS {
        command.env_remove(var);
    }
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let shown = args.join(" ");
    let child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => GitError::Missing,
        _ => GitError::Io(e),
    })?;
    let output = tokio::time::timeout(GIT_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| GitError::TimedOut { command: shown.clone() })?
        .map_err(GitError::Io)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).take(6).collect();
        return Err(GitError::Failed {
            command: shown,
            stderr: stderr.join(" / "),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Fetch `reference` (a branch, tag or commit; the remote's default branch when `None`) of `url`
/// into the empty folder `dest`, one commit deep, and check it out. Returns the commit.
pub async fn fetch(url: &str, reference: Option<&str>, dest: &Path) -> Result<String, GitError> {
    git(Some(dest), &["init", "--quiet"]).await?;
    let info = dest.join(".git/info");
    std::fs::create_dir_all(&info)
        .and_then(|()| std::fs::write(info.join("attributes"), NEUTRAL_ATTRIBUTES))
        .map_err(GitError::Io)?;
    if let Some(short) = reference.filter(|r| is_commit_id(r) && r.len() < 40) {
        return fetch_abbreviated(url, short, dest).await;
    }
    let wanted = reference.unwrap_or("HEAD");
    let fetched = git(
        Some(dest),
        &[
            "fetch",
            "--quiet",
            "--depth",
            "1",
            "--no-tags",
            "--no-recurse-submodules",
            "--",
            url,
            wanted,
        ],
    )
    .await;
    if let Err(GitError::Failed { stderr, .. }) = &fetched
        && reference.is_some()
    {
        // An annotated tag fetched by its short name can need its full name on old servers.
        let tag = format!("refs/tags/{wanted}");
        if git(
            Some(dest),
            &["fetch", "--quiet", "--depth", "1", "--no-tags", "--", url, &tag],
        )
        .await
        .is_err()
        {
            return Err(GitError::Failed {
                command: format!("fetch {url} {wanted}"),
                stderr: format!("{stderr} (is {wanted} a branch, tag or commit of {url}?)"),
            });
        }
    } else {
        fetched?;
    }
    git(Some(dest), &["checkout", "--quiet", "--detach", "FETCH_HEAD"]).await?;
    Ok(git(Some(dest), &["rev-parse", "HEAD"]).await?.trim().to_string())
}

/// [`fetch`] of an abbreviated commit id (`@dadec22`): servers only hand out full ids, so the
/// branches and tags are fetched whole and the id is resolved among them.
async fn fetch_abbreviated(url: &str, short: &str, dest: &Path) -> Result<String, GitError> {
    let refs = ["+refs/heads/*:refs/remotes/source/*", "+refs/tags/*:refs/tags/*"];
    git(
        Some(dest),
        &[
            "fetch",
            "--quiet",
            "--no-recurse-submodules",
            "--",
            url,
            refs[0],
            refs[1],
        ],
    )
    .await?;
    let commit = git(
        Some(dest),
        &["rev-parse", "--verify", "--quiet", &format!("{short}^{{commit}}")],
    )
    .await
    .map_err(|_| GitError::Failed {
        command: format!("fetch {url} {short}"),
        stderr: format!("no single commit of {url} starts with {short}; give more of its id"),
    })?;
    let commit = commit.trim().to_string();
    git(Some(dest), &["checkout", "--quiet", "--detach", &commit]).await?;
    Ok(commit)
}

/// The commit `reference` (default branch when `None`) names on the remote now; `None` when the
/// reference is a commit id (pinned: nothing newer to compare) or the remote does not have it.
pub async fn remote_commit(url: &str, reference: Option<&str>) -> Result<Option<String>, GitError> {
    if reference.is_some_and(is_commit_id) {
        return Ok(None);
    }
    let wanted = reference.unwrap_or("HEAD");
    // An annotated tag lists as the tag object; `NAME^{}` asks for the commit it points at too.
    let peeled = format!("{wanted}^{{}}");
    let listing = git(None, &["ls-remote", "--", url, wanted, &peeled]).await?;
    Ok(pick_commit(&listing, wanted))
}

/// From `ls-remote` lines, the commit of `wanted`: a peeled tag (`^{}`) over the tag object, an
/// exact ref name over a partial match.
fn pick_commit(listing: &str, wanted: &str) -> Option<String> {
    let rows: Vec<(&str, &str)> = listing.lines().filter_map(|l| l.split_once('\t')).collect();
    let peeled = rows.iter().find(|(_, name)| name.ends_with("^{}"));
    let exact = rows.iter().find(|(_, name)| {
        *name == wanted || *name == format!("refs/heads/{wanted}") || *name == format!("refs/tags/{wanted}")
    });
    peeled.or(exact).or(rows.first()).map(|(sha, _)| sha.to_string())
}

/// Whether `reference` is a full or abbreviated commit id rather than a name.
pub(crate) fn is_commit_id(reference: &str) -> bool {
    (7..=64).contains(&reference.len()) && reference.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_of_a_ref_prefers_the_peeled_tag() {
        let listing = "aaa\trefs/tags/v1\nbbb\trefs/tags/v1^{}\n";
        assert_eq!(pick_commit(listing, "v1").as_deref(), Some("bbb"));
        assert_eq!(pick_commit("ccc\trefs/heads/main\n", "main").as_deref(), Some("ccc"));
        assert_eq!(pick_commit("", "main"), None);
        assert!(is_commit_id("0123abc") && !is_commit_id("v1.2.3") && !is_commit_id("abc"));
    }
}
