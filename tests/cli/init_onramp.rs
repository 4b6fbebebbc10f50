//! `sota init` on repositories it has never seen (issue 30, items 1–3):
//! kernels found by what the files contain, infrastructure left out with
//! the reason in the draft, the population written as rules that cover a
//! kernel added tomorrow, ops chosen by what a file computes, and never the
//! repository itself as its own prior art.

use crate::harness::Sota;

const TODAY: &str = "2026-12-02";

fn plan(p: &Sota) -> serde_json::Value {
    let run = p.run(&["init", "--dry-run", "--json", "--today", TODAY]);
    run.success();
    run.json()
}

fn kind_and_op(plan: &serde_json::Value, path: &str) -> (String, Option<String>) {
    let k = plan["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["path"] == path)
        .unwrap_or_else(|| panic!("{path} is not in the population: {plan}"));
    (
        k["kind"].as_str().unwrap().to_owned(),
        k["op"].as_str().map(str::to_owned),
    )
}

fn in_population(plan: &serde_json::Value, path: &str) -> bool {
    plan["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k["path"] == path)
}

/// The draft's `[kernels] exclude` globs.
fn excludes(plan: &serde_json::Value) -> Vec<&str> {
    plan["exclude"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

/// A left-out file's role and reason, when the draft left it out.
fn left_out<'a>(plan: &'a serde_json::Value, path: &str) -> Option<(&'a str, Option<&'a str>)> {
    plan["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == path)
        .map(|s| (s["role"].as_str().unwrap(), s["reason"].as_str()))
}

#[test]
fn kernels_outside_kernel_extensions_are_found_by_their_content() {
    let p = Sota::new()
        .git_init()
        // Metal source generated from Swift strings.
        .file(
            "Sources/FA/GEMMKernel+Source.swift",
            "extension GEMMKernel {\n  func source() -> String {\n    return \"\"\"\n    kernel void gemm(device float *A [[buffer(0)]],\n      uint3 gid [[threadgroup_position_in_grid]]) {}\n    \"\"\"\n  }\n}\n",
        )
        // Swift host code that names no Metal is not a kernel.
        .file(
            "Sources/FA/GEMMDescriptor.swift",
            "struct GEMMDescriptor { var m: Int }\n",
        )
        // Metal kernels as header templates.
        .file(
            "mlx/backend/metal/kernels/steel/attn.h",
            "#include <metal_stdlib>\ntemplate <typename T> [[kernel]] void attention() {}\n",
        )
        // cuTile Python.
        .file(
            "ops/cutile/rms_norm.py",
            "import cuda.tile as ct\n\n@ct.kernel\ndef rms_norm(x):\n    pass\n",
        )
        // A CuTe DSL helper that only uses `dsl_user_op`.
        .file(
            "ops/cutedsl/ce_utils.py",
            "import cutlass\nfrom cutlass.cutlass_dsl import dsl_user_op\n\n@dsl_user_op\ndef f():\n    pass\n",
        )
        // A wgmma base in an `.impl` file.
        .file(
            "include/ops/mma/base/64x16.impl",
            "template<int N> __device__ static inline void rt_st() {\n  asm volatile(\"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0}\");\n}\n",
        )
        // An AVX-512 header whose intrinsics start past the prefix: its
        // target pragma says what it is compiled for.
        .file(
            "include/dots/genoa.h",
            "#pragma GCC target(\"avx2\", \"avx512f\", \"avx512bf16\")\nvoid nk_dots_genoa(float *c) { c[0] = 0; }\n",
        )
        // A package `__init__.py` that only imports the DSL defines nothing.
        .file("ops/cutedsl/__init__.py", "import cutlass.cute as cute\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for (path, kind) in [
        ("Sources/FA/GEMMKernel+Source.swift", "metal"),
        ("mlx/backend/metal/kernels/steel/attn.h", "metal"),
        ("ops/cutile/rms_norm.py", "cutile"),
        ("ops/cutedsl/ce_utils.py", "cute-dsl"),
        ("include/ops/mma/base/64x16.impl", "cuda"),
        ("include/dots/genoa.h", "simd-x86"),
    ] {
        assert_eq!(kind_and_op(&plan, path).0, kind, "{path}");
    }
    assert!(!in_population(&plan, "Sources/FA/GEMMDescriptor.swift"));
    assert!(!in_population(&plan, "ops/cutedsl/__init__.py"));
    // cuTile rms_norm goes where its name says, not to its backend.
    assert_eq!(
        kind_and_op(&plan, "ops/cutile/rms_norm.py").1.as_deref(),
        Some("normalization")
    );
}

#[test]
fn infrastructure_and_vendored_copies_are_left_out_and_the_draft_says_why() {
    let p = Sota::new()
        .git_init()
        .file("csrc/attention.cu", "__global__ void attn() {}\n")
        .file("csrc/rms_norm.cu", "__global__ void rms_norm() {}\n")
        .file("csrc/memory_pool.cuh", "__global__ void zero_pool() {}\n")
        // A single-file library copied in beside the kernels, SSE2 IDCT
        // and all (a header: left out unlisted, as in `third_party/`).
        .file(
            "csrc/stb_image.h",
            "#include <emmintrin.h>\nstatic void idct(__m128i* x, int n) { for (int i = 0; i < n; i++) x[i] = _mm_add_epi16(x[i], x[i]); }\n",
        )
        .file(
            "csrc/moe_dispatch_configs.cuh",
            "__device__ int a; __device__ int b; __device__ int c;\n",
        )
        .file("csrc/pybind/bindings.cu", "__global__ void k() {}\n")
        // Atomics and intrinsics missing on old GPUs or on ROCm.
        .file(
            "csrc/hip_compat.cuh",
            "__device__ __forceinline__ __half hrcp(__half x) { return __float2half(1.f / __half2float(x)); }\n",
        )
        .file(
            "include/numkong/dot.h",
            "#include <immintrin.h>\n__m256 dispatch(void) { return dot(); }\n",
        )
        .file(
            "include/numkong/dot/haswell.h",
            "#include <immintrin.h>\n__m256 dot(void) { return _mm256_setzero_ps(); }\n",
        )
        .file(
            "include/numkong/dot/skylake.h",
            "#include <immintrin.h>\n__m512 dot(void) { return _mm512_setzero_ps(); }\n",
        )
        .file("third_party/cutlass/gemm.cu", "__global__ void gemm() {}\n")
        // Placeholders, build tooling and test oracles compute nothing a
        // user runs.
        .file("csrc/gemm_dummy_stubs.cu", "__global__ void gemm_stub() {}\n")
        .file(
            "tools/compile_aot.py",
            "import triton\n@triton.jit\ndef k(x):\n    pass\n",
        )
        .file(
            "csrc/attention/reference.cu",
            "__global__ void attention_reference(float* o) { o[0] = 0.f; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for path in [
        "csrc/gemm_dummy_stubs.cu",
        "tools/compile_aot.py",
        "csrc/attention/reference.cu",
        "csrc/memory_pool.cuh",
        "csrc/moe_dispatch_configs.cuh",
        "csrc/pybind/bindings.cu",
        "csrc/hip_compat.cuh",
        "include/numkong/dot.h",
        "third_party/cutlass/gemm.cu",
        "csrc/stb_image.h",
    ] {
        assert!(!in_population(&plan, path), "{path} is in the population");
    }
    let skipped = plan["skipped"].as_array().unwrap();
    let reason = |path: &str| {
        skipped
            .iter()
            .find(|s| s["path"] == path)
            .map(|s| (s["role"].as_str().unwrap(), s["reason"].as_str()))
    };
    assert_eq!(
        reason("csrc/memory_pool.cuh"),
        Some(("infrastructure", Some("memory pool")))
    );
    assert_eq!(
        reason("csrc/hip_compat.cuh"),
        Some(("infrastructure", Some("portability shim")))
    );
    assert_eq!(
        reason("csrc/gemm_dummy_stubs.cu"),
        Some(("infrastructure", Some("placeholder / stub")))
    );
    assert_eq!(
        reason("csrc/attention/reference.cu"),
        Some((
            "infrastructure",
            Some("reference implementation (a test oracle)")
        ))
    );
    assert_eq!(
        reason("include/numkong/dot.h"),
        Some((
            "infrastructure",
            Some("umbrella header over the kernels of its directory")
        ))
    );
    assert_eq!(
        reason("third_party/cutlass/gemm.cu"),
        Some(("vendored", None))
    );
    // The draft names them and why, for a reader who disagrees.
    let toml = plan["toml"].as_str().unwrap();
    assert!(toml.contains("# Left out of the population:"), "{toml}");
    assert!(
        toml.contains(
            "#   infrastructure (memory pool), not an op (1):\n#     csrc/memory_pool.cuh"
        ),
        "{toml}"
    );
    assert!(toml.contains("vendored copy"), "{toml}");
    // And the scorecard of the written draft agrees.
    p.run(&["init", "--today", TODAY]).success();
    let cov = p.run(&["coverage", "--json", "--today", TODAY]).json();
    let pop: Vec<&str> = cov["population"]["kernel_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(!pop.contains(&"csrc/memory_pool.cuh"), "{pop:?}");
    assert!(pop.contains(&"csrc/attention.cu"), "{pop:?}");
}

#[test]
fn the_population_is_rules_so_a_kernel_staged_tomorrow_is_in_it() {
    let triton =
        |name: &str| format!("import triton\n@triton.jit\ndef {name}_kernel(x):\n    pass\n");
    let p = Sota::new()
        .git_init()
        .file("pkg/ops/rms_norm.py", &triton("rms_norm"))
        .file("pkg/ops/softmax.py", &triton("softmax"))
        .file("pkg/ops/rope.py", &triton("rope"))
        .file("pkg/ops/swiglu.py", &triton("swiglu"))
        .file("pkg/ops/__init__.py", "from .rope import *\n")
        .file("pkg/model.py", "import torch\n");
    p.git(&["add", "-A"]).success();
    p.run(&["init", "--today", TODAY]).success();
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert!(text.contains("\"pkg/ops/**/*.py\""), "{text}");
    assert!(
        text.contains("exclude = [\"pkg/ops/__init__.py\"]"),
        "{text}"
    );
    assert!(
        !text.contains("\"pkg/ops/rope.py\",\n"),
        "literal paths: {text}"
    );
    // A new Triton kernel beside them is in the population, uncovered: debt.
    std::fs::write(p.path().join("pkg/ops/geglu.py"), triton("geglu")).unwrap();
    p.git(&["add", "-A"]).success();
    let cov = p.run(&["coverage", "--json", "--today", TODAY]).json();
    let uncovered: Vec<&str> = cov["population"]["uncovered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(uncovered, ["pkg/ops/geglu.py"], "{cov}");
}

#[test]
fn ops_follow_what_a_file_computes_and_weak_evidence_is_said() {
    let p = Sota::new()
        .git_init()
        .file("fft/radix4_fft.cuh", "__global__ void butterfly() {}\n")
        .file("llmc/gelu.cuh", "__global__ void gelu_forward() {}\n")
        .file("llmc/global_norm.cuh", "__global__ void global_norm() {}\n")
        .file(
            "dev/cuda/permute.cu",
            "__global__ void permute_kernel() {}\n",
        )
        .file(
            "quack/topk.py",
            "import cutlass.cute as cute\n@cute.kernel\ndef topk():\n    pass\n",
        )
        .file(
            "ops/jsd.py",
            "import triton\n@triton.jit\ndef jsd_kernel():\n    pass\n",
        )
        .file("kernels/gemm/w4.cu", "__global__ void w4() {}\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for (path, op) in [
        ("fft/radix4_fft.cuh", "fft"),
        ("llmc/gelu.cuh", "elementwise"),
        ("llmc/global_norm.cuh", "optimizer-step"),
        ("dev/cuda/permute.cu", "copy-cast-layout"),
        ("quack/topk.py", "topk-selection"),
        ("ops/jsd.py", "fused-losses"),
    ] {
        assert_eq!(kind_and_op(&plan, path).1.as_deref(), Some(op), "{path}");
    }
    // Placed by its directory alone: the draft says the evidence is weak.
    let gemm = plan["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["slug"] == "dense-gemm")
        .unwrap();
    assert_eq!(gemm["weak_files"], 1);
    let toml = plan["toml"].as_str().unwrap();
    assert!(
        toml.contains(
            "# weak evidence for 1 of them (no name, content or computation signal: a directory, a backend default, a building block alone or this repository's own op): check them"
        ),
        "{toml}"
    );
}

#[test]
fn a_repository_is_never_told_to_read_itself() {
    // Marlin's AWQ kernel: the catalog's awq-int4-gemm reference is Marlin.
    let p = Sota::new().git_init().file(
        "marlin/awq_marlin_kernel.cu",
        "__global__ void Marlin() { /* awq-style int4 */ }\n",
    );
    p.git(&["add", "-A"]).success();
    p.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/IST-DASLab/marlin.git",
    ])
    .success();
    let plan = plan(&p);
    let op = plan["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["slug"] == "awq-int4-gemm")
        .unwrap_or_else(|| panic!("{plan}"));
    assert_eq!(
        op["self_reference"], "https://github.com/IST-DASLab/marlin",
        "{op}"
    );
    let link = op["link"].as_str().unwrap();
    assert!(!link.contains("IST-DASLab/marlin"), "{link}");
    assert!(!op["sota"].as_str().unwrap().contains("Marlin"), "{op}");
    let toml = plan["toml"].as_str().unwrap();
    assert!(
        toml.contains("# The catalog's reference, https://github.com/IST-DASLab/marlin, is this repository: the next one is named instead."),
        "{toml}"
    );
    // The same tree under another name and remote keeps the catalog's reference.
    p.git(&[
        "remote",
        "set-url",
        "origin",
        "https://github.com/acme/kernels.git",
    ])
    .success();
    let run = p.run(&[
        "init",
        "--dry-run",
        "--json",
        "--today",
        TODAY,
        "--name",
        "kernels",
    ]);
    let plan = run.json();
    let op = plan["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["slug"] == "awq-int4-gemm")
        .unwrap();
    assert_eq!(op["link"], "https://github.com/IST-DASLab/marlin");
    assert!(op.get("self_reference").is_none(), "{op}");
}

#[test]
fn the_project_name_alone_says_it_is_the_reference() {
    let p = Sota::new()
        .git_init()
        .file("include/common/base.cuh", "namespace kittens { __device__ void a() {} __device__ void b() {} __device__ void c() {} }\n")
        .file("include/ops/warp/tile.cuh", "namespace kittens { __device__ void a() {} __device__ void b() {} __device__ void c() {} }\n");
    p.git(&["add", "-A"]).success();
    let run = p.run(&[
        "init",
        "--dry-run",
        "--json",
        "--today",
        TODAY,
        "--name",
        "ThunderKittens",
    ]);
    let plan = run.json();
    let op = plan["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["slug"] == "tile-dsl")
        .unwrap_or_else(|| panic!("{plan}"));
    assert_eq!(
        op["self_reference"],
        "https://github.com/HazyResearch/ThunderKittens"
    );
    assert_eq!(op["sota"], "TileLang");
}

#[test]
fn a_kernels_parts_join_it_and_shared_helpers_and_retired_code_do_not() {
    let mut p = Sota::new().git_init();
    // One attention kernel split over a .cu and the headers beside it that
    // only it includes (no kernel marker of their own). The one that holds
    // code is a part; the ones that only declare (a launcher's prototype,
    // constants) are the kernel's interface to the host.
    p = p
        .file(
            "csrc/decode/head64/instantiation.cu",
            "#include \"kernel.h\"\n#include \"config.h\"\n#include \"launch.h\"\n__global__ void run() {}\n",
        )
        .file(
            "csrc/decode/head64/kernel.h",
            "template <int N> struct Phase {\n  static void scale(float* s) { s[0] *= N; }\n};\n",
        )
        .file(
            "csrc/decode/head64/config.h",
            "constexpr int kBlock = 64;\n",
        )
        .file(
            "csrc/decode/head64/launch.h",
            "#pragma once\nstruct Params;\ntemplate <int N>\nvoid run_decode_kernel(const Params &params);\n",
        )
        .file("csrc/decode/head64/notes.h", "// nobody includes this\n")
        // A header the host source beside the kernel includes too is
        // shared with the host, not the kernel's part.
        .file(
            "src/infer.cu",
            "#include \"model.h\"\n__global__ void forward() {}\n",
        )
        .file("src/model.h", "struct Config { int dim; };\n")
        .file(
            "src/run.c",
            "#include \"model.h\"\nint main() { return 0; }\n",
        );
    // A helper header included by four kernels is theirs to share.
    for i in 0..4 {
        p = p.file(
            &format!("llmc/op{i}.cuh"),
            &format!("#include \"common.h\"\n__global__ void op{i}() {{}}\n"),
        );
    }
    p = p
        .file(
            "llmc/common.h",
            "#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))\n",
        )
        .file("llmc/host_a.h", "int a();\n")
        .file("llmc/host_b.h", "int b();\n")
        .file("llmc/host_c.h", "int c();\n")
        .file("llmc/host_d.h", "int d();\n")
        .file("llmc/host_e.h", "int e();\n")
        // Retired code is no kernel the project ships.
        .file(
            "kernels/haswell/old/gemm_d4x12.c",
            "#include <immintrin.h>\nvoid k(double* a) { __m256d x = _mm256_loadu_pd(a); }\n",
        )
        .file(
            "kernels/attn/old/flash_fwd_v1.cu",
            "__global__ void fwd() {}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "csrc/decode/head64/kernel.h").0,
        "cuda",
        "the header that holds code is a part of the kernel"
    );
    for interface in ["csrc/decode/head64/config.h", "csrc/decode/head64/launch.h"] {
        assert!(!in_population(&plan, interface), "{interface}: {plan}");
    }
    assert!(
        !in_population(&plan, "csrc/decode/head64/notes.h"),
        "{plan}"
    );
    assert!(!in_population(&plan, "src/model.h"), "{plan}");
    assert!(!in_population(&plan, "llmc/common.h"), "{plan}");
    assert!(
        !in_population(&plan, "kernels/haswell/old/gemm_d4x12.c"),
        "{plan}"
    );
    // A file in a kernel language is named in the draft with the reason.
    let retired = plan["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == "kernels/attn/old/flash_fwd_v1.cu");
    assert_eq!(
        retired.map(|s| s["role"].clone()),
        Some("retired".into()),
        "{plan}"
    );
}

#[test]
fn a_file_with_no_evidence_of_its_own_follows_the_files_placed_beside_it() {
    let cute = "import cutlass.cute as cute\n\n@cute.kernel\ndef k():\n    pass\n";
    let p = Sota::new()
        .git_init()
        .file("quack/ops/gemm_sm90.py", cute)
        .file("quack/ops/gemm_sm100.py", cute)
        .file("quack/ops/tile_scheduler.py", cute)
        // Placed files that disagree decide nothing.
        .file("quack/misc/rmsnorm.py", cute)
        .file("quack/misc/softmax.py", cute)
        .file("quack/misc/helpers.py", cute);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "quack/ops/tile_scheduler.py")
            .1
            .as_deref(),
        Some("dense-gemm"),
        "{plan}"
    );
    let k = plan["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["path"] == "quack/ops/tile_scheduler.py")
        .unwrap();
    assert_eq!(
        k["evidence"],
        serde_json::json!([{"signal": "neighbours", "matched": "2 of 2 in quack/ops/"}])
    );
    // The draft still asks the team to check it: neighbours are weak evidence.
    assert!(
        plan["toml"].as_str().unwrap().contains("weak evidence"),
        "{plan}"
    );
    assert_ne!(
        kind_and_op(&plan, "quack/misc/helpers.py").1.as_deref(),
        Some("normalization")
    );
    assert_ne!(
        kind_and_op(&plan, "quack/misc/helpers.py").1.as_deref(),
        Some("softmax")
    );
}

#[test]
fn two_placed_files_do_not_speak_for_a_directory_of_many() {
    let cute = "import cutlass.cute as cute\n\n@cute.kernel\ndef k():\n    pass\n";
    let mut p = Sota::new()
        .git_init()
        .file("shaders/gemm_sm90.py", cute)
        .file("shaders/gemm_sm100.py", cute);
    // Eleven kernels with no evidence of their own: two GEMMs are not
    // what the directory does (rife-ncnn-vulkan's two `pack` shaders
    // among 22).
    for name in [
        "warp", "blend", "timestep", "flow_avg", "out_avg", "preproc", "postproc", "mask", "merge",
        "split", "scale",
    ] {
        p = p
            .file(&format!("shaders/{name}.py"), cute)
            // Nor do they for a subdirectory that asks its parent.
            .file(&format!("lib/sub/{name}.py"), cute);
    }
    p = p
        .file("lib/gemm_sm90.py", cute)
        .file("lib/gemm_sm100.py", cute);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "shaders/gemm_sm90.py").1.as_deref(),
        Some("dense-gemm")
    );
    let warp = plan["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["path"] == "shaders/warp.py")
        .unwrap_or_else(|| panic!("{plan}"));
    assert_ne!(warp["op"], "dense-gemm", "{plan}");
    assert_ne!(
        kind_and_op(&plan, "lib/sub/warp.py").1.as_deref(),
        Some("dense-gemm"),
        "{plan}"
    );
    assert!(
        !warp["evidence"].to_string().contains("neighbours"),
        "{warp}"
    );
}

#[test]
fn a_scalar_backend_beside_simd_kernels_joins_them_and_measurement_code_does_not() {
    let neon = "#include <arm_neon.h>\nvoid k(float* a) { float32x4_t x = vld1q_f32(a); }\n";
    let p = Sota::new()
        .git_init()
        .file("src/neon/sgemm.c", neon)
        .file("src/neon/fft-aos.c", neon)
        .file("src/neon/softmax.c", neon)
        // A plain-C kernel among them (no vector path of its own).
        .file(
            "src/neon/maximum_f32.c",
            "void maximum_f32(const float* a, const float* b, float* y, int n) {\n  for (int i = 0; i < n; i++) y[i] = a[i] > b[i] ? a[i] : b[i];\n}\n",
        )
        // The same kernels without vectors: plain C, no marker of its own.
        .file(
            "src/scalar/sgemm.c",
            "void nnp_sgemm__scalar(int k, const float* a, const float* b, float* c) {\n  for (int i = 0; i < k; i++) c[0] += a[i] * b[i];\n}\n",
        )
        .file(
            "src/scalar/butterfly.h",
            "static inline void butterfly(float* a, float* b) { float t = *a; *a = t + *b; *b = t - *b; }\n",
        )
        // A header of the backend that only declares is its interface.
        .file("src/scalar/api.h", "void nnp_sgemm__scalar(int k, const float* a, const float* b, float* c);\n")
        // A bare `ref/` holds the tests' oracles.
        .file("src/ref/sgemm.c", "void ref_sgemm(float* c) { c[0] = 0; }\n")
        // Without SIMD siblings a `generic/` directory is plain code.
        .file("host/generic/config.c", "int config(void) { return 1; }\n")
        // Performance studies and training recipes use the kernels.
        .file("analysis/gemm/mi350x/kernel_1024.cpp", neon)
        .file("training/llama/csrc/attn_fwd.cu", "__global__ void attn_fwd() {}\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for scalar in [
        "src/scalar/sgemm.c",
        "src/scalar/butterfly.h",
        "src/neon/maximum_f32.c",
    ] {
        assert_eq!(kind_and_op(&plan, scalar).0, "scalar", "{plan}");
    }
    assert_eq!(
        kind_and_op(&plan, "src/scalar/sgemm.c").1.as_deref(),
        Some("dense-gemm")
    );
    for out in [
        "src/scalar/api.h",
        "src/ref/sgemm.c",
        "host/generic/config.c",
        "analysis/gemm/mi350x/kernel_1024.cpp",
        "training/llama/csrc/attn_fwd.cu",
    ] {
        assert!(!in_population(&plan, out), "{out}: {plan}");
    }
}

#[test]
fn plain_variants_of_a_simd_kernel_family_join_it_and_its_wrappers_do_not() {
    let mve = |name: &str| {
        format!("#include <arm_mve.h>\nvoid {name}(const int8_t* a, int8_t* y, int n) {{\n  for (int i = 0; i < n; i += 16) {{ int8x16_t v = vldrbq_s8(a + i); vstrbq_s8(y + i, v); }}\n}}\n")
    };
    let plain = |name: &str| {
        format!("void {name}(const float* a, float* y, int n) {{\n  for (int i = 0; i < n; i++) y[i] = a[i] * 2.0f;\n}}\n")
    };
    let dir = "Source/ConvolutionFunctions";
    let mut p = Sota::new().git_init();
    // Three SIMD kernels of two families, fewer than the plain sources.
    for name in [
        "arm_convolve_s8",
        "arm_convolve_1x1_s8_fast",
        "arm_depthwise_conv_s8",
    ] {
        p = p.file(&format!("{dir}/{name}.c"), &mve(name));
    }
    // Their plain-C variants (f32 / f16 have no vector path): kernels.
    for name in [
        "arm_convolve_f32",
        "arm_convolve_f16",
        "arm_depthwise_conv_f32",
    ] {
        p = p.file(&format!("{dir}/{name}.c"), &plain(name));
    }
    // A wrapper and a buffer-size query of the family compute nothing.
    p = p
        .file(
            &format!("{dir}/arm_convolve_wrapper_s8.c"),
            "int arm_convolve_wrapper_s8(const int8_t* a, int8_t* y, int n) {\n  if (n == 1) return arm_convolve_1x1_s8_fast(a, y, n);\n  return arm_convolve_s8(a, y, n);\n}\n",
        )
        .file(
            &format!("{dir}/arm_convolve_get_buffer_sizes_s8.c"),
            "int arm_convolve_s8_get_buffer_size(int c) { return 4 * c; }\n",
        )
        // Plain code of another family stays out.
        .file(&format!("{dir}/arm_nn_buffers_f32.c"), &plain("arm_nn_buffers_f32"));
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for variant in [
        "arm_convolve_f32",
        "arm_convolve_f16",
        "arm_depthwise_conv_f32",
    ] {
        let path = format!("{dir}/{variant}.c");
        assert_eq!(kind_and_op(&plan, &path).0, "scalar", "{path}: {plan}");
    }
    for out in [
        "arm_convolve_wrapper_s8",
        "arm_convolve_get_buffer_sizes_s8",
        "arm_nn_buffers_f32",
    ] {
        let path = format!("{dir}/{out}.c");
        assert!(!in_population(&plan, &path), "{path}: {plan}");
    }
}

#[test]
fn a_macro_header_a_simd_kernel_includes_per_bit_width_is_its_part() {
    // TurboPFor's shape: `bitpack.c` includes `bitpack_.h` once per bit
    // width, with other macros defined each time; the header writes the
    // packers as function-like macros of statements. A header of value
    // macros the kernel includes is its interface.
    let mut kernel = String::from("#include <emmintrin.h>\n#include \"consts.h\"\n");
    for width in [8, 16, 32, 64] {
        kernel.push_str(&format!(
            "#define WIDTH {width}\n#include \"bitpack_.h\"\n#undef WIDTH\n"
        ));
    }
    kernel.push_str("void pack(unsigned* ip, unsigned* op, int n) {\n  for (int i = 0; i < n; i += 4) _mm_storeu_si128((__m128i*)(op + i), _mm_loadu_si128((const __m128i*)(ip + i)));\n}\n");
    let p = Sota::new()
        .git_init()
        .file("lib/bitpack.c", &kernel)
        .file(
            "lib/bitpack_.h",
            "#define BITBLK_1(ip, op) { unsigned w = *ip++; *op++ = w << 1; }\n#define BITBLK_2(ip, op) { unsigned w = *ip++; *op++ = w << 2; }\n#define BITBLK_3(ip, op) { unsigned w = *ip++; *op++ = w << 3; }\n",
        )
        .file("lib/consts.h", "#define MAXW 64\n#define MIN(a, b) ((a) < (b) ? (a) : (b))\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "lib/bitpack.c"), "{plan}");
    assert!(in_population(&plan, "lib/bitpack_.h"), "{plan}");
    assert!(!in_population(&plan, "lib/consts.h"), "{plan}");
}

#[test]
fn the_scalar_default_of_a_dispatched_simd_kernel_joins_it() {
    let sse = |name: &str| {
        format!("#include <emmintrin.h>\nvoid {name}(const int* a, int* y, int n) {{\n  for (int i = 0; i < n; i += 4) _mm_storeu_si128((__m128i*)(y + i), _mm_loadu_si128((const __m128i*)(a + i)));\n}}\n")
    };
    let plain = |name: &str| {
        format!("void {name}(const int* a, int* y, int n) {{\n  for (int i = 0; i < n; i++) y[i] = a[i] + 1;\n}}\n")
    };
    let p = Sota::new()
        .git_init()
        // Two SIMD kernels of one family (fewer than three in the
        // directory, so the directory itself does not speak) and the plain
        // C that every CPU without SSE runs.
        .file("lib/lpc_intrin_sse2.c", &sse("lpc_sse2"))
        .file("lib/lpc_intrin_sse41.c", &sse("lpc_sse41"))
        .file("lib/lpc.c", &plain("lpc"))
        .file("lib/simdbitpacking.c", &sse("simd_pack"))
        .file("lib/bitpacking.c", &plain("pack"))
        // Named after the family but not its ISA-free name: another module.
        .file("lib/lpc_window.c", &plain("window"))
        // The ISA-free name that computes nothing only picks the kernel.
        .file("codec/crc_sse42.c", &sse("crc_sse42"))
        .file(
            "codec/crc.c",
            "void crc_sse42(const int* a, int* y, int n);\nvoid (*crc)(const int*, int*, int) = crc_sse42;\n",
        )
        // Its twin a directory down is the SIMD layer's, not its own.
        .file("src/x86/absval_x86.c", &sse("absval_x86"))
        .file("src/absval.c", &plain("absval"))
        // Plain code beside no SIMD kernel stays out.
        .file("tools/lpc.c", &plain("tool"));
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for scalar in ["lib/lpc.c", "lib/bitpacking.c"] {
        assert_eq!(kind_and_op(&plan, scalar).0, "scalar", "{scalar}: {plan}");
    }
    for out in [
        "lib/lpc_window.c",
        "codec/crc.c",
        "src/absval.c",
        "tools/lpc.c",
    ] {
        assert!(!in_population(&plan, out), "{out}: {plan}");
    }
}

#[test]
fn a_templated_micro_kernel_is_read_in_its_language() {
    let asm = "// vim: set syntax=asm :\n.intel_syntax noprefix\n.globl {{G}}fma_mmm_f32_8x8_{{suffix}}\n    vbroadcastss ymm12, dword ptr [rcx]\n    vfmadd231ps ymm0, ymm12, ymm8\n    vfmadd231ps ymm1, ymm12, ymm9\n";
    let p = Sota::new()
        .git_init()
        .file("linalg/x86_64/fma/fma_mmm_f32_8x8.S.j2", asm)
        .file("linalg/x86_64/fma/fma_mmm_f32_16x6.S.j2", asm)
        // A partial the kernels include, with no language of its own: a
        // kernel's part, as a header a kernel includes is.
        .file(
            "linalg/x86_64/fma/fma_mmm_load_tile.j2",
            "{% macro load_tile() %}\n    vmovaps ymm8, [rdx]\n    vfmadd231ps ymm0, ymm12, ymm8\n{% endmacro %}\n",
        )
        .file(
            "linalg/x86_64/fma/dispatcher.j2",
            ".non_linear:\n    cmp rax, {{ jump_table | length }}\n    jmp [rcx + rax * 8]\n",
        )
        // A CUDA template with its language before the template's extension.
        .file(
            "kernels/gemm.cu.j2",
            "__global__ void gemm_{{ tile }}(float* c) { c[threadIdx.x] = 0; }\n",
        )
        // A page template that mentions a kernel is not one.
        .file(
            "docs/templates/kernel.html.j2",
            "<pre>__global__ void k() { threadIdx.x; }</pre>\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for path in [
        "linalg/x86_64/fma/fma_mmm_f32_8x8.S.j2",
        "linalg/x86_64/fma/fma_mmm_f32_16x6.S.j2",
        "linalg/x86_64/fma/fma_mmm_load_tile.j2",
        "linalg/x86_64/fma/dispatcher.j2",
    ] {
        assert_eq!(kind_and_op(&plan, path).0, "asm", "{path}: {plan}");
    }
    assert_eq!(kind_and_op(&plan, "kernels/gemm.cu.j2").0, "cuda", "{plan}");
    assert!(
        !in_population(&plan, "docs/templates/kernel.html.j2"),
        "{plan}"
    );
}

#[test]
fn a_generators_bare_templates_are_read_by_content_and_join_its_kernels() {
    let p = Sota::new()
        .git_init()
        // Backend templates with no language in their names: CUDA and
        // OpenCL by their markers; the backend's partial joins them.
        .file(
            "solver/backends/cuda/kernels/axnpby.mako",
            "<%inherit file='base'/>\n__global__ void axnpby(int n, double* x, double a)\n{\n    int i = blockIdx.x*blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= a;\n}\n",
        )
        .file(
            "solver/backends/cuda/kernels/base.mako",
            "#define SOA_IX(a, v, nv) ((a) + (v))\ntypedef ${fpdtype} fpdtype_t;\n${next.body()}\n",
        )
        .file(
            "solver/backends/opencl/kernels/axnpby.mako",
            "__kernel void axnpby(int n, __global double* x, double a)\n{\n    int i = get_global_id(0);\n    if (i < n) x[i] *= a;\n}\n",
        )
        // A backend-neutral kernel in the generator's own dialect, in a
        // `kernels/` directory: rendered for every backend.
        .file(
            "solver/euler/kernels/tflux.mako",
            "<%pyfr:kernel name='tflux' ndim='2' u='in fpdtype_t[4]'>\n    fpdtype_t ftemp[2][4];\n% for i in range(2):\n    f[${i}] = u[${i}]*ftemp[${i}][0];\n% endfor\n</%pyfr:kernel>\n",
        )
        // Not kernels: a bare template outside the kernel directories, a
        // chat template, a build input.
        .file("solver/euler/config.mako", "[solver]\norder = ${order}\n")
        .file("assets/chat.jinja", "{% for m in messages %}{{ m.content }}{% endfor %}\n")
        .file("docs/Doxyfile.in", "INPUT = @SRC@\n")
        // Markup beside the kernel templates, and under a far `kernel/`.
        .file(
            "solver/backends/cuda/kernels/README.j2",
            "# Kernels\n\nRendered with {{ backend }} before compiling.\n",
        )
        .file(
            "share/jupyter/kernel/templates/page.j2",
            "<html><body>{{ body }}</body></html>\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for path in [
        "solver/backends/cuda/kernels/axnpby.mako",
        "solver/backends/cuda/kernels/base.mako",
        "solver/euler/kernels/tflux.mako",
    ] {
        assert_eq!(kind_and_op(&plan, path).0, "cuda", "{path}: {plan}");
    }
    assert_eq!(
        kind_and_op(&plan, "solver/backends/opencl/kernels/axnpby.mako").0,
        "opencl",
        "{plan}"
    );
    for out in [
        "solver/euler/config.mako",
        "assets/chat.jinja",
        "docs/Doxyfile.in",
        "solver/backends/cuda/kernels/README.j2",
        "share/jupyter/kernel/templates/page.j2",
    ] {
        assert!(!in_population(&plan, out), "{out}: {plan}");
    }

    // Without a template kernel in the tree, a bare template in a
    // `kernels/` directory is text like any other.
    let q = Sota::new()
        .git_init()
        .file("app/kernels/page.mako", "<html>${body}</html>\n")
        .file(
            "app/kernels/scale.cu",
            "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n",
        );
    q.git(&["add", "-A"]).success();
    let bare = self::plan(&q);
    assert!(!in_population(&bare, "app/kernels/page.mako"), "{bare}");
}

#[test]
fn an_assembly_kernels_c_entry_and_a_kernel_directorys_descriptor_join_it() {
    let neon = "#include <arm_neon.h>\nvoid k(float* a) { float32x4_t x = vld1q_f32(a); }\n";
    let asm = "    KAI_ASM_GLOBAL(kai_kernel_matmul_clamp_f32_neon_dotprod)\nKAI_ASM_FUNCTION_LABEL(kai_kernel_matmul_clamp_f32_neon_dotprod)\n    movi v27.4s, #0x0\n    KAI_ASM_INST(0x4e90973b)  // sdot v27.4s, v25.16b, v16.16b\n    ret\n";
    let p = Sota::new()
        .git_init()
        .file("kai/matmul/kai_kernel_matmul_clamp_f32_neon_dotprod_asm.S", asm)
        // The C entry point: plain C that calls what the assembly defines.
        .file(
            "kai/matmul/kai_matmul_clamp_f32_neon_dotprod.c",
            "#include \"kai_matmul_clamp_f32_neon_dotprod.h\"\nvoid kai_kernel_matmul_clamp_f32_neon_dotprod(void* args);\nvoid kai_run_matmul_clamp_f32_neon_dotprod(size_t m, size_t n) {\n  kai_kernel_matmul_clamp_f32_neon_dotprod(0);\n}\n",
        )
        // Plain C beside it that calls nothing it defines.
        .file(
            "kai/matmul/kai_common.c",
            "#include \"kai_common.h\"\nsize_t kai_roundup(size_t a, size_t b) { return (a + b - 1) / b * b; }\n",
        )
        // A descriptor named after a directory of kernel sources.
        .file("ops/gemm/kernels/a64_sgemm_8x12/generic.cpp", neon)
        .file("ops/gemm/kernels/a64_sgemm_8x12/a55.cpp", neon)
        .file(
            "ops/gemm/kernels/a64_sgemm_8x12.hpp",
            "#include \"../std_transforms_fixed.hpp\"\nclass cls_a64_sgemm_8x12 {\npublic:\n    static unsigned int out_width() {\n        return 12;\n    }\n};\n",
        )
        // One that only declares is the kernels' interface.
        .file("ops/gemm/kernels/a64_hgemm_8x24/generic.cpp", neon)
        .file(
            "ops/gemm/kernels/a64_hgemm_8x24.hpp",
            "void a64_hgemm_asimd_8x24(const void *, const void *, void *, int, int, int);\n",
        )
        // An umbrella includes its directory's kernels: still left out.
        .file("include/dot/neon.c", neon)
        .file("include/dot/serial.c", neon)
        .file("include/dot.h", "#include \"dot/neon.h\"\nvoid dot(float *a) { }\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "kai/matmul/kai_matmul_clamp_f32_neon_dotprod.c").0,
        "asm",
        "{plan}"
    );
    assert_eq!(
        kind_and_op(&plan, "ops/gemm/kernels/a64_sgemm_8x12.hpp"),
        ("simd-arm".to_owned(), Some("dense-gemm".to_owned()))
    );
    for out in [
        "kai/matmul/kai_common.c",
        "ops/gemm/kernels/a64_hgemm_8x24.hpp",
        "include/dot.h",
    ] {
        assert!(!in_population(&plan, out), "{out}: {plan}");
    }
}

#[test]
fn a_librarys_own_device_macros_mark_its_device_code() {
    let p = Sota::new()
        .git_init()
        .file(
            "include/prim/config.hpp",
            "#include <hip/hip_runtime.h>\n#define PRIM_DEVICE __device__\n#define PRIM_HOST_DEVICE __host__ __device__\n#define PRIM_KERNEL __global__ static\n",
        )
        .file(
            "include/prim/device/device_scan.hpp",
            "#include \"../config.hpp\"\ntemplate<class T>\nPRIM_KERNEL void scan_kernel(T* in, T* out) { out[0] = in[0]; }\n",
        )
        .file(
            "include/prim/warp/warp_reduce.hpp",
            "struct warp_reduce {\n  PRIM_DEVICE int sum(int v);\n  PRIM_DEVICE int max(int v);\n  PRIM_DEVICE int min(int v);\n};\n",
        )
        .file("kernels/attn.cu", "__global__ void attn(float* o) { o[threadIdx.x] = 0; }\n")
        // Code shared with the host says nothing about kernels.
        .file(
            "include/prim/types.hpp",
            "struct half2 {\n  PRIM_HOST_DEVICE half2();\n  PRIM_HOST_DEVICE float x() const;\n  PRIM_HOST_DEVICE float y() const;\n};\n",
        )
        // One device helper is not device code (as one `__device__` is not).
        .file("include/prim/util.hpp", "PRIM_DEVICE int lane_id();\nint host_count();\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for device in [
        "include/prim/device/device_scan.hpp",
        "include/prim/warp/warp_reduce.hpp",
    ] {
        assert!(in_population(&plan, device), "{device}: {plan}");
    }
    for out in ["include/prim/types.hpp", "include/prim/util.hpp"] {
        assert!(!in_population(&plan, out), "{out}: {plan}");
    }
}

#[test]
fn a_function_like_kernel_macro_marks_its_users_and_the_units_that_launch_them() {
    let p = Sota::new()
        .git_init()
        // The macro's definition names `__global__` but is no kernel.
        .file(
            "library/include/sparse-types.h",
            "#pragma once\n#define SPARSE_KERNEL(MAX_THREADS) \\\n    __launch_bounds__(MAX_THREADS) static __global__\n#define SPARSE_DEVICE_ILF static __device__ __forceinline__\ntypedef int sparse_int;\n",
        )
        .file(
            "library/src/conversion/csr2coo_device.h",
            "#pragma once\n#include <hip/hip_runtime.h>\ntemplate <uint32_t BLOCK_SIZE, typename I>\nSPARSE_KERNEL(BLOCK_SIZE)\nvoid csr2coo_kernel(I m, const I* ptr, I* rows) { rows[0] = ptr[m]; }\n",
        )
        // Launches (so instantiates) the header's kernel.
        .file(
            "library/src/conversion/lib_csr2coo.cpp",
            "#include \"control.h\"\n#include \"csr2coo_device.h\"\nsparse_status csr2coo(int m, const int* p, int* r) {\n    RETURN_IF_HIPLAUNCHKERNELGGL_ERROR((csr2coo_kernel<256>), dim3(m), dim3(256), 0, 0, m, p, r);\n    return 0;\n}\n",
        )
        // Checks arguments and calls the other unit: launches nothing.
        .file(
            "library/src/conversion/lib_csr2coo_buffer_size.cpp",
            "#include \"csr2coo_device.h\"\nsparse_status csr2coo_buffer_size(int m, size_t* s) { *s = 4 * m; return 0; }\n",
        )
        // Launches a kernel but includes no kernel of its directory.
        .file(
            "library/src/handle.cpp",
            "#include \"handle.h\"\nvoid init(hipStream_t s) { THROW_IF_HIPLAUNCHKERNELGGL_ERROR(init_kernel, dim3(1), dim3(1), 0, s); }\n",
        )
        .file("library/src/handle.h", "struct handle { int device; };\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for kernel in [
        "library/src/conversion/csr2coo_device.h",
        "library/src/conversion/lib_csr2coo.cpp",
    ] {
        assert_eq!(kind_and_op(&plan, kernel).0, "hip", "{kernel}: {plan}");
    }
    for out in [
        "library/include/sparse-types.h",
        "library/src/conversion/lib_csr2coo_buffer_size.cpp",
        "library/src/handle.cpp",
    ] {
        assert!(!in_population(&plan, out), "{out}: {plan}");
    }
}

#[test]
fn generated_instantiation_units_join_the_kernel_header_they_instantiate() {
    let p = Sota::new()
        .git_init()
        // A CK-Tile kernel header, included by angle brackets.
        .file(
            "csrc/hip_fmha/ck_tiled_fmha_batched_forward.h",
            "#pragma once\n#include <ck_tile/core.hpp>\n#include <ck_tile/ops/fmha.hpp>\ntemplate <typename T, bool kHasMask, int kMaxK>\nvoid run_batched_forward(Params& p, hipStream_t s) { launch_fmha<T, kHasMask, kMaxK>(p, s); }\n",
        )
        // Generated units in a subdirectory: explicit instantiations only.
        .file(
            "csrc/hip_fmha/instances/fmha_batched_forward_bf16_has_mask_maxk_128.cpp",
            "// generated, do not edit\n#include <ck_tile/core/numeric/bfloat16.hpp>\n#include \"ck_tiled_fmha_batched_forward.h\"\n\ntemplate void run_batched_forward<ck_tile::bf16_t, true, 128>(Params& p, hipStream_t s);\n",
        )
        .file(
            "csrc/hip_fmha/instances/fmha_batched_forward_fp16_no_mask_maxk_64.cpp",
            "#include \"ck_tiled_fmha_batched_forward.h\"\n\ntemplate void run_batched_forward<ck_tile::fp16_t, false, 64>(Params& p, hipStream_t s);\n",
        )
        // Includes the header but instantiates nothing: host glue.
        .file(
            "csrc/hip_fmha/instances/registry.cpp",
            "#include \"ck_tiled_fmha_batched_forward.h\"\nint registered() { return 2; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for kernel in [
        "csrc/hip_fmha/ck_tiled_fmha_batched_forward.h",
        "csrc/hip_fmha/instances/fmha_batched_forward_bf16_has_mask_maxk_128.cpp",
        "csrc/hip_fmha/instances/fmha_batched_forward_fp16_no_mask_maxk_64.cpp",
    ] {
        assert_eq!(kind_and_op(&plan, kernel).0, "hip", "{kernel}: {plan}");
    }
    assert!(
        !in_population(&plan, "csrc/hip_fmha/instances/registry.cpp"),
        "{plan}"
    );
}

#[test]
fn per_isa_units_that_only_set_macros_and_include_a_simd_kernel_join_it() {
    let p = Sota::new()
        .git_init()
        // A radix-4 FFT written once over an ISA's intrinsics.
        .file(
            "x86/kernel.h",
            "#include <immintrin.h>\n#ifdef __AVX__\n#define MM __m256\n#define add_ps _mm256_add_ps\n#else\n#define MM __m128\n#define add_ps _mm_add_ps\n#endif\nvoid fft_radix4(float* out, const float* in, const float* twiddles, unsigned n) {\n  for (unsigned i = 0; i < n; i += 8) { MM a = _mm256_loadu_ps(in + i); _mm256_storeu_ps(out + i, add_ps(a, a)); }\n}\n",
        )
        // Built once per ISA: a license comment, macros, the include.
        .file(
            "x86/kernel.avx.c",
            "/* Copyright (C) 2015 the authors.\n * MIT licence. */\n#ifndef __AVX__\n#define __AVX__ 1\n#endif\n#include \"kernel.h\"\n",
        )
        .file(
            "x86/kernel.sse.c",
            "// SSE build\n#define __SSE__ 1\n#include \"kernel.h\"\n",
        )
        // Includes the kernel but holds host code of its own: not a build of it.
        .file(
            "x86/dispatch.c",
            "#define HAVE_AVX 1\n#include \"kernel.h\"\nint pick(void) { return HAVE_AVX; }\n",
        )
        // Only includes, sets nothing: an umbrella, not a per-ISA build.
        .file("x86/all.c", "#include \"kernel.h\"\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    let header = kind_and_op(&plan, "x86/kernel.h");
    for unit in ["x86/kernel.avx.c", "x86/kernel.sse.c"] {
        assert_eq!(kind_and_op(&plan, unit), header, "{unit}: {plan}");
    }
    for host in ["x86/dispatch.c", "x86/all.c"] {
        assert!(!in_population(&plan, host), "{host}: {plan}");
    }
}

#[test]
fn a_cu_file_with_no_device_code_that_includes_no_kernel_is_host_code() {
    let p = Sota::new()
        .git_init()
        .file(
            "gpu/impl/Distance.cuh",
            "template <typename T>\n__global__ void l2(const T* x, T* out) { out[threadIdx.x] = x[threadIdx.x] * x[threadIdx.x]; }\n",
        )
        .file(
            "gpu/impl/Distance.cu",
            "#include \"Distance.cuh\"\n__global__ void norms(const float* x, float* y) { y[blockIdx.x] = x[blockIdx.x]; }\n",
        )
        // A host index class: calls launchers declared in a host header.
        .file("gpu/impl/FlatIndex.h", "#pragma once\nvoid runL2(const float* x, int n);\n")
        .file(
            "gpu/GpuIndexFlat.cu",
            "#include <gpu/impl/FlatIndex.h>\n#include <vector>\n\nvoid search(const float* x, int n) { runL2(x, n); }\n",
        )
        // A unit that builds the kernels of a header it includes, by an
        // include path from the repository root.
        .file(
            "gpu/impl/dispatch.cu",
            "#include <gpu/impl/Distance.cuh>\ntemplate void launch_l2<float>(const float*, float*);\n",
        )
        // A unit that reaches the kernel header through one header.
        .file("gpu/impl/registrar.h", "#pragma once\n#include \"Distance.cuh\"\n")
        .file(
            "gpu/impl/l2_all_types.cu",
            "#include \"registrar.h\"\nstatic int registered = 1;\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for kernel in [
        "gpu/impl/Distance.cu",
        "gpu/impl/dispatch.cu",
        "gpu/impl/l2_all_types.cu",
    ] {
        assert!(in_population(&plan, kernel), "{kernel}: {plan}");
    }
    assert!(!in_population(&plan, "gpu/GpuIndexFlat.cu"), "{plan}");
    // The draft says what it left out and why.
    let toml = plan["toml"].as_str().unwrap();
    let why = toml
        .find("host code: a GPU source with no device code that includes no kernel")
        .unwrap_or_else(|| panic!("{toml}"));
    assert!(toml[why..].contains("gpu/GpuIndexFlat.cu"), "{toml}");
}

#[test]
fn a_cu_file_that_reaches_only_device_helpers_is_host_code() {
    // A header of `__device__` accessors, no kernel entry (faiss' Tensor.cuh).
    let accessors = "#pragma once\ntemplate <typename T> struct Tensor {\n  __host__ __device__ T* data();\n  __host__ __device__ int size(int d);\n  __host__ __device__ T& operator[](int i);\n};\n";
    // A kernel header whose `__global__` sits past the first 32 KiB.
    let long_kernel = format!(
        "#pragma once\n{}template <typename T>\n__global__ void gemv(const T* a, T* y) {{ y[threadIdx.x] = a[threadIdx.x]; }}\n",
        "__device__ __forceinline__ int lane_helper(int x) { return x + 1; }\n".repeat(600)
    );
    let p = Sota::new()
        .git_init()
        .file("gpu/utils/Tensor.cuh", accessors)
        .file("gpu/impl/FlatIndex.cuh", "#pragma once\n#include \"../utils/Tensor.cuh\"\nvoid runL2(Tensor<float>& x);\n")
        // Reaches device helpers only: host code.
        .file(
            "gpu/GpuIndexFlat.cu",
            "#include \"impl/FlatIndex.cuh\"\nvoid search(Tensor<float>& x) { runL2(x); }\n",
        )
        // Calls a device library algorithm with its own functor: a kernel.
        .file(
            "gpu/ops/bias_add.cu",
            "#include \"../utils/Tensor.cuh\"\nstruct plus { float operator()(float a, float b) const { return a + b; } };\nvoid bias_add(float* a, float* b, float* c, int n) {\n  THRUST_CALL(thrust::transform, a, a + n, b, c, plus());\n}\n",
        )
        // Reaches a kernel entry through two headers: builds it.
        .file("gpu/zgemm/gemm_base.cuh", "#pragma once\ntemplate <typename K> __global__ void invoke(K k) { k(); }\n")
        .file("gpu/zgemm/gemm_w4a4.cuh", "#pragma once\n#include \"gemm_base.cuh\"\n#include \"../utils/Tensor.cuh\"\n")
        .file("gpu/zgemm/gemm_launch.cuh", "#pragma once\n#include \"gemm_w4a4.cuh\"\n")
        .file(
            "gpu/zgemm/gemm_w4a4.cu",
            "#include \"gemm_launch.cuh\"\nvoid gemm_w4a4() { launch<Config>(); }\n",
        )
        .file("gpu/quant/gemv_kernel.cuh", &long_kernel)
        .file(
            "gpu/quant/gemv_inst_k1.cu",
            "#include \"gemv_kernel.cuh\"\nvoid* gemv_sel_k1() { return (void*) gemv<float>; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for kernel in [
        "gpu/ops/bias_add.cu",
        "gpu/zgemm/gemm_w4a4.cu",
        "gpu/quant/gemv_inst_k1.cu",
    ] {
        assert!(in_population(&plan, kernel), "{kernel}: {plan}");
    }
    assert!(!in_population(&plan, "gpu/GpuIndexFlat.cu"), "{plan}");
}

#[test]
fn units_that_call_an_instantiation_macro_join_the_kernel_header() {
    let p = Sota::new()
        .git_init()
        .file(
            "library/src/specialized/getf2_small_kernels.hpp",
            "#pragma once\n#include <hip/hip_runtime.h>\ntemplate <typename T>\n__global__ void getf2_small(T* A, int n) { A[threadIdx.x] *= 2; }\n\ntemplate <typename T>\nvoid getf2_run_small(T* A, int n) { hipLaunchKernelGGL(getf2_small<T>, dim3(1), dim3(n), 0, 0, A, n); }\n\n#define INSTANTIATE_GETF2_SMALL(T) \\\n    template void getf2_run_small<T>(T* A, int n);\n",
        )
        // One unit per type: only the macro call, no `template` of its own.
        .file(
            "library/src/specialized/getf2_small_s.cpp",
            "#include \"getf2_small_kernels.hpp\"\n\nINSTANTIATE_GETF2_SMALL(float);\n",
        )
        .file(
            "library/src/specialized/getf2_small_d.cpp",
            "#include \"getf2_small_kernels.hpp\"\n\n    INSTANTIATE_GETF2_SMALL(double);\n",
        )
        // Includes the header, calls no instantiation macro: host code.
        .file(
            "library/src/specialized/sizes.cpp",
            "#include \"getf2_small_kernels.hpp\"\nint block_size() { return 64; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for unit in [
        "library/src/specialized/getf2_small_s.cpp",
        "library/src/specialized/getf2_small_d.cpp",
    ] {
        assert_eq!(kind_and_op(&plan, unit).0, "hip", "{unit}: {plan}");
    }
    assert!(
        !in_population(&plan, "library/src/specialized/sizes.cpp"),
        "{plan}"
    );
}

#[test]
fn a_cuda_header_that_only_declares_host_functions_is_host_code() {
    let p = Sota::new()
        .git_init()
        .file(
            "ext/cuda/rms_norm.cu",
            "#include \"rms_norm.cuh\"\n__global__ void rms_norm_kernel(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x]; }\nvoid rms_norm_cuda(const float* x, float* y, int rows) { rms_norm_kernel<<<rows, 256>>>(x, y); }\n",
        )
        // The launcher's prototype, for the host bindings: no kernel.
        .file(
            "ext/cuda/rms_norm.cuh",
            "#pragma once\n#include <cuda_runtime.h>\nvoid rms_norm_cuda\n(\n    const float* x,\n    float* y,\n    int rows\n);\n",
        )
        .file(
            "ext/cuda/softmax.cu",
            "#include \"tile/layout.cuh\"\n__global__ void softmax_kernel(float* x) { x[threadIdx.x] = 0.f; }\n",
        )
        // A layout header of device types and an umbrella: kernel code.
        .file(
            "ext/cuda/tile/layout.cuh",
            "#pragma once\nstruct row_major { static constexpr bool row = true; };\nstatic_assert(sizeof(row_major) == 1);\n",
        )
        .file(
            "ext/cuda/tile/tile.cuh",
            "#pragma once\n#include \"layout.cuh\"\n#include \"../softmax_ops.cuh\"\n",
        )
        // Kernels and device functions declared, no body: an interface
        // for units compiled elsewhere (GenomeWorks' matcher_gpu.cuh).
        .file(
            "ext/cuda/matcher_gpu.cuh",
            "#pragma once\n/// Finds the matches.\n__global__ void find_matches_kernel(const int* a,\n    int* b, int n);\ntemplate <typename T>\n__device__ float dist(const T* x, const T* y);\n",
        )
        // A declaration beside a body is a kernel header.
        .file(
            "ext/cuda/reduce.cuh",
            "#pragma once\n__global__ void reduce_kernel(float* x);\n__device__ inline float twice(float v) { return 2.f * v; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for kernel in [
        "ext/cuda/rms_norm.cu",
        "ext/cuda/softmax.cu",
        "ext/cuda/tile/layout.cuh",
        "ext/cuda/tile/tile.cuh",
        "ext/cuda/reduce.cuh",
    ] {
        assert!(in_population(&plan, kernel), "{kernel}: {plan}");
    }
    assert!(!in_population(&plan, "ext/cuda/rms_norm.cuh"), "{plan}");
    assert!(!in_population(&plan, "ext/cuda/matcher_gpu.cuh"), "{plan}");
    // The draft says what it left out and why.
    let toml = plan["toml"].as_str().unwrap();
    let why = toml
        .find("host code: a GPU header that only declares functions for the host")
        .unwrap_or_else(|| panic!("{toml}"));
    assert!(toml[why..].contains("ext/cuda/rms_norm.cuh"), "{toml}");
}

const MLA_NAMES: [&str; 3] = ["flash_mla", "mla_decode", "deepseek_mla"];

#[test]
fn a_kernel_directorys_twin_in_another_models_directory_joins_it() {
    // TeaLeaf's layout, at the top of the tree: one directory per
    // programming model, the same file names in each. The names place
    // the CUDA kernels (`mla` says MLA attention on GPU code only); the
    // OpenMP twins take their op from them.
    let mut p = Sota::new().git_init();
    for name in MLA_NAMES {
        p = p
            .file(
                &format!("cuda/{name}.cu"),
                "__global__ void k(float* x) { x[threadIdx.x] *= 2.f; }\n",
            )
            .file(
                &format!("omp/{name}.cpp"),
                "void k(float* x, int n) {\n#pragma omp parallel for\n  for (int i = 0; i < n; i++) x[i] *= 2.f;\n}\n",
            )
            // The same names outside a model's directory: not a twin.
            .file(
                &format!("report/{name}.cpp"),
                "void print(const float* r, int n) {\n  for (int i = 0; i < n; i++) printf(\"%f\", r[i]);\n}\n",
            )
            // A twin that does not compute.
            .file(&format!("serial/{name}.cpp"), "void k(float* x, int n);\n");
    }
    p = p.file(
        "omp/driver.cpp",
        "int main() { for (int s = 0; s < 10; s++) step(); }\n",
    );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for name in MLA_NAMES {
        let twin = format!("omp/{name}.cpp");
        assert_eq!(
            kind_and_op(&plan, &twin),
            ("scalar".to_owned(), Some("mla-attention".to_owned())),
            "{twin}: {plan}"
        );
        // The draft says why, as weak evidence for the team to check.
        let k = plan["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["path"] == twin.as_str())
            .unwrap();
        assert_eq!(
            k["evidence"],
            serde_json::json!([{"signal": "twin", "matched": format!("cuda/{name}.cu")}])
        );
        for other in [format!("report/{name}.cpp"), format!("serial/{name}.cpp")] {
            assert!(!in_population(&plan, &other), "{other}: {plan}");
        }
    }
    assert!(!in_population(&plan, "omp/driver.cpp"), "{plan}");
}

#[test]
fn of_two_equal_twins_the_first_by_name_places_the_file() {
    let mut p = Sota::new().git_init();
    for name in MLA_NAMES {
        p = p
            .file(
                &format!("src/hip/{name}.hip"),
                "__global__ void k(float* x) { x[threadIdx.x] *= 2.f; }\n",
            )
            .file(
                &format!("src/cuda/{name}.cu"),
                "__global__ void k(float* x) { x[threadIdx.x] *= 2.f; }\n",
            )
            .file(
                &format!("src/omp/{name}.cpp"),
                "void k(float* x, int n) {\n  for (int i = 0; i < n; i++) x[i] *= 2.f;\n}\n",
            );
    }
    p.git(&["add", "-A"]).success();
    // Every run, the same twin: `cuda/` before `hip/`.
    for _ in 0..3 {
        let plan = plan(&p);
        let k = plan["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["path"] == "src/omp/mla_decode.cpp")
            .unwrap_or_else(|| panic!("{plan}"))
            .clone();
        assert_eq!(k["evidence"][0]["matched"], "src/cuda/mla_decode.cu", "{k}");
    }
}

#[test]
fn a_twin_of_an_isa_kernel_is_not_placed_in_that_isas_backend() {
    let neon = |name: &str| {
        format!("#include <arm_neon.h>\nvoid {name}_k(float* x, int n) {{\n  for (int i = 0; i < n; i += 4) vst1q_f32(x + i, vld1q_f32(x + i));\n}}\n")
    };
    let plain = |name: &str| {
        format!(
            "void {name}_k(float* x, int n) {{\n  for (int i = 0; i < n; i++) x[i] = x[i];\n}}\n"
        )
    };
    let mut p = Sota::new().git_init();
    for name in ["amax", "dot", "swap"] {
        p = p
            .file(&format!("kernel/arm/{name}.c"), &neon(name))
            .file(&format!("kernel/mips/{name}.c"), &plain(name));
    }
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for name in ["amax", "dot", "swap"] {
        let twin = format!("kernel/mips/{name}.c");
        assert!(in_population(&plan, &twin), "{twin}: {plan}");
        assert_ne!(
            kind_and_op(&plan, &twin).1.as_deref(),
            Some("arm-neon-sve"),
            "{twin}: MIPS code is not the NEON backend's"
        );
    }
}

#[test]
fn a_twin_keeps_its_twins_op_among_neighbours_of_another() {
    // OpenBLAS's layout: `kernel/arm/axpy.c` is the plain twin of the
    // SSE `kernel/x86_64/axpy.c`, beside NEON GEMM micro-kernels. The
    // twin says what it computes; the GEMMs around it do not.
    let sse = |name: &str| {
        format!("#include <immintrin.h>\nvoid {name}_k(float* x, int n) {{\n  for (int i = 0; i < n; i += 4) _mm_storeu_ps(x + i, _mm_loadu_ps(x + i));\n}}\n")
    };
    let plain = |name: &str| {
        format!("void {name}_k(float a, const float* x, float* y, int n) {{\n  for (int i = 0; i < n; i++) y[i] += a * x[i];\n}}\n")
    };
    let neon = |name: &str| {
        format!("\t.text\n\t.global {name}_k\n{name}_k:\n\tld1 {{v0.4s}}, [x0]\n\tfmla v16.4s, v0.4s, v4.s[0]\n\tret\n")
    };
    let mut p = Sota::new().git_init();
    for name in ["axpy", "scal", "copy", "swap"] {
        p = p
            .file(&format!("kernel/x86_64/{name}.c"), &sse(name))
            .file(&format!("kernel/arm/{name}.c"), &plain(name));
    }
    for name in ["sgemm_4x4", "sgemm_8x4", "dgemm_4x4"] {
        p = p.file(&format!("kernel/arm/{name}.S"), &neon(name));
    }
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for (path, op) in [
        ("kernel/arm/sgemm_4x4.S", "dense-gemm"),
        ("kernel/arm/axpy.c", "elementwise"),
        ("kernel/arm/scal.c", "elementwise"),
        ("kernel/arm/copy.c", "copy-cast-layout"),
        // A twin with no op of its own still follows its neighbours.
        ("kernel/arm/swap.c", "dense-gemm"),
    ] {
        assert_eq!(
            kind_and_op(&plan, path).1.as_deref(),
            Some(op),
            "{path}: {plan}"
        );
    }
}

#[test]
fn a_host_header_beside_shaders_is_not_a_shader() {
    let shader = "#version 450\nlayout (local_size_x = 64) in;\nlayout (binding = 0) buffer a { float x[]; };\nvoid main() { x[gl_GlobalInvocationID.x] *= 2.0; }\n";
    let p = Sota::new()
        .git_init()
        .file("src/warp.comp", shader)
        .file("src/blend.comp", shader)
        .file("src/timestep.comp", shader)
        .file("src/preproc.comp", shader)
        // The app's C++ (a system include): the host's.
        .file(
            "src/rife.h",
            "#pragma once\n#include <string>\nclass RIFE {\npublic:\n  int process(const std::string& in);\n};\n",
        )
        // A GLSL header the shaders share (ExecuTorch's `indexing_utils.h`).
        .file(
            "src/indexing_utils.h",
            "#ifndef INDEXING_UTILS_H\n#define INDEXING_UTILS_H\nivec4 to_tensor_idx(ivec3 pos, ivec4 sizes) {\n  return ivec4(pos, 0) % sizes;\n}\n#endif\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "src/warp.comp"), "{plan}");
    assert!(!in_population(&plan, "src/rife.h"), "{plan}");
    assert!(in_population(&plan, "src/indexing_utils.h"), "{plan}");
}

#[test]
fn a_simd_header_that_only_declares_is_not_a_kernel() {
    let p = Sota::new()
        .git_init()
        // The kernel: intrinsics in a loop.
        .file(
            "src/align_sse41.cc",
            "#include \"sse41.h\"\nvoid align_cells_sse41(__m128i* h, const __m128i* q, int n) {\n  for (int i = 0; i < n; i++) h[i] = _mm_min_epu16(h[i], q[i]);\n}\n",
        )
        // Its prototype over the vector type (swarm's `sse41.h`): the
        // interface, not a kernel.
        .file(
            "src/sse41.h",
            "#pragma once\n#include <smmintrin.h>\nusing VECTORTYPE = __m128i;\nauto align_cells_sse41(VECTORTYPE * h,\n                       const VECTORTYPE * q,\n                       int n) -> void;\n",
        )
        // A header whose method holds the kernel, through two qualifiers
        // (gemmlowp's `kernel_sse.h`), and one of inline wrappers: code.
        .file(
            "src/kernel_sse.h",
            "#pragma once\n#include <emmintrin.h>\nstruct SSEKernel : KernelBase {\n  const char* Name() const override { return kName; }\n  void Run(__m128i* acc, const __m128i* a, int n) const override {\n    for (int i = 0; i < n; i++) acc[i] = _mm_add_epi32(acc[i], _mm_madd_epi16(a[i], a[i]));\n  }\n};\n",
        )
        .file(
            "src/vec.h",
            "#pragma once\n#include <emmintrin.h>\nstatic inline __m128i vmax(__m128i a, __m128i b) { return _mm_max_epi16(a, b); }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for kernel in ["src/align_sse41.cc", "src/kernel_sse.h", "src/vec.h"] {
        assert!(in_population(&plan, kernel), "{kernel}: {plan}");
    }
    assert!(!in_population(&plan, "src/sse41.h"), "{plan}");
    // The draft says why it left the prototype header out.
    let left_out = plan["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == "src/sse41.h")
        .unwrap_or_else(|| panic!("{plan}"));
    assert_eq!(
        left_out["reason"],
        "a SIMD header that only declares its kernels' functions and vector types"
    );
}

#[test]
fn host_sources_that_bind_opencl_kernel_arguments_launch_them() {
    let pad_cl = "__kernel void pad(__read_only image2d_t input, __write_only image2d_t output, int width) {\n  const int x = get_global_id(0);\n}\n";
    // Builds `pad` by name and sets its arguments: a launch unit.
    let launcher = "#include \"mace/ops/opencl/image/pad.h\"\nint PadKernel::Compute(Runtime* rt, Tensor* in, Tensor* out) {\n  kernel_ = rt->BuildKernel(\"pad\", \"pad\");\n  uint32_t idx = 0;\n  kernel_.setArg(idx++, *(in->memory<cl::Image>()));\n  kernel_.setArg(idx++, *(out->memory<cl::Image>()));\n  kernel_.setArg(idx++, static_cast<int32_t>(in->dim(2)));\n  return Run3DKernel(rt, kernel_);\n}\n";
    // One argument set, then the queue: the runtime's helper.
    let helper = "int Run3DKernel(Runtime* rt, cl::Kernel& k) {\n  k.setArg(0, rt->scratch());\n  return rt->queue().enqueueNDRangeKernel(k, cl::NullRange, rt->gws(), rt->lws());\n}\n";
    let p = Sota::new()
        .git_init()
        .file("mace/ops/opencl/cl/pad.cl", pad_cl)
        .file("mace/ops/opencl/image/pad.cc", launcher)
        .file(
            "mace/ops/opencl/image/space_to_depth.cc",
            &launcher.replace("pad", "space_to_depth"),
        )
        .file("mace/runtimes/opencl/opencl_helper.cc", helper);
    p.git(&["add", "-A"]).success();
    let drafted = plan(&p);
    assert_eq!(
        kind_and_op(&drafted, "mace/ops/opencl/image/pad.cc"),
        ("opencl".to_owned(), Some("copy-cast-layout".to_owned())),
        "{drafted}"
    );
    assert_eq!(
        kind_and_op(&drafted, "mace/ops/opencl/image/space_to_depth.cc")
            .1
            .as_deref(),
        Some("copy-cast-layout"),
        "{drafted}"
    );
    assert!(
        !in_population(&drafted, "mace/runtimes/opencl/opencl_helper.cc"),
        "{drafted}"
    );

    // Without OpenCL kernels in the repository, `setArg` is someone else's.
    let q = Sota::new().git_init().file("src/pad.cc", launcher).file(
        "src/pad.cu",
        "__global__ void pad(float* x) { x[threadIdx.x] = 0.f; }\n",
    );
    q.git(&["add", "-A"]).success();
    let without = plan(&q);
    assert!(!in_population(&without, "src/pad.cc"), "{without}");
}

#[test]
fn musa_sources_and_opencl_kept_in_raw_strings_are_kernels() {
    let p = Sota::new()
        .git_init()
        // Moore Threads MUSA: the CUDA kernel ported file for file.
        .file(
            "ops/csrc/common/musa/roi_align_musa_kernel.muh",
            "template <typename T>\n__global__ void roi_align_forward(const T* in, T* out) {\n  out[threadIdx.x] = in[threadIdx.x];\n}\n",
        )
        .file(
            "ops/csrc/pytorch/musa/roi_align_musa.mu",
            "#include \"roi_align_musa_kernel.muh\"\nvoid launch(const float* a, float* b) { roi_align_forward<<<1, 32>>>(a, b); }\n",
        )
        // CLBlast keeps OpenCL C in a raw string a host routine includes.
        .file(
            "src/kernels/level1/xaxpy.opencl",
            "R\"(\n__kernel void Xaxpy(const int n, const __global float* x, __global float* y) {\n  y[get_global_id(0)] += x[get_global_id(0)];\n}\n)\"\n",
        )
        // Macros alone, no kernel: not a kernel file by itself.
        .file(
            "src/kernels/common.opencl",
            "R\"(\n#define MultiplyAdd(c, a, b) c += a * b\n)\"\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for path in [
        "ops/csrc/common/musa/roi_align_musa_kernel.muh",
        "ops/csrc/pytorch/musa/roi_align_musa.mu",
    ] {
        assert_eq!(kind_and_op(&plan, path).0, "cuda", "{path}");
    }
    assert_eq!(
        kind_and_op(&plan, "src/kernels/level1/xaxpy.opencl").0,
        "opencl"
    );
    assert!(!in_population(&plan, "src/kernels/common.opencl"), "{plan}");
}

#[test]
fn warp_python_kernels_are_found_and_eval_fixtures_are_not() {
    let warp = "import warp as wp\n\n@wp.func\ndef shape(x: float):\n    return x * x\n\n@wp.kernel\ndef integrate(a: wp.array(dtype=float), b: wp.array(dtype=float)):\n    tid = wp.tid()\n    b[tid] = shape(a[tid])\n";
    let p = Sota::new()
        .git_init()
        .file("warp/fem/integrate.py", warp)
        // Calls kernels, defines none.
        .file(
            "warp/fem/runner.py",
            "import warp as wp\n\ndef run(k, n):\n    wp.launch(k, dim=n)\n",
        )
        // An agent skill's eval case and a model eval: they run kernels.
        .file("skills/warp-debug/evals/files/springs.py", warp)
        .file(
            "eval/tilelang_flash_decoding.py",
            "import tilelang\n\n@T.prim_func\ndef main(Q, K):\n    pass\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "warp/fem/integrate.py").0,
        "gpu-dsl",
        "{plan}"
    );
    for path in [
        "warp/fem/runner.py",
        "skills/warp-debug/evals/files/springs.py",
        "eval/tilelang_flash_decoding.py",
    ] {
        assert!(!in_population(&plan, path), "{path}: {plan}");
    }
}

#[test]
fn scalar_assembly_is_a_kernel_alone_too_and_start_up_code_probes_and_data_are_not() {
    let sse = "    movups (%rdi), %xmm0\n    addps %xmm1, %xmm0\n    ret\n";
    let x87 = "    fldl (%rdi)\n    fabs\n    fstpl (%rsi)\n    ret\n";
    // Ten instruction lines of Alpha floating point, as OpenBLAS writes them.
    let alpha = "#include \"common.h\"\n\t.set noat\n$L10:\n".to_owned()
        + &"\tLD\t$f10, 0*SIZE(X)\n\tMUL\t$f10, $f11, $f12\n".repeat(5);
    let data = "\t.section .rodata\n\t.global table\ntable:\n\t.incbin \"table.bin\"\n";
    let p = Sota::new()
        .git_init()
        .file("kernel/x86_64/saxpy_sse.S", sse)
        .file("kernel/x86_64/sdot_sse.S", sse)
        .file("kernel/x86_64/sscal_sse.S", sse)
        // The x87 kernel of the same library: no SIMD instruction; its
        // SIMD neighbours make it their ISA's assembly.
        .file("kernel/x86_64/amax.S", x87)
        // A directory of scalar FPU kernels (OpenBLAS's Alpha port).
        .file("kernel/alpha/dot.S", &alpha)
        .file("kernel/alpha/axpy.S", &alpha)
        // Start-up code, a CPU feature probe and a data table compute no op.
        .file("boot/start.S", &alpha)
        .file("arch/startup_cm4.S", &alpha)
        .file("kernel/x86_64/cpuid.S", x87)
        .file("library/src/sobol32_precomputed.S", data);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "kernel/x86_64/amax.S").0,
        "asm",
        "{plan}"
    );
    for path in ["kernel/alpha/dot.S", "kernel/alpha/axpy.S"] {
        assert_eq!(kind_and_op(&plan, path).0, "asm-scalar", "{path}: {plan}");
    }
    for path in [
        "boot/start.S",
        "arch/startup_cm4.S",
        "kernel/x86_64/cpuid.S",
        "library/src/sobol32_precomputed.S",
    ] {
        assert!(!in_population(&plan, path), "{path}: {plan}");
    }
    // Scalar assembly takes no ISA backend's op by its kind alone.
    assert_ne!(
        kind_and_op(&plan, "kernel/alpha/dot.S").1.as_deref(),
        Some("x86-avx512-amx"),
        "{plan}"
    );
}

#[test]
fn opencl_in_cpp_strings_is_a_kernel_unless_a_generated_copy_of_the_cl_beside_it() {
    let cl = "__kernel void argmax(__global const float* a, __global int* y) {\n  int i = get_global_id(0);\n  y[i] = a[i] > 0;\n}\n";
    let embedded = "static const char* kSource =\n  \"__kernel void blend(__global uchar* a) {\\n\"\n  \"  a[get_global_id(0)] = 0;\\n\"\n  \"}\\n\";\n";
    let p = Sota::new()
        .git_init()
        .file("nodes/alpha_blend.cpp", embedded)
        .file("opencl/cl/argmax_buf.cl", cl)
        // Generated from argmax_buf.cl at build time, checked in.
        .file("opencl/cl/argmax_buf_mnn_cl.cpp", embedded);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "nodes/alpha_blend.cpp").0,
        "opencl",
        "{plan}"
    );
    assert!(in_population(&plan, "opencl/cl/argmax_buf.cl"), "{plan}");
    assert!(
        !in_population(&plan, "opencl/cl/argmax_buf_mnn_cl.cpp"),
        "{plan}"
    );
}

#[test]
fn a_collection_of_samples_counts_its_samples_and_a_library_does_not() {
    let kernel = "__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n";
    let names = [
        "vectorAdd",
        "matrixMul",
        "reduction",
        "scan",
        "histogram",
        "transpose",
        "convolutionSeparable",
        "sortingNetworks",
        "mergeSort",
        "fastWalshTransform",
        "dct8x8",
        "binomialOptions",
    ];
    // NVIDIA's cuda-samples: every kernel sits under Samples/.
    let mut samples = Sota::new().git_init();
    for n in names {
        samples = samples.file(&format!("Samples/2_Concepts/{n}/{n}.cu"), kernel);
    }
    samples.git(&["add", "-A"]).success();
    let drafted = plan(&samples);
    for n in names {
        let path = format!("Samples/2_Concepts/{n}/{n}.cu");
        assert!(in_population(&drafted, &path), "{path}: {drafted}");
    }
    assert!(
        drafted["toml"]
            .as_str()
            .unwrap()
            .contains("# A collection of samples: its 12 example kernel sources"),
        "{drafted}"
    );
    // A library whose examples outnumber its kernels less than tenfold
    // ships its kernels, not its examples.
    let mut library = Sota::new().git_init();
    for n in ["gemm", "softmax"] {
        library = library.file(&format!("src/{n}.cu"), kernel);
    }
    for n in names {
        library = library.file(&format!("examples/{n}/{n}.cu"), kernel);
    }
    library.git(&["add", "-A"]).success();
    let drafted = plan(&library);
    assert!(in_population(&drafted, "src/gemm.cu"), "{drafted}");
    assert!(
        !in_population(&drafted, "examples/vectorAdd/vectorAdd.cu"),
        "{drafted}"
    );
    assert!(
        !drafted["toml"]
            .as_str()
            .unwrap()
            .contains("A collection of samples"),
        "{drafted}"
    );
    // A tree with no kernel outside its examples ships them, whatever
    // their number, when their content says they are kernels
    // (DiffTaichi's `@ti.kernel` simulation scripts); its other scripts
    // stay out.
    let taichi = "import taichi as ti\n\n@ti.kernel\ndef p2g(s: ti.i32):\n    for p in range(n):\n        grid_v[p] += x[p]\n";
    let scripts = Sota::new()
        .git_init()
        .file("examples/diffmpm.py", taichi)
        .file("examples/mass_spring.py", taichi)
        .file(
            "examples/plot_losses.py",
            "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n",
        )
        .file("README.md", "# examples\n");
    scripts.git(&["add", "-A"]).success();
    let drafted = plan(&scripts);
    assert!(in_population(&drafted, "examples/diffmpm.py"), "{drafted}");
    assert!(
        in_population(&drafted, "examples/mass_spring.py"),
        "{drafted}"
    );
    assert!(
        !in_population(&drafted, "examples/plot_losses.py"),
        "{drafted}"
    );
    assert!(
        drafted["toml"]
            .as_str()
            .unwrap()
            .contains("# A collection of samples: its 2 example kernel sources"),
        "{drafted}"
    );
}

#[test]
fn kernels_held_as_strings_are_found_in_every_host_language() {
    let p = Sota::new()
        .git_init()
        // TensorFlow.js: WGSL and WebGL GLSL ES in TypeScript strings.
        .file(
            "tfjs-backend-webgpu/src/softmax_webgpu.ts",
            "export class SoftmaxProgram {\n  getUserCode(): string {\n    return `\n      var<workgroup> buf : array<f32, 64>;\n      fn _start(@builtin(local_invocation_id) lid : vec3<u32>) {\n        workgroupBarrier();\n      }`;\n  }\n}\n",
        )
        .file(
            "tfjs-backend-webgl/src/transpose_gpu.ts",
            "export class TransposeProgram {\n  userCode = `\n    void main() {\n      ivec4 resRC = getOutputCoords();\n      setOutput(getA(resRC.y, resRC.x));\n    }`;\n}\n",
        )
        // Host code beside them: typed vectors of its own, no shader.
        .file(
            "tfjs-backend-webgpu/src/webgpu_util.ts",
            "export function computeDispatch(layout: {x: number[]}, shape: number[]): [number, number, number] {\n  return [Math.ceil(shape[0] / 64), 1, 1];\n}\n",
        )
        // MLX custom Metal kernels from Python, CUDA C in a Rust string.
        .file(
            "mlx_vlm/models/rope.py",
            "import mlx.core as mx\n\nkernel = mx.fast.metal_kernel(name=\"rope\", input_names=[\"x\"], output_names=[\"y\"], source=SOURCE)\n",
        )
        .file(
            "crates/backend_cuda/src/binary.rs",
            "pub const CODE: &str = \"extern \\\"C\\\" __global__ void add(float* a, const float* b) { a[blockIdx.x * blockDim.x + threadIdx.x] += b[threadIdx.x]; }\";\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    let kind = |path: &str| kind_and_op(&plan, path).0;
    assert_eq!(kind("tfjs-backend-webgpu/src/softmax_webgpu.ts"), "wgsl");
    assert_eq!(kind("tfjs-backend-webgl/src/transpose_gpu.ts"), "webgl");
    assert_eq!(kind("mlx_vlm/models/rope.py"), "metal");
    assert_eq!(kind("crates/backend_cuda/src/binary.rs"), "cuda");
    assert!(
        !in_population(&plan, "tfjs-backend-webgpu/src/webgpu_util.ts"),
        "{plan}"
    );
    // What the file computes still names the op, whatever its language.
    assert_eq!(
        kind_and_op(&plan, "tfjs-backend-webgpu/src/softmax_webgpu.ts")
            .1
            .as_deref(),
        Some("softmax")
    );
}

#[test]
fn a_file_only_its_isa_names_follows_what_its_directory_computes() {
    let neon = "#include <arm_neon.h>\nvoid k(float* y, const float* x) {\n  vst1q_f32(y, vmulq_f32(vld1q_f32(x), vld1q_f32(x)));\n}\n";
    let p = Sota::new()
        .git_init()
        // NEON kernels named by what they compute, and one named only by
        // its ISA and shape.
        .file("src/arm/winograd_conv_neon.c", neon)
        .file("src/arm/depthwise_conv_neon.c", neon)
        .file("src/arm/neon_s2_a53.c", neon)
        // A directory of ISA-named files only: the backend op is all
        // there is to say, and it stays.
        .file("src/x86/avx2_u8.c", "#include <immintrin.h>\nvoid k(float* y) { _mm256_storeu_ps(y, _mm256_setzero_ps()); }\n")
        .file("src/x86/avx512_u16.c", "#include <immintrin.h>\nvoid k(float* y) { _mm512_storeu_ps(y, _mm512_setzero_ps()); }\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    let op = |path: &str| kind_and_op(&plan, path).1;
    assert_eq!(
        op("src/arm/winograd_conv_neon.c").as_deref(),
        Some("convolution")
    );
    assert_eq!(
        op("src/arm/neon_s2_a53.c").as_deref(),
        Some("convolution"),
        "{plan}"
    );
    assert_eq!(
        op("src/x86/avx2_u8.c").as_deref(),
        Some("x86-avx512-amx"),
        "{plan}"
    );
}

#[test]
fn a_file_left_out_as_infrastructure_is_never_also_a_kernel() {
    let sse = "#include <immintrin.h>\nvoid k(float* x) { for (int i = 0; i < 8; i += 4) _mm_storeu_ps(x + i, _mm_loadu_ps(x + i)); }\n";
    let plain =
        "int n(const int* f) { int c = 0; for (int i = 0; i < 4; i++) c += f[i]; return c; }\n";
    let p = Sota::new()
        .git_init()
        .file("kernels/x86/add_sse.c", sse)
        .file("kernels/x86/mul_sse.c", sse)
        .file("kernels/x86/max_sse.c", sse)
        // A plain source among SIMD kernels would join them, but its name
        // says it is a CPU feature probe.
        .file("kernels/x86/cpu_probe.c", plain);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "kernels/x86/add_sse.c"), "{plan}");
    assert!(!in_population(&plan, "kernels/x86/cpu_probe.c"), "{plan}");
}

#[test]
fn an_umbrella_header_left_out_stays_out_though_a_kernel_includes_it() {
    let p = Sota::new()
        .git_init()
        .file(
            "neighbors/ball_cover/kernel.cuh",
            "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n",
        )
        // The umbrella over `ball_cover/`, which a kernel beside it includes.
        .file(
            "neighbors/ball_cover.cuh",
            "#include \"ball_cover/kernel.cuh\"\n__device__ int f() { return 0; }\n",
        )
        .file(
            "neighbors/search.cu",
            "#include \"ball_cover.cuh\"\n__global__ void s(float* x) { x[threadIdx.x] = f(); }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "neighbors/search.cu"), "{plan}");
    let skipped = plan["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "neighbors/ball_cover.cuh"),
        "{plan}"
    );
    assert!(!in_population(&plan, "neighbors/ball_cover.cuh"), "{plan}");
}

#[test]
fn a_header_of_one_isas_helpers_is_adopted_as_that_isa_beside_anothers_kernels() {
    let sse = "#include <emmintrin.h>\nvoid k(int* a) { __m128i x = _mm_loadu_si128((const __m128i*)a); }\n";
    let p = Sota::new()
        .git_init()
        .file("src/dsp/dec_sse2.c", sse)
        .file("src/dsp/enc_sse2.c", sse)
        .file("src/dsp/yuv_sse2.c", sse)
        // NEON helpers with no intrinsic the detector marks: adopted with
        // the directory's kernels, as NEON code (libwebp's `neon.h`).
        .file(
            "src/dsp/neon.h",
            "#include <arm_neon.h>\nstatic inline int32x4x4_t Transpose4x4_NEON(const int32x4x4_t rows) {\n  int32x4x2_t r = vtrnq_s32(rows.val[0], rows.val[1]);\n  return rows;\n}\n",
        )
        // A header with no intrinsics include takes the majority, as before.
        .file(
            "src/dsp/common.h",
            "static inline int clip(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(kind_and_op(&plan, "src/dsp/neon.h").0, "simd-arm", "{plan}");
    assert_eq!(
        kind_and_op(&plan, "src/dsp/common.h").0,
        "simd-x86",
        "{plan}"
    );
    assert_ne!(
        kind_and_op(&plan, "src/dsp/neon.h").1.as_deref(),
        Some("x86-avx512-amx"),
        "{plan}"
    );
}

#[test]
fn a_header_including_x86_intrinsics_beside_cuda_kernels_is_theirs() {
    let cuda = "__global__ void k(float* a) { a[threadIdx.x] = 0.f; }\n";
    let p = Sota::new()
        .git_init()
        .file("kernels/a.cu", cuda)
        .file("kernels/b.cu", cuda)
        .file("kernels/c.cu", cuda)
        .file(
            "kernels/helpers.h",
            "#include <immintrin.h>\nstatic inline float twice(float x) { return 2.f * x; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(kind_and_op(&plan, "kernels/helpers.h").0, "cuda", "{plan}");
}

#[test]
fn an_isa_named_in_a_comment_or_one_branch_leaves_a_header_to_its_directory() {
    let neon = "#include <arm_neon.h>\nvoid k(float* a) { float32x4_t x = vld1q_f32(a); vst1q_f32(a, x); }\n";
    let p = Sota::new()
        .git_init()
        .file("src/arm/add_neon.c", neon)
        .file("src/arm/mul_neon.c", neon)
        .file("src/arm/sub_neon.c", neon)
        // An x86 branch beside another target's: not one ISA's code.
        .file(
            "src/arm/cpu_relax.h",
            "#if defined(__x86_64__)\n#include <immintrin.h>\nstatic inline void relax(void) { _mm_pause(); }\n#else\nstatic inline void relax(void) {}\n#endif\n",
        )
        // A mention in a comment is no include.
        .file(
            "src/arm/transpose.h",
            "// NEON equivalents of the emmintrin.h helpers\nstatic inline void transpose4(float* m) { float t = m[1]; m[1] = m[4]; m[4] = t; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for header in ["src/arm/cpu_relax.h", "src/arm/transpose.h"] {
        assert_eq!(kind_and_op(&plan, header).0, "simd-arm", "{header}: {plan}");
    }
}

#[test]
fn infrastructure_still_counts_among_the_headers_kernels_must_outnumber() {
    // Three CUDA kernels, two plain headers and two infrastructure headers
    // (an exception type, a print helper) in one directory: the kernels do
    // not outnumber the other headers, so the plain ones stay out. Leaving
    // the infrastructure out of the population must not tip that vote.
    let mut p = Sota::new().git_init();
    for i in 0..3 {
        p = p.file(
            &format!("csrc/util/op{i}.cu"),
            &format!("__global__ void op{i}(float* x) {{ x[0] = {i}; }}\n"),
        );
    }
    p = p
        .file(
            "csrc/util/handle_manager.h",
            "struct Handles { int n; };\nint handles(Handles h) { return h.n; }\n",
        )
        .file(
            "csrc/util/string_utils.h",
            "inline int length(const char* s) { int n = 0; while (s[n]) ++n; return n; }\n",
        )
        .file(
            "csrc/util/exception.h",
            "struct Error { const char* what; };\n",
        )
        .file(
            "csrc/util/print.h",
            "void print_tensor(const float* x, int n);\n",
        );
    p.commit("kernels and their helpers");
    let draft = plan(&p);
    for kernel in ["csrc/util/op0.cu", "csrc/util/op1.cu", "csrc/util/op2.cu"] {
        assert!(in_population(&draft, kernel), "{kernel}: {draft}");
    }
    for host in [
        "csrc/util/handle_manager.h",
        "csrc/util/string_utils.h",
        "csrc/util/exception.h",
        "csrc/util/print.h",
    ] {
        assert!(
            !in_population(&draft, host),
            "{host} joined the kernels: {draft}"
        );
    }
}

#[test]
fn paths_the_repository_marks_linguist_vendored_are_left_out_as_a_directory() {
    let p = Sota::new()
        .git_init()
        .file(
            ".gitattributes",
            "native/cuBQL/** linguist-vendored\n\
             native/bvh_own/** linguist-vendored\n\
             native/bvh_own/warp/** -linguist-vendored\n\
             *.cu text eol=lf\n",
        )
        .file("native/bvh.cu", "__global__ void bvh_refit() {}\n")
        .file("native/sort.cu", "__global__ void radix_sort() {}\n")
        .file(
            "native/cuBQL/builder/sah_builder.cu",
            "__global__ void sah() {}\n",
        )
        .file(
            "native/cuBQL/builder/refit.cu",
            "__global__ void refit() {}\n",
        )
        .file("native/bvh_own/warp/lbvh.cu", "__global__ void lbvh() {}\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(!in_population(&plan, "native/cuBQL/builder/sah_builder.cu"));
    assert!(!in_population(&plan, "native/cuBQL/builder/refit.cu"));
    // Un-vendored again by a later line: the team's own code.
    assert!(in_population(&plan, "native/bvh_own/warp/lbvh.cu"));
    assert!(in_population(&plan, "native/bvh.cu"));
    assert_eq!(
        left_out(&plan, "native/cuBQL/builder/refit.cu"),
        Some(("vendored", Some("linguist-vendored in .gitattributes")))
    );
    let toml = plan["toml"].as_str().unwrap();
    assert!(
        toml.contains("vendored copy (linguist-vendored in .gitattributes)"),
        "{toml}"
    );
    // The excludes name the directory once, not its files one by one.
    let exclude = excludes(&plan);
    assert!(exclude.contains(&"native/cuBQL/"), "{exclude:?}");
    assert!(
        !exclude.iter().any(|e| e.ends_with("refit.cu")),
        "{exclude:?}"
    );
}

#[test]
fn an_unpacked_archive_directory_is_left_out_as_a_copy() {
    let p = Sota::new()
        .git_init()
        .file(
            "src/native/pairhmm_avx.c",
            "#include <immintrin.h>\n__m256 f(__m256 a){return _mm256_add_ps(a,a);}\n",
        )
        .file(
            "src/native/smithwaterman/sw_avx2.c",
            "#include <immintrin.h>\n__m256i f(__m256i a){return _mm256_max_epi16(a,a);}\n",
        )
        .file(
            "src/native/compression/deflate_avx2.c",
            "#include <immintrin.h>\n__m256i f(__m256i a){return _mm256_sad_epu8(a,a);}\n",
        )
        .file(
            "src/native/compression/isa-l-master/crc/crc32_simd.c",
            "#include <immintrin.h>\n__m128i f(__m128i a){return _mm_clmulepi64_si128(a,a,0);}\n",
        )
        .file(
            "src/native/compression/isa-l-master/igzip/huff.c",
            "#include <immintrin.h>\n__m128i g(__m128i a){return _mm_shuffle_epi8(a,a);}\n",
        )
        .file(
            "contrib/cub-1.8.0/block_scan.cu",
            "__global__ void scan() {}\n",
        )
        .file(
            "contrib/zlib-1.3.1/adler32_simd.c",
            "#include <immintrin.h>\n__m128i h(__m128i a){return _mm_sad_epu8(a,a);}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "src/native/pairhmm_avx.c"), "{plan}");
    for copied in [
        "src/native/compression/isa-l-master/crc/crc32_simd.c",
        "src/native/compression/isa-l-master/igzip/huff.c",
        "contrib/zlib-1.3.1/adler32_simd.c",
    ] {
        assert!(!in_population(&plan, copied), "{copied}: {plan}");
    }
    // A file only a kernel can be is listed as left out, with its role.
    assert!(
        left_out(&plan, "contrib/cub-1.8.0/block_scan.cu")
            .is_some_and(|(role, _)| role == "vendored"),
        "{plan}"
    );
    let exclude = excludes(&plan);
    for dir in [
        "src/native/compression/isa-l-master/",
        "contrib/zlib-1.3.1/",
    ] {
        assert!(
            exclude.contains(&dir),
            "one directory, not its files: {exclude:?}"
        );
    }
}

#[test]
fn a_library_copied_under_its_own_name_is_left_out_unless_it_is_the_repository() {
    let p = Sota::new()
        .git_init()
        .file(
            "src/amg/smoother.cu",
            "__global__ void jacobi(float* x) { x[threadIdx.x] *= 0.5f; }\n",
        )
        .file(
            "src/amg/coarsen.cu",
            "__global__ void coarsen(int* a) { a[threadIdx.x] = 0; }\n",
        )
        .file(
            "include/cusp/detail/device/spmv/coo_flat.cu",
            "__global__ void spmv_coo_flat(float* y) { y[threadIdx.x] = 0.f; }\n",
        )
        .file(
            "libraries/asmjit/x86/x86assembler.h",
            "#include <immintrin.h>\n__m128i f(__m128i a){return _mm_add_epi32(a,a);}\n",
        );
    p.git(&["add", "-A"]).success();
    let copied = plan(&p);
    assert!(in_population(&copied, "src/amg/smoother.cu"), "{copied}");
    assert!(
        !in_population(&copied, "libraries/asmjit/x86/x86assembler.h"),
        "{copied}"
    );
    let cusp = left_out(&copied, "include/cusp/detail/device/spmv/coo_flat.cu");
    assert!(
        cusp.is_some_and(
            |(role, why)| role == "vendored" && why.is_some_and(|w| w.contains("library"))
        ),
        "{cusp:?}: {copied}"
    );

    // The same directory in the library's own repository is its code.
    let own = Sota::new().git_init().file(
        "cusp/detail/device/spmv/coo_flat.cu",
        "__global__ void spmv_coo_flat(float* y) { y[threadIdx.x] = 0.f; }\n",
    );
    own.git(&["add", "-A"]).success();
    own.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/cusplibrary/cusp.git",
    ])
    .success();
    let own_plan = plan(&own);
    assert!(
        in_population(&own_plan, "cusp/detail/device/spmv/coo_flat.cu"),
        "{own_plan}"
    );
}

#[test]
fn a_directory_with_a_provenance_note_is_left_out_as_a_copy() {
    let p = Sota::new()
        .git_init()
        .file("PROVENANCE.md", "This repository's own history.\n")
        .file("kernels/moe.cu", "__global__ void moe_align() {}\n")
        .file(
            "kernels/marlin/_csrc/PROVENANCE.md",
            "Copied verbatim from vllm-project/vllm csrc/quantization/marlin.\n",
        )
        .file(
            "kernels/marlin/_csrc/marlin.cu",
            "__global__ void Marlin() {}\n",
        )
        .file(
            "kernels/marlin/_csrc/moe/marlin_moe.cu",
            "__global__ void MarlinMoE() {}\n",
        )
        .file(
            "third/zlib/README.chromium",
            "Name: zlib\nURL: https://github.com/madler/zlib\n",
        )
        .file(
            "third/zlib/crc32_simd.c",
            "#include <immintrin.h>\n__m128i f(__m128i a){return _mm_clmulepi64_si128(a,a,0);}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "kernels/moe.cu"), "{plan}");
    for copied in [
        "kernels/marlin/_csrc/marlin.cu",
        "kernels/marlin/_csrc/moe/marlin_moe.cu",
        "third/zlib/crc32_simd.c",
    ] {
        assert!(!in_population(&plan, copied), "{copied}: {plan}");
    }
    let reason = left_out(&plan, "kernels/marlin/_csrc/moe/marlin_moe.cu");
    assert!(
        reason
            .is_some_and(|(role, why)| role == "vendored"
                && why.is_some_and(|w| w.contains("provenance note"))),
        "{reason:?}"
    );
    let exclude = excludes(&plan);
    assert!(
        !exclude.iter().any(|e| e.ends_with("marlin.cu")),
        "one directory, not its files: {exclude:?}"
    );
}

#[test]
fn a_gitattributes_that_leaves_the_repository_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("attrs"),
        "native/** linguist-vendored\n",
    )
    .unwrap();
    let p = Sota::new()
        .git_init()
        .file("native/bvh.cu", "__global__ void bvh_refit() {}\n")
        .file("native/sort.cu", "__global__ void radix_sort() {}\n");
    std::os::unix::fs::symlink(
        outside.path().join("attrs"),
        p.path().join(".gitattributes"),
    )
    .unwrap();
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    // The symlink points outside the root: its rules are not the
    // repository's word, and both kernels stay.
    assert!(in_population(&plan, "native/bvh.cu"), "{plan}");
    assert!(in_population(&plan, "native/sort.cu"), "{plan}");
}

#[test]
fn a_host_source_that_only_launches_ispc_kernels_is_not_one() {
    let ispc = |name: &str| {
        format!("export void {name}(uniform float* uniform x, uniform int n) {{\n  foreach (i = 0 ... n) {{ x[i] = x[i] * 2.f; }}\n}}\n")
    };
    let p = Sota::new()
        .git_init()
        .file("devices/cpu/cpu_pool_f32.ispc", &ispc("pool_f32"))
        .file("devices/cpu/cpu_pool_f16.ispc", &ispc("pool_f16"))
        .file("devices/cpu/cpu_upsample_f32.ispc", &ispc("upsample_f32"))
        .file("devices/cpu/cpu_conv.ispc", &ispc("conv"))
        // Launches the generated entry points over a parallel_for.
        .file(
            "devices/cpu/cpu_pool.cpp",
            "#include \"cpu_pool.h\"\n#include \"cpu_pool_f32_ispc.h\"\n\nvoid CPUPool::submit() {\n  parallel_for(C, H, [&](int c, int h) { ispc::pool_f32(&kernel, c, h); });\n}\n",
        )
        // Has a scalar path of its own beside the ISPC one.
        .file(
            "devices/cpu/cpu_upsample.cpp",
            "#include \"cpu_upsample_f32_ispc.h\"\n\nvoid CPUUpsample::submit() {\n  parallel_for(C, H, [&](int c, size_t h) {\n    for (size_t w = 0; w < W; ++w) { dst[2*w] = src[w]; }\n  });\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(
        in_population(&plan, "devices/cpu/cpu_pool_f32.ispc"),
        "{plan}"
    );
    assert!(!in_population(&plan, "devices/cpu/cpu_pool.cpp"), "{plan}");
    assert!(
        in_population(&plan, "devices/cpu/cpu_upsample.cpp"),
        "{plan}"
    );
}

#[test]
fn a_suite_whose_kernels_are_its_benchmarks_ships_them() {
    let triton =
        |name: &str| format!("import triton\n@triton.jit\ndef {name}_kernel(x):\n    pass\n");
    let names = [
        "gemm",
        "softmax",
        "conv2d",
        "fft",
        "spmv",
        "histogram",
        "syrk",
        "trmm",
        "cholesky",
        "lu",
        "jacobi",
        "nbody",
    ];
    let suite = names.iter().fold(Sota::new().git_init(), |p, n| {
        p.file(&format!("pkg/benchmarks/{n}/{n}_triton.py"), &triton(n))
    });
    // One utility module outside holds a small kernel of its own.
    let suite = suite.file("pkg/infrastructure/triton_utilities.py", &triton("fill"));
    suite.git(&["add", "-A"]).success();
    let drafted = plan(&suite);
    for n in names {
        let path = format!("pkg/benchmarks/{n}/{n}_triton.py");
        assert!(in_population(&drafted, &path), "{path}: {drafted}");
    }
    assert!(drafted["toml"]
        .as_str()
        .unwrap()
        .contains("# A collection of samples: its 12 example kernel sources"));
    // A library with kernels of its own keeps its benchmarks out.
    let library = names.iter().fold(Sota::new().git_init(), |p, n| {
        p.file(&format!("pkg/benchmarks/{n}/{n}_triton.py"), &triton(n))
    });
    let library = library
        .file("pkg/ops/rms_norm.py", &triton("rms_norm"))
        .file("pkg/ops/rope.py", &triton("rope"));
    library.git(&["add", "-A"]).success();
    let drafted = plan(&library);
    assert!(in_population(&drafted, "pkg/ops/rope.py"), "{drafted}");
    assert!(
        !in_population(&drafted, "pkg/benchmarks/gemm/gemm_triton.py"),
        "{drafted}"
    );
}

#[test]
fn code_written_with_the_repositorys_simd_layer_is_a_simd_kernel() {
    // astc-encoder's shape: per-ISA headers define vector types over the
    // intrinsics, the codec is written with those types alone.
    let layer = "#include <immintrin.h>\n// a class that wraps one register: __m128\nstruct vfloat4 {\n  __m128 m;\n};\nstruct vint4 {\n  __m128i m;\n};\n#define SIMD_MAX(a, b) _mm256_max_epi16(a, b)\n";
    let p = Sota::new()
        .git_init()
        .file("Source/codec_vecmath_sse_4.h", layer)
        .file(
            "Source/codec_averages.cpp",
            "#include \"codec_vecmath_sse_4.h\"\nvoid averages(const float* p, int n, vfloat4* out) {\n  vfloat4 sum(0.0f);\n  for (int i = 0; i < n; i += 4) { sum = sum + vfloat4(p + i); }\n  vint4 lanes(4);\n  *out = sum;\n}\n",
        )
        // Passes one type through and loops over nothing of the layer's.
        .file(
            "Source/codec_entry.cpp",
            "#include \"codec_vecmath_sse_4.h\"\nvfloat4 entry_scale();\nint entry(int n) {\n  int total = 0;\n  for (int i = 0; i < n; i++) { total += i; }\n  return total;\n}\n",
        )
        // Uses the layer, but is a timer: infrastructure stays out.
        .file(
            "Source/codec_timer.cpp",
            "vfloat4 t0; vint4 t1; vfloat4 t2;\nvoid tick() { for (;;) {} }\n",
        )
        // The header's comment names a class `that`: no definition.
        .file(
            "Source/codec_tables.cpp",
            "int table(int n, int that) {\n  int vint4 = 0;\n  for (int i = 0; i < n; i++) { vint4 += that + that; }\n  return that;\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    let (kind, _) = kind_and_op(&plan, "Source/codec_averages.cpp");
    assert_eq!(kind, "simd-x86", "{plan}");
    assert!(!in_population(&plan, "Source/codec_entry.cpp"), "{plan}");
    assert!(!in_population(&plan, "Source/codec_timer.cpp"), "{plan}");
    assert!(!in_population(&plan, "Source/codec_tables.cpp"), "{plan}");
}

#[test]
fn a_cuda_header_of_kernel_prototypes_and_host_helpers_is_the_host_interface() {
    // XSBench's shape: the header declares every kernel and defines an
    // inline error check; the bodies are in Simulation.cu; the other .cu
    // units are host code that includes the header.
    let p = Sota::new()
        .git_init()
        .file(
            "cuda/XSbench_header.cuh",
            "#include <cuda.h>\n#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }\ninline void gpuAssert(cudaError_t code, const char *file, int line) {\n  if (code != cudaSuccess) exit(code);\n}\ntypedef struct { double energy; } NuclideGridPoint;\n__global__ void xs_lookup_kernel(Inputs in, SimulationData GSD);\n__device__ long grid_search(long n, double q, double * A);\n",
        )
        .file(
            "cuda/Simulation.cu",
            "#include \"XSbench_header.cuh\"\n__global__ void xs_lookup_kernel(Inputs in, SimulationData GSD) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  GSD.out[i] = grid_search(in.n, 0.5, GSD.grid);\n}\n__device__ long grid_search(long n, double q, double * A) { return 0; }\n",
        )
        .file(
            "cuda/Main.cu",
            "#include \"XSbench_header.cuh\"\nint main(int argc, char** argv) {\n  gpuErrchk(cudaMalloc(&ptr, 64));\n  return 0;\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "cuda/Simulation.cu"), "{plan}");
    assert!(!in_population(&plan, "cuda/XSbench_header.cuh"), "{plan}");
    assert!(!in_population(&plan, "cuda/Main.cu"), "{plan}");
}

#[test]
fn a_plain_header_of_kernel_prototypes_and_a_launcher_is_the_host_interface() {
    // PopSift's shape in a `.h`: the kernel's prototype and an inline host
    // function that launches it, included by the host; the body is in the
    // `.cu` beside it. A `.h` that defines device code stays a kernel
    // header.
    let p = Sota::new()
        .git_init()
        .file(
            "src/s_desc_grid.h",
            "#pragma once\n__global__ void ext_desc_grid(int octave, float* tex);\nnamespace p {\ninline static bool start_ext_desc_grid(int octave, float* tex) {\n  dim3 grid(4), block(16, 4, 4);\n  ext_desc_grid<<<grid, block>>>(octave, tex);\n  return true;\n}\n}\n",
        )
        .file(
            "src/s_desc_grid.cu",
            "#include \"s_desc_grid.h\"\n__global__ void ext_desc_grid(int octave, float* tex) {\n  tex[threadIdx.x] = octave;\n}\n",
        )
        .file(
            "src/main.cpp",
            "#include \"s_desc_grid.h\"\nint main() { return p::start_ext_desc_grid(0, nullptr) ? 0 : 1; }\n",
        )
        .file(
            "src/vec_ops.h",
            "#pragma once\n__device__ static inline float2 add(float2 l, float2 r) { l.x += r.x; l.y += r.y; return l; }\n__device__ static inline float2 sub(float2 l, float2 r) { l.x -= r.x; l.y -= r.y; return l; }\n__device__ static inline float2 mul(float2 l, float r) { l.x *= r; l.y *= r; return l; }\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert!(in_population(&plan, "src/s_desc_grid.cu"), "{plan}");
    assert!(in_population(&plan, "src/vec_ops.h"), "{plan}");
    assert!(!in_population(&plan, "src/s_desc_grid.h"), "{plan}");
}

fn skipped_reason(plan: &serde_json::Value, path: &str) -> Option<(String, String)> {
    plan["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == path)
        .map(|s| {
            (
                s["role"].as_str().unwrap().to_owned(),
                s["reason"].as_str().unwrap_or("").to_owned(),
            )
        })
}

#[test]
fn numba_loops_are_kernels_through_the_librarys_own_decorators() {
    let p = Sota::new()
        .git_init()
        // The library's decorator factory over `nb.njit`, beside a jitted
        // helper of its own.
        .file(
            "src/stats/_util.py",
            "import numba as nb\n\n\ndef _jit(arg, cache=True):\n    sigs = [nb.float64(*[nb.float64] * arg)]\n    return nb.njit(sigs, cache=cache)\n\n\n@nb.njit(cache=True)\ndef _trans(x, loc, scale):\n    return (x - loc) / scale\n",
        )
        // The distributions carry only the library's decorator.
        .file(
            "src/stats/norm.py",
            "from math import erf\n\nfrom ._util import (\n    _jit,\n    _trans,\n)\n\n\n@_jit(2)\ndef _cdf(x, loc, scale):\n    z = _trans(x, loc, scale)\n    return 0.5 * (1.0 + erf(z))\n",
        )
        .file(
            "src/stats/expon.py",
            "from ._util import _jit, _trans\n\n\n@_jit(2)\ndef _pdf(x, loc, scale):\n    return _trans(x, loc, scale)\n",
        )
        // A module that imports the factory but decorates nothing with it,
        // and one decorated by another library's `cache`.
        .file("src/stats/api.py", "from ._util import _jit\n\n__all__ = [\"_jit\"]\n")
        .file(
            "src/stats/plots.py",
            "from functools import cache\n\n\n@cache\ndef style():\n    return {}\n",
        )
        // `jax.jit` in a module that never imports Numba is no Numba code.
        .file(
            "src/stats/jax_ref.py",
            "import jax\n\n\n@jax.jit\ndef cdf(x):\n    return x\n",
        )
        .file("tests/test_norm.py", "import numba\n\n@numba.njit\ndef check():\n    pass\n");
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for path in [
        "src/stats/_util.py",
        "src/stats/norm.py",
        "src/stats/expon.py",
    ] {
        assert_eq!(kind_and_op(&plan, path).0, "numba", "{path}: {plan}");
    }
    for path in [
        "src/stats/api.py",
        "src/stats/plots.py",
        "src/stats/jax_ref.py",
        "tests/test_norm.py",
    ] {
        assert!(!in_population(&plan, path), "{path}: {plan}");
    }
    assert!(
        plan["toml"]
            .as_str()
            .unwrap()
            .contains("[kernels]  # numba 3"),
        "{plan}"
    );
}

#[test]
fn a_suites_numba_variants_and_numba_helpers_away_from_gpu_kernels_are_left_out() {
    let cuda = "__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n";
    let numba = "import numba as nb\n\n\n@nb.njit\ndef kernel(x):\n    for i in range(x.size):\n        x[i] *= 2.0\n";
    let p = Sota::new()
        .git_init()
        // A CPU backend beside the GPU kernels of the same op is one.
        .file("lib/kernels/scale.cu", cuda)
        .file("lib/kernels/shift.cu", cuda)
        .file("lib/kernels/clip.cu", cuda)
        .file("lib/kernels/numba_kernel.py", numba)
        // A jitted helper away from them (an evaluation script) is not.
        .file("lib/geometry/iou.py", numba)
        // A comparison suite: the Numba variant beside its NumPy original.
        .file("suite/gemm/gemm_numba_np.py", numba)
        .file(
            "suite/gemm/gemm_numpy.py",
            "import numpy as np\n\ndef kernel(a, b):\n    return a @ b\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        kind_and_op(&plan, "lib/kernels/numba_kernel.py").0,
        "numba",
        "{plan}"
    );
    assert!(!in_population(&plan, "lib/geometry/iou.py"), "{plan}");
    assert!(
        !in_population(&plan, "suite/gemm/gemm_numba_np.py"),
        "{plan}"
    );
    let (role, reason) = skipped_reason(&plan, "lib/geometry/iou.py").expect("iou.py is left out");
    assert_eq!(role, "host-code");
    assert!(reason.contains("another model"), "{reason}");
    let (role, reason) =
        skipped_reason(&plan, "suite/gemm/gemm_numba_np.py").expect("the variant is left out");
    assert_eq!(role, "bench");
    assert!(reason.contains("NumPy program"), "{reason}");
}

#[test]
fn a_portable_kernel_language_is_read_through_the_macros_its_gpu_sources_define() {
    let common = "#define KERNEL extern \"C\" __global__\n#define GLOBAL\n#define GLOBAL_ID (blockIdx.x*blockDim.x+threadIdx.x)\n";
    let force = "KERNEL void computeBondForce(int n, GLOBAL float* RESTRICT f) {\n    for (int i = GLOBAL_ID; i < n; i += GLOBAL_SIZE)\n        f[i] = 0;\n}\n";
    let p = Sota::new()
        .git_init()
        // The CUDA platform defines the common language's keywords.
        .file("platforms/cuda/kernels/common.cu", common)
        .file(
            "platforms/cuda/kernels/utilities.cu",
            "extern \"C\" __global__ void clearBuffer(int* b) { b[threadIdx.x] = 0; }\n",
        )
        // Kernels written once in it, in `.cc` files with no CUDA marker.
        .file("platforms/common/kernels/bondForce.cc", force)
        .file("platforms/common/kernels/angleForce.cc", force)
        // Host code that only names the word is not.
        .file(
            "platforms/common/src/KernelSources.cpp",
            "#include <string>\nint mode = KERNEL;\nconst char* src = \"KERNEL\";\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for path in [
        "platforms/common/kernels/bondForce.cc",
        "platforms/common/kernels/angleForce.cc",
    ] {
        assert_eq!(kind_and_op(&plan, path).0, "cuda", "{path}: {plan}");
    }
    assert!(
        !in_population(&plan, "platforms/common/src/KernelSources.cpp"),
        "{plan}"
    );

    // Defined in a plain header instead, the bare word is no keyword.
    let q = Sota::new()
        .git_init()
        .file("include/config.h", common)
        .file("src/kernels/bondForce.cc", force)
        .file(
            "src/kernels/k.cu",
            "__global__ void k(int* b) { b[threadIdx.x] = 0; }\n",
        );
    q.git(&["add", "-A"]).success();
    let header = self::plan(&q);
    assert!(
        !in_population(&header, "src/kernels/bondForce.cc"),
        "{header}"
    );
}

/// libFLAC's scalar predictor beside its SIMD twins: no signal of its own.
const SCALAR_FIXED: &str = "void fixed_pick_order(const int *d, int n, int *o) {\n  \
    for (int i = 1; i < n; i++) o[i] = d[i] - d[i - 1];\n}\n";

/// The op a `sota.suggest/v1` payload proposes for `file` (None: no proposal).
#[track_caller]
fn proposed_op<'a>(v: &'a serde_json::Value, file: &str) -> Option<&'a str> {
    let suggestion = v["suggestions"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["file"] == file))
        .unwrap_or_else(|| panic!("no suggestion for {file}: {v}"));
    suggestion["proposal"]["op"].as_str()
}

/// What a draft leaves for the team (too little evidence for any op),
/// `suggest --uncovered` — the next step the draft names — leaves too: a
/// file beside a covered one with the same first name word is not placed
/// by that alone. libFLAC's scalar `fixed.c` beside `fixed_intrin_avx2.c`
/// was proposed for the x86 SIMD backend op; a first word is as often a
/// project's prefix (`rocrand_`, `bli_`) as a kernel's name. (`init` now
/// drafts that scalar file with its SIMD ports as one family: the
/// instruction-set ops alone had placed the ports.) Beside its
/// own evidence a neighbour still counts, and is shown; a row the team has
/// decided places the files beside it, ahead of the catalog's signals.
#[test]
fn suggest_leaves_for_the_team_what_init_left_and_only_a_decided_neighbour_places_alone() {
    let simd = |isa: &str, vec: &str, pre: &str, lanes: usize| {
        format!(
            "#include <immintrin.h>\nvoid fixed_pick_order_{isa}(const int *d, int n, int *o) {{\n  \
             for (int i = 0; i + {lanes} <= n; i += {lanes}) {{\n    \
             {vec} a = {pre}_loadu_si{bits}(({vec} *)(d + i));\n    \
             {pre}_storeu_si{bits}(({vec} *)(o + i), {pre}_sub_epi32(a, a));\n  }}\n}}\n",
            bits = lanes * 32,
        )
    };
    let p = Sota::new()
        .git_init()
        .file(
            "src/fixed_intrin_avx2.c",
            &simd("avx2", "__m256i", "_mm256", 8),
        )
        .file(
            "src/fixed_intrin_sse2.c",
            &simd("sse2", "__m128i", "_mm", 4),
        )
        .file("src/fixed.c", SCALAR_FIXED);
    p.git(&["add", "-A"]).success();
    // init drafts the scalar default with its SIMD ports as one family:
    // one computation written per instruction set, not the x86 op's.
    p.run(&["init", "--today", TODAY]).success();
    let v = p.run(&["suggest", "src/fixed.c", "--json"]).json();
    assert_eq!(
        v["suggestions"][0]["covered_by"],
        serde_json::json!(["x-fixed"]),
        "{v}"
    );
    // A drafted (undecided) x86 row beside it, the scalar file uncovered:
    // suggest does not place it there by the shared first word alone.
    let draft = "[project]\nname = \"demo\"\nreviewed = 2026-06-26\n\n[kernels]\ninclude = [\"src/**\"]\n\n\
                 [[op]]\nslug = \"x86-avx512-amx\"\ntitle = \"x86 SIMD\"\nsota = \"oneDNN\"\n\
                 files = [\"src/fixed_intrin_*\"]\n";
    std::fs::write(p.path().join("sota.toml"), draft).unwrap();
    let run = p.run(&["suggest", "--uncovered", "--json"]);
    assert_eq!(run.code, 1, "a file left uncovered: {}", run.stdout);
    let v = run.json();
    assert_eq!(proposed_op(&v, "src/fixed.c"), None, "{v}");
    assert_eq!(v["edits"], serde_json::json!([]), "{v}");
    p.run(&["suggest", "--uncovered", "--write"]);
    assert_eq!(
        std::fs::read_to_string(p.path().join("sota.toml")).unwrap(),
        draft,
        "--write has nothing to write"
    );

    // A file with a name of its own evidence still gets its neighbour's
    // word as evidence beside it.
    let attn = "__global__ void flash_attn_fwd() { /* online softmax */ }\n";
    let q = Sota::new()
        .git_init()
        .file(
            "sota.toml",
            "[project]\nname = \"demo\"\nreviewed = 2026-06-26\n\n[kernels]\ninclude = [\"k/**\"]\n\n\
             [[op]]\nslug = \"fused-attention\"\ntitle = \"Fused attention\"\nsota = \"FlashAttention\"\nfiles = [\"k/flash_fwd.cu\"]\n",
        )
        .file("k/flash_fwd.cu", attn)
        .file("k/flash_bwd.cu", attn);
    q.git(&["add", "-A"]).success();
    let v = q.run(&["suggest", "k/flash_bwd.cu", "--json"]).json();
    let proposal = &v["suggestions"][0]["proposal"];
    assert_eq!(proposal["op"], "fused-attention", "{v}");
    assert!(
        proposal["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["signal"] == "neighbour" && e["matched"] == "k/flash_fwd.cu"),
        "{v}"
    );

    // A row the team has decided (its `route` set) is the team's grouping:
    // its neighbour places a file beside it, even in a custom op no signal
    // can name, ahead of the signals; an undecided (drafted) row's does
    // not; neither puts plain C in the x86 SIMD op.
    let matrix = |route: &str| {
        format!(
            "[project]\nname = \"demo\"\nreviewed = 2026-06-26\n\n[kernels]\ninclude = [\"k/**\"]\n\n\
             [[op]]\nslug = \"x-kelp\"\ntitle = \"Kelp\"\nsota = \"ours\"\nfiles = [\"k/kelp_fwd.cu\"]\n{route}\n\
             [[op]]\nslug = \"x86-avx512-amx\"\ntitle = \"x86 SIMD\"\nsota = \"oneDNN\"\n\
             files = [\"k/fixed_intrin_avx2.c\"]\n{route}"
        )
    };
    let decided = "route = \"stay-minimal\"\n";
    for (route, wanted, softmax) in [("", None, "softmax"), (decided, Some("x-kelp"), "x-kelp")] {
        let t = Sota::new()
            .git_init()
            .file("sota.toml", &matrix(route))
            .file(
                "k/kelp_fwd.cu",
                "__global__ void kelp_fwd(float* x) { x[0] = 1.f; }\n",
            )
            .file(
                "k/kelp_bwd.cu",
                "__global__ void kelp_bwd(float* x) { x[0] = 2.f; }\n",
            )
            .file(
                "k/kelp_softmax.cu",
                "__global__ void kelp_softmax(float* x) { x[0] = expf(x[0]); }\n",
            )
            .file(
                "k/fixed_intrin_avx2.c",
                &simd("avx2", "__m256i", "_mm256", 8),
            )
            .file("k/fixed.c", SCALAR_FIXED);
        t.git(&["add", "-A"]).success();
        let v = t
            .run(&[
                "suggest",
                "k/kelp_bwd.cu",
                "k/kelp_softmax.cu",
                "k/fixed.c",
                "--json",
            ])
            .json();
        assert_eq!(proposed_op(&v, "k/kelp_bwd.cu"), wanted, "{route}: {v}");
        assert_eq!(proposed_op(&v, "k/fixed.c"), None, "{route}: {v}");
        // The team's grouping outranks the catalog's signals (the name says
        // softmax); a drafted row's does not.
        assert_eq!(
            proposed_op(&v, "k/kelp_softmax.cu"),
            Some(softmax),
            "{route}: {v}"
        );
    }
}

/// One computation written per instruction set, that only the backend ops
/// placed (base64's `lib/arch/{avx2,neon64}/dec_loop.c`): one family of
/// the tree's own, not its x86 half in the x86 op and its Arm half in the
/// Arm op. Ports all in one op, and files their own evidence placed, stay.
#[test]
fn ports_of_one_computation_to_two_instruction_sets_are_one_family() {
    let x86 = |f: &str| {
        format!(
            "#include <immintrin.h>\nvoid {f}(const unsigned char *s, unsigned char *o, int n) {{\n  \
             for (int i = 0; i + 32 <= n; i += 32) {{\n    \
             __m256i v = _mm256_loadu_si256((const __m256i *)(s + i));\n    \
             _mm256_storeu_si256((__m256i *)(o + i), _mm256_add_epi8(v, v));\n  }}\n}}\n"
        )
    };
    let arm = |f: &str| {
        format!(
            "#include <arm_neon.h>\nvoid {f}(const unsigned char *s, unsigned char *o, int n) {{\n  \
             for (int i = 0; i + 16 <= n; i += 16) {{\n    \
             uint8x16_t v = vld1q_u8(s + i);\n    vst1q_u8(o + i, vaddq_u8(v, v));\n  }}\n}}\n"
        )
    };
    let p = Sota::new()
        .git_init()
        .file("lib/arch/avx2/dec_loop.c", &x86("dec_loop_avx2"))
        .file("lib/arch/neon64/dec_loop.c", &arm("dec_loop_neon64"))
        .file("lib/arch/avx2/enc_loop.c", &x86("enc_loop_avx2"))
        .file("lib/arch/ssse3/enc_loop.c", &x86("enc_loop_ssse3"))
        .file("lib/arch/avx2/softmax.c", &x86("softmax_avx2"))
        .file("lib/arch/neon64/softmax.c", &arm("softmax_neon64"));
    p.git(&["add", "-A"]).success();
    let v = plan(&p);
    let op = |path: &str| kind_and_op(&v, path).1;
    assert_eq!(
        op("lib/arch/avx2/dec_loop.c").as_deref(),
        Some("x-dec"),
        "{v}"
    );
    assert_eq!(
        op("lib/arch/neon64/dec_loop.c").as_deref(),
        Some("x-dec"),
        "{v}"
    );
    // All x86: one op already holds both ports.
    assert_eq!(
        op("lib/arch/avx2/enc_loop.c").as_deref(),
        Some("x86-avx512-amx"),
        "{v}"
    );
    assert_eq!(
        op("lib/arch/ssse3/enc_loop.c").as_deref(),
        Some("x86-avx512-amx"),
        "{v}"
    );
    // Their names place them: not a family's.
    assert_eq!(
        op("lib/arch/avx2/softmax.c").as_deref(),
        Some("softmax"),
        "{v}"
    );
    assert_eq!(
        op("lib/arch/neon64/softmax.c").as_deref(),
        Some("softmax"),
        "{v}"
    );
    let dec = v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["path"] == "lib/arch/neon64/dec_loop.c")
        .unwrap();
    assert_eq!(dec["evidence"][0]["signal"], "per-isa", "{dec}");
    // The draft says what the family is, and the gate names it for a port.
    p.run(&["init", "--today", TODAY]).success();
    let draft = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert!(
        draft.contains("slug = \"x-dec\"") && draft.contains("written per instruction set"),
        "{draft}"
    );
    let gate = p.run(&["gate", "--json", "--paths", "lib/arch/neon64/dec_loop.c"]);
    assert_eq!(
        gate.json()["touched"],
        serde_json::json!(["x-dec"]),
        "{}",
        gate.stdout
    );
}
