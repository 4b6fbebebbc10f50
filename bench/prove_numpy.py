#!/usr/bin/env python3
"""The baseline for bench/prove.sh: the metrics `sota prove` reports,
computed with NumPy in float64 over chunks of rows (so memory stays
bounded, as sota's does): cosine, max/mean abs and rel error with their
positions, median and p99 from the same 2^-7 log buckets, allclose with
torch's f32 defaults, argmax agreement along the last axis, bit identity,
NaN/Inf counts.

    bench/prove_numpy.py A.npy B.npy
"""
import sys

import numpy as np

a = np.load(sys.argv[1], mmap_mode="r")
b = np.load(sys.argv[2], mmap_mode="r")
rows = a.shape[0]
step = max(1, (1 << 20) // a.shape[1])
ab = aa = bb = sabs = srel = 0.0
finite = 0
max_abs = max_rel = -1.0
at_abs = at_rel = -1
close_bad = agree = bits = nf = 0
hist_abs = np.zeros(0x7FF * 128 + 1, np.int64)
hist_rel = np.zeros_like(hist_abs)
for r in range(0, rows, step):
    ca, cb = a[r:r + step], b[r:r + step]
    bits += int(np.count_nonzero(ca.view(np.uint32) != cb.view(np.uint32)))
    agree += int(np.count_nonzero(np.argmax(ca, axis=-1) == np.argmax(cb, axis=-1)))
    x = ca.astype(np.float64).ravel()
    y = cb.astype(np.float64).ravel()
    fin = np.isfinite(x) & np.isfinite(y)
    nf += int(x.size - np.count_nonzero(fin))
    x, y = x[fin], y[fin]
    finite += x.size
    d = np.abs(x - y)
    m = np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(m > 0, d / m, np.where(d == 0, 0.0, np.inf))
    ab += float(np.dot(x, y))
    aa += float(np.dot(x, x))
    bb += float(np.dot(y, y))
    sabs += float(d.sum())
    srel += float(rel.sum())
    i = int(np.argmax(d))
    if d[i] > max_abs:
        max_abs, at_abs = float(d[i]), r * a.shape[1] + i
    i = int(np.argmax(rel))
    if rel[i] > max_rel:
        max_rel, at_rel = float(rel[i]), r * a.shape[1] + i
    close_bad += int(np.count_nonzero(d > 1e-5 + 1.3e-6 * m))
    hist_abs += np.bincount((d.view(np.uint64) >> 45).astype(np.int64), minlength=hist_abs.size)
    hist_rel += np.bincount((rel.view(np.uint64) >> 45).astype(np.int64), minlength=hist_rel.size)


def quantile(h, q):
    rank = int(q * (h.sum() - 1))
    return int(np.searchsorted(np.cumsum(h), rank, side="right"))


print(f"cosine {ab / (np.sqrt(aa) * np.sqrt(bb))}")
print(f"max-abs {max_abs} at {np.unravel_index(at_abs, a.shape)}  mean {sabs / finite}")
print(f"max-rel {max_rel} at {np.unravel_index(at_rel, a.shape)}  mean {srel / finite}")
print(f"median/p99 buckets abs {quantile(hist_abs, 0.5)} {quantile(hist_abs, 0.99)}"
      f" rel {quantile(hist_rel, 0.5)} {quantile(hist_rel, 0.99)}")
print(f"allclose outside {close_bad}; argmax agree {agree}/{rows}; bits differ {bits}; non-finite {nf}")
