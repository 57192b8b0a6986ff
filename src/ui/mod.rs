//! Front ends: the human and JSON renderers, terminal prompts (approval, folder trust), line
//! editing, markdown and tables. Nothing here decides what the program does; these are the only
//! modules that write to stdout, stderr or the terminal.

pub(crate) mod approve;
pub(crate) mod audit_text;
mod chat_text;
mod eval_text;
pub(crate) mod hooks_text;
pub(crate) mod human;
pub(crate) mod json;
pub(crate) mod library_text;
pub(crate) mod line_editor;
pub(crate) mod live_tail;
pub(crate) mod markdown;
pub(crate) mod mcp_text;
pub(crate) mod pick;
pub(crate) mod report_text;
pub(crate) mod sandbox_text;
pub(crate) mod session_text;
pub(crate) mod skill_list;
pub(crate) mod table;
pub(crate) mod tty;

use std::sync::Arc;

use crate::output::{Approver, Output};
use crate::support::redact::Redactor;
use approve::TerminalApprover;
use human::HumanRenderer;
use json::JsonWriter;

/// How a run's front end speaks: what [`Frontend::new`] takes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FrontendOptions {
    /// JSON lines on stdout instead of text for a person.
    pub(crate) json: bool,
    /// The command prints one JSON document (a listing), so JSON mode keeps warnings off stdout.
    pub(crate) document: bool,
    /// Text for a person shows the session line too.
    pub(crate) verbose: bool,
}

/// The front end of one run: where everything it says goes, and how a person is asked.
#[derive(Clone)]
pub(crate) struct Frontend {
    /// Every event and report of the run.
    pub(crate) output: Arc<dyn Output>,
    /// The human renderer when there is one: the approval prompt clears its spinner first.
    human: Option<Arc<HumanRenderer>>,
    /// Who is asked instead of the terminal (an editor's session, `agent acp`).
    approver: Option<Arc<dyn Approver>>,
}

impl Frontend {
    /// Text for a person or JSON lines, as `options` say; `redactor` is applied to everything shown.
    pub(crate) fn new(options: FrontendOptions, redactor: Redactor) -> Self {
        if options.json {
            return Self {
                output: Arc::new(JsonWriter::new(redactor, options.document)),
                human: None,
                approver: None,
            };
        }
        let human = Arc::new(HumanRenderer::new(options.verbose, redactor));
        Self {
            output: human.clone(),
            human: Some(human),
            approver: None,
        }
    }

    /// Another front end's (an editor's, `agent acp`): everything said goes to `output`, every
    /// question to `approver`; nothing is written to the terminal.
    pub(crate) fn editor(output: Arc<dyn Output>, approver: Arc<dyn Approver>) -> Self {
        Self {
            output,
            human: None,
            approver: Some(approver),
        }
    }

    /// Who is asked before a command runs: the terminal when `interactive`, else nobody (every
    /// command that needs a yes is denied).
    pub(crate) fn approver(&self, interactive: bool) -> Arc<dyn Approver> {
        if let Some(approver) = &self.approver {
            return approver.clone();
        }
        Arc::new(TerminalApprover::new(interactive, self.human.clone()))
    }

    /// Who `skills add` and `skills update` ask: the terminal when `interactive`, else nobody.
    pub(crate) fn library_asker(&self, interactive: bool) -> library_text::TerminalLibraryAsker {
        library_text::TerminalLibraryAsker { interactive }
    }
}
