#!/usr/bin/env python3
"""`sota.prove` on in-memory arrays against `sota prove` on the same data
in .npy files (docs/BENCHMARKS.md, "The Python package").

    python python/bench/prove_memory.py [RUNS] [MiB]

Writes two float32 .npy files of MiB MiB each (default 256) into a
temporary directory, the candidate the reference times (1 + 1e-6·N(0,1)),
then alternates, RUNS times (default 11): the installed `sota` CLI on the
files (a fresh process each time, files in the page cache), and
`sota.prove` on the arrays in this process. Same checks for both. Prints
each run, the medians, the ratio of medians and the median of the paired
ratios. Also the import time of `sota` (fresh interpreters, median of 21).
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import sota

CHECKS = ["cosine>=0.999", "max-abs<=1e-3", "allclose:rtol=1e-5", "argmax"]


def import_ms(n=21):
    code = "import time; t = time.perf_counter(); import sota; print((time.perf_counter() - t) * 1e3)"
    base = "import time; t = time.perf_counter(); import json; print((time.perf_counter() - t) * 1e3)"
    got = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) for _ in range(n)]
    ref = [float(subprocess.run([sys.executable, "-c", base], capture_output=True, text=True, check=True).stdout) for _ in range(n)]
    return statistics.median(got), min(got), max(got), statistics.median(ref)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    cols = 4096
    rows = mib * (1 << 20) // 4 // cols
    rng = np.random.default_rng(0)
    a = rng.standard_normal((rows, cols), dtype=np.float32)
    b = (a * (1 + 1e-6 * rng.standard_normal((rows, cols), dtype=np.float32))).astype(np.float32)
    d = tempfile.mkdtemp(prefix="sota-bench-")
    try:
        np.save(os.path.join(d, "a.npy"), a)
        np.save(os.path.join(d, "b.npy"), b)
        cli = [shutil.which("sota"), "prove", "-r", os.path.join(d, "a.npy"), "-c", os.path.join(d, "b.npy")]
        for c in CHECKS:
            cli += ["--check", c]
        # Warm-up: page cache, first-touch.
        subprocess.run(cli, stdout=subprocess.DEVNULL, check=False)
        sota.prove(a, b, checks=CHECKS)
        t_cli, t_py = [], []
        for i in range(runs):
            t = time.perf_counter()
            subprocess.run(cli, stdout=subprocess.DEVNULL, check=False)
            t_cli.append(time.perf_counter() - t)
            t = time.perf_counter()
            r = sota.prove(a, b, checks=CHECKS)
            t_py.append(time.perf_counter() - t)
            print(f"run {i + 1}: cli {t_cli[-1] * 1e3:8.1f} ms   sota.prove {t_py[-1] * 1e3:8.1f} ms", flush=True)
        assert r.copied == (False, False)
        mc, mp = statistics.median(t_cli), statistics.median(t_py)
        paired = statistics.median(p / c for p, c in zip(t_py, t_cli))
        print(f"{rows}x{cols} f32, {mib} MiB each, {runs} runs, load {os.getloadavg()[0]:.2f}")
        print(f"median: cli {mc * 1e3:.1f} ms (min {min(t_cli) * 1e3:.1f}), sota.prove {mp * 1e3:.1f} ms (min {min(t_py) * 1e3:.1f})")
        print(f"sota.prove / cli: {mp / mc:.3f} (median of paired ratios {paired:.3f})")
    finally:
        shutil.rmtree(d)
    med, lo, hi, base = import_ms()
    print(f"import sota: median {med:.2f} ms (min {lo:.2f}, max {hi:.2f}); import json alone {base:.2f} ms")


if __name__ == "__main__":
    main()
