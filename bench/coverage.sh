#!/usr/bin/env bash
# The coverage scorecard on the synthetic 100,000-file repository with a
# 1,000-op matrix, side by side with `git ls-files -z` alone (SPEC 5: within
# 1.5x) and, once, the naive per-file x per-glob fnmatch scorecard (SPEC 5:
# at least 50x slower than sota). Needs hyperfine and python3.
# Usage: bench/coverage.sh [DIR] [--naive]
set -euo pipefail
source "$(dirname "$0")/common.sh"
setup big "${1:-}"
out=$(mktemp)
hyperfine -N --warmup 10 --runs 100 --export-json "$out" \
  --command-name 'git ls-files -z'      'git ls-files -z' \
  --command-name 'sota coverage'        "$bin coverage" \
  --command-name 'sota coverage --json' "$bin coverage --json" \
  >/dev/null 2>&1
"$here/medians.py" "$out"
echo
echo "Interleaved cross-check (bench/paired.py):"
"$here/paired.py" --runs 100 'git ls-files -z' "$bin coverage"
if [ "${2:-}" = "--naive" ]; then
  echo
  echo "Naive fnmatch scorecard (one run; minutes):"
  /usr/bin/time -f "naive: %e s wall" python3 "$here/naive_coverage.py" "$repo"
fi
