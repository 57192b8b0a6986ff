use proptest::prelude::*;

use super::*;
use crate::skills::retrieval::search::SkillIndex;

fn lexical(scores: &[f32], ceiling: f32) -> LexicalScores {
    LexicalScores {
        scores: scores.to_vec(),
        ceiling,
    }
}

fn order(ranked: &[Ranked]) -> Vec<usize> {
    ranked.iter().map(|r| r.index).collect()
}

#[test]
fn without_embeddings_the_order_is_lexical() {
    let lex = lexical(&[0.0, 2.0, 5.0, 2.0], 10.0);
    let ranked = rank(&lex, None, SEMANTIC_WEIGHT, 10);
    assert_eq!(
        order(&ranked),
        [2, 1, 3],
        "no-match skills are left out, ties in catalog order"
    );
    assert!(ranked.iter().all(|r| r.semantic.is_none() && r.score == r.lexical));
    // Vectors missing for every skill, or of the wrong count, mean the same.
    let none = vec![None; 4];
    assert_eq!(rank(&lex, Some(&none), SEMANTIC_WEIGHT, 10), ranked);
    assert_eq!(rank(&lex, Some(&[Some(0.5)]), SEMANTIC_WEIGHT, 10), ranked);
}

#[test]
fn the_weight_moves_the_order_between_the_signals() {
    let lex = lexical(&[4.0, 0.0, 1.0], 8.0);
    let cos = [Some(0.1), Some(0.9), Some(0.5)];
    assert_eq!(order(&rank(&lex, Some(&cos), 1.0, 3)), [1, 2, 0]);
    assert_eq!(order(&rank(&lex, Some(&cos), 0.0, 3)), [0, 2, 1]);
    let fused = rank(&lex, Some(&cos), 0.5, 3);
    assert_eq!(fused.len(), 3, "fused rankings list skills no word matches");
    let second = fused.iter().find(|r| r.index == 1).unwrap();
    assert_eq!(
        (second.lexical, second.semantic),
        (0.0, Some(0.9)),
        "both signals are reported"
    );
}

#[test]
fn a_one_word_distractor_does_not_beat_a_clear_meaning_match() {
    // "ping me tomorrow at 9 about the dentist": one word names the wrong skill.
    let skills = vec![
        Skill::synthetic("ping-traceroute", "Ping a host and trace the network route to it."),
        Skill::synthetic("reminders", "Set reminders that notify you at a given time."),
        Skill::synthetic("weather", "Current weather for a city."),
    ];
    let lex = SkillIndex::build(&skills).score("ping me tomorrow at 9 about the dentist");
    assert!(lex.scores[0] > 0.0 && lex.scores[1] == 0.0);
    let cos = [Some(0.20), Some(0.55), Some(0.05)];
    assert_eq!(rank(&lex, Some(&cos), SEMANTIC_WEIGHT, 3)[0].index, 1);
    // And when the words match the whole request, they settle a near tie in meaning.
    let lex = SkillIndex::build(&skills).score("traceroute to example.com");
    let cos = [Some(0.50), Some(0.52), Some(0.05)];
    assert_eq!(rank(&lex, Some(&cos), SEMANTIC_WEIGHT, 3)[0].index, 0);
}

#[test]
fn a_skill_without_a_vector_still_competes_on_words() {
    let lex = lexical(&[0.0, 6.0, 0.0], 6.0);
    let cos = [Some(0.3), None, Some(0.2)];
    let ranked = rank(&lex, Some(&cos), SEMANTIC_WEIGHT, 3);
    let missing = ranked.iter().find(|r| r.index == 1).unwrap();
    assert_eq!(missing.semantic, None);
    assert!(missing.score > 0.0);
}

#[test]
fn vectors_are_normalised_and_mismatches_dropped() {
    let vectors = SkillVectors::new(vec![
        Some(vec![3.0, 4.0]),
        None,
        Some(vec![1.0, 0.0, 0.0]),
        Some(vec![0.0, 0.0]),
    ]);
    assert_eq!(vectors.len(), 4);
    let cos = vectors.cosines(&[6.0, 8.0]);
    assert!((cos[0].unwrap() - 1.0).abs() < 1e-6);
    assert_eq!(&cos[1..], &[None, None, None]);
    assert!(
        vectors.cosines(&[1.0, 0.0, 0.0]).iter().all(Option::is_none),
        "wrong query length"
    );
    assert!(vectors.cosines(&[0.0, 0.0]).iter().all(Option::is_none), "zero query");
    assert!(SkillVectors::new(Vec::new()).is_empty());
}

#[test]
fn embedding_text_is_name_words_then_description() {
    let skill = Skill::synthetic("PdfToText", "Extract text from PDF files.");
    assert_eq!(embedding_text(&skill), "pdf to text: Extract text from PDF files.");
}

proptest! {
    /// Raising one skill's cosine or lexical score never moves it down.
    #[test]
    fn raising_a_signal_never_lowers_a_skill(
        rows in prop::collection::vec((0.0f32..10.0, -1.0f32..1.0), 2..30),
        pick in any::<prop::sample::Index>(),
        bump in 0.01f32..1.0,
        lexical_side in any::<bool>(),
        weight in 0.0f32..=1.0,
    ) {
        let i = pick.index(rows.len());
        let scores: Vec<f32> = rows.iter().map(|r| r.0).collect();
        let cos: Vec<Option<f32>> = rows.iter().map(|r| Some(r.1)).collect();
        let ceiling = scores.iter().sum::<f32>() + 1.0;
        let place = |scores: &[f32], cos: &[Option<f32>]| {
            order(&rank(&lexical(scores, ceiling), Some(cos), weight, usize::MAX)).iter().position(|x| *x == i)
        };
        let before = place(&scores, &cos);
        let (mut scores2, mut cos2) = (scores.clone(), cos.clone());
        if lexical_side {
            scores2[i] += bump;
        } else {
            cos2[i] = cos2[i].map(|c| c + bump);
        }
        prop_assert!(place(&scores2, &cos2) <= before);
    }
}

#[test]
fn a_clear_winner_needs_coverage_and_a_margin() {
    let scores = |scores: &[f32]| lexical(scores, 10.0);
    assert_eq!(clear_winner(&scores(&[1.0, 6.0, 2.0]), 0.5, 2.0), Some(1));
    // Too little of the request explained.
    assert_eq!(clear_winner(&scores(&[1.0, 4.0, 0.0]), 0.5, 2.0), None);
    // Not far enough ahead of the runner-up, whichever comes first.
    assert_eq!(clear_winner(&scores(&[6.0, 3.5]), 0.5, 2.0), None);
    assert_eq!(clear_winner(&scores(&[3.5, 6.0]), 0.5, 2.0), None);
    // A tie is no winner; nothing matching is none.
    assert_eq!(clear_winner(&scores(&[6.0, 6.0]), 0.5, 1.01), None);
    assert_eq!(clear_winner(&scores(&[0.0, 0.0]), 0.0, 1.0), None);
    assert_eq!(clear_winner(&scores(&[]), 0.0, 1.0), None);
    // Alone, it needs only the coverage.
    assert_eq!(clear_winner(&scores(&[0.0, 5.0]), 0.5, 2.0), Some(1));
}
