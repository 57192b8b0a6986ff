//! Running what the model proposes: approval, the child environment, process trees, output capture,
//! and folder trust.

pub mod approval;
pub mod capture;
pub mod cmdline;
pub mod env;
pub mod grant;
pub mod installer;
pub mod private_temp;
pub mod process;
pub mod pymodule;
pub mod sandbox;
pub mod tree;
pub mod trust;
