#!/usr/bin/env bash
# `sota prove` on two 1 GiB f32 tensors from the page cache, side by side
# with streaming the same 2 GiB (`cat a b > /dev/null`; SPEC 5: within 1.5x)
# and with the same metrics in NumPy, chunked, in float64 (target: 6x slower
# than sota or more). The data is generated into a temporary directory and
# removed afterwards. Needs hyperfine and python3 with numpy.
# Usage: bench/prove.sh [GIB_PER_TENSOR [DIR]]   (default 1; DIR: keep the
#        data there and reuse it on the next run instead of a temp dir)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gib=${1:-1}
(cd "$here/.." && cargo build --release --locked --quiet)
bin=$here/../target/release/sota
if [ -n "${2:-}" ]; then
  dir=$2
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
[ -f "$dir/b.npy" ] || python3 "$here/prove_data.py" "$dir" "$gib"
ls -l "$dir"
echo "load before: $(uptime)"
out=$(mktemp)
hyperfine -N --warmup 2 --runs 10 --export-json "$out" \
  --command-name 'cat a b > /dev/null' "sh -c 'cat $dir/a.npy $dir/b.npy > /dev/null'" \
  --command-name 'sota prove' "$bin prove -r $dir/a.npy -c $dir/b.npy --check cosine>=0.999 --check max-abs<=1e-3 --check allclose:rtol=1e-5 --check argmax" \
  >/dev/null
hyperfine -N --warmup 1 --runs 3 --export-json "$out.np" \
  --command-name 'numpy (chunked, f64)' "python3 $here/prove_numpy.py $dir/a.npy $dir/b.npy" \
  >/dev/null
echo "load after: $(uptime)"
"$here/medians.py" "$out" "$out.np"
python3 - "$out" "$out.np" <<'PY'
import json, sys
r = {}
for p in sys.argv[1:]:
    r.update({x["command"]: x["median"] for x in json.load(open(p))["results"]})
print(f"\nsota prove / cat: {r['sota prove'] / r['cat a b > /dev/null']:.2f}x")
print(f"numpy / sota prove: {r['numpy (chunked, f64)'] / r['sota prove']:.1f}x")
PY
echo
echo "Interleaved, CPU time (user+sys; survives other agents' load better than wall time):"
for i in 1 2 3; do
  /usr/bin/time -f "  cat   wall %e s  user %U s  sys %S s" sh -c "cat $dir/a.npy $dir/b.npy > /dev/null"
  /usr/bin/time -f "  sota  wall %e s  user %U s  sys %S s" "$bin" prove -r "$dir/a.npy" -c "$dir/b.npy" \
    --check 'cosine>=0.999' --check 'max-abs<=1e-3' --check allclose:rtol=1e-5 --check argmax >/dev/null
done
echo "load: $(uptime)"
echo
echo "Peak memory of one run (/usr/bin/time -v):"
/usr/bin/time -v "$bin" prove -r "$dir/a.npy" -c "$dir/b.npy" --check 'cosine>=0.999' 2>&1 >/dev/null \
  | grep -E 'Maximum resident|Elapsed'
rm -f "$out" "$out.np"
