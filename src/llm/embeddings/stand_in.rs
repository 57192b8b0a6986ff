//! A deterministic stand-in for an embedding model, for tests and benchmarks that must not
//! depend on a model: words and character trigrams feature-hashed into a fixed-size unit
//! vector. Texts that share words or spellings point the same way; nothing more. It is cheap
//! and reproducible, and makes no claim about retrieval quality.

use serde_json::{Value, json};

/// Dimensions of stand-in vectors.
pub(crate) const DIMENSIONS: usize = 256;
/// The model name the stand-in answers as.
pub const MODEL: &str = "stand-in-hashed-trigrams";

/// FNV-1a, 64-bit: stable across platforms and releases, unlike `std`'s hasher.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in *part {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Adds `weight` at the bucket `key` hashes to, with a sign from another bit of the hash so
/// that collisions cancel out on average instead of piling up.
fn add(vector: &mut [f32], kind: &[u8], key: &[u8], weight: f32) {
    let h = fnv1a(&[kind, key]);
    let bucket = (h % vector.len() as u64) as usize;
    vector[bucket] += if h >> 63 == 0 { weight } else { -weight };
}

/// The stand-in vector of `text`: unit length, or all zeros when `text` has no letters or
/// digits.
pub fn embed(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; DIMENSIONS];
    let lower = text.to_lowercase();
    for word in lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        add(&mut v, b"w", word.as_bytes(), 1.0);
        let padded: Vec<char> = format!("<{word}>").chars().collect();
        for gram in padded.windows(3) {
            let gram: String = gram.iter().collect();
            add(&mut v, b"g", gram.as_bytes(), 0.3);
        }
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// What is wrong with an embeddings request body; a mock server sends it back in its 400.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadRequest {
    #[error("`input` must hold only strings")]
    NotStrings,
    #[error("`input` must be a string or an array of strings")]
    NoInput,
}

/// The body an OpenAI-compatible server would send for an embeddings `request` body, with
/// stand-in vectors; `Err` says what is wrong with the request. For mock servers.
pub fn response(request: &Value) -> Result<Value, BadRequest> {
    let inputs: Vec<&str> = match &request["input"] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().ok_or(BadRequest::NotStrings))
            .collect::<Result<_, _>>()?,
        _ => return Err(BadRequest::NoInput),
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": embed(text)}))
        .collect();
    let model = request["model"].as_str().unwrap_or(MODEL);
    Ok(json!({"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": 0, "total_tokens": 0}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn deterministic_unit_vectors() {
        let a = embed("Convert PDF files to text");
        assert_eq!(a, embed("Convert PDF files to text"));
        assert_eq!(a.len(), DIMENSIONS);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-5);
        assert!(embed("  ...  ").iter().all(|x| *x == 0.0));
    }

    #[test]
    fn shared_words_and_spellings_point_the_same_way() {
        let doc = embed("weather forecast for a city");
        assert!(cosine(&doc, &embed("forecast in Oslo")) > cosine(&doc, &embed("merge two pdf files")));
        assert!(cosine(&doc, &embed("wether")) > cosine(&doc, &embed("invoice")));
    }

    #[test]
    fn answers_like_an_openai_server() {
        let body = response(&json!({"model": "m", "input": ["a b", "c"]})).unwrap();
        assert_eq!(body["model"], "m");
        assert_eq!(body["data"][1]["index"], 1);
        assert_eq!(body["data"][0]["embedding"].as_array().unwrap().len(), DIMENSIONS);
        assert_eq!(
            response(&json!({"input": "one"})).unwrap()["data"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(response(&json!({"input": [1, 2]})), Err(BadRequest::NotStrings));
        assert_eq!(response(&json!({"model": "m"})), Err(BadRequest::NoInput));
    }
}
