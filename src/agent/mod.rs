//! The turn loop: a thin `Agent` over a `conversation::Conversation` (messages, budget,
//! activations) and a `tools::ToolRunner` whose calls come back as typed
//! `outcome::ToolOutcome`s; the catalog and prompts it sends; routing for `skills eval`. It
//! emits `output::Event`s and asks through `output::Approver`, never printing.

mod accounting;
mod catalog_turn;
pub(crate) mod compaction;
pub(crate) mod controls;
pub(crate) mod conversation;
mod fork;
pub(crate) mod grounding;
mod guided;
pub(crate) mod hooked;
pub(crate) mod outcome;
pub mod prompt;
mod recover;
pub(crate) mod retrieve;
pub(crate) mod route;
mod second_chance;
pub(crate) mod session;
pub(crate) mod text_calls;
pub mod tools;
pub(crate) mod turn;

pub(crate) use turn::{Agent, AgentOptions, TurnError};
