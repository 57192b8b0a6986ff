//! Front ends: human and JSON renderers of the event stream, terminal approval, the session runners.

pub mod approve;
pub mod endpoint;
pub mod eval_cmd;
pub mod folder_trust;
pub mod human;
pub mod install;
pub mod json;
pub mod line_editor;
pub mod markdown;
pub mod repl;
pub mod session;
pub mod skill_list;
pub mod skill_new;
pub mod skills_cmd;
pub mod table;
pub mod tty;
