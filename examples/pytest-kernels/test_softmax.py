"""The example suite: kernels proven against their oracle with sota."""

import ctypes
import json
import os
import subprocess

import numpy as np
import pytest

import sota
from kernels import softmax

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.sota(op="softmax")
def test_online_softmax_meets_the_ops_checks(sota_prove, logits):
    result = sota_prove(softmax.reference(logits), softmax.online(logits))
    assert result.verdict == "pass"
    assert [c["metric"] for c in result.checks] == ["cosine", "max-abs", "argmax"]


@pytest.mark.sota(op="softmax")
def test_the_planted_bug_fails_with_the_report(sota_prove, logits):
    with pytest.raises(AssertionError) as failed:
        sota_prove(softmax.reference(logits), softmax.online_planted_bug(logits))
    report = str(failed.value)
    assert "FAIL" in report and "checks of op softmax" in report
    # The report points at the unwritten row.
    assert "first differs at row [63]" in report


def test_the_matrix_is_found_as_the_cli_finds_it(tmp_path, logits, monkeypatch):
    ref, cand = softmax.reference(logits), softmax.online_planted_bug(logits)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # No sota.toml at or above `elsewhere`: the op cannot be found...
    with pytest.raises(ValueError, match="no sota.toml at or above"):
        sota.prove(ref, cand, op="softmax", cwd=elsewhere)
    # ...unless named by matrix= or $SOTA_MATRIX, as with the CLI.
    matrix = os.path.join(HERE, "sota.toml")
    assert sota.prove(ref, cand, op="softmax", cwd=elsewhere, matrix=matrix).verdict == "fail"
    monkeypatch.setenv("SOTA_MATRIX", matrix)
    assert sota.prove(ref, cand, op="softmax", cwd=elsewhere).verdict == "fail"


def test_checks_given_to_the_call_replace_the_ops(logits):
    ref, cand = softmax.reference(logits), softmax.online(logits)
    loose = sota.prove(ref, cand, checks="cosine>=0.9")
    strict = sota.prove(ref, cand, checks=["bit-identity"])
    assert loose.passed and not strict.passed
    assert loose.payload["checks_from"] == {"kind": "flag"}
    assert "bits" in strict.report


def test_metrics_only_without_checks(logits):
    result = sota.prove(logits, logits)
    assert result.verdict == "unjudged" and result.checks == []
    assert result.metrics["cosine"] == 1.0
    assert result.metrics["bits"]["differing"] == 0


def test_the_same_numbers_as_the_cli_on_files(tmp_path, logits):
    """One implementation: `sota prove --json` on .npy files gives the
    payload `sota.prove` gives on the arrays, but for the sides' names."""
    ref = softmax.reference(logits)
    cand = softmax.online_planted_bug(logits)
    np.save(tmp_path / "ref.npy", ref)
    np.save(tmp_path / "cand.npy", cand)
    cli = subprocess.run(
        ["sota", "prove", "softmax", "-r", str(tmp_path / "ref.npy"), "-c", str(tmp_path / "cand.npy"), "--json"],
        cwd=HERE,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 1, cli.stderr
    from_files = json.loads(cli.stdout)
    in_memory = sota.prove(ref, cand, op="softmax").payload
    for payload in (from_files, in_memory):
        del payload["reference"], payload["candidate"]
    assert in_memory == from_files


def test_lookup_is_the_clis_json():
    cli = subprocess.run(["sota", "softmax", "--json"], cwd=HERE, capture_output=True, text=True, check=True)
    assert sota.lookup("softmax") == json.loads(cli.stdout)
    assert sota.lookup("kernels/softmax.py")["schema"] == json.loads(
        subprocess.run(["sota", "kernels/softmax.py", "--json"], cwd=HERE, capture_output=True, text=True).stdout
    )["schema"]
    with pytest.raises(sota.NotFound) as nf:
        sota.lookup("sofmax")
    assert "softmax" in nf.value.payload["did_you_mean"]


def test_memory_layouts_are_read_in_place_and_strided_views_copied(logits):
    ref = softmax.reference(logits)
    fortran = np.asfortranarray(ref)
    assert sota.prove(ref, fortran, checks="bit-identity").copied == (False, False)
    strided = sota.prove(ref[:, ::2], ref[:, ::2], checks="bit-identity")
    assert strided.passed and strided.copied == (True, True)


class ArrayLike:
    """Not numpy: an object offering only ``__array__``."""

    def __init__(self, data):
        self._data = data

    def __array__(self, dtype=None, copy=None):
        return self._data


class DLPackOnly:
    """Not numpy: an object offering only the DLPack protocol."""

    def __init__(self, data):
        self._data = data

    def __dlpack__(self, **kwargs):
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()


def test_array_and_dlpack_protocols(logits):
    ref = softmax.reference(logits)
    for wrap in (ArrayLike, DLPackOnly):
        result = sota.prove(wrap(ref), wrap(softmax.online(logits)), op="softmax")
        assert result.passed, result.report
        assert result.copied == (False, False)
        assert wrap.__name__ in result.report


def test_bfloat16_candidate_against_a_bfloat16_reference(logits):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    ref = softmax.reference(logits).astype(ml_dtypes.bfloat16)
    cand = softmax.online(logits).astype(ml_dtypes.bfloat16)
    result = sota.prove(ref, cand, checks="allclose;cosine>=0.999")
    assert result.tensor["dtype"] == "bf16"
    assert result.passed, result.report
    # bf16's torch tolerances (rtol 1.6e-2) are what allclose applied.
    assert result.checks[0]["params"]["rtol"] == pytest.approx(1.6e-2)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class BFloat16DLPack:
    """A bfloat16 tensor offered only through DLPack (dtype code 4), as a
    CPU torch tensor offers one: numpy's from_dlpack cannot hold it."""

    def __init__(self, bits):
        self._bits = np.ascontiguousarray(bits, dtype=np.uint16)
        self._shape = (ctypes.c_int64 * bits.ndim)(*bits.shape)
        self._managed = _DLManagedTensor(
            _DLTensor(
                self._bits.ctypes.data, _DLDevice(1, 0), bits.ndim, _DLDataType(4, 16, 1), self._shape, None, 0
            ),
            None,
            None,
        )

    def __dlpack__(self, **kwargs):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self._managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (1, 0)


class StridedBFloat16:
    """A strided bfloat16 view as torch offers one (``t[:, ::2]``): it says
    so (``is_contiguous()``) and can copy itself (``contiguous()``); its
    DLPack capsule would carry strides sota does not read."""

    def __init__(self, bits):
        self._bits = bits

    def is_contiguous(self):
        return False

    def contiguous(self):
        return BFloat16DLPack(np.ascontiguousarray(self._bits))

    def __dlpack__(self, **kwargs):
        raise AssertionError("a strided capsule must not be handed to sota")

    def __dlpack_device__(self):
        return (1, 0)


def test_a_strided_bfloat16_view_is_copied_like_a_strided_numpy_view(logits):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    ref = softmax.reference(logits).astype(ml_dtypes.bfloat16)
    strided = ref.view(np.uint16)[:, ::2]
    result = sota.prove(StridedBFloat16(strided), BFloat16DLPack(np.ascontiguousarray(strided)), checks="bit-identity")
    assert result.passed, result.report
    assert result.copied == (True, False)
    assert result.tensor["dtype"] == "bf16"


def test_bfloat16_through_dlpack_is_read_in_place(logits):
    """What numpy cannot take from DLPack (bf16) sota reads from the capsule
    itself: the same figures as the same bits held by ml_dtypes."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    ref = softmax.reference(logits).astype(ml_dtypes.bfloat16)
    cand = softmax.online_planted_bug(logits).astype(ml_dtypes.bfloat16)
    with pytest.raises(Exception):
        np.from_dlpack(BFloat16DLPack(ref.view(np.uint16)))
    via_dlpack = sota.prove(BFloat16DLPack(ref.view(np.uint16)), BFloat16DLPack(cand.view(np.uint16)), op="softmax")
    via_numpy = sota.prove(ref, cand, op="softmax")
    assert via_dlpack.tensor["dtype"] == "bf16" and via_dlpack.verdict == "fail"
    assert via_dlpack.copied == (False, False)
    for r in (via_dlpack, via_numpy):
        del r.payload["reference"], r.payload["candidate"]
    assert via_dlpack.payload == via_numpy.payload


def test_unsupported_input_is_refused_with_what_works():
    with pytest.raises(TypeError, match="__dlpack__ or __array__"):
        sota.prove(object(), object())
    with pytest.raises(TypeError, match="complex64"):
        sota.prove(np.zeros(3, np.complex64), np.zeros(3, np.complex64))
    with pytest.raises(ValueError, match="shapes differ"):
        sota.prove(np.zeros(3, np.float32), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="no op `sofmax`"):
        sota.prove(np.zeros(3), np.zeros(3), op="sofmax")


def test_the_plugin_fails_a_test_with_the_report(pytester):
    pytester.makefile(".toml", sota=open(os.path.join(HERE, "sota.toml")).read())
    pytester.makepyfile(
        """
        import numpy as np
        import pytest

        @pytest.mark.sota(op="softmax")
        def test_kernel(sota_prove):
            ref = np.linspace(0, 1, 64, dtype=np.float32).reshape(4, 16)
            cand = ref.copy()
            cand[-1] = 0  # the planted bug: the last row never written
            sota_prove(ref, cand)
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*sota prove*checks of op softmax*", "*FAIL: * of 3 checks failed*"])


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _proven_kpi(cwd):
    out = subprocess.run(["sota", "coverage", "--json"], cwd=cwd, capture_output=True, text=True).stdout
    return next(k for k in json.loads(out)["kpis"] if k["name"] == "proven")


_SUITE_HEAD = """
        import numpy as np
        import pytest
        from kernels import softmax

        X = np.random.default_rng(1).standard_normal((32, 64)).astype(np.float32)
"""


def test_sota_record_writes_the_proof_the_scorecard_reads(pytester):
    """`pytest --sota-record` in a kernel repository: the record of the
    passing proof is written, a planted-bug test (a failing result inside
    a passing test) does not make it a failing one, and `sota coverage`
    sees the proof — then sees it go stale when the kernel changes."""
    repo = pytester.path
    (repo / "sota.toml").write_text(open(os.path.join(HERE, "sota.toml")).read())
    (repo / "kernels").mkdir()
    kernel = open(os.path.join(HERE, "kernels", "softmax.py")).read()
    (repo / "kernels" / "softmax.py").write_text(kernel)
    pytester.makepyfile(
        test_kernels=_SUITE_HEAD
        + """
        @pytest.mark.sota(op="softmax")
        def test_kernel(sota_prove):
            sota_prove(softmax.reference(X), softmax.online(X))

        @pytest.mark.sota(op="softmax")
        def test_the_checks_catch_the_planted_bug(sota_prove):
            with pytest.raises(AssertionError):
                sota_prove(softmax.reference(X), softmax.online_planted_bug(X))
        """
    )
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    assert _proven_kpi(repo)["debt"] == 1  # missing

    result = pytester.runpytest_subprocess("--sota-record", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    record = json.loads((repo / ".sota" / "proofs" / "softmax.json").read_text())
    assert record["schema"] == "sota.proof/v1" and record["op"] == "softmax"
    assert record["verdict"] == "pass", record
    assert [f["path"] for f in record["files"]] == ["kernels/softmax.py"]
    assert _proven_kpi(repo)["debt"] == 0

    # The kernel changes: once staged (the scorecard judges git's index),
    # the proof is stale.
    (repo / "kernels" / "softmax.py").write_text(kernel + "\n# faster\n")
    _git(repo, "add", "-A")
    stale = _proven_kpi(repo)
    assert stale["debt"] == 1 and "stale" in stale["items"][0]["why"], stale

    # A kernel that fails its checks: the record says so, and a later
    # passing test in the same session does not overwrite it.
    pytester.makepyfile(
        test_kernels=_SUITE_HEAD
        + """
        @pytest.mark.sota(op="softmax")
        def test_a_broken_kernel(sota_prove):
            sota_prove(softmax.reference(X), softmax.online_planted_bug(X))

        @pytest.mark.sota(op="softmax")
        def test_kernel(sota_prove):
            sota_prove(softmax.reference(X), softmax.online(X))
        """
    )
    result = pytester.runpytest_subprocess("--sota-record", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    record = json.loads((repo / ".sota" / "proofs" / "softmax.json").read_text())
    assert record["verdict"] == "fail"
    assert "failing" in _proven_kpi(repo)["items"][0]["why"]


def test_a_proof_record_from_python_is_the_clis(tmp_path, logits, monkeypatch):
    """`sota.prove(..., record=True)` writes the record `sota prove
    --record` writes, and only of the op's own checks."""
    (tmp_path / "sota.toml").write_text(open(os.path.join(HERE, "sota.toml")).read())
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "softmax.py").write_text("# kernel\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    ref, cand = softmax.reference(logits), softmax.online(logits)
    result = sota.prove(ref, cand, op="softmax", record=True, cwd=tmp_path)
    assert result.record == os.path.join(".sota", "proofs", "softmax.json")
    record = json.loads((tmp_path / result.record).read_text())
    assert record["verdict"] == "pass" and record["files"][0]["path"] == "kernels/softmax.py"
    with pytest.raises(ValueError, match="own `check` list"):
        sota.prove(ref, cand, op="softmax", checks="cosine>=0.5", record=True, cwd=tmp_path)
    with pytest.raises(ValueError, match="name it"):
        sota.prove(ref, cand, record=True, cwd=tmp_path)


def test_rows_along_any_axis_and_tiles(logits):
    """`axis=` and `tile=` are `sota prove --axis` / `--tile`: a column
    never written is the worst row along axis 0; a tile scaled ×1.5 (which
    a whole-tensor cosine forgives) fails the worst tile's rel-l2."""
    ref = softmax.reference(logits)
    bad_column = ref.copy()
    bad_column[:, 5] = 0
    by_rows = sota.prove(ref, bad_column, checks="row-cosine>=0.9")
    by_columns = sota.prove(ref, bad_column, checks="row-cosine>=0.9", axis=0)
    assert by_rows.verdict == "pass", by_rows.report
    assert by_columns.verdict == "fail", by_columns.report
    bad_tile = ref.copy()
    bad_tile[16:32, 32:48] *= 1.5
    assert sota.prove(ref, bad_tile, checks="cosine>=0.999").passed
    tiles = sota.prove(ref, bad_tile, checks="tile-rel-l2<=1e-3", tile=(16, 16))
    assert tiles.verdict == "fail", tiles.report
    assert tiles.report == sota.prove(ref, bad_tile, checks="tile-rel-l2<=1e-3", tile="16x16").report
