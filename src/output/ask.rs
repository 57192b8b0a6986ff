//! What a front end is asked: whether a command may run, whether a folder may be trusted. The
//! agent asks through [`Approver`]; `ui` implements it on the terminal.

use crate::exec::sandbox::Policy;
use crate::exec::trust::Assessment;

/// What a person is asked before a command runs.
#[derive(Debug, Clone)]
pub(crate) struct ApprovalRequest {
    pub(crate) skill: String,
    pub(crate) command: String,
    pub(crate) cwd: String,
    /// What the command will be allowed to write and reach.
    pub(crate) sandbox: Policy,
}

/// Asks a person whether a command may run. Called on a blocking thread.
pub(crate) trait Approver: Send + Sync {
    /// Whether a person is there to ask at all.
    fn can_ask(&self) -> bool;
    /// Whether an approval question of a command or tool call would be answered: a person is
    /// there, or a hook already answered it (docs/hooks.md#allow-and-our-own-policy). Never
    /// asked about trust.
    fn can_answer(&self) -> bool {
        self.can_ask()
    }
    /// Ask; `true` means run it.
    fn ask(&self, request: &ApprovalRequest) -> bool;
    /// Ask whether a folder (its `.env` and project skills) may be trusted, showing what changed.
    fn ask_trust(&self, assessment: &Assessment) -> bool;
    /// Ask a yes/no question (an installed skill changed: trust it as it is now?); `true` is yes.
    fn ask_yes_no(&self, _question: &str) -> bool {
        false
    }
    /// Ask whether a tool call (an MCP server's tool, `key` its name for the model) may run,
    /// `question` showing the call; the person may answer "always" for that tool this session.
    fn ask_tool(&self, _key: &str, question: &str) -> bool {
        self.ask_yes_no(question)
    }
    /// Skills (and MCP tools, by their names for the model) the person answered "always" for,
    /// this session (stored with it).
    fn always_granted(&self) -> Vec<String> {
        Vec::new()
    }
    /// Take up "always" answers given before, in the session being resumed.
    fn allow_always(&self, _skills: &[String]) {}
    /// Whether the front end holds the user's files as they are being edited (an editor's
    /// buffers, saved or not) and gives them to [`Approver::read_buffer`].
    fn reads_buffers(&self) -> bool {
        false
    }
    /// The text of the file at `path` (absolute, inside the working folder) as the front end
    /// holds it; `None` means read the disk. Called on a blocking thread.
    fn read_buffer(&self, _path: &std::path::Path) -> Option<String> {
        None
    }
}
