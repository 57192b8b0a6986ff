//! Sessions that survive (docs/sessions.md): every chat and one-shot run is stored as an
//! append-only JSONL file of [`Record`]s, written as things happen, so it can be resumed, forked,
//! listed, exported, and compacted without forgetting anything.
//!
//! This module sits beside `llm` below `agent`: it stores the conversation's own types
//! ([`crate::llm::ChatMessage`]) and knows nothing of turns or terminals. `agent` writes records
//! through a `Journal`; `app` opens, lists and exports sessions; `ui` shows them.

pub(crate) mod compact;
pub(crate) mod context;
pub(crate) mod export;
pub(crate) mod freshness;
pub(crate) mod id;
pub(crate) mod load;
pub(crate) mod record;
pub mod replay;
pub(crate) mod store;
pub(crate) mod summary;
pub(crate) mod writer;

use std::path::PathBuf;

pub(crate) use id::SessionId;
pub(crate) use load::{LoadError, SessionFile};
pub use record::{CallUsage, Header, Interruption, Record};
pub use store::{NewSession, Opened, SessionStore};
pub(crate) use writer::Journal;

/// Why a session could not be stored, found or read.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        path: PathBuf,
        action: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("no session matches {0:?}; `agent sessions list` shows them")]
    NotFound(String),
    #[error(
        "{prefix:?} matches several sessions: {}{}; give more of the id",
        candidates.join(", "),
        if *more > 0 { format!(" and {more} more") } else { String::new() }
    )]
    Ambiguous {
        prefix: String,
        candidates: Vec<String>,
        more: usize,
    },
    #[error("{} is not a session file: {reason}", path.display())]
    Invalid { path: PathBuf, reason: LoadError },
    #[error("session {0} is in use by another running agent; end that one first")]
    InUse(String),
}
