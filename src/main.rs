//! The `sota` binary: parse arguments, run, exit with the code `run` decides.

/// mimalloc, not the system allocator: a run's heap is built once and
/// thrown away at exit (a 1,000-op matrix is ~10^5 small values), and
/// mimalloc serves it from a few large, huge-page-backed regions instead of
/// faulting in 4 KiB pages one by one (docs/BENCHMARKS.md, "Where the
/// matrix load goes").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;
mod mcp;

fn main() -> std::process::ExitCode {
    cli::main()
}
