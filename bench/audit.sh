#!/usr/bin/env bash
# The trailer audit over a 5,000-commit history of the synthetic
# 100,000-file repository, side by side with `git log --name-only` over the
# same range (SPEC 5: within 1.3x). Needs hyperfine and python3.
# Usage: bench/audit.sh [DIR]   (DIR defaults to bench/work/hist; generated once)
set -euo pipefail
source "$(dirname "$0")/common.sh"
setup hist "${1:-}" --commits 5000
out=$(mktemp)
hyperfine -N --warmup 3 --runs 20 --export-json "$out" \
  --command-name 'git log --name-only' 'git log --name-only' \
  --command-name 'sota audit'          "$bin audit" \
  --command-name 'sota audit --json'   "$bin audit --json" \
  >/dev/null 2>&1
"$here/medians.py" "$out"
echo
echo "Interleaved cross-check (bench/paired.py):"
"$here/paired.py" --runs 20 --warmup 3 'git log --name-only' "$bin audit"
