//! Small leaf helpers that several layers share. Nothing here imports from the rest of the crate.

pub mod cache_file;
pub mod children;
pub mod fs;
pub mod phases;
pub mod public_url;
pub mod redact;
pub mod terminal_text;
pub mod tls;
pub mod yaml;
