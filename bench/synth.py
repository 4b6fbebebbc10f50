#!/usr/bin/env python3
"""Generate the synthetic large repository the benchmarks run against.

    bench/synth.py DIR [--files 100000] [--ops 1000] [--staged 12] [--commits 0] [--op-names]

DIR gets a git repository with FILES tracked files spread over OPS module
directories (CUDA/Metal kernels, headers, Go/Rust/Python sources, docs), a
sota.toml with OPS ops (three globs each: a per-module `*.cu`, a per-module
`*.cuh`, and the module's header directory, or for every 50th op a `**`
glob for its headers anywhere) and a [kernels]
population, one commit, and a staged change of STAGED files (a third of
them kernels). With --commits N it also appends N commits of history that
touch a few files each, a quarter of them with a `Prior-art:` trailer, built
with `git fast-import` so generating 5,000 commits takes seconds.

With --op-names, file names are kernel-style (`rms_norm_3.cu`, `fattn_7.cuh`,
`mul_mat_q4_k_2.metal`, …) and C/Go/Rust/Python sources carry SIMD, CUDA or
Triton markers in a share of files, and one header defines device-code
macros that a share of the other headers and C++ sources use, so `sota init`
has real work to do (bench/init.sh).

Deterministic: the same arguments give the same tree and hashes.
"""
import argparse
import os
import random
import subprocess
import sys

EXTS = [".cu", ".cuh", ".metal", ".go", ".rs", ".py", ".md", ".h", ".txt", ".cc"]


def git(repo, *args, **kw):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="Synth", GIT_AUTHOR_EMAIL="synth@example.org",
               GIT_COMMITTER_NAME="Synth", GIT_COMMITTER_EMAIL="synth@example.org",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    return subprocess.run(["git", "-C", repo, *args], check=True, env=env, **kw)


OP_WORDS = ["fattn", "rms_norm", "mul_mat_q4_k", "softmax", "rope", "topk_moe", "allreduce",
            "conv2d", "argsort", "cumsum", "get_rows", "swiglu", "paged_attention", "mmq",
            "ssm_scan", "layer_norm", "gemm", "binbcast", "unary", "cpy"]


def module_files(ops, files, op_names=False):
    per = files // ops
    extra = files - per * ops
    for m in range(ops):
        n = per + (1 if m < extra else 0)
        for j in range(n):
            ext = EXTS[j % len(EXTS)]
            if ext == ".h":
                yield f"include/mod{m}/op{m}_{j}.h"
            elif op_names:
                yield f"src/mod{m}/{OP_WORDS[(m + j) % len(OP_WORDS)]}_{j}{ext}"
            else:
                yield f"src/mod{m}/file{j}{ext}"


MARKERS = {".cc": "#include <immintrin.h>\n", ".h": "__global__ void k();\n",
           ".py": "import triton\n@triton.jit\ndef k(): pass\n", ".rs": "use std::arch::x86_64::*;\n"}


# A library's own names for device code (`#define ROCPRIM_DEVICE __device__`),
# defined in one header and used by a share of the headers and C++ sources
# that carry no marker of their own, so init's second read of every unmarked
# C-family file (src/surface/init/device_macros.rs) runs as in rocPRIM or
# PyTorch (`C10_DEVICE`).
DEVICE_MACROS = "#define SYN_DEVICE __device__ __forceinline__\n#define SYN_KERNEL __global__\n"
MACRO_HEADER = "include/mod0/op0_7.h"
MACRO_USES = "SYN_DEVICE float lo();\nSYN_DEVICE float hi();\nSYN_DEVICE float mid();\n"


def file_body(p, op_names, i):
    text = f"// {p}\n"
    ext = os.path.splitext(p)[1]
    if op_names and ext in MARKERS and i % 3 == 0:
        text += MARKERS[ext]
    elif op_names and p == MACRO_HEADER:
        text += DEVICE_MACROS
    elif op_names and ext in (".h", ".cc") and i % 6 == 1:
        text += MACRO_USES
    return text


def matrix(ops):
    out = ["[project]", 'name = "synthetic"', "reviewed = 2026-01-01", "",
           "[kernels]", 'include = ["src/**/*.cu", "src/**/*.cuh", "src/**/*.metal"]',
           'exclude = ["src/mod0/**"]', ""]
    for m in range(ops):
        # A mix like real matrices: per-directory wildcards, a whole
        # directory (trailing /), and every 50th op a `**` glob.
        third = f'"**/op{m}_*.h"' if m % 50 == 0 else f'"include/mod{m}/"'
        out += ["[[op]]", f'slug = "op-{m}"', f'title = "Synthetic operation {m}"',
                f'files = ["src/mod{m}/*.cu", "src/mod{m}/*.cuh", {third}]',
                f'at = ["src/mod{m}/file0.cu"]',
                f'sota = "Reference kernel {m}"', f'link = "https://example.org/ref/{m}"',
                'route = "bind"', 'oracle = "f32 reference (cosine >= 0.999)"', ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--staged", type=int, default=12)
    ap.add_argument("--commits", type=int, default=0)
    ap.add_argument("--op-names", action="store_true")
    a = ap.parse_args()
    repo = os.path.abspath(a.dir)
    if os.path.exists(os.path.join(repo, ".git")):
        sys.exit(f"{repo} already holds a repository; remove it first")
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    paths = list(module_files(a.ops, a.files - 1, a.op_names))
    for i, p in enumerate(paths):
        full = os.path.join(repo, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(file_body(p, a.op_names, i))
    with open(os.path.join(repo, "sota.toml"), "w") as f:
        f.write(matrix(a.ops))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "synthetic tree")

    if a.commits:
        rng = random.Random(42)
        head = git(repo, "rev-parse", "HEAD", capture_output=True, text=True).stdout.strip()
        stream = []
        for c in range(a.commits):
            touched = rng.sample(paths, 3)
            kernel = any(t.endswith((".cu", ".cuh")) for t in touched)
            msg = f"change {c}\n\nTouch {len(touched)} files.\n"
            if kernel and c % 4 == 0:
                msg += f"\nPrior-art: Reference kernel {c % a.ops} (example.org); oracle cosine >= 0.999\n"
            elif kernel and c % 4 == 1:
                msg += "\nPrior-art: n/a\n"
            data = msg.encode()
            stamp = 1767225600 + c * 60
            stream.append(f"commit refs/heads/main\nmark :{c + 1}\n"
                          f"author Synth <synth@example.org> {stamp} +0000\n"
                          f"committer Synth <synth@example.org> {stamp} +0000\n"
                          f"data {len(data)}\n")
            stream.append(data.decode())
            stream.append(f"from {head}\n" if c == 0 else f"from :{c}\n")
            for t in touched:
                if a.op_names and t == MACRO_HEADER:
                    continue  # it keeps defining the device macros
                body = f"// {t} v{c}\n".encode()
                stream.append(f"M 100644 inline {t}\ndata {len(body)}\n{body.decode()}\n")
        git(repo, "fast-import", "--quiet", input="".join(stream), text=True)
        git(repo, "reset", "-q", "--hard", "main")

    rng = random.Random(7)
    kernels = [p for p in paths if p.endswith(".cu") and not p.startswith("src/mod0/")]
    others = [p for p in paths if p.endswith((".py", ".md"))]
    staged = rng.sample(kernels, a.staged // 3) + rng.sample(others, a.staged - a.staged // 3)
    for p in staged:
        with open(os.path.join(repo, p), "a") as f:
            f.write("// staged edit\n")
    git(repo, "add", "--", *staged)
    print(f"{repo}: {len(paths) + 1} files, {a.ops} ops, {a.commits} extra commits, {len(staged)} staged")


if __name__ == "__main__":
    main()
