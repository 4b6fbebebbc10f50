#!/usr/bin/env python3
"""Interleaved runs of `cat a b` and one or more `sota prove` binaries on the
same pair, with each run's user and system CPU time, wall time, minor page
faults and peak RSS from wait4's rusage, and the load average before and
after. Commands run in turn (cat, first binary, second binary, cat, ...) so
a busy machine slows them alike; stdout goes to /dev/null (as `cat a b >
/dev/null`). Reports medians and the median per-round wall ratio to cat.

    bench/prove_paired.py [--runs N] [--warmup N] DIR BIN [BIN...]

A BIN may carry leading VAR=value words for its environment
("SOTA_X=1 target/release/sota"). The max RSS column is wait4's
ru_maxrss, which counts the forked Python process before exec: figures
below ~15 MiB mean "at most that"; use /usr/bin/time -v for small ones.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=10)
ap.add_argument("--warmup", type=int, default=1)
ap.add_argument("--threads", type=int, default=0)
ap.add_argument("dir")
ap.add_argument("bins", nargs="+")
a = ap.parse_args()

pair = [f"{a.dir}/a.npy", f"{a.dir}/b.npy"]
checks = ["--check", "cosine>=0.999", "--check", "max-abs<=1e-3",
          "--check", "allclose:rtol=1e-5", "--check", "argmax"]
cmds = [("cat a b", ["cat", *pair], dict(os.environ))]
for b in a.bins:
    words, env = shlex.split(b), dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith(("/", ".")):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    extra = ["--threads", str(a.threads)] if a.threads else []
    cmds.append((b, [*words, "prove", "-r", pair[0], "-c", pair[1], *checks, *extra], env))


def once(argv, env):
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, ru = os.wait4(p.pid, 0)
    return (time.perf_counter() - start, ru.ru_utime, ru.ru_stime, ru.ru_minflt, ru.ru_maxrss)


load0 = os.getloadavg()
for _ in range(a.warmup):
    for _, argv, env in cmds:
        once(argv, env)
res = [[] for _ in cmds]
for _ in range(a.runs):
    for i, (_, argv, env) in enumerate(cmds):
        res[i].append(once(argv, env))
load1 = os.getloadavg()
print(f"load average {load0[0]:.2f} before, {load1[0]:.2f} after; {a.runs} interleaved rounds")
print("| command | wall ms median (min) | user ms | sys ms | minor faults | max RSS MiB | wall / cat (median of rounds) |")
print("|:---|---:|---:|---:|---:|---:|---:|")
med = statistics.median
for i, (name, _, _) in enumerate(cmds):
    r = res[i]
    ratio = med(x[0] / c[0] for x, c in zip(r, res[0]))
    print(f"| `{name}` | {med(x[0] for x in r) * 1e3:.0f} ({min(x[0] for x in r) * 1e3:.0f}) "
          f"| {med(x[1] for x in r) * 1e3:.0f} | {med(x[2] for x in r) * 1e3:.0f} "
          f"| {med(x[3] for x in r):.0f} | {max(x[4] for x in r) / 1024:.1f} | {ratio:.2f} |")
