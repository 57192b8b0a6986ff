//! Words for lexical matching: accents folded, lowercased, split on punctuation and inside
//! camelCase names, function words dropped, English (Snowball) stems.

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// English function words that say nothing about which skill is wanted. Deliberately short:
/// general-purpose lists also drop words such as "date", "open", "test" or "web", which name
/// whole skills.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does",
    "doing", "down", "during", "each", "else", "etc", "ever", "every", "few", "for", "from", "further", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "im", "in", "into", "is", "it",
    "its", "itself", "just", "let", "lets", "me", "might", "mine", "more", "most", "much", "must", "my", "myself",
    "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own",
    "please", "same", "she", "should", "so", "some", "such", "than", "that", "thats", "the", "their", "theirs", "them",
    "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "very",
    "via", "was", "we", "were", "what", "whats", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "within", "would", "yet", "you", "your", "yours", "yourself",
];

/// Whether `word` (lowercase) is a function word.
fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Splits text into lowercase words and stems them.
pub(super) struct Analyzer {
    stemmer: Stemmer,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer(english)")
    }
}

impl Default for Analyzer {
    fn default() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Analyzer {
    /// The stem a lowercase word is indexed and searched under.
    pub(super) fn stem(&self, word: &str) -> String {
        // Snowball keeps the "s" of a plural without a vowel before it: PDFs, JWTs, MP3s.
        if let Some(single) = word.strip_suffix('s')
            && single.len() >= 3
            && !single.ends_with('s')
            && !single.contains(['a', 'e', 'i', 'o', 'u', 'y'])
        {
            return single.to_string();
        }
        self.stemmer.stem(word).into_owned()
    }

    /// Stems of the content words of `text`, in order, repeats kept (the index does the same
    /// in steps).
    #[cfg(test)]
    pub(super) fn terms(&self, text: &str) -> Vec<String> {
        words(text)
            .into_iter()
            .filter(|w| is_content(w))
            .map(|w| self.stem(&w))
            .collect()
    }
}

/// Whether a lowercase word can carry meaning: not a function word, at least two characters,
/// and not a bare number (times, sizes and amounts in requests say nothing about the skill,
/// while "mp3", "s3" or "base64" do).
pub(super) fn is_content(word: &str) -> bool {
    word.chars().nth(1).is_some() && !word.chars().all(|c| c.is_ascii_digit()) && !is_stop_word(word)
}

/// Lowercase words of `text`: accents folded (café → cafe), split on anything that is not a
/// letter or digit and at camelCase boundaries (`PdfToText` → pdf, to, text; `HTMLParser` →
/// html, parser). Apostrophes are dropped inside words so "what's" stays one word.
pub(super) fn words(text: &str) -> Vec<String> {
    // Most catalog text is plain ASCII: skip the Unicode pass for it.
    let folded: Cow<'_, str> = if text.is_ascii() && !text.contains('\'') {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(
            text.nfkd()
                .filter(|c| !is_combining_mark(*c) && !matches!(c, '\'' | '’'))
                .collect(),
        )
    };
    let mut out = Vec::new();
    for run in folded.split(|c: char| !c.is_alphanumeric()) {
        if !run.is_empty() {
            split_camel(run, &mut out);
        }
    }
    out
}

/// Pushes the lowercase parts of one alphanumeric run, split where a lowercase letter meets an
/// uppercase one (`imageResize`) or an acronym meets a word (`HTMLParser`).
fn split_camel(run: &str, out: &mut Vec<String>) {
    if !run.chars().any(char::is_uppercase) {
        out.push(run.to_string());
        return;
    }
    let chars: Vec<char> = run.chars().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let (prev, cur) = (chars[i - 1], chars[i]);
        // An acronym ends before a capital that starts a word of two or more lowercase letters;
        // a lone "s" is a plural (`PDFs`, `JWTs`), not a word.
        let word_follows = chars
            .get(i + 1..i + 3)
            .is_some_and(|w| w.iter().all(|c| c.is_lowercase()));
        let boundary =
            (prev.is_lowercase() && cur.is_uppercase()) || (prev.is_uppercase() && cur.is_uppercase() && word_follows);
        if boundary {
            out.push(chars[start..i].iter().collect::<String>().to_lowercase());
            start = i;
        }
    }
    out.push(chars[start..].iter().collect::<String>().to_lowercase());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn names_split_on_punctuation_and_case() {
        for (name, want) in [
            ("pdf-to-text", vec!["pdf", "to", "text"]),
            ("pdf_to_text", vec!["pdf", "to", "text"]),
            ("PdfToText", vec!["pdf", "to", "text"]),
            ("pdftotext", vec!["pdftotext"]),
            ("HTMLParser", vec!["html", "parser"]),
            ("gh-issues", vec!["gh", "issues"]),
            ("base64", vec!["base64"]),
            ("PDFs", vec!["pdfs"]),
        ] {
            assert_eq!(words(name), want, "{name}");
        }
    }

    #[test]
    fn accents_fold_and_apostrophes_join() {
        assert_eq!(words("Café's résumé"), vec!["cafes", "resume"]);
        assert_eq!(words("what’s up"), vec!["whats", "up"]);
    }

    #[test]
    fn terms_drop_function_words_and_stem() {
        let a = Analyzer::default();
        assert_eq!(a.terms("Converting the PDFs to text"), vec!["convert", "pdf", "text"]);
        assert_eq!(a.terms("dns gps"), vec!["dns", "gps"], "short acronyms keep their s");
        // Words that general stop lists drop but that name skills here.
        assert_eq!(a.terms("date open test web"), vec!["date", "open", "test", "web"]);
    }
}
