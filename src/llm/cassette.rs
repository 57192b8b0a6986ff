//! Record/replay of the LLM side of a run (`--record FILE`, `--replay FILE`): one JSON line per
//! call, redacted, so a real session becomes a CI fixture that needs no key and no network.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::LlmError;
use crate::support::redact::Redactor;

/// One recorded call: the request body and the response the endpoint gave.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Exchange {
    pub(crate) v: u32,
    pub(crate) call: usize,
    pub(crate) request: Value,
    pub(crate) status: u16,
    /// The response as the server-sent-event text the client read.
    pub(crate) response: String,
}

/// Text rewrites that make recordings portable: secrets out, absolute skill folders replaced by
/// `<skill:NAME>` and the working folder by `<workdir>`, so a cassette recorded on one machine (or
/// in one folder) replays on another.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scrubber {
    redactor: Redactor,
    paths: Vec<(String, String)>,
}

impl Scrubber {
    /// A scrubber that redacts with `redactor` and names each of `skill_dirs` (name, folder) and
    /// `workdir` by a placeholder.
    pub(crate) fn new(redactor: Redactor, skill_dirs: &[(String, PathBuf)], workdir: Option<&Path>) -> Self {
        let mut paths: Vec<(String, String)> = skill_dirs
            .iter()
            .map(|(name, dir)| (dir.display().to_string(), format!("<skill:{name}>")))
            .collect();
        // `/` would match every path: only a real folder is worth replacing.
        if let Some(dir) = workdir.filter(|d| d.parent().is_some()) {
            paths.push((dir.display().to_string(), "<workdir>".into()));
        }
        // Longest first, so a skill nested in another's path (or in the working folder) is
        // replaced whole.
        paths.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        Self { redactor, paths }
    }

    /// `text` with secrets redacted and the known folders replaced by their placeholders.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut out = self.redactor.redact(text).into_owned();
        for (path, token) in &self.paths {
            out = out.replace(path.as_str(), token);
        }
        out
    }

    /// A request body scrubbed, as JSON when it still parses (else as a string), for comparing.
    fn scrub_json(&self, body: &[u8]) -> Value {
        let text = self.scrub(&String::from_utf8_lossy(body));
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    }
}

/// Why a cassette cannot be recorded to or replayed; each message names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CassetteError {
    #[error("cannot create the cassette {}: {source}", path.display())]
    Create { path: PathBuf, source: std::io::Error },
    #[error("cannot read the cassette {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}:{line}: not a cassette entry ({source}); record it again with --record", path.display())]
    Entry {
        path: PathBuf,
        line: usize,
        source: serde_json::Error,
    },
    #[error("the cassette {} holds no calls", path.display())]
    Empty { path: PathBuf },
}

/// Appends every call of a run to a cassette file.
pub(crate) struct Recorder {
    file: Mutex<std::fs::File>,
    path: PathBuf,
    scrubber: Scrubber,
    calls: AtomicUsize,
}

impl Recorder {
    /// Create (truncate) the cassette file.
    pub(crate) fn create(path: &Path, scrubber: Scrubber) -> Result<Self, CassetteError> {
        let file = std::fs::File::create(path).map_err(|source| CassetteError::Create {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self {
            file: Mutex::new(file),
            path: path.to_path_buf(),
            scrubber,
            calls: AtomicUsize::new(0),
        })
    }

    /// Write one line that is not an LLM call (an MCP result: it has an `"mcp"` key), scrubbed
    /// like the calls, in order with them.
    pub(crate) fn write_record(&self, record: &Value) {
        let line = self.scrubber.scrub(&record.to_string());
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = writeln!(file, "{line}").and_then(|()| file.flush()) {
            tracing::warn!("cannot write to the cassette {}: {e}", self.path.display());
        }
    }

    /// Write one exchange; a write failure is reported once through tracing and not fatal.
    pub(crate) fn write(&self, request: &[u8], status: u16, response: &[u8]) {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let exchange = Exchange {
            v: 1,
            call,
            request: self.scrubber.scrub_json(request),
            status,
            response: self.scrubber.scrub(&super::cassette_stream::redact_joined(
                &String::from_utf8_lossy(response),
                &self.scrubber.redactor,
            )),
        };
        let line = serde_json::to_string(&exchange).unwrap_or_default();
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = writeln!(file, "{line}").and_then(|()| file.flush()) {
            tracing::warn!("cannot write to the cassette {}: {e}", self.path.display());
        }
    }

    /// Pass a response body through, writing the exchange once the body has been read.
    pub(crate) fn tee(self: &std::sync::Arc<Self>, request: Vec<u8>, resp: reqwest::Response) -> reqwest::Response {
        let status = resp.status();
        let headers = resp.headers().clone();
        let recorder = self.clone();
        let state = (
            Box::pin(resp.bytes_stream()),
            Vec::<u8>::new(),
            Some((recorder, request)),
        );
        let body = futures::stream::unfold(state, move |(mut inner, mut seen, mut pending)| async move {
            use futures::StreamExt;
            match inner.next().await {
                Some(Ok(bytes)) => {
                    seen.extend_from_slice(&bytes);
                    // The SSE reader stops at `[DONE]` (chat completions) or `message_stop`
                    // (Messages API) and may never poll for the end of the body.
                    let tail = &seen[seen.len().saturating_sub(40)..];
                    if (tail.windows(6).any(|w| w == b"[DONE]") || tail.windows(12).any(|w| w == b"message_stop"))
                        && let Some((recorder, request)) = pending.take()
                    {
                        recorder.write(&request, status.as_u16(), &seen);
                    }
                    Some((Ok::<Bytes, reqwest::Error>(bytes), (inner, seen, pending)))
                }
                Some(Err(e)) => Some((Err(e), (inner, seen, None))),
                None => {
                    if let Some((recorder, request)) = pending.take() {
                        recorder.write(&request, status.as_u16(), &seen);
                    }
                    None
                }
            }
        });
        super::transport::with_body(status, headers, reqwest::Body::wrap_stream(body))
    }
}

/// Largest cassette that is loaded (a recorded session is a few hundred KB).
const MAX_CASSETTE_BYTES: u64 = 256 * 1024 * 1024;

/// Serves a run's LLM side from a cassette, checking each request against the recorded one.
pub(crate) struct Player {
    path: PathBuf,
    exchanges: Vec<Exchange>,
    /// Recorded lines that are not LLM calls (MCP results), in order.
    others: Vec<Value>,
    next: AtomicUsize,
    scrubber: Scrubber,
}

impl Player {
    /// Load the cassette at `path`; an unreadable file, a line that is not an exchange, or a
    /// cassette without calls is an error naming the file (and line).
    pub(crate) fn open(path: &Path, scrubber: Scrubber) -> Result<Self, CassetteError> {
        let text = crate::support::fs::read_whole(path, MAX_CASSETTE_BYTES)
            .map(|read| read.text())
            .map_err(|source| CassetteError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        let mut exchanges = Vec::new();
        let mut others = Vec::new();
        for (idx, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            // Lines of other sources (MCP results, `"mcp"`) are kept for their owners.
            if let Ok(value) = serde_json::from_str::<Value>(line)
                && value.get("mcp").is_some()
            {
                others.push(value);
                continue;
            }
            let exchange: Exchange = serde_json::from_str(line).map_err(|source| CassetteError::Entry {
                path: path.to_path_buf(),
                line: idx + 1,
                source,
            })?;
            exchanges.push(exchange);
        }
        if exchanges.is_empty() {
            return Err(CassetteError::Empty {
                path: path.to_path_buf(),
            });
        }
        Ok(Self {
            path: path.to_path_buf(),
            exchanges,
            others,
            next: AtomicUsize::new(0),
            scrubber,
        })
    }

    /// The dialect the recording speaks: a Messages API request carries its system prompt
    /// beside the messages, a chat-completions one never does. A replay speaks it whatever the
    /// settings say, so a cassette replays with no key and no provider set.
    pub(crate) fn provider(&self) -> super::Provider {
        let anthropic = self.exchanges.iter().any(|e| e.request.get("system").is_some());
        if anthropic {
            super::Provider::Anthropic
        } else {
            super::Provider::OpenAi
        }
    }

    /// The recorded lines that are not LLM calls (MCP results), in order.
    pub(crate) fn others(&self) -> &[Value] {
        &self.others
    }

    /// The recorded response for the next call, or why this request does not match the recording.
    pub(crate) fn serve(&self, request: &[u8]) -> Result<(u16, String), LlmError> {
        let idx = self.next.fetch_add(1, Ordering::SeqCst);
        let Some(recorded) = self.exchanges.get(idx) else {
            return Err(LlmError::new(format!(
                "the run made LLM call {} but the cassette {} holds only {}: the run departed from the recording",
                idx + 1,
                self.path.display(),
                self.exchanges.len()
            )));
        };
        let now = self.scrubber.scrub_json(request);
        if let Some(diff) = first_difference(&recorded.request, &now) {
            return Err(LlmError::new(format!(
                "call {} departs from the cassette {}: {diff}. Record it again if the change is intended",
                idx + 1,
                self.path.display()
            )));
        }
        Ok((recorded.status, recorded.response.clone()))
    }
}

/// A value as a difference message shows it: its text, cut at 160 characters.
fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > 160 {
        format!("{}…", text.chars().take(160).collect::<String>())
    } else {
        text
    }
}

/// Where two request bodies differ, ignoring the model name and streaming flag.
pub(crate) fn first_difference(recorded: &Value, now: &Value) -> Option<String> {
    if recorded["tools"] != now["tools"] {
        return Some("the tool list differs (different skills installed?)".into());
    }
    // A guided call's schema decides what the reply could be (AGENT_GUIDED_CALLS).
    if recorded["response_format"] != now["response_format"] {
        return Some(format!(
            "the guided call differs (AGENT_GUIDED_CALLS?): recorded {:?}, now {:?}",
            short(&recorded["response_format"]),
            short(&now["response_format"])
        ));
    }
    // The Messages API carries the system prompt beside the messages.
    if recorded["system"] != now["system"] {
        return Some(format!(
            "the system prompt (skill catalog) differs: recorded {:?}, now {:?}",
            short(&recorded["system"]),
            short(&now["system"])
        ));
    }
    let empty = Vec::new();
    let old = recorded["messages"].as_array().unwrap_or(&empty);
    let new = now["messages"].as_array().unwrap_or(&empty);
    for (i, (a, b)) in old.iter().zip(new).enumerate() {
        if a == b {
            continue;
        }
        let role = b["role"].as_str().unwrap_or("?");
        let what = match role {
            "system" => "the system prompt (skill catalog)",
            "user" => "the user message",
            "tool" => "a tool result",
            "assistant" => "an assistant message",
            _ => "a message",
        };
        for field in ["content", "tool_calls", "tool_call_id", "role"] {
            if a[field] != b[field] {
                return Some(format!(
                    "messages[{i}] ({what}) {field} differs: recorded {:?}, now {:?}",
                    short(&a[field]),
                    short(&b[field])
                ));
            }
        }
        return Some(format!("messages[{i}] ({what}) differs"));
    }
    if old.len() != new.len() {
        return Some(format!("recorded {} messages, now {}", old.len(), new.len()));
    }
    None
}

/// Whether this run records its LLM calls, replays them, or neither.
#[derive(Clone, Default)]
pub(crate) enum Tape {
    #[default]
    Off,
    Record(std::sync::Arc<Recorder>),
    Replay(std::sync::Arc<Player>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_the_message() {
        let a = json!({"model":"a","messages":[{"role":"user","content":"weather in Tokyo"}],"tools":[]});
        let b = json!({"model":"b","messages":[{"role":"user","content":"weather in Paris"}],"tools":[]});
        let d = first_difference(&a, &b).unwrap();
        assert!(
            d.contains("messages[0] (the user message) content") && d.contains("Paris"),
            "{d}"
        );
        assert!(first_difference(&a, &a).is_none());
        // A guided request replays only as guided.
        let mut guided = a.clone();
        guided["response_format"] = json!({"type": "json_schema"});
        let d = first_difference(&guided, &a).unwrap();
        assert!(d.contains("guided call differs"), "{d}");
    }

    #[test]
    fn scrubber_replaces_skill_folders() {
        let s = Scrubber::new(
            Redactor::default(),
            &[("w".into(), PathBuf::from("/tmp/x/w"))],
            Some(Path::new("/tmp/x")),
        );
        assert_eq!(
            s.scrub("Skill folder: /tmp/x/w; commands run in /tmp/x, reading /tmp/x/in.pdf"),
            "Skill folder: <skill:w>; commands run in <workdir>, reading <workdir>/in.pdf"
        );
        let root = Scrubber::new(Redactor::default(), &[], Some(Path::new("/")));
        assert_eq!(root.scrub("/etc"), "/etc", "the root folder is never replaced");
    }
}
