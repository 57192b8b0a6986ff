//! Every integration test, as modules of one test binary (`tests/all.rs`): one link instead of
//! one per file, and the shared harness compiled once.

mod approval_boundary;
mod architecture;
mod bundled_skills;
mod catalog_budget;
mod cmdline_props;
mod failed_commands;
mod folder_trust;
mod hostile_inputs;
mod install;
mod json_events;
mod llm_faults;
mod local_servers;
mod parser_props;
mod phases;
mod record_replay;
mod repl;
mod retrieval;
mod safety;
mod secrets;
mod skill_cache;
mod skill_eval;
mod skill_fixtures;
mod skill_loading;
mod skill_search;
mod skills_check;
mod skills_new;
mod terminal;
mod tools_and_safety;
mod turn_loop;
