#!/usr/bin/env bash
# Growth of the load, the diagnostics and coverage with the matrix's size:
# 1x, 2x, 4x of a valid matrix (`sota coverage`), a broken one (`sota list`
# human and --json: every problem located), and a broken one written as a
# single line (`sota list`). Needs hyperfine and python3.
# Usage: bench/big_matrix.sh [BASE_OPS] (default 5000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${SOTA_BIN:-$here/../target/release/sota}
base=${1:-5000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
uptime
for k in 1 2 4; do
  n=$((base * k))
  "$here/big_matrix.py" "$work/valid-$k" --ops "$n"
  "$here/big_matrix.py" "$work/broken-$k" --ops "$n" --broken
  "$here/big_matrix.py" "$work/line-$k" --ops "$((n / 2))" --broken --long-lines
done
for k in 1 2 4; do
  for d in valid broken line; do
    printf '%s-%s: %s bytes\n' "$d" "$k" "$(wc -c < "$work/$d-$k/sota.toml")"
  done
done
run() {
  local args=()
  for k in 1 2 4; do args+=(--command-name "$1 ${k}x" "cd $work/$2-$k && $3 >/dev/null 2>&1"); done
  hyperfine --warmup 1 --runs "${RUNS:-5}" -i "${args[@]}" | grep -E "Time \(mean|^Benchmark"
}
run "coverage valid"    valid  "$bin coverage"
run "list broken"       broken "$bin list"
run "list --json broken" broken "$bin list --json"
run "list one-line broken" line "$bin list"
uptime
