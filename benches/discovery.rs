//! Discovery and catalog benchmarks: scanning 10 / 100 / 1,000 / 10,000 skill folders, building
//! the BM25 index and the budgeted catalog, searching it, and the modification-time check of the
//! roots a chat makes before each turn.
//! Skill sets come from `bench/gen_skills.py` (run by `bench/run.sh`), under `BENCH_SKILLS_DIR`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent::skills::SkillSet;
use agent::skills::discover::{RootKind, SkillRoot, discover};
use agent::skills::search::SkillIndex;
use agent::skills::watch::Fingerprint;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const SIZES: [usize; 5] = [10, 100, 1_000, 5_000, 10_000];

fn set_dir(n: usize) -> PathBuf {
    let base = std::env::var("BENCH_SKILLS_DIR").unwrap_or_else(|_| "/tmp/agent-bench-skills".into());
    let dir = Path::new(&base).join(n.to_string());
    if !dir.is_dir() {
        let status = std::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/bench/gen_skills.py"))
            .arg(n.to_string())
            .arg(&dir)
            .status()
            .expect("python3 runs bench/gen_skills.py");
        assert!(status.success());
    }
    dir
}

fn roots(dir: &Path) -> Vec<SkillRoot> {
    vec![SkillRoot::new(dir.to_path_buf(), RootKind::Flag)]
}

fn discovery(c: &mut Criterion) {
    let mut group = c.benchmark_group("discover");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let dir = set_dir(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &dir, |b, dir| {
            b.iter(|| {
                let found = discover(&roots(dir));
                assert_eq!(found.skills.len(), n);
            })
        });
    }
    group.finish();
}

fn catalog(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let skills = discover(&roots(&set_dir(n))).skills;
        group.bench_with_input(BenchmarkId::new("index", n), &skills, |b, skills| {
            b.iter(|| SkillIndex::build(skills))
        });
        let index = SkillIndex::build(&skills);
        group.bench_with_input(BenchmarkId::new("search", n), &index, |b, index| {
            b.iter(|| index.search("convert these pdf files into text for me", 20))
        });
        let set = SkillSet::new(skills.clone());
        group.bench_with_input(BenchmarkId::new("render_budgeted", n), &set, |b, set| {
            b.iter(|| set.render_within(8 * 1024, "convert these pdf files into text for me"))
        });
    }
    group.finish();
}

/// The modification-time check a chat makes before every turn (`skills::watch`).
fn fingerprint(c: &mut Criterion) {
    let mut group = c.benchmark_group("fingerprint");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    // One root per size, stamped in a single pass: the check runs before every chat turn.
    let dirs: Vec<(usize, PathBuf)> = SIZES.iter().map(|n| (*n, set_dir(*n))).collect();
    for (n, dir) in &dirs {
        group.bench_with_input(BenchmarkId::from_parameter(n), dir, |b, dir| {
            b.iter(|| Fingerprint::take(std::slice::from_ref(dir)))
        });
    }
    group.finish();
}

criterion_group!(benches, discovery, catalog, fingerprint);
criterion_main!(benches);
