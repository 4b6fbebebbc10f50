#!/usr/bin/env bash
# `sota init` on a synthetic 100,000-file repository with kernel-style names
# and content markers (bench/synth.py --op-names): the dry run (scan, detect,
# classify, globs, TOML) and the real write (--force, atomic), side by side
# with `git ls-files -z` alone. SPEC/issue 10 target: under 1 s.
# Needs hyperfine and python3.  Usage: bench/init.sh [DIR]
set -euo pipefail
source "$(dirname "$0")/common.sh"
setup init "${1:-}" --files 100000 --ops 1000 --op-names
out=$(mktemp)
hyperfine -N --warmup 3 --runs 20 --export-json "$out" \
  --command-name 'git ls-files -z'           'git ls-files -z' \
  --command-name 'sota init --dry-run'       "$bin init --dry-run --today 2026-01-01" \
  --command-name 'sota init --force'         "$bin init --force --today 2026-01-01" \
  >/dev/null 2>&1
"$here/medians.py" "$out"
echo
"$bin" init --dry-run --today 2026-01-01 2>&1 >/dev/null | head -4
