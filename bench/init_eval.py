#!/usr/bin/env python3
"""Judge `sota init` on a public kernel repository against a maintainer-style
list of its kernel files (docs/INIT.md says how the lists were chosen).

    bench/init_eval.py ggml|candle|flashinfer CHECKOUT

Runs `sota coverage --json` in CHECKOUT (after `sota init`), builds the
reference list from the rules below over `git ls-files`, and prints recall of
the population, the share of those in an op, and the population's extras.
"""
import fnmatch
import json
import re
import subprocess
import sys

# Reference lists: what a maintainer of each project would call its kernels.
RULES = {
    "ggml": {
        "globs": [
            "src/ggml-cuda/*.cu", "src/ggml-cuda/*.cuh", "src/ggml-cuda/*/*.cu", "src/ggml-cuda/*/*.cuh",
            "src/ggml-vulkan/vulkan-shaders/*.comp", "src/ggml-vulkan/vulkan-shaders/*.glsl",
            "src/ggml-opencl/kernels/*.cl", "src/ggml-webgpu/wgsl-shaders/*.wgsl",
            "src/ggml-metal/*.metal", "src/ggml-sycl/*.cpp", "src/ggml-sycl/*.hpp",
            "src/ggml-sycl/*/*.cpp", "src/ggml-cpu/arch/*/*.c", "src/ggml-cpu/arch/*/*.cpp",
            "src/ggml-cpu/amx/*.cpp", "src/ggml-cpu/kleidiai/*.cpp", "src/ggml-cpu/llamafile/*.cpp",
            "src/ggml-cpu/spacemit/*.cpp", "src/ggml-cpu/vec.cpp", "src/ggml-cpu/vec.h",
            "src/ggml-cpu/simd-mappings.h", "src/ggml-cpu/quants.c", "src/ggml-cpu/ops.cpp",
            "src/ggml-cpu/repack.cpp", "src/ggml-hexagon/htp/*.c", "src/ggml-hexagon/htp/*.h",
        ],
        "content": None,
    },
    "candle": {
        "globs": [
            "candle-kernels/src/*.cu", "candle-kernels/src/*.cuh", "candle-kernels/src/*/*.cu",
            "candle-kernels/src/*/*.cuh", "candle-metal-kernels/src/*.metal",
            "candle-metal-kernels/src/*/*.metal", "candle-flash-attn/kernels/*",
            "candle-flash-attn-v3/hkernel/*.h", "candle-flash-attn-v3/hkernel/*.cu",
            "candle-flash-attn-v3/hkernel/*.cuh", "candle-flash-attn-v3/hkernel/*.hpp",
            "candle-core/src/cpu/avx.rs", "candle-core/src/cpu/neon.rs", "candle-core/src/cpu/simd128.rs",
            "candle-core/src/quantized/avx.rs", "candle-core/src/quantized/neon.rs",
            "candle-core/src/quantized/simd128.rs",
        ],
        "content": None,
    },
    "flashinfer": {
        "globs": [
            "include/flashinfer/*.cuh", "include/flashinfer/*.h", "include/flashinfer/*/*",
            "include/flashinfer/*/*/*", "include/flashinfer/*/*/*/*",
            "csrc/*.cu", "csrc/*.cuh", "csrc/*/*.cu", "csrc/*/*.cuh", "csrc/*/*.h",
            "csrc/*/*/*.cu", "csrc/*/*/*.cuh", "csrc/*/*/*.h", "csrc/*/*/*/*.cu", "csrc/*/*/*/*.h",
        ],
        # Python DSL kernels: any module under flashinfer/ that uses Triton or CUTLASS/CuTe.
        "content": ("flashinfer/", re.compile(rb"^\s*(import triton|from triton|import cutlass|from cutlass)", re.M)),
    },
}
SKIP = re.compile(r"(^|/)(tests?|benchmarks?|examples?|docs?|third_party|3rdparty)/|cpu-feats|CMakeLists|\.(txt|md|json|py\.in|cmake|in)$")


def main():
    name, repo = sys.argv[1], sys.argv[2]
    rules = RULES[name]
    files = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True, check=True).stdout.split("\n")
    ref = set()
    for f in files:
        if not f or SKIP.search(f):
            continue
        if any(fnmatch.fnmatchcase(f, g) for g in rules["globs"]):
            ref.add(f)
        elif rules["content"] and f.startswith(rules["content"][0]) and f.endswith(".py"):
            with open(f"{repo}/{f}", "rb") as fh:
                if rules["content"][1].search(fh.read(1 << 20)):
                    ref.add(f)
    cov = json.loads(subprocess.run(["sota", "coverage", "--json", "--today", "2026-11-30"], cwd=repo,
                                    capture_output=True, text=True).stdout)
    pop = set(cov["population"]["kernel_files"])
    unc = set(cov["population"]["uncovered"])
    found = ref & pop
    in_op = found - unc
    print(f"{name}: reference {len(ref)} files; population {len(pop)}")
    print(f"  recall: {len(found)}/{len(ref)} = {100 * len(found) / max(len(ref), 1):.1f}% of the reference in the population")
    print(f"  in an op: {len(in_op)}/{len(found)} = {100 * len(in_op) / max(len(found), 1):.1f}% of those")
    print(f"  population outside the reference: {len(pop - ref)}")
    for label, items in (("missed", sorted(ref - pop)), ("extra", sorted(pop - ref))):
        if items:
            print(f"  {label} (first 15): " + ", ".join(items[:15]))


if __name__ == "__main__":
    main()
