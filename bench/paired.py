#!/usr/bin/env python3
"""Interleaved whole-process timing: run a baseline and candidates in
alternation (A B C A B C ...) so that a noisy machine slows all of them
alike, then report each command's median wall time and the median of the
per-round ratios to the baseline. A cross-check for hyperfine, which runs
each command's repetitions back to back.

    bench/paired.py [--runs N] [--warmup N] BASELINE CMD...   (each a shell-free command string)
"""
import argparse
import shlex
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=200)
ap.add_argument("--warmup", type=int, default=20)
ap.add_argument("commands", nargs="+")
a = ap.parse_args()
cmds = [shlex.split(c) for c in a.commands]


def once(argv):
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


for _ in range(a.warmup):
    for c in cmds:
        once(c)
times = [[] for _ in cmds]
for _ in range(a.runs):
    for i, c in enumerate(cmds):
        times[i].append(once(c))
print("| command | median ms | min ms | median ratio to baseline |")
print("|:---|---:|---:|---:|")
for i, c in enumerate(a.commands):
    ratios = [t / b for t, b in zip(times[i], times[0])]
    print(f"| `{c}` | {statistics.median(times[i]) * 1e3:.2f} | {min(times[i]) * 1e3:.2f} | {statistics.median(ratios):.2f} |")
