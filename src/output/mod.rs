//! The one vocabulary of everything the program says, below both `app` and `ui`: the turn's
//! [`Event`]s, the [`Report`]s of subcommands and chat commands, the [`Output`] the renderers
//! implement, and the questions a front end is asked ([`Approver`]).
//!
//! Nothing here prints: `ui::human` and `ui::json` are the only implementations of [`Output`]
//! that write, so `agent` emits events and `app` reports results without knowing how (or whether)
//! they are shown.

pub mod ask;
pub mod audit;
pub mod chat;
pub mod event;
pub mod library;
pub mod mcp;
pub mod report;
pub mod session;

pub use ask::{ApprovalRequest, Approver};
pub use chat::ChatReply;
pub use event::Event;
pub use report::Report;

/// Receives a turn's events as they happen.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: Event);
}

/// Everything a run says: its events, and the reports of commands.
pub trait Output: EventSink {
    /// Show a command's result.
    fn report(&self, report: Report);
    /// A hint that the run now waits (for the model, a command) under `label`; a renderer may
    /// show a spinner until its next output.
    fn waiting(&self, _label: &str) {}
}

/// Drops every event: for runs whose results are reported per case, not per event (`skills
/// eval`), and for tests.
pub struct Quiet;

impl EventSink for Quiet {
    fn emit(&self, _event: Event) {}
}
