//! A running command's output as it comes, for the live tail a terminal shows under the command:
//! each stream decoded (a character split between two reads waits for its second half) and
//! redacted across pieces (a secret split between two reads is still caught), as
//! `command_output` events.

use std::sync::{Arc, Mutex};

use crate::exec::process::Live;
use crate::output::{Event, EventSink};
use crate::support::redact::{Redactor, StreamRedactor};

/// One stream's text so far: bytes of an unfinished character, and text held back because it may
/// begin a secret.
struct Decoder {
    carry: Vec<u8>,
    redact: StreamRedactor,
}

/// The live view of one command's two streams.
pub(super) struct LiveOutput {
    sink: Arc<dyn EventSink>,
    streams: [Mutex<Decoder>; 2],
}

impl LiveOutput {
    /// A view that tells `sink`, redacting with `redactor`.
    pub(super) fn new(sink: Arc<dyn EventSink>, redactor: &Redactor) -> Arc<Self> {
        let decoder = || {
            Mutex::new(Decoder {
                carry: Vec::new(),
                redact: StreamRedactor::new(redactor.clone()),
            })
        };
        Arc::new(Self {
            sink,
            streams: [decoder(), decoder()],
        })
    }

    /// The receivers for stdout and stderr, for the command's spec.
    pub(super) fn receivers(self: &Arc<Self>) -> [Option<Live>; 2] {
        [0, 1].map(|i| {
            let me = Arc::clone(self);
            Some(Live(Arc::new(move |bytes: &[u8]| me.push(i, bytes))))
        })
    }

    fn push(&self, stream: usize, bytes: &[u8]) {
        let text = {
            let mut d = self.streams[stream].lock().unwrap_or_else(|p| p.into_inner());
            let decoded = decode(&mut d.carry, bytes);
            d.redact.push(&decoded)
        };
        if !text.is_empty() {
            self.sink.emit(Event::CommandOutput { text });
        }
    }

    /// The command ended: what each stream still held.
    pub(super) fn finish(&self) {
        for stream in &self.streams {
            let text = {
                let mut d = stream.lock().unwrap_or_else(|p| p.into_inner());
                let rest = String::from_utf8_lossy(&std::mem::take(&mut d.carry)).into_owned();
                let mut text = d.redact.push(&rest);
                text.push_str(&d.redact.finish());
                text
            };
            if !text.is_empty() {
                self.sink.emit(Event::CommandOutput { text });
            }
        }
    }
}

/// `bytes` after `carry` as text: invalid bytes replaced, an unfinished character at the end kept
/// in `carry` for the next piece.
fn decode(carry: &mut Vec<u8>, bytes: &[u8]) -> String {
    carry.extend_from_slice(bytes);
    let mut out = String::new();
    loop {
        match std::str::from_utf8(carry) {
            Ok(text) => {
                out.push_str(text);
                carry.clear();
                return out;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.push_str(&String::from_utf8_lossy(&carry[..good]));
                match e.error_len() {
                    None => {
                        carry.drain(..good);
                        return out;
                    }
                    Some(bad) => {
                        out.push(char::REPLACEMENT_CHARACTER);
                        carry.drain(..good + bad);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_between_reads_is_joined() {
        let mut carry = Vec::new();
        let bytes = "é!".as_bytes();
        assert_eq!(decode(&mut carry, &bytes[..1]), "");
        assert_eq!(decode(&mut carry, &bytes[1..]), "é!");
        assert_eq!(decode(&mut carry, b"a\xffb"), "a\u{FFFD}b");
        assert!(carry.is_empty());
    }
}
