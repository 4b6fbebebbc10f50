//! The `sota` binary: parse arguments, run, exit with the code `run` decides.

mod cli;
mod mcp;

fn main() -> std::process::ExitCode {
    cli::exit(cli::main())
}
