#!/usr/bin/env bash
# Every glob shape at once: generate mixed-shape repositories
# (bench/synth_mix.py) at each size and matrix size, and time sota against
# git on each, side by side (hyperfine, then interleaved rounds for the two
# ratios). Writes one JSON per repository under bench/work/mix/results and
# prints the table (bench/mix_report.py; --svg draws the plot).
#
#   bench/mix.sh [FILES...] [-- OPS...]        e.g.  bench/mix.sh 10000 100000 -- 100 1000 5000
#   RUNS=10 bench/mix.sh 1000000 -- 1000       fewer runs for the largest trees
#
# Defaults: 10,000 and 100,000 files × 100, 1,000 and 5,000 ops. Needs
# hyperfine and python3; repositories are generated once (delete
# bench/work/mix to regenerate).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
files=() ops=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
ops=("$@")
[ ${#files[@]} -eq 0 ] && files=(10000 100000)
[ ${#ops[@]} -eq 0 ] && ops=(100 1000 5000)
runs=${RUNS:-30}
(cd "$here/.." && cargo build --release --locked --quiet)
bin=$(cd "$here/.." && pwd)/target/release/sota
work=$here/work/mix
mkdir -p "$work/results"
for f in "${files[@]}"; do
  for o in "${ops[@]}"; do
    repo=$work/f$f-o$o
    [ -d "$repo/.git" ] || python3 "$here/synth_mix.py" "$repo" --files "$f" --ops "$o" --staged 50
    cd "$repo"
    out=$work/results/f$f-o$o.json
    echo "== $f files, $o ops (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    hyperfine -N -i --warmup 3 --runs "$runs" --export-json "$out.hf" \
      --command-name 'git ls-files -z'              'git ls-files -z' \
      --command-name 'sota coverage'                "$bin coverage" \
      --command-name 'git diff --cached --name-only' 'git diff --cached --name-only' \
      --command-name 'sota gate'                    "$bin gate" \
      --command-name 'sota <file>'                  "$bin csrc/gemm/mod1/k0.cu" \
      --command-name 'sota list'                    "$bin list" \
      >/dev/null 2>&1
    python3 "$here/paired.py" --runs "$runs" --warmup 3 'git ls-files -z' "$bin coverage" > "$out.cov"
    python3 "$here/paired.py" --runs "$runs" --warmup 3 'git diff --cached --name-only' "$bin gate" > "$out.gate"
    python3 - "$out" "$f" "$o" "$(grep -c '^files' sota.toml || true)" <<'PY'
import json, re, sys
out, files, ops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hf = {r["command"]: r for r in json.load(open(out + ".hf"))["results"]}
def paired(path):
    rows = [l for l in open(path) if l.startswith("| `")]
    return float(rows[1].rsplit("|", 2)[-2])
globs = sum(len(re.findall(r"'[^']*'", l)) for l in open("sota.toml") if l.startswith("files ="))
json.dump({"files": files, "ops": ops, "globs": globs,
           "load": open("/proc/loadavg").read().split()[:3],
           "median_ms": {k: v["median"] * 1e3 for k, v in hf.items()},
           "paired_ratio": {"coverage": paired(out + ".cov"), "gate": paired(out + ".gate")}},
          open(out, "w"), indent=1)
PY
  done
done
python3 "$here/mix_report.py" "$work/results"/*.json
