//! Running what the model proposes: approval, the child environment, processes, redaction.

pub mod approval;
pub mod cmdline;
pub mod env;
pub mod process;
pub mod redact;
pub mod trust;
