#!/usr/bin/env bash
# The PRIOR_ART gate on a 100,000-file repository with a 1,000-op matrix and
# a staged change, side by side with `git diff --cached --name-only` alone
# (SPEC 5: within 1.3x). Needs hyperfine and python3.
# Usage: bench/gate.sh [DIR]   (DIR defaults to bench/work/big; generated once)
set -euo pipefail
source "$(dirname "$0")/common.sh"
setup big "${1:-}"
out=$(mktemp)
hyperfine -N --warmup 20 --runs 200 --export-json "$out" \
  --command-name 'git diff --cached --name-only' 'git diff --cached --name-only' \
  --command-name 'sota gate'                     "$bin gate" \
  --command-name 'sota gate --format short'      "$bin gate --format short" \
  --command-name 'sota gate --paths (no git)'    "$bin gate --paths src/mod7/file0.cu" \
  >/dev/null
"$here/medians.py" "$out"
python3 - "$out" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"\nratio sota gate / git diff --cached --name-only: {r['sota gate'] / r['git diff --cached --name-only']:.2f}")
PY

echo
echo "Interleaved cross-check (bench/paired.py):"
"$here/paired.py" --runs 200 'git diff --cached --name-only' "$bin gate"
