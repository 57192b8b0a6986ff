//! The one vocabulary of everything the program says, below both `app` and `ui`: the turn's
//! `Event`s, the `Report`s of subcommands and chat commands, the `Output` the renderers
//! implement, and the questions a front end is asked (`Approver`).
//!
//! Nothing here prints: `ui::human` and `ui::json` are the only implementations of `Output`
//! that write, so `agent` emits events and `app` reports results without knowing how (or whether)
//! they are shown.

pub(crate) mod ask;
pub(crate) mod audit;
pub(crate) mod chat;
pub(crate) mod event;
pub(crate) mod hooks;
pub(crate) mod library;
pub(crate) mod mcp;
pub(crate) mod report;
pub(crate) mod session;

pub(crate) use ask::{ApprovalRequest, Approver};
pub(crate) use chat::ChatReply;
pub(crate) use event::Event;
pub(crate) use report::Report;

/// Receives a turn's events as they happen.
pub(crate) trait EventSink: Send + Sync {
    fn emit(&self, event: Event);
}

/// Everything a run says: its events, and the reports of commands.
pub(crate) trait Output: EventSink {
    /// Show a command's result.
    fn report(&self, report: Report);
    /// A hint that the run now waits (for the model, a command) under `label`; a renderer may
    /// show a spinner until its next output.
    fn waiting(&self, _label: &str) {}
}

/// Drops every event: for runs whose results are reported per case, not per event (`skills
/// eval`), and for tests.
pub(crate) struct Quiet;

impl EventSink for Quiet {
    fn emit(&self, _event: Event) {}
}
