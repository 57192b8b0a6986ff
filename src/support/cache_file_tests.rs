use super::*;

const KIND: Kind = Kind {
    magic: *b"AGTTEST\0",
    version: 3,
};

#[test]
fn round_trips_and_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/deeper/file.bin");
    assert!(matches!(read(&path, KIND), Err(Miss::Absent)));
    write(&path, KIND, b"first").unwrap();
    assert_eq!(read(&path, KIND).unwrap(), b"first");
    write(&path, KIND, b"second, longer").unwrap();
    assert_eq!(read(&path, KIND).unwrap(), b"second, longer");
    write(&path, KIND, b"").unwrap();
    assert_eq!(read(&path, KIND).unwrap(), b"");
    // No temporary files are left behind.
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["file.bin"]);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn damaged_foreign_and_cut_files_are_misses() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.bin");
    write(&path, KIND, b"some payload bytes").unwrap();
    let good = std::fs::read(&path).unwrap();

    let mut flipped = good.clone();
    *flipped.last_mut().unwrap() ^= 1;
    std::fs::write(&path, &flipped).unwrap();
    assert!(matches!(read(&path, KIND), Err(Miss::Corrupt)));

    for cut in [0, 5, HEADER_LEN - 1, HEADER_LEN, good.len() - 1] {
        std::fs::write(&path, &good[..cut]).unwrap();
        assert!(matches!(read(&path, KIND), Err(Miss::Corrupt)), "cut at {cut}");
    }
    let mut longer = good.clone();
    longer.push(0);
    std::fs::write(&path, &longer).unwrap();
    assert!(matches!(read(&path, KIND), Err(Miss::Corrupt)));

    std::fs::write(&path, &good).unwrap();
    let newer = Kind { version: 4, ..KIND };
    assert!(matches!(read(&path, newer), Err(Miss::Foreign)));
    let other = Kind {
        magic: *b"AGTOTHER",
        ..KIND
    };
    assert!(matches!(read(&path, other), Err(Miss::Foreign)));
    let mut other_build = good.clone();
    other_build[12] ^= 0xff;
    std::fs::write(&path, &other_build).unwrap();
    assert!(matches!(read(&path, KIND), Err(Miss::Foreign)));

    std::fs::write(&path, b"plain text someone put here, long enough to have a header").unwrap();
    assert!(read(&path, KIND).is_err());
}

#[test]
fn a_folder_or_device_in_its_place_is_a_miss() {
    let dir = tempfile::tempdir().unwrap();
    assert!(read(dir.path(), KIND).is_err());
    assert!(read(Path::new("/dev/zero"), KIND).is_err());
}

#[test]
fn concurrent_writers_leave_one_complete_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.bin");
    let payloads: Vec<Vec<u8>> = (0..8u8).map(|i| vec![i; 64 * 1024 + usize::from(i)]).collect();
    std::thread::scope(|s| {
        for p in &payloads {
            let path = &path;
            s.spawn(move || {
                for _ in 0..20 {
                    write(path, KIND, p).unwrap();
                }
            });
        }
        s.spawn(|| {
            for _ in 0..200 {
                match read(&path, KIND) {
                    Ok(got) => assert!(payloads.contains(&got)),
                    Err(Miss::Absent) => {}
                    Err(other) => panic!("a reader saw {other}"),
                }
            }
        });
    });
    assert!(payloads.contains(&read(&path, KIND).unwrap()));
}

#[test]
fn the_folder_follows_xdg_and_agent_cache() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_string())
    };
    assert_eq!(
        CacheDir::from_env(env(&[("HOME", "/h")])).unwrap().path(),
        Path::new("/h/.cache/agent")
    );
    assert_eq!(
        CacheDir::from_env(env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "/x")]))
            .unwrap()
            .path(),
        Path::new("/x/agent")
    );
    // A relative XDG path is invalid by the spec and ignored.
    assert_eq!(
        CacheDir::from_env(env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "rel")]))
            .unwrap()
            .path(),
        Path::new("/h/.cache/agent")
    );
    for off in ["0", "off", "false", "no"] {
        let vars = [("HOME", "/h"), ("AGENT_CACHE", off)];
        assert!(CacheDir::from_env(|k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_string())).is_none());
    }
    assert!(CacheDir::from_env(env(&[])).is_none());
}
