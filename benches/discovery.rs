//! Discovery and catalog benchmarks: scanning 10 / 100 / 1,000 / 10,000 skill folders, building
//! the BM25 index (and loading it from the cache folder) and the budgeted catalog, and searching
//! it; parsing the skill files of a realistic corpus whole and as far as routing needs; and the
//! catalog cache's encoding, postcard against JSON; and the modification-time check of the roots a
//! chat makes before each turn.
//! Skill sets come from `bench/gen_skills.py` and the corpus from `bench/gen_corpus.py` (run by
//! `bench/run.sh`), under `BENCH_SKILLS_DIR`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent::skills::SkillSet;
use agent::skills::cache::{Entry, FolderStamp, Stamp};
use agent::skills::discover::{Scan, discover, discover_with};
use agent::skills::load::fields::parse_skill_text;
use agent::skills::load::parse::{FolderLoad, MAX_SKILL_FILE_BYTES};
use agent::skills::load::partial_read::parse_front;
use agent::skills::retrieval::search::SkillIndex;
use agent::skills::roots::{RootKind, SkillRoot};
use agent::skills::watch::{Mode, SkillWatch};
use agent::support::cache_file::CacheDir;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const SIZES: [usize; 5] = [10, 100, 1_000, 5_000, 10_000];

/// Skills in the realistic corpus.
const CORPUS: usize = 4_000;

fn generated(name: &str, script: &str, n: usize) -> PathBuf {
    let base = std::env::var("BENCH_SKILLS_DIR").unwrap_or_else(|_| "/tmp/agent-bench-skills".into());
    let dir = Path::new(&base).join(name);
    if !dir.is_dir() {
        let status = std::process::Command::new("python3")
            .arg(format!("{}/bench/{script}", env!("CARGO_MANIFEST_DIR")))
            .arg(n.to_string())
            .arg(&dir)
            .status()
            .expect("python3 runs the generator");
        assert!(status.success());
    }
    dir
}

fn set_dir(n: usize) -> PathBuf {
    generated(&n.to_string(), "gen_skills.py", n)
}

fn corpus_dir() -> PathBuf {
    generated(&format!("corpus-{CORPUS}"), "gen_corpus.py", CORPUS)
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
                // What a run does with an empty cache: the fronts of the files, no cache.
                let found = discover_with(&roots(dir), &Scan::routing(None));
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

/// The corpus's skill files in memory, with their folder names.
fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(corpus_dir())
        .expect("corpus")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let bytes = std::fs::read(e.path().join("SKILL.md")).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), bytes))
        })
        .collect();
    files.sort();
    files
}

/// Parsing the corpus's skill files, whole and as far as routing needs (no file system).
fn parsing(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    let files = corpus_files();
    group.bench_function("whole", |b| {
        b.iter(|| {
            for (folder, bytes) in &files {
                std::hint::black_box(parse_skill_text(bytes, folder, None));
            }
        })
    });
    group.bench_function("front", |b| {
        b.iter(|| {
            for (folder, bytes) in &files {
                let front = parse_front(std::io::Cursor::new(bytes), MAX_SKILL_FILE_BYTES, folder, None);
                std::hint::black_box(front.map(|f| f.read).unwrap_or(0));
            }
        })
    });
    group.finish();
}

/// The catalog cache's payload for the corpus, postcard against JSON.
fn cache_format(c: &mut Criterion) {
    let mut group = c.benchmark_group("cache");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    let found = discover(&roots(&corpus_dir()));
    let stamp = Stamp::at(&corpus_dir()).expect("corpus");
    let entries: Vec<(String, Entry)> = found
        .skills
        .into_iter()
        .filter_map(|s| {
            let folder = FolderStamp {
                dir: stamp,
                file_name: "SKILL.md".into(),
                file: stamp,
                manifest: None,
                entry: None,
            };
            let name = s.dir.file_name()?.to_string_lossy().into_owned();
            Some((name, Entry::new(folder, &FolderLoad::Skill(Box::new(s)))?))
        })
        .collect();
    let postcard_bytes = postcard::to_stdvec(&entries).expect("encodes");
    let json_bytes = serde_json::to_vec(&entries).expect("encodes");
    eprintln!(
        "cache payload for {} skills: postcard {} bytes, JSON {} bytes",
        entries.len(),
        postcard_bytes.len(),
        json_bytes.len()
    );
    group.bench_function("encode_postcard", |b| b.iter(|| postcard::to_stdvec(&entries)));
    group.bench_function("decode_postcard", |b| {
        b.iter(|| postcard::from_bytes::<Vec<(String, Entry)>>(&postcard_bytes).map(|v| v.len()))
    });
    group.bench_function("encode_json", |b| b.iter(|| serde_json::to_vec(&entries)));
    group.bench_function("decode_json", |b| {
        b.iter(|| serde_json::from_slice::<Vec<(String, Entry)>>(&json_bytes).map(|v| v.len()))
    });
    group.finish();
}

/// Loading the index of N skills from a warm cache folder instead of building it.
fn index_cache(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    let cache_dir = tempfile::tempdir().expect("temp dir");
    let cache = CacheDir::at(cache_dir.path());
    for n in SIZES {
        let skills = discover(&roots(&set_dir(n))).skills;
        SkillIndex::cached(&skills, Some(&cache));
        group.bench_with_input(BenchmarkId::new("index_cached", n), &skills, |b, skills| {
            b.iter(|| SkillIndex::cached(skills, Some(&cache)))
        });
    }
    group.finish();
}

/// The stamp check a chat makes before every turn where file-system events cannot be had
/// (`skills::watch`, `AGENT_WATCH=poll`).
fn watch_poll(c: &mut Criterion) {
    let mut group = c.benchmark_group("watch_poll");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    // One root per size, stamped in a single pass: the check runs before every chat turn.
    let dirs: Vec<(usize, PathBuf)> = SIZES.iter().map(|n| (*n, set_dir(*n))).collect();
    for (n, dir) in &dirs {
        group.bench_with_input(BenchmarkId::from_parameter(n), dir, |b, dir| {
            let mut watch = SkillWatch::start(Mode::Poll, vec![dir.clone()]);
            b.iter(|| watch.changes())
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    discovery,
    catalog,
    index_cache,
    parsing,
    cache_format,
    watch_poll
);
criterion_main!(benches);
