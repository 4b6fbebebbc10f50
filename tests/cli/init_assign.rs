//! `sota init` assigns a kernel file by what its code computes before what
//! its name says (issue 30, item 2), and leaves a file whose evidence
//! contradicts itself for the team instead of guessing.

use crate::harness::Sota;

const TODAY: &str = "2026-12-02";

fn plan(p: &Sota) -> serde_json::Value {
    let run = p.run(&["init", "--dry-run", "--json", "--today", TODAY]);
    run.success();
    run.json()
}

fn kernel<'a>(plan: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    plan["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["path"] == path)
        .unwrap_or_else(|| panic!("{path} is not in the population: {plan}"))
}

fn op_of(plan: &serde_json::Value, path: &str) -> Option<String> {
    kernel(plan, path)["op"].as_str().map(str::to_owned)
}

/// Asserts that every one of `paths` is drafted into `op`.
fn assert_all_in(plan: &serde_json::Value, paths: &[&str], op: &str) {
    for path in paths {
        assert_eq!(op_of(plan, path).as_deref(), Some(op), "{path}: {plan}");
    }
}

const ATTENTION_LOOP: &str = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef _fwd(Q, K, V):\n    qk = tl.dot(q, k)\n    m_ij = tl.maximum(m_i, tl.max(qk, 1))\n    p = tl.exp2(qk - m_ij[:, None])\n    alpha = tl.exp2(m_i - m_ij)\n    l_i = l_i * alpha + tl.sum(p, 1)\n";

const RMS_NORM: &str = "__global__ void k(const float* x, float* y, const float* w, int n, float eps) {\n  float sum_sq = 0.f;\n  for (int i = 0; i < n; ++i) sum_sq += x[i] * x[i];\n  float inv = rsqrtf(sum_sq / n + eps);\n  for (int i = 0; i < n; ++i) y[i] = x[i] * inv * w[i];\n}\n";

#[test]
fn content_outranks_a_name_that_says_another_op_and_the_draft_says_why() {
    let p = Sota::new()
        .git_init()
        // Named like MoE gating, computes an attention inner loop.
        .file("kernels/gate.py", ATTENTION_LOOP)
        // Named like an element-wise GELU, normalises a row.
        .file("kernels/gelu_fused.cu", RMS_NORM)
        // Named like a radix-tree KV cache, is an FFT.
        .file(
            "kernels/radix_cache.cuh",
            "__global__ void r4(float2* x, const float2* twiddle) {\n  float2 w = twiddle[threadIdx.x];\n  // radix-4 butterfly\n}\n",
        )
        // A paged-attention kernel's online softmax stays decode attention.
        .file("kernels/paged_attention.py", ATTENTION_LOOP);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for (path, op) in [
        ("kernels/gate.py", "fused-attention"),
        ("kernels/gelu_fused.cu", "normalization"),
        ("kernels/radix_cache.cuh", "fft"),
        ("kernels/paged_attention.py", "decode-attention"),
    ] {
        assert_eq!(op_of(&plan, path).as_deref(), Some(op), "{path}");
    }
    let ev = kernel(&plan, "kernels/gelu_fused.cu")["evidence"].to_string();
    assert!(ev.contains("\"computes\""), "{ev}");
    assert!(ev.contains("rsqrt"), "{ev}");
    // The op's comment in the draft names the computation that placed it.
    let toml = plan["toml"].as_str().unwrap();
    assert!(
        toml.contains(
            "computes normalisation: rsqrt of a mean of squares or a variance, plus epsilon ×1"
        ),
        "{toml}"
    );
}

#[test]
fn weak_or_contradictory_evidence_is_said_and_left_for_the_team() {
    let p = Sota::new()
        .git_init()
        // A softmax and a norm, equally specific, and a name that says
        // nothing: left unclassified (not the Triton backend's default).
        .file(
            "ops/k1.py",
            "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k1(X):\n    m = tl.max(x, 0)\n    e = tl.exp(x - m)\n    d = tl.sum(e, 0)\n    inv = tl.rsqrt(var + eps)\n",
        )
        // Only a building block (a cumulative sum): placed, as weak
        // evidence the draft asks the team to check.
        .file(
            "ops/k2.py",
            "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k2(X):\n    c = tl.cumsum(x, 0)\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(op_of(&plan, "ops/k1.py"), None);
    assert!(
        plan["unclassified"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "ops/k1.py"),
        "{plan}"
    );
    assert_eq!(op_of(&plan, "ops/k2.py").as_deref(), Some("prefix-scan"));
    let scan = plan["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["slug"] == "prefix-scan")
        .unwrap();
    assert_eq!(scan["weak_files"], 1);
    let toml = plan["toml"].as_str().unwrap();
    assert!(toml.contains("left for the team"), "{toml}");
    assert!(toml.contains("(a building block only) ×1"), "{toml}");
    assert!(toml.contains("# weak evidence for 1 of them"), "{toml}");
}

#[test]
fn in_the_reference_repository_a_backends_files_are_its_op() {
    let neon = "#include <arm_neon.h>\nvoid nk_dot_neon(const float* a, const float* b, float* r) {\n  float32x4_t s = vdupq_n_f32(0);\n  s = vfmaq_f32(s, vld1q_f32(a), vld1q_f32(b));\n  *r = vaddvq_f32(s);\n}\n";
    let tree = || {
        Sota::new()
            .git_init()
            .file("include/nk/dot/neon.h", neon)
            .file("include/nk/mesh/neon.h", neon)
    };
    // Anywhere else, a NEON file nothing else places is the NEON backend's.
    let other = tree();
    other.git(&["add", "-A"]).success();
    let plan_other = plan(&other);
    assert_eq!(
        op_of(&plan_other, "include/nk/mesh/neon.h").as_deref(),
        Some("arm-neon-sve")
    );
    // In the repository that is the catalog's reference for vector
    // similarity, its NEON files are vector similarity written for NEON,
    // placed as weak evidence the draft asks the team to check.
    let own = tree();
    own.git(&["add", "-A"]).success();
    own.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/ashvardanian/SimSIMD.git",
    ])
    .success();
    let plan_own = plan(&own);
    for path in ["include/nk/dot/neon.h", "include/nk/mesh/neon.h"] {
        assert_eq!(
            op_of(&plan_own, path).as_deref(),
            Some("vector-similarity"),
            "{path}"
        );
    }
    let ev = kernel(&plan_own, "include/nk/mesh/neon.h")["evidence"].to_string();
    assert!(ev.contains("own-reference"), "{ev}");
}

#[test]
fn a_quantize_kernel_is_quantization_and_its_format_narrows_it() {
    let cast = |body: &str| {
        format!("__global__ void k(const float* x, {body}* y) {{\n  y[threadIdx.x] = ({body})x[threadIdx.x];\n}}\n")
    };
    let p = Sota::new()
        .git_init()
        // The name says quantize and no format: the family.
        .file("csrc/quantize.cu", &cast("int8_t"))
        // The format in the name, in either order, narrows it.
        .file("csrc/quantize_fp8.cuh", &cast("__nv_fp8_e4m3"))
        .file("csrc/dequantize_mxfp8.cuh", &cast("__nv_fp8_e4m3"))
        // No format in the name, an FP8 type in the code.
        .file("csrc/quant_kernels.cu", &cast("__nv_fp8_e4m3"))
        // A name that says another op first keeps it: the quantize is a
        // fused epilogue of a norm.
        .file("csrc/rmsnorm_quant.cu", &cast("__nv_fp8_e4m3"));
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for (path, op) in [
        ("csrc/quantize.cu", "int-quant"),
        ("csrc/quantize_fp8.cuh", "fp8-quant"),
        ("csrc/dequantize_mxfp8.cuh", "mx-quant"),
        ("csrc/quant_kernels.cu", "fp8-quant"),
        ("csrc/rmsnorm_quant.cu", "normalization"),
    ] {
        assert_eq!(op_of(&plan, path).as_deref(), Some(op), "{path}: {plan}");
    }
    // Before: a quantize kernel was left for the team, and an FP8 or MX one
    // went to the GEMM of its format.
    let ev = kernel(&plan, "csrc/quant_kernels.cu")["evidence"].to_string();
    assert!(ev.contains("int-quant"), "{ev}");
}

#[test]
fn a_file_named_normalize_is_normalization() {
    let p = Sota::new()
        .git_init()
        .file(
            "csrc/kernels/normalize_kernels.cu",
            "__global__ void ker_norm(const float* x, float* y) {\n  y[threadIdx.x] = x[threadIdx.x];\n}\n",
        )
        .file(
            "src/layer/vulkan/shader/normalize_coeffs.comp",
            "#version 450\nlayout (local_size_x = 64) in;\nvoid main() {}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_all_in(
        &plan,
        &[
            "csrc/kernels/normalize_kernels.cu",
            "src/layer/vulkan/shader/normalize_coeffs.comp",
        ],
        "normalization",
    );
}

#[test]
fn a_split_k_gemm_is_a_gemm_and_split_kv_is_decode_attention() {
    let p = Sota::new()
        .git_init()
        .file(
            "lib/triton_kernels/gemm_splitK_kernels.py",
            "import triton\nimport triton.language as tl\n\n@triton.jit\ndef gemm_splitK_kernel(a_ptr, b_ptr, c_ptr, K, SPLIT_K: tl.constexpr):\n    acc = tl.dot(tl.load(a_ptr), tl.load(b_ptr))\n    tl.atomic_add(c_ptr, acc)\n",
        )
        .file(
            "csrc/kernels/split_kv_merge.cu",
            "__global__ void split_kv_merge(const float* q, float* o) {\n  o[threadIdx.x] = q[threadIdx.x];\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        op_of(&plan, "lib/triton_kernels/gemm_splitK_kernels.py").as_deref(),
        Some("dense-gemm"),
        "{plan}"
    );
    assert_eq!(
        op_of(&plan, "csrc/kernels/split_kv_merge.cu").as_deref(),
        Some("decode-attention"),
        "{plan}"
    );
}

#[test]
fn a_flash_directory_is_attention_and_softcap_is_elementwise() {
    let p = Sota::new()
        .git_init()
        .file(
            "modules/flash/kernel/bwd_kernel_dq.py",
            "import triton\nimport triton.language as tl\n\n@triton.jit\ndef bwd_kernel_dq(Q, K, V, DO, DQ):\n    q = tl.load(Q)\n    tl.store(DQ, q)\n",
        )
        .file(
            "src/metal_kernels/softcap.metal",
            "#include <metal_stdlib>\nusing namespace metal;\nkernel void softcap(device float* x [[buffer(0)]], constant float& cap [[buffer(1)]], uint i [[thread_position_in_grid]]) {\n  x[i] = tanh(x[i] / cap) * cap;\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        op_of(&plan, "modules/flash/kernel/bwd_kernel_dq.py").as_deref(),
        Some("fused-attention"),
        "{plan}"
    );
    assert_eq!(
        op_of(&plan, "src/metal_kernels/softcap.metal").as_deref(),
        Some("elementwise"),
        "{plan}"
    );
}

#[test]
fn standard_layout_and_normalization_layer_names_name_their_ops() {
    let kernel = |name: &str| {
        format!("__kernel void {name}(__global float* x) {{\n  x[get_global_id(0)] = 0.f;\n}}\n")
    };
    let p = Sota::new()
        .git_init()
        .file("ops/cl/space_to_depth.cl", &kernel("space_to_depth"))
        .file("ops/cl/BatchToSpace.cl", &kernel("batch_to_space"))
        .file("ops/cl/channel_shuffle.cl", &kernel("channel_shuffle"))
        .file("ops/cl/lpnorm.cl", &kernel("lpnorm"))
        .file("ops/cl/mvnorm.cl", &kernel("mvnorm"))
        .file("ops/cl/addn.cl", &kernel("addn"));
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for (path, op) in [
        ("ops/cl/space_to_depth.cl", "copy-cast-layout"),
        ("ops/cl/BatchToSpace.cl", "copy-cast-layout"),
        ("ops/cl/channel_shuffle.cl", "copy-cast-layout"),
        ("ops/cl/lpnorm.cl", "normalization"),
        ("ops/cl/mvnorm.cl", "normalization"),
        ("ops/cl/addn.cl", "elementwise"),
    ] {
        assert_eq!(op_of(&plan, path).as_deref(), Some(op), "{path}: {plan}");
    }
}

#[test]
fn an_exllama_directory_is_gptq() {
    let p = Sota::new()
        .git_init()
        .file(
            "ext/exllama/cuda_func/column_remap.cu",
            "__global__ void column_remap_kernel(const half* x, half* y, const uint32_t* map) {\n  y[threadIdx.x] = x[map[threadIdx.x]];\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        op_of(&plan, "ext/exllama/cuda_func/column_remap.cu").as_deref(),
        Some("gptq-int4"),
        "{plan}"
    );
}

#[test]
fn a_fourier_transform_kernel_is_an_fft() {
    let p = Sota::new()
        .git_init()
        .file(
            "src/x86_64-fma/2d-fourier-8x8.c",
            "#include <immintrin.h>\nvoid fourier8x8(const float* x, float* y) {\n  _mm256_storeu_ps(y, _mm256_loadu_ps(x));\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        op_of(&plan, "src/x86_64-fma/2d-fourier-8x8.c").as_deref(),
        Some("fft"),
        "{plan}"
    );
}

#[test]
fn sparse_names_sparse_attention_only_beside_attention_code() {
    let p = Sota::new()
        .git_init()
        // A token-sparse attention kernel in a `sparse/` directory.
        .file(
            "csrc/prefill/sparse/phase1.cuh",
            "__global__ void sparse_attn_fwd(const int* topk_indices, float* out) {\n  out[threadIdx.x] = 0.f; // attention over the top-k tokens\n}\n",
        )
        // Sparse tiles of a rasterizer, sparse matrices: no attention.
        .file(
            "csrc/RasterizeToPixelsSparseFwd.cu",
            "__global__ void rasterize_sparse(const float* means, float* image) {\n  image[threadIdx.x] = means[threadIdx.x];\n}\n",
        )
        .file(
            "src/sparse/csr_scale.cu",
            "__global__ void csr_scale(const int* row_ptr, float* val) {\n  val[row_ptr[threadIdx.x]] *= 2.f;\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        op_of(&plan, "csrc/prefill/sparse/phase1.cuh").as_deref(),
        Some("sparse-attention"),
        "{plan}"
    );
    for path in [
        "csrc/RasterizeToPixelsSparseFwd.cu",
        "src/sparse/csr_scale.cu",
    ] {
        assert_ne!(
            op_of(&plan, path).as_deref(),
            Some("sparse-attention"),
            "{path}: {plan}"
        );
    }
}

#[test]
fn sample_names_token_sampling_only_beside_logits_and_probabilities() {
    let p = Sota::new()
        .git_init()
        .file(
            "csrc/sampling_kernels.cu",
            "__global__ void top_p_sampling(const float* probs, int* ids, float top_p) {\n  ids[0] = probs[0] > top_p;\n}\n",
        )
        // Point sampling and bilinear grid sampling: no tokens drawn.
        .file(
            "ops/cuda/furthest_point_sample_cuda_kernel.cuh",
            "__global__ void furthest_point_sampling(const float* xyz, int* idx) {\n  idx[threadIdx.x] = (int)xyz[threadIdx.x];\n}\n",
        )
        .file(
            "ops/cuda/grid_sample_kernel.cu",
            "__global__ void grid_sample_bilinear(const float* grid, float* out) {\n  out[threadIdx.x] = grid[threadIdx.x];\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        op_of(&plan, "csrc/sampling_kernels.cu").as_deref(),
        Some("topk-sampling"),
        "{plan}"
    );
    for path in [
        "ops/cuda/furthest_point_sample_cuda_kernel.cuh",
        "ops/cuda/grid_sample_kernel.cu",
    ] {
        assert_ne!(
            op_of(&plan, path).as_deref(),
            Some("topk-sampling"),
            "{path}: {plan}"
        );
    }
}

#[test]
fn a_bitmask_is_constrained_decoding_only_over_a_vocabulary() {
    let p = Sota::new()
        .git_init()
        .file(
            "kernels/bitmask.cu",
            "__global__ void apply_bitmask(float* logits, const int* mask, int vocab_size) {\n  if (!mask[threadIdx.x]) logits[threadIdx.x] = -1e30f;\n}\n",
        )
        // A rasterizer's coarse-bin occupancy bits.
        .file(
            "csrc/rasterize_coarse/bitmask.cuh",
            "class BitMask {\n public:\n  __device__ void set(int y, int x) { data[y] |= 1u << x; }\n  unsigned int* data;\n};\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_eq!(
        op_of(&plan, "kernels/bitmask.cu").as_deref(),
        Some("constrained-decoding"),
        "{plan}"
    );
    assert_ne!(
        op_of(&plan, "csrc/rasterize_coarse/bitmask.cuh").as_deref(),
        Some("constrained-decoding"),
        "{plan}"
    );
}

#[test]
fn image_processing_and_detection_kernels_get_their_own_ops() {
    let simd = "#include <immintrin.h>\nvoid run(const unsigned char* src, unsigned char* dst) {\n  _mm256_storeu_si256((__m256i*)dst, _mm256_loadu_si256((const __m256i*)src));\n}\n";
    let cuda =
        "__global__ void k(const float* x, float* y) {\n  y[threadIdx.x] = x[threadIdx.x];\n}\n";
    let p = Sota::new()
        .git_init()
        .file("src/layer/x86/interp_bicubic_pack8.h", simd)
        .file("src/Simd/SimdAvx2BgrToGray.cpp", simd)
        .file("src/Simd/SimdAvx2GaussianBlur.cpp", simd)
        .file("src/backend/cuda/kernel/medfilt.cuh", cuda)
        .file("ops/csrc/cuda/roi_align_rotated_cuda_kernel.cuh", cuda)
        .file("ops/csrc/cuda/nms_cuda.cu", cuda)
        // `bilinear` is also a tensor contraction, `remap` a column permutation.
        .file(
            "library/src/contraction/device_contraction_bilinear_f32_instance.cpp",
            simd,
        )
        .file("ext/exllama/cuda_func/column_remap.cu", cuda);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    for (path, op) in [
        ("src/layer/x86/interp_bicubic_pack8.h", "image-resample"),
        ("src/Simd/SimdAvx2BgrToGray.cpp", "color-convert"),
        ("src/Simd/SimdAvx2GaussianBlur.cpp", "image-filter"),
        ("src/backend/cuda/kernel/medfilt.cuh", "image-filter"),
        (
            "ops/csrc/cuda/roi_align_rotated_cuda_kernel.cuh",
            "detection-roi",
        ),
        ("ops/csrc/cuda/nms_cuda.cu", "detection-roi"),
    ] {
        assert_eq!(op_of(&plan, path).as_deref(), Some(op), "{path}: {plan}");
    }
    for path in [
        "library/src/contraction/device_contraction_bilinear_f32_instance.cpp",
        "ext/exllama/cuda_func/column_remap.cu",
    ] {
        assert_ne!(
            op_of(&plan, path).as_deref(),
            Some("image-resample"),
            "{path}: {plan}"
        );
    }
}

#[test]
fn an_mx_gemm_is_a_block_scaled_gemm_and_an_mx_quantizer_is_not() {
    let cuda =
        "__global__ void k(const float* x, float* y) {\n  y[threadIdx.x] = x[threadIdx.x];\n}\n";
    let p = Sota::new()
        .git_init()
        .file("csrc/include/gemm/kernel/default_mx_gemm.h", cuda)
        .file("csrc/include/gemm/warp/mma_mx_tensor_op.h", cuda)
        .file("csrc/fused_quantize_mx.cu", cuda);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_all_in(
        &plan,
        &[
            "csrc/include/gemm/kernel/default_mx_gemm.h",
            "csrc/include/gemm/warp/mma_mx_tensor_op.h",
        ],
        "fp4-gemm",
    );
    assert_eq!(
        op_of(&plan, "csrc/fused_quantize_mx.cu").as_deref(),
        Some("mx-quant"),
        "{plan}"
    );
}

#[test]
fn lapack_routines_are_dense_factorizations() {
    let hip = "template <typename T>\n__global__ void k(T* A, int lda) {\n  A[threadIdx.x * lda] = A[threadIdx.x];\n}\n";
    let p = Sota::new()
        .git_init()
        .file("library/src/lapack/roclapack_getrf.hpp", hip)
        .file("library/src/auxiliary/rocauxiliary_larfg.hpp", hip)
        .file("library/src/lapack/roclapack_syevd_heevd.hpp", hip)
        .file("library/src/blas3/rocblas_trsm_kernels.cpp", hip)
        .file("jaxlib/gpu/householder_kernels.cu", hip)
        // An incomplete factorization of a sparse matrix is no dense one.
        .file("common/cuda_hip/factorization/par_ilu_kernels.cu", hip);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_all_in(
        &plan,
        &[
            "library/src/lapack/roclapack_getrf.hpp",
            "library/src/auxiliary/rocauxiliary_larfg.hpp",
            "library/src/lapack/roclapack_syevd_heevd.hpp",
            "library/src/blas3/rocblas_trsm_kernels.cpp",
            "jaxlib/gpu/householder_kernels.cu",
        ],
        "dense-factorization",
    );
    assert_ne!(
        op_of(&plan, "common/cuda_hip/factorization/par_ilu_kernels.cu").as_deref(),
        Some("dense-factorization"),
        "{plan}"
    );
}

#[test]
fn point_cloud_kernels_are_point_ops_and_a_layout_suffix_is_not_knn() {
    let cuda = "__global__ void k(const float* xyz, float* dist2, int* idx) {\n  dist2[threadIdx.x] = xyz[threadIdx.x];\n}\n";
    let hip =
        "template <typename T>\n__global__ void k(T* a) {\n  a[threadIdx.x] = a[threadIdx.x];\n}\n";
    let p = Sota::new()
        .git_init()
        .file("ops/csrc/common/cuda/ball_query_cuda_kernel.cuh", cuda)
        .file("ops/csrc/common/cuda/three_nn_cuda_kernel.cuh", cuda)
        .file("ops/csrc/pytorch/cuda/furthest_point_sample_cuda.cu", cuda)
        .file("ops/csrc/pytorch/cuda/knn_cuda.cu", cuda)
        // Composable Kernel names a tensor layout `knn`: no neighbours here.
        .file(
            "library/src/contraction/device_contraction_scale_f32_knn_instance.cpp",
            hip,
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_all_in(
        &plan,
        &[
            "ops/csrc/common/cuda/ball_query_cuda_kernel.cuh",
            "ops/csrc/common/cuda/three_nn_cuda_kernel.cuh",
            "ops/csrc/pytorch/cuda/furthest_point_sample_cuda.cu",
            "ops/csrc/pytorch/cuda/knn_cuda.cu",
        ],
        "point-cloud-ops",
    );
    let layout = op_of(
        &plan,
        "library/src/contraction/device_contraction_scale_f32_knn_instance.cpp",
    );
    assert!(
        !matches!(
            layout.as_deref(),
            Some("point-cloud-ops" | "vector-similarity")
        ),
        "{layout:?}: {plan}"
    );
}

#[test]
fn hash_tables_primitives_conversions_and_rasterizers_get_their_own_ops() {
    let cuda = "__global__ void k(int* a) {\n  a[threadIdx.x] = a[threadIdx.x];\n}\n";
    let splats = "__global__ void k(const float3* conic, const float* opacities, const float2* means2d) {\n  float a = opacities[threadIdx.x];\n}\n";
    let p = Sota::new()
        .git_init()
        .file("include/cuco/detail/static_map/kernels.cuh", cuda)
        .file("include/cuco/detail/bloom_filter/kernels.cuh", cuda)
        .file("src/device/device_run_length_encode.cu", cuda)
        .file("src/device/device_histogram.cu", cuda)
        .file("src/block/block_load_func.hpp", cuda)
        .file("src/layer/arm/lstm_arm.cpp", cuda)
        .file("library/src/conversion/csr2coo_device.h", cuda)
        .file("csrc/rasterize_points/rasterize_points.cu", cuda)
        .file("csrc/SphericalHarmonicsCUDA.cu", splats)
        // Spherical harmonics that encode a network's inputs are no splats;
        // FAISS's BlockSelect is a k-selection, not stream compaction.
        .file("include/encodings/spherical_harmonics.cu", cuda)
        .file("gpu/utils/BlockSelectFloat.cu", cuda);
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_all_in(
        &plan,
        &[
            "include/cuco/detail/static_map/kernels.cuh",
            "include/cuco/detail/bloom_filter/kernels.cuh",
        ],
        "hash-table",
    );
    assert_all_in(
        &plan,
        &["src/device/device_run_length_encode.cu"],
        "stream-compaction",
    );
    assert_all_in(&plan, &["src/device/device_histogram.cu"], "histogram");
    assert_all_in(
        &plan,
        &["src/block/block_load_func.hpp"],
        "copy-cast-layout",
    );
    assert_all_in(
        &plan,
        &["library/src/conversion/csr2coo_device.h"],
        "sparse-format-conversion",
    );
    assert_all_in(
        &plan,
        &[
            "csrc/rasterize_points/rasterize_points.cu",
            "csrc/SphericalHarmonicsCUDA.cu",
        ],
        "differentiable-rasterization",
    );
    for path in [
        "include/encodings/spherical_harmonics.cu",
        "gpu/utils/BlockSelectFloat.cu",
    ] {
        let op = op_of(&plan, path);
        assert!(
            !matches!(
                op.as_deref(),
                Some("differentiable-rasterization" | "stream-compaction")
            ),
            "{path}: {op:?}"
        );
    }
}

#[test]
fn mri_gridding_kernels_are_a_non_uniform_fft() {
    // gpuNUFFT's shape: the spreading kernels say NUFFT in their names; a
    // gridding directory says it of the kernels in it (content alone
    // places nothing, as for every op).
    let p = Sota::new()
        .git_init()
        .file(
            "CUDA/src/gpu/atomic/atomic_gpuNUFFT_kernels.cu",
            "__global__ void convolutionKernel(float2* data, float* crds) {\n  atomicAdd(&gdata[ind].x, val * data[i].x);\n}\n",
        )
        .file(
            "CUDA/src/gridding/sector_kernels.cu",
            "namespace gpuNUFFT {\n__global__ void deapodizationKernel(float2* gdata, float beta) {\n  gdata[i].x /= kaiser_bessel_fourier(beta, x);\n}\n}\n",
        )
        .file(
            "CUDA/src/gpu/fft_shift.cu",
            "__global__ void fftShift(float2* data, int n) {\n  float2 twiddle = data[i];\n  data[i] = data[i + n / 2];\n}\n",
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_all_in(
        &plan,
        &[
            "CUDA/src/gpu/atomic/atomic_gpuNUFFT_kernels.cu",
            "CUDA/src/gridding/sector_kernels.cu",
        ],
        "nufft",
    );
    // A uniform FFT step beside them stays fft.
    assert_eq!(
        op_of(&plan, "CUDA/src/gpu/fft_shift.cu").as_deref(),
        Some("fft"),
        "{plan}"
    );
}

#[test]
fn lattice_and_indexer_name_quantization_and_sparse_attention_only_beside_their_code() {
    let kernel = "__global__ void k(float* x) { x[threadIdx.x] += 1.f; }\n";
    let p = Sota::new()
        .git_init()
        // A lattice QCD code's container and index map: not an E8 lattice
        // codebook, not DeepSeek's lightning indexer.
        .file("src/base/latticeContainer.cu", kernel)
        .file(
            "src/base/indexer/haloIndexer.cu",
            &format!("#include \"indexer/bulk.h\"\n{kernel}"),
        )
        // The same words beside the ops' own code.
        .file(
            "quant/e8_lattice.cu",
            &format!("// decode an E8P codebook entry\n{kernel}"),
        )
        .file(
            "dsa/lightning_topk_indexer.cu",
            &format!("// scores for the sparse attention topk selection\n{kernel}"),
        );
    p.git(&["add", "-A"]).success();
    let plan = plan(&p);
    assert_ne!(
        op_of(&plan, "src/base/latticeContainer.cu").as_deref(),
        Some("codebook-quant"),
        "{plan}"
    );
    assert_ne!(
        op_of(&plan, "src/base/indexer/haloIndexer.cu").as_deref(),
        Some("sparse-attention"),
        "{plan}"
    );
    assert_eq!(
        op_of(&plan, "quant/e8_lattice.cu").as_deref(),
        Some("codebook-quant"),
        "{plan}"
    );
    assert_eq!(
        op_of(&plan, "dsa/lightning_topk_indexer.cu").as_deref(),
        Some("sparse-attention"),
        "{plan}"
    );
}
