"""sota — the prior-art matrix as a tool, from Python.

    import sota
    result = sota.prove(reference, candidate, op="fused-attention")
    result.assert_ok()          # AssertionError whose message is the report
    sota.lookup("fused-attention")   # what `sota fused-attention --json` prints

`sota.prove` compares two in-memory tensors (numpy arrays, or anything
exposing ``__dlpack__`` or ``__array__``: a CPU torch tensor, a JAX
array, ml_dtypes' bfloat16 arrays) with the same Rust code as ``sota
prove`` on files: the same metrics, the same checks, the same report. The
pytest plugin (``sota.pytest_plugin``, loaded by pytest on its own) adds
the ``sota_prove`` fixture and ``@pytest.mark.sota(op=...)``.

Importing this module loads only the native extension; numpy is imported
on the first ``sota.prove``. See docs/python.md.
"""

from __future__ import annotations

from . import _native
from ._prove import ProveResult, prove

__version__ = _native.version()
__all__ = ["NotFound", "ProveResult", "lookup", "prove"]


class NotFound(LookupError):
    """`sota.lookup` matched nothing; ``.payload`` is the not-found answer
    (`sota <query> --json`'s, with its suggestions)."""

    def __init__(self, payload: dict):
        hint = ", ".join(payload.get("did_you_mean") or [])
        super().__init__(
            f"nothing in the matrix matches {payload.get('query')!r}"
            + (f"; did you mean {hint}?" if hint else "")
        )
        self.payload = payload


def lookup(path_or_op: str, *, matrix=None, cwd=None) -> dict:
    """The answer `sota <path_or_op> --json` prints, as a dict: an op by
    slug, the ops mapping a file, or a search. The matrix is found as the
    CLI finds it (``matrix=``, else ``$SOTA_MATRIX``, else the nearest
    ``sota.toml`` at or above ``cwd`` or the working directory, else the
    built-in catalog). Raises `NotFound` when nothing matches."""
    import json

    try:
        text = _native.lookup(
            str(path_or_op),
            matrix=None if matrix is None else str(matrix),
            cwd=None if cwd is None else str(cwd),
        )
    except LookupError as e:
        raise NotFound(json.loads(str(e.args[0]))) from None
    return json.loads(text)
