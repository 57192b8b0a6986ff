//! Human output: the answer on stdout as it streams, progress on stderr.

use std::io::Write;
use std::sync::Mutex;

use crate::agent::{Event, EventSink};

/// Renders events for a person.
pub struct HumanRenderer {
    /// Whether the last byte written to stdout was a newline (or nothing was written).
    at_line_start: Mutex<bool>,
    verbose: bool,
}

impl HumanRenderer {
    pub fn new(verbose: bool) -> Self {
        Self {
            at_line_start: Mutex::new(true),
            verbose,
        }
    }

    fn end_stdout_line(&self) {
        let mut at_start = self.at_line_start.lock().unwrap_or_else(|p| p.into_inner());
        if !*at_start {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(b"\n");
            let _ = out.flush();
            *at_start = true;
        }
    }

    fn progress(&self, line: &str) {
        self.end_stdout_line();
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

impl EventSink for HumanRenderer {
    fn emit(&self, event: Event) {
        match event {
            Event::Session {
                model,
                base_url,
                skills,
                ..
            } => {
                if self.verbose {
                    self.progress(&format!("· {model} at {base_url}, {skills} skills"));
                }
            }
            Event::SkillSelected { skill, dir } => self.progress(&format!("▸ skill {skill} ({dir})")),
            Event::CommandStarted { skill, command, .. } => self.progress(&format!("▸ run [{skill}] {command}")),
            Event::CommandFinished {
                exit_code,
                signal,
                duration_ms,
                stdout_bytes,
                timed_out,
                ..
            } => {
                let status = match (timed_out, exit_code, signal) {
                    (true, _, _) => "timed out, killed".to_string(),
                    (_, Some(code), _) => format!("exit {code}"),
                    (_, None, Some(sig)) => format!("killed by signal {sig}"),
                    _ => "finished".to_string(),
                };
                self.progress(&format!(
                    "  {status} · {:.1}s · {} out",
                    duration_ms as f64 / 1000.0,
                    human_bytes(stdout_bytes)
                ));
            }
            Event::CommandDenied { command, reason, .. } => self.progress(&format!("✗ not run: {command} — {reason}")),
            Event::MessageDelta { text } => {
                if text.is_empty() {
                    return;
                }
                let mut at_start = self.at_line_start.lock().unwrap_or_else(|p| p.into_inner());
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
                *at_start = text.ends_with('\n');
            }
            Event::Message { .. } => self.end_stdout_line(),
            Event::Warning { message } => self.progress(&format!("warning: {message}")),
            Event::Error { message, .. } => self.progress(&format!("error: {message}")),
            Event::Done { .. } => self.end_stdout_line(),
        }
    }
}
