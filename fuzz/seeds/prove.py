#!/usr/bin/env python3
"""Seed inputs for the `npy`, `safetensors` and `prove_spec` fuzz targets
(docs/FUZZING.md): valid headers of several dtypes, byte orders, layouts
and format versions, written by NumPy itself where it can, and a few lying
ones. Writes into fuzz/corpus/<target>/seed-*; rerun after changing it.
Needs numpy; the .safetensors files are written by hand (the format is an
8-byte length and a JSON header), the way the reference implementation
lays them out."""
import io
import json
import os
import struct

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "..", "corpus")


def put(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def npy_bytes(a, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, a)
    else:
        np.lib.format.write_array(buf, a, version=version)
    return buf.getvalue()


# --- .npy: NumPy writes these ---
rng = np.random.default_rng(15)
for dt in ["<f4", ">f4", "<f2", "<f8", ">f8", "<i2", ">i4", "<i8", "|u1", "<u2", ">u4", "<u8", "|i1", "|b1"]:
    a = (rng.standard_normal((2, 3)) * 10).astype(dt)
    put("npy", f"{dt[1:]}-{'be' if dt[0] == '>' else 'le'}.npy", npy_bytes(a))
put("npy", "f4-fortran.npy", npy_bytes(np.asfortranarray(rng.standard_normal((3, 2)).astype("<f4"))))
put("npy", "scalar.npy", npy_bytes(np.float64(1.5)))
put("npy", "empty.npy", npy_bytes(np.zeros((0, 4), "<f4")))
put("npy", "4d.npy", npy_bytes(np.zeros((1, 2, 1, 3), ">i2")))
put("npy", "v2.npy", npy_bytes(np.arange(3, dtype="<f4"), version=(2, 0)))
put("npy", "v3.npy", npy_bytes(np.arange(3, dtype="<u2"), version=(3, 0)))


def npy_raw(header, data, version=1):
    h = header.encode()
    size = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + size + h + data


# --- .npy: lying headers ---
put("npy", "lie-short-data.npy", npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", b"\0" * 8))
put("npy", "lie-overflow.npy", npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615, 2), }", b""))
put("npy", "lie-header-len.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'")
put("npy", "lie-structured.npy", npy_raw("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", b"\0" * 4))
put("npy", "lie-no-order.npy", npy_raw("{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }", b"\0" * 4))
put("npy", "lie-list-shape.npy", npy_raw("{'descr': '<f8', 'fortran_order': True, 'shape': [2, 2], }", b"\0" * 32))


# --- .safetensors ---
def st(tensors, data, metadata=None):
    h = dict(tensors)
    if metadata is not None:
        h["__metadata__"] = metadata
    hb = json.dumps(h, separators=(",", ":")).encode()
    hb += b" " * (-len(hb) % 8)  # the reference pads the header to 8 bytes
    return struct.pack("<Q", len(hb)) + hb + data


sizes = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "I64": 8, "I32": 4,
         "I16": 2, "I8": 1, "U64": 8, "U32": 4, "U16": 2, "U8": 1, "BOOL": 1}
for dt, n in sizes.items():
    put("safetensors", f"{dt.lower()}.safetensors",
        st({"w": {"dtype": dt, "shape": [2, 2], "data_offsets": [0, 4 * n]}}, bytes(range(4 * n))))
put("safetensors", "three.safetensors", st({
    "b": {"dtype": "F16", "shape": [3], "data_offsets": [0, 6]},
    "a": {"dtype": "BF16", "shape": [], "data_offsets": [6, 8]},
    "c": {"dtype": "F32", "shape": [0, 5], "data_offsets": [8, 8]},
}, b"\x01" * 8, {"format": "pt"}))
put("safetensors", "empty.safetensors", st({}, b""))
put("safetensors", "lie-overlap.safetensors", st({
    "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
    "b": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}}, b"\0" * 6))
put("safetensors", "lie-hole.safetensors", st({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8))
put("safetensors", "lie-size.safetensors", st({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8))
put("safetensors", "lie-overflow.safetensors",
    st({"a": {"dtype": "F32", "shape": [4611686018427387904, 8], "data_offsets": [0, 0]}}, b""))
put("safetensors", "lie-negative.safetensors", st({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4))
put("safetensors", "lie-header-len.safetensors", struct.pack("<Q", 2**64 - 1) + b"{}")
put("safetensors", "lie-past-end.safetensors", st({"a": {"dtype": "U8", "shape": [9], "data_offsets": [0, 9]}}, b"\0" * 4))

# --- the --check / --shape / --dtype flags, one a line ---
for i, (check, shape, dtype) in enumerate([
    ("cosine>=0.999; max-abs <= 1e-3", "2,3,4", "f32"),
    ("argmax", "[2, 3]", ">f4"),
    ("allclose:rtol=1e-5,atol=1e-8", "4x5", "bf16"),
    ("max-rel≤1e-2;bit-identity", "()", "float8_e4m3fn"),
    ("allclose(rtol=0.1)", "(7,)", "<i2"),
    ("argmax>=0.99", "3×3", "u8"),
    ("cosin>=2", "2,-1", "complex64"),
    ("", "18446744073709551615,2", "=f8"),
]):
    put("prove_spec", f"{i}", f"{check}\n{shape}\n{dtype}".encode())
