//! Skill embeddings kept in the cache folder (`embeddings/`), one file per endpoint and model,
//! each vector under a hash of the exact text it embeds: a skill is embedded once, and again
//! only when its name or description changes (or the model does).

use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::skills::cache::{SaveError, write_file};
use crate::support::cache_file::{self, CacheDir, Kind};

/// Bump `version` whenever [`Stored`] changes.
const KIND: Kind = Kind {
    magic: *b"AGTSKEMB",
    version: 1,
};

/// Vectors kept per file at most: the current catalog's first, then others (other projects'
/// skills) up to this many.
pub(crate) const MAX_VECTORS: usize = 20_000;

#[derive(Serialize, Deserialize)]
struct Stored {
    base_url: String,
    model: String,
    dims: u32,
    hashes: Vec<u64>,
    /// Every vector, `dims` little-endian `f32`s each, in `hashes` order.
    #[serde(with = "serde_bytes")]
    values: Vec<u8>,
}

/// Embedding vectors of skill texts for one endpoint and model.
#[derive(Debug, Default)]
pub(crate) struct EmbeddingStore {
    file: Option<PathBuf>,
    base_url: String,
    model: String,
    vectors: HashMap<u64, Vec<f32>>,
    changed: bool,
}

/// The key a text's vector is kept under.
fn key(text: &str) -> u64 {
    xxh3_64(text.as_bytes())
}

impl EmbeddingStore {
    /// The stored vectors of `model` at `base_url`; empty when caching is off or nothing usable
    /// is stored.
    pub(crate) fn open(cache: Option<&CacheDir>, base_url: &str, model: &str) -> Self {
        let mut store = Self {
            base_url: base_url.to_string(),
            model: model.to_string(),
            ..Self::default()
        };
        let Some(cache) = cache else {
            return store;
        };
        let name = format!("{:016x}.bin", xxh3_64(format!("{base_url}\0{model}").as_bytes()));
        let file = cache.file("embeddings", &name);
        if let Some(stored) = cache_file::read(&file, KIND)
            .ok()
            .and_then(|b| postcard::from_bytes::<Stored>(&b).ok())
            .filter(|s| s.base_url == base_url && s.model == model)
        {
            store.vectors = unpack(&stored).unwrap_or_default();
        }
        store.file = Some(file);
        store
    }

    /// The stored vector of `text`.
    pub(crate) fn get(&self, text: &str) -> Option<&[f32]> {
        self.vectors.get(&key(text)).map(Vec::as_slice)
    }

    /// Positions in `texts` of those without a stored vector.
    pub(crate) fn missing(&self, texts: &[String]) -> Vec<usize> {
        (0..texts.len()).filter(|i| self.get(&texts[*i]).is_none()).collect()
    }

    /// Keep `vector` as the embedding of `text`.
    pub(crate) fn insert(&mut self, text: &str, vector: Vec<f32>) {
        self.vectors.insert(key(text), vector);
        self.changed = true;
    }

    /// Write the store back if it changed: the vectors of `current` (the catalog's texts) first,
    /// then others up to [`MAX_VECTORS`]. Vectors whose length differs from the current ones'
    /// (the model changed under the same name) are dropped.
    pub(crate) fn save(&mut self, current: &[String]) -> Result<bool, SaveError> {
        let Some(file) = &self.file else {
            return Ok(false);
        };
        if !self.changed {
            return Ok(false);
        }
        let mut order: Vec<u64> = current
            .iter()
            .map(|t| key(t))
            .filter(|k| self.vectors.contains_key(k))
            .collect();
        let dims = order.first().and_then(|k| self.vectors.get(k)).map_or(0, Vec::len);
        let mut seen: std::collections::HashSet<u64> = order.iter().copied().collect();
        order.retain(|k| self.vectors.get(k).is_some_and(|v| v.len() == dims));
        let others = self
            .vectors
            .iter()
            .filter(|(k, v)| v.len() == dims && !seen.contains(*k));
        let room = MAX_VECTORS.saturating_sub(order.len());
        let extra: Vec<u64> = others.map(|(k, _)| *k).take(room).collect();
        seen.extend(&extra);
        order.extend(extra);
        let mut values = Vec::with_capacity(order.len() * dims * 4);
        for k in &order {
            for x in self.vectors.get(k).into_iter().flatten() {
                values.extend_from_slice(&x.to_le_bytes());
            }
        }
        let stored = Stored {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            dims: u32::try_from(dims)?,
            hashes: order,
            values,
        };
        write_file(file, KIND, &stored)?;
        self.changed = false;
        Ok(true)
    }
}

/// The vectors a [`Stored`] holds, if its parts agree in size.
fn unpack(stored: &Stored) -> Option<HashMap<u64, Vec<f32>>> {
    let dims = stored.dims as usize;
    if dims == 0 || stored.values.len() != stored.hashes.len() * dims * 4 {
        return None;
    }
    let floats: Vec<f32> = stored
        .values
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some(
        stored
            .hashes
            .iter()
            .zip(floats.chunks_exact(dims))
            .map(|(k, v)| (*k, v.to_vec()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(prefix: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{prefix} {i}")).collect()
    }

    #[test]
    fn vectors_are_kept_per_text_endpoint_and_model() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::at(dir.path());
        let catalog = texts("skill", 3);
        let mut store = EmbeddingStore::open(Some(&cache), "http://a/v1", "m1");
        assert_eq!(store.missing(&catalog), [0, 1, 2]);
        for (i, t) in catalog.iter().enumerate() {
            store.insert(t, vec![i as f32, 1.5, -2.0]);
        }
        assert!(store.save(&catalog).unwrap());
        assert!(!store.save(&catalog).unwrap(), "nothing changed");

        let store = EmbeddingStore::open(Some(&cache), "http://a/v1", "m1");
        assert!(store.missing(&catalog).is_empty());
        assert_eq!(store.get("skill 2"), Some(&[2.0, 1.5, -2.0][..]));
        let changed = vec!["skill 0".to_string(), "skill 1, now described better".to_string()];
        assert_eq!(store.missing(&changed), [1]);
        assert!(
            EmbeddingStore::open(Some(&cache), "http://a/v1", "m2")
                .get("skill 0")
                .is_none()
        );
        assert!(
            EmbeddingStore::open(Some(&cache), "http://b/v1", "m1")
                .get("skill 0")
                .is_none()
        );
        assert!(EmbeddingStore::open(None, "http://a/v1", "m1").get("skill 0").is_none());
    }

    #[test]
    fn the_current_catalog_is_kept_first_and_others_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::at(dir.path());
        let mut store = EmbeddingStore::open(Some(&cache), "u", "m");
        let old = texts("old", 5);
        let current = texts("new", MAX_VECTORS);
        for t in old.iter().chain(&current) {
            store.insert(t, vec![1.0, 0.0]);
        }
        // A vector of another length (the model changed under its name) is dropped.
        store.insert("odd one", vec![1.0, 0.0, 0.0]);
        store.save(&current).unwrap();
        let store = EmbeddingStore::open(Some(&cache), "u", "m");
        assert!(store.missing(&current).is_empty());
        assert_eq!(store.missing(&old).len(), 5);
        assert!(store.get("odd one").is_none());
    }

    #[test]
    fn a_damaged_file_is_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::at(dir.path());
        let mut store = EmbeddingStore::open(Some(&cache), "u", "m");
        store.insert("a", vec![1.0]);
        store.save(&["a".to_string()]).unwrap();
        let file = std::fs::read_dir(dir.path().join("embeddings"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let mut bytes = std::fs::read(&file).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&file, bytes).unwrap();
        assert!(EmbeddingStore::open(Some(&cache), "u", "m").get("a").is_none());
    }
}
