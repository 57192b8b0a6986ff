use super::*;

fn folder(path: &Path, grant: Grant) -> Writable {
    Writable {
        path: path.to_path_buf(),
        grant,
        file: false,
        real: std::fs::canonicalize(path).unwrap(),
        target: None,
        protected: None,
    }
}

struct Home {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
}

fn home() -> Home {
    let tmp = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(tmp.path()).unwrap().join("home");
    let work = home.join("work");
    std::fs::create_dir_all(home.join(".config/agent")).unwrap();
    std::fs::create_dir_all(home.join(".local/state/agent")).unwrap();
    std::fs::create_dir_all(home.join(".agents/skills/x")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    Home { _tmp: tmp, home, work }
}

fn protected(h: &Home) -> Protected {
    Protected::new(Some(&h.home), |_| None, &h.work, None, &[h.home.join(".agents/skills")])
}

#[test]
fn protected_places_beneath_a_writable_folder_are_kept_and_their_path_pinned() {
    let h = home();
    let p = protected(&h);
    let g = beneath(&[folder(&h.home.join(".config"), Grant::WorkingDir)], &p, true);
    let kept: Vec<&PathBuf> = g.kept.iter().map(|(p, _)| p).collect();
    assert!(kept.contains(&&h.home.join(".config/agent")), "{g:?}");
    assert!(g.kept.iter().any(|(_, what)| what.contains("agent's configuration")));
    // Missing folders (fish, systemd …) are created, then kept; nothing is unguarded.
    assert!(g.create.contains(&h.home.join(".config/fish")), "{g:?}");
    assert!(g.unguarded.is_empty(), "{g:?}");
    assert!(g.pinned.is_empty(), "directly inside: nothing between: {g:?}");
    assert!(
        !kept.contains(&&h.home.join(".local/state/agent")),
        "not beneath .config"
    );

    let g = beneath(&[folder(&h.home.join(".local"), Grant::WorkingDir)], &p, true);
    assert!(
        g.kept.iter().any(|(p, _)| p == &h.home.join(".local/state/agent")),
        "{g:?}"
    );
    assert_eq!(g.pinned.first(), Some(&h.home.join(".local/state")), "{g:?}");
    assert!(g.create.contains(&h.home.join(".local/share/agent")), "{g:?}");

    let g = beneath(&[folder(&h.home.join(".agents"), Grant::AllowWrite)], &p, true);
    assert!(g.kept.iter().any(|(p, _)| p == &h.home.join(".agents/skills")), "{g:?}");
}

#[test]
fn only_allow_write_of_that_exact_place_opens_it() {
    let h = home();
    let p = protected(&h);
    let config = folder(&h.home.join(".config"), Grant::AllowWrite);
    let agent = folder(&h.home.join(".config/agent"), Grant::AllowWrite);
    let g = beneath(&[config.clone(), agent], &p, true);
    assert!(!g.kept.iter().any(|(p, _)| p == &h.home.join(".config/agent")), "{g:?}");
    let g = beneath(&[config], &p, true);
    assert!(g.kept.iter().any(|(p, _)| p == &h.home.join(".config/agent")), "{g:?}");
}

#[test]
fn what_cannot_be_kept_is_unguarded() {
    let h = home();
    let p = protected(&h);
    // A missing startup file beneath a writable home cannot be created on the user's behalf.
    let g = beneath(&[folder(&h.home, Grant::AllowWrite)], &p, true);
    assert!(g.unguarded.iter().any(|u| u.contains(".bash_profile")), "{g:?}");
    assert!(!h.home.join(".bash_profile").exists());
    // A place that is a link inside the writable place could be replaced.
    std::os::unix::fs::symlink(&h.work, h.home.join(".config/git")).unwrap();
    let g = beneath(&[folder(&h.home.join(".config"), Grant::WorkingDir)], &p, true);
    assert!(
        g.unguarded
            .iter()
            .any(|u| u.contains(".config/git") && u.contains("symlink")),
        "{g:?}"
    );
    // Without a mount namespace nothing can be kept.
    std::fs::remove_file(h.home.join(".config/git")).unwrap();
    let g = beneath(&[folder(&h.home.join(".config"), Grant::WorkingDir)], &p, false);
    assert!(g.kept.is_empty() && g.create.is_empty(), "{g:?}");
    assert!(g.unguarded.iter().any(|u| u.contains("agent's configuration")), "{g:?}");
}

#[test]
fn an_ordinary_working_folder_keeps_nothing_and_missing_project_roots_are_left_to_trust() {
    let h = home();
    let p = protected(&h);
    let g = beneath(&[folder(&h.work, Grant::WorkingDir)], &p, true);
    assert_eq!(g, Guard::default());
    let roots = [h.work.join("skills"), h.work.join(".agents/skills")];
    let p = Protected::new(Some(&h.home), |_| None, &h.work, None, &roots);
    let g = beneath(&[folder(&h.work, Grant::WorkingDir)], &p, true);
    assert_eq!(g, Guard::default(), "missing project roots are not created");
    std::fs::create_dir_all(h.work.join("skills")).unwrap();
    let p = Protected::new(Some(&h.home), |_| None, &h.work, None, &roots);
    let g = beneath(&[folder(&h.work, Grant::WorkingDir)], &p, true);
    assert!(g.kept.iter().any(|(p, _)| p == &h.work.join("skills")), "{g:?}");
}

#[test]
fn missing_folders_are_created_private() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let g = Guard {
        create: vec![tmp.path().join("a/agent")],
        ..Guard::default()
    };
    create_missing(&g).unwrap();
    let mode = std::fs::metadata(tmp.path().join("a/agent"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
}

#[test]
fn a_working_folder_inside_a_protected_place_is_not_writable_and_the_start_says_so() {
    use crate::exec::sandbox::{Kernel, Mode};
    let h = home();
    let settings = |cwd: &Path| {
        let p = Protected::new(Some(&h.home), |_| None, cwd, None, &[h.home.join(".agents/skills")]);
        Settings::new(Mode::On, Kernel::with_abi(7), cwd, Some(&h.home), None, &[]).protecting(p)
    };
    let inside = settings(&h.home.join(".agents/skills/x"));
    let policy = inside.policy(&h.work, &[], false);
    assert!(!policy.write.iter().any(|w| w.grant == Grant::WorkingDir), "{policy:?}");
    let skipped = policy.skipped.iter().find(|s| s.grant == Grant::WorkingDir).unwrap();
    assert!(skipped.reason.contains("skill root"), "{skipped:?}");
    assert!(inside.protected_warning().unwrap().contains("skill root"));

    let holding = settings(&h.home.join(".config"));
    let said = holding.protected_warning().unwrap();
    assert!(
        said.contains("holds protected places") && said.contains("agent's configuration"),
        "{said}"
    );
    assert!(
        settings(&h.work).protected_warning().is_none(),
        "an ordinary folder is not news"
    );
    let off = Settings::new(
        Mode::Off,
        Kernel::with_abi(7),
        &h.home.join(".config"),
        Some(&h.home),
        None,
        &[],
    );
    assert!(off.protected_warning().is_none());
}
