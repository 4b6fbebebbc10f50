"""`sota.prove`: hand two in-memory tensors to the native comparison.

Each side becomes a numpy view of the caller's memory (no copy for numpy
arrays, DLPack producers or ``__array__`` objects whose memory is
contiguous in C or Fortran order) and reaches Rust through the buffer
protocol as bytes plus dtype, shape and memory order. Only a strided
(non-contiguous) view is copied, and the result says so.
"""

from __future__ import annotations

import sys

from . import _native

# numpy dtype names → sota's (`sota prove --dtype`).
_DTYPES = {
    "float64": "f64",
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "float8_e4m3fn": "f8_e4m3",
    "float8_e5m2": "f8_e5m2",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "bool": "bool",
}


class ProveResult:
    """What `sota.prove` found.

    ``verdict``   ``"pass"``, ``"fail"`` or ``"unjudged"`` (no checks given)
    ``passed``    the verdict is not ``"fail"``
    ``report``    the human report, as ``sota prove`` prints it
    ``payload``   the ``sota.prove/v1`` JSON payload (``sota prove --json``)
    ``metrics``   the pair's metrics (``payload["tensors"][0]["metrics"]``)
    ``checks``    each check's metric, value, bound and pass
    ``copied``    per side, whether its data had to be copied (strided views)
    ``record``    the proof record written (``record=True``), root-relative,
                  else None
    """

    def __init__(self, payload: dict, report: str, verdict: str, copied: tuple, record=None):
        self.payload = payload
        self.report = report
        self.verdict = verdict
        self.copied = copied
        self.record = record

    @property
    def passed(self) -> bool:
        return self.verdict != "fail"

    @property
    def tensor(self) -> dict:
        return self.payload["tensors"][0]

    @property
    def metrics(self) -> dict:
        return self.tensor["metrics"]

    @property
    def checks(self) -> list:
        return self.tensor["checks"]

    def assert_ok(self) -> "ProveResult":
        """Raise AssertionError, with the report as its message, when a
        check failed; return self otherwise."""
        __tracebackhide__ = True
        if self.verdict == "fail":
            raise AssertionError(self.report)
        return self

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.report

    def __repr__(self) -> str:
        n = len(self.checks)
        return f"<sota.ProveResult {self.verdict}: {n} check{'s' if n != 1 else ''}>"


def _as_numpy(x, np):
    """A numpy view of ``x``; or, for a DLPack tensor numpy cannot hold
    (bfloat16, float8 from torch), its DLPack capsule, read in Rust."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        try:
            return np.from_dlpack(x)
        except (BufferError, TypeError, ValueError, RuntimeError) as e:
            try:
                return _Capsule(x.__dlpack__())
            except Exception:
                if not hasattr(x, "__array__"):
                    raise TypeError(f"sota.prove cannot read this {type(x).__name__} through DLPack: {e}") from e
    if hasattr(x, "__array__") or hasattr(x, "__array_interface__") or isinstance(x, (list, tuple)):
        return np.asarray(x)
    raise TypeError(
        f"sota.prove reads numpy arrays and objects with __dlpack__ or __array__, not {type(x).__name__}"
    )


class _Capsule:
    def __init__(self, capsule):
        self.capsule = capsule


def _made_contiguous(x, np):
    """A tensor that says it is strided (torch's ``is_contiguous()``) and
    can copy itself (``contiguous()``): the copy, and True. A bfloat16 or
    float8 view numpy cannot hold reaches sota through DLPack, which reads
    only C or Fortran order; numpy copies its own strided views below."""
    if isinstance(x, np.ndarray):
        return x, False
    is_contiguous = getattr(x, "is_contiguous", None)
    contiguous = getattr(x, "contiguous", None)
    if callable(is_contiguous) and callable(contiguous):
        try:
            if not is_contiguous():
                return contiguous(), True
        except TypeError:
            pass
    return x, False


def _side(x, np, name):
    x, copied_first = _made_contiguous(x, np)
    arr = _as_numpy(x, np)
    if isinstance(arr, _Capsule):
        # dtype, shape and order come from the DLPack header itself.
        # `x` (a copy made here, maybe) owns the memory the capsule points
        # at: the caller keeps it until the comparison is done.
        return (arr.capsule, "dlpack", (), False), copied_first, x
    dtype = _DTYPES.get(arr.dtype.name)
    if dtype is None:
        raise TypeError(
            f"sota.prove: the {name}'s dtype {arr.dtype} is not one sota compares "
            f"({', '.join(sorted(set(_DTYPES.values())))})"
        )
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and sys.byteorder == "big"):
        dtype = ">" + dtype
    copied = copied_first
    if arr.flags.c_contiguous:
        fortran = False
    elif arr.flags.f_contiguous:
        fortran = True
    else:
        arr = np.ascontiguousarray(arr)
        fortran, copied = False, True
    # The elements in memory order, as bytes: a view, never a copy.
    flat = arr.reshape(-1, order="F" if fortran else "C").view(np.uint8)
    return (flat, dtype, tuple(int(d) for d in arr.shape), fortran), copied, arr


def prove(
    reference,
    candidate,
    *,
    op=None,
    checks=None,
    matrix=None,
    axis=-1,
    tile=None,
    quantile=0.99,
    threads=0,
    cwd=None,
    record=False,
) -> ProveResult:
    """Compare ``candidate`` with ``reference`` and judge the checks.

    ``checks``  check specs as ``sota prove --check`` takes them
                (``"cosine>=0.999"``, ``"allclose:rtol=1e-3"``, a list, or
                one string joined with ``;``); they replace the op's.
    ``op``      take the checks of this op from the matrix (found as the
                CLI finds it: ``matrix=``, ``$SOTA_MATRIX``, the nearest
                ``sota.toml`` at or above ``cwd`` or the working directory).
    neither     metrics only: the verdict is ``"unjudged"``.
    ``axis``    the axis rows run along (negative counts from the end): the
                per-row figures (worst row cosine and max-abs, rows
                failing, where the worst is) and ``row-*`` checks, as
                ``sota prove --axis``.
    ``tile``    tiles over the last two axes, ``"16x16"`` or ``(16, 16)``:
                the per-tile figures and ``tile-*`` checks (``--tile``).
    ``record``  write the op's proof record ``.sota/proofs/OP.json`` under
                the matrix root, as ``sota prove OP --record`` does (needs
                ``op=`` and the op's own checks; ``result.record`` is its
                path). ``coverage``, the gate and the report read it.

    The metrics, checks and report are those of ``sota prove`` on the same
    data in files: one implementation, in Rust.
    """
    import json

    import numpy as np

    # The owners of both sides' memory stay referenced until the end.
    a, ca, _owner_a = _side(reference, np, "reference")
    b, cb, _owner_b = _side(candidate, np, "candidate")
    if isinstance(tile, (tuple, list)):
        tile = "x".join(str(int(t)) for t in tile)
    if isinstance(checks, str):
        checks = [checks]
    payload, report, verdict, written = _native.prove(
        a,
        b,
        op=op,
        checks=list(checks or []),
        matrix=None if matrix is None else str(matrix),
        quantile=float(quantile),
        threads=int(threads),
        labels=(_label(reference), _label(candidate)),
        cwd=None if cwd is None else str(cwd),
        axis=int(axis),
        tile=None if tile is None else str(tile),
        record=bool(record),
    )
    return ProveResult(json.loads(payload), report, verdict, (ca, cb), written)


def _label(x):
    return f"{type(x).__module__.split('.')[0]}.{type(x).__name__}"
