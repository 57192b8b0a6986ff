//! Line editing for the chat: rustyline on a blocking thread, with history, Tab completion of
//! slash commands and skill names, and multi-line input (`\` continuation, `"""` blocks,
//! bracketed paste).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Context, EditMode, Editor, Helper, Highlighter, Hinter, Validator};

/// Why the line editor cannot start or read; each keeps the terminal's error beneath.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EditorError {
    #[error("cannot configure the line editor: {0}")]
    Configure(#[source] ReadlineError),
    #[error("cannot open the terminal for editing: {0}")]
    Open(#[source] ReadlineError),
    #[error("the line editor stopped: {0}")]
    Stopped(#[source] tokio::task::JoinError),
    #[error("cannot read the terminal: {0}")]
    Read(#[source] ReadlineError),
}

/// The prompt of a line that continues the input above it.
pub(crate) const CONTINUATION_PROMPT: &str = "… ";

/// Completion and multi-line rules.
#[derive(Helper, Hinter, Highlighter, Validator)]
pub(crate) struct ChatHelper {
    /// Slash command names (`/help`), completed at the start of a line.
    commands: Vec<&'static str>,
    skills: Arc<Mutex<Vec<String>>>,
    /// Skills offered as `/NAME` commands, with their argument hints.
    slash_skills: Arc<Mutex<Vec<SlashSkill>>>,
}

/// A skill offered as a slash command: `/deploy`, shown with its `argument-hint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SlashSkill {
    pub(crate) name: String,
    pub(crate) hint: Option<String>,
}

impl Completer for ChatHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        if let Some(partial) = before.strip_prefix("/skill ").filter(|p| !p.contains(' ')) {
            let skills = self.skills.lock().unwrap_or_else(|p| p.into_inner());
            let found = skills
                .iter()
                .filter(|s| s.starts_with(partial))
                .map(|s| Pair {
                    display: crate::support::terminal_text::visible(s).into_owned(),
                    replacement: format!("{s} "),
                })
                .collect();
            return Ok((7, found));
        }
        if before.starts_with('/') && !before.contains(' ') {
            let mut found: Vec<Pair> = self
                .commands
                .iter()
                .filter(|c| c.starts_with(before))
                .map(|c| Pair {
                    display: c.to_string(),
                    replacement: c.to_string(),
                })
                .collect();
            let skills = self.slash_skills.lock().unwrap_or_else(|p| p.into_inner());
            found.extend(
                skills
                    .iter()
                    .filter(|s| before[1..].len() <= s.name.len() && s.name.starts_with(&before[1..]))
                    .map(|s| {
                        let shown = crate::support::terminal_text::visible(&s.name).into_owned();
                        let hint = s
                            .hint
                            .as_deref()
                            .map(|h| format!(" {}", crate::support::terminal_text::visible(h)))
                            .unwrap_or_default();
                        Pair {
                            display: format!("/{shown}{hint}"),
                            replacement: format!("/{} ", s.name),
                        }
                    }),
            );
            return Ok((0, found));
        }
        Ok((pos, Vec::new()))
    }
}

/// Whether an input goes on: it ends with `\`, or opens a `"""` block it has not closed.
/// The editor then reads the next line under [`CONTINUATION_PROMPT`], as a shell's `PS2` does
/// (rustyline's own multi-line editing shows no prompt on the lines after the first).
pub(crate) fn needs_more(input: &str) -> bool {
    let open_block = input.trim_start().starts_with("\"\"\"") && input.matches("\"\"\"").count() % 2 == 1;
    open_block || input.ends_with('\\')
}

/// The message a finished input stands for: `"""` markers and continuation backslashes removed.
pub(crate) fn message_of(input: &str) -> String {
    let trimmed = input.trim();
    if let Some(inner) = trimmed.strip_prefix("\"\"\"").and_then(|r| r.strip_suffix("\"\"\"")) {
        return inner.trim_matches('\n').to_string();
    }
    input.replace("\\\n", "\n").trim().to_string()
}

/// What reading a line gave.
pub(crate) enum Input {
    Line(String),
    /// Ctrl-C at the prompt: the line was cleared.
    Cleared,
    /// Ctrl-D on an empty line.
    End,
}

/// A line editor shared with a blocking thread.
pub(crate) struct LineEditor {
    editor: Arc<Mutex<Editor<ChatHelper, FileHistory>>>,
    history: Option<PathBuf>,
    skills: Arc<Mutex<Vec<String>>>,
    slash_skills: Arc<Mutex<Vec<SlashSkill>>>,
}

impl LineEditor {
    /// `vi`: vi key bindings instead of emacs; `history`: the file to load and append to;
    /// `commands`: the slash commands Tab completes.
    pub(crate) fn new(vi: bool, history: Option<PathBuf>, commands: Vec<&'static str>) -> Result<Self, EditorError> {
        let config = Config::builder()
            .edit_mode(if vi { EditMode::Vi } else { EditMode::Emacs })
            .auto_add_history(false)
            .history_ignore_dups(true)
            .and_then(|b| b.max_history_size(5000))
            .map_err(EditorError::Configure)?
            .bracketed_paste(true)
            .completion_type(rustyline::CompletionType::List)
            .build();
        let mut editor: Editor<ChatHelper, FileHistory> = Editor::with_config(config).map_err(EditorError::Open)?;
        let skills = Arc::new(Mutex::new(Vec::new()));
        let slash_skills = Arc::new(Mutex::new(Vec::new()));
        editor.set_helper(Some(ChatHelper {
            commands,
            skills: skills.clone(),
            slash_skills: slash_skills.clone(),
        }));
        if let Some(path) = &history {
            // A missing file is the first session; anything else is worth a debug line only.
            if let Err(e) = editor.load_history(path) {
                tracing::debug!("history not loaded from {}: {e}", path.display());
            }
        }
        Ok(Self {
            editor: Arc::new(Mutex::new(editor)),
            history,
            skills,
            slash_skills,
        })
    }

    /// Read one input: a line, or several when it continues (`\` at the end, an open `"""`
    /// block), each further one under [`CONTINUATION_PROMPT`]. Ctrl-C drops the whole input;
    /// Ctrl-D on a continuation line ends it with what was typed so far.
    pub(crate) async fn read(&self, prompt: &str) -> Result<Input, EditorError> {
        let mut text = match self.read_line(prompt).await? {
            Input::Line(line) => line,
            other => return Ok(other),
        };
        while needs_more(&text) {
            match self.read_line(CONTINUATION_PROMPT).await? {
                Input::Line(more) => {
                    text.push('\n');
                    text.push_str(&more);
                }
                Input::Cleared => return Ok(Input::Cleared),
                Input::End => break,
            }
        }
        Ok(Input::Line(text))
    }

    /// Read what rustyline calls one line (a paste may hold several) on a blocking thread.
    async fn read_line(&self, prompt: &str) -> Result<Input, EditorError> {
        let editor = self.editor.clone();
        let prompt = prompt.to_string();
        let result = tokio::task::spawn_blocking(move || {
            let mut ed = editor.lock().unwrap_or_else(|p| p.into_inner());
            ed.readline(&prompt)
        })
        .await
        .map_err(EditorError::Stopped)?;
        match result {
            Ok(line) => Ok(Input::Line(line)),
            Err(ReadlineError::Interrupted) => Ok(Input::Cleared),
            Err(ReadlineError::Eof) => Ok(Input::End),
            Err(e) => Err(EditorError::Read(e)),
        }
    }

    /// The skill names Tab completes after `/skill `.
    pub(crate) fn set_skills(&self, names: Vec<String>) {
        *self.skills.lock().unwrap_or_else(|p| p.into_inner()) = names;
    }

    /// The skills Tab completes as `/NAME` at the start of a line.
    pub(crate) fn set_slash_skills(&self, skills: Vec<SlashSkill>) {
        *self.slash_skills.lock().unwrap_or_else(|p| p.into_inner()) = skills;
    }

    /// Remember an input (already stripped of secrets) in memory and in the history file.
    pub(crate) fn remember(&self, entry: &str) {
        let mut ed = self.editor.lock().unwrap_or_else(|p| p.into_inner());
        if !matches!(ed.add_history_entry(entry), Ok(true)) {
            return;
        }
        if let Some(path) = &self.history {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = ed.append_history(path) {
                tracing::debug!("history not saved to {}: {e}", path.display());
            }
        }
    }
}

/// `$XDG_STATE_HOME/agent/history`, else `~/.local/state/agent/history`.
pub(crate) fn history_path() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "agent")?;
    let state = dirs
        .state_dir()
        .map(PathBuf::from)
        .unwrap_or_else(|| dirs.data_local_dir().to_path_buf());
    Some(state.join("history"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_and_open_blocks_need_more() {
        assert!(needs_more("first \\"));
        assert!(needs_more("\"\"\"\nline one"));
        assert!(!needs_more("\"\"\"\nline one\n\"\"\""));
        assert!(!needs_more("plain"));
    }

    #[test]
    fn multi_line_inputs_become_one_message() {
        assert_eq!(message_of("first \\\nsecond"), "first \nsecond");
        assert_eq!(message_of("\"\"\"\nline one\nline two\n\"\"\""), "line one\nline two");
        assert_eq!(message_of("  plain  "), "plain");
    }
}
