//! Retrieval quality of skill ranking: recall@1/5/20 of lexical (before and after), embedding
//! and fused rankings on the labelled routing set (`bench/routing/`, per kind too) and the
//! older `bench/retrieval.json`.
//!
//! Recall@K here is the share of requests with at least one acceptable skill among the first K
//! results. `none` requests (nothing fits, `expect: []`) have no right answer to find, so they
//! are left out of recall and reported on their own.
//!
//! Tuning is kept apart from reporting: the development set is `bench/retrieval.json` plus the
//! even positions of `bench/routing/cases.json`; the odd positions are held out. The public set
//! in `bench/metatool/` (MetaTool's ToolE) comes split in halves by a hash of each request; its
//! held-out half is only reported. The sweeps below run on the development sets only; the
//! defaults in `src/skills/retrieval/search.rs` and `src/skills/retrieval/rank.rs` are what they chose.
//!
//! Embeddings: with `BENCH_EMBED_URL` (an OpenAI-compatible base URL, e.g.
//! `http://127.0.0.1:8765/v1`, see `bench/embed_server.py`) and `BENCH_EMBED_MODEL`
//! (default `all-mpnet-base-v2`) vectors come from that server and are cached in
//! `target/retrieval-embeddings/`; a complete cache needs no server. Otherwise the
//! deterministic stand-in (hashed trigrams) is used, and the output says so: its numbers are
//! not a model's.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

#[path = "retrieval/data.rs"]
mod data;
#[path = "retrieval/models.rs"]
mod models;
#[path = "retrieval/vectors.rs"]
mod vectors;

use agent::skills::retrieval::rank::{
    self, PREACTIVATE_MARGIN, PREACTIVATE_MIN_COVERAGE, SEMANTIC_WEIGHT, clear_winner,
};
use agent::skills::retrieval::search::{LexicalScores, Params, SkillIndex};
use data::{Case, Set};

const KS: [usize; 3] = [1, 5, 20];
const DEPTH: usize = 20;

/// Everything a ranker needs for one request.
struct Signals {
    /// Top results of the old ranker (the `bm25` crate, name twice + description).
    before: Vec<usize>,
    lexical: LexicalScores,
    cosines: Vec<Option<f32>>,
}

/// A named way of turning signals into a ranked list.
type Ranker = (&'static str, fn(&Signals) -> Vec<usize>);

const RANKERS: [Ranker; 5] = [
    ("BM25 before (bm25 crate)", |s| s.before.clone()),
    ("lexical (BM25F)", lexical),
    ("embeddings", |s| fused(s, 1.0)),
    ("fused (weighted)", |s| fused(s, SEMANTIC_WEIGHT)),
    ("fused (RRF, k=60)", rrf),
];

fn indices(ranked: Vec<rank::Ranked>) -> Vec<usize> {
    ranked.into_iter().map(|r| r.index).collect()
}

fn lexical(s: &Signals) -> Vec<usize> {
    indices(rank::rank(&s.lexical, None, 0.0, DEPTH))
}

fn fused(s: &Signals, weight: f32) -> Vec<usize> {
    indices(rank::rank(&s.lexical, Some(&s.cosines), weight, DEPTH))
}

/// Reciprocal-rank fusion of the lexical and the embedding order, for comparison.
fn rrf(s: &Signals) -> Vec<usize> {
    let mut score = vec![0.0f32; s.lexical.scores.len()];
    let by_words = indices(rank::rank(&s.lexical, None, 0.0, usize::MAX));
    let by_meaning = indices(rank::rank(&s.lexical, Some(&s.cosines), 1.0, usize::MAX));
    for list in [by_words, by_meaning] {
        for (pos, i) in list.into_iter().enumerate() {
            score[i] += 1.0 / (61.0 + pos as f32);
        }
    }
    let fused = LexicalScores {
        scores: score,
        ceiling: 0.0,
    };
    indices(rank::rank(&fused, None, 0.0, DEPTH))
}

/// Labelled cases and their signals, side by side.
#[derive(Default)]
struct Slice<'a> {
    cases: Vec<&'a Case>,
    sig: Vec<&'a Signals>,
}

impl<'a> Slice<'a> {
    /// The answerable cases of `set` at positions `pick` accepts.
    fn of(set: &'a Set, sig: &'a [Signals], pick: impl Fn(usize, &Case) -> bool) -> Self {
        let mut slice = Slice::default();
        for (i, (case, s)) in set.cases.iter().zip(sig).enumerate() {
            if !case.expect.is_empty() && pick(i, case) {
                slice.cases.push(case);
                slice.sig.push(s);
            }
        }
        slice
    }

    fn and(mut self, other: Slice<'a>) -> Self {
        self.cases.extend(other.cases);
        self.sig.extend(other.sig);
        self
    }

    /// Recall@1/5/20: the share of cases with an acceptable skill among the first K.
    fn recall(&self, ranker: &dyn Fn(&Signals) -> Vec<usize>) -> [f64; 3] {
        let mut hits = [0usize; 3];
        for (case, s) in self.cases.iter().zip(&self.sig) {
            let list = ranker(s);
            for (k, hit) in KS.iter().zip(hits.iter_mut()) {
                if list.iter().take(*k).any(|i| case.expect.contains(i)) {
                    *hit += 1;
                }
            }
        }
        hits.map(|h| h as f64 / self.cases.len().max(1) as f64)
    }
}

fn fmt(r: [f64; 3]) -> String {
    r.map(|x| format!("{x:.2}")).join(" / ")
}

/// Signals for every case of `set`.
fn signals(set: &Set, params: &Params, embed: &vectors::Embedded) -> Vec<Signals> {
    let index = SkillIndex::with_params(&set.skills, params.clone());
    let before = data::Before::new(&set.skills);
    let skill_vectors = embed.skills(&set.skills);
    set.cases
        .iter()
        .map(|c| Signals {
            before: before.search(&c.request, DEPTH),
            lexical: index.score(&c.request),
            cosines: skill_vectors.cosines(&embed.get(&c.request)),
        })
        .collect()
}

/// Even positions of the routing set plus all of `retrieval.json`.
fn dev<'a>(routing: &'a Set, r: &'a [Signals], legacy: &'a Set, l: &'a [Signals]) -> Slice<'a> {
    Slice::of(routing, r, |i, _| i % 2 == 0).and(Slice::of(legacy, l, |_, _| true))
}

fn main() {
    let routing = data::routing();
    let legacy = data::legacy();
    let metatool = data::metatool();
    let embed = vectors::Embedded::load(&[&routing, &legacy, &metatool]);
    let params = Params::default();
    let r = signals(&routing, &params, &embed);
    let l = signals(&legacy, &params, &embed);
    let m = signals(&metatool, &params, &embed);
    let all = Slice::of(&routing, &r, |_, _| true);
    let held_out = Slice::of(&routing, &r, |i, _| i % 2 == 1);
    let dev_set = dev(&routing, &r, &legacy, &l);
    let old = Slice::of(&legacy, &l, |_, _| true);
    let tool_dev = tool_dev(&metatool, &m);
    let tool_held = Slice::of(&metatool, &m, |_, c| c.split == "held-out");

    println!(
        "{} skills and {} requests in `bench/routing/` ({} answerable, {} `none`); {} tools and {} requests from \
         MetaTool's ToolE in `bench/metatool/` (never tuned on: its held-out half); embeddings: **{}**. \
         Recall@1 / @5 / @20 (share of requests with an acceptable skill among the first K):\n",
        routing.skills.len(),
        routing.cases.len(),
        all.cases.len(),
        routing.cases.len() - all.cases.len(),
        metatool.skills.len(),
        metatool.cases.len(),
        embed.label()
    );
    println!(
        "| ranking | all routing ({}) | held-out half ({}) | dev set ({}) | retrieval.json ({}) | ToolE dev ({}) | \
         ToolE held-out ({}) |\n|---|---|---|---|---|---|---|",
        all.cases.len(),
        held_out.cases.len(),
        dev_set.cases.len(),
        old.cases.len(),
        tool_dev.cases.len(),
        tool_held.cases.len()
    );
    for (name, ranker) in RANKERS {
        let cells = [&all, &held_out, &dev_set, &old, &tool_dev, &tool_held].map(|s| fmt(s.recall(&ranker)));
        println!("| {name} | {} |", cells.join(" | "));
    }
    let at20 = |s: &Slice, ranker: fn(&Signals) -> Vec<usize>| s.recall(&ranker)[2];
    println!(
        "\nRecall@20 to three places, ToolE dev / held-out: fused {:.3} / {:.3}, lexical {:.3} / {:.3}.",
        at20(&tool_dev, |s| fused(s, SEMANTIC_WEIGHT)),
        at20(&tool_held, |s| fused(s, SEMANTIC_WEIGHT)),
        at20(&tool_dev, lexical),
        at20(&tool_held, lexical)
    );

    println!("\nPer kind, all of `bench/routing/` (recall@1 / @5 / @20):\n");
    let kinds = ["lexical", "paraphrase", "short", "long"];
    let slices: Vec<Slice> = kinds
        .iter()
        .map(|k| Slice::of(&routing, &r, |_, c| c.kind == *k))
        .collect();
    let head: Vec<String> = kinds
        .iter()
        .zip(&slices)
        .map(|(k, s)| format!("{k} ({})", s.cases.len()))
        .collect();
    println!("| ranking | {} |\n|---|---|---|---|---|", head.join(" | "));
    for (name, ranker) in RANKERS {
        let cells: Vec<String> = slices.iter().map(|s| fmt(s.recall(&ranker))).collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    models::compare(&routing, &legacy, &metatool);
    none_cases(&routing, &r);
    preactivation(&routing, &r, &legacy, &l);
    index_setup(&routing);
    sweeps([&routing, &legacy, &metatool], (&r, &l), &tool_dev);
}

/// What the rankers do with requests nothing fits.
fn none_cases(set: &Set, sig: &[Signals]) {
    let none: Vec<&Signals> = set
        .cases
        .iter()
        .zip(sig)
        .filter(|(c, _)| c.expect.is_empty())
        .map(|(_, s)| s)
        .collect();
    let empty_before = none.iter().filter(|s| s.before.is_empty()).count();
    let empty_now = none.iter().filter(|s| lexical(s).is_empty()).count();
    let answerable_empty = set
        .cases
        .iter()
        .zip(sig)
        .filter(|(c, s)| !c.expect.is_empty() && lexical(s).is_empty())
        .count();
    println!(
        "\n`none` requests ({}) are not in recall. The lexical ranking returns nothing for {empty_now} of them \
         (before: {empty_before}), and for {answerable_empty} answerable requests. Embedding and fused rankings \
         always return a list: declining to use a skill is the model's call, not the first stage's.",
        none.len()
    );
}

/// Recall@1/5/20 to three places and their mean, the development criterion.
fn fmt3(r: [f64; 3]) -> String {
    format!(
        "{:.3} / {:.3} / {:.3} | {:.3}",
        r[0],
        r[1],
        r[2],
        r.iter().sum::<f64>() / 3.0
    )
}

/// Lexical signals only, for sweeping the lexical parameters.
fn lexical_only(set: &Set, params: &Params) -> Vec<Signals> {
    let index = SkillIndex::with_params(&set.skills, params.clone());
    set.cases
        .iter()
        .map(|c| Signals {
            before: Vec::new(),
            lexical: index.score(&c.request),
            cosines: Vec::new(),
        })
        .collect()
}

/// The fused ranking with lexical scores measured against the best one instead of the ceiling.
fn fused_by_best(s: &Signals, weight: f32) -> Vec<usize> {
    let best = s.lexical.scores.iter().copied().fold(0.0f32, f32::max);
    let lexical = LexicalScores {
        scores: s.lexical.scores.clone(),
        ceiling: best,
    };
    indices(rank::rank(&lexical, Some(&s.cosines), weight, DEPTH))
}

/// Development-set sweeps that chose the defaults (criterion: the mean of recall@1, @5, @20).
fn sweeps(sets: [&Set; 3], (r, l): (&[Signals], &[Signals]), tool_dev: &Slice) {
    lexical_sweep(sets);
    fusion_sweep(&dev(sets[0], r, sets[1], l), tool_dev);
}

/// The development half of `bench/metatool/`.
fn tool_dev<'a>(set: &'a Set, sig: &'a [Signals]) -> Slice<'a> {
    Slice::of(set, sig, |_, c| c.split == "dev")
}

/// Lexical parameters, one changed at a time from the default.
fn lexical_sweep([routing, legacy, metatool]: [&Set; 3]) {
    let n = routing.cases.iter().step_by(2).filter(|c| !c.expect.is_empty()).count() + legacy.cases.len();
    let t = metatool.cases.iter().filter(|c| c.split == "dev").count();
    println!(
        "\nDevelopment sets only ({n} own requests, {t} of ToolE's dev half): lexical parameters, one changed at a \
         time from the default (recall@1 / @5 / @20 of the lexical ranking, and their mean):\n"
    );
    println!(
        "| variant | own dev: recall@1 / @5 / @20 | mean | ToolE dev: recall@1 / @5 / @20 | mean |\n|---|---|---|---|---|"
    );
    let variant = |change: fn(&mut Params)| {
        let mut p = Params::default();
        change(&mut p);
        p
    };
    let variants = [
        ("default", variant(|_| {})),
        (
            "name weight 1 (names count as description words)",
            variant(|p| p.name_weight = 1.0),
        ),
        ("name weight 2", variant(|p| p.name_weight = 2.0)),
        ("name weight 5", variant(|p| p.name_weight = 5.0)),
        ("name b 0", variant(|p| p.name_b = 0.0)),
        ("name b 0.75", variant(|p| p.name_b = 0.75)),
        ("description b 0.5", variant(|p| p.desc_b = 0.5)),
        ("description b 1", variant(|p| p.desc_b = 1.0)),
        ("k1 0.9", variant(|p| p.k1 = 0.9)),
        ("k1 2", variant(|p| p.k1 = 2.0)),
        ("no compound split", variant(|p| p.split_compounds = false)),
        ("no typo/prefix match", variant(|p| p.fuzzy_weight = 0.0)),
        ("typo/prefix weight 0.25", variant(|p| p.fuzzy_weight = 0.25)),
        ("typo/prefix weight 1", variant(|p| p.fuzzy_weight = 1.0)),
        (
            "no derived-word match (rental → rent, repositories → RepoTool)",
            variant(|p| p.stem_prefix = false),
        ),
    ];
    for (name, params) in variants {
        let (vr, vl, vm) = (
            lexical_only(routing, &params),
            lexical_only(legacy, &params),
            lexical_only(metatool, &params),
        );
        println!(
            "| {name} | {} | {} |",
            fmt3(dev(routing, &vr, legacy, &vl).recall(&lexical)),
            fmt3(tool_dev(metatool, &vm).recall(&lexical))
        );
    }
    println!(
        "\nOne request is 0.004 of the own set here and 0.002 of ToolE's: differences that small are noise. Names \
         stay weighted above descriptions (neither set rewards nor punishes it: their descriptions repeat their \
         names' words)."
    );
}

/// The semantic weight of the fused score, and the two ways to scale the lexical score.
fn fusion_sweep(dev_set: &Slice, tool_dev: &Slice) {
    println!(
        "\nDevelopment sets only: semantic weight of the fused score (default {SEMANTIC_WEIGHT}), with the lexical \
         score measured against the request's ceiling (default) or against the best lexical score of the request \
         (recall@1 / @5 / @20 and their mean):\n"
    );
    println!(
        "| weight | own dev ÷ ceiling | mean | own dev ÷ best | mean | ToolE dev ÷ ceiling | mean | ToolE dev ÷ best | \
         mean |\n|---|---|---|---|---|---|---|---|---|"
    );
    for w in [0.2f32, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] {
        let cells = [dev_set, tool_dev].map(|s| {
            format!(
                "{} | {}",
                fmt3(s.recall(&|s| fused(s, w))),
                fmt3(s.recall(&|s| fused_by_best(s, w)))
            )
        });
        println!("| {w} | {} |", cells.join(" | "));
    }
    println!(
        "\nMeasured against its ceiling, the lexical score stays small when only a distractor word matches, so the \
         fusion holds up across weights; measured against the best lexical score, one matching word counts fully \
         and the fusion falls apart below weight 0.7. The flat curve matters more than its peak: the weight was \
         tuned with one model and will meet others."
    );
}

/// How often pre-activation fires and how often on the right skill, at (coverage, margin), over
/// `cases`: (answerable fired, right, answerable, `none` fired, `none`).
fn fire_counts(cases: &[(&Case, &Signals)], coverage: f32, margin: f32) -> (usize, usize, usize, usize, usize) {
    let mut c = (0, 0, 0, 0, 0);
    for (case, s) in cases {
        let fired = clear_winner(&s.lexical, coverage, margin);
        if case.expect.is_empty() {
            c.4 += 1;
            c.3 += usize::from(fired.is_some());
        } else {
            c.2 += 1;
            if let Some(i) = fired {
                c.0 += 1;
                c.1 += usize::from(case.expect.contains(&i));
            }
        }
    }
    c
}

/// Pre-activation (`AGENT_PREACTIVATE`): a sweep of its two thresholds on the development set
/// (wrong activations and activations on `none` requests cost most: each pulls a whole wrong
/// SKILL.md into the context), and the chosen defaults on the held-out half.
fn preactivation(routing: &Set, r: &[Signals], legacy: &Set, l: &[Signals]) {
    let half = |parity: usize| -> Vec<(&Case, &Signals)> {
        let cases = routing.cases.iter().zip(r).enumerate();
        cases.filter(|(i, _)| i % 2 == parity).map(|(_, p)| p).collect()
    };
    let mut dev = half(0);
    dev.extend(legacy.cases.iter().zip(l));
    let held = half(1);
    let row = |name: &str, (fired, right, answerable, none_fired, none): (usize, usize, usize, usize, usize)| {
        format!(
            "| {name} | {fired} of {answerable} ({:.0} %) | {right} of {fired} ({:.0} %) | {none_fired} of {none} |",
            100.0 * fired as f64 / answerable.max(1) as f64,
            100.0 * right as f64 / fired.max(1) as f64
        )
    };
    println!(
        "\n### Pre-activation\n\n`AGENT_PREACTIVATE=1` activates the lexical winner before the first request when its words \
         explain at least {PREACTIVATE_MIN_COVERAGE} of the request (coverage) and its score is {PREACTIVATE_MARGIN}× the \
         runner-up's. Fires: requests where it activated a skill; right: the skill was an acceptable one; `none`: \
         requests nothing fits.\n\n| set | fires | right | fires on `none` |\n|---|---|---|---|"
    );
    println!(
        "{}",
        row(
            "held-out half of `bench/routing`",
            fire_counts(&held, PREACTIVATE_MIN_COVERAGE, PREACTIVATE_MARGIN)
        )
    );
    println!(
        "{}",
        row(
            "development set",
            fire_counts(&dev, PREACTIVATE_MIN_COVERAGE, PREACTIVATE_MARGIN)
        )
    );
    println!(
        "\nSweep on the development set (fires / right / `none` fires):\n\n| coverage \\ margin | 1.2 | 1.5 | 2.0 | 3.0 |\n|---|---|---|---|---|"
    );
    for coverage in [0.3f32, 0.4, 0.5, 0.6, 0.7, 0.8] {
        let cells: Vec<String> = [1.2f32, 1.5, 2.0, 3.0]
            .iter()
            .map(|m| {
                let (fired, right, _, none_fired, _) = fire_counts(&dev, coverage, *m);
                format!("{fired} / {right} / {none_fired}")
            })
            .collect();
        println!("| {coverage} | {} |", cells.join(" | "));
    }
}

/// What pre-activation pays before the first request on a small catalog: building the index it
/// ranks with, then (the old way) the `bm25` crate's engine with its English tokenizer, and (now)
/// the own BM25F index. Medians of 21 builds over the first 25 skills of `bench/routing`.
fn index_setup(routing: &Set) {
    let skills = &routing.skills[..routing.skills.len().min(25)];
    let median = |f: &dyn Fn()| {
        let mut times: Vec<f64> = (0..21)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let before = median(&|| {
        std::hint::black_box(data::Before::new(skills));
    });
    let now = median(&|| {
        std::hint::black_box(SkillIndex::build(skills));
    });
    println!(
        "\nIndex build for {} skills (what pre-activation pays before the first request): the `bm25` crate's engine \
         with its English tokenizer {before:.3} ms, the own BM25F index {now:.3} ms.",
        skills.len()
    );
}
