#!/usr/bin/env bash
# Whole-process timings of the lookup surfaces (SPEC 5: under 10 ms each,
# including process start and loading the matrix). Needs hyperfine
# (`apt-get install hyperfine`). Usage: bench/lookup.sh [extra hyperfine args]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=target/release/sota
matrix=examples/fak/sota.toml
out=$(mktemp)
hyperfine -N --warmup 20 --runs 300 --export-json "$out" "$@" \
  --command-name 'sota list'                 "$bin --matrix $matrix list" \
  --command-name 'sota <slug>'               "$bin --matrix $matrix awq-int4-gemm" \
  --command-name 'sota <file>'               "$bin --matrix $matrix internal/compute/cuda_kernels.cu" \
  --command-name 'sota milestones'           "$bin --matrix $matrix milestones" \
  --command-name 'sota milestones attention' "$bin --matrix $matrix milestones attention" \
  --command-name 'sota list (catalog)'       "$bin --catalog list" \
  --command-name 'true (process floor)'      "true"
bench/medians.py "$out"
