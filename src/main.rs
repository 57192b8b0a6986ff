//! `agent`: a terminal agent that turns plain skill folders into capabilities of an LLM.

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

#[allow(
    clippy::print_stderr,
    reason = "before the runtime exists there is no renderer to report through"
)]
fn main() -> std::process::ExitCode {
    agent::support::phases::init();
    agent::support::tls::install();
    let cli = agent::cli::Cli::parse().hoist_subcommand_flags();
    init_tracing(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let code = runtime.block_on(agent::app::run(cli));
    // Don't wait for blocking tasks (a pending terminal prompt) on the way out.
    runtime.shutdown_background();
    for (phase, at) in agent::support::phases::finish() {
        eprintln!("agent-phase {phase} {at}");
    }
    std::process::ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `-v` shows debug logs of this crate, `-vv` trace; `RUST_LOG` overrides both. Logs go to stderr.
/// The MCP SDK's own logs stay off below `-vv`: each failure they report is already an MCP
/// warning of ours, and theirs quote the server's full URL, credentials included.
fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn,rmcp=off",
        1 => "agent=debug,warn,rmcp=off",
        _ => "agent=trace,info",
    };
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| EnvFilter::try_new(v).ok())
        .unwrap_or_else(|| EnvFilter::new(default));
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(ansi)
        .init();
}
