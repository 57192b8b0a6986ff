//! Git during `skills add` through the real binary (issue 22 §7): a fetched repository's
//! `.gitattributes` cannot make checkout run a filter driver from the user's own git
//! configuration, and files are installed exactly as committed.

use crate::common::library::git;
use crate::common::*;

#[test]
fn a_repositorys_attributes_run_no_filter_of_the_users_config() {
    let ws = Workspace::new();
    let canary = ws.dir.path().join("filter-ran");
    // The user's own configuration defines a filter (as git-lfs does), required to succeed.
    std::fs::write(
        ws.home().join(".gitconfig"),
        format!(
            "[filter \"evil\"]\n\tsmudge = touch '{}' && cat\n\tclean = cat\n\trequired = true\n",
            canary.display()
        ),
    )
    .unwrap();
    let repo = ws.dir.path().join("repo");
    std::fs::create_dir_all(repo.join("skills/attr")).unwrap();
    std::fs::write(
        repo.join("skills/attr/SKILL.md"),
        "---\nname: attr\ndescription: A skill whose repository names a filter.\n---\nRead it.\n",
    )
    .unwrap();
    std::fs::write(repo.join(".gitattributes"), "* filter=evil text eol=crlf\n").unwrap();
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);

    let url = format!("file://{}", repo.display());
    let out = ws.bare_agent().args(["skills", "add", &url]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let installed = ws.home().join(".agents/skills/attr/SKILL.md");
    assert!(installed.is_file());
    assert!(!canary.exists(), "the user's filter ran during checkout");
    assert_eq!(
        std::fs::read(&installed).unwrap(),
        b"---\nname: attr\ndescription: A skill whose repository names a filter.\n---\nRead it.\n",
        "installed exactly as committed (eol=crlf would have changed it)"
    );
}
