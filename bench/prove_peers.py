#!/usr/bin/env python3
"""The planted attention bugs of docs/prove.md ("Peers"), judged by
torch.testing.assert_close, Polygraphy's CompareFunc.simple and `sota prove`
with the catalog's default checks for fused-attention.

usage: bench/prove_peers.py SOTA_BINARY DIR
Needs numpy; torch and polygraphy are used when importable (else marked
"not run"). Writes the tensors and a sota.toml into DIR.
"""
import json, subprocess, sys
from pathlib import Path

import numpy as np

sota, out = sys.argv[1], Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
H, Q, K, D = 4, 1024, 128, 64
rng = np.random.default_rng(2026)
q, k, v = (rng.uniform(-2, 2, (1, H, n, D)) for n in (Q, K, K))


def attention(p_dtype=None):
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    if p_dtype is None:
        return p @ v
    # A bf16 kernel: P and V rounded to bf16, f32 accumulation, bf16 output.
    return bf16(bf16(p).astype(np.float32) @ bf16(v).astype(np.float32))


def bf16(x):
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32)


ref = attention().astype(np.float32)
good = (attention() * (1 + 1e-7 * rng.standard_normal(ref.shape))).astype(np.float32)
row_bug = good.copy()
row_bug[:, :, -1, :] = 0
tile_bug = good.copy()
tile_bug[0, 2, 512:528, :] *= 1.5
kernel_bf16 = attention("bf16")
cases = {
    "correct f32 kernel": good,
    "last query row never written": row_bug,
    "one 16-row tile x1.5": tile_bug,
    "correct bf16 kernel (P in bf16)": kernel_bf16,
    "bf16 kernel, one 16-row tile x1.5": kernel_bf16 * np.where(
        (np.arange(Q) >= 512) & (np.arange(Q) < 528), 1.5, 1.0)[None, None, :, None] ** (
        np.arange(H)[None, :, None, None] == 2),
}

catalog = json.loads(subprocess.run([sota, "--catalog", "fused-attention", "--json"],
                                    capture_output=True, text=True, check=True).stdout)
items = ",\n".join("  { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in c.items()) + " }"
                   for c in catalog["op"]["check"])
(out / "sota.toml").write_text('[project]\nname = "peers"\n\n[[op]]\nslug = "fused-attention"\n'
                               f'title = "Attention"\nsota = "FlashAttention"\ncheck = [\n{items}\n]\n')
np.save(out / "ref.npy", ref)

try:
    import torch
except ImportError:
    torch = None
try:
    from polygraphy.comparator import CompareFunc, IterationResult
except ImportError:
    CompareFunc = None


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return a @ b / np.sqrt((a @ a) * (b @ b))


def torch_verdict(cand, is_bf16):
    if torch is None:
        # assert_close's documented rule, emulated: |actual - expected| <=
        # atol + rtol * |expected| everywhere, with the loosest default of
        # the two dtypes (torch/testing/_comparison.py default_tolerances).
        rtol, atol = (1.6e-2, 1e-5) if is_bf16 else (1.3e-6, 1e-5)
        bad = int(np.sum(np.abs(np.float64(cand) - ref) > atol + rtol * np.abs(np.float64(ref))))
        return "emulated: " + ("pass" if bad == 0 else f"FAIL ({bad} of {ref.size} mismatched)")
    c = torch.from_numpy(np.ascontiguousarray(cand, np.float32))
    if is_bf16:
        c = c.to(torch.bfloat16)  # exact: the values are bf16 already
    try:
        # check_dtype=False: a bf16 candidate against the f32 reference takes
        # the larger (bf16) default tolerances.
        torch.testing.assert_close(c, torch.from_numpy(ref), check_dtype=False)
        return "pass"
    except AssertionError as e:
        return "FAIL (" + str(e).splitlines()[1].strip().rstrip(".") + ")"


def polygraphy_verdict(cand):
    if CompareFunc is None:
        return "not run"
    res = CompareFunc.simple()(IterationResult({"out": ref}, runner_name="ref"),
                               IterationResult({"out": np.asarray(cand, np.float32)}, runner_name="cand"))
    return "pass" if bool(res["out"]) else "FAIL"


def sota_verdict(name, cand, is_bf16):
    path = out / (name.replace(" ", "_").replace("(", "").replace(")", "") + ".npy")
    np.save(path, np.asarray(cand, np.float32))
    args = [sota, "prove", "fused-attention", "-r", "ref.npy", "-c", path.name, "--json"]
    if is_bf16:  # as a real bf16 tensor: a .safetensors file
        raw = (np.asarray(cand, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
        header = json.dumps({"out": {"dtype": "BF16", "shape": list(ref.shape),
                                     "data_offsets": [0, len(raw)]}}).encode()
        st = path.with_suffix(".safetensors")
        st.write_bytes(len(header).to_bytes(8, "little") + header + raw)
        args[6] = st.name
    r = subprocess.run(args, cwd=out, capture_output=True, text=True)
    rep = json.loads(r.stdout)
    failed = [c["metric"] + " " + str(round(c["value"], 6)) for c in rep["tensors"][0]["checks"] if not c["pass"]]
    return "pass" if rep["verdict"] == "pass" else "FAIL (" + ", ".join(failed) + ")"


print(f"torch {torch.__version__ if torch else '-'}; polygraphy "
      f"{__import__('polygraphy').__version__ if CompareFunc else '-'}; numpy {np.__version__}")
print("| candidate | cosine | torch assert_close | Polygraphy simple | sota (catalog defaults) |")
print("|:---|---:|:---|:---|:---|")
for name, cand in cases.items():
    is_bf16 = "bf16" in name
    print(f"| {name} | {cosine(ref, cand):.6f} | {torch_verdict(cand, is_bf16)} | "
          f"{polygraphy_verdict(cand)} | {sota_verdict(name, cand, is_bf16)} |")
