#!/usr/bin/env python3
"""Generate a tree dense with kernel files of realistic size.

    bench/synth_kernels.py DIR [--files 100000] [--kind asm|cuda]

The hostile case for `sota init` when most of a tree is kernels (round 19,
assembly by extension): DIR gets a git repository of FILES tracked files
over 2,000 directories. Six in ten are kernels of about 5 KB (a 60-line
licence header, then 80 scalar Alpha-style assembly lines for `asm`, or a
CUDA `__global__` body of the same size for `cuda`); for `asm`, two in ten
are `.byte` data tables (no kernel); the rest are small C files.
Deterministic. Each kernel's prefix is scanned for content signals, so
the cost grows with kernel count times kernel size (docs/BENCHMARKS.md).
"""
import argparse
import os

from synth_git import commit_all

LICENCE = "/*\n" + "".join(f" * licence line {i} of the header every file carries\n"
                            for i in range(60)) + " */\n"
ASM = '#include "common.h"\n' + "".join(f"\tLD\t$f{i % 31}, {i}*SIZE(X)\n\tMUL\t$f{i % 31}, $f1, $f2\n"
                                        for i in range(40))
CUDA = ("__global__ void k(float* x, const float* y) {\n"
        + "".join(f"  x[threadIdx.x + {i}] += y[threadIdx.x + {i}] * {i}.0f;\n" for i in range(80)) + "}\n")
DATA = "\t.section .rodata\n" + "".join(f"\t.byte {i}, {i + 1}, {i + 2}, {i + 3}\n" for i in range(200))
C = "int f(int x) { return x + 1; }\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=100000)
    ap.add_argument("--kind", choices=["asm", "cuda"], default="asm")
    a = ap.parse_args()
    kernel, ext = (ASM, ".S") if a.kind == "asm" else (CUDA, ".cu")
    os.makedirs(a.dir, exist_ok=True)
    for i in range(a.files):
        d = os.path.join(a.dir, f"kernel/arch{i % 50}/sub{(i // 50) % 40}")
        os.makedirs(d, exist_ok=True)
        r = i % 10
        if r < 6:
            name, text = f"k{i}{ext}", LICENCE + kernel
        elif r < 8 and a.kind == "asm":
            name, text = f"t{i}.S", LICENCE + DATA
        else:
            name, text = f"c{i}.c", LICENCE + C
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    commit_all(a.dir, "synthetic kernel-dense tree")
    print(f"{a.dir}: {a.files} files")


if __name__ == "__main__":
    main()
