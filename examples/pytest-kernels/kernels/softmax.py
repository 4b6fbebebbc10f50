"""Row softmax three ways: the oracle, a tiled online kernel (what a GPU
kernel does: running max and sum per row, 16 columns at a time), and the
same kernel with a planted bug (its row loop stops one row short, so the
last row of the output is never written)."""

import numpy as np

TILE = 16


def reference(x):
    """The oracle: the textbook formula in float64, rounded once to the
    kernel's float32 (sota compares like with like)."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def online(x, rows=None):
    """The kernel under test: float32, one pass over column tiles."""
    x = np.asarray(x, dtype=np.float32)
    out = np.zeros_like(x)
    n = x.shape[0] if rows is None else rows
    for r in range(n):
        m = np.float32(-np.inf)
        s = np.float32(0)
        for c in range(0, x.shape[1], TILE):
            t = x[r, c : c + TILE]
            m_new = max(m, t.max())
            s = s * np.exp(m - m_new) + np.exp(t - m_new).sum(dtype=np.float32)
            m = m_new
        out[r] = np.exp(x[r] - m) / s
    return out


def online_planted_bug(x):
    """The kernel with an off-by-one: the last row is never written."""
    return online(x, rows=np.asarray(x).shape[0] - 1)
