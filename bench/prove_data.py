#!/usr/bin/env python3
"""Write a reference/candidate pair of f32 .npy tensors for bench/prove.sh:
ROWS x 4096 values, the candidate off by a relative ~1e-6, written in
chunks so generation itself needs little memory.

    bench/prove_data.py DIR [GIB]      (default 1 GiB per tensor)
"""
import sys

import numpy as np

out = sys.argv[1]
gib = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
cols = 4096
rows = int(gib * (1 << 30) / 4 / cols)
rng = np.random.default_rng(7)
a = np.lib.format.open_memmap(f"{out}/a.npy", mode="w+", dtype="<f4", shape=(rows, cols))
b = np.lib.format.open_memmap(f"{out}/b.npy", mode="w+", dtype="<f4", shape=(rows, cols))
step = 1024
for r in range(0, rows, step):
    x = rng.standard_normal((min(step, rows - r), cols), dtype=np.float32)
    a[r:r + step] = x
    b[r:r + step] = x * (1 + rng.standard_normal(x.shape, dtype=np.float32) * 1e-6)
a.flush()
b.flush()
