//! Running what the model proposes: approval, the child environment, process trees, output capture,
//! and folder trust.

pub(crate) mod approval;
pub(crate) mod capture;
pub mod cmdline;
pub(crate) mod env;
pub(crate) mod grant;
pub(crate) mod installer;
pub(crate) mod private_temp;
pub(crate) mod process;
pub(crate) mod pymodule;
pub mod sandbox;
pub(crate) mod tree;
pub(crate) mod trust;
