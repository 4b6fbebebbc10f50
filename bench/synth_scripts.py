#!/usr/bin/env python3
"""Generate a synthetic web monorepo: every file TypeScript / JavaScript.

    bench/synth_scripts.py DIR [--files 100000]

The hostile case for `sota init` reading script files (round 18): DIR gets
a git repository of FILES tracked files spread over 200 packages, seven in
eight `.ts` / `.tsx` / `.js` modules of about 5 KB (a loop, typed arrays,
a filler comment block), one in eight `.json` / `.md`, and one module in
500 holding a WGSL shader string (`vec4<f32>`), so init reads every
script's prefix and finds a few kernels. Deterministic.
"""
import argparse
import os

from synth_git import commit_all

BODY = ("import { Tensor } from '../tensor';\n\n"
        "export function f%d(a: Tensor, b: number[]): Tensor {\n"
        "  const out = new Array<number>(b.length);\n"
        "  for (let i = 0; i < b.length; i++) { out[i] = b[i] * 2; }\n"
        "  return a.reshape(out);\n}\n" + "// filler line for a realistic module size\n" * 120)
SHADER = ("export class P%d { getUserCode(): string {\n"
          "  return `fn main(index : i32) { let v = vec4<f32>(0.0); }`; } }\n")
EXTS = [".ts", ".ts", ".ts", ".js", ".tsx", ".json", ".md", ".ts"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=100000)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    for i in range(a.files):
        d = os.path.join(a.dir, f"packages/pkg{i % 200}/src/sub{(i // 200) % 25}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"mod_{i}{EXTS[i % len(EXTS)]}"), "w") as f:
            f.write((SHADER if i % 500 == 0 else BODY) % i)
    commit_all(a.dir, "synthetic web monorepo")
    print(f"{a.dir}: {a.files} files")


if __name__ == "__main__":
    main()
