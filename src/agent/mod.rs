//! The turn loop: conversation, tool dispatch, and the events every front end consumes.

pub mod conversation;
pub mod event;
pub mod prompt;
pub mod route;
pub mod tools;
pub mod turn;

pub use event::{Approver, Event, EventSink};
pub use turn::{Agent, AgentOptions, TurnError};
