#!/usr/bin/env bash
# Build the harnesses with coverage instrumentation on the stable compiler
# and run one for a fixed time (docs/FUZZING.md).
#   fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
# TARGET: matrix, diagnostic, trailer, git_log, index_file, glob, mcp,
#         npy, safetensors, prove_spec (fuzz/Cargo.toml [[bin]]).
# New interesting inputs are merged into fuzz/corpus/TARGET (minimized);
# a crash is written to fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
target=$1; secs=${2:-120}; shift $(( $# >= 2 ? 2 : 1 ))
triple=$(rustc -vV | sed -n 's/^host: //p')
# The rustflags live in .cargo/config.toml under [target.x86_64-unknown-linux-gnu];
# another host needs the same table under its own triple.
# The wrapper leaves comparison tracing out of the report-drawing crates
# (see the script); cargo does not rebuild when it changes, so a target
# dir built without it needs `cargo clean` once.
RUSTC_WRAPPER="$PWD/rustc-wrapper.sh" cargo build --release --target "$triple" --bin "$target"
bin=target/$triple/release/$target
mkdir -p "work/$target" "artifacts/$target"
"$bin" "work/$target" "corpus/$target" \
  -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=${MAX_LEN:-4096} \
  -artifact_prefix="artifacts/$target/" -print_final_stats=1 "$@"
# Keep only the inputs that add coverage (small files, committed).
"$bin" -set_cover_merge=1 -max_len="${MAX_LEN:-4096}" "corpus/$target" "work/$target" >/dev/null 2>&1 || true
