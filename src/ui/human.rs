//! Human output: the answer on stdout as it streams (markdown styled on a terminal), progress on
//! stderr, with a spinner while waiting for the model or a command; subcommand results on stdout
//! and chat replies on stderr, worded by `report_text`.
//!
//! Every piece of text in an event came from outside (the model, a skill, a command, a server), so
//! it is redacted and made safe for the terminal (docs/design.md#secrets, #terminal-output) before
//! it is styled or printed.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::live_tail::LiveTail;
use super::markdown::MarkdownStream;
use super::report_text::{Screen, render};
use super::skill_list::terminal_width;
use crate::output::{Event, EventSink, Output, Report};
use crate::support::redact::Redactor;
use crate::support::terminal_text::{for_terminal, visible};

struct State {
    /// Whether the last byte written to stdout was a newline (or nothing was written).
    at_line_start: bool,
    /// Piped stdout: a tool step came between two parts of the answer; start the next on a new line.
    break_before_text: bool,
    markdown: MarkdownStream,
    spinner: Option<ProgressBar>,
    /// A command is running under the spinner: the last lines of its output, shown below it.
    tail: Option<LiveTail>,
}

/// Renders events for a person.
pub(crate) struct HumanRenderer {
    state: Mutex<State>,
    verbose: bool,
    spinners: bool,
    /// stdout is a terminal shared with stderr: a progress line first ends the answer's line.
    stdout_tty: bool,
    redactor: Redactor,
}

impl HumanRenderer {
    /// Spinners only when stderr is a terminal; markdown styling only when stdout is one and
    /// `NO_COLOR` is unset. `redactor` is applied to every line.
    pub(crate) fn new(verbose: bool, redactor: Redactor) -> Self {
        let styled = std::io::stdout().is_terminal() && console::colors_enabled();
        let width = console::Term::stdout().size().1 as usize;
        Self {
            state: Mutex::new(State {
                at_line_start: true,
                break_before_text: false,
                markdown: MarkdownStream::new(styled, width),
                spinner: None,
                tail: None,
            }),
            verbose,
            spinners: std::io::stderr().is_terminal(),
            stdout_tty: std::io::stdout().is_terminal(),
            redactor,
        }
    }

    /// Outside text for one line: secrets redacted, anything invisible (newlines too) escaped.
    fn one_line(&self, text: &str) -> String {
        visible(&self.redactor.redact(text)).into_owned()
    }

    /// Outside text over several lines: secrets redacted, controls escaped, newlines kept.
    fn lines(&self, text: &str) -> String {
        for_terminal(&self.redactor.redact(text)).into_owned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Show a spinner with `label` and the elapsed time until the next output.
    pub(crate) fn wait(&self, label: &str) {
        if !self.spinners {
            return;
        }
        let mut state = self.lock();
        if let Some(old) = state.spinner.take() {
            old.finish_and_clear();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        // The message is a running command's tail, on the lines below the label.
        let style = ProgressStyle::with_template("{spinner} {prefix} {elapsed}{msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_prefix(label.to_string());
        bar.enable_steady_tick(Duration::from_millis(100));
        state.spinner = Some(bar);
    }

    /// Remove the spinner (before anything else is written, or a question is asked).
    pub(crate) fn stop_waiting(&self) {
        self.stop_waiting_keeping_tail();
    }

    /// Remove the spinner; a running command's tail is written in its place, to stay in the
    /// transcript (the command ended, or was interrupted). Returns the tail's lines as shown.
    fn stop_waiting_keeping_tail(&self) -> Vec<String> {
        let (bar, tail) = {
            let mut state = self.lock();
            (state.spinner.take(), state.tail.take())
        };
        if let Some(bar) = bar {
            bar.finish_and_clear();
            // After Ctrl-C the terminal may have echoed into the spinner's line; wipe it for sure.
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
        let lines: Vec<String> = tail
            .map(|t| t.lines().iter().map(|l| self.one_line(l)).collect())
            .unwrap_or_default();
        let mut err = std::io::stderr().lock();
        for line in &lines {
            let _ = writeln!(err, "{}", tail_line(line));
        }
        lines
    }

    /// A piece of a running command's output: the spinner shows the tail's last lines under it.
    fn command_output(&self, text: &str) {
        let mut state = self.lock();
        let Some(tail) = state.tail.as_mut() else {
            return;
        };
        tail.push(text);
        let shown: String = tail
            .lines()
            .iter()
            .map(|l| format!("\n{}", tail_line(&self.one_line(l))))
            .collect();
        if let Some(bar) = &state.spinner {
            bar.set_message(shown);
        }
    }

    fn end_stdout_line(state: &mut State) {
        let tail = state.markdown.finish();
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(tail.as_bytes());
        if !state.at_line_start {
            let _ = out.write_all(b"\n");
            state.at_line_start = true;
        }
        let _ = out.flush();
    }

    /// A line on stderr. On a terminal it starts below the answer so far; when stdout is piped,
    /// stdout is left alone (a retry notice must not split the answer), and only a tool step
    /// (`step`) makes the answer's next part start on a new line.
    fn progress_line(&self, line: &str, step: bool) {
        self.stop_waiting();
        let mut state = self.lock();
        if self.stdout_tty {
            Self::end_stdout_line(&mut state);
        } else if step && !state.at_line_start {
            state.break_before_text = true;
        }
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }

    /// A tool step on stderr.
    fn progress(&self, line: &str) {
        self.progress_line(line, true);
    }

    /// A warning or error on stderr: not a step of the answer.
    fn notice(&self, line: &str) {
        self.progress_line(line, false);
    }
}

impl HumanRenderer {
    /// How a command ended, and why it failed when it did (the end of its stderr, dimmed).
    fn command_finished(&self, event: &Event) {
        let Event::CommandFinished {
            exit_code,
            signal,
            duration_ms,
            stdout_bytes,
            timed_out,
            stderr_tail,
            stdout_tail,
            sandbox_hint,
            ..
        } = event
        else {
            return;
        };
        let status = match (timed_out, exit_code, signal) {
            (true, _, _) => "timed out, killed".to_string(),
            (_, Some(code), _) => format!("exit {code}"),
            (_, None, Some(sig)) => format!("killed by signal {sig}"),
            _ => "finished".to_string(),
        };
        let shown = self.stop_waiting_keeping_tail();
        self.progress(&format!(
            "  {status} · {:.1}s · {} out",
            *duration_ms as f64 / 1000.0,
            human_bytes(*stdout_bytes)
        ));
        if *timed_out || *exit_code != Some(0) {
            // Many scripts print their error on stdout: with stderr empty, its end says why.
            let why = if stderr_tail.is_empty() {
                stdout_tail
            } else {
                stderr_tail
            };
            // Lines the live tail already left on screen are not said twice.
            for line in why.iter().filter(|l| !shown.contains(&self.one_line(l))) {
                let shown = format!("  │ {}", visible(line));
                self.progress(&console::style(shown).for_stderr().dim().to_string());
            }
        }
        if let Some(hint) = sandbox_hint {
            self.progress(&format!("  {}", visible(hint)));
        }
        self.wait("thinking");
    }

    /// A piece of the answer on stdout, markdown styled on a terminal.
    fn delta(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.stop_waiting();
        // Made safe before styling: the styles are ours, the text is the model's. Escapes
        // are single characters, so one split across two deltas is caught in either half.
        let safe = for_terminal(&text.replace("\r\n", "\n")).into_owned();
        let mut state = self.lock();
        let rendered = state.markdown.push(&safe);
        let mut out = std::io::stdout().lock();
        if std::mem::take(&mut state.break_before_text) {
            let _ = out.write_all(b"\n");
        }
        let _ = out.write_all(rendered.as_bytes());
        let _ = out.flush();
        state.at_line_start = text.ends_with('\n');
    }
}

fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

impl HumanRenderer {
    /// A skill activated, or a `context: fork` skill's sub-conversation starting or ending.
    fn activation(&self, event: &Event) {
        match event {
            Event::SkillSelected { skill, dir } => {
                self.progress(&format!("▸ skill {} ({})", self.one_line(skill), self.one_line(dir)));
            }
            Event::ForkStarted { skill, model } => self.progress(&format!(
                "▸ skill {} runs on its own (model {})",
                self.one_line(skill),
                self.one_line(model)
            )),
            Event::ForkFinished { skill, steps } => self.progress(&format!(
                "◂ skill {} answered after {steps} tool steps",
                self.one_line(skill)
            )),
            _ => {}
        }
        self.wait("thinking");
    }
}

impl EventSink for HumanRenderer {
    fn emit(&self, event: Event) {
        match event {
            session @ Event::Session { .. } => self.session(session),
            skill @ (Event::SkillSelected { .. } | Event::ForkStarted { .. } | Event::ForkFinished { .. }) => {
                self.activation(&skill);
            }
            Event::CommandStarted {
                skill,
                command,
                contained,
                ..
            } => {
                let command = self.one_line(&command);
                // Said, so a person sees which commands ran unasked inside the tighter walls.
                let walls = if contained { " (contained by the sandbox)" } else { "" };
                self.progress(&format!("▸ run [{}] {command}{walls}", self.one_line(&skill)));
                let shown: String = command.chars().take(60).collect();
                self.wait(&format!("running {shown}"));
                if self.spinners {
                    self.lock().tail = Some(LiveTail::default());
                }
            }
            Event::CommandOutput { text } => self.command_output(&text),
            finished @ Event::CommandFinished { .. } => self.command_finished(&finished),
            Event::CommandDenied { command, reason, .. } => {
                self.progress(&format!(
                    "✗ not run: {} — {}",
                    self.one_line(&command),
                    self.lines(&reason)
                ));
                self.wait("thinking");
            }
            Event::FileTool { tool, path, bytes } => self.file_tool(&tool, &path, bytes),
            Event::ToolCallRecovered { tool, shape, .. } => {
                self.progress(&format!(
                    "▸ the model wrote a call of {} as text ({shape}): running it as that call",
                    self.one_line(&tool)
                ));
                self.wait("thinking");
            }
            Event::AnswerUnverified { reason, .. } => {
                self.notice(&format!("warning: unverified answer: {}", self.lines(&reason)));
            }
            Event::AnswerRetried { reason } => {
                self.progress(&format!(
                    "▸ not taken as the answer ({}): asking the model once more",
                    self.one_line(&reason)
                ));
                self.wait("thinking");
            }
            Event::HookBlocked { .. } | Event::HookFailed { .. } => self.hook_event(event),
            Event::McpCallStarted { .. } | Event::McpCallFinished { .. } | Event::McpCallDenied { .. } => {
                self.mcp_event(event);
            }
            Event::MessageDelta { text } => self.delta(&text),
            Event::Message { .. } | Event::Done { .. } => {
                self.stop_waiting();
                let mut state = self.lock();
                state.break_before_text = false;
                Self::end_stdout_line(&mut state);
            }
            Event::Warning { message } => self.notice(&format!("warning: {}", self.lines(&message))),
            Event::Error { message, causes, .. } => self.error(&message, &causes),
        }
    }
}

impl HumanRenderer {
    /// `error: …`, then a `caused by: …` line for each cause the message does not already say.
    fn error(&self, message: &str, causes: &[String]) {
        // The answer (if any) ends before the error is reported.
        self.progress(&format!("error: {}", self.lines(message)));
        for cause in causes {
            self.progress(&format!("  caused by: {}", self.lines(cause)));
        }
        Self::end_stdout_line(&mut self.lock());
    }
}

/// One line of a command's output as the transcript shows it: indented under the command, cut to
/// the terminal's width (a wrapped line would throw off the spinner's redraw), dimmed.
fn tail_line(line: &str) -> String {
    let width = terminal_width(&console::Term::stderr()).saturating_sub(1);
    let line = format!("  │ {line}");
    let cut = console::truncate_str(&line, width, "…");
    console::style(cut).for_stderr().dim().to_string()
}

impl HumanRenderer {
    /// An MCP tool call's progress: what is called, and one line when it fails or is refused.
    /// One progress line for what a file tool did.
    fn file_tool(&self, tool: &str, path: &str, bytes: u64) {
        let path = self.one_line(path);
        self.progress(&match tool {
            "Write" | "Edit" => format!("▸ {tool} {path} ({bytes} B)"),
            "Glob" | "Grep" => format!("▸ {tool} in {path}: {bytes} found"),
            _ => format!("▸ {tool} {path}"),
        });
        self.wait("thinking");
    }

    /// With `-v`, what the session runs with: the model, the server, the skills, the sandbox.
    fn session(&self, event: Event) {
        if let Event::Session {
            model,
            base_url,
            skills,
            sandbox,
            sandbox_mode,
            ..
        } = event
            && self.verbose
        {
            let (model, url) = (self.one_line(&model), self.one_line(&base_url));
            let sandbox = self.one_line(&sandbox);
            self.progress(&format!(
                "· {model} at {url}, {skills} skills, sandbox {sandbox_mode} ({sandbox})"
            ));
        }
    }

    /// A hook that blocked (progress on stderr), or one that failed (one warning line: a guard that
    /// crashes must never be silent).
    fn hook_event(&self, event: Event) {
        match event {
            Event::HookBlocked {
                event, tool, reason, ..
            } => {
                let what = tool.map(|t| format!(" ({})", self.one_line(&t))).unwrap_or_default();
                self.progress(&format!("✗ {event} hook{what} blocked: {}", self.lines(&reason)));
                self.wait("thinking");
            }
            Event::HookFailed {
                event,
                command,
                message,
                blocked,
                ..
            } => {
                let then = if blocked {
                    "blocked (fails closed)"
                } else {
                    "the call went on"
                };
                self.notice(&format!(
                    "warning: {event} hook `{}` failed: {}; {then}",
                    self.one_line(&command),
                    self.one_line(&message)
                ));
            }
            _ => {}
        }
    }

    fn mcp_event(&self, event: Event) {
        match event {
            Event::McpCallStarted {
                server,
                tool,
                arguments,
            } => {
                let args: String = self.one_line(&arguments).chars().take(200).collect();
                self.progress(&format!(
                    "▸ mcp [{}] {} {args}",
                    self.one_line(&server),
                    self.one_line(&tool)
                ));
                self.wait(&format!("waiting for {}", self.one_line(&server)));
            }
            Event::McpCallFinished {
                server, tool, error, ..
            } => {
                if let Some(error) = error {
                    self.progress(&format!(
                        "✗ mcp [{}] {} failed: {}",
                        self.one_line(&server),
                        self.one_line(&tool),
                        self.one_line(&error)
                    ));
                }
                self.wait("thinking");
            }
            Event::McpCallDenied { server, tool, reason } => {
                self.progress(&format!(
                    "✗ not run: mcp [{}] {} — {}",
                    self.one_line(&server),
                    self.one_line(&tool),
                    self.lines(&reason)
                ));
                self.wait("thinking");
            }
            _ => {}
        }
    }
}

impl Output for HumanRenderer {
    fn report(&self, report: Report) {
        if let Report::Text(text) = &report {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            return;
        }
        let screen = Screen {
            stdout_tty: self.stdout_tty,
            stdout_width: terminal_width(&console::Term::stdout()),
            stderr_width: terminal_width(&console::Term::stderr()),
        };
        let text = render(&report, screen);
        if matches!(report, Report::Chat(_)) {
            // Between turns, but after an answer: the same line discipline as progress.
            for line in &text.err {
                self.notice(&self.redactor.redact(line));
            }
            return;
        }
        let mut out = std::io::stdout().lock();
        for line in &text.out {
            let _ = writeln!(out, "{}", self.redactor.redact(line));
        }
        let _ = out.flush();
        let mut err = std::io::stderr().lock();
        for line in &text.err {
            let _ = writeln!(err, "{}", self.redactor.redact(line));
        }
    }

    fn waiting(&self, label: &str) {
        self.wait(label);
    }
}
