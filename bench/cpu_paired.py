#!/usr/bin/env python3
"""Interleaved CPU-time comparison: like bench/paired.py, but each run's
user+sys CPU time comes from wait4's rusage, which other agents' load on a
shared machine inflates far less than wall time. Reports per command the
median CPU ms, median wall ms, median minor page faults, and the median of
the per-round CPU ratios to the first (baseline) command.

    bench/cpu_paired.py [--runs N] [--warmup N] BASELINE CMD...

Each command is a shell-free string; leading VAR=value words set its
environment (e.g. "MIMALLOC_ALLOW_THP=0 target/release/sota list").
"""
import argparse
import os
import shlex
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=40)
ap.add_argument("--warmup", type=int, default=5)
ap.add_argument("commands", nargs="+")
a = ap.parse_args()

cmds = []
for c in a.commands:
    words, env = shlex.split(c), dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith(("/", ".")):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    cmds.append((words, env))


def once(words, env):
    start = time.perf_counter()
    p = subprocess.Popen(words, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - start, ru.ru_minflt


for _ in range(a.warmup):
    for words, env in cmds:
        once(words, env)
res = [[] for _ in cmds]
for _ in range(a.runs):
    for i, (words, env) in enumerate(cmds):
        res[i].append(once(words, env))

base = [r[0] for r in res[0]]
print(f"load {os.getloadavg()[0]:.2f}, {a.runs} interleaved rounds")
print("| command | CPU ms (median) | wall ms (median) | minor faults | CPU ratio to baseline |")
print("|:---|---:|---:|---:|---:|")
for i, c in enumerate(a.commands):
    cpu = [r[0] for r in res[i]]
    wall = [r[1] for r in res[i]]
    faults = statistics.median(r[2] for r in res[i])
    ratio = statistics.median(x / b for x, b in zip(cpu, base))
    print(f"| `{c}` | {statistics.median(cpu) * 1e3:.2f} | {statistics.median(wall) * 1e3:.2f} | {faults:.0f} | {ratio:.3f} |")
