#!/usr/bin/env bash
# `sota mcp` as clients see it (issue 11: a tools/call round trip under 5 ms
# median on a 1,000-op matrix; start-up to the initialize result under
# 20 ms). Usage: bench/mcp.sh [DIR]  (DIR: the synthetic repository; made
# once with bench/synth.py --files 20000 --ops 1000 — the file count does
# not matter to these calls, the op count does).
set -euo pipefail
. "$(dirname "$0")/common.sh"
setup mcp "${1:-}" --files 20000 --ops 1000
uptime
python3 "$here/mcp_bench.py" "$bin" "$repo"
