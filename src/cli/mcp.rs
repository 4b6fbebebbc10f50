//! `sota mcp`: the host side of the MCP server — the process state it may
//! not read itself (the clock, for each call; stdin and stdout; stderr for
//! `--verbose`), and the runtime it runs on.

use std::io::Write;
use std::sync::Arc;

use sota::{Failure, Inputs, Outcome};

/// Serve MCP on stdin/stdout until EOF.
pub fn run(base: Inputs, verbose: bool) -> Result<Outcome, Failure> {
    let log: crate::mcp::Log = if verbose {
        Arc::new(|msg: &str| {
            let _ = writeln!(std::io::stderr().lock(), "sota mcp: {msg}");
        })
    } else {
        Arc::new(|_: &str| {})
    };
    let host = crate::mcp::Host {
        inputs: Box::new(move || {
            let mut inputs = base.clone();
            inputs.today = super::process::clock_today();
            inputs
        }),
        commands: super::subcommand_names(),
        log: log.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(crate::mcp::serve(
        host,
        tokio::io::BufReader::new(tokio::io::stdin()),
        tokio::io::stdout(),
    ))?;
    log("stdin closed; bye");
    Ok(Outcome::Done)
}
