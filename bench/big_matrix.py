#!/usr/bin/env python3
"""Generate a large or broken matrix in a small git repository, for timing
how sota's load, diagnostics and coverage grow with the matrix's size.

    bench/big_matrix.py DIR --ops N [--broken] [--long-lines]

DIR gets a git repository with one tracked file per 10 ops and a sota.toml
of N ops (non-ASCII titles, `at`/`witness` anchors into the tracked files,
every 3rd op without an oracle, so coverage cites a `file:line:col` for
about half of them) and N/10 ladders.

--broken gives every op four problems (an unknown key, an unknown route, a
bad link, and every 2nd op a duplicate of an earlier slug, cited with its
first definition), so `sota list` renders about 4N located diagnostics.
--long-lines writes each op as one inline table on a single line of the
`op = [...]` array, i.e. the whole matrix is one line of N × ~400 bytes
(columns counted in characters on one very long line).

Deterministic: the same arguments give the same files.
"""
import argparse
import os
import subprocess


def git(repo, *args):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="Synth", GIT_AUTHOR_EMAIL="synth@example.org",
               GIT_COMMITTER_NAME="Synth", GIT_COMMITTER_EMAIL="synth@example.org",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    subprocess.run(["git", "-C", repo, *args], check=True, env=env,
                   stdout=subprocess.DEVNULL)


def op_fields(i, broken):
    m = i // 10
    slug = f"op-{i // 2:06d}" if broken and i % 2 else f"op-{i:06d}"
    f = {
        "slug": f'"{slug}"',
        "title": f'"Fused kernel n° {i} — attention · GEMM"',
        "files": f'["kernels/m{m:05d}/k{i}.cu", "kernels/m{m:05d}/**/*.cuh"]',
        "at": f'["kernels/m{m:05d}/k.cu#kernel_{i % 10}"]',
        "sota": '"FlashAttention-3 (Dao-AILab/flash-attention)"',
        "link": '"https://github.com/Dao-AILab/flash-attention"',
        "route": '"borrow"',
    }
    if i % 3:
        f["oracle"] = f'"a reference implementation agrees on random inputs ({i})"'
    if broken:
        f["colour"] = '"unknown key"'
        f["route"] = '"borow"'
        f["link"] = '"ftp://example.org/x"'
    return f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--ops", type=int, required=True)
    ap.add_argument("--broken", action="store_true")
    ap.add_argument("--long-lines", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    if not os.path.isdir(os.path.join(a.dir, ".git")):
        git(a.dir, "init", "-q")
    modules = max(1, a.ops // 10)
    for m in range(modules):
        d = os.path.join(a.dir, f"kernels/m{m:05d}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "k.cu"), "w") as fh:
            fh.write("".join(f"__global__ void kernel_{k}() {{}}\n" for k in range(10)))
    out = []
    if a.long_lines:
        items = []
        for i in range(a.ops):
            f = op_fields(i, a.broken)
            items.append("{ " + ", ".join(f"{k} = {v}" for k, v in f.items()) + " }")
        out.append("op = [" + ", ".join(items) + "]\n\n")
    out.append('[project]\nname = "big"\nreviewed = 2026-01-01\n\n')
    if not a.long_lines:
        for i in range(a.ops):
            out.append("[[op]]\n")
            out.extend(f"{k} = {v}\n" for k, v in op_fields(i, a.broken).items())
            out.append("\n")
    for l in range(max(1, a.ops // 10)):
        out.append(f'[[ladder]]\naxis = "axis-{l}"\nreached = "tiled"\n'
                   f'witness = "op-{l * 10:06d}"\n\n')
        for y, rung in enumerate(["naive", "tiled", "fused"]):
            out.append(f'[[ladder.rung]]\nname = "{rung}"\nyear = {2020 + y}\n'
                       f'summary = "{rung} — step {y}"\n\n')
    with open(os.path.join(a.dir, "sota.toml"), "w") as fh:
        fh.write("".join(out))
    git(a.dir, "add", "-A")
    git(a.dir, "commit", "-q", "-m", "big matrix", "--allow-empty")


if __name__ == "__main__":
    main()
