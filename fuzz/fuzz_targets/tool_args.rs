//! Hostile tool calls: any name and argument bytes must decode to a request or to an error the
//! model can read, and any command string must split or be reported opaque — never panic.
#![no_main]

use agent::agent::tools::{ToolRequest, decode_call};
use agent::exec::cmdline;
use agent::llm::stream::Accumulator;
use agent::llm::types::Chunk;
use libfuzzer_sys::fuzz_target;

const TOOLS: [&str; 4] = ["activate_skill", "run_command", "read_skill_file", "other"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let raw = String::from_utf8_lossy(rest);
    let name = TOOLS[usize::from(selector) % TOOLS.len()];
    match decode_call(name, &raw) {
        Ok(ToolRequest::Run { command }) => {
            let _ = cmdline::literal_words(&command, "/skills/fuzz");
        }
        Ok(_) => {}
        Err(refusal) => assert!(refusal.for_model().starts_with("error: ")),
    }
    let _ = cmdline::literal_words(&raw, "/skills/fuzz");
    // The same bytes as a streamed response chunk.
    if let Ok(chunk) = serde_json::from_slice::<Chunk>(rest) {
        let mut acc = Accumulator::default();
        let _ = acc.push(chunk, &mut |_| {});
        let _ = acc.finish();
    }
});
