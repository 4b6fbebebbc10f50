#!/usr/bin/env bash
# Whole-process timings of the lookups answered from the built-in catalog
# (SPEC 5: lookup / list / milestones under 10 ms including process start,
# which for the catalog includes parsing and validating all of
# src/catalog.toml). Needs hyperfine. Usage: bench/catalog.sh [hyperfine args]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=$PWD/target/release/sota
empty=$(mktemp -d)   # no sota.toml anywhere above: the fallback path
out=$(mktemp)
cd "$empty"
hyperfine -N --warmup 20 --runs 300 --export-json "$out" "$@" \
  --command-name 'sota --catalog list'             "$bin --catalog list" \
  --command-name 'sota --catalog <slug>'           "$bin --catalog awq-int4-gemm" \
  --command-name 'sota --catalog <query>'          "$bin --catalog marlin" \
  --command-name 'sota --catalog milestones'       "$bin --catalog milestones" \
  --command-name 'sota --catalog milestones gemm'  "$bin --catalog milestones gemm" \
  --command-name 'sota list (no sota.toml)'        "$bin list" \
  --command-name 'true (process floor)'            "true"
cd - >/dev/null
rmdir "$empty"
bench/medians.py "$out"
# CPU time per run (user + system, means): what the process costs, which
# other load on a shared machine inflates far less than wall time.
python3 - "$out" <<'PY'
import json, sys
print()
print("| command | user+sys ms (mean) |")
print("|:---|---:|")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"| `{r['command']}` | {(r['user'] + r['system']) * 1e3:.2f} |")
PY
