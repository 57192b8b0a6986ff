//! Front ends: human and JSON renderers of the event stream, terminal approval, the session runners.

pub mod approve;
pub mod eval_cmd;
pub mod folder_trust;
pub mod human;
pub mod json;
pub mod line_editor;
pub mod markdown;
pub mod repl;
pub mod session;
pub mod skills_cmd;
pub mod tty;
