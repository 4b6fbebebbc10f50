"""The pytest plugin (entry point ``pytest11``, loaded by pytest itself).

    @pytest.mark.sota(op="fused-attention")
    def test_attention(sota_prove):
        sota_prove(reference, candidate)   # fails the test with the report

- ``sota_prove``: a fixture; calling it runs `sota.prove` and fails the
  test (AssertionError, the report as its message) when a check fails.
  ``op=`` / ``checks=`` / ``matrix=`` given to the call win; else the
  test's ``@pytest.mark.sota(op=..., checks=..., matrix=...)``; else
  ``--sota-matrix``. It returns the `sota.ProveResult`.
- ``@pytest.mark.sota(op=..., checks=...)``: names the op a test proves.
- ``--sota-matrix PATH``: the matrix the ops' checks are read from.
- ``--sota-record``: write each op's proof record (``.sota/proofs/OP.json``
  under the matrix root, as ``sota prove OP --record``), meant to be
  committed; ``sota coverage``, the gate and the report read it. Which
  results count: a proof judged by the op's own checks (``op=`` without
  ``checks=``), in a test that ended. A test that *passed* records its
  passing results only (a failing result inside a passing test was
  expected: a planted bug the checks must catch, not the kernel). A test
  that *failed* records its failing results. Once an op has a failing
  record in a session, no passing result of a later test replaces it.
"""

from __future__ import annotations

import json

import pytest

_RESULTS = pytest.StashKey[list]()
_FAILED_OPS = pytest.StashKey[set]()


def pytest_addoption(parser):
    group = parser.getgroup("sota", "sota: prove kernels against their oracle")
    group.addoption(
        "--sota-matrix",
        metavar="PATH",
        default=None,
        help="the sota.toml to read ops' checks from (default: as the sota CLI finds it)",
    )
    group.addoption(
        "--sota-record",
        action="store_true",
        default=False,
        help="write each op's proof record (.sota/proofs/OP.json) from the tests that proved it",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "sota(op=None, checks=None, matrix=None): the op this test proves with the sota_prove fixture",
    )
    config.stash[_FAILED_OPS] = set()


@pytest.fixture
def sota_prove(request):
    """Prove a candidate against a reference; fails the test with the
    report when a check fails. Returns the `sota.ProveResult`."""
    import sota

    marker = request.node.get_closest_marker("sota")
    mark = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        mark.setdefault("op", marker.args[0])
    default_matrix = request.config.getoption("--sota-matrix")

    def prove(reference, candidate, **kwargs):
        __tracebackhide__ = True
        if "checks" not in kwargs and "op" not in kwargs:
            for key in ("op", "checks"):
                if mark.get(key) is not None:
                    kwargs[key] = mark[key]
        if kwargs.get("matrix") is None:
            kwargs["matrix"] = mark.get("matrix") or default_matrix
        result = sota.prove(reference, candidate, **kwargs)
        request.node.user_properties.append(("sota", result.verdict))
        if kwargs.get("op") and not kwargs.get("checks") and result.verdict != "unjudged":
            kept = request.node.stash.setdefault(_RESULTS, [])
            kept.append((kwargs["op"], result, kwargs.get("matrix"), kwargs.get("cwd")))
        return result.assert_ok()

    return prove


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not item.config.getoption("--sota-record", default=False):
        return
    results = item.stash.get(_RESULTS, [])
    if not results or not (report.passed or report.failed):
        return
    from . import _native

    failed_ops = item.config.stash[_FAILED_OPS]
    wanted = "pass" if report.passed else "fail"
    for op, result, matrix, cwd in results:
        if result.verdict != wanted or (wanted == "pass" and op in failed_ops):
            continue
        if wanted == "fail":
            failed_ops.add(op)
        path = _native.write_record(
            op,
            json.dumps(result.payload),
            matrix=None if matrix is None else str(matrix),
            cwd=None if cwd is None else str(cwd),
        )
        report.user_properties.append(("sota-record", path))
