//! The turn loop: a thin [`Agent`] over a [`conversation::Conversation`] (messages, budget,
//! activations) and a [`tools::ToolRunner`] whose calls come back as typed
//! [`outcome::ToolOutcome`]s; the catalog and prompts it sends; routing for `skills eval`. It
//! emits `output::Event`s and asks through `output::Approver`, never printing.

mod catalog_turn;
pub mod compaction;
pub mod controls;
pub mod conversation;
pub mod grounding;
pub mod outcome;
pub mod prompt;
mod recover;
pub mod retrieve;
pub mod route;
mod second_chance;
pub mod session;
pub mod text_calls;
pub mod tools;
pub mod turn;

pub use outcome::ToolOutcome;
pub use turn::{Agent, AgentOptions, TurnError};
