//! Phase timestamps of one run, for benchmarks: with the hidden variable `AGENT_PHASES=1` the
//! run notes when it reached each phase (configuration read, skills discovered, request built,
//! connected, first and last byte of the answer), and the interface prints them to stderr at
//! exit as `agent-phase NAME UNIX_NANOS` lines, which `benches/turn.rs` lines up with the times
//! it started and reaped the process. Off, a mark costs one relaxed atomic load.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The variable that turns phase marks on.
pub(crate) const VAR: &str = "AGENT_PHASES";

static ON: AtomicBool = AtomicBool::new(false);
static MARKS: Mutex<Vec<(&'static str, u128)>> = Mutex::new(Vec::new());

fn now_nanos() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Turn marks on when `AGENT_PHASES` is `1` in the process environment, and mark `start`.
/// Called first thing in `main`.
pub fn init() {
    if std::env::var_os(VAR).is_some_and(|v| v == "1") {
        ON.store(true, Ordering::Relaxed);
        mark("start");
    }
}

/// Whether marks are being recorded.
pub(crate) fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Note that the run reached `phase` now. Only the first mark of each phase is kept, so a
/// phase that recurs (a second request) keeps its first time.
pub(crate) fn mark(phase: &'static str) {
    if !enabled() {
        return;
    }
    let at = now_nanos();
    let mut marks = MARKS.lock().unwrap_or_else(|p| p.into_inner());
    if !marks.iter().any(|(p, _)| *p == phase) {
        marks.push((phase, at));
    }
}

/// The marks so far, in order, with `exit` added; empty when marks are off.
pub fn finish() -> Vec<(&'static str, u128)> {
    if !enabled() {
        return Vec::new();
    }
    mark("exit");
    MARKS.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// A tower layer for a client's connector that marks `connected` when a connection is ready.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ConnectedLayer;

impl<S> tower::Layer<S> for ConnectedLayer {
    type Service = Connected<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Connected { inner }
    }
}

/// See [`ConnectedLayer`].
#[derive(Debug, Clone)]
pub(crate) struct Connected<S> {
    inner: S,
}

impl<S, R> tower::Service<R> for Connected<S>
where
    S: tower::Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        let connecting = self.inner.call(request);
        Box::pin(async move {
            let conn = connecting.await;
            mark("connected");
            conn
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_kept_once_each_in_order() {
        // The switch is process-wide: this is the only test that turns it on.
        assert!(finish().is_empty() || enabled());
        ON.store(true, Ordering::Relaxed);
        mark("config");
        mark("request");
        mark("config");
        let marks = finish();
        let names: Vec<_> = marks.iter().map(|(p, _)| *p).collect();
        assert_eq!(names, ["config", "request", "exit"]);
        assert!(marks.windows(2).all(|w| w[0].1 <= w[1].1));
    }
}
