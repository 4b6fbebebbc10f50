#!/usr/bin/env python3
"""Timings of `sota mcp` as real clients see them over stdio.

    bench/mcp_bench.py SOTA_BIN REPO [--runs 300] [--starts 50]

1. Start-up: spawn `sota mcp`, send `initialize`, read its result; the
   median over --starts fresh processes (the wall time an agent waits).
   Then the same up to the first `lookup` result, which includes loading
   the matrix (once per session).
2. Round trips: one long-lived session; each question is sent --runs times
   (after 20 warm-up calls) and timed from writing the request line to
   reading its response line, with a minimal JSON-lines client (the
   thinnest real client: its own overhead is a few µs).
3. The same questions through the official Python SDK (`mcp`), whose own
   overhead (pydantic validation, anyio streams) is included: what an agent
   built on that SDK waits. Skipped when the module is missing.

Questions come from the repository: a slug in the middle of its matrix, a
tracked kernel file with `:LINE`, and the gate for 3 and for 12 tracked
kernel files.
"""
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
SOTA, REPO = os.path.abspath(args[0]), os.path.abspath(args[1])
RUNS = int(args[args.index("--runs") + 1]) if "--runs" in args else 300
STARTS = int(args[args.index("--starts") + 1]) if "--starts" in args else 50
ENV = {k: v for k, v in os.environ.items() if k not in ("SOTA_MATRIX", "CI", "GITHUB_ACTIONS")}

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}


def ms(xs):
    xs = sorted(xs)
    return (f"median {statistics.median(xs) * 1e3:7.3f} ms   min {xs[0] * 1e3:7.3f}   "
            f"p90 {xs[int(len(xs) * 0.9)] * 1e3:7.3f}   max {xs[-1] * 1e3:7.3f}   n={len(xs)}")


def spawn():
    return subprocess.Popen([SOTA, "mcp"], cwd=REPO, env=ENV, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def send(p, msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()


def questions():
    ops = json.loads(subprocess.run([SOTA, "list", "--json"], cwd=REPO, env=ENV,
                                    capture_output=True).stdout)["ops"]
    files = subprocess.run(["git", "ls-files", "--", "*.cu"], cwd=REPO,
                           capture_output=True, text=True).stdout.split()
    picks = files[len(files) // 2:len(files) // 2 + 12]
    return [
        ("lookup <slug>", "lookup", {"query": ops[len(ops) // 2]["slug"]}),
        ("lookup <file:LINE>", "lookup", {"query": picks[0] + ":42"}),
        ("ops_for_paths (3 paths)", "ops_for_paths", {"paths": picks[:3]}),
        ("ops_for_paths (12 paths)", "ops_for_paths", {"paths": picks}),
        ("milestones", "milestones", {}),
    ], len(ops), len(files)


def startup():
    times = []
    for _ in range(STARTS):
        t0 = time.perf_counter()
        p = spawn()
        send(p, INIT)
        line = p.stdout.readline()
        times.append(time.perf_counter() - t0)
        assert json.loads(line)["result"]["serverInfo"]["name"] == "sota", line
        p.stdin.close()
        p.wait()
    return times


def first_answer(q):
    """Spawn to the first tools/call result (initialize, initialized, call):
    includes loading the matrix, which a long session pays once."""
    _, tool, arguments = q
    times = []
    for _ in range(STARTS):
        t0 = time.perf_counter()
        p = spawn()
        send(p, INIT)
        p.stdout.readline()
        send(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(p, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": tool, "arguments": arguments}})
        line = p.stdout.readline()
        times.append(time.perf_counter() - t0)
        assert not json.loads(line)["result"].get("isError"), line[:300]
        p.stdin.close()
        p.wait()
    return times


def raw_round_trips(qs):
    p = spawn()
    send(p, INIT)
    p.stdout.readline()
    send(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    out, n = {}, 1
    for name, tool, arguments in qs:
        times = []
        for i in range(20 + RUNS):
            n += 1
            t0 = time.perf_counter()
            send(p, {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                     "params": {"name": tool, "arguments": arguments}})
            line = p.stdout.readline()
            dt = time.perf_counter() - t0
            reply = json.loads(line)
            assert reply["id"] == n and not reply["result"].get("isError"), line[:300]
            if i >= 20:
                times.append(dt)
        out[name] = times
    p.stdin.close()
    p.wait()
    return out


async def sdk_round_trips(qs):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    out = {}
    params = StdioServerParameters(command=SOTA, args=["mcp"], cwd=REPO, env=ENV)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for name, tool, arguments in qs:
                times = []
                for i in range(20 + RUNS):
                    t0 = time.perf_counter()
                    r = await session.call_tool(tool, arguments)
                    dt = time.perf_counter() - t0
                    assert not r.is_error, r
                    if i >= 20:
                        times.append(dt)
                out[name] = times
    return out


qs, n_ops, n_cu = questions()
print(f"repository: {REPO} ({n_ops} ops, {n_cu} tracked .cu files); load: {os.getloadavg()[0]:.2f}")
print(f"{'start-up to initialize result':32} {ms(startup())}")
print(f"{'start-up to first lookup result':32} {ms(first_answer(qs[0]))}")
for name, times in raw_round_trips(qs).items():
    print(f"{'raw  ' + name:32} {ms(times)}")
try:
    import mcp  # noqa: F401
    for name, times in asyncio.run(sdk_round_trips(qs)).items():
        print(f"{'sdk  ' + name:32} {ms(times)}")
except ImportError:
    print("official Python SDK: skipped (pip install mcp)")
print(f"load after: {os.getloadavg()[0]:.2f}")
