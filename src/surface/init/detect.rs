//! Which tracked files are kernels, and in what language: by extension where
//! the extension says so (`.cu`, `.metal`, `.comp`, …), by a bounded prefix
//! of the content where it does not (`.h`, `.cpp`, `.py`, `.rs`, `.go`, `.s`).
//! Also which paths are tests, benchmarks, examples or vendored code, which
//! a maintainer would not list as the project's kernels.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, Match};
use serde::Serialize;

/// How many bytes of a file are read to decide what it is (and to look for
/// op signals). Include lines, imports and decorators sit at the top; deep
/// intrinsics in a long file are usually announced by an include.
pub const PREFIX_BYTES: usize = 32 * 1024;

/// The language or programming model of a kernel file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Cuda,
    Cutlass,
    Hip,
    Metal,
    Opencl,
    Sycl,
    /// A performance-portability layer's or a directive's offloaded loop:
    /// `Kokkos::parallel_for` / `parallel_reduce` / `parallel_scan`, an
    /// OpenMP `target` / `teams` construct, an OpenACC compute construct.
    /// The loop body is the kernel, for whichever device the build picks.
    Offload,
    Vulkan,
    Wgsl,
    /// HLSL shaders (Direct3D compute, or SPIR-V through DXC for Vulkan).
    Hlsl,
    /// Ascend C: Huawei Ascend NPU kernels in C++ (`__aicore__`
    /// functions, the `AscendC::` API of `kernel_operator.h`).
    AscendC,
    /// WebGL GPGPU: GLSL ES fragment shaders held in TypeScript /
    /// JavaScript strings (TensorFlow.js's WebGL backend).
    Webgl,
    /// OpenGL ES GLSL shader files (`.fsh` fragment, `.vsh` vertex): iOS /
    /// Android GPU image processing (GPUImage's filters).
    Gles,
    Ptx,
    Triton,
    CuteDsl,
    /// cuTile Python (`import cuda.tile`, `@ct.kernel`).
    Cutile,
    GpuDsl,
    SimdX86,
    SimdArm,
    SimdOther,
    Asm,
    /// Assembly with no SIMD instruction the detector knows (OpenBLAS's
    /// POWER, MIPS, Alpha, SPARC and IA-64 floating-point kernels): still
    /// a kernel in a kernel repository, but no ISA backend's, and no vote
    /// for the scalar sources beside it.
    AsmScalar,
    /// Plain C / C++ in a scalar backend beside SIMD kernels (`scalar/`,
    /// `serial/`, `generic/`, `ref_kernels/`): the same kernels written
    /// without vectors, the fallback and often the readable reference.
    Scalar,
    /// Numba-compiled Python for the CPU (`@njit`, `@guvectorize`): the
    /// loops a Python numerical library writes instead of C. Numba's CUDA
    /// kernels (`@cuda.jit`) are [`Kind::GpuDsl`].
    Numba,
}

impl Kind {
    pub const ALL: [Kind; 25] = [
        Kind::Cuda,
        Kind::Cutlass,
        Kind::Hip,
        Kind::Metal,
        Kind::Opencl,
        Kind::Sycl,
        Kind::Offload,
        Kind::Vulkan,
        Kind::Wgsl,
        Kind::Hlsl,
        Kind::AscendC,
        Kind::Webgl,
        Kind::Gles,
        Kind::Ptx,
        Kind::Triton,
        Kind::CuteDsl,
        Kind::Cutile,
        Kind::GpuDsl,
        Kind::SimdX86,
        Kind::SimdArm,
        Kind::SimdOther,
        Kind::Asm,
        Kind::AsmScalar,
        Kind::Scalar,
        Kind::Numba,
    ];

    /// The name used in signals and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cuda => "cuda",
            Kind::Cutlass => "cutlass",
            Kind::Hip => "hip",
            Kind::Metal => "metal",
            Kind::Opencl => "opencl",
            Kind::Sycl => "sycl",
            Kind::Offload => "offload",
            Kind::Vulkan => "vulkan",
            Kind::Wgsl => "wgsl",
            Kind::Hlsl => "hlsl",
            Kind::AscendC => "ascend-c",
            Kind::Webgl => "webgl",
            Kind::Gles => "gles",
            Kind::Ptx => "ptx",
            Kind::Triton => "triton",
            Kind::CuteDsl => "cute-dsl",
            Kind::Cutile => "cutile",
            Kind::GpuDsl => "gpu-dsl",
            Kind::SimdX86 => "simd-x86",
            Kind::SimdArm => "simd-arm",
            Kind::SimdOther => "simd-other",
            Kind::Asm => "asm",
            Kind::AsmScalar => "asm-scalar",
            Kind::Scalar => "scalar",
            Kind::Numba => "numba",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// For people: what the files are.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Cuda => "CUDA",
            Kind::Cutlass => "CUTLASS/CuTe C++",
            Kind::Hip => "HIP",
            Kind::Metal => "Metal",
            Kind::Opencl => "OpenCL",
            Kind::Sycl => "SYCL",
            Kind::Offload => "offloaded loops (Kokkos, OpenMP target, OpenACC)",
            Kind::Vulkan => "Vulkan GLSL compute",
            Kind::Wgsl => "WebGPU WGSL",
            Kind::Hlsl => "HLSL shaders (Direct3D, or Vulkan through DXC)",
            Kind::AscendC => "Ascend C (Huawei NPU kernels)",
            Kind::Webgl => "WebGL GLSL ES shaders in script strings",
            Kind::Gles => "OpenGL ES GLSL shader files",
            Kind::Ptx => "PTX",
            Kind::Triton => "Triton Python",
            Kind::CuteDsl => "CuTe DSL Python",
            Kind::Cutile => "cuTile Python",
            Kind::GpuDsl => "embedded GPU DSL (TileLang, Pallas, Numba, CubeCL, …)",
            Kind::SimdX86 => "x86 SIMD (SSE/AVX/AVX-512/AMX)",
            Kind::SimdArm => "Arm SIMD (NEON/SVE/SME)",
            Kind::SimdOther => "other SIMD (RISC-V V, WASM, POWER, LoongArch, Hexagon, portable)",
            Kind::Asm => "SIMD assembly (incl. Go asm)",
            Kind::AsmScalar => "assembly without SIMD instructions",
            Kind::Scalar => "scalar C/C++ beside SIMD kernels (their fallback)",
            Kind::Numba => "Numba-compiled Python on the CPU (@njit, @guvectorize)",
        }
    }

    /// A C-family GPU model whose device code carries a marker
    /// (`__global__`, `__device__`, `__launch_bounds__`…): a header of that
    /// kind without one, which also declares only, is the host's interface
    /// to the kernel. A CPU kernel's scalar fallback has no marker to carry.
    pub fn marks_device_code(self) -> bool {
        matches!(self, Kind::Cuda | Kind::Cutlass | Kind::Hip | Kind::AscendC)
    }

    /// A shading language of its own, not C / C++ (GLSL for Vulkan and
    /// OpenGL ES, WGSL, WebGL's GLSL ES): it includes no C header.
    pub fn is_shader_language(self) -> bool {
        matches!(self, Kind::Vulkan | Kind::Wgsl | Kind::Gles | Kind::Webgl)
    }

    /// CPU SIMD code: intrinsics or assembly of an ISA (not the scalar
    /// fallback beside it).
    pub fn is_cpu_simd(self) -> bool {
        !self.is_gpu() && !matches!(self, Kind::Scalar | Kind::AsmScalar | Kind::Numba)
    }

    /// A GPU programming model (as opposed to CPU SIMD).
    pub fn is_gpu(self) -> bool {
        !matches!(
            self,
            Kind::SimdX86
                | Kind::SimdArm
                | Kind::SimdOther
                | Kind::Asm
                | Kind::AsmScalar
                | Kind::Scalar
                | Kind::Numba
        )
    }
}

/// Why a path is left out of the population although it may hold kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Test,
    Bench,
    Example,
    Vendored,
    Docs,
    /// Code kept for reference and no longer built: `old/`, `broken/`,
    /// `deprecated/`, `obsolete/`, `attic/`, `unused/`, `archive/`. An edit
    /// there changes no kernel the project ships.
    Retired,
    /// Device code that serves the kernels without computing an op:
    /// bindings, allocators, events, workers, caches, error checks,
    /// tuning tables, CPU-feature probes (see [`infrastructure`]).
    Infrastructure,
    /// A GPU source by extension with no device code of its own that
    /// includes no kernel file, or a GPU header that only declares
    /// functions: host code (see `host_units`).
    HostCode,
    /// A name holding a character the matrix refuses (a control, bidi or
    /// invisible character): no glob of the draft can name it.
    UnwritableName,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Test => "test",
            Role::Bench => "bench",
            Role::Example => "example",
            Role::Vendored => "vendored",
            Role::Docs => "docs",
            Role::Retired => "retired",
            Role::Infrastructure => "infrastructure",
            Role::HostCode => "host-code",
            Role::UnwritableName => "unwritable-name",
        }
    }
}

const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "unittest",
    "unittests",
    "test-data",
    "test_data",
    "testdata",
    // Evaluation harnesses and their fixtures (model evals, an agent
    // skill's eval cases): they run the kernels, they ship none.
    "eval",
    "evals",
];
const BENCH_DIRS: &[&str] = &[
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
    "microbenchmarks",
    "baselines",
    // Measurement and research around the kernels: performance studies,
    // profiling, timing harnesses, paper experiments.
    "analysis",
    "profiling",
    "profiler",
    "timing",
    "experiment",
    "experiments",
];
const EXAMPLE_DIRS: &[&str] = &[
    "example",
    "examples",
    "samples",
    // Not `sample/`: vLLM-style serving code keeps its token sampler
    // there (`v1/sample/`, vllm-ascend's `ops/triton/v2/sample/`).
    "demo",
    "demos",
    "tutorial",
    "tutorials",
    // Code that uses the kernels rather than ships them: notebooks,
    // playgrounds and sandboxes, training recipes.
    "notebooks",
    "playground",
    "sandbox",
    "training",
    "recipes",
    // Programs built on the library: qsim's `apps/`, CUDPP's `apps/`,
    // a Rust crate's `src/bin/`.
    "apps",
    "app",
    "bin",
];
const VENDOR_DIRS: &[&str] = &[
    "third_party",
    "third-party",
    "thirdparty",
    "3rdparty",
    "3rd_party",
    // The short spelling, beside a project's own `src/`.
    "3rd",
    "vendor",
    "vendored",
    "external",
    "extern",
    "deps",
    "_deps",
    // Linguist's `Dependencies/`, and `CppDependencies/` alike.
    "dependencies",
    "node_modules",
    "submodules",
    // Dependency managers' checkouts committed with an app: CocoaPods'
    // `Pods/`, Carthage's `Carthage/` (its `Checkouts/` and `Build/`).
    "pods",
    "carthage",
];
/// Libraries that ship no kernels of a project's own and are copied into
/// trees whole, wherever they land (`Fusion/libigl/`, `include/Eigen/`):
/// a directory of that name is a vendored copy. Not CUTLASS, CUB or
/// Thrust, whose names also head a project's own kernels (cccl's `cub/`,
/// a `cutlass/` directory of kernels written on it).
const VENDORED_LIBRARIES: &[&str] = &[
    "eigen",
    "eigen3",
    "libigl",
    "googletest",
    "pybind11",
    "nlohmann",
    "catch2",
    "flatbuffers",
];
/// Single-file libraries copied into trees whole (the file's stem), with
/// SIMD code that reads as a kernel: Sean Barrett's stb headers (a JPEG
/// IDCT in SSE2 / NEON), sse2neon, David Reid's dr_libs audio decoders,
/// miniz, LodePNG, TinyEXR.
const VENDORED_FILES: &[&str] = &[
    "stb_image",
    "stb_image_write",
    "stb_image_resize",
    "stb_image_resize2",
    "stb_truetype",
    "sse2neon",
    "dr_mp3",
    "dr_wav",
    "dr_flac",
    "miniz",
    "lodepng",
    "tinyexr",
];
const DOC_DIRS: &[&str] = &["doc", "docs", "documentation"];
/// Directories of code kept for reference, not built (see [`Role::Retired`]).
/// `legacy/` is not one: a legacy path is often still the one that ships.
const RETIRED_DIRS: &[&str] = &[
    "old",
    "broken",
    "deprecated",
    "obsolete",
    "attic",
    "unused",
    "archive",
    "archived",
    "backup",
    "backupcode",
];
/// Directories of glue around the kernels (see [`infrastructure`]).
const INFRA_DIRS: &[&str] = &[
    "pybind", "pybinds", "bindings", "binding", "pyutils", "probes", "tune", "tuning", "tuner",
    "boot", "startup",
];

/// File-name tokens of infrastructure: the file serves the kernels (a
/// binding, an allocator, an event or worker, a cache, an error check, a
/// tuning table) and computes no op. One token anywhere in the name.
const INFRA_TOKENS: &[(&str, &str)] = &[
    ("pybind", "Python binding"),
    ("bindings", "Python binding"),
    ("binding", "Python binding"),
    ("allocator", "memory allocator"),
    ("alloc", "memory allocator"),
    ("pool", "memory pool"),
    ("event", "event / stream helper"),
    ("events", "event / stream helper"),
    ("worker", "worker / thread helper"),
    ("workers", "worker / thread helper"),
    ("lru", "cache of compiled kernels or buffers"),
    ("check", "error checking"),
    ("checks", "error checking"),
    ("status", "error checking"),
    ("error", "error checking"),
    ("errors", "error checking"),
    ("logging", "logging"),
    ("logger", "logging"),
    ("profiler", "profiling"),
    ("timer", "profiling"),
    ("tuning", "configuration / tuning table"),
    ("configs", "configuration / tuning table"),
    ("registry", "registration"),
    ("registration", "registration"),
    ("tune", "tuner"),
    ("tuner", "tuner"),
    ("autotune", "tuner"),
    ("autotuner", "tuner"),
    ("autotuning", "tuner"),
    ("probe", "CPU / GPU feature probe"),
    ("cpuid", "CPU / GPU feature probe"),
    ("cpuid32", "CPU / GPU feature probe"),
    ("cpuid64", "CPU / GPU feature probe"),
    ("rdrand", "hardware entropy instruction wrapper"),
    ("rdseed", "hardware entropy instruction wrapper"),
    ("cpuinfo", "CPU / GPU feature probe"),
    ("cpufeatures", "CPU / GPU feature probe"),
    ("cpudetect", "CPU / GPU feature probe"),
    ("isadetection", "CPU / GPU feature probe"),
    ("startup", "start-up code"),
    ("boot", "start-up code"),
    ("crt0", "start-up code"),
    ("compat", "portability shim"),
    ("compatibility", "portability shim"),
    ("dummy", "placeholder / stub"),
    ("stub", "placeholder / stub"),
    ("stubs", "placeholder / stub"),
    ("compile", "build / compile tooling"),
    ("reference", "reference implementation (a test oracle)"),
    ("exception", "error checking"),
    ("exceptions", "error checking"),
    ("print", "printing / debug output"),
    ("printf", "printing / debug output"),
    ("defines", "macro definitions"),
    ("platform", "platform / portability layer"),
    ("pointer", "pointer wrapper"),
    ("runtime", "runtime / driver glue"),
    ("launcher", "kernel launcher"),
    ("handle", "library handle"),
    ("env", "environment settings"),
    ("debug", "debug helper"),
];

/// A name token that makes a feature probe after one of
/// [`FEATURE_PROBE_HEADS`] (`cpu_features`, `isa_detection`, `cpu_info`),
/// and alone says nothing (`features.cu` extracts image features).
const FEATURE_PROBE_TAILS: &[&str] = &[
    "features",
    "feature",
    "detect",
    "detection",
    "info",
    "config",
];
const FEATURE_PROBE_HEADS: &[&str] = &["cpu", "isa", "simd", "hardware"];

/// A directory named for the kernels it holds: `kernels/`, `kernel/`,
/// `cutlass_kernels/`.
pub fn kernel_dir_name(dir: &str) -> bool {
    let d = dir.as_bytes();
    ["kernels", "kernel"].iter().any(|k| {
        d.len() >= k.len() && {
            let (head, tail) = d.split_at(d.len() - k.len());
            tail.eq_ignore_ascii_case(k.as_bytes())
                && matches!(head.last(), None | Some(b'_' | b'-'))
        }
    })
}

/// Why a path is infrastructure rather than a kernel (its directory or a
/// token of its name, see [`INFRA_DIRS`] and [`INFRA_TOKENS`]), if it is.
/// `memory_pool.cuh`, `lru_cache.h`, `bindings.cpp`, `moe_configs.cuh`,
/// `hip_compat.cuh`, `pyutils/torchutils.cuh`; never `kv_cache.cu` or `pool2d.cu` (only a
/// whole token counts, and `pool` only after `buffer`/`memory`/`mem`).
/// A glue directory that keeps a kernels directory below it is a package,
/// not glue: `models_py/bindings/cuda/kernels/topk.cu` is a kernel.
pub fn infrastructure(path: &str) -> Option<&'static str> {
    let dirs = path.rfind('/').map_or("", |i| &path[..i]);
    let mut end = 0;
    for dir in dirs.split('/') {
        end += dir.len() + 1;
        let d = dir.to_ascii_lowercase();
        let below = dirs.get(end..).unwrap_or("");
        if INFRA_DIRS.contains(&d.as_str()) && !below.split('/').any(kernel_dir_name) {
            return Some(match d.as_str() {
                "probes" => "CPU / GPU feature probe",
                "boot" | "startup" => "start-up code",
                "tune" | "tuning" | "tuner" => "tuner",
                "pyutils" => "Python binding",
                _ => "Python binding",
            });
        }
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    let tokens = tokens(stem);
    for (i, t) in tokens.iter().enumerate() {
        // `cpu_features.c`, `isa_detection.h`: never `features.cu`.
        let after_head = i
            .checked_sub(1)
            .is_some_and(|j| FEATURE_PROBE_HEADS.contains(&tokens[j].as_str()));
        if after_head && FEATURE_PROBE_TAILS.contains(&t.as_str()) {
            return Some("CPU / GPU feature probe");
        }
        let Some((_, why)) = INFRA_TOKENS.iter().find(|(k, _)| k == t) else {
            continue;
        };
        if t == "pool" {
            let before = i.checked_sub(1).map(|j| tokens[j].as_str());
            match before {
                Some("buffer" | "memory" | "mem") => {}
                Some("thread" | "threads") => return Some("worker / thread helper"),
                _ => continue,
            }
        }
        return Some(why);
    }
    None
}

/// The directory segments that mark a role, for `[kernels] exclude`.
pub fn role_dirs(role: Role) -> &'static [&'static str] {
    match role {
        Role::Test => TEST_DIRS,
        Role::Bench => BENCH_DIRS,
        Role::Example => EXAMPLE_DIRS,
        Role::Vendored => VENDOR_DIRS,
        Role::Docs => DOC_DIRS,
        Role::Retired => RETIRED_DIRS,
        Role::Infrastructure => INFRA_DIRS,
        Role::HostCode | Role::UnwritableName => &[],
    }
}

/// Example words that name one of the library's own subsystems when the
/// directory sits in its source root: RAJAPerf's `src/apps/` suite of
/// application kernels beside `src/basic/` and `src/stream/`, where
/// qsim's and CUDPP's top-level `apps/` are programs built on the library.
const SUBSYSTEM_WORDS: &[&str] = &["apps", "app"];

/// Whether a directory name is a source root (`src/`, `source/`, `lib/`).
fn source_root(dir: &str) -> bool {
    ["src", "source", "lib"]
        .iter()
        .any(|root| dir.eq_ignore_ascii_case(root))
}

/// Whether a (lower-case) directory name is how an unpacked release or
/// branch archive is named: `isa-l-master` (GitHub's archive of a
/// branch), `gtest-1.6.0`, `healpix_2.15a`, `zlib-v1.3.1` (a tarball's
/// `name-version`). A project's own directories carry no version; another
/// project's download, unpacked into the tree, does.
fn unpacked_archive(dir: &str) -> bool {
    let named = |head: &str| head.starts_with(|c: char| c.is_ascii_alphabetic());
    if let Some(head) = ["-master", "-main"]
        .iter()
        .find_map(|b| dir.strip_suffix(b))
    {
        return named(head);
    }
    let Some(cut) = dir.rfind(['-', '_']) else {
        return false;
    };
    let (head, version) = (&dir[..cut], &dir[cut + 1..]);
    let version = version.strip_prefix('v').unwrap_or(version);
    let numbers = version.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let mut parts = numbers.split('.');
    named(head)
        && numbers.contains('.')
        && parts.all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Role words that also end the name of a kernel directory: `training/`
/// holds training recipes, `fp8_training/` FP8 training kernels (torchao);
const WHOLE_DIR_ONLY: &[&str] = &["training"];

/// The role a path plays when it is not product code (tests, benchmarks,
/// examples, vendored or documentation trees), judged from its directories
/// and its file name.
pub fn role(path: &str) -> Option<Role> {
    let mut segments = path.split('/');
    let name = segments.next_back().unwrap_or(path);
    let mut parent = "";
    for dir in path.split('/').take(path.matches('/').count()) {
        let under_sources = std::mem::replace(&mut parent, dir);
        // A hidden directory holds the tools' configuration, not the
        // product: CI (`.github/`), editors, and coding agents' skills
        // with their example kernels (`.claude/skills/…/csrc/`).
        if dir.len() > 1 && dir.starts_with('.') && dir != ".." {
            return Some(Role::Docs);
        }
        let d = dir.to_ascii_lowercase();
        for role in [
            Role::Vendored,
            Role::Test,
            Role::Bench,
            Role::Example,
            Role::Docs,
            Role::Retired,
        ] {
            // `tests`, and `candle-examples` / `wasm_tests` /
            // `CppDependencies` alike; a word that also ends an op's name
            // counts only alone.
            let hit = role_dirs(role).iter().any(|r| {
                let named = d == *r
                    || !WHOLE_DIR_ONLY.contains(r)
                        && d.strip_suffix(r).is_some_and(|head| {
                            head.ends_with('-')
                                || head.ends_with('_')
                                || camel_word(dir, head.len())
                        });
                named
                    && !(role == Role::Example
                        && SUBSYSTEM_WORDS.contains(r)
                        && source_root(under_sources))
            });
            if hit {
                return Some(role);
            }
        }
        if VENDORED_LIBRARIES.contains(&d.as_str()) || unpacked_archive(&d) {
            return Some(Role::Vendored);
        }
    }
    role_by_name(name)
}

/// The role a file's own name says: a single-file library copied in, a
/// test, a benchmark, an example.
fn role_by_name(name: &str) -> Option<Role> {
    let stem = name.split('.').next().unwrap_or(name).to_ascii_lowercase();
    if VENDORED_FILES.contains(&stem.as_str()) {
        return Some(Role::Vendored);
    }
    // `BatchPrefixSumTest.cu`, `p2pBandwidthLatencyTest.cu`: a camel-case
    // `Test` word ends the name as `_test` does.
    let camel_test = (stem.ends_with("test") || stem.ends_with("tests")) && {
        let cased = &name[..stem.len()];
        ["Test", "Tests"].iter().any(|t| {
            cased
                .strip_suffix(t)
                .is_some_and(|head| camel_word(cased, head.len()))
        })
    };
    // `test.h`, `TestCG.cpp`, `testUtils.h`, `pallas_test_util.py`,
    // `math_test-inl.h`: a `Test` word that starts the name or stands
    // between two others.
    let leading_test = name.len() > 4 && stem.starts_with("test") && camel_word(name, 4);
    let inner_test = ["_test_", "_test-", "-test-", "-test_"]
        .iter()
        .any(|w| stem.contains(w));
    if camel_test
        || leading_test
        || inner_test
        || matches!(&name[..stem.len()], "test" | "tests" | "Test" | "Tests")
        || stem.starts_with("test_")
        || stem == "harness"
        || stem.ends_with("_harness")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.starts_with("test-")
        || name.contains(".test.")
    {
        return Some(Role::Test);
    }
    if stem.starts_with("bench_")
        || stem.ends_with("_bench")
        || stem.ends_with("_benchmark")
        || stem.starts_with("benchmark_")
        || stem.ends_with("_perf")
        || stem.starts_with("perf_")
        || stem.starts_with("performance_")
    {
        return Some(Role::Bench);
    }
    // `example.cpp` at a library's root, `example_tbb.c`, `amx-example.cpp`.
    let example = stem == "example"
        || ["example_", "example-"].iter().any(|p| stem.starts_with(p))
        || ["_example", "-example"].iter().any(|s| stem.ends_with(s));
    if example || stem.ends_with("_demo") {
        return Some(Role::Example);
    }
    None
}

/// Whether a capitalised word starts at byte `at` of `name`, after a
/// lower-case letter or digit: `Deps` in `CppDeps`, not `old` in `Threshold`.
fn camel_word(name: &str, at: usize) -> bool {
    let b = name.as_bytes();
    at > 0
        && b.get(at).is_some_and(u8::is_ascii_uppercase)
        && (b[at - 1].is_ascii_lowercase() || b[at - 1].is_ascii_digit())
}

/// Whether a GLSL file is a drawing stage of the graphics pipeline: a
/// vertex, tessellation, geometry or fragment built-in (`gl_Position`,
/// `gl_TessLevelOuter`, `EmitVertex`, `gl_FragColor`), or a name that says
/// so (`points.f.glsl`, `mesh_vert.glsl`) over a stage input or output
/// declared at file scope (`in vec4 v_color;`, `layout(location = 0) out
/// vec4 f;`, GLSL 1.x's `varying`), which a compute shader cannot have (a
/// vertex stage named as a kernel computes by transform feedback:
/// OpenSubdiv's `glslXFBKernel.glsl`) — and no compute-stage built-in (`local_size_x`,
/// `gl_GlobalInvocationID`). It draws; only a compute shader is a kernel
/// (OpenSubdiv's patch-drawing shaders beside its evaluators, a viewer's
/// `points.f.glsl`). Searched in GLSL files only, outside the marker
/// automaton, which every file pays for.
fn glsl_draws(path: &str, prefix: &[u8]) -> bool {
    if by_extension(path) != ByExtension::Kernel(Kind::Vulkan) {
        return false;
    }
    let has = |needles: &[&str]| {
        needles
            .iter()
            .any(|n| memchr::memmem::find(prefix, n.as_bytes()).is_some())
    };
    (has(&[
        "gl_Position",
        "gl_TessLevelOuter",
        "gl_TessLevelInner",
        "gl_TessCoord",
        "EmitVertex",
        "gl_FragColor",
        "gl_FragData",
        "gl_FragCoord",
        "gl_FragDepth",
        "gl_PointSize",
    ]) || (names_drawing_stage(path) && prefix.split(|&b| b == b'\n').any(declares_stage_io)))
        && !has(&[
            "local_size_x",
            "gl_GlobalInvocationID",
            "gl_LocalInvocationID",
            "gl_WorkGroupID",
        ])
}

/// Whether a shader's file name says it is a drawing stage: a dotted part
/// `v` / `f` / `g` (`lines.f.glsl`) or a word `vert`, `frag`, `vs`, `fs`, …
/// (`mesh.frag.glsl`, `blur_fs.glsl`).
fn names_drawing_stage(path: &str) -> bool {
    const WORDS: &[&str] = &[
        "vert", "vertex", "frag", "fragment", "geom", "geometry", "tesc", "tese", "vs", "fs", "gs",
        "ps", "pixel",
    ];
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let mut parts: Vec<&str> = name.split('.').collect();
    parts.pop();
    parts.iter().skip(1).any(|p| matches!(*p, "v" | "f" | "g"))
        || parts
            .iter()
            .flat_map(|p| p.split(['_', '-']))
            .any(|w| WORDS.contains(&w))
}

/// Whether a GLSL line declares a stage input or output at file scope:
/// optional `layout(…)` and interpolation qualifiers, then `in` / `out` /
/// `varying` / `attribute`, a type, a name (maybe an array) and `;`. A
/// function's `in` parameter ends in `,` or `)`, never in `;`.
fn declares_stage_io(line: &[u8]) -> bool {
    const QUALIFIERS: &[&[u8]] = &[
        b"flat",
        b"smooth",
        b"noperspective",
        b"centroid",
        b"sample",
        b"patch",
        b"invariant",
        b"highp",
        b"mediump",
        b"lowp",
    ];
    const STORAGE: &[&[u8]] = &[b"in", b"out", b"varying", b"attribute"];
    let mut rest = line.trim_ascii();
    if let Some(after) = rest.strip_prefix(b"layout") {
        let after = after.trim_ascii_start();
        let Some(close) = after.iter().position(|&b| b == b')') else {
            return false;
        };
        if after.first() != Some(&b'(') {
            return false;
        }
        rest = after[close + 1..].trim_ascii_start();
    }
    let Some(body) = rest.strip_suffix(b";") else {
        return false;
    };
    let words: Vec<&[u8]> = body
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let first = words
        .iter()
        .position(|w| !QUALIFIERS.contains(w))
        .unwrap_or(words.len());
    let word = |w: &[u8]| {
        w.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'[' || b == b']')
    };
    words.len() == first + 3
        && STORAGE.contains(&words[first])
        && words[first + 1..].iter().all(|w| word(w))
}

/// What the extension alone says about a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByExtension {
    /// A kernel language on its own (`.cu`, `.metal`, …); content may refine it.
    Kernel(Kind),
    /// Could hold kernels; the content decides.
    Ambiguous(Family),
    /// Never a kernel file.
    No,
}

/// The source family of an ambiguous extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    C,
    Python,
    Rust,
    Go,
    Asm,
    OpenclMaybe,
    /// Swift / Objective-C: Metal source in string literals.
    HostMetal,
    /// A template with no language of its own (PyFR's `axnpby.mako`,
    /// tract's `fma_mmm_load_tile.j2`): C-family kernel markers decide
    /// (CUDA, Metal, OpenCL, SIMD in inline assembly); a generator's
    /// partials and backend-neutral kernels join in `templates.rs`.
    Template,
    /// TypeScript / JavaScript: WGSL or GLSL ES shaders in string literals
    /// (a browser backend's kernels).
    Script,
}

/// The extension of a file name (after the last `.`), if any.
pub fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dot = name.rfind('.')?;
    (dot > 0).then(|| &name[dot + 1..])
}

/// Template suffixes: the file is in the language of the extension before
/// (see [`by_template`]).
const TEMPLATE_EXTS: &[&str] = &["j2", "jinja", "jinja2", "tmpl", "tpl", "mako", "in"];

/// The extension that names a file's language: a template's is the one
/// before its own (`gemm.cu.j2` and `kernel.cu.in` are CUDA; a template
/// with none, a partial, has none).
pub fn source_extension(path: &str) -> Option<&str> {
    match extension(path) {
        Some(t) if TEMPLATE_EXTS.contains(&t) => {
            let name = path.rsplit('/').next().unwrap_or(path);
            extension(name.rsplit_once('.').map_or(name, |(stem, _)| stem))
        }
        other => other,
    }
}

/// Whether [`Detector::scan`] reads `path`'s content at all: its
/// extension may name kernel code.
pub fn scans(path: &str) -> bool {
    !matches!(by_extension(path), ByExtension::No)
}

pub fn by_extension(path: &str) -> ByExtension {
    // A minified bundle is build output (often a dependency's): its
    // shader strings are the bundled library's, not the repository's.
    if path.ends_with(".min.js") || path.ends_with(".min.mjs") {
        return ByExtension::No;
    }
    match extension(path) {
        Some(t) if TEMPLATE_EXTS.contains(&t) => by_template(path),
        Some(ext) => by_ext(ext),
        None => ByExtension::No,
    }
}

/// A template (`kernel.cu.j2`, tract's `fma_mmm_f32_16x6.S.j2`, XNNPACK's
/// `neon.c.in` micro-kernel templates, a JIT kernel's `*_kernel.cu.in`) is in the
/// language of the extension before the template's. One without (tract's
/// `fma_mmm_load_tile.j2`, PyFR's `axnpby.mako`) is read by its content:
/// a kernel template, a partial the kernels include, or text that is no
/// code (a chat template). A bare `.in` is a build input (`Doxyfile.in`,
/// `MANIFEST.in`): not a candidate.
fn by_template(path: &str) -> ByExtension {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    match extension(stem) {
        Some(ext) => by_ext(ext),
        None if extension(name) == Some("in") => ByExtension::No,
        None => ByExtension::Ambiguous(Family::Template),
    }
}

/// Whether a path is a template with no language of its own (see
/// [`by_template`]).
pub fn is_bare_template(path: &str) -> bool {
    by_extension(path) == ByExtension::Ambiguous(Family::Template)
}

/// Whether a path is a template, with a language of its own or not.
pub fn is_template(path: &str) -> bool {
    extension(path).is_some_and(|t| TEMPLATE_EXTS.contains(&t))
}

/// The extensions of CUDA-dialect sources and headers. MUSA (Moore
/// Threads) is one: `__global__`, `<<<...>>>`, the same kernels ported
/// file for file (mmcv).
const CUDA_DIALECT: &[&str] = &["cu", "cuh", "mu", "muh"];

/// Whether a path is CUDA-dialect source or header (`.cu`, `.cuh`, MUSA's
/// `.mu`, `.muh`).
pub fn is_cuda_dialect(path: &str) -> bool {
    source_extension(path).is_some_and(|e| CUDA_DIALECT.contains(&e))
}

/// An assembly file with no SIMD instruction is a kernel all the same
/// when it holds code: a line that is no directive, label, comment or
/// preprocessor line (an instruction, or a macro that expands to some:
/// isa-l's `crc_refl_func crc32_gzip_refl_pmull` over its included
/// body). A table of `.byte` / `.incbin` data or an empty file is not.
/// Probes and start-up code are left out by name (see [`infrastructure`]).
fn scalar_assembly(path: &str, prefix: &[u8]) -> Option<Kind> {
    if !is_asm_source(path) {
        return None;
    }
    prefix
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .any(|l| {
            !l.is_empty()
                && !matches!(l[0], b'.' | b'#' | b';' | b'/' | b'*' | b'@' | b'%')
                && !l.ends_with(b":")
                || includes_assembly(l)
        })
        .then_some(Kind::AsmScalar)
}

/// Whether a line includes another assembly file (`%include "by8.asm"`,
/// `.include "common.s"`, `#include "body.S"`): a wrapper that instantiates
/// a kernel body with its own constants (isa-l's CRC variants).
fn includes_assembly(line: &[u8]) -> bool {
    let directive = [&b"%include"[..], b".include", b"#include"]
        .iter()
        .any(|d| line.starts_with(d));
    directive
        && [&b".asm\""[..], b".s\"", b".S\"", b".inc\""]
            .iter()
            .any(|ext| memchr::memmem::find(line, ext).is_some())
}

/// What an extension (without its dot) says, as [`by_extension`].
fn by_ext(ext: &str) -> ByExtension {
    match ext {
        e if CUDA_DIALECT.contains(&e) => ByExtension::Kernel(Kind::Cuda),
        "hip" => ByExtension::Kernel(Kind::Hip),
        "metal" => ByExtension::Kernel(Kind::Metal),
        // GLSL compute shaders and their headers (ExecuTorch's `.glslh`).
        "comp" | "glsl" | "glslh" => ByExtension::Kernel(Kind::Vulkan),
        // WGSL, and WESL (WGSL with imports and conditions: vello).
        "wgsl" | "wesl" => ByExtension::Kernel(Kind::Wgsl),
        // Intel ISPC: SPMD programs compiled to SSE / AVX / NEON lanes.
        "ispc" | "isph" => ByExtension::Kernel(Kind::SimdOther),
        "hlsl" | "hlsli" => ByExtension::Kernel(Kind::Hlsl),
        // OpenGL ES shader files by Apple's naming (GPUImage's filters).
        "fsh" | "vsh" => ByExtension::Kernel(Kind::Gles),
        // ORC (the Oil Runtime Compiler): SIMD programs compiled to SSE /
        // NEON / AltiVec at build or run time (VOLK, GStreamer).
        "orc" => ByExtension::Kernel(Kind::SimdOther),
        "ptx" => ByExtension::Kernel(Kind::Ptx),
        // `.opencl`: OpenCL C kept in a raw string a host source includes
        // (CLBlast's `xgemm.opencl`).
        "cl" | "opencl" => ByExtension::Ambiguous(Family::OpenclMaybe),
        "c" | "cc" | "cpp" | "cxx" | "h" | "hh" | "hpp" | "hxx" | "inl" | "inc" | "ipp" | "tcc"
        | "impl" => ByExtension::Ambiguous(Family::C),
        // Cython sources hold kernels as Python files do (CuPy's
        // `_routines_math.pyx`).
        "py" | "pyx" | "pxd" | "pxi" => ByExtension::Ambiguous(Family::Python),
        "rs" => ByExtension::Ambiguous(Family::Rust),
        "go" => ByExtension::Ambiguous(Family::Go),
        "s" | "S" | "asm" => ByExtension::Ambiguous(Family::Asm),
        "swift" | "m" | "mm" => ByExtension::Ambiguous(Family::HostMetal),
        "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" => ByExtension::Ambiguous(Family::Script),
        _ => ByExtension::No,
    }
}

/// The files of its own directory that a C-family or CUDA source includes
/// by a bare quoted name (`#include "kernel.h"`, `#include "./macros.h"`, written so,
/// the `_real.c` body a BLIS `_intr.c` expands): the parts of one kernel
/// split over several files. Includes by a path into another directory,
/// and system includes (`<...>`), are other code's.
/// `starts`: where each `#include "` ends in the prefix (the detector's
/// one pass finds them).
fn includes_at(path: &str, prefix: &[u8], starts: &[usize]) -> Vec<String> {
    if let Some(base) = extended_type(path) {
        return vec![base];
    }
    if !matches!(
        by_extension(path),
        ByExtension::Ambiguous(Family::C | Family::HostMetal) | ByExtension::Kernel(Kind::Cuda)
    ) {
        return Vec::new();
    }
    let dir = path.rfind('/').map_or("", |i| &path[..=i]);
    let mut out = Vec::new();
    for &start in starts {
        let rest = &prefix[start..];
        let Some(end) = rest.iter().take(256).position(|&b| b == b'"' || b == b'\n') else {
            continue;
        };
        if rest[end] != b'"' {
            continue;
        }
        let Ok(name) = std::str::from_utf8(&rest[..end]) else {
            continue;
        };
        let name = name.strip_prefix("./").unwrap_or(name);
        if name.is_empty() || name.contains('/') || name.contains('\\') {
            continue;
        }
        out.push(format!("{dir}{name}"));
    }
    out
}

/// A Swift / Objective-C category or extension file (`GEMMKernel+Source.swift`)
/// extends the type its base file declares (`GEMMKernel.swift`, same
/// directory): one kernel split over files, as a C source and the headers
/// it includes are.
pub fn extended_type(path: &str) -> Option<String> {
    if !matches!(
        by_extension(path),
        ByExtension::Ambiguous(Family::HostMetal)
    ) {
        return None;
    }
    let (dir, name) = path.rsplit_once('/').map_or(("", path), |(d, n)| (d, n));
    let (stem, ext) = name.rsplit_once('.')?;
    let (base, _) = stem.split_once('+')?;
    if base.is_empty() {
        return None;
    }
    let sep = if dir.is_empty() { "" } else { "/" };
    Some(format!("{dir}{sep}{base}.{ext}"))
}

/// A translation unit compiled for the host when it is no kernel: a C,
/// C++ or Objective-C source (not a header).
pub fn is_host_source(path: &str) -> bool {
    is_c_source(path) || matches!(source_extension(path), Some("m" | "mm"))
}

/// `Some(Hip)` when a C-family prefix includes the HIP runtime: device
/// code written behind a library's own macros is HIP, whatever the
/// repository's other kernels are.
pub fn hip_source(prefix: &[u8]) -> Option<Kind> {
    memchr::memmem::find(prefix, b"hip_runtime.h").map(|_| Kind::Hip)
}

/// A C or C++ source (not a header, not Objective-C).
pub fn is_c_source(path: &str) -> bool {
    matches!(source_extension(path), Some("c" | "cc" | "cpp" | "cxx"))
}

/// An assembly source (`.s`, `.S`, `.asm`).
pub fn is_asm_source(path: &str) -> bool {
    matches!(source_extension(path), Some("s" | "S" | "asm"))
}

/// Directory names of a scalar backend: the kernels of the SIMD
/// directories beside it, written without vectors. A bare `ref/` or
/// `reference/` is not one: it usually holds the tests' oracles.
pub(super) const SCALAR_DIRS: &[&str] = &[
    "scalar",
    "serial",
    "generic",
    "portable",
    "fallback",
    "ref_kernels",
    "reference_kernels",
    "scalar_kernels",
    "generic_kernels",
];

/// The scalar backend directory a C-family file sits in (the path up to
/// and with that directory's `/`), if it sits in one.
pub fn scalar_backend_dir(path: &str) -> Option<&str> {
    if !matches!(by_extension(path), ByExtension::Ambiguous(Family::C)) {
        return None;
    }
    let mut end = 0;
    for segment in path.split('/').take(path.matches('/').count()) {
        end += segment.len() + 1;
        if SCALAR_DIRS.contains(&segment.to_ascii_lowercase().as_str()) {
            return Some(&path[..end]);
        }
    }
    None
}

/// A GPU kernel source or header by extension (`.cu`, `.cuh`, MUSA's
/// `.mu` / `.muh`, `.hip`).
pub fn is_gpu_source(path: &str) -> bool {
    is_cuda_dialect(path) || source_extension(path) == Some("hip")
}

/// Whether a path is a CUDA-dialect header (`.cuh`, MUSA's `.muh`).
pub fn is_gpu_header(path: &str) -> bool {
    matches!(source_extension(path), Some("cuh" | "muh"))
}

/// A C-family header (`.h`, `.hh`, `.hpp`, `.hxx`, `.inl`, `.cuh`).
pub fn is_header(path: &str) -> bool {
    matches!(
        source_extension(path),
        Some("h" | "hh" | "hpp" | "hxx" | "inl" | "ipp" | "tcc" | "impl")
    )
}

/// Whether an extension is source code of any language sota knows (kernel or
/// not): op globs must not swallow such files that are not the op's.
/// `ext`: the extension without its dot.
pub fn is_code_ext(ext: &str) -> bool {
    match by_ext(ext) {
        ByExtension::No => matches!(
            ext,
            "java" | "kt" | "js" | "ts" | "zig" | "jl" | "mojo" | "cmake" | "sh"
        ),
        _ => true,
    }
}

/// The content markers, one automaton for all of them, built when first
/// searched (`init` searches with [`super::one_pass`]'s instead).
pub struct Detector {
    ac: OnceLock<AhoCorasick>,
    markers: Vec<(Marker, &'static str)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    /// `threadIdx`, `__syncthreads`: device code in a C-family file.
    CudaDevice,
    /// A device builtin or instruction of [`Marker::CudaDevice`]'s own
    /// (not a folded `__global__`): a kernel body, found by the scan, not
    /// a pattern of its own.
    CudaBuiltin,
    /// `__global__`: device code with a kernel entry (see
    /// [`Scanned::entry`]); otherwise as [`Marker::CudaDevice`].
    CudaEntry,
    /// An include of Composable Kernel's GPU operations: the unit
    /// instantiates CK's kernels (an entry); otherwise as
    /// [`Marker::AmdDevice`].
    CkOps,
    /// `__device__`: device code when it occurs a few times (one helper
    /// marked `__host__ __device__` in a public header is not a kernel).
    CudaWeak,
    HipInclude,
    /// Ascend C device code: `__aicore__`, the `AscendC::` API, its
    /// `kernel_operator.h` header.
    AscendCore,
    /// `__builtin_amdgcn_*`: AMD GPU builtins (MFMA, DPP, `s_waitcnt`…),
    /// valid only in device code — a HIP library written behind its own
    /// `__device__` macro still uses them.
    AmdDevice,
    Cutlass,
    Sycl,
    /// See [`Kind::Offload`].
    Offload,
    /// A functor handed to ATen's device loops (`gpu_kernel(iter, f)`,
    /// `gpu_reduce_kernel<…>`) in a C++ unit: PyTorch's XPU operators are
    /// SYCL kernels written so, with no SYCL name of their own.
    AtenDeviceLoop,
    /// A JIT code generator: C++ that emits the SIMD kernel at run time
    /// (oneDNN's `jit_generator`, named by its subclasses and by the
    /// emitters it is handed to; an Xbyak `CodeGenerator` subclass; emitted
    /// `uni_vmovups(…)` / `vfmadd231ps(…)` calls, the latter read as x86
    /// assembly). Not the assembler library itself, nor a file that only
    /// asks the assembler's CPU-feature helpers.
    JitEmit,
    /// Xbyak_aarch64 named: a JIT generator's ISA is AArch64.
    ArmJit,
    X86,
    /// x86's vector type names (`__m256i`): LoongArch's LSX / LASX
    /// intrinsics use them too, so another ISA's intrinsics decide.
    X86Types,
    Arm,
    OtherSimd,
    /// `#include <immintrin.h>` / `<arm_neon.h>` alone: host code includes
    /// them for one `_mm_pause`; intrinsics in use decide.
    X86Include,
    ArmInclude,
    OpenclKernel,
    /// OpenCL C's address-space qualifiers (`__constant`, `__private`…):
    /// in a `.cl` file with no kernel entry, the device functions and
    /// tables the kernels include (BitCrack's `clMath/sha256.cl`).
    OpenclAddressSpace,
    /// OpenCL C's work-item functions and barriers (`get_global_id(`,
    /// `barrier(CLK_`): with a kernel entry, OpenCL source in any file.
    OpenclBuiltin,
    /// Metal Shading Language in any file (`.h` templates, Swift strings).
    MetalSource,
    /// An MLX custom Metal kernel built from a Python source string
    /// (`mx.fast.metal_kernel(name=…, source=…)`).
    MlxMetalKernel,
    /// The thread-position names an MLX-style Metal kernel body uses
    /// without their attribute brackets (`thread_position_in_grid.x`):
    /// a body in a Python string handed to a wrapper of
    /// `metal_kernel` (ExecuTorch's `MetalKernelNode(source=…)`).
    MetalBody,
    /// A CuPy kernel built from CUDA C in a Python / Cython string
    /// (`cp.RawKernel(code, name)`, `ElementwiseKernel(in, out, body)`,
    /// `ReductionKernel`, `RawModule`, `create_ufunc`).
    CupyKernel,
    /// WGSL compute code inside a host-language file: a `wgsl! { … }` block
    /// (the `inline-wgsl` crate) or a shader string whose body uses
    /// workgroup memory, barriers or the invocation builtins.
    WgslSource,
    /// WGSL's typed vectors and arrays (`vec4<f32>`, `array<u32>`): a
    /// shader in a script string; read in script files only (Rust and C++
    /// spell other types so).
    WgslType,
    /// GLSL (ES) in a script string: its `void main()` entry, its
    /// builtins and its vector and sampler types, which no script declares.
    GlslSource,
    TritonKernel,
    /// A Numba CPU compilation decorator (`@njit`, `@nb.jit`,
    /// `@guvectorize`): with [`Marker::NumbaImport`], a [`Kind::Numba`]
    /// file.
    NumbaJit,
    /// `import numba` / `from numba …`: a bare `@jit` or `@vectorize` is
    /// Numba's only in a module that imports it.
    NumbaImport,
    CuteDsl,
    Cutile,
    GpuDsl,
    RustGpu,
    GoAsm,
    /// x86 SIMD instructions or registers in assembly text.
    AsmX86,
    /// MMX / SSE2 packed-integer mnemonics (`punpcklbw`, `pmaddwd`): x86
    /// SIMD in an assembly file written over register macros; read in
    /// assembly files only (a C comment may name the instruction).
    AsmX86Packed,
    /// Arm SIMD instructions in assembly text.
    AsmArm,
    /// RISC-V vector, POWER VSX, LoongArch LSX / LASX or Espressif SIMD
    /// instructions in assembly text.
    AsmOther,
    /// AMD GPU (GCN / CDNA / RDNA) instructions in assembly text: MIOpen's
    /// and Tensile's hand-written and generated kernels, and inline `asm`
    /// in HIP device code.
    AsmAmdGpu,
    /// x86 assembly written in Python with PeachPy (NNPACK's kernels).
    PeachPy,
    /// `#include "` (where: a kernel's parts, see [`includes_at`]).
    IncludeQuote,
    /// A Python import of a kernel DSL without a kernel (see
    /// [`Scanned::plain_dsl`]).
    CuteImport,
    FlyImport,
    PortableSimd,
    /// A call of a device library's algorithm (`thrust::transform(`,
    /// `cub::DeviceRadixSort`): the file runs GPU work with its own
    /// functors, so a `.cu` that calls one is no host code; a unit that
    /// only includes it is (it reaches no entry, see [`Scanned::entry`]).
    LibraryCall,
    /// An OpenCL kernel argument set from host code (`k.setArg(i, …)`,
    /// `clSetKernelArg(k, i, …)`); counted, see [`Scanned::sets_kernel_args`].
    KernelArg,
    /// A kernel launch from host code (`hipLaunchKernelGGL`, `<<<`), or an
    /// explicit template instantiation (`template void f<…>(…);`): a unit
    /// that instantiates kernels (see [`Scanned::launches`]).
    Launch,
}

impl Marker {
    /// Markers read in TypeScript / JavaScript files only.
    fn script_only(self) -> bool {
        matches!(self, Marker::WgslType | Marker::GlslSource)
    }
}

const MARKERS: &[(Marker, &str)] = &[
    (Marker::CudaEntry, "__global__"),
    (Marker::CudaWeak, "__device__"),
    // An extended device lambda handed to a launch or a Thrust / CUB
    // algorithm (`[=] __device__ (int i)`, gunrock's and k2's operators).
    (Marker::CudaDevice, "] __device__"),
    (Marker::CudaDevice, "] __host__ __device__"),
    (Marker::CudaDevice, "threadIdx."),
    (Marker::CudaDevice, "blockIdx."),
    (Marker::CudaDevice, "__syncthreads"),
    (Marker::CudaDevice, "__shfl_xor_sync"),
    // PTX in inline asm: tensor-core and async-copy instructions.
    (Marker::CudaDevice, "wgmma.mma_async"),
    (Marker::CudaDevice, "tcgen05."),
    (Marker::CudaDevice, "mma.sync.aligned"),
    (Marker::CudaDevice, "cp.async."),
    (Marker::CudaDevice, "ldmatrix.sync"),
    (Marker::AmdDevice, "__builtin_amdgcn_"),
    // Composable Kernel's GPU operations: a unit that includes them
    // instantiates CK's device kernels (hipTensor's `*_instance.cpp`).
    (Marker::CkOps, "#include \"ck/tensor_operation/gpu/"),
    (Marker::CkOps, "#include \"ck_tile/ops/"),
    (Marker::CkOps, "#include <ck/tensor_operation/gpu/"),
    (Marker::CkOps, "#include <ck_tile/ops/"),
    (
        Marker::CkOps,
        "#include \"ck/library/tensor_operation_instance/",
    ),
    // CK's instance units register their template instances with this
    // call, whatever they include (a local `*_instance_common.hpp`).
    (Marker::CkOps, "add_device_operation_instances("),
    (Marker::AscendCore, "__aicore__"),
    (Marker::AscendCore, "AscendC::"),
    (Marker::AscendCore, "kernel_operator.h"),
    (Marker::HipInclude, "hip/hip_runtime.h"),
    (Marker::HipInclude, "hip_runtime.h"),
    (Marker::Cutlass, "#include \"cutlass/"),
    (Marker::Cutlass, "#include <cutlass/"),
    (Marker::Cutlass, "#include \"cute/"),
    (Marker::Cutlass, "#include <cute/"),
    (Marker::Cutlass, "cute::"),
    (Marker::Cutlass, "cutlass::gemm"),
    (Marker::AtenDeviceLoop, "gpu_kernel(iter"),
    (Marker::AtenDeviceLoop, "gpu_kernel_with_scalars("),
    (Marker::AtenDeviceLoop, "gpu_reduce_kernel<"),
    (Marker::JitEmit, "jit_generator"),
    (Marker::JitEmit, "Xbyak::CodeGenerator"),
    (Marker::JitEmit, "Xbyak_aarch64::CodeGenerator"),
    (Marker::JitEmit, "uni_vmovups("),
    (Marker::ArmJit, "Xbyak_aarch64"),
    (Marker::ArmJit, "xbyak_aarch64"),
    // What a SYCL kernel is written with: its index space, the handler
    // that submits it, work-group memory and sub-groups. Including
    // `sycl/sycl.hpp` or holding a `sycl::queue` is host code (an API
    // that takes the user's queue), as a `cudaStream_t` is.
    (Marker::Sycl, "sycl::nd_item"),
    (Marker::Sycl, "sycl::nd_range"),
    (Marker::Sycl, "sycl::handler"),
    (Marker::Sycl, "sycl::item<"),
    (Marker::Sycl, "sycl::local_accessor"),
    (Marker::Sycl, "sycl::sub_group"),
    (Marker::Sycl, "dpct::"),
    // A loop handed to a device: Kokkos' parallel dispatch (its body is
    // the kernel, whichever execution space the build picks), an OpenMP
    // `target` region's loop or a `teams` construct (`target data` /
    // `enter data` / `update` only move data: host code), an OpenACC
    // compute construct.
    (Marker::Offload, "Kokkos::parallel_for"),
    (Marker::Offload, "Kokkos::parallel_reduce"),
    (Marker::Offload, "Kokkos::parallel_scan"),
    (Marker::Offload, "#pragma omp target teams"),
    (Marker::Offload, "#pragma omp target parallel"),
    (Marker::Offload, "#pragma omp target simd"),
    (Marker::Offload, "#pragma omp target loop"),
    (Marker::Offload, "#pragma omp teams"),
    (Marker::Offload, "#pragma acc parallel"),
    (Marker::Offload, "#pragma acc kernels"),
    (Marker::Offload, "#pragma acc serial"),
    (Marker::Offload, "#pragma acc loop"),
    (Marker::X86Include, "immintrin.h"),
    (Marker::X86Include, "emmintrin.h"),
    (Marker::X86Include, "xmmintrin.h"),
    (Marker::X86Include, "smmintrin.h"),
    (Marker::X86Include, "tmmintrin.h"),
    (Marker::X86Include, "x86intrin.h"),
    (Marker::X86, "_mm256_"),
    (Marker::X86, "CPU_CAPABILITY_AVX512"),
    (Marker::X86, "CPU_CAPABILITY_AVX2"),
    (Marker::X86, "_mm512_"),
    (Marker::X86, "_mm_loadu_"),
    (Marker::X86, "_mm_add_ps"),
    (Marker::X86, "_mm_mul_ps"),
    (Marker::X86, "_mm_set1_"),
    (Marker::X86, "_mm_storeu_"),
    (Marker::X86Types, "__m256"),
    (Marker::X86Types, "__m512"),
    // SSE: the 128-bit vector types and packed loads (a host file's lone
    // `_mm_pause` has neither).
    (Marker::X86Types, "__m128"),
    (Marker::X86, "_mm_load_p"),
    (Marker::X86, "_mm_loaddup_p"),
    (Marker::X86, "_mm_fmadd_p"),
    (Marker::X86, "_tile_loadd"),
    (Marker::X86, "core::arch::x86_64"),
    (Marker::X86, "std::arch::x86_64"),
    (Marker::X86, "arch::x86_64::"),
    // A function compiled for an ISA: the kernels of a per-ISA header
    // whose intrinsics start past the prefix.
    (Marker::X86, "target(\"avx"),
    (Marker::X86, "target(\"sse4"),
    (Marker::X86, "target(\"arch=haswell"),
    (Marker::X86, "target(\"arch=skylake"),
    (Marker::X86, "target(\"arch=sapphirerapids"),
    (Marker::ArmInclude, "arm_neon.h"),
    (Marker::Arm, "arm_sve.h"),
    (Marker::Arm, "arm_sme.h"),
    (Marker::Arm, "vld1q_"),
    (Marker::Arm, "vfmaq_f32"),
    (Marker::Arm, "vst1q_"),
    (Marker::Arm, "int8x16_t"),
    (Marker::Arm, "svbool_t"),
    (Marker::Arm, "vdotq_s32"),
    (Marker::Arm, "float32x4_t"),
    // NEON's other vector types (gemmlowp's fixedpoint_neon.h holds only
    // int16x8_t / int32x4_t arithmetic).
    (Marker::Arm, "int32x4_t"),
    (Marker::Arm, "int16x8_t"),
    (Marker::Arm, "uint8x16_t"),
    (Marker::Arm, "uint8x8_t"),
    (Marker::Arm, "int8x8_t"),
    (Marker::Arm, "uint16x8_t"),
    (Marker::Arm, "uint32x4_t"),
    (Marker::Arm, "float16x8_t"),
    (Marker::Arm, "vdupq_n_"),
    (Marker::Arm, "svfloat32_t"),
    (Marker::Arm, "core::arch::aarch64"),
    (Marker::Arm, "std::arch::aarch64"),
    (Marker::Arm, "arch::aarch64::"),
    (Marker::Arm, "target(\"arch=armv8"),
    (Marker::Arm, "target(\"arch=armv9"),
    (Marker::Arm, "target(\"+sve"),
    (Marker::Arm, "target(\"+sme"),
    (Marker::Arm, "svld1"),
    // M-profile Vector Extension (Helium): Cortex-M kernels (CMSIS-NN).
    (Marker::Arm, "arm_mve.h"),
    (Marker::Arm, "mve_pred16_t"),
    (Marker::Arm, "vldrbq_"),
    (Marker::Arm, "vldrhq_"),
    (Marker::Arm, "vldrwq_"),
    (Marker::Arm, "vstrbq_"),
    (Marker::Arm, "vstrhq_"),
    (Marker::Arm, "vstrwq_"),
    // Armv7E-M DSP SIMD: packed 8 / 16-bit lanes in one register.
    (Marker::Arm, "__SMLAD("),
    (Marker::Arm, "__SMLADX("),
    (Marker::Arm, "__SXTB16("),
    (Marker::Arm, "__QADD16("),
    (Marker::Arm, "__QSUB16("),
    (Marker::OtherSimd, "riscv_vector.h"),
    // MIPS MSA and Loongson MMI.
    (Marker::OtherSimd, "<msa.h>"),
    (Marker::OtherSimd, "__msa_"),
    (Marker::OtherSimd, "__builtin_msa_"),
    (Marker::OtherSimd, "loongson-mmiintrin.h"),
    (Marker::OtherSimd, "wasm_simd128.h"),
    (Marker::OtherSimd, "core::arch::wasm32"),
    (Marker::OtherSimd, "arch::wasm32::"),
    (Marker::OtherSimd, "altivec.h"),
    (Marker::OtherSimd, "lasxintrin.h"),
    (Marker::OtherSimd, "lsxintrin.h"),
    (Marker::OtherSimd, "__lasx_"),
    (Marker::OtherSimd, "__lsx_"),
    (Marker::OtherSimd, "wasm_v128_"),
    (Marker::OtherSimd, "wasm_f32x4_"),
    (Marker::OtherSimd, "wasm_i32x4_"),
    (Marker::OtherSimd, "vec_xl("),
    // AltiVec / VSX / QPX fused multiply-add in use.
    (Marker::OtherSimd, "vec_madd("),
    // POWER10 matrix-multiply assist.
    (Marker::OtherSimd, "__builtin_mma_"),
    (Marker::OtherSimd, "__riscv_v"),
    (Marker::OtherSimd, "vecintrin.h"),
    (Marker::OtherSimd, "HVX_Vector"),
    (Marker::OtherSimd, "hexagon_types.h"),
    (Marker::OtherSimd, "\"simd/archsimd\""),
    (Marker::OtherSimd, "target(\"arch=+v"),
    (Marker::OtherSimd, "target(\"vsx"),
    (Marker::OtherSimd, "target(\"lasx"),
    (Marker::OtherSimd, "target(\"simd128"),
    (Marker::OtherSimd, "target(\"relaxed-simd"),
    (Marker::PortableSimd, "std::simd"),
    // Portable SIMD in C and C++: psimd / GCC vector extensions, Highway,
    // SIMDe, std::experimental::simd.
    (Marker::PortableSimd, "psimd.h"),
    (Marker::PortableSimd, "psimd_load_"),
    (Marker::PortableSimd, "psimd_store_"),
    (Marker::PortableSimd, "__attribute__((vector_size"),
    (Marker::PortableSimd, "hwy/highway.h"),
    // PyTorch's vector class and per-ISA kernel builds (ATen's native/cpu
    // kernels, and the extensions written like them: IPEX, torchao,
    // ExecuTorch's optimized kernels).
    (Marker::PortableSimd, "Vectorized<"),
    (Marker::PortableSimd, "at::vec::"),
    (Marker::PortableSimd, "HWY_NAMESPACE"),
    (Marker::PortableSimd, "simde/x86"),
    (Marker::PortableSimd, "simde/arm"),
    (Marker::PortableSimd, "std::experimental::simd"),
    (Marker::PortableSimd, "core::simd"),
    (Marker::OpenclKernel, "__kernel"),
    (Marker::OpenclKernel, "kernel void"),
    (Marker::OpenclKernel, "#pragma OPENCL"),
    (Marker::OpenclAddressSpace, "__constant "),
    (Marker::OpenclAddressSpace, "__private "),
    (Marker::OpenclAddressSpace, "__local "),
    (Marker::OpenclAddressSpace, "__global "),
    (Marker::OpenclBuiltin, "get_global_id("),
    (Marker::OpenclBuiltin, "get_local_id("),
    (Marker::OpenclBuiltin, "get_group_id("),
    (Marker::OpenclBuiltin, "barrier(CLK_"),
    // `include_wgsl!("f.wgsl")` loads a shader file (host code); a block
    // opens with a brace.
    (Marker::WgslSource, "wgsl! {"),
    (Marker::WgslSource, "wgsl!{"),
    (Marker::WgslSource, "var<workgroup>"),
    (Marker::WgslSource, "workgroupBarrier()"),
    (Marker::WgslSource, "@builtin(global_invocation_id)"),
    (Marker::WgslType, "vec2<f32>"),
    (Marker::WgslType, "vec2<i32>"),
    (Marker::WgslType, "vec2<u32>"),
    (Marker::WgslType, "vec2<f16>"),
    (Marker::WgslType, "vec3<f32>"),
    (Marker::WgslType, "vec3<i32>"),
    (Marker::WgslType, "vec3<u32>"),
    (Marker::WgslType, "vec3<f16>"),
    (Marker::WgslType, "vec4<f32>"),
    (Marker::WgslType, "vec4<i32>"),
    (Marker::WgslType, "vec4<u32>"),
    (Marker::WgslType, "vec4<f16>"),
    (Marker::WgslType, "array<f32>"),
    (Marker::WgslType, "array<i32>"),
    (Marker::WgslType, "array<u32>"),
    (Marker::WgslType, "array<f16>"),
    (Marker::GlslSource, "void main()"),
    (Marker::GlslSource, "gl_FragColor"),
    (Marker::GlslSource, "gl_FragCoord"),
    (Marker::GlslSource, "gl_GlobalInvocationID"),
    (Marker::GlslSource, "#version 300 es"),
    (Marker::GlslSource, "ivec2"),
    (Marker::GlslSource, "ivec3"),
    (Marker::GlslSource, "ivec4"),
    (Marker::GlslSource, "sampler2D"),
    (Marker::KernelArg, "setArg("),
    (Marker::KernelArg, "clSetKernelArg("),
    (Marker::MlxMetalKernel, "fast.metal_kernel("),
    (Marker::MetalBody, "thread_position_in_grid"),
    (Marker::MetalBody, "threadgroup_position_in_grid"),
    (Marker::MetalBody, "thread_index_in_simdgroup"),
    (Marker::MetalBody, "simdgroup_index_in_threadgroup"),
    (Marker::CupyKernel, "ElementwiseKernel("),
    (Marker::CupyKernel, "ReductionKernel("),
    (Marker::CupyKernel, "RawKernel("),
    (Marker::CupyKernel, "RawModule("),
    (Marker::CupyKernel, "create_ufunc("),
    (Marker::CupyKernel, "create_reduction_func("),
    (Marker::MetalSource, "[[kernel]]"),
    (Marker::MetalSource, "metal_stdlib"),
    (Marker::MetalSource, "simdgroup_matrix"),
    (Marker::MetalSource, "simdgroup_event"),
    (Marker::MetalSource, "simdgroup_barrier"),
    (Marker::MetalSource, "threadgroup_barrier"),
    (Marker::MetalSource, "[[thread_position_in_grid]]"),
    (Marker::MetalSource, "[[threadgroup_position_in_grid]]"),
    (Marker::MetalSource, "[[simdgroup_index_in_threadgroup]]"),
    (Marker::TritonKernel, "triton.jit"),
    (Marker::TritonKernel, "triton.autotune"),
    (Marker::TritonKernel, "tl.program_id"),
    (Marker::TritonKernel, "gluon.jit"),
    // Numba's CPU decorators as its documentation spells them (`import
    // numba as nb` is the common alias); `numba.cuda.jit` is a GPU DSL's.
    (Marker::NumbaJit, "@njit"),
    (Marker::NumbaJit, "@numba.njit"),
    (Marker::NumbaJit, "@nb.njit"),
    (Marker::NumbaJit, "@jit("),
    (Marker::NumbaJit, "@jit\n"),
    (Marker::NumbaJit, "@jit\r"),
    (Marker::NumbaJit, "@njit "),
    (Marker::NumbaJit, "@numba.jit"),
    (Marker::NumbaJit, "@nb.jit"),
    (Marker::NumbaJit, "@guvectorize"),
    (Marker::NumbaJit, "@numba.guvectorize"),
    (Marker::NumbaJit, "@nb.guvectorize"),
    (Marker::NumbaJit, "@vectorize("),
    (Marker::NumbaJit, "@numba.vectorize"),
    (Marker::NumbaJit, "@nb.vectorize"),
    (Marker::NumbaJit, "@stencil"),
    (Marker::NumbaJit, "@numba.stencil"),
    // The module itself, not `numbagg` or `numba_stats`.
    (Marker::NumbaImport, "import numba\n"),
    (Marker::NumbaImport, "import numba\r"),
    (Marker::NumbaImport, "import numba as "),
    (Marker::NumbaImport, "import numba."),
    (Marker::NumbaImport, "from numba import "),
    (Marker::NumbaImport, "from numba."),
    (Marker::CuteDsl, "cute.kernel"),
    (Marker::CuteDsl, "cute.jit"),
    (Marker::CuteDsl, "dsl_user_op"),
    (Marker::CuteImport, "import cutlass.cute"),
    (Marker::CuteImport, "from cutlass.cute"),
    (Marker::CuteImport, "from cutlass import cute"),
    (Marker::FlyImport, "import flydsl"),
    (Marker::FlyImport, "from flydsl"),
    (Marker::IncludeQuote, "#include \""),
    // Device library algorithms called with the file's own functors (or
    // through a wrapper macro: `THRUST_CALL(thrust::gather, …)`), and
    // the device execution policies.
    (Marker::LibraryCall, "thrust::transform("),
    (Marker::LibraryCall, "thrust::transform,"),
    (Marker::LibraryCall, "thrust::transform_reduce("),
    (Marker::LibraryCall, "thrust::transform_reduce,"),
    (Marker::LibraryCall, "thrust::gather("),
    (Marker::LibraryCall, "thrust::gather,"),
    (Marker::LibraryCall, "thrust::scatter("),
    (Marker::LibraryCall, "thrust::scatter,"),
    (Marker::LibraryCall, "thrust::reduce("),
    (Marker::LibraryCall, "thrust::reduce,"),
    (Marker::LibraryCall, "thrust::reduce_by_key("),
    (Marker::LibraryCall, "thrust::reduce_by_key,"),
    (Marker::LibraryCall, "thrust::inclusive_scan("),
    (Marker::LibraryCall, "thrust::inclusive_scan,"),
    (Marker::LibraryCall, "thrust::exclusive_scan("),
    (Marker::LibraryCall, "thrust::exclusive_scan,"),
    (Marker::LibraryCall, "thrust::sort("),
    (Marker::LibraryCall, "thrust::sort,"),
    (Marker::LibraryCall, "thrust::sort_by_key("),
    (Marker::LibraryCall, "thrust::sort_by_key,"),
    (Marker::LibraryCall, "thrust::stable_sort("),
    (Marker::LibraryCall, "thrust::stable_sort,"),
    (Marker::LibraryCall, "thrust::stable_sort_by_key("),
    (Marker::LibraryCall, "thrust::stable_sort_by_key,"),
    (Marker::LibraryCall, "thrust::for_each("),
    (Marker::LibraryCall, "thrust::for_each,"),
    (Marker::LibraryCall, "thrust::for_each_n("),
    (Marker::LibraryCall, "thrust::for_each_n,"),
    (Marker::LibraryCall, "thrust::minmax_element("),
    (Marker::LibraryCall, "thrust::minmax_element,"),
    (Marker::LibraryCall, "thrust::count_if("),
    (Marker::LibraryCall, "thrust::count_if,"),
    (Marker::LibraryCall, "thrust::unique("),
    (Marker::LibraryCall, "thrust::unique,"),
    (Marker::LibraryCall, "thrust::sequence("),
    (Marker::LibraryCall, "thrust::sequence,"),
    (Marker::LibraryCall, "thrust::cuda::par"),
    (Marker::LibraryCall, "thrust::hip::par"),
    (Marker::LibraryCall, "thrust::device,"),
    (Marker::LibraryCall, "cub::Device"),
    (Marker::LibraryCall, "hipcub::Device"),
    (Marker::Launch, "hipLaunchKernelGGL"),
    (Marker::Launch, "HIPLAUNCHKERNELGGL"),
    (Marker::Launch, "hipLaunchKernelEx"),
    (Marker::Launch, "hipLaunchCooperativeKernel"),
    (Marker::Launch, "cudaLaunchKernel"),
    (Marker::Launch, "cudaLaunchCooperativeKernel"),
    (Marker::Launch, ">>>("),
    // Explicit instantiations at the start of a line: a unit that builds
    // a header's template kernels (xformers' generated `instances/*.cpp`).
    (Marker::Launch, "\ntemplate void "),
    (Marker::Launch, "\ntemplate struct "),
    (Marker::Launch, "\ntemplate class "),
    (Marker::Launch, "\ntemplate __global__ "),
    (Marker::PeachPy, "from peachpy"),
    (Marker::PeachPy, "YMMRegister"),
    (Marker::PeachPy, "XMMRegister"),
    (Marker::PeachPy, "ZMMRegister"),
    (Marker::PeachPy, "LOAD.ARGUMENT("),
    // Device code of the CuTe DSL: its intrinsics and MMA / copy atoms. An
    // `import cutlass.cute` alone is host code too (compile helpers,
    // runtime glue).
    (Marker::CuteDsl, "cute.arch."),
    (Marker::CuteDsl, "cute.nvgpu."),
    (Marker::Cutile, "import cuda.tile"),
    (Marker::Cutile, "@ct.kernel"),
    // cuTile Rust: kernels are `#[cutile::entry]` functions inside a
    // `#[cutile::module]`; the host side that launches them only `use`s
    // the crate (TileGym's `ffi.rs`, mistral.rs' launchers).
    (Marker::Cutile, "#[cutile::module]"),
    (Marker::GpuDsl, "import tilelang"),
    (Marker::GpuDsl, "T.prim_func"),
    (Marker::GpuDsl, "pallas_call"),
    // Pallas's other entry points (Mosaic GPU's `plgpu.kernel`, the
    // grid-less `pl.kernel`), as its documentation imports them.
    (Marker::GpuDsl, "plgpu.kernel("),
    (Marker::GpuDsl, " pl.kernel("),
    // Pallas kernel bodies, for files whose `pallas_call` sits past the
    // prefix or in another module (the grid index, the TPU's DMA).
    (Marker::GpuDsl, "pl.program_id("),
    (Marker::GpuDsl, "pltpu.make_async_copy("),
    (Marker::GpuDsl, "cuda.jit"),
    (Marker::GpuDsl, "helion.kernel"),
    // NVIDIA Warp: kernels and the device functions they call, as its
    // documentation writes them (`import warp as wp`).
    (Marker::GpuDsl, "@wp.kernel"),
    (Marker::GpuDsl, "@wp.func"),
    (Marker::GpuDsl, "@warp.kernel"),
    (Marker::GpuDsl, "@warp.func"),
    // Its thread index taken, valid in kernel code only (`i = wp.tid()`,
    // `b, h = wp.tid()`): a kernel written as a plain function and
    // compiled by a factory (`wp.Kernel(fwd, …)`, torchmd-net's
    // `warp_kernels/`).
    (Marker::GpuDsl, "= wp.tid()"),
    (Marker::GpuDsl, "= warp.tid()"),
    // Taichi: kernels and the functions they call, as its documentation
    // writes them (`import taichi as ti`).
    (Marker::GpuDsl, "@ti.kernel"),
    (Marker::GpuDsl, "@ti.func"),
    (Marker::GpuDsl, "@taichi.kernel"),
    (Marker::GpuDsl, "@taichi.func"),
    // Quadrants, Genesis' successor of Taichi, as its documentation writes
    // it (`import quadrants as qd`).
    (Marker::GpuDsl, "@qd.kernel"),
    (Marker::GpuDsl, "@qd.func"),
    // ROCm FlyDSL (`import flydsl.compiler as flyc`).
    (Marker::GpuDsl, "flyc.kernel"),
    (Marker::GpuDsl, "flyc.jit"),
    (Marker::GpuDsl, "load_inline("),
    // CubeCL: a kernel or device function is `#[cube]` / `#[cube(launch)]`
    // code; `use cubecl` alone is host code that launches or tunes them
    // (burn's ops and autotune files, CubeCL's own compilers).
    (Marker::RustGpu, "#[cube("),
    (Marker::RustGpu, "#[cube]"),
    // At the start of a line, so a table of these strings is no kernel.
    (Marker::RustGpu, "\nuse cuda_std"),
    (Marker::RustGpu, "\nuse spirv_std"),
    (Marker::GoAsm, "TEXT ·"),
    (Marker::GoAsm, "textflag.h"),
    (Marker::AsmX86, "%ymm"),
    (Marker::AsmX86, "%zmm"),
    (Marker::AsmX86, "%xmm"),
    (Marker::AsmX86, "vfmadd"),
    (Marker::AsmX86, "VFMADD"),
    (Marker::AsmX86, "VMOVDQU"),
    (Marker::AsmX86, "VPADD"),
    // Register operands of macro-assembly (BLIS's `movaps(mem(rax), xmm0)`).
    (Marker::AsmX86, "xmm0"),
    (Marker::AsmX86, "ymm0"),
    (Marker::AsmX86, "zmm0"),
    (Marker::AsmArm, "fmla"),
    // ARMv7 NEON / VFP vector instructions.
    (Marker::AsmArm, "vmla.f32"),
    (Marker::AsmArm, "vfma.f32"),
    (Marker::AsmArm, "vld1.32"),
    (Marker::AsmArm, "vld1.64"),
    // ARMv7 NEON integer and structure instructions (int8 GEMM and
    // depthwise micro-kernels), VFP block loads and stores.
    (Marker::AsmArm, "vld1.8"),
    (Marker::AsmArm, "vst1."),
    (Marker::AsmArm, "vmull."),
    (Marker::AsmArm, "vpadal."),
    (Marker::AsmArm, "vldr\t"),
    (Marker::AsmArm, "vldr "),
    (Marker::AsmArm, "vstm\t"),
    (Marker::AsmArm, "vldm\t"),
    // RISC-V vector and POWER VSX instructions.
    (Marker::AsmOther, "vsetvli"),
    (Marker::AsmOther, "vfmacc.v"),
    (Marker::AsmOther, "vle32.v"),
    (Marker::AsmOther, "vle64.v"),
    (Marker::AsmOther, "xvmaddadp"),
    (Marker::AsmOther, "xvmaddasp"),
    // POWER VSX loads, stores and arithmetic beyond the FMAs (OpenBLAS's
    // `kernel/power/*_microk_power8.c` / `_power10.c` copy, swap, scale
    // and asum kernels), and IBM Z vector-facility floating point
    // (`kernel/zarch/*.c`): mnemonics no other ISA or prose spells so.
    // Each spelled with the space or tab before its operands, so an
    // emitter's `xxlxor(`, an emulator's `VSX_ADD_SUB(xvadddp, …)` or an
    // identifier (`vfadbg_mode`) is none.
    (Marker::AsmOther, "lxvd2x "),
    (Marker::AsmOther, "lxvd2x\t"),
    (Marker::AsmOther, "stxvd2x "),
    (Marker::AsmOther, "stxvd2x\t"),
    (Marker::AsmOther, "lxvp "),
    (Marker::AsmOther, "lxvp\t"),
    (Marker::AsmOther, "xvmuldp "),
    (Marker::AsmOther, "xvmuldp\t"),
    (Marker::AsmOther, "xvmulsp "),
    (Marker::AsmOther, "xvmulsp\t"),
    (Marker::AsmOther, "xvadddp "),
    (Marker::AsmOther, "xvadddp\t"),
    (Marker::AsmOther, "xvaddsp "),
    (Marker::AsmOther, "xvaddsp\t"),
    (Marker::AsmOther, "xxlxor "),
    (Marker::AsmOther, "xxlxor\t"),
    (Marker::AsmOther, "vfmadb "),
    (Marker::AsmOther, "vfmadb\t"),
    (Marker::AsmOther, "vfmasb "),
    (Marker::AsmOther, "vfmasb\t"),
    (Marker::AsmOther, "vfadb "),
    (Marker::AsmOther, "vfadb\t"),
    (Marker::AsmOther, "vfasb "),
    (Marker::AsmOther, "vfasb\t"),
    (Marker::AsmOther, "vflpdb "),
    (Marker::AsmOther, "vflpdb\t"),
    (Marker::AsmOther, "vlrepg "),
    (Marker::AsmOther, "vlrepg\t"),
    // Espressif's SIMD extensions: ESP32-S3's Xtensa `ee.` and ESP32-P4's
    // RISC-V `esp.` vector loads, stores and multiply-accumulates.
    (Marker::AsmOther, "ee.vld."),
    (Marker::AsmOther, "ee.vst."),
    (Marker::AsmOther, "ee.vmulas."),
    (Marker::AsmOther, "ee.vsmulas."),
    (Marker::AsmOther, "esp.vld."),
    (Marker::AsmOther, "esp.vst."),
    (Marker::AsmOther, "esp.vmulas."),
    // LoongArch LSX / LASX vector assembly (OpenBLAS, dav1d): vector
    // registers and mnemonics no other ISA spells so.
    (Marker::AsmOther, "$vr"),
    (Marker::AsmOther, "$xr"),
    (Marker::AsmOther, "vreplgr2vr."),
    (Marker::AsmOther, "vldrepl."),
    (Marker::AsmOther, "vmaddwod."),
    (Marker::AsmOther, "vmulwev."),
    (Marker::AsmOther, "xvpermi."),
    (Marker::AsmOther, "vilvl."),
    (Marker::AsmOther, "vilvh."),
    (Marker::AsmOther, "vpackev."),
    (Marker::AsmOther, "vstelm."),
    (Marker::AsmOther, "xvld "),
    (Marker::AsmOther, "xvst "),
    (Marker::AsmOther, "xvld\t"),
    (Marker::AsmOther, "xvst\t"),
    // MMX / SSE2 packed-integer mnemonics: x86 SIMD assembly written
    // over register macros (x86inc's `m0`, libjpeg-turbo's `mmA`).
    (Marker::AsmX86Packed, "punpcklbw"),
    (Marker::AsmX86Packed, "punpcklwd"),
    (Marker::AsmX86Packed, "punpckldq"),
    (Marker::AsmX86Packed, "punpckhbw"),
    (Marker::AsmX86Packed, "punpckhwd"),
    (Marker::AsmX86Packed, "punpckhdq"),
    (Marker::AsmX86Packed, "pmaddwd"),
    (Marker::AsmX86Packed, "pmulhw"),
    (Marker::AsmX86Packed, "packuswb"),
    (Marker::AsmX86Packed, "psraw "),
    // AMD GPU ISA: waits, end of program, MFMA, buffer / global / LDS
    // memory instructions, and the HSA kernel descriptor directives.
    (Marker::AsmAmdGpu, "s_waitcnt"),
    (Marker::AsmAmdGpu, "s_endpgm"),
    (Marker::AsmAmdGpu, "v_mfma_"),
    (Marker::AsmAmdGpu, "buffer_load_dword"),
    (Marker::AsmAmdGpu, "global_load_dword"),
    (Marker::AsmAmdGpu, "ds_read_b"),
    (Marker::AsmAmdGpu, "ds_write_b"),
    (Marker::AsmAmdGpu, "v_fma_f32"),
    (Marker::AsmAmdGpu, "v_mac_f32"),
    (Marker::AsmAmdGpu, ".amdhsa_"),
    (Marker::AsmArm, "VLD1."),
    (Marker::AsmArm, "ld1 {v"),
    // AArch64 NEON in assembly text, also as comments beside `.inst`
    // encodings (KleidiAI writes `.inst 0x4e97a7a3 // smmla v3.4s, ...`).
    (Marker::AsmArm, "ld1 { v"),
    (Marker::AsmArm, "st1 { v"),
    (Marker::AsmArm, "ld1r { v"),
    (Marker::AsmArm, "movi v"),
    (Marker::AsmArm, "sdot v"),
    (Marker::AsmArm, "udot v"),
    (Marker::AsmArm, "smmla v"),
    (Marker::AsmArm, "ummla v"),
    (Marker::AsmArm, "usmmla v"),
    (Marker::AsmArm, "bfmmla v"),
    (Marker::AsmArm, "bfdot v"),
    (Marker::AsmArm, "zip1 v"),
    (Marker::AsmArm, "uzp1 v"),
    // AArch64 vector arrangements in an operand list (`v0.4s, v1.4s`),
    // whatever the spacing around the mnemonic.
    (Marker::AsmArm, ".4s, v"),
    (Marker::AsmArm, ".8h, v"),
    (Marker::AsmArm, ".16b, v"),
    (Marker::AsmArm, ".8b, v"),
    (Marker::AsmArm, ".2d, v"),
    (Marker::AsmArm, ".4h, v"),
    (Marker::AsmArm, ".2s, v"),
    (Marker::AsmArm, "ld1\t{v"),
    (Marker::AsmArm, "st1\t{v"),
    // SVE / SME: predicated loads and outer products.
    (Marker::AsmArm, "ptrue p"),
    (Marker::AsmArm, "whilelt p"),
    // SVE mnemonics no other ISA spells, however the operands are aligned
    // (BLIS's `" whilelo         p0.d, x0, x1"`, `" ld1rd  z20.d, p0/z"`).
    (Marker::AsmArm, "whilelo"),
    (Marker::AsmArm, "ld1rw"),
    (Marker::AsmArm, "ld1rd"),
    (Marker::AsmArm, "ld1w { z"),
    (Marker::AsmArm, "ld1h { z"),
    (Marker::AsmArm, "ld1b { z"),
    (Marker::AsmArm, "fmopa za"),
    (Marker::AsmArm, "smopa za"),
];

/// The SIMD kind of intrinsics in use, if any.
fn simd_kind(seen: &[Marker]) -> Option<Kind> {
    if seen.contains(&Marker::X86) {
        Some(Kind::SimdX86)
    } else if seen.contains(&Marker::Arm) {
        Some(Kind::SimdArm)
    } else if seen.contains(&Marker::OtherSimd) {
        Some(Kind::SimdOther)
    } else if seen.contains(&Marker::X86Types) {
        Some(Kind::SimdX86)
    } else {
        None
    }
}

/// What a Python file is, by the first of its markers in this order: a
/// kernel DSL, PeachPy's x86 assembly, an MLX custom Metal kernel's
/// source string, or Metal Shading Language held in strings (whole
/// kernels with `metal_stdlib` / `kernel void … [[thread_position_in_grid]]`,
/// Metal-Marlin's `kernels.py`; bodies by their thread-position names).
const PYTHON_KINDS: &[(Marker, Kind)] = &[
    (Marker::TritonKernel, Kind::Triton),
    (Marker::Cutile, Kind::Cutile),
    (Marker::CuteDsl, Kind::CuteDsl),
    (Marker::GpuDsl, Kind::GpuDsl),
    (Marker::PeachPy, Kind::SimdX86),
    (Marker::MlxMetalKernel, Kind::Metal),
    (Marker::MetalSource, Kind::Metal),
    (Marker::MetalBody, Kind::Metal),
    (Marker::CupyKernel, Kind::Cuda),
];

/// What a Rust file is before its SIMD: cuTile or another GPU DSL, or WGSL, Metal or CUDA
/// C held in strings and compiled at run time (NVRTC for CUDA).
const RUST_KINDS: &[(Marker, Kind)] = &[
    (Marker::Cutile, Kind::Cutile),
    (Marker::RustGpu, Kind::GpuDsl),
    (Marker::WgslSource, Kind::Wgsl),
    (Marker::MetalSource, Kind::Metal),
    (Marker::CudaDevice, Kind::Cuda),
];

/// What a TypeScript / JavaScript file is: a browser backend's shader
/// strings (WGSL; WebGL's GLSL ES, where over the corpus's scripts
/// `void main()` marks 85 shader files and one other), or CUDA C / Metal
/// held the same way.
const SCRIPT_KINDS: &[(Marker, Kind)] = &[
    (Marker::WgslSource, Kind::Wgsl),
    (Marker::WgslType, Kind::Wgsl),
    (Marker::CudaDevice, Kind::Cuda),
    (Marker::MetalSource, Kind::Metal),
    (Marker::GlslSource, Kind::Webgl),
];

/// The kind of the first marker of `order` that `seen` holds.
fn first_kind(seen: &[Marker], order: &[(Marker, Kind)]) -> Option<Kind> {
    order
        .iter()
        .find(|(m, _)| seen.contains(m))
        .map(|&(_, kind)| kind)
}

/// A C-family file's kind: GPU source first, then intrinsics, then SIMD
/// in inline assembly (micro-kernels written as `__asm__` blocks, and the
/// macro headers they use) — the same ISA's kind either way.
fn c_family_kind(seen: &[Marker]) -> Option<Kind> {
    let has = |m: Marker| seen.contains(&m);
    if has(Marker::AscendCore) {
        // Before CUDA: an Ascend C entry is `__global__ __aicore__`.
        Some(Kind::AscendC)
    } else if has(Marker::MetalSource) {
        Some(Kind::Metal)
    } else if has(Marker::Sycl) {
        Some(Kind::Sycl)
    } else if has(Marker::AmdDevice)
        || has(Marker::AsmAmdGpu)
        || (has(Marker::HipInclude) && has(Marker::CudaDevice))
    {
        Some(Kind::Hip)
    } else if has(Marker::Cutlass) {
        Some(Kind::Cutlass)
    } else if has(Marker::CudaDevice) {
        Some(Kind::Cuda)
    } else if has(Marker::AtenDeviceLoop) {
        Some(Kind::Sycl)
    } else if has(Marker::Offload) {
        Some(Kind::Offload)
    } else if let Some(kind) = simd_kind(seen) {
        Some(kind)
    } else if has(Marker::JitEmit) && has(Marker::ArmJit) {
        Some(Kind::SimdArm)
    } else if has(Marker::AsmX86) || has(Marker::JitEmit) {
        Some(Kind::SimdX86)
    } else if has(Marker::AsmArm) {
        Some(Kind::SimdArm)
    } else if has(Marker::AsmOther) || has(Marker::PortableSimd) {
        Some(Kind::SimdOther)
    } else if has(Marker::OpenclKernel) && has(Marker::OpenclBuiltin) {
        // OpenCL C written as C / C++ string literals (MIVisionX's OpenVX
        // nodes, MIOpenGEMM's generators): a kernel entry and a work-item
        // builtin in the same file.
        Some(Kind::Opencl)
    } else {
        None
    }
}

impl Default for Detector {
    fn default() -> Self {
        Detector::new()
    }
}

impl Detector {
    pub fn new() -> Detector {
        Detector {
            ac: OnceLock::new(),
            markers: MARKERS.to_vec(),
        }
    }

    fn ac(&self) -> &AhoCorasick {
        self.ac
            .get_or_init(|| super::scan_automaton(self.patterns()))
    }

    /// The kernel kind of `path` given the first bytes of its content, or
    /// `None` when it is not a kernel file.
    pub fn detect(&self, path: &str, prefix: &[u8]) -> Option<Kind> {
        if !scans(path) {
            return None;
        }
        let found = self.ac().find_overlapping_iter(prefix);
        self.kind_of(path, &self.seen_in(prefix, found).markers)
            .or_else(|| scalar_assembly(path, prefix))
            .filter(|_| !glsl_draws(path, prefix))
    }

    /// What one pass over a file's prefix says: its kernel kind, the kind a
    /// plain DSL module would take, and a kernel's parts (its directory's
    /// files it includes).
    pub fn scan(&self, path: &str, prefix: &[u8]) -> Scanned {
        // A file the detector does not read needs no automaton built.
        if !scans(path) {
            return Scanned::default();
        }
        self.scan_found(path, prefix, self.ac().find_overlapping_iter(prefix))
    }

    /// [`Detector::scan`] given the marker matches in `prefix`, found by
    /// another automaton (see [`super::one_pass`]): every match of a
    /// marker, overlaps too, in the order the search reports them, with
    /// the marker's index in [`Detector::patterns`].
    pub(super) fn scan_found(
        &self,
        path: &str,
        prefix: &[u8],
        found: impl Iterator<Item = Match>,
    ) -> Scanned {
        if !scans(path) {
            return Scanned::default();
        }
        let seen = self.seen_in(prefix, found);
        let kind = self
            .kind_of(path, &seen.markers)
            .or_else(|| scalar_assembly(path, prefix))
            .filter(|_| !glsl_draws(path, prefix));
        let python = matches!(by_extension(path), ByExtension::Ambiguous(Family::Python));
        let plain_dsl = match kind {
            None if python && seen.markers.contains(&Marker::CuteImport) => Some(Kind::CuteDsl),
            None if python && seen.markers.contains(&Marker::FlyImport) => Some(Kind::GpuDsl),
            None if is_header(path) => isa_included(prefix, &seen.markers),
            _ => None,
        };
        let includes = match kind {
            Some(_) => includes_at(path, prefix, &seen.includes),
            None if is_host_source(path) => includes_at(path, prefix, &seen.includes),
            None => Vec::new(),
        };
        Scanned {
            kind,
            plain_dsl,
            includes,
            launches: seen.markers.contains(&Marker::Launch),
            sets_kernel_args: seen.markers.contains(&Marker::KernelArg),
            entry: seen.entry
                || seen.markers.contains(&Marker::Launch)
                || seen.markers.contains(&Marker::Cutlass),
            // Shader syntax read in scripts only says nothing of a C or
            // CUDA file (a host `.cu` with `void main()`).
            marked: seen.markers.iter().any(|m| !m.script_only()),
        }
    }

    fn kind_of(&self, path: &str, seen: &[Marker]) -> Option<Kind> {
        let family = match by_extension(path) {
            ByExtension::No => return None,
            ByExtension::Kernel(Kind::Cuda) => {
                return Some(
                    if seen.contains(&Marker::HipInclude) || seen.contains(&Marker::AmdDevice) {
                        Kind::Hip
                    } else if seen.contains(&Marker::Cutlass) {
                        Kind::Cutlass
                    } else {
                        Kind::Cuda
                    },
                );
            }
            ByExtension::Kernel(kind) => return Some(kind),
            ByExtension::Ambiguous(f) => f,
        };
        let has = |m: Marker| seen.contains(&m);
        let simd = || simd_kind(seen);
        match family {
            Family::C | Family::Template => c_family_kind(seen),
            Family::OpenclMaybe => (has(Marker::OpenclKernel) || has(Marker::OpenclAddressSpace))
                .then_some(Kind::Opencl),
            // Metal source held in Swift / Objective-C strings.
            Family::HostMetal => {
                (has(Marker::MetalSource) || has(Marker::OpenclKernel)).then_some(Kind::Metal)
            }
            // A package's `__init__.py` re-exports; it is a kernel only
            // when it defines one.
            Family::Python if path.ends_with("__init__.py") => {
                has(Marker::TritonKernel).then_some(Kind::Triton)
            }
            // CUDA C held in a string and compiled at run time (PyCUDA's
            // `SourceModule`, NVRTC, a `string.Template` of kernels): a
            // `__global__` entry with a body that uses device builtins.
            // Last, Numba's CPU loops in a module that imports Numba.
            Family::Python => first_kind(seen, PYTHON_KINDS)
                .or_else(|| {
                    (has(Marker::CudaEntry) && has(Marker::CudaBuiltin)).then_some(Kind::Cuda)
                })
                .or_else(|| {
                    (has(Marker::NumbaJit) && has(Marker::NumbaImport)).then_some(Kind::Numba)
                }),
            Family::Rust => first_kind(seen, RUST_KINDS)
                .or_else(simd)
                .or_else(|| has(Marker::PortableSimd).then_some(Kind::SimdOther)),
            Family::Go => has(Marker::OtherSimd).then_some(Kind::SimdOther),
            Family::Script => first_kind(seen, SCRIPT_KINDS),
            Family::Asm => [
                Marker::GoAsm,
                Marker::AsmX86,
                Marker::AsmX86Packed,
                Marker::AsmArm,
                Marker::AsmOther,
                Marker::AsmAmdGpu,
            ]
            .into_iter()
            .any(has)
            .then_some(Kind::Asm),
        }
    }

    /// Whether a marker match names the marker rather than uses it: a
    /// whole string literal (a table of markers, like this file's), a
    /// `#define LIB_KERNEL __global__` (the files that use the name are
    /// the device code), or a NEON vector type the file defines itself
    /// (`using int32x4_t = __attribute__((__vector_size__(16))) int;` in
    /// a HIP header is its own type, not Arm's).
    fn is_mention(
        &self,
        prefix: &[u8],
        m: &Match,
        seen: &[Marker],
        own_types: &mut OwnTypes,
    ) -> bool {
        let quoted =
            m.start() > 0 && prefix[m.start() - 1] == b'"' && prefix.get(m.end()) == Some(&b'"');
        if quoted {
            return true;
        }
        let (marker, text) = self.markers[m.pattern().as_usize()];
        if matches!(
            marker,
            Marker::CudaDevice | Marker::CudaEntry | Marker::CudaWeak
        ) && super::macro_defs::defines_keyword_at(prefix, m.start())
        {
            return true;
        }
        marker == Marker::Arm
            && text.ends_with("_t")
            && (seen.contains(&Marker::Arm) || own_types.defines(prefix, text))
    }

    /// The markers' texts, in the order of their indices.
    pub(super) fn patterns(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.markers.iter().map(|(_, text)| *text)
    }

    fn seen_in(&self, prefix: &[u8], found: impl Iterator<Item = Match>) -> Seen {
        let mut seen: Vec<Marker> = Vec::new();
        let mut includes = Vec::new();
        let (mut weak, mut args) = (0, 0);
        let mut entry = false;
        let mut builtin = false;
        let mut own_types = OwnTypes::default();
        for m in found {
            if self.is_mention(prefix, &m, &seen, &mut own_types) {
                continue;
            }
            let mut marker = self.markers[m.pattern().as_usize()].0;
            match marker {
                Marker::CudaEntry => {
                    if !entry {
                        seen.push(Marker::CudaEntry);
                    }
                    entry = true;
                    marker = Marker::CudaDevice;
                }
                Marker::CudaDevice if !builtin => {
                    builtin = true;
                    seen.push(Marker::CudaBuiltin);
                }
                Marker::CkOps => {
                    entry = true;
                    marker = Marker::AmdDevice;
                }
                _ => {}
            }
            if marker == Marker::IncludeQuote {
                includes.push(m.end());
                continue;
            }
            // One argument set is a runtime helper's (a buffer cleared);
            // a launcher binds a kernel's arguments, one after another.
            if marker == Marker::KernelArg {
                args += 1;
                if args < 2 {
                    continue;
                }
            }
            if marker == Marker::CudaWeak {
                weak += 1;
                if weak < 3 {
                    continue;
                }
                if !seen.contains(&Marker::CudaDevice) {
                    seen.push(Marker::CudaDevice);
                }
                continue;
            }
            if !seen.contains(&marker) {
                seen.push(marker);
            }
        }
        Seen {
            markers: seen,
            includes,
            entry,
        }
    }
}

/// The vector types a file defines itself, each looked up once per file
/// (a NEON kernel names its types hundreds of times; none is looked up
/// once the file is known to be Arm code).
#[derive(Default)]
struct OwnTypes(Vec<(&'static str, bool)>);

impl OwnTypes {
    fn defines(&mut self, prefix: &[u8], name: &'static str) -> bool {
        if let Some(&(_, own)) = self.0.iter().find(|(t, _)| *t == name) {
            return own;
        }
        let own = defines_type(prefix, name);
        self.0.push((name, own));
        own
    }
}

/// Whether the prefix defines the type `name` itself: `using name =`, or
/// a `typedef` statement that declares it last (`… name;`, `… name
/// __attribute__((…));`), not one that aliases it (`typedef name v;`).
fn defines_type(prefix: &[u8], name: &str) -> bool {
    let name = name.as_bytes();
    memchr::memmem::find_iter(prefix, name).any(|at| {
        let before = prefix[..at].trim_ascii_end();
        let after = prefix[at + name.len()..].trim_ascii_start();
        if before.ends_with(b"using") && after.starts_with(b"=") {
            return true;
        }
        if !after.starts_with(b";") && !after.starts_with(b"__attribute__") {
            return false;
        }
        let statement = before
            .iter()
            .rposition(|&b| b == b';' || b == b'{' || b == b'}')
            .map_or(before, |i| &before[i + 1..]);
        statement.trim_ascii_start().starts_with(b"typedef")
    })
}

/// The markers found in a prefix, and where each `#include "` ends.
struct Seen {
    markers: Vec<Marker>,
    includes: Vec<usize>,
    /// A `__global__` (folded into [`Marker::CudaDevice`] in `markers`).
    entry: bool,
}

/// What [`Detector::scan`] found in one file.
#[derive(Debug, Default)]
pub struct Scanned {
    pub kind: Option<Kind>,
    /// A Python module that imports a kernel DSL (CuTe DSL, FlyDSL) but
    /// defines no kernel and calls no device intrinsic (a layout helper, a
    /// host wrapper, a compile cache): the kind it takes if its directory
    /// adopts it, as a plain header is. For a header that includes one
    /// ISA's intrinsics header and uses no marked intrinsic (libwebp's
    /// `neon.h`, all `vtrnq_s32` and `int32x4x4_t`), that ISA's kind: a
    /// directory of CPU SIMD kernels adopts it as its own ISA's code, not
    /// as its majority's.
    pub plain_dsl: Option<Kind>,
    /// What it includes from its own directory (see `includes_at`): a
    /// kernel's parts, or, for a host source file, what it shares with the
    /// host.
    pub includes: Vec<String>,
    /// It launches a kernel (`hipLaunchKernelGGL(k, …)`, `k<<<g, b>>>(…)`)
    /// or explicitly instantiates a template (`template void f<…>(…);`).
    pub launches: bool,
    /// It defines a kernel entry (`__global__`), launches or instantiates
    /// one, or builds a library's (CUTLASS / CuTe, Composable Kernel's GPU
    /// operations): a header of `__device__` helpers alone (a tensor
    /// accessor, a functor) does not, and a unit that reaches only such
    /// headers builds no kernel (see `host_units`).
    pub entry: bool,
    /// It binds an OpenCL kernel's arguments (two or more `setArg(` /
    /// `clSetKernelArg(` calls): a host source that launches the
    /// repository's OpenCL kernels, which it builds by name and never
    /// includes (see `siblings::adopt_opencl_launchers`).
    pub sets_kernel_args: bool,
    /// Its prefix holds any marker at all: a `.cu` with none is a kernel
    /// by extension only (see `host_units`).
    pub marked: bool,
}

/// The CPU SIMD kind a header's intrinsics include names: an `#include`
/// directive of one ISA's header only (`<arm_neon.h>`, `<immintrin.h>`),
/// in a header with no `#else` / `#elif` branch. A mention in a comment
/// says nothing; a header that includes `<immintrin.h>` for x86 and has
/// a branch for other targets is not one ISA's code.
fn isa_included(prefix: &[u8], markers: &[Marker]) -> Option<Kind> {
    let kind = match (
        markers.contains(&Marker::X86Include),
        markers.contains(&Marker::ArmInclude),
    ) {
        (true, false) => Kind::SimdX86,
        (false, true) => Kind::SimdArm,
        _ => return None,
    };
    let wanted = if kind == Kind::SimdX86 {
        Marker::X86Include
    } else {
        Marker::ArmInclude
    };
    let headers: Vec<&str> = MARKERS
        .iter()
        .filter(|(m, _)| *m == wanted)
        .map(|(_, text)| *text)
        .collect();
    let mut included = false;
    for line in prefix.split(|&b| b == b'\n') {
        let Some(directive) = preprocessor_directive(line) else {
            continue;
        };
        if directive.starts_with(b"else") || directive.starts_with(b"elif") {
            return None;
        }
        included |= directive.starts_with(b"include")
            && headers
                .iter()
                .any(|h| memchr::memmem::find(directive, h.as_bytes()).is_some());
    }
    included.then_some(kind)
}

/// A C preprocessor line's directive, from its name on (`include <…>`
/// for `  #  include <…>`); None for any other line.
pub(super) fn preprocessor_directive(line: &[u8]) -> Option<&[u8]> {
    let line = line.trim_ascii_start().strip_prefix(b"#")?;
    Some(line.trim_ascii_start())
}

/// Split a name into lowercase tokens at `_ - . space` and at a change from
/// lower case (or digit) to upper case: `fattn-mma_f16` → fattn, mma, f16;
/// `FlashAttention` → flash, attention; a rank's `D` stays on its number
/// (`JACOBI_2D` → jacobi, 2d).
pub fn tokens(name: &str) -> Vec<String> {
    let mut raw = Vec::new();
    split_tokens(name, &mut raw);
    let mut out = Vec::with_capacity(raw.len());
    for token in raw {
        match dtype_prefix_len(&token) {
            Some(at) => {
                out.push(token[..at].to_owned());
                out.push(token[at..].to_owned());
            }
            None => out.push(token),
        }
    }
    out
}

/// Element types written glued to the word they qualify (QNNPACK's
/// `q8gemm/`, `u8maxpool/`, `x8zip/`): the type and the word are two tokens.
pub(super) const DTYPE_PREFIXES: &[&str] = &[
    "bf16", "fp16", "fp32", "fp8", "f16", "f32", "f64", "int4", "int8", "q4", "q8", "u8", "s8",
    "i8", "x8", "u16", "s16", "x16", "u32", "s32", "x32",
];

/// Where `q8gemm` splits into `q8`, `gemm`; a type followed by fewer than
/// three letters (`q8k`, `f16x2`) or by nothing stays one token.
fn dtype_prefix_len(token: &str) -> Option<usize> {
    DTYPE_PREFIXES.iter().find_map(|prefix| {
        let rest = token.strip_prefix(prefix)?;
        (rest.len() >= 3 && rest.bytes().all(|b| b.is_ascii_lowercase())).then_some(prefix.len())
    })
}

fn split_tokens(name: &str, out: &mut Vec<String>) {
    // Bytes: a non-ASCII character's bytes are separators, as the
    // character would be.
    let bytes = name.as_bytes();
    let mut cur = String::new();
    let mut prev_lower = false;
    let mut prev_upper = false;
    for (i, &c) in bytes.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            (prev_lower, prev_upper) = (false, false);
            continue;
        }
        let upper = c.is_ascii_uppercase();
        // `FlashAttention` → flash | attention; an acronym before a word
        // ends where the word's capital begins: `MNNGelu` → mnn | gelu,
        // `CPUBinary` → cpu | binary (`RMSNorm` → rms | norm).
        let next_lower = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        let acronym_ends = upper && prev_upper && next_lower && cur.len() > 1;
        // A rank written after its number stays on it: `Conv2D` → conv2d,
        // `JACOBI_2D` → jacobi | 2d, as their lower-case spellings read
        // (`Conv2DTranspose` → conv2d | transpose).
        let rank = c == b'D' && i > 0 && bytes[i - 1].is_ascii_digit() && !next_lower;
        if !cur.is_empty() && upper && (prev_lower || acronym_ends) && !rank {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        prev_upper = upper;
        cur.push(c.to_ascii_lowercase() as char);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_entry_is_a_global_a_launch_or_a_library_kernel() {
        let d = Detector::new();
        // Device helpers: device code, no entry.
        let helpers: &[u8] =
            b"__host__ __device__ int a();\n__host__ __device__ int b();\n__device__ int c();\n";
        let scanned = d.scan("gpu/utils/Tensor.cuh", helpers);
        assert_eq!((scanned.kind, scanned.entry), (Some(Kind::Cuda), false));
        assert!(d.scan("gpu/k.cuh", b"__global__ void k() {}").entry);
        assert!(d.scan("gpu/k.cu", b"void run() { k<<<1, 32>>>(); }").entry);
        assert!(
            d.scan("gpu/gemm.cuh", b"#include <cute/tensor.hpp>\n")
                .entry
        );
        assert!(
            d.scan(
                "csrc/a8w8.cuh",
                b"#include \"ck/tensor_operation/gpu/device/gemm.hpp\"\n"
            )
            .entry
        );
        // `#define LIB_KERNEL __global__` names the keyword: no entry here.
        assert!(
            !d.scan("gpu/macros.cuh", b"#define LIB_KERNEL __global__\n")
                .entry
        );
        // A thrust algorithm call marks the unit (no host code), but is no
        // entry for the files that include it.
        let thrust = d.scan(
            "ops/bias_add.cu",
            b"void f() { THRUST_CALL(thrust::transform, a, a + n, b, c, plus()); }",
        );
        assert!(thrust.marked && !thrust.entry);
        assert!(
            !d.scan("ops/iter.cu", b"thrust::transform_iterator<F, I> it;")
                .marked
        );
    }

    #[test]
    fn a_templates_language_is_the_extension_before_its_own() {
        assert_eq!(source_extension("jit/scan_kernel.cu.in"), Some("cu"));
        assert_eq!(source_extension("gen/gemm.cu.j2"), Some("cu"));
        assert_eq!(source_extension("tract/load_tile.j2"), None);
        assert_eq!(source_extension("src/k.cu"), Some("cu"));
        assert!(is_cuda_dialect("jit/scan_kernel.cu.in"));
        assert!(is_c_source("src/f32-vrnd/neon.c.in"));
    }

    #[test]
    fn shader_syntax_read_in_scripts_marks_no_other_file() {
        let d = Detector::new();
        // A host `.cu` whose comment shows GLSL's entry is still unmarked
        // host code; CUDA device code marks it.
        let host = d.scan(
            "src/launch.cu",
            b"// a shader's void main() runs per pixel\nint run(int n) { return n; }\n",
        );
        assert!(!host.marked);
        let device = d.scan(
            "src/k.cu",
            b"__global__ void k(float* x) { x[threadIdx.x] = 0; }\n",
        );
        assert!(device.marked);
    }

    #[test]
    fn inline_simd_assembly_in_c_is_that_isas_kernel() {
        let d = Detector::new();
        // Inline SIMD assembly in C (BLIS micro-kernels) and the macro
        // headers they use; plain C is not. SSE with 128-bit vector types,
        // ARMv7 NEON and RISC-V vector assembly, BLIS macro-assembly,
        // PeachPy, POWER10 MMA, AltiVec; a lone `_mm_pause` in host code
        // is none of them.
        let rvv: &[u8] =
            b"\tvsetvli t0, a0, e64, m4\n\tvle64.v v0, (a1)\n\tvfmacc.vf v8, ft0, v0\n";
        let cases: [(&str, &[u8], Option<Kind>); 104] = [
            // Armv7 NEON in armasm's capitals; a name that holds the
            // letters (NCCL's `NVLD144` NVLink domains) is no instruction.
            ("simd/arm/jsimd_neon.c", b"__asm__(\"VLD1.8 {d0, d1}, [r0]!\");\nvoid f(void) { for (;;) {} }\n", Some(Kind::SimdArm)),
            ("src/include/graph.h", b"// NVLink domains (e.g., NVLD144) with high bandwidth\nstruct ncclTopoGraph { int nChannels; };\n", None),
            // Tab-spaced AArch64 int8 assembly, ARMv7 int8 NEON and VFP
            // block moves (Tengine's GEMM, depthwise and im2col kernels).
            ("conv/armv8/i8gemm_4x4_a72_int8.S", b"\tsmull\tv16.8h, v0.8b, v4.8b\n\tsadalp\tv24.4s, v16.8h\n", Some(Kind::Asm)),
            ("conv/armv7/dw_k3s1_int8.S", b"\tvmull.s8\tq8, d0, d6\n\tvpadal.s16\tq12, q8\n", Some(Kind::Asm)),
            ("conv/armv7/im2col_fp32_1x1.S", b"\tvldm\tr6, {d0-d3}\n\tvstm\tr2!, {d0-d3}\n", Some(Kind::Asm)),
            // Cortex-M: Helium (MVE) and the Armv7E-M DSP SIMD instructions.
            ("Source/BasicMathFunctions/arm_elementwise_add_s8.c", b"mve_pred16_t p = vctp32q(n);\nint32x4_t a = vldrbq_z_s32(x, p);", Some(Kind::SimdArm)),
            ("Source/NNSupportFunctions/arm_nn_mat_mult_kernel_s8_s16.c", b"sum = __SMLAD(a, b, sum);", Some(Kind::SimdArm)),
            ("kernels/haswell/3/bli_gemmsup_rd_haswell_asm_d6x8m.c", b"void k(double* a) {\n  __asm__ volatile(\n    \"vfmadd231pd %%ymm0, %%ymm1, %%ymm2\\n\\t\"\n  );\n}\n", Some(Kind::SimdX86)),
            ("kernels/armsve/3/bli_gemm_armsve_asm_d2vx10.c", b"__asm__ volatile(\" fmla z0.d, p0/m, z1.d, z2.d \\n\");", Some(Kind::SimdArm)),
            // SVE whose operands are aligned apart from the mnemonic.
            ("kernels/armsve/3/bli_gemm_armsve_asm_s2vx10_unindexed.c", b"__asm__ volatile(\" whilelo         p0.s, x0, x1 \\n\t\");", Some(Kind::SimdArm)),
            ("frame/include/asm_macros.h", b"#define VFMADD231PD(a, b, c) INSTR_(vfmadd231pd, a, b, c)", Some(Kind::SimdX86)),
            // POWER VSX copies and IBM Z vector arithmetic in inline assembly.
            ("kernel/power/dcopy_microk_power8.c", b"__asm__(\n  \"lxvd2x 40, 0, %2 \\n\\t\"\n  \"stxvd2x 40, 0, %3 \\n\\t\"\n);", Some(Kind::SimdOther)),
            ("kernel/zarch/daxpy.c", b"__asm__(\"vlrepg %%v0,%3\\n\\t\"\n \"vfmadb %%v16,%%v0,%%v16,%%v20\\n\\t\");", Some(Kind::SimdOther)),
            ("jit/ppc_emitter.cc", b"void xxlxor(int t, int a, int b) { emit(60, t, a, b); }\nVSX_ADD_SUB(xvadddp, add, 2)\nstatic int vfadbg_mode;\n", None),
            ("src/util.c", b"int add(int a, int b) { return a + b; }", None),
            ("k/axpyv_penryn_int.c", b"__m128d y = _mm_load_pd(y1); y = _mm_add_pd(y, _mm_mul_pd(a, x));", Some(Kind::SimdX86)),
            ("k/spin.c", b"#include <immintrin.h>\nwhile (!f) _mm_pause();", None),
            ("k/sgemm_armv7a_asm_4x4.S", b".macro KERNEL\n\tvld1.32 {q0}, [r0]!\n\tvmla.f32 q8, q0, d2[0]\n", Some(Kind::Asm)),
            ("k/dgemm_rviv_asm_4vx4.S", rvv, Some(Kind::Asm)),
            ("k/rviv_utils.h", rvv, Some(Kind::SimdOther)),
            ("kai/matmul_sme2_mopa_asm.S", b"    ptrue p1.b\n    ld1h { z18.h }, p1/Z, [x27]\n", Some(Kind::Asm)),
            // AArch64 NEON written as `.inst` encodings, the instruction in
            // a comment, in assembly and in C inline assembly.
            ("kai/matmul_neon_i8mm_asm.S", b"    movi v27.4s, #0x0\n    KAI_ASM_INST(0x4e97a7a3)  // smmla v3.4s, v29.16b, v23.16b\n", Some(Kind::Asm)),
            ("kai/pack_bf16_neon.c", b"__asm__ __volatile__(\n  \"ld1 { v0.4s }, [x0]\\n\"\n  \".inst 0x0ea16aff  // bfcvtn v31.4h, v23.4s\\n\"\n);", Some(Kind::SimdArm)),
            // A Composable Kernel instance unit instantiates CK's device
            // kernels; a host file that names `ck` in a comment does not.
            ("src/contraction/device/contraction_bilinear_f32_instance.cpp", b"#include \"ck/ck.hpp\"\n#include \"ck/tensor_operation/gpu/device/device_contraction_multiple_d.hpp\"\n", Some(Kind::Hip)),
            ("src/host/launch.cpp", b"// dispatches to ck/tensor_operation kernels\n#include \"launch.hpp\"\n", None),
            // Ascend C: an NPU kernel entry is `__global__ __aicore__`, its
            // headers `__aicore__` functions over the `AscendC::` API; the
            // host's tiling code is neither.
            ("csrc/rope/op_kernel/rope.cpp", b"#include \"kernel_operator.h\"\nextern \"C\" __global__ __aicore__ void rope(GM_ADDR q, GM_ADDR cos) { RopeFp16 op; op.Process(); }\n", Some(Kind::AscendC)),
            ("csrc/rope/op_kernel/rope_fp16.h", b"class RopeFp16 {\npublic:\n    __aicore__ inline RopeFp16() : blockIdx_(AscendC::GetBlockIdx()) {}\n};\n", Some(Kind::AscendC)),
            ("csrc/rope/op_host/rope_tiling.cpp", b"#include \"register/op_def_registry.h\"\nstatic ge::graphStatus TilingFunc(gert::TilingContext* context) { return ge::GRAPH_SUCCESS; }\n", None),
            // A CK instance unit that includes only its directory's common
            // header registers its instances all the same.
            ("library/src/tensor_operation_instance/gpu/avg_pool2d_bwd/device_avg_pool2d_bwd_nhwc_f8_instance.cpp", b"#include \"device_avg_pool2d_bwd_nhwc_instance_common.hpp\"\nvoid add_device_avgpool_2D_bwd_nhwc_f8_instances(std::vector<std::unique_ptr<DeviceAvgPoolBwd<2, F8, F8, NHWC, NHWC>>>& instances)\n{\n    add_device_operation_instances(instances, device_avgpool_2D_bwd_nhwc_instances<F8, F8, F32>{});\n}\n", Some(Kind::Hip)),
            // Kernels held as strings and compiled at run time: MLX custom
            // Metal kernels in Python, Metal and CUDA C in Rust.
            ("mlx_vlm/models/bitnet/bitlinear.py", b"import mlx.core as mx\n\ndef make():\n    return mx.fast.metal_kernel(name=\"bitlinear\", input_names=[\"x\"], source=src)\n", Some(Kind::Metal)),
            // Metal Shading Language in a Python string: whole kernels,
            // or an MLX-style body handed to a wrapper by its thread
            // positions; a module that only launches them is not one.
            ("metal_marlin/kernels_core.py", b"_SRC = \"\"\"\n#include <metal_stdlib>\nkernel void gemm(device const half* a [[buffer(0)]], uint tid [[thread_position_in_grid]]) {}\n\"\"\"\n", Some(Kind::Metal)),
            ("backends/mlx/custom_kernel_ops/tq_norm.py", b"def _source():\n    return \"\"\"\n    uint row = thread_position_in_grid.y;\n    float s = simd_sum(x[row]);\n\"\"\"\nP.emit(MetalKernelNode(name=\"tq_norm\", source=_source()))\n", Some(Kind::Metal)),
            ("backends/mlx/ops.py", b"from .custom_kernel_ops.tq_norm import tq_norm\n\ndef run(x):\n    return tq_norm(x)\n", None),
            ("crates/luminal_metal/src/unary.rs", b"let code = \"#include <metal_stdlib>\\nkernel void mkernel(device float *inp [[buffer(0)]]) {}\";", Some(Kind::Metal)),
            ("crates/luminal_cuda/src/unary.rs", b"let code = \"extern \\\"C\\\" __global__ void k(float *x) { int i = blockIdx.x * blockDim.x + threadIdx.x; }\";", Some(Kind::Cuda)),
            ("crates/luminal/src/graph.rs", b"pub struct Graph { nodes: Vec<Node> }\n", None),
            // LoongArch LSX / LASX assembly (OpenBLAS, dav1d) and x86 SIMD
            // assembly over register macros (dav1d's x86inc `m0`,
            // libjpeg-turbo's `mmA`). Scalar assembly (OpenBLAS's Alpha /
            // POWER FPU kernels) is a kernel of its own kind when it holds
            // code (a probe such as `cpuid.asm` is left out later, by its
            // name); a data table does not.
            ("kernel/loongarch64/sdot_lsx.S", b"\tvld\t$vr0, X, 0\n\tvfmadd.s\t$vr2, $vr0, $vr1, $vr2\n", Some(Kind::Asm)),
            ("src/x86/ipred_sse.asm", b"    punpcklbw            m0, m1\n    pmaddwd              m0, m2\n", Some(Kind::Asm)),
            ("kernel/alpha/dot.S", b"#include \"common.h\"\n\t.set noat\n$L10:\n\tLD\t$f10, 0*SIZE(X)\n\tLD\t$f11, 0*SIZE(Y)\n\tMUL\t$f10, $f11, $f12\n\tADD\t$f0, $f12, $f0\n\tLD\t$f13, 1*SIZE(X)\n\tLD\t$f14, 1*SIZE(Y)\n\tMUL\t$f13, $f14, $f15\n\tADD\t$f1, $f15, $f1\n\tret\n", Some(Kind::AsmScalar)),
            ("src/x86/cpuid.asm", b"cglobal cpu_cpuid, 0, 5, 0\n    mov eax, r0d\n    cpuid\n    RET\n", Some(Kind::AsmScalar)),
            ("src/empty.S", b"/* nothing here */\n", None),
            ("crc/crc64_ecma_norm_by8.asm", b"%define FUNCTION_NAME crc64_ecma_norm_by8\n%include \"crc64_iso_norm_by8.asm\"\n", Some(Kind::AsmScalar)),
            ("library/src/sobol32_precomputed.S", b"/* tables */\n    .section .rodata\n    .global table\ntable:\n    .incbin \"sobol32.bin\"\n    .byte 0, 1, 2, 3\n    .long 4, 5, 6, 7\n    .quad 8\n    .quad 9\n", None),
            // `.in` templates are in the language before `.in`; a CMake
            // configure header with no kernel marker is not a kernel.
            ("src/f32-vrnd/neon.c.in", b"#include <arm_neon.h>\nvoid f(float* y) { vst1q_f32(y, vrndq_f32(vld1q_f32(y))); }\n", Some(Kind::SimdArm)),
            ("cpp/src/neighbors/detail/jit/interleaved_scan_kernel.cu.in", b"// generated per type\n", Some(Kind::Cuda)),
            ("include/config.h.in", b"#cmakedefine HAVE_AVX2 1\n", None),
            // JIT code generators emit the SIMD kernel at run time (oneDNN's
            // Xbyak / Xbyak_aarch64 generators); ATen's device loops take
            // a PyTorch XPU operator's functor (torch-xpu-ops, SYCL).
            ("src/cpu/x64/jit_uni_eltwise.cpp", b"struct jit_uni_kernel_t : public jit_generator {\n  void generate() override { vfmadd231ps(vmm_dst, vmm_src, vmm_alpha); }\n};\n", Some(Kind::SimdX86)),
            ("src/cpu/aarch64/jit_uni_softmax.hpp", b"#include \"xbyak_aarch64/xbyak_aarch64.h\"\nstruct k : public Xbyak_aarch64::CodeGenerator {};\n", Some(Kind::SimdArm)),
            ("src/ATen/native/xpu/sycl/AbsKernel.cpp", b"void abs_kernel(TensorIteratorBase& iter) {\n  gpu_kernel(iter, AbsFunctor<float>());\n}\n", Some(Kind::Sycl)),
            ("src/common/primitive.cpp", b"// the jit kernels live in cpu/x64\nint create_primitive();\n", None),
            // A loop handed to a device by a portability layer or a
            // directive (TeaLeaf's `src/kokkos/`, RAJAPerf's `-OMPTarget`
            // and miniBUDE's `acc/` variants) is a kernel; a data mapping
            // or a host thread loop is not.
            ("src/kokkos/cg.cpp", b"void cg_calc_w(Kokkos::View<double*> w) {\n  Kokkos::parallel_reduce(n, KOKKOS_LAMBDA(const int i, double& pw) { pw += w(i); }, pw);\n}\n", Some(Kind::Offload)),
            ("src/basic/DAXPY-OMPTarget.cpp", b"  #pragma omp target is_device_ptr(x, y) device( did )\n  #pragma omp teams distribute parallel for thread_limit(256)\n  for (Index_type i = 0; i < n; ++i) { y[i] += a * x[i]; }\n", Some(Kind::Offload)),
            ("src/acc/fasten.hpp", b"#pragma acc parallel loop gang worker\nfor (int i = 0; i < n; i++) { e[i] = 0.f; }\n", Some(Kind::Offload)),
            ("src/omp/diffuse_overload.cpp", b"#pragma omp target enter data map(to: u[:n])\nrun(u);\n#pragma omp target exit data map(from: u[:n])\n", None),
            ("src/io/load.cpp", b"#pragma omp parallel for\nfor (int i = 0; i < n; i++) { parse(lines[i]); }\n", None),
            // Asking the assembler's CPU helpers, or being the assembler
            // library itself, is no kernel.
            ("src/cpu/x64/cpu_isa_traits.cpp", b"#include \"xbyak/xbyak_util.h\"\nstatic Xbyak::util::Cpu cpu;\n", None),
            // Shader and SPMD languages known by their extension alone.
            ("backends/vulkan/runtime/graph/ops/glsl/indexing.glslh", b"#define IDX(x) x\n", Some(Kind::Vulkan)),
            ("sparse_strips/vello_hybrid/shaders/render_strips.wesl", b"import super::util;\n", Some(Kind::Wgsl)),
            ("src/neural/backends/blas/winograd_transform.ispc", b"export void f(uniform float x[]) {}\n", Some(Kind::SimdOther)),
            // A browser backend's kernels: WGSL or GLSL ES in TypeScript
            // strings. A script that only types its own vectors is no shader.
            ("tfjs-backend-webgpu/src/pad_webgpu.ts", b"getUserCode(): string {\n  return `fn main(index : i32) { let c = vec4<i32>(0); setOutputAtIndex(index, 0.0); }`;\n}\n", Some(Kind::Wgsl)),
            ("tfjs-backend-webgl/src/pad_gpu.ts", b"this.userCode = `\n  void main() {\n    ivec2 rc = getOutputCoords();\n    setOutput(getX(rc.x, rc.y));\n  }`;\n", Some(Kind::Webgl)),
            ("src/render/shaders.js", b"const FS = `precision highp float;\nuniform sampler2D tex;\nvoid main() { gl_FragColor = texture2D(tex, uv); }`;\n", Some(Kind::Webgl)),
            ("src/math/vector.ts", b"export class Vec4<T extends number> { constructor(public x: T) {} }\nconst v: Array<number> = [];\n", None),
            ("dist/tf-backend-webgpu.min.js", b"var a=`fn main(){let v=vec4<f32>(0.0);workgroupBarrier();}`;\n", None),
            // A C comment naming an MMX instruction is no SIMD kernel.
            ("src/scale_c.c", b"/* like pmulhw, but scalar */\nint scale(int a, int b) { return (a * b) >> 16; }\n", None),
            // CubeCL: `#[cube]` code is a kernel; a file that only uses
            // cubecl to launch or tune one is host code.
            ("crates/burn-cubecl/src/kernel/clamp.rs", b"use cubecl::prelude::*;\n\n#[cube(launch)]\nfn clamp_kernel<F: Float>(input: &Tensor<F>) {}\n", Some(Kind::GpuDsl)),
            ("crates/burn-cubecl/src/kernel/utils.rs", b"use cubecl::prelude::*;\n\n#[cube]\npub fn index_offset(i: u32) -> u32 { i }\n", Some(Kind::GpuDsl)),
            ("crates/burn-cubecl/src/ops/tensor.rs", b"use cubecl::prelude::*;\n\npub fn clamp(t: Tensor) -> Tensor { launch(t) }\n", None),
            // cuTile Rust: the `#[cutile::module]` holds the kernels; the
            // launcher that only uses the crate (and names the attribute
            // in a comment) is host code.
            ("ops/cutile_rs/matmul_kernel/kernel.rs", b"#[cutile::module]\npub mod matmul_module {\n    use cutile::core::*;\n    #[cutile::entry()]\n    pub unsafe fn matmul_kernel() {}\n}\n", Some(Kind::Cutile)),
            ("ops/cutile_rs/matmul_kernel/ffi.rs", b"// generics order (from the kernels' #[cutile::entry]):\nuse cutile::prelude::*;\nuse cutile::tile_kernel::TileKernel;\npub fn launch() {}\n", None),
            // Espressif SIMD: ESP32-S3 assembly, ESP32-P4 inline assembly.
            ("src/basic_math/esp_nn_add_s8_esp32s3.S", b"    ee.vld.128.ip q0, a2, 16\n    ee.vadds.s16 q2, q0, q1\n", Some(Kind::Asm)),
            ("src/pooling/max_pool_s8_esp32p4.c", b"asm volatile (\n  \"esp.vld.128.ip q0, x30, 16 \\n\\t\"\n);", Some(Kind::SimdOther)),
            ("layer/mips/absval_mips.cpp", b"#include <msa.h>\nv4f32 _p = (v4f32)__msa_ld_w(ptr, 0);", Some(Kind::SimdOther)),
            ("fixedpoint/fixedpoint_neon.h", b"inline int32x4_t ShiftLeft(int32x4_t a, int offset) {", Some(Kind::SimdArm)),
            // Taichi kernels and functions in a Python script.
            ("examples/diffmpm.py", b"import taichi as ti\n\n@ti.kernel\ndef p2g(f: ti.i32):\n    pass\n", Some(Kind::GpuDsl)),
            ("engine/solvers/mpm.py", b"import quadrants as qd\n\n@qd.kernel\ndef p2g(f: qd.i32):\n    pass\n", Some(Kind::GpuDsl)),
            // A Warp kernel written as a plain function for a factory.
            ("ext/warp_kernels/norm3.py", b"import warp as wp\n\ndef make(dtype):\n    def fwd(x: wp.array(dtype=dtype)):\n        i = wp.tid()\n        x[i] = x[i] * x[i]\n    return wp.Kernel(fwd)\n", Some(Kind::GpuDsl)),
            // Numba's CPU loops, in a module that imports Numba; its CUDA
            // kernels stay a GPU DSL's, and a bare `@jit` without Numba is
            // another library's (JAX, Triton).
            ("src/stats/norm.py", b"import numba as nb\n\n@nb.njit(cache=True)\ndef cdf(x):\n    return x\n", Some(Kind::Numba)),
            ("numbagg/funcs.py", b"from numba import guvectorize\n\n@guvectorize([\"void(float64[:], float64[:])\"], \"(n)->()\")\ndef nansum(a, out):\n    pass\n", Some(Kind::Numba)),
            ("stumpy/gpu_stump.py", b"from numba import cuda, njit\n\n@cuda.jit\ndef k(a):\n    pass\n\n@njit\ndef h(a):\n    pass\n", Some(Kind::GpuDsl)),
            ("lib/jax_ops.py", b"from jax import jit\n\n@jit\ndef f(x):\n    return x\n", None),
            // `numbagg` / `numba_stats` are other packages than Numba.
            ("src/a.py", b"import numbagg\nfrom jax import jit\n\n@jit(static_argnums=0)\ndef f(n, x):\n    pass\n", None),
            // Warp's thread index named in a comment of a launcher.
            ("src/launch.py", b"import warp as wp\n# each kernel calls wp.tid() for its index\nwp.launch(k, dim=n)\n", None),
            // A GPU header's own vector types named as NEON's are not Arm.
            ("csrc/core/base.h", b"#include <hip/hip_runtime.h>\nusing int32x4_t = __attribute__((__vector_size__(4 * sizeof(int)))) int;\n__device__ int32x4_t load(const int32x4_t* p) { return *p; }\n", None),
            ("include/vec.h", b"typedef int int32x4_t __attribute__((ext_vector_type(4)));\nint32x4_t add(int32x4_t a, int32x4_t b) { return a + b; }\n", None),
            ("neon/alias.h", b"typedef int32x4_t v4i;\nv4i add(v4i a, v4i b) { return vaddq_s32(a, b); }\n", Some(Kind::SimdArm)),
            // LoongArch LASX borrows x86's vector type names.
            ("layer/loongarch/absval_loongarch.cpp", b"__m256i _p = __lasx_xvld(ptr, 0);", Some(Kind::SimdOther)),
            ("src/x86/sum.c", b"__m256 acc = load(p);", Some(Kind::SimdX86)),
            ("k/packm_haswell_asm_d6x8.c", b"begin_asm()\n\tmovaps(mem(rax, -8*16), xmm0)\n\tend_asm(", Some(Kind::SimdX86)),
            ("src/x86_64-fma/blas/sgemm.py", b"with Function(\"nnp_sgemm__fma3\", args):\n    LOAD.ARGUMENT(reg_k, arg_k)\n    ymm = YMMRegister()\n", Some(Kind::SimdX86)),
            ("k/dgemm_power10_mma.c", b"__builtin_mma_xvf64gerpp(&acc0, colA_1, rb[0]);", Some(Kind::SimdOther)),
            ("k/axpyv_power_int.c", b"vector double z = vec_madd(alphav, xv, yv);", Some(Kind::SimdOther)),
            ("src/psimd/blas/sgemm.c", b"#include <psimd.h>\npsimd_f32 va = psimd_load_f32(a);", Some(Kind::SimdOther)),
            ("hwy/contrib/dot-inl.h", b"#include \"hwy/highway.h\"\nnamespace HWY_NAMESPACE {", Some(Kind::SimdOther)),
            // PyTorch-style CPU kernels: ATen's vector class, and a body
            // built once per ISA (`CPU_CAPABILITY_AVX512`).
            ("csrc/cpu/aten/kernels/CumsumKrnl.cpp", b"using Vec = at::vec::Vectorized<scalar_t>;\nVec::loadu(src).store(dst);", Some(Kind::SimdOther)),
            ("csrc/cpu/aten/kernels/RMSNormKrnl.cpp", b"#if defined(CPU_CAPABILITY_AVX512)\ntemplate <typename T>\nvoid RMSNormKernelImpl() {}", Some(Kind::SimdX86)),
            // CUDA C in CuPy's kernel constructors, in Python and Cython;
            // a Python file that only calls CuPy is host code.
            ("cupyx/scipy/special/_gamma.py", b"import cupy\ngamma = cupy._core.create_ufunc(\n    'cupyx_scipy_gamma', ('f->f',), 'out0 = tgamma(in0)')\n", Some(Kind::Cuda)),
            ("cupy/_core/_routines_math.pyx", b"cdef _cumsum_kern = _core.ElementwiseKernel(\n    'T x', 'T y', 'y = x', 'cupy_cumsum')\n", Some(Kind::Cuda)),
            ("cupyx/signal/_peak.py", b"import cupy as cp\n_k = cp.RawKernel(r'__global__ void k(float* x) {}', 'k')\n", Some(Kind::Cuda)),
            ("cupyx/linalg/_solve.py", b"import cupy\ndef solve(a, b):\n    return cupy.linalg.solve(a, b)\n", None),
            // Helion's tile DSL.
            ("kernels/softmax.py", b"import helion\nimport helion.language as hl\n\n@helion.kernel()\ndef softmax(x):\n    for tile_n in hl.tile(n):\n        pass\n", Some(Kind::GpuDsl)),
            // Shader and SIMD languages known by their files: OpenGL ES
            // fragment / vertex shaders, ORC programs.
            ("framework/Source/Operations/Shaders/Sepia_GLES.fsh", b"varying highp vec2 textureCoordinate;\nvoid main() { gl_FragColor = vec4(1.0); }\n", Some(Kind::Gles)),
            ("framework/Source/Operations/Shaders/OneInput.vsh", b"attribute vec4 position;\nvoid main() { gl_Position = position; }\n", Some(Kind::Gles)),
            ("kernels/volk/volk_16ic_x2_dot_prod_16ic_neon.orc", b".function volk_16ic_x2_dot_prod_16ic_orc_impl\n.dest 4 d\nmuls d, s1, s2\n", Some(Kind::SimdOther)),
        ];
        for (path, content, kind) in cases {
            assert_eq!(d.detect(path, content), kind, "{path}");
        }
    }

    #[test]
    fn a_cute_dsl_import_alone_is_no_kernel_but_device_intrinsics_are() {
        let d = Detector::new();
        let host = b"import cutlass.cute as cute\n\ndef compile_gemm(a: cute.Tensor):\n    return cute.compile(f, a)\n";
        assert_eq!(d.detect("quack/compile_utils.py", host), None);
        assert_eq!(
            d.scan("quack/compile_utils.py", host).plain_dsl,
            Some(Kind::CuteDsl)
        );
        let device = b"import cutlass.cute as cute\n\ndef pexp(v):\n    return cute.arch.exp_packed_f32x2(v)\n";
        assert_eq!(
            d.detect("quack/epilogue/math.py", device),
            Some(Kind::CuteDsl)
        );
        let kernel = b"from cutlass import cute\n\n@cute.kernel\ndef k():\n    pass\n";
        assert_eq!(d.detect("quack/rmsnorm.py", kernel), Some(Kind::CuteDsl));
        assert_eq!(d.scan("quack/README.md", host).plain_dsl, None);
        let fly = b"import flydsl.compiler as flyc\n\n@flyc.kernel(known_block_size=[256, 1, 1])\ndef attn():\n    pass\n";
        assert_eq!(
            d.detect("aiter/ops/flydsl/kernels/attn.py", fly),
            Some(Kind::GpuDsl)
        );
        let mgpu = b"from jax.experimental.pallas import mosaic_gpu as plgpu\n\ndef matmul(a, b):\n  f = plgpu.kernel(body, out_shape=a)\n  return f(a, b)\n";
        assert_eq!(
            d.detect("pallas/ops/gpu/hopper_matmul_mgpu.py", mgpu),
            Some(Kind::GpuDsl)
        );
        // A Pallas kernel body whose `pallas_call` is past the prefix (or in
        // another module), and a wrapper that only builds block specs.
        let body = b"from jax.experimental import pallas as pl\n\ndef gmm_body(x_ref, o_ref):\n  i = pl.program_id(0)\n  o_ref[...] = x_ref[...]\n";
        assert_eq!(
            d.detect("kernels/megablox/gmm_kernel.py", body),
            Some(Kind::GpuDsl)
        );
        let dma = b"from jax.experimental.pallas import tpu as pltpu\n\ndef fetch(src, dst, sem):\n  pltpu.make_async_copy(src, dst, sem).start()\n";
        assert_eq!(d.detect("kernels/rpa/bref.py", dma), Some(Kind::GpuDsl));
        let specs = b"from jax.experimental import pallas as pl\n\ndef specs(b):\n  return [pl.BlockSpec((b, 128), lambda i: (i, 0))]\n";
        assert_eq!(d.detect("kernels/megablox/specs.py", specs), None);
        let warp = b"import warp as wp\n\n@wp.kernel\ndef add(a: wp.array(dtype=float), b: wp.array(dtype=float)):\n    tid = wp.tid()\n    b[tid] = a[tid] + 1.0\n";
        assert_eq!(d.detect("warp/fem/integrate.py", warp), Some(Kind::GpuDsl));
        let warp_user = b"import warp as wp\n\ndef run(k, n):\n    wp.launch(k, dim=n)\n";
        assert_eq!(d.detect("sim/runner.py", warp_user), None);
        let impl_call = b"def run(self, x):\n    return self.impl.kernel(x)\n";
        assert_eq!(d.detect("models/runner.py", impl_call), None);
        let fly_helper = b"from flydsl.expr import arith\n\ndef buffer_load(x):\n    return x\n";
        assert_eq!(
            d.scan("kernels/buffer_ops.py", fly_helper).plain_dsl,
            Some(Kind::GpuDsl)
        );
    }

    #[test]
    fn a_kernels_parts_are_the_files_of_its_directory_it_includes() {
        let d = Detector::new();
        let parts = |path: &str, src: &[u8]| d.scan(path, src).includes;
        let src = b"#include \"blis.h\"\n#include <immintrin.h>\n#include \"armsve_asm_macros_double.h\"\n#include \"./kernel.h\"\n#include \"../common/utils.h\"\n#include \"sub/x.h\"\nvoid k(double* a) { __m256d x = _mm256_loadu_pd(a); }\n";
        assert_eq!(
            parts("kernels/armsve/3/gemm_d2vx10.c", src),
            [
                "kernels/armsve/3/blis.h",
                "kernels/armsve/3/armsve_asm_macros_double.h",
                "kernels/armsve/3/kernel.h",
            ]
        );
        assert_eq!(parts("top.cu", b"#include \"a.cuh\""), ["a.cuh"]);
        // A host source's includes are what it shares with the host; a
        // plain header has none that count.
        let host = d.scan("k/util.c", b"#include \"a.h\"\nint f();");
        assert_eq!((host.kind, host.includes), (None, vec!["k/a.h".to_owned()]));
        assert!(parts("k/util.h", b"#include \"a.h\"\nint f();").is_empty());
        assert!(parts("k/attn.py", b"#include \"a.h\"\n@triton.jit").is_empty());
        // A Swift extension's base type is part of the same kernel.
        let metal = b"let source = \"kernel void k() {}\"";
        assert_eq!(
            parts("Sources/GEMM/GEMMKernel+Source.swift", metal),
            ["Sources/GEMM/GEMMKernel.swift"]
        );
        assert!(parts("Sources/GEMM/GEMMKernel.swift", metal).is_empty());
    }

    #[test]
    fn extensions_and_content_decide_the_kind() {
        let d = Detector::new();
        assert_eq!(
            d.detect("k/attn.cu", b"__global__ void f() {}"),
            Some(Kind::Cuda)
        );
        assert_eq!(
            d.detect("k/gemm.cuh", b"#include <cute/tensor.hpp>"),
            Some(Kind::Cutlass)
        );
        assert_eq!(
            d.detect("k/gemm.h", b"#include \"cutlass/gemm/gemm.h\""),
            Some(Kind::Cutlass)
        );
        assert_eq!(d.detect("k/util.h", b"int add(int a, int b);"), None);
        // An include for one `_mm_pause()` in host code is not a kernel.
        assert_eq!(
            d.detect(
                "k/host.cpp",
                b"#include <immintrin.h>\nvoid spin() { _mm_pause(); }"
            ),
            None
        );
        assert_eq!(
            d.detect(
                "k/q.c",
                // Split so this file itself does not read as x86 SIMD.
                concat!(
                    "#include <immintrin.h>\n__m2",
                    "56 x = _mm2",
                    "56_setzero_ps();"
                )
                .as_bytes()
            ),
            Some(Kind::SimdX86)
        );
        assert_eq!(
            d.detect(
                "k/q.c",
                concat!("float32", "x4_t v = vld1q", "_f32(p);").as_bytes()
            ),
            Some(Kind::SimdArm)
        );
        assert_eq!(
            d.detect(
                "k/avx.rs",
                concat!("use std::arch::x86", "_64::*;").as_bytes()
            ),
            Some(Kind::SimdX86)
        );
        assert_eq!(d.detect("k/lib.rs", b"fn main() {}"), None);
        // WGSL written inside Rust (ratchet's `wgsl! { … }` op bodies) is
        // the kernel; loading a shader file is host code.
        assert_eq!(
            d.detect(
                "ops/softmax.rs",
                b"builder.write_main(wgsl! {\n    workgroupBarrier();\n});"
            ),
            Some(Kind::Wgsl)
        );
        assert_eq!(
            d.detect(
                "gpu/pipeline.rs",
                b"let m = device.create_shader_module(include_wgsl!(\"k.wgsl\"));"
            ),
            None
        );
        assert_eq!(
            d.detect("k/k.py", b"import triton\n@triton.jit\ndef k(): pass"),
            Some(Kind::Triton)
        );
        assert_eq!(
            d.detect("k/bench.py", b"import triton\ntriton.testing.do_bench(f)"),
            None
        );
        assert_eq!(
            d.detect(
                "k/dot_amd64.s",
                b"#include \"textflag.h\"\nTEXT \xc2\xb7dot(SB)"
            ),
            Some(Kind::Asm)
        );
        // AMD GPU assembly (MIOpen's generated implicit-GEMM kernels) and
        // the `.inc` bodies it includes.
        assert_eq!(
            d.detect(
                "kernels/igemm_fwd_gtc.s",
                b"    v_fma_f32 v[0], v[1], v[2], v[0]\n    s_waitcnt vmcnt(0)\n"
            ),
            Some(Kind::Asm)
        );
        assert_eq!(
            d.detect(
                "kernels/conv_body.inc",
                b"    buffer_load_dword v[4], v[2], s[8:11], 0 offen\n"
            ),
            Some(Kind::Hip)
        );
        // OpenCL C written as C++ string literals (MIVisionX's nodes): an
        // entry and a work-item builtin; a host file that only names the
        // API is not one.
        assert_eq!(
            d.detect(
                "nodes/alpha_blend.cpp",
                b"const char* src = \"__kernel void k(__global float* a) {\\n  a[get_global_id(0)] = 0;\\n}\";"
            ),
            Some(Kind::Opencl)
        );
        assert_eq!(
            d.detect(
                "host/queue.cpp",
                b"clEnqueueNDRangeKernel(q, k, 1, 0, &n, 0, 0, 0, 0);"
            ),
            None
        );
        assert_eq!(d.detect("k/x.cl", b"(defun f ())"), None);
        // CUDA C in a Python string, compiled at run time (gprMax's
        // PyCUDA `SourceModule` of a `string.Template`): an entry and a
        // body. A docstring that names `__global__` is no kernel.
        assert_eq!(
            d.detect(
                "gprMax/fields_updates_gpu.py",
                b"from string import Template\nk = Template(\"\"\"\n__global__ void update_e(int n, $REAL *ex) {\n    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n    if (idx < n) ex[idx] = 0;\n}\n\"\"\")\n"
            ),
            Some(Kind::Cuda)
        );
        assert_eq!(
            d.detect(
                "docs/explain.py",
                b"def f():\n    \"\"\"Like a CUDA __global__ function, but in Python.\"\"\"\n"
            ),
            None
        );
        // A `.cl` library of device functions and tables, no entry: its
        // address spaces say OpenCL C (BitCrack's `clMath/sha256.cl`).
        assert_eq!(
            d.detect(
                "clMath/sha256.cl",
                b"__constant unsigned int _K[2] = { 0x428a2f98, 0x71374491 };\nvoid sha256(const unsigned int* x, unsigned int* d) {}\n"
            ),
            Some(Kind::Opencl)
        );
        // A CUDA kernel's `__global__` is not OpenCL's `__global`.
        assert_eq!(d.detect("k/y.cl", b"__global__ void f() {}"), None);
        assert_eq!(
            d.detect("k/x.cl", b"__kernel void add()"),
            Some(Kind::Opencl)
        );
        // GLSL that draws (a tessellation or vertex stage) is no kernel;
        // a compute shader is, whatever else it mentions.
        assert_eq!(
            d.detect(
                "osd/glslPatchBSpline.glsl",
                b"layout(vertices = 16) out;\nvoid main() { gl_TessLevelOuter[0] = 1.0; }\n"
            ),
            None
        );
        // A fragment or vertex stage says so by its file-scope inputs and
        // outputs, which no compute shader has (a viewer's `.f.glsl`).
        assert_eq!(
            d.detect(
                "ui/shaders/points.f.glsl",
                b"#version 150\n\nin vec4 v_color;\nout vec4 f_color;\n\nvoid main(void) {\n  f_color = v_color;\n}\n"
            ),
            None
        );
        assert_eq!(
            d.detect(
                "ui/shaders/lines.v.glsl",
                b"uniform mat4 m;\nlayout(location = 0) in vec3 a_pos;\nflat out vec4 v_pos;\nvoid main(void) { v_pos = m * vec4(a_pos, 1); }\n"
            ),
            None
        );
        assert_eq!(
            d.detect(
                "gles/mesh.frag.glsl",
                b"varying vec4 c;\nvoid main() { gl_FragColor = c; }\n"
            ),
            None
        );
        // A vertex stage named as a kernel computes by transform feedback.
        assert_eq!(
            d.detect(
                "osd/glslXFBKernel.glsl",
                b"out float outVertexBuffer[LENGTH];\nlayout (location = 0) in ivec3 patchHandles;\nvoid main() {}\n"
            ),
            Some(Kind::Vulkan)
        );
        // A function's `in` parameters are not the stage's interface.
        assert_eq!(
            d.detect(
                "k/shade.comp",
                b"layout(local_size_x = 64) in;\nfloat f(\n    in float x,\n    in float y) { return x; }\nvoid main() {}\n"
            ),
            Some(Kind::Vulkan)
        );
        assert_eq!(
            d.detect(
                "k/helpers.glsl",
                b"float lerp(in float a, in float b, in float t) { return mix(a, b, t); }\n"
            ),
            Some(Kind::Vulkan)
        );
        assert_eq!(
            d.detect(
                "osd/glslComputeKernel.glsl",
                b"layout(local_size_x = 64) in;\nvoid main() { uint i = gl_GlobalInvocationID.x; }\n"
            ),
            Some(Kind::Vulkan)
        );
        assert_eq!(
            d.detect(
                "ops/glsl/draw_debug.glsl",
                b"layout(local_size_x = 8) in;\n// writes gl_Position-like coordinates\n"
            ),
            Some(Kind::Vulkan)
        );
        assert_eq!(
            d.detect(
                "k/x.cpp",
                b"#include <sycl/sycl.hpp>\nq.submit([&](sycl::handler& h) { h.parallel_for(n, [=](sycl::item<1> i) {}); });"
            ),
            Some(Kind::Sycl)
        );
        // The header and a queue are what host code holds too (Open Image
        // Denoise's API takes the user's `sycl::queue`).
        assert_eq!(
            d.detect(
                "api/api.cpp",
                b"#include <sycl/sycl.hpp>\nOIDNDevice oidnNewSYCLDevice(const sycl::queue* queues, int n);"
            ),
            None
        );
        assert_eq!(
            d.detect(
                "k/x.cpp",
                b"#include <hip/hip_runtime.h>\n__global__ void k()"
            ),
            Some(Kind::Hip)
        );
        assert_eq!(d.detect("k/x.metal", b""), Some(Kind::Metal));
        // HLSL compute shaders and the headers they include.
        assert_eq!(
            d.detect(
                "backends/dx/shaders/Gemm.hlsl",
                b"[numthreads(8, 8, 1)]\nvoid MatMul(uint3 tid : SV_DispatchThreadID) {}"
            ),
            Some(Kind::Hlsl)
        );
        assert_eq!(d.detect("shaders/inc/math.hlsli", b""), Some(Kind::Hlsl));
        assert_eq!(d.detect("README.md", b"__global__"), None);
        assert_eq!(
            d.detect(
                "src/markers.rs",
                br#"const M: [&str; 2] = ["_mm256_", "vld1q_"];"#
            ),
            None
        );
        assert_eq!(
            d.detect("include/api.h", b"__host__ __device__ void unused();"),
            None
        );
        assert_eq!(
            d.detect(
                "k/math.h",
                b"__device__ a(); __device__ b(); __device__ c();"
            ),
            Some(Kind::Cuda)
        );
        // One extended device lambda is device code: the operator a
        // header-only graph library hands to its advance / filter launch.
        assert_eq!(
            d.detect(
                "include/gunrock/algorithms/bfs.hxx",
                b"auto search = [distances] __host__ __device__(vertex_t const& v) -> bool {\n  return distances[v] == 0;\n};"
            ),
            Some(Kind::Cuda)
        );
        assert_eq!(
            d.detect(
                "include/ops/fill.hpp",
                b"thrust::for_each(begin, end, [=] __device__ (int i) { out[i] = 0; });"
            ),
            Some(Kind::Cuda)
        );
        // A HIP library behind its own device macro still calls the AMD
        // GPU builtins (rocWMMA's MFMA wrappers, DPP lane shuffles).
        assert_eq!(
            d.detect(
                "library/include/rocwmma/internal/mfma_impl.hpp",
                b"ROCWMMA_DEVICE static inline auto exec(A a, B b, C c) {\n  return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);\n}"
            ),
            Some(Kind::Hip)
        );
    }

    #[test]
    fn roles_come_from_directories_and_names() {
        assert_eq!(role("tests/attn.cu"), Some(Role::Test));
        // Fixtures, however the directory is spelled.
        for fixture in [
            "test_data/sdf/bolt.py",
            "pkg/testdata/k.cu",
            "src/test-data/k.metal",
        ] {
            assert_eq!(role(fixture), Some(Role::Test), "{fixture}");
        }
        assert_eq!(role("src/third_party/cutlass/gemm.h"), Some(Role::Vendored));
        // The short spelling (ZhiLight's `3rd/bmengine/`, Synet's `3rd/`).
        assert_eq!(
            role("3rd/bmengine/bmengine/functions/sort.cu"),
            Some(Role::Vendored)
        );
        // A single-file library copied in beside the project's own code.
        assert_eq!(role("src/stb_image.h"), Some(Role::Vendored));
        assert_eq!(role("dietgpu/ans/BatchPrefixSumTest.cu"), Some(Role::Test));
        assert_eq!(role("src/ops/ScanTests.cu"), Some(Role::Test));
        // A word that only ends in the letters is no test.
        assert_eq!(role("src/Contest.cu"), None);
        assert_eq!(role("src/latest.cu"), None);
        assert_eq!(role("src/TEST.cu"), None);
        assert_eq!(role("libhmsbeagle/CPU/sse2neon.h"), Some(Role::Vendored));
        assert_eq!(role("src/stb_filter.h"), None);
        assert_eq!(role("kernels/attn_test.cu"), Some(Role::Test));
        // A `Test` word that starts the name or stands between two others.
        for test in [
            "src/ppl/cv/x86/test.h",
            "Whisper/ML/testUtils.h",
            "src/TestCG.cpp",
            "jax/_src/pallas/pallas_test_util.py",
            "hwy/contrib/math/math_test-inl.h",
        ] {
            assert_eq!(role(test), Some(Role::Test), "{test}");
        }
        assert_eq!(role("src/testament.cu"), None);
        assert_eq!(role("kernels/latest_kernel.cu"), None);
        assert_eq!(role("kernels/rotary/harness.impl"), Some(Role::Test));
        assert_eq!(role("benchmarks/bench_gemm.py"), Some(Role::Bench));
        assert_eq!(role("scripts/performance_laplace.py"), Some(Role::Bench));
        assert_eq!(role("tools/perf_gemm.cu"), Some(Role::Bench));
        assert_eq!(role("src/performance.cu"), None);
        assert_eq!(role("kernels/attn.cu"), None);
        assert_eq!(role("kernels/latest.cu"), None);
        assert_eq!(role("candle-examples/x.cu"), Some(Role::Example));
        assert_eq!(role("src/contests/x.cu"), None);
        // Retired code: kept for reference, not built.
        assert_eq!(
            role("kernels/haswell/3/old/gemm_d6x8.c"),
            Some(Role::Retired)
        );
        assert_eq!(role("kernels/zen/sup/broken/gemm.c"), Some(Role::Retired));
        assert_eq!(role("src/kernels_deprecated/attn.cu"), Some(Role::Retired));
        assert_eq!(role("kernels/bold/gemm.c"), None);
        assert_eq!(role("src/legacy/attn.cu"), None);
        // A C library's performance driver and example are named so.
        assert_eq!(role("crc/crc32_ieee_perf.c"), Some(Role::Bench));
        assert_eq!(role("crc/crc64_example.c"), Some(Role::Example));
        for example in ["example.cpp", "c/example_tbb.c", "la/amx-example.cpp"] {
            assert_eq!(role(example), Some(Role::Example), "{example}");
        }
        assert_eq!(role("kernels/counterexample.cu"), None);
        assert_eq!(role("crc/crc64_ecma_refl_pmull.S"), None);
        // A CPU feature probe serves the kernels; it computes no op.
        assert_eq!(
            infrastructure("kernel/x86/cpuid.S"),
            Some("CPU / GPU feature probe")
        );
        assert_eq!(infrastructure("kernel/x86/kv_cache.cu"), None);
        // So is a file named for CPU features or ISA detection; a file of
        // image features is a kernel (libdeflate's `x86/cpu_features.c`,
        // streamvbyte's `streamvbyte_isadetection.h`).
        for probe in [
            "lib/x86/cpu_features.c",
            "lib/arm/cpu_features.h",
            "include/streamvbyte_isadetection.h",
            "src/simd_detect.cpp",
            "src/CpuInfo.cpp",
        ] {
            assert_eq!(
                infrastructure(probe),
                Some("CPU / GPU feature probe"),
                "{probe}"
            );
        }
        assert_eq!(infrastructure("cudaSift/features.cu"), None);
        assert_eq!(infrastructure("src/detect.cu"), None);
        // A thread pool serves the kernels; a max pool is one. (A file
        // named `log` is as often the logarithm as the logger: FlagGems'
        // `log.py`, optimized-routines' `log.c`.)
        assert_eq!(
            infrastructure("k2/csrc/thread_pool.cu"),
            Some("worker / thread helper")
        );
        assert_eq!(infrastructure("ops/max_pool.cu"), None);
        // Exceptions, printing, macro definitions, platform layers and
        // pointer wrappers compute no op (DeepGEMM's `exception.cuh`,
        // FlashMLA's `defines.h`, Thrust's `raw_pointer_cast.h`).
        for (path, why) in [
            ("csrc/jit_kernels/exception.cuh", "error checking"),
            ("src/common/inline_print.cuh", "printing / debug output"),
            ("csrc/sm90/defines.h", "macro definitions"),
            (
                "faiss/impl/platform_macros.h",
                "platform / portability layer",
            ),
            ("thrust/detail/raw_pointer_cast.h", "pointer wrapper"),
            // Autotuners pick kernels' configurations; RDRAND / CPUID
            // wrappers probe or draw from the CPU.
            ("exllamav2_ext/cuda/q_gemm_autotune.cuh", "tuner"),
            ("finegrained_fp8/bayesian_autotuner.py", "tuner"),
            ("cpuid64.asm", "CPU / GPU feature probe"),
            ("rdrand.asm", "hardware entropy instruction wrapper"),
            // Runtime glue, launchers, handles, environment settings and
            // debug helpers serve the kernels (DeepGEMM's `runtime.hpp`,
            // cuVS's `*_kernel_launcher_jit.cuh`, rocSPARSE's `handle.cpp`,
            // CK's `env.hpp` and `debug.hpp`, FlashAttention's
            // `hardware_info.h`, XNNPACK's `hardware-config.c`).
            ("csrc/apis/runtime.hpp", "runtime / driver glue"),
            (
                "cagra/search_single_cta_kernel_launcher_jit.cuh",
                "kernel launcher",
            ),
            ("library/src/handle.cpp", "library handle"),
            ("include/ck/utility/env.hpp", "environment settings"),
            ("include/ck/utility/debug.hpp", "debug helper"),
            (
                "csrc/flash_attn/src/hardware_info.h",
                "CPU / GPU feature probe",
            ),
            ("src/configs/hardware-config.c", "CPU / GPU feature probe"),
        ] {
            assert_eq!(infrastructure(path), Some(why), "{path}");
        }
        assert_eq!(infrastructure("kernels/pointwise.cu"), None);
        // A bindings package is glue, unless it keeps a kernels directory.
        assert_eq!(
            infrastructure("csrc/bindings/cuda/torch_ops.cu"),
            Some("Python binding")
        );
        for kernel in [
            "models_py/bindings/cuda/kernels/fast_topk.cu",
            "bindings/cuda/cutlass/cutlass_kernels/fp4_gemm/quant.cu",
        ] {
            assert_eq!(infrastructure(kernel), None, "{kernel}");
        }
        // An app's committed dependency checkouts are vendored.
        assert_eq!(
            role("Pods/MetalPetal/Frameworks/MetalPetal/Shaders/Halftone.metal"),
            Some(Role::Vendored)
        );
        assert_eq!(role("Carthage/Checkouts/lib/k.metal"), Some(Role::Vendored));
        // A dependencies directory, however it is prefixed, and the copies
        // of libraries that ship no kernels of their own.
        for vendored in [
            "CppDependencies/Eigen/include/Eigen/src/Core/arch/AVX/PacketMath.h",
            "Dependencies/lib/k.cu",
            "Fusion/libigl/include/igl/svd3x3_avx.cpp",
            "include/eigen3/Eigen/src/Core/arch/NEON/PacketMath.h",
            "CudaDeps/k.cu",
            // Unpacked archives: a branch download, a release tarball.
            "src/main/native/compression/isa-l-master/crc/crc32_ieee_by4.asm",
            "contrib/gtest-1.6.0/src/gtest.cc",
            "src/Healpix_2.15a/healpix_base.cc",
            "third/zlib-v1.3.1/crc32.c",
        ] {
            assert_eq!(role(vendored), Some(Role::Vendored), "{vendored}");
        }
        // No version, no archive: a kernel's own numbered or named directory.
        for own in [
            "kernels/sm_90/gemm.cu",
            "ops/v2/attn.py",
            "ops/attn_v2/attn.py",
            "kernels/1.0/k.cu",
        ] {
            assert_eq!(role(own).filter(|r| *r == Role::Vendored), None, "{own}");
        }
        // A capital word only: `Threshold/` is not `old/`; CUB, Thrust and
        // CUTLASS directories are often a project's own.
        for own in [
            "kernels/Threshold/k.cu",
            "kernels/cutlass/gemm.cu",
            "cub/cub/block/block_scan.cuh",
            "src/dependency_graph/k.cu",
        ] {
            assert_eq!(role(own), None, "{own}");
        }
        // A role word that also ends an op's directory counts only alone.
        assert_eq!(role("torchao/prototype/fp8_training/kernels.py"), None);
        assert_eq!(role("crates/kernel/grid_sample/bilinear.rs"), None);
        assert_eq!(role("samples/grid.cu"), Some(Role::Example));
        // `sample/` is a serving engine's token sampler, not a sample.
        assert_eq!(role("vllm/v1/sample/ops/topk_topp_sampler.py"), None);
        assert_eq!(role("cutlass/cute-examples/gemm.cu"), Some(Role::Example));
        // Measurement and research around the kernels, code that uses them.
        for (path, role_of) in [
            ("analysis/bf16_gemm/mi350x/kernel_1024.cpp", Role::Bench),
            ("kernels/gemm/micros/timing/micro_01.cpp", Role::Bench),
            ("analysis/paper_experiments/grid/kernel_w4.cpp", Role::Bench),
            ("tools/profiling/attn.cu", Role::Bench),
            ("training/llama/csrc/attn_fwd_causal.cpp", Role::Example),
            ("sandbox/gemmlike/bls_gemm_bp_var1.c", Role::Example),
            ("docs/tutorial/01_add.py", Role::Docs),
            ("notebooks/quantize.py", Role::Example),
        ] {
            assert_eq!(role(path), Some(role_of), "{path}");
        }
        assert_eq!(role("csrc/training_kernels/adam.cu"), None);
        // A hidden directory is the tools', not the product's.
        assert_eq!(
            role(".claude/skills/xpu/integration/csrc/esimd_kernel_api.h"),
            Some(Role::Docs)
        );
        assert_eq!(role(".github/workflows/k.cu"), Some(Role::Docs));
        assert_eq!(role("src/.hidden/k.cu"), Some(Role::Docs));
        assert_eq!(role("src/k.cu"), None);
        // An `apps/` in the source root is a subsystem of the library.
        assert_eq!(role("src/apps/ENERGY-Hip.cpp"), None);
        assert_eq!(role("apps/src/main.cu"), Some(Role::Example));
        // Programs that use the kernels.
        for program in [
            "apps/qsim_base_cuda.cu",
            "apps/cudpp/cudpp_testrig.cpp",
            "crates/cubecl-runtime/src/bin/bench.rs",
        ] {
            assert_eq!(role(program), Some(Role::Example), "{program}");
        }
        assert_eq!(role("kernels/cubin/k.cu"), None);
    }
}
