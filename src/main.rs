//! The `sota` binary: parse arguments, run, exit with the code `run` decides.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
