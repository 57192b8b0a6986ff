//! Reading one output stream of a command into a bounded buffer: head and tail kept, the middle
//! counted and dropped, so memory stays flat whatever the command prints.

use std::collections::VecDeque;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

/// One output stream, bounded: head and tail kept, the middle counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// Head, a cut marker when bytes were dropped, and tail; invalid UTF-8 replaced.
    pub text: String,
    /// Bytes the command wrote in total.
    pub total_bytes: u64,
    pub truncated: bool,
    /// The output was not valid UTF-8.
    pub binary: bool,
}

/// Read a stream to its end, or until `stop` turns true (an escaped process may hold the pipe
/// open forever), keeping at most `head + tail` bytes.
pub async fn capture(
    mut reader: impl AsyncRead + Unpin,
    head_cap: usize,
    tail_cap: usize,
    mut stop: watch::Receiver<bool>,
) -> Captured {
    let mut head = Vec::with_capacity(head_cap.min(64 * 1024));
    let mut tail: VecDeque<u8> = VecDeque::new();
    let mut total: u64 = 0;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            biased;
            read = reader.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            },
            // Also ends the read when the sender is gone (the command's run was dropped).
            _ = stop.wait_for(|stop| *stop) => break,
        };
        total += n as u64;
        let mut chunk = &buf[..n];
        if head.len() < head_cap {
            let take = (head_cap - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if tail_cap > 0 && !chunk.is_empty() {
            if chunk.len() >= tail_cap {
                tail.clear();
                tail.extend(&chunk[chunk.len() - tail_cap..]);
            } else {
                let overflow = (tail.len() + chunk.len()).saturating_sub(tail_cap);
                tail.drain(..overflow);
                tail.extend(chunk);
            }
        }
    }
    let tail: Vec<u8> = tail.into();
    let kept = (head.len() + tail.len()) as u64;
    let truncated = total > kept;
    let binary = head.contains(&0) || tail.contains(&0) || !utf8_ok(&head, true) || !utf8_ok(&tail, !truncated);
    let mut text = String::from_utf8_lossy(&head).into_owned();
    if truncated {
        text.push_str(&format!(
            "\n[… {} bytes cut; first {} and last {} kept …]\n",
            total - kept,
            head.len(),
            tail.len()
        ));
    }
    text.push_str(&String::from_utf8_lossy(&tail));
    Captured {
        text,
        total_bytes: total,
        truncated,
        binary,
    }
}

/// Valid UTF-8, tolerating a character split at the cut edges.
fn utf8_ok(bytes: &[u8], starts_clean: bool) -> bool {
    let start = if starts_clean {
        0
    } else {
        bytes.iter().take(3).take_while(|b| (*b & 0xC0) == 0x80).count()
    };
    match std::str::from_utf8(&bytes[start..]) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}
