//! The skill cache under `$XDG_CACHE_HOME/agent`: a warm run takes unchanged skill folders from
//! it (keyed by size and modification time, the documented contract), a damaged cache is rebuilt
//! without a word, agents starting together leave a usable cache, and `AGENT_CACHE=0` turns it off.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A fixed time well in the past, so a file is not "just changed" (the cache skips those) and
/// setting it again restores its stamp exactly.
fn age(path: &Path) {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let f = std::fs::File::options().read(true).open(path).unwrap();
    f.set_times(std::fs::FileTimes::new().set_modified(t).set_accessed(t))
        .unwrap();
}

/// A skill whose description is `description`, with the folder and file aged.
fn aged_skill(ws: &Workspace, name: &str, description: &str) -> PathBuf {
    let dir = ws.skill(
        name,
        &format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
        None,
    );
    age(&dir.join("SKILL.md"));
    age(&dir);
    dir
}

/// `skills list --json` with `env` added; the listed (name, description) pairs.
fn list(ws: &Workspace, env: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut cmd = ws.bare_agent();
    cmd.arg("--skills-dir")
        .arg(ws.skills())
        .args(["skills", "list", "--json"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["description"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

fn catalog_files(ws: &Workspace) -> Vec<PathBuf> {
    let dir = ws.home().join(".cache/agent/catalog");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries.map(|e| e.unwrap().path()).collect()
}

/// Rewrite a skill file with content of the same size and its old modification time: a warm
/// run that still lists the old description did not read the file.
fn swap_content_keeping_stamp(dir: &Path, new_description: &str) {
    let file = dir.join("SKILL.md");
    let before = std::fs::read_to_string(&file).unwrap();
    let after = before.replace("first", new_description);
    assert_eq!(before.len(), after.len());
    std::fs::write(&file, after).unwrap();
    age(&file);
}

#[test]
fn a_warm_run_reads_no_skill_file_until_its_size_or_time_changes() {
    let ws = Workspace::new();
    let a = aged_skill(&ws, "alpha", "the first skill");
    aged_skill(&ws, "beta", "the other skill");
    let cold = list(&ws, &[]);
    assert_eq!(
        cold,
        pairs(&[("alpha", "the first skill"), ("beta", "the other skill")])
    );
    assert_eq!(catalog_files(&ws).len(), 1, "one cache file per root");

    swap_content_keeping_stamp(&a, "FIRST");
    assert_eq!(list(&ws, &[]), cold, "same size and time: taken from the cache");

    // Touching the file (a new modification time) is enough to read it again.
    std::fs::File::options()
        .append(true)
        .open(a.join("SKILL.md"))
        .unwrap()
        .set_modified(SystemTime::now())
        .unwrap();
    assert_eq!(
        list(&ws, &[]),
        pairs(&[("alpha", "the FIRST skill"), ("beta", "the other skill")])
    );
}

#[test]
fn a_damaged_cache_is_rebuilt_without_a_word() {
    let ws = Workspace::new();
    let a = aged_skill(&ws, "alpha", "the first skill");
    let expected = list(&ws, &[]);
    let [file] = catalog_files(&ws).try_into().unwrap();
    let good = std::fs::read(&file).unwrap();
    let damaged: Vec<Vec<u8>> = vec![
        Vec::new(),
        good[..good.len() / 2].to_vec(),
        good.iter().map(|b| b ^ 0x5a).collect(),
        b"not a cache file at all".to_vec(),
        [&good[..good.len() - 1], &[good[good.len() - 1] ^ 1]].concat(),
    ];
    for bytes in damaged {
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(list(&ws, &[]), expected);
        assert_eq!(std::fs::read(&file).unwrap(), good, "rewritten whole");
    }
    // A folder where the cache file should be: still no error, just no cache.
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    swap_content_keeping_stamp(&a, "FIRST");
    assert_eq!(list(&ws, &[]), pairs(&[("alpha", "the FIRST skill")]));
}

#[test]
fn agents_starting_together_leave_one_usable_cache() {
    let ws = Workspace::new();
    let names: Vec<String> = (0..40).map(|i| format!("skill-{i:02}")).collect();
    let dirs: Vec<PathBuf> = names
        .iter()
        .map(|n| aged_skill(&ws, n, &format!("the first {n}")))
        .collect();
    let expected: Vec<(String, String)> = names.iter().map(|n| (n.clone(), format!("the first {n}"))).collect();
    let children: Vec<_> = (0..6)
        .map(|_| {
            let mut cmd = ws.agent_command();
            cmd.arg("--skills-dir")
                .arg(ws.skills())
                .args(["skills", "list", "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["skills"].as_array().unwrap().len(), 40);
    }
    assert_eq!(catalog_files(&ws).len(), 1, "no temporary file left behind");
    // The cache they left is whole and used: a change that keeps size and time is not seen.
    swap_content_keeping_stamp(&dirs[0], "FIRST");
    assert_eq!(list(&ws, &[]), expected);
}

#[test]
fn agent_cache_0_reads_every_file_and_writes_no_cache() {
    let ws = Workspace::new();
    let a = aged_skill(&ws, "alpha", "the first skill");
    assert_eq!(
        list(&ws, &[("AGENT_CACHE", "0")]),
        pairs(&[("alpha", "the first skill")])
    );
    assert!(!ws.home().join(".cache/agent").exists());
    list(&ws, &[]);
    swap_content_keeping_stamp(&a, "FIRST");
    assert_eq!(
        list(&ws, &[("AGENT_CACHE", "0")]),
        pairs(&[("alpha", "the FIRST skill")])
    );
}

#[test]
fn xdg_cache_home_is_where_the_cache_goes() {
    let ws = Workspace::new();
    aged_skill(&ws, "alpha", "the first skill");
    let xdg = ws.dir.path().join("xdg");
    list(&ws, &[("XDG_CACHE_HOME", xdg.to_str().unwrap())]);
    assert!(xdg.join("agent/catalog").is_dir());
    assert!(catalog_files(&ws).is_empty());
}

#[test]
fn a_declared_entry_script_that_appears_later_is_seen() {
    let ws = Workspace::new();
    let dir = ws.skill("tool", "# Tool\n\n## Description\nRuns the tool for you.\n", None);
    std::fs::write(dir.join("skill.json"), r#"{"entry": "bin/tool.sh"}"#).unwrap();
    std::fs::create_dir(dir.join("bin")).unwrap();
    for path in [
        dir.join("SKILL.md"),
        dir.join("skill.json"),
        dir.join("bin"),
        dir.clone(),
    ] {
        age(&path);
    }
    let entry = |ws: &Workspace| -> Value { listed(ws)["skills"][0]["entry"].clone() };
    assert_eq!(entry(&ws), Value::Null);
    assert_eq!(entry(&ws), Value::Null, "from the cache");
    // Only the subfolder changes: the skill folder's own stamp stays as it was.
    write_script(&dir.join("bin/tool.sh"), "#!/bin/sh\n");
    age(&dir);
    assert_eq!(entry(&ws), Value::String("bin/tool.sh".into()));
}

/// `skills list --json` of the workspace's skills folder, which must succeed.
fn listed(ws: &Workspace) -> Value {
    let out = ws
        .bare_agent()
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["skills", "list", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `skills list --json`'s `signature` of each skill, by name.
fn signatures(ws: &Workspace) -> Vec<(String, Value)> {
    let v = listed(ws);
    v["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), s["signature"].clone()))
        .collect()
}

#[test]
fn a_signature_that_appears_after_a_warm_listing_is_shown() {
    let ws = Workspace::new();
    let a = aged_skill(&ws, "alpha", "the first skill");
    aged_skill(&ws, "beta", "the other skill");
    let none = vec![("alpha".to_string(), Value::Null), ("beta".to_string(), Value::Null)];
    assert_eq!(signatures(&ws), none, "cold");
    assert_eq!(signatures(&ws), none, "warm");
    // A file added to the folder changes the folder's stamp: the listing looks at it again.
    std::fs::write(a.join("SKILL.sig"), "not a signature\n").unwrap();
    let shown = signatures(&ws);
    assert_eq!(shown[0].0, "alpha");
    assert_eq!(shown[0].1, "invalid", "{shown:?}");
    assert_eq!(shown[1], none[1]);
    age(&a);
    assert_eq!(signatures(&ws), shown, "read again, and cached");
    assert_eq!(signatures(&ws), shown, "from the cache");
}
