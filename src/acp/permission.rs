//! The agent's questions asked in the editor: `session/request_permission`. The answer goes into
//! the same approval layer as a terminal's: only what our policy would ask about is asked, so no
//! editor can allow what `--approve no`, the sandbox, a deny rule or a hook refuses
//! (docs/design.md#approval-boundary).

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, ReadTextFileRequest, RequestPermissionOutcome, RequestPermissionRequest,
    ToolCall, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use serde_json::json;

use super::lock;
use super::updates::Editor;
use crate::exec::trust::Assessment;
use crate::output::{ApprovalRequest, Approver};

/// The ids of the options offered.
const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT: &str = "reject_once";

/// What the editor answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Once,
    Always,
    No,
}

/// Asks the editor of one session.
pub(crate) struct EditorApprover {
    editor: Arc<Editor>,
    /// Where the question is sent from: approvals are asked on a blocking thread.
    runtime: tokio::runtime::Handle,
    /// Skills (and MCP tools) answered "always" for, this session.
    always: Mutex<HashSet<String>>,
    /// The editor reads files for us (`fs/read_text_file`): its buffers, saved or not.
    reads_files: bool,
}

impl EditorApprover {
    /// Must be made on the runtime (it keeps a handle to it). `reads_files`: the client said it
    /// serves `fs/read_text_file`.
    pub(crate) fn new(editor: Arc<Editor>, reads_files: bool) -> Self {
        Self {
            editor,
            runtime: tokio::runtime::Handle::current(),
            always: Mutex::default(),
            reads_files,
        }
    }

    /// Announce `call` and ask about it with `options`; blocks until the editor answers (a
    /// cancelled question, an editor gone, is no).
    fn ask_about(&self, call: ToolCall, always: Option<&str>) -> Answer {
        let Some(session) = self.editor.session().cloned() else {
            return Answer::No;
        };
        let id = call.tool_call_id.clone();
        let title = call.title.clone();
        self.editor.announce(call);
        let mut options = vec![PermissionOption::new(
            ALLOW_ONCE,
            "Allow once",
            PermissionOptionKind::AllowOnce,
        )];
        if let Some(what) = always {
            options.push(PermissionOption::new(
                ALLOW_ALWAYS,
                format!("Always allow {what} this session"),
                PermissionOptionKind::AllowAlways,
            ));
        }
        options.push(PermissionOption::new(
            REJECT,
            "Reject",
            PermissionOptionKind::RejectOnce,
        ));
        let request = RequestPermissionRequest::new(
            session,
            ToolCallUpdate::new(id, ToolCallUpdateFields::new().title(title)),
            options,
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let cx = self.editor.connection().clone();
        self.runtime.spawn(async move {
            let _ = tx.send(cx.send_request(request).block_task().await);
        });
        match rx.recv() {
            Ok(Ok(response)) => match response.outcome {
                RequestPermissionOutcome::Selected(chosen) => match chosen.option_id.0.as_ref() {
                    ALLOW_ONCE => Answer::Once,
                    ALLOW_ALWAYS if always.is_some() => Answer::Always,
                    _ => Answer::No,
                },
                _ => Answer::No,
            },
            Ok(Err(e)) => {
                tracing::debug!("permission request failed: {e}");
                Answer::No
            }
            Err(_) => Answer::No,
        }
    }

    /// Ask about a call that may be answered "always" for `key`; `true` means go ahead.
    fn ask_call(&self, key: &str, call: ToolCall, always_label: &str) -> bool {
        if lock(&self.always).contains(key) {
            return true;
        }
        match self.ask_about(call, Some(always_label)) {
            Answer::Always => {
                lock(&self.always).insert(key.to_string());
                true
            }
            Answer::Once => true,
            Answer::No => {
                // The denial itself is said by the turn's own event (command_denied …).
                false
            }
        }
    }

    /// Ask a question that is no tool call (a folder's trust, an installed skill changed): its
    /// call is over once answered.
    fn ask_question(&self, title: String) -> bool {
        let id = self.editor.new_call();
        let call = ToolCall::new(id.clone(), title)
            .kind(ToolKind::Think)
            .status(ToolCallStatus::Pending);
        let yes = self.ask_about(call, None) != Answer::No;
        self.editor.settle(id, yes);
        yes
    }
}

impl Approver for EditorApprover {
    /// An editor is connected: it is asked.
    fn can_ask(&self) -> bool {
        true
    }

    fn ask(&self, request: &ApprovalRequest) -> bool {
        let call = ToolCall::new(self.editor.new_call(), request.command.clone())
            .kind(ToolKind::Execute)
            .status(ToolCallStatus::Pending)
            .raw_input(json!({ "command": request.command, "skill": request.skill, "cwd": request.cwd }));
        let skill = request.skill.clone();
        self.ask_call(&skill, call, &format!("skill {skill}"))
    }

    fn ask_trust(&self, assessment: &Assessment) -> bool {
        self.ask_question(trust_question(assessment))
    }

    fn ask_yes_no(&self, question: &str) -> bool {
        self.ask_question(question.to_string())
    }

    fn ask_tool(&self, key: &str, question: &str) -> bool {
        let call = ToolCall::new(self.editor.new_call(), question.to_string())
            .kind(ToolKind::Other)
            .status(ToolCallStatus::Pending);
        self.ask_call(key, call, key)
    }

    fn always_granted(&self) -> Vec<String> {
        let mut granted: Vec<String> = lock(&self.always).iter().cloned().collect();
        granted.sort();
        granted
    }

    fn allow_always(&self, skills: &[String]) {
        lock(&self.always).extend(skills.iter().cloned());
    }

    fn reads_buffers(&self) -> bool {
        self.reads_files
    }

    /// `fs/read_text_file`: the file as the editor has it; an error (a file it cannot read) is a
    /// read of the disk instead.
    fn read_buffer(&self, path: &Path) -> Option<String> {
        let session = self.editor.session().cloned()?;
        let request = ReadTextFileRequest::new(session, path.to_path_buf());
        let (tx, rx) = std::sync::mpsc::channel();
        let cx = self.editor.connection().clone();
        self.runtime.spawn(async move {
            let _ = tx.send(cx.send_request(request).block_task().await);
        });
        match rx.recv() {
            Ok(Ok(response)) => Some(response.content),
            Ok(Err(e)) => {
                tracing::debug!("fs/read_text_file of {} failed: {e}", path.display());
                None
            }
            Err(_) => None,
        }
    }
}

/// The trust question as the editor shows it: the folder, what it would add, what yes means.
fn trust_question(a: &Assessment) -> String {
    let mut q = format!("Trust the folder {}?", a.folder.display());
    let skills: Vec<&str> = a
        .changes
        .new_skills
        .iter()
        .chain(&a.changes.changed_skills)
        .map(String::as_str)
        .collect();
    if !skills.is_empty() {
        q.push_str(&format!(" New or changed: {}.", skills.join(", ")));
    }
    if a.changes.dotenv.is_some() {
        q.push_str(" Its .env would be used.");
    }
    q.push_str(" Its skills may then run commands and its hooks run; a change asks again.");
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::trust::{Snapshot, assess};

    #[test]
    fn the_trust_question_names_the_folder_and_the_skills_it_would_let_run() {
        let snapshot = Snapshot {
            skills: [("skills/deploy".to_string(), "h".to_string())].into(),
            ..Snapshot::default()
        };
        let q = trust_question(&assess(Path::new("/r"), snapshot, None));
        assert!(q.starts_with("Trust the folder /r?"), "{q}");
        assert!(q.contains("New or changed: skills/deploy."), "{q}");
        assert!(!q.contains(".env"), "{q}");
    }
}
