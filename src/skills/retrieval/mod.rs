//! Retrieval: finding the skills a request is about (docs/design.md#retrieval). The lexical
//! index ([`search`], BM25F, cached), the fusion of its scores with embedding similarity
//! ([`rank`]) and the skill vectors kept between runs (`embed_cache`). Nothing here talks to a
//! server: `agent::retrieve` fetches the embeddings through `llm` and ranks through here.

pub(crate) mod embed_cache;
pub mod rank;
pub mod search;
