//! The tool-list cache: each server's tools as last listed, under a key made of its expanded
//! configuration, so a one-shot run names a server's tools without starting it. A changed
//! command, URL, header or variable changes the key and the list is asked for again.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::client::ToolInfo;

/// Largest cache file read.
const MAX_CACHE_BYTES: u64 = 8 << 20;

/// One server's cached list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Entry {
    key: String,
    tools: Vec<ToolInfo>,
}

/// Every server's cached list, by server name.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ToolCache {
    servers: BTreeMap<String, Entry>,
}

/// The key of a server's configuration (hashed: it may hold expanded secrets).
pub(crate) fn key(name: &str, config: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(name.as_bytes());
    hash.update([0]);
    hash.update(config.as_bytes());
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl ToolCache {
    /// The cache at `file`; a missing or unreadable one is empty (it is only a cache).
    pub(crate) fn load(file: &Path) -> Self {
        crate::support::fs::read_whole(file, MAX_CACHE_BYTES)
            .ok()
            .and_then(|read| serde_json::from_slice(&read.bytes).ok())
            .unwrap_or_default()
    }

    /// `server`'s tools, if cached under `key`.
    pub(crate) fn get(&self, server: &str, key: &str) -> Option<Vec<ToolInfo>> {
        self.servers
            .get(server)
            .filter(|e| e.key == key)
            .map(|e| e.tools.clone())
    }

    /// Store `server`'s `tools` under `key` in `file`; a cache that cannot be written is skipped.
    pub(crate) fn store(file: &Path, server: &str, key: &str, tools: &[ToolInfo]) {
        let mut cache = Self::load(file);
        cache.servers.insert(
            server.to_string(),
            Entry {
                key: key.to_string(),
                tools: tools.to_vec(),
            },
        );
        let Some(dir) = file.parent() else { return };
        let written = std::fs::create_dir_all(dir).ok().and_then(|()| {
            let tmp = tempfile::NamedTempFile::new_in(dir).ok()?;
            serde_json::to_writer(tmp.as_file(), &cache).ok()?;
            tmp.persist(file).ok()
        });
        if written.is_none() {
            tracing::debug!("MCP tool cache {} not written", file.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_served_only_under_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub/cache.json");
        let tools = vec![ToolInfo {
            name: "t".into(),
            description: "d".into(),
            input_schema: serde_json::json!({"type": "object"}),
        }];
        let k = key("s", "{\"command\":\"x\"}");
        assert_ne!(k, key("s", "{\"command\":\"y\"}"));
        ToolCache::store(&file, "s", &k, &tools);
        let cache = ToolCache::load(&file);
        assert_eq!(cache.get("s", &k), Some(tools));
        assert_eq!(cache.get("s", "other"), None);
        assert_eq!(cache.get("t", &k), None);
        std::fs::write(&file, "not json").unwrap();
        assert_eq!(ToolCache::load(&file).get("s", &k), None);
    }
}
