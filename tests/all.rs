//! The integration tests: the real `agent` binary driven against a wiremock OpenAI-compatible
//! model (`common`), one module per area under `suite/`. One binary, so cargo links once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

mod common;
mod suite;
