#!/usr/bin/env python3
"""The original scorecard's algorithm, kept as the baseline `sota coverage`
is measured against: for every tracked file, fnmatch against every glob of
every op (no index, no compiled set), to find the kernel files no op covers
and the globs that match nothing.

    bench/naive_coverage.py [REPO]     (run from, or pointed at, a repository with sota.toml)

Prints the number of kernel files, uncovered files and dead globs. Its glob
dialect is fnmatch's (`*` crosses `/`), as the original's was; it exists
for timing, not as an oracle.
"""
import fnmatch
import os
import subprocess
import sys
import tomllib

repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
with open(os.path.join(repo, "sota.toml"), "rb") as f:
    matrix = tomllib.load(f)
files = subprocess.run(["git", "-C", repo, "ls-files", "-z"], capture_output=True, check=True).stdout
files = [p.decode("utf-8", "replace") for p in files.split(b"\0") if p]
ops = matrix.get("op", [])
kernels = matrix.get("kernels", {})
include = kernels.get("include", ["**/*.cu", "**/*.cuh", "**/*.metal"])
exclude = kernels.get("exclude", [])

kernel_files = {p for p in files
                if any(fnmatch.fnmatch(p, g) for g in include)
                and not any(fnmatch.fnmatch(p, g) for g in exclude)}
alive = set()
uncovered = []
for path in files:
    covered = False
    for op in ops:
        for g in op.get("files", []):
            if fnmatch.fnmatch(path, g):
                covered = True
                alive.add(g)
    if not covered and path in kernel_files:
        uncovered.append(path)
dead = [g for op in ops for g in op.get("files", []) if g not in alive]
print(f"kernel files {len(kernel_files)}, uncovered {len(uncovered)}, dead globs {len(dead)}")
