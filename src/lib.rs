//! `agent`: a terminal agent that turns plain skill folders into capabilities of an LLM.
//!
//! The binary (`src/main.rs`) is a thin shell over these modules; they are a library so that
//! benchmarks and fuzz targets can drive the same code. Imports flow one way:
//! `ui` → `agent` → `llm`, `skills`, `exec`; `cli` and `config` sit on top.

pub mod agent;
pub mod app;
pub mod cli;
pub mod config;
pub mod exec;
pub mod exit;
pub mod llm;
pub mod output;
pub mod skills;
pub mod support;
pub mod ui;
