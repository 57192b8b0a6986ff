use super::*;

/// A home, a working directory, a temp folder and two skills, all real folders.
struct Layout {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    temp: PathBuf,
    skill: PathBuf,
}

fn layout() -> Layout {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    for d in ["home/.cache/tool", "work", "temp", "skills/weather/data"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join("home/.toolrc"), "x").unwrap();
    Layout {
        home: root.join("home"),
        work: root.join("work"),
        temp: root.join("temp"),
        skill: root.join("skills/weather"),
        _tmp: tmp,
    }
}

fn settings(l: &Layout, mode: Mode, abi: u32, allow: &[&str]) -> Settings {
    let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
    Settings::new(
        mode,
        Kernel::with_abi(abi),
        &l.work,
        Some(&l.home),
        Some(l.temp.to_str().unwrap()),
        &allow,
    )
}

fn grants(p: &Policy) -> Vec<(PathBuf, Grant)> {
    p.write.iter().map(|w| (w.path.clone(), w.grant)).collect()
}

#[test]
fn skill_folder_working_dir_and_temp_are_writable_and_home_is_not() {
    let l = layout();
    let p = settings(&l, Mode::On, 7, &[]).policy(&l.skill, &[], false);
    let g = grants(&p);
    assert_eq!(g[0], (l.skill.clone(), Grant::SkillFolder));
    assert_eq!(g[1], (l.work.clone(), Grant::WorkingDir));
    assert_eq!(g[2], (l.temp.clone(), Grant::Temp));
    assert!(!g.iter().any(|(path, _)| l.home.starts_with(path)));
    assert_eq!(p.network, Network::Open);
    assert_eq!(p.enforcement(), Enforcement::Confined);
    assert_eq!(p.child_value(), "on");
    assert_eq!(p.in_force, "landlock-v7");
}

#[test]
fn declared_paths_expand_tilde_and_are_relative_to_the_skill() {
    let l = layout();
    let declared = [
        "~/.cache/tool".to_string(),
        "~/.toolrc".into(),
        "../weather/data".into(),
    ];
    let p = settings(&l, Mode::On, 7, &[]).policy(&l.skill, &declared, false);
    let cache = p.write.iter().find(|w| w.path == l.home.join(".cache/tool")).unwrap();
    assert_eq!((cache.grant, cache.file), (Grant::Declared, false));
    let rc = p.write.iter().find(|w| w.path == l.home.join(".toolrc")).unwrap();
    assert!(rc.file, "a declared file is granted as a file");
    // `../weather/data` is inside the skill folder, which is already listed.
    assert!(!p.write.iter().any(|w| w.path.ends_with("data")));
}

#[test]
fn missing_and_unexpandable_declarations_are_skipped_with_a_reason() {
    let l = layout();
    let declared = ["~/nope".to_string(), "~other/x".into(), "  ".into()];
    let p = settings(&l, Mode::On, 7, &[]).policy(&l.skill, &declared, false);
    assert_eq!(p.skipped.len(), 2, "{:?}", p.skipped);
    assert!(p.skipped[0].path.ends_with("home/nope") && p.skipped[0].reason == "does not exist");
    assert!(p.skipped[1].reason.contains("only `~`"));
}

#[test]
fn a_missing_allow_write_folder_is_created_and_said_unless_nothing_is_confined() {
    let l = layout();
    assert!(settings(&l, Mode::Off, 7, &["out"]).prepare_allow_write().is_empty());
    assert!(settings(&l, Mode::On, 0, &["out"]).prepare_allow_write().is_empty());
    assert!(!l.work.join("out").exists());
    let s = settings(&l, Mode::On, 7, &["out/deep", "~"]);
    let said = s.prepare_allow_write();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains(&l.work.join("out/deep").display().to_string()) && said[0].contains("created it"));
    assert!(l.work.join("out/deep").is_dir());
    let g = grants(&s.policy(&l.skill, &[], false));
    assert!(
        !s.policy(&l.skill, &[], false)
            .skipped
            .iter()
            .any(|k| k.reason == "does not exist"),
        "{g:?}"
    );
}

#[test]
fn allow_write_is_relative_to_the_working_directory() {
    let l = layout();
    std::fs::create_dir(l.work.join("out")).unwrap();
    let s = settings(&l, Mode::On, 7, &["out", "~/.cache"]);
    assert_eq!(s.allow_write, vec![l.work.join("out"), l.home.join(".cache")]);
    let g = grants(&s.policy(&l.skill, &[], false));
    // `out` is inside the working directory, already writable; `~/.cache` is added.
    assert!(!g.iter().any(|(p, _)| *p == l.work.join("out")));
    assert!(g.contains(&(l.home.join(".cache"), Grant::AllowWrite)));
}

#[test]
fn a_home_working_directory_or_root_temp_stays_read_only() {
    let l = layout();
    let s = Settings::new(Mode::On, Kernel::with_abi(7), &l.home, Some(&l.home), Some("/"), &[]);
    let p = s.policy(&l.skill, &[], false);
    assert!(!p.write.iter().any(|w| w.grant == Grant::WorkingDir));
    assert!(!p.write.iter().any(|w| w.path == Path::new("/")));
    assert_eq!(p.skipped.iter().filter(|s| s.reason.contains("home folder")).count(), 2);
    // A skill cannot declare it (or `/`) writable either.
    let declared = ["~".to_string(), "/".into()];
    let p = settings(&l, Mode::On, 7, &[]).policy(&l.skill, &declared, false);
    assert!(!p.write.iter().any(|w| w.grant == Grant::Declared), "{:?}", p.write);
    assert_eq!(
        p.skipped
            .iter()
            .filter(|s| s.grant == Grant::Declared && s.reason.contains("home folder"))
            .count(),
        2
    );
    // Asked for explicitly by the user, the home folder is writable.
    let s = Settings::new(
        Mode::On,
        Kernel::with_abi(7),
        &l.home,
        Some(&l.home),
        None,
        &["~".into()],
    );
    assert!(s.policy(&l.skill, &[], false).write.iter().any(|w| w.path == l.home));
}

#[test]
fn relative_or_unset_tmpdir_means_tmp() {
    let l = layout();
    for tmpdir in [None, Some("relative/tmp")] {
        let s = Settings::new(Mode::On, Kernel::with_abi(7), &l.work, Some(&l.home), tmpdir, &[]);
        assert_eq!(s.temp, PathBuf::from("/tmp"));
    }
}

#[test]
fn strict_closes_the_network_unless_the_skill_declares_it() {
    let l = layout();
    let s = settings(&l, Mode::Strict, 7, &[]);
    let closed = s.policy(&l.skill, &[], false);
    assert_eq!((closed.network, closed.child_value()), (Network::Off, "strict"));
    let open = s.policy(&l.skill, &[], true);
    assert_eq!((open.network, open.child_value()), (Network::Open, "on"));
    assert_eq!(s.warning(), None);
}

#[test]
fn without_landlock_on_runs_unconfined_with_a_warning_and_strict_refuses() {
    let l = layout();
    let on = settings(&l, Mode::On, 0, &[]);
    assert_eq!(on.sandbox_name(), "unavailable");
    assert!(on.warning().unwrap().contains("unconfined"));
    let p = on.policy(&l.skill, &[], false);
    assert_eq!((p.enforcement(), p.child_value()), (Enforcement::Unconfined, "off"));

    let strict = settings(&l, Mode::Strict, 0, &[]);
    assert!(strict.warning().unwrap().contains("will not run"));
    let Enforcement::Refused(why) = strict.policy(&l.skill, &[], true).enforcement() else {
        panic!("strict without Landlock must refuse");
    };
    assert!(why.contains("--sandbox on"), "{why}");
}

#[test]
fn old_kernels_are_partial_under_on_and_refused_under_strict_where_it_matters() {
    let l = layout();
    assert!(settings(&l, Mode::On, 2, &[]).warning().unwrap().contains("partial"));
    assert_eq!(settings(&l, Mode::On, 3, &[]).warning(), None);
    let strict = settings(&l, Mode::Strict, 3, &[]);
    assert!(strict.warning().unwrap().contains("ABI 3"));
    // ABI 3 confines writes fully: a skill that declares the network still runs.
    assert_eq!(strict.policy(&l.skill, &[], true).enforcement(), Enforcement::Confined);
    assert!(matches!(
        strict.policy(&l.skill, &[], false).enforcement(),
        Enforcement::Refused(_)
    ));
}

#[test]
fn off_confines_nothing_and_says_off() {
    let l = layout();
    let s = settings(&l, Mode::Off, 7, &[]);
    assert_eq!((s.sandbox_name(), s.warning()), ("off".to_string(), None));
    let p = s.policy(&l.skill, &[], false);
    assert_eq!(
        (p.enforcement(), p.child_value(), p.network),
        (Enforcement::Unconfined, "off", Network::Open)
    );
}

#[test]
fn normalize_resolves_dots_lexically() {
    assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    assert_eq!(expand("~", Some(Path::new("/h")), Path::new("/s")), PathBuf::from("/h"));
    assert_eq!(expand("x/../y", None, Path::new("/s")), PathBuf::from("/s/y"));
}
