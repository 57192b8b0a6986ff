use super::*;
use crate::exec::sandbox::policy::Settings;
use crate::exec::sandbox::{Kernel, Mode};

struct Case {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Case {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        for d in ["home", "work", "temp", "skill"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Self { _tmp: tmp, root }
    }

    fn policy(&self, mode: Mode, abi: u32) -> Policy {
        Settings::new(
            mode,
            Kernel::with_abi(abi),
            &self.root.join("work"),
            Some(&self.root.join("home")),
            Some(self.root.join("temp").to_str().unwrap()),
            &[],
        )
        .policy(&self.root.join("skill"), &[], false)
    }

    fn explain(&self, mode: Mode, stderr: &str) -> Option<Hint> {
        explain(&self.policy(mode, 7), false, stderr, &self.root.join("skill"))
    }
}

#[test]
fn a_denied_path_outside_the_writable_places_is_named() {
    let c = Case::new();
    let home = c.root.join("home").display().to_string();
    for stderr in [
        format!("touch: cannot touch '{home}/x': Permission denied"),
        format!("bash: line 1: {home}/x: Permission denied"),
        format!("mkdir: cannot create directory ‘{home}/x’: Permission denied"),
        format!("PermissionError: [Errno 13] Permission denied: '{home}/x'"),
        format!("Error: EACCES: permission denied, open \"{home}/x\""),
        format!("touch: cannot touch '{home}/x': Read-only file system"),
        format!("OSError: [Errno 30] Read-only file system: '{home}/x'"),
        format!("chmod: changing permissions of '{home}/x': Read-only file system"),
    ] {
        let hint = c
            .explain(Mode::On, &stderr)
            .unwrap_or_else(|| panic!("no hint for {stderr}"));
        assert_eq!(hint.paths, vec![format!("{home}/x")], "{stderr}");
        assert!(hint.message().starts_with("blocked by the sandbox: writing outside"));
        assert!(hint.message().contains("requires.write") && hint.message().contains("--allow-write"));
    }
}

#[test]
fn a_denied_path_inside_the_writable_places_is_not_the_sandbox() {
    let c = Case::new();
    let work = c.root.join("work").display().to_string();
    let stderr = format!(
        "touch: cannot touch '{work}/locked': Permission denied\nrm: cannot remove 'data/x': Permission denied"
    );
    assert_eq!(c.explain(Mode::On, &stderr), None);
}

#[test]
fn a_denial_without_a_path_may_have_been_the_sandbox() {
    let c = Case::new();
    let hint = c
        .explain(Mode::On, "PermissionError: [Errno 13] Permission denied")
        .unwrap();
    assert!(hint.paths.is_empty() && !hint.network);
    assert!(hint.message().starts_with("this may have been blocked by the sandbox"));
}

#[test]
fn under_strict_a_failed_connection_may_be_the_network_rule() {
    let c = Case::new();
    let hint = c
        .explain(
            Mode::Strict,
            "curl: (7) Failed to connect to 127.0.0.1 port 80: Couldn't connect to server",
        )
        .unwrap();
    assert!(hint.network);
    assert!(hint.message().contains("requires.network: true"));
    assert_eq!(
        c.explain(Mode::On, "curl: (7) Failed to connect to 127.0.0.1 port 80"),
        None
    );
    // bash's /dev/tcp: a refused connect names the script (inside the skill) and a device path.
    let script = c.root.join("skill/run.sh").display().to_string();
    let stderr =
        format!("{script}: connect: Permission denied\n{script}: line 3: /dev/tcp/127.0.0.1/80: Permission denied");
    let hint = c.explain(Mode::Strict, &stderr).unwrap();
    assert!(hint.network && hint.paths.is_empty(), "{hint:?}");
}

#[test]
fn successes_unconfined_runs_and_unrelated_errors_get_no_hint() {
    let c = Case::new();
    let stderr = "touch: cannot touch '/etc/x': Permission denied";
    assert_eq!(explain(&c.policy(Mode::On, 7), true, stderr, &c.root), None);
    assert_eq!(explain(&c.policy(Mode::Off, 7), false, stderr, &c.root), None);
    assert_eq!(explain(&c.policy(Mode::On, 0), false, stderr, &c.root), None);
    assert_eq!(c.explain(Mode::On, "error: no such file or directory"), None);
    assert_eq!(
        c.explain(Mode::On, "sh: 1: cannot create /dev/sda: Permission denied"),
        None
    );
}

#[test]
fn path_words_are_found_quoted_or_bare() {
    assert_eq!(
        paths_in("cp: cannot create regular file '/a b/c': Permission denied"),
        vec!["/a b/c"]
    );
    assert_eq!(
        paths_in("mv: cannot move 'x' to '../y': Permission denied"),
        vec!["../y"]
    );
    assert_eq!(paths_in("open /a/b: permission denied"), vec!["/a/b"]);
    assert_eq!(paths_in("unterminated '/a/b: Permission denied"), vec!["/a/b"]);
}

#[test]
fn real_paths_resolve_the_existing_prefix() {
    let c = Case::new();
    let real = real_path(&c.root.join("work/missing/file"));
    assert!(real.ends_with("work/missing/file"));
}

#[test]
fn a_refused_protected_place_inside_the_working_folder_is_named_with_what_it_is() {
    let c = Case::new();
    let home = std::fs::canonicalize(c.root.join("home")).unwrap();
    let config = home.join(".config");
    std::fs::create_dir_all(config.join("agent")).unwrap();
    let protected = crate::exec::sandbox::protected::Protected::new(Some(&home), |_| None, &config, None, &[]);
    let policy = Settings::new(Mode::On, Kernel::with_abi(7), &config, Some(&home), None, &[])
        .protecting(protected)
        .policy(&c.root.join("skill"), &[], false);
    if policy.read_only_unavailable.is_some() {
        return;
    }
    let env = config.join("agent/.env");
    let stderr = format!("sh: 1: cannot create {}: Read-only file system", env.display());
    let hint = explain(&policy, false, &stderr, &config).expect("a hint");
    assert_eq!(hint.paths, vec![env.display().to_string()]);
    let message = hint.message();
    assert!(
        message.contains("agent's configuration") && message.contains("protected place"),
        "{message}"
    );
    assert!(
        message.contains(&config.join("agent").display().to_string()),
        "{message}"
    );
    // A plain file of the working folder refused is its own permissions: no hint.
    let plain = format!("sh: 1: cannot create {}/notes: Permission denied", config.display());
    assert_eq!(explain(&policy, false, &plain, &config), None);
}

#[test]
fn a_refused_protected_place_outside_the_writable_ones_is_named_too() {
    let c = Case::new();
    let home = std::fs::canonicalize(c.root.join("home")).unwrap();
    let work = c.root.join("work");
    let protected = crate::exec::sandbox::protected::Protected::new(Some(&home), |_| None, &work, None, &[]);
    let env = home.join(".config/agent/.env");
    let stderr = format!("sh: 1: cannot create {}: Read-only file system", env.display());
    let hint = c.explain(Mode::On, &stderr).expect("a hint");
    assert!(
        hint.message().contains("requires.write"),
        "before naming: the general advice"
    );
    let message = hint.naming_protected(&protected, &work).message();
    assert!(
        message.contains("agent's configuration") && !message.contains("declare"),
        "{message}"
    );
    let other = format!("sh: 1: cannot create {}/notes: Read-only file system", home.display());
    let plain = c.explain(Mode::On, &other).unwrap().naming_protected(&protected, &work);
    assert!(plain.kept.is_empty() && plain.message().contains("requires.write"));
}

#[test]
fn a_refused_connection_names_the_host() {
    assert_eq!(
        host_in("curl: (7) Failed to connect to example.com port 443 after 0 ms: Couldn't connect to server")
            .as_deref(),
        Some("example.com:443")
    );
    assert_eq!(
        host_in("Error: connect EACCES 93.184.216.34:443").as_deref(),
        Some("93.184.216.34:443")
    );
    assert_eq!(
        host_in("Connecting to example.com (example.com)|1.2.3.4|:80... failed: Permission denied.").as_deref(),
        Some("example.com")
    );
    assert_eq!(host_in("no network words here"), None);
}
