//! Front ends: the human and JSON renderers, terminal prompts (approval, folder trust), line
//! editing, markdown and tables. Nothing here decides what the program does.

pub mod approve;
pub mod human;
pub mod json;
pub mod line_editor;
pub mod markdown;
pub mod skill_list;
pub mod table;
pub mod tty;
