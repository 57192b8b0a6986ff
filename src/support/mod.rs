//! Small leaf helpers that several layers share. Nothing here imports from the rest of the crate.

pub mod cache_file;
pub(crate) mod children;
pub(crate) mod fs;
pub(crate) mod json;
pub mod money;
pub mod phases;
pub(crate) mod public_url;
pub mod redact;
pub(crate) mod terminal_text;
pub mod tls;
pub(crate) mod yaml;
