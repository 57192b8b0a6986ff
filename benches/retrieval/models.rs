//! The embedding and fused rankings with every model whose vectors are cached, side by side, so a
//! change of the bench's model shows what it changes.

use agent::skills::retrieval::rank::SEMANTIC_WEIGHT;
use agent::skills::retrieval::search::Params;

use super::data::Set;
use super::vectors::Embedded;
use super::{Signals, Slice, dev, fmt, fused, signals, tool_dev};

/// The models `bench/embed_server.py` serves.
const MODELS: [&str; 3] = ["all-MiniLM-L6-v2", "all-mpnet-base-v2", "multilingual-e5-small-q4"];

/// One table row per model and ranking, for each model with a complete cache.
pub fn compare(routing: &Set, legacy: &Set, metatool: &Set) {
    let sets = [routing, legacy, metatool];
    let found: Vec<(&str, Embedded)> = MODELS
        .iter()
        .filter_map(|m| Some((*m, Embedded::cached(m, &sets)?)))
        .collect();
    if found.is_empty() {
        return;
    }
    println!(
        "\n### By embedding model\n\nEvery model whose vectors are cached in `target/retrieval-embeddings/` \
         (`bench/embed_server.py` says how each is shipped; the agent sends requests and skill texts alike, so a \
         model that wants a query prefix gets what its own server gives unlabelled input). Recall@1 / @5 / @20 of \
         embeddings alone and of the fused ranking (semantic weight {SEMANTIC_WEIGHT}); a model is chosen on the \
         development columns only:\n"
    );
    let params = Params::default();
    for (n, (model, embed)) in found.iter().enumerate() {
        let r = signals(routing, &params, embed);
        let l = signals(legacy, &params, embed);
        let m = signals(metatool, &params, embed);
        let slices = [
            dev(routing, &r, legacy, &l),
            tool_dev(metatool, &m),
            Slice::of(routing, &r, |i, _| i % 2 == 1),
            Slice::of(metatool, &m, |_, c| c.split == "held-out"),
        ];
        if n == 0 {
            let heads = ["own dev", "ToolE dev", "own held-out", "ToolE held-out"];
            let cols: Vec<String> = heads
                .iter()
                .zip(&slices)
                .map(|(h, s)| format!("{h} ({})", s.cases.len()))
                .collect();
            println!("| model | ranking | {} |\n|---|---|---|---|---|---|", cols.join(" | "));
        }
        for (name, weight) in [("embeddings", 1.0), ("fused", SEMANTIC_WEIGHT)] {
            let cells: Vec<String> = slices
                .iter()
                .map(|s| fmt(s.recall(&|x: &Signals| fused(x, weight))))
                .collect();
            println!("| {model} | {name} | {} |", cells.join(" | "));
        }
    }
}
