//! The scalar default of a dispatched CPU SIMD kernel: a plain C / C++
//! source named as a SIMD kernel of its own directory is, less that
//! kernel's ISA words — FLAC's `lpc.c` beside `lpc_intrin_sse2.c` and
//! `lpc_intrin_neon.c`, SpeexDSP's `resample.c` beside `resample_sse.h`
//! and `resample_neon.h`, FastPFor's `bitpacking.cpp` beside
//! `simdbitpacking.cpp`. It is the same kernel without vectors, the path
//! every CPU without the ISA runs (and usually the dispatcher that picks
//! the SIMD one). It joins as `scalar` when it computes (a loop or inline
//! assembly), in its SIMD twin's op, however few kernels the directory
//! holds (`adopt_plain_sources` wants three before a directory speaks).
//!
//! Only the directory's own kernels name it: libdeflate's `adler32.c`
//! beside `x86/adler32_impl.h` has its twins a directory down, as does
//! ncnn's base layer `absval.cpp` beside `x86/absval_x86.cpp`, which the
//! SIMD layer subclasses and no engineer counts as its kernel.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::detect::{self, Kind};
use super::signals::{self, Candidate, Signals};
use super::{computes, join_adopted, not_kernels_yet, parent_dir, twins, Found, Reread};

/// Words that name an instruction set or a vectorised variant in a
/// kernel's file name (`_intrin_sse41`, `_avx512_vnni`, `_neon`); a word
/// of digits continues the one before it (`sse4_1`, `x86_64`).
pub(super) const ISA_WORDS: &[&str] = &[
    "intrin",
    "intrinsics",
    "simd",
    "vec",
    "sse",
    "sse2",
    "sse3",
    "ssse3",
    "sse4",
    "sse41",
    "sse42",
    "avx",
    "avx2",
    "avx512",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512vnni",
    "avx512bf16",
    "avx512fp16",
    "avxvnni",
    "avx10",
    "vnni",
    "fma",
    "fma3",
    "f16c",
    "amx",
    "neon",
    "asimd",
    "sve",
    "sve2",
    "sme",
    "sme2",
    "dotprod",
    "i8mm",
    "x86",
    "x64",
    "arm",
    "arm64",
    "aarch64",
    "armv7",
    "armv8",
    "vsx",
    "altivec",
    "power8",
    "power9",
    "power10",
    "msa",
    "lsx",
    "lasx",
    "rvv",
    "wasm",
    "simd128",
    "mmx",
    "aesni",
    "armcrypto",
    "pclmul",
    "vpclmul",
    "pmull",
];

/// Join the scalar defaults of the scan's CPU SIMD kernels (see the
/// module doc).
pub(super) fn adopt(root: &Path, found: &mut Vec<Found>, candidates: &[&str], signals: &Signals) {
    // Per directory, its SIMD kernels with their stems lowercased once.
    let mut simd: HashMap<&str, Vec<(String, &Found)>> = HashMap::new();
    for f in found.iter().filter(|f| {
        f.kind
            .is_some_and(|k| k.is_cpu_simd() && k != Kind::AsmScalar)
    }) {
        let stem = signals::stem(&f.path).to_ascii_lowercase();
        simd.entry(parent_dir(&f.path)).or_default().push((stem, f));
    }
    if simd.is_empty() {
        return;
    }
    let eligible = |p: &str| {
        detect::is_c_source(p)
            && simd.contains_key(parent_dir(p))
            && detect::infrastructure(p).is_none()
    };
    let unmarked = not_kernels_yet(found, candidates, |f| f.kind.is_none(), eligible);
    let mut reread = Reread::new(root);
    let mut adopted: BTreeMap<String, (Kind, Option<Candidate>)> = BTreeMap::new();
    for path in unmarked {
        let stem = signals::stem(path).to_ascii_lowercase();
        let Some((_, twin)) = simd[parent_dir(path)]
            .iter()
            .find(|(kernel, _)| scalar_default_of(&stem, kernel))
        else {
            continue;
        };
        let prefix = reread.prefix(path);
        if !computes(prefix) {
            continue;
        }
        let best = twins::twin_candidate(twin, path, prefix, signals);
        adopted.insert(path.to_owned(), (Kind::Scalar, best));
    }
    join_adopted(found, adopted);
}

/// Whether `stem` names the SIMD kernel `kernel` without its ISA words
/// (both lowercase): `lpc` of `lpc_intrin_sse41`, `resample` of
/// `resample_neon`, `bitpacking` of `simdbitpacking`; never `lpc` of
/// `lpc_window` (not an ISA word) nor `cpu` of `cpu_x86` unless that name
/// is a SIMD kernel.
fn scalar_default_of(stem: &str, kernel: &str) -> bool {
    if kernel.strip_prefix("simd") == Some(stem) {
        return true;
    }
    kernel
        .strip_prefix(stem)
        .and_then(|rest| rest.strip_prefix(['_', '-']))
        .is_some_and(isa_words)
}

/// Whether every word of `rest` names an ISA (a word of digits continues
/// the one before it).
fn isa_words(rest: &str) -> bool {
    let mut named = false;
    for word in rest.split(['_', '-']) {
        if named && !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if !ISA_WORDS.contains(&word) {
            return false;
        }
        named = true;
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scalar_default_is_the_kernel_name_without_its_isa_words() {
        for (stem, kernel) in [
            ("lpc", "lpc_intrin_sse41"),
            ("lpc", "lpc_intrin_avx2"),
            ("resample", "resample_neon"),
            ("stream_encoder", "stream_encoder_intrin_ssse3"),
            ("bitpacking", "simdbitpacking"),
            ("crc32", "crc32-sse4_1"),
            ("convert", "convert_avx512_vnni"),
            ("gemm", "gemm_x86_64"),
        ] {
            assert!(scalar_default_of(stem, kernel), "{stem} / {kernel}");
        }
        for (stem, kernel) in [
            ("lpc", "lpc_window"),
            ("lpc", "lpc"),
            ("lp", "lpc_sse2"),
            ("cost", "cost_sse2_tables"),
            ("dec", "dec_clip_tables"),
            ("resample", "resample_"),
            ("gemm", "gemm_64"),
            ("packing", "simdbitpacking"),
        ] {
            assert!(!scalar_default_of(stem, kernel), "{stem} / {kernel}");
        }
    }
}
