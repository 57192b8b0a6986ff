//! Running what the model proposes: approval, the child environment, processes, redaction.

pub mod approval;
pub mod capture;
pub mod cmdline;
pub mod env;
pub mod grant;
pub mod process;
pub mod redact;
pub mod tree;
pub mod trust;
