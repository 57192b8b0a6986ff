//! The turn loop: conversation, tool dispatch, and the events every front end consumes.

pub mod conversation;
pub mod prompt;
pub mod route;
pub mod tools;
pub mod turn;

pub use turn::{Agent, AgentOptions, TurnError};
