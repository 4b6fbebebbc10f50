//! The `sota` binary: parse arguments, run, exit with the code `run` decides.

/// mimalloc, not the system allocator: a run's heap is built once and
/// thrown away at exit (a 1,000-op matrix is ~10^5 small values), and
/// mimalloc serves it from a few large regions (docs/BENCHMARKS.md, "Where
/// the matrix load goes"). Without transparent huge pages (`no_thp`): a
/// short run touches a few MB, and a huge page costs the kernel 2 MB of
/// zeroing for each region a thread first touches (docs/BENCHMARKS.md,
/// seventh round).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;
mod mcp;

fn main() -> std::process::ExitCode {
    cli::exit(cli::main())
}
