"""Independent oracle for `sota prove`: generate tensors of every dtype,
shape, layout and byte order (with NaN, Inf, zeros, denormals and huge
values), run the real binary on them, and compare every metric it reports
with a NumPy float64 computation.

usage: python3 prove_oracle.py SOTA_BINARY WORKDIR
Exits 0 when every metric agrees; prints each disagreement otherwise.
"""

import json
import struct
import subprocess
import sys

import numpy as np

SOTA, WORK = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20260626)
failures = []
cases = 0

TORCH = {"f16": (1e-3, 1e-5), "bf16": (1.6e-2, 1e-5), "f32": (1.3e-6, 1e-5), "f64": (1e-7, 1e-7),
         # not torch.testing's (its table has no float8): sota's own, docs/prove.md
         "f8_e4m3": (2.0**-3, 2.0**-9), "f8_e5m2": (2.0**-2, 2.0**-16)}
QUANT_REL = 2.0**-8


# ---- decoders written independently of the Rust tables -------------------

def bf16_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def f8_to_f64(bits, exp_bits, man_bits, ieee):
    bits = bits.astype(np.int64)
    bias = 2 ** (exp_bits - 1) - 1
    sign = np.where(bits >> (exp_bits + man_bits) & 1, -1.0, 1.0)
    e = (bits >> man_bits) & (2**exp_bits - 1)
    m = bits & (2**man_bits - 1)
    sub = m * 2.0 ** (1 - bias - man_bits)
    norm = (2**man_bits + m) * np.exp2((e - bias - man_bits).astype(np.float64))
    val = sign * np.where(e == 0, sub, norm)
    top = e == 2**exp_bits - 1
    if ieee:
        val = np.where(top & (m == 0), sign * np.inf, val)
        val = np.where(top & (m != 0), np.nan, val)
    else:
        val = np.where(top & (m == 2**man_bits - 1), np.nan, val)
    return val


# ---- data ----------------------------------------------------------------

def float_pair(shape, np_dtype, specials=True, mismatch=False):
    """Reference and candidate float arrays with special values sprinkled in."""
    n = int(np.prod(shape)) if shape else 1
    finfo = np.finfo(np_dtype)
    a = rng.standard_normal(n) * 3
    b = a + rng.standard_normal(n) * (float(finfo.eps) * 40) * np.abs(a)
    if specials and n >= 16:
        idx = rng.permutation(n)
        k = max(1, n // 40)
        z, nz, den, huge, nan, inf, ninf = (idx[i * k:(i + 1) * k] for i in range(7))
        a[z] = 0.0
        b[z] = 0.0
        a[nz] = 0.0  # reference zero, candidate not: relative error is inf
        den_val = float(finfo.smallest_subnormal)
        a[den] = den_val * rng.integers(1, 4, len(den))
        b[den] = den_val * rng.integers(1, 4, len(den))
        big = float(finfo.max) / 4
        a[huge] = big * rng.uniform(0.5, 1, len(huge))
        b[huge] = a[huge] * (1 + float(finfo.eps))
        a[nan] = np.nan
        b[nan] = np.nan
        a[inf] = np.inf
        b[inf] = np.inf
        a[ninf] = -np.inf
        b[ninf] = -np.inf
        if mismatch:
            b[idx[7 * k]] = np.nan
            a[idx[7 * k + 1]] = np.inf
    with np.errstate(over="ignore"):
        return a.astype(np_dtype).reshape(shape), b.astype(np_dtype).reshape(shape)


def int_pair(shape, np_dtype):
    info = np.iinfo(np_dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    n = int(np.prod(shape)) if shape else 1
    a = rng.integers(lo, hi, n, endpoint=True)
    b = a.copy()
    flip = rng.random(n) < 0.3
    b[flip] = rng.integers(lo, hi, int(flip.sum()), endpoint=True)
    a, b = a.astype(np_dtype), b.astype(np_dtype)
    if n > 4:
        a[0], b[0] = info.max, info.max
        a[1], b[1] = info.min, info.min + (1 if info.min < info.max else 0)
    return a.astype(np_dtype).reshape(shape), b.astype(np_dtype).reshape(shape)


# ---- the NumPy oracle -------------------------------------------------------

def expected(a, b, raw_a, raw_b, dtype_name, quantile=0.99):
    """Every metric, from logical-order float64 arrays a, b and same-shape
    arrays of the raw element bits raw_a, raw_b."""
    shape = a.shape
    af, bf = a.reshape(-1), b.reshape(-1)
    fa, fb = np.isfinite(af), np.isfinite(bf)
    fin = fa & fb
    A, B = af[fin], bf[fin]
    d = np.abs(A - B)
    ma = np.abs(A)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(ma > 0, d / np.where(ma > 0, ma, 1), np.where(d == 0, 0.0, np.inf))
    out = {"finite_pairs": int(fin.sum()), "elements": int(af.size)}
    pos = np.flatnonzero(fin)

    def place(k, value):
        i = int(pos[k])
        return {"value": float(value), "index": list(np.unravel_index(i, shape)) if shape else [],
                "reference": float(af[i]), "candidate": float(bf[i])}

    if A.size:
        sa = np.max(np.abs(A)) or 1.0
        sb = np.max(np.abs(B)) or 1.0
        As, Bs = A / sa, B / sb
        aa, bb = np.dot(As, As), np.dot(Bs, Bs)
        if aa == 0 and bb == 0:
            cos = 1.0
        elif aa == 0 or bb == 0:
            cos = 0.0
        else:
            cos = float(np.clip(np.dot(As, Bs) / (np.sqrt(aa) * np.sqrt(bb)), -1, 1))
        out["cosine"] = cos
        out["max_abs"] = place(int(np.argmax(d)), d.max())
        out["max_rel"] = place(int(np.argmax(r)), r.max())
        out["mean_abs"] = float(np.mean(d))
        out["mean_rel"] = float(np.mean(r))
        out["median_abs"] = float(np.quantile(d, 0.5, method="lower"))
        out["median_rel"] = float(np.quantile(r, 0.5, method="lower"))
        out["quantile_abs"] = float(np.quantile(d, quantile, method="lower"))
        out["quantile_rel"] = float(np.quantile(r, quantile, method="lower"))
    else:
        for k in ["cosine", "max_abs", "max_rel", "mean_abs", "mean_rel", "median_abs",
                  "median_rel", "quantile_abs", "quantile_rel"]:
            out[k] = None
    rtol, atol = TORCH.get(dtype_name, (0.0, 0.0))
    out["allclose_mismatches"] = int(np.sum(d > atol + rtol * ma))
    # argmax over the last axis (NumPy semantics: first max, first NaN wins)
    last = shape[-1] if shape else 1
    if af.size and last > 0:
        rows_a = np.argmax(af.reshape(-1, last), axis=-1)
        rows_b = np.argmax(bf.reshape(-1, last), axis=-1)
        out["argmax_rows"] = int(rows_a.size)
        out["argmax_agree"] = int(np.sum(rows_a == rows_b))
        miss = np.flatnonzero(rows_a != rows_b)
        out["argmax_first_miss"] = (
            None if miss.size == 0 else
            {"row": list(np.unravel_index(int(miss[0]), shape[:-1])) if len(shape) > 1 else [],
             "reference": int(rows_a[miss[0]]), "candidate": int(rows_b[miss[0]])})
    else:
        out["argmax_rows"], out["argmax_agree"], out["argmax_first_miss"] = 0, 0, None
    bits = raw_a.reshape(-1) != raw_b.reshape(-1)
    out["bits_differing"] = int(bits.sum())
    out["bits_first"] = (list(np.unravel_index(int(np.argmax(bits)), shape)) if shape else []) if bits.any() else None

    def counts(x):
        return {"nan": int(np.isnan(x).sum()), "pos_inf": int(np.isposinf(x).sum()),
                "neg_inf": int(np.isneginf(x).sum())}

    def cls(x):
        return np.where(np.isnan(x), 1, np.where(np.isposinf(x), 2, np.where(np.isneginf(x), 3, 0)))

    out["nonfinite"] = {"reference": counts(af), "candidate": counts(bf)}
    mism = (cls(af) != cls(bf))
    out["nonfinite_mismatched"] = int(mism.sum())
    return out


def num(v):
    if isinstance(v, str):
        return {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}[v]
    return v


def close(got, want, rel):
    if want is None or got is None:
        return got is None and want is None
    got = num(got)
    if np.isinf(want) or np.isinf(got):
        return got == want
    return abs(got - want) <= rel * abs(want) + 1e-300


def compare(label, got, want):
    global cases
    cases += 1
    m = got["metrics"]

    def bad(what, g, w):
        failures.append(f"{label}: {what}: sota says {g}, numpy says {w}")

    if got["finite_pairs"] != want["finite_pairs"]:
        bad("finite_pairs", got["finite_pairs"], want["finite_pairs"])
    if got["elements"] != want["elements"]:
        bad("elements", got["elements"], want["elements"])
    for k, rel in [("cosine", 1e-12), ("mean_abs", 1e-12), ("mean_rel", 1e-12)]:
        if not close(m[k], want[k], rel):
            bad(k, m[k], want[k])
    for k in ["median_abs", "median_rel", "quantile_abs", "quantile_rel"]:
        w = want[k]
        g = num(m[k]) if m[k] is not None else None
        ok = (g is None and w is None) or (g is not None and w is not None and (
            g == w or (np.isfinite(w) and abs(g - w) <= QUANT_REL * w + 2.0**-1000)))
        if not ok:
            bad(k, m[k], w)
    for k in ["max_abs", "max_rel"]:
        g, w = m[k], want[k]
        if (g is None) != (w is None):
            bad(k, g, w)
        elif g is not None:
            if num(g["value"]) != w["value"] or g["index"] != w["index"] \
                    or num(g["reference"]) != w["reference"] or num(g["candidate"]) != w["candidate"]:
                bad(k, g, w)
    ac = m["allclose"][0]
    if ac["mismatches"] != want["allclose_mismatches"]:
        bad("allclose mismatches", ac["mismatches"], want["allclose_mismatches"])
    am = m["argmax"]
    if (am["rows"], am["agree"]) != (want["argmax_rows"], want["argmax_agree"]):
        bad("argmax rows/agree", (am["rows"], am["agree"]), (want["argmax_rows"], want["argmax_agree"]))
    if am["first_miss"] != want["argmax_first_miss"]:
        bad("argmax first miss", am["first_miss"], want["argmax_first_miss"])
    if m["bits"]["differing"] != want["bits_differing"]:
        bad("bits differing", m["bits"]["differing"], want["bits_differing"])
    first = m["bits"]["first"]["index"] if m["bits"]["first"] else None
    if first != want["bits_first"]:
        bad("first differing bits", first, want["bits_first"])
    nf = m["nonfinite"]
    if nf["reference"] != want["nonfinite"]["reference"] or nf["candidate"] != want["nonfinite"]["candidate"]:
        bad("non-finite counts", nf, want["nonfinite"])
    if nf["mismatched"] != want["nonfinite_mismatched"]:
        bad("non-finite mismatched", nf["mismatched"], want["nonfinite_mismatched"])


def run(args, label):
    p = subprocess.run([SOTA, "prove", "--json", *args], capture_output=True, text=True)
    if p.returncode not in (0, 1) or "panicked" in p.stderr:
        failures.append(f"{label}: exit {p.returncode}: {p.stderr.strip()}")
        return None
    return json.loads(p.stdout)


def unsigned_view(x):
    size = x.dtype.itemsize
    u = np.dtype(f"u{size}").newbyteorder(x.dtype.byteorder if x.dtype.byteorder in "<>" else "=")
    return x.view(u)


# ---- .npy: every numeric dtype NumPy writes, both byte orders, C and F ---

SHAPES = [(), (7,), (3, 5), (2, 3, 4), (0, 3), (5, 1), (3, 70001), (2, 40000, 2)]
DTYPES = ["f8", "f4", "f2", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"]
NAMES = {"f8": "f64", "f4": "f32", "f2": "f16", "i1": "i8", "i2": "i16", "i4": "i32",
         "i8": "i64", "u1": "u8", "u2": "u16", "u4": "u32", "u8": "u64", "b1": "bool"}

for code in DTYPES:
    for shape in SHAPES:
        big_shape = int(np.prod(shape)) > 1000
        for order in "<>":
            if code in ("i1", "u1", "b1") and order == ">":
                continue
            for fortran in (False, True):
                if big_shape and (order == ">" or code not in ("f4", "f8", "f2", "i4")):
                    continue
                dt = np.dtype(order + code)
                if code == "b1":
                    a = rng.random(shape) < 0.5
                    b = a.copy()
                    b.reshape(-1)[::3] = ~b.reshape(-1)[::3]
                elif code.startswith("f"):
                    a, b = float_pair(shape, np.dtype(code), mismatch=(shape == (3, 70001) and fortran))
                else:
                    a, b = int_pair(shape, np.dtype(code))
                a, b = a.astype(dt), b.astype(dt)
                if fortran:
                    a, b = np.asfortranarray(a), np.asfortranarray(b)
                label = f"npy {dt.str} shape={shape} {'F' if fortran else 'C'}"
                fa, fb = f"{WORK}/a.npy", f"{WORK}/b.npy"
                np.save(fa, a)
                np.save(fb, b)
                got = run(["-r", fa, "-c", fb], label)
                if got:
                    want = expected(a.astype(np.float64), b.astype(np.float64),
                                    unsigned_view(a), unsigned_view(b), NAMES[code])
                    compare(label, got["tensors"][0], want)

# Mixed layouts: a C-order reference against a Fortran-order candidate.
a, b = float_pair((4, 6, 5), np.float32)
np.save(f"{WORK}/a.npy", a)
np.save(f"{WORK}/b.npy", np.asfortranarray(b))
got = run(["-r", f"{WORK}/a.npy", "-c", f"{WORK}/b.npy"], "npy mixed layouts")
if got:
    compare("npy mixed layouts", got["tensors"][0],
            expected(a.astype(np.float64), b.astype(np.float64), unsigned_view(a), unsigned_view(b), "f32"))

# A chosen quantile and several thread counts give the same figures.
a, b = float_pair((200, 1000), np.float32)
np.save(f"{WORK}/a.npy", a)
np.save(f"{WORK}/b.npy", b)
want = expected(a.astype(np.float64), b.astype(np.float64), unsigned_view(a), unsigned_view(b), "f32", 0.9)
outs = []
for threads in ("1", "2", "5"):
    got = run(["-r", f"{WORK}/a.npy", "-c", f"{WORK}/b.npy", "--quantile", "0.9", "--threads", threads],
              f"quantile 0.9 threads {threads}")
    if got:
        compare(f"quantile 0.9 threads {threads}", got["tensors"][0], want)
        outs.append(json.dumps(got["tensors"], sort_keys=True))
if len(set(outs)) != 1:
    failures.append("results differ between --threads 1, 2 and 5")


# ---- .safetensors: every dtype, several tensors per file -------------------

def safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"written_by": "prove_oracle.py"}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


ref, cand, wants = {}, {}, {}
for st, code in [("F64", "f8"), ("F32", "f4"), ("F16", "f2"), ("I8", "i1"), ("I16", "i2"),
                 ("I32", "i4"), ("I64", "i8"), ("U8", "u1"), ("U16", "u2"), ("U32", "u4"),
                 ("U64", "u8"), ("BOOL", "b1")]:
    shape = (6, 9)
    dt = np.dtype("<" + code)
    if code == "b1":
        a = rng.random(shape) < 0.5
        b = ~a
    elif code.startswith("f"):
        a, b = float_pair(shape, dt)
    else:
        a, b = int_pair(shape, dt)
    a, b = np.ascontiguousarray(a.astype(dt)), np.ascontiguousarray(b.astype(dt))
    name = f"t_{st.lower()}"
    ref[name] = (st, shape, a.tobytes())
    cand[name] = (st, shape, b.tobytes())
    wants[name] = expected(a.astype(np.float64), b.astype(np.float64), unsigned_view(a), unsigned_view(b),
                           NAMES[code])

# bfloat16 and float8 as bit patterns, decoded independently above.
for st, width, decode, name_ in [
    ("BF16", np.uint16, bf16_to_f64, "bf16"),
    ("F8_E4M3", np.uint8, lambda x: f8_to_f64(x, 4, 3, False), "f8_e4m3"),
    ("F8_E5M2", np.uint8, lambda x: f8_to_f64(x, 5, 2, True), "f8_e5m2"),
]:
    shape = (5, 17)
    ra = rng.integers(0, np.iinfo(width).max, shape, endpoint=True).astype(width)
    rb = ra.copy()
    flip = rng.random(shape) < 0.4
    rb[flip] = (ra[flip].astype(np.int64) + rng.integers(-2, 3, int(flip.sum()))).clip(0, np.iinfo(width).max).astype(width)
    # keep NaN/Inf in the same places so the comparison is not all about them
    va, vb = decode(ra), decode(rb)
    bad_pos = ~np.isfinite(va) | ~np.isfinite(vb)
    rb[bad_pos] = ra[bad_pos]
    vb = decode(rb)
    name = f"t_{name_}"
    ref[name] = (st, shape, ra.astype("<" + np.dtype(width).str[1:]).tobytes())
    cand[name] = (st, shape, rb.astype("<" + np.dtype(width).str[1:]).tobytes())
    wants[name] = expected(va, vb, ra, rb, name_)

ref["only_here"] = ("F32", (1,), np.zeros(1, "<f4").tobytes())
safetensors(f"{WORK}/a.safetensors", ref)
safetensors(f"{WORK}/b.safetensors", cand)
got = run(["-r", f"{WORK}/a.safetensors", "-c", f"{WORK}/b.safetensors"], "safetensors")
if got:
    names = [t["name"] for t in got["tensors"]]
    if names != sorted(wants):
        failures.append(f"safetensors: compared {names}, expected {sorted(wants)}")
    if got["only_in_reference"] != ["only_here"]:
        failures.append(f"safetensors: only_in_reference is {got['only_in_reference']}")
    for t in got["tensors"]:
        compare(f"safetensors {t['name']} ({t['dtype']})", t, wants[t["name"]])
got = run(["-r", f"{WORK}/a.safetensors", "-c", f"{WORK}/b.safetensors", "--tensor", "t_bf16"], "--tensor")
if got and [t["name"] for t in got["tensors"]] != ["t_bf16"]:
    failures.append("--tensor t_bf16 did not select exactly that tensor")

# ---- raw files with --dtype and --shape -----------------------------------

for dtype_flag, np_code in [("f32", "<f4"), (">f4", ">f4"), ("f64", "<f8"), ("i16", "<i2")]:
    shape = (4, 33)
    dt = np.dtype(np_code)
    if dt.kind == "f":
        a, b = float_pair(shape, dt.newbyteorder("="))
    else:
        a, b = int_pair(shape, dt.newbyteorder("="))
    a, b = a.astype(dt), b.astype(dt)
    a.tofile(f"{WORK}/a.bin")
    b.tofile(f"{WORK}/b.bin")
    label = f"raw --dtype {dtype_flag}"
    got = run(["-r", f"{WORK}/a.bin", "-c", f"{WORK}/b.bin", "--dtype", dtype_flag, "--shape", "4,33"], label)
    if got:
        name = {"f": {4: "f32", 8: "f64"}, "i": {2: "i16"}}[dt.kind][dt.itemsize]
        compare(label, got["tensors"][0],
                expected(a.astype(np.float64), b.astype(np.float64), unsigned_view(a), unsigned_view(b), name))

for f in failures:
    print(f)
print(f"{cases} comparisons, {len(failures)} disagreements")
sys.exit(1 if failures or cases < 100 else 0)
