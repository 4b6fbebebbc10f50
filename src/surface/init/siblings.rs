//! Files that belong to a kernel by how they are named beside it, not by
//! markers of their own:
//!
//! - the C entry point of an assembly micro-kernel: a C / C++ source in
//!   the directory of an assembly kernel that calls a symbol the assembly
//!   defines (KleidiAI's `kai_matmul_….c` computes the strides, then calls
//!   `kai_kernel_matmul_…`, which its `_asm.S` sibling defines);
//! - the descriptor header named after a directory of kernels (Arm's
//!   `kernels/a64_sgemm_8x12.hpp`, the blocking and selection of the
//!   kernels in `kernels/a64_sgemm_8x12/`), unless it only declares.
//!
//! - the launch or instantiation unit of a GPU kernel: a host source that
//!   includes a kernel header of its own directory (or its parent) and
//!   launches (`hipLaunchKernelGGL`, `<<<…>>>`) or explicitly instantiates
//!   its template kernels (rocSPARSE's `rocsparse_csr2coo.cpp` beside
//!   `csr2coo_device.h`, xformers' generated `instances/*.cpp`).
//!
//! All read a few files again; trees without assembly kernels or
//! such headers pay nothing.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use aho_corasick::AhoCorasick;

use super::detect::{self, Kind};
use super::signals::{Candidate, Signals};
use super::{declaration_test_applies, declarations, most_common, parent_dir, Found, Reread};

/// C / C++ sources beside assembly kernels that call a symbol one of them
/// defines join the population with the assembly's kind (`asm` where any
/// of the directory's assembly is SIMD, else `asm-scalar`).
pub(super) fn adopt_asm_entries(
    root: &Path,
    found: &mut Vec<Found>,
    candidates: &[&str],
    signals: &Signals,
) {
    let asm: Vec<(&str, Kind)> = found
        .iter()
        .filter_map(|f| match f.kind {
            Some(k @ (Kind::Asm | Kind::AsmScalar)) => Some((f.path.as_str(), k)),
            _ => None,
        })
        .collect();
    if asm.is_empty() {
        return;
    }
    let mut reread = Reread::new(root);
    let mut symbols: HashMap<&str, Vec<String>> = HashMap::new();
    let mut kinds: HashMap<&str, Kind> = HashMap::new();
    for (path, kind) in asm {
        let defined = defined_symbols(reread.prefix(path));
        symbols.entry(parent_dir(path)).or_default().extend(defined);
        let dir_kind = kinds.entry(parent_dir(path)).or_insert(kind);
        if kind == Kind::Asm {
            *dir_kind = Kind::Asm;
        }
    }
    // One automaton per directory: a C source is read once whatever the
    // number of kernels beside it.
    let callees: HashMap<&str, Callees> = symbols
        .into_iter()
        .filter_map(|(dir, names)| Some((dir, Callees::new(&names)?)))
        .collect();
    let known: HashSet<&str> = found.iter().map(|f| f.path.as_str()).collect();
    let entries: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|p| detect::is_c_source(p) && !known.contains(p))
        .filter(|p| callees.contains_key(parent_dir(p)))
        .collect();
    let mut adopted = Vec::new();
    for path in entries {
        let prefix = reread.prefix(path);
        if !callees[parent_dir(path)].called_in(prefix) {
            continue;
        }
        let kind = kinds[parent_dir(path)];
        let best = signals.best(path, Some(kind), prefix);
        adopted.push(Found::adopted(path.to_owned(), kind, best));
    }
    found.extend(adopted);
}

/// Host sources that launch a kernel or explicitly instantiate a template,
/// and include a GPU kernel file of their own directory (else of its
/// parent), build that file's kernels: they join with its kind. A host
/// source that launches only a library's kernels includes none of them.
pub(super) fn adopt_launch_units(
    root: &Path,
    found: &mut Vec<Found>,
    launchers: &[(String, Vec<String>)],
    signals: &Signals,
) {
    if launchers.is_empty() {
        return;
    }
    // Each GPU kernel file: its kind and the op its content says.
    let gpu = kernels_by_path(found, |k| k.marks_device_code());
    let known: HashSet<&str> = found.iter().map(|f| f.path.as_str()).collect();
    let mut reread = Reread::new(root);
    let mut adopted = Vec::new();
    for (path, includes) in launchers {
        if known.contains(path.as_str()) {
            continue;
        }
        // A bare include names a file of the unit's directory, else of
        // its parent (generated `instances/` beside their headers).
        let in_parent = |p: &String| {
            let (dir, name) = p.rsplit_once('/')?;
            let parent = parent_dir(dir);
            let path = if parent.is_empty() {
                name.to_owned()
            } else {
                format!("{parent}/{name}")
            };
            gpu.get(path.as_str())
        };
        let Some(&(kind, header_best)) = includes
            .iter()
            .find_map(|p| gpu.get(p.as_str()))
            .or_else(|| includes.iter().find_map(in_parent))
        else {
            continue;
        };
        // The unit's own evidence first; else the kernels it instantiates.
        let best = signals
            .best(path, Some(kind), reread.prefix(path))
            .or_else(|| header_best.cloned());
        adopted.push(Found::adopted(path.to_owned(), kind, best));
    }
    found.extend(adopted);
}

/// Per-ISA builds of a CPU SIMD kernel: a C / C++ source with no code of
/// its own, only preprocessor lines that set macros and then include a
/// SIMD kernel of its directory (muFFT's `x86/kernel.avx.c` defines
/// `__AVX__` and includes `kernel.h`), compiles that kernel once more for
/// an ISA. It joins with the kernel's kind and op.
pub(super) fn adopt_isa_units(
    root: &Path,
    found: &mut Vec<Found>,
    includers: &[(String, Vec<String>)],
    signals: &Signals,
) {
    let simd = kernels_by_path(found, |k| k.is_cpu_simd());
    if simd.is_empty() {
        return;
    }
    let known: HashSet<&str> = found.iter().map(|f| f.path.as_str()).collect();
    let mut reread = Reread::new(root);
    let mut adopted = Vec::new();
    for (path, includes) in includers {
        if known.contains(path.as_str()) {
            continue;
        }
        let Some(&(kind, best)) = includes.iter().find_map(|p| simd.get(p.as_str())) else {
            continue;
        };
        let prefix = reread.prefix(path);
        if sets_macros_only(prefix) {
            // The unit's own name first (`zgemm_kernel_4x4_msa.c`), else the
            // kernel's op.
            let best = signals
                .best(path, Some(kind), prefix)
                .or_else(|| best.cloned());
            adopted.push(Found::adopted(path.clone(), kind, best));
        }
    }
    found.extend(adopted);
}

/// The found kernels of the kinds `keep` admits, by path: each one's kind
/// and the op its own evidence says.
fn kernels_by_path(
    found: &[Found],
    keep: impl Fn(Kind) -> bool,
) -> HashMap<&str, (Kind, Option<&Candidate>)> {
    found
        .iter()
        .filter_map(|f| {
            let kind = f.kind.filter(|&k| keep(k))?;
            Some((f.path.as_str(), (kind, f.best.as_ref())))
        })
        .collect()
}

/// Whether C text is only preprocessor lines (and comments), at least one
/// of them a `#define`: a unit that configures and includes, nothing more.
fn sets_macros_only(text: &[u8]) -> bool {
    declarations::preprocessor_only(text)
        && String::from_utf8_lossy(text).lines().any(|line| {
            line.trim_start()
                .strip_prefix('#')
                .is_some_and(|d| d.trim_start().starts_with("define"))
        })
}

/// Host sources that bind an OpenCL kernel's arguments launch the
/// repository's OpenCL kernels, which they build by name from `.cl`
/// sources they never include (MACE's `opencl/image/pad.cc` sets the
/// arguments of `cl/pad.cl`'s kernel and runs it): they join as OpenCL
/// kernels, as a CUDA launch unit joins with its kernels, when the
/// repository holds OpenCL kernels.
pub(super) fn adopt_opencl_launchers(
    found: &mut Vec<Found>,
    launchers: Vec<(String, Option<Candidate>)>,
) {
    if !found.iter().any(|f| f.kind == Some(Kind::Opencl)) {
        return;
    }
    let known: HashSet<String> = found.iter().map(|f| f.path.clone()).collect();
    found.extend(
        launchers
            .into_iter()
            .filter(|(path, _)| !known.contains(path))
            .map(|(path, best)| Found::adopted(path, Kind::Opencl, best)),
    );
}

/// A plain header named after a directory of kernel sources (`x.hpp`
/// beside `x/generic.cpp`) describes them: it joins with their most
/// common kind, unless the declaration test says it only declares. A
/// directory of kernel headers is a library's (NNPACK's `nnpack.h` beside
/// `nnpack/`): its namesake is the public interface.
pub(super) fn adopt_descriptor_headers(root: &Path, found: &mut [Found], signals: &Signals) {
    let mut kinds: HashMap<String, BTreeMap<Kind, usize>> = HashMap::new();
    for f in found.iter().filter(|f| !detect::is_header(&f.path)) {
        if let Some(k) = f.kind {
            *kinds
                .entry(parent_dir(&f.path).to_owned())
                .or_default()
                .entry(k)
                .or_default() += 1;
        }
    }
    let mut reread = Reread::new(root);
    for f in found.iter_mut() {
        if f.kind.is_some() || !detect::is_header(&f.path) {
            continue;
        }
        let Some(stem) = f.path.rsplit_once('.').map(|(s, _)| s) else {
            continue;
        };
        let Some(kind) = kinds.get(stem).and_then(|k| most_common(k).copied()) else {
            continue;
        };
        let prefix = reread.prefix(&f.path);
        if declaration_test_applies(kind, &f.path) && declarations::declares_only(prefix) {
            continue;
        }
        f.kind = Some(kind);
        f.best = signals.best(&f.path, Some(kind), prefix);
    }
}

/// Whether C text includes a file of a directory named `dir`
/// (`#include "numkong/dot/serial.h"` for `dot`), or another header of
/// that name, itself the umbrella (`dot.hpp` including `numkong/dot.h`).
pub(super) fn includes_from(text: &[u8], dir: &str) -> bool {
    let text = String::from_utf8_lossy(text);
    let inside = format!("/{dir}/");
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('#'))
        .filter_map(|l| l.trim_start().strip_prefix("include"))
        .any(|l| {
            let target = l.trim().trim_matches(|c| matches!(c, '"' | '<' | '>'));
            target.starts_with(&inside[1..])
                || target.contains(&inside)
                || super::signals::stem(target) == dir
        })
}

/// The global symbols an assembly file defines (`.global name`,
/// `.globl _name`, a `GLOBAL(name)` macro), without the leading `_`
/// Mach-O adds; a macro's own definition line is skipped.
fn defined_symbols(text: &[u8]) -> Vec<String> {
    // Only the lines holding a key are walked: a kernel's prefix is
    // thousands of instruction lines and a handful of exports. Most
    // assembly of a scalar library exports through a macro the keys do
    // not name, and then no line is.
    let text = String::from_utf8_lossy(text);
    let bytes = text.as_bytes();
    let mut starts: Vec<usize> = [&b".glob"[..], b"GLOBAL("]
        .iter()
        .flat_map(|k| memchr::memmem::find_iter(bytes, k))
        .map(|at| memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |nl| nl + 1))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let mut out = Vec::new();
    for start in starts {
        let line = text[start..].lines().next().unwrap_or("").trim_start();
        if line.starts_with('#') {
            continue;
        }
        let after = [".globl", ".global", "GLOBAL("]
            .iter()
            .find_map(|k| line.find(k).map(|at| &line[at + k.len()..]));
        let Some(after) = after else { continue };
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let name = name.strip_prefix('_').unwrap_or(&name);
        // Short names (`name`, `main`) say nothing about a kernel.
        if name.len() >= 6 && !out.iter().any(|s| s == name) {
            out.push(name.to_owned());
        }
    }
    out
}

/// The symbols a directory's assembly kernels define, to find calls of.
struct Callees(AhoCorasick);

impl Callees {
    fn new(symbols: &[String]) -> Option<Callees> {
        if symbols.is_empty() {
            return None;
        }
        AhoCorasick::new(symbols).ok().map(Callees)
    }

    /// Whether C text calls or declares one of the symbols (the whole
    /// identifier, then `(`).
    fn called_in(&self, text: &[u8]) -> bool {
        let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        // Overlapping: `sgemm_kernel` must not hide `sgemm_kernel_8x12(`,
        // a longer symbol it starts.
        self.0.find_overlapping_iter(text).any(|m| {
            let before = m.start().checked_sub(1).map(|i| text[i]);
            let next = text[m.end()..].iter().find(|b| !b.is_ascii_whitespace());
            !before.is_some_and(ident) && next == Some(&b'(')
        })
    }
}

/// Whether C text calls or declares `symbol` (see [`Callees::called_in`]).
#[cfg(test)]
fn calls(text: &[u8], symbol: &str) -> bool {
    Callees::new(&[symbol.to_owned()]).is_some_and(|c| c.called_in(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_umbrella_includes_its_directory_a_descriptor_does_not() {
        let umbrella = b"#include \"numkong/types.h\"\n#include \"numkong/dot/serial.h\"\n";
        assert!(includes_from(umbrella, "dot"));
        assert!(includes_from(b"# include <dot/neon.h>", "dot"));
        // The C++ umbrella over the C one.
        assert!(includes_from(b"#include \"numkong/dot.h\"", "dot"));
        let descriptor = b"#include \"../std_transforms_fixed.hpp\"\nclass cls_a64_sgemm {};";
        assert!(!includes_from(descriptor, "a64_sgemm"));
        // A directory whose name ends another's is not it.
        assert!(!includes_from(b"#include \"numkong/xdot/serial.h\"", "dot"));
    }

    #[test]
    fn a_unit_that_only_sets_macros_and_includes_is_a_per_isa_build() {
        let unit = b"/* licence\n * text */\n#ifndef __AVX2__\n#define __AVX2__ 1\n#endif\n#include \"kernel.h\"\n";
        assert!(sets_macros_only(unit));
        // A continued macro and a trailing line comment.
        assert!(sets_macros_only(
            b"#define TARGET(x) \\\n  x##_avx512\n#include \"impl.h\" // the body\n"
        ));
        // Code of its own, or nothing set, is not.
        assert!(!sets_macros_only(
            b"#define A 1\n#include \"k.h\"\nint f(void) { return A; }\n"
        ));
        assert!(!sets_macros_only(b"#include \"k.h\"\n"));
        assert!(!sets_macros_only(b"/* #define A */\n#include \"k.h\"\n"));
    }

    #[test]
    fn an_assembly_file_defines_its_global_symbols() {
        let asm = b"#define KAI_ASM_GLOBAL(name) .global name\n\
            KAI_ASM_GLOBAL(kai_kernel_matmul_f32_neon)\n\
            .globl _sgemm_kernel_8x12\n\
            .global main\n\
            kai_kernel_matmul_f32_neon:\n    fmla v0.4s, v1.4s, v2.s[0]\n";
        assert_eq!(
            defined_symbols(asm),
            ["kai_kernel_matmul_f32_neon", "sgemm_kernel_8x12"]
        );
        // The first line, CRLF endings, a symbol exported twice, and a
        // line naming two keys is read once.
        let asm = b"\t.globl\tdgemm_kernel_4x8\r\n\tret\r\n.globl dgemm_kernel_4x8 # .global\r\n\
            GLOBAL(zgemm_kernel_2x2)\n";
        assert_eq!(
            defined_symbols(asm),
            ["dgemm_kernel_4x8", "zgemm_kernel_2x2"]
        );
        assert!(defined_symbols(b"\tfmla v0.4s, v1.4s, v2.s[0]\n\tret\n").is_empty());
    }

    #[test]
    fn a_source_calling_any_symbol_of_its_directory_is_an_entry() {
        let symbols = [
            "sgemm_kernel_8x12".to_owned(),
            "kernel_8x12".to_owned(),
            "dgemm_kernel_4x8".to_owned(),
        ];
        let callees = Callees::new(&symbols).unwrap();
        assert!(callees.called_in(b"/* tile */ dgemm_kernel_4x8(a, b);"));
        // `sgemm_kernel_8x12` without a call hides no call of its suffix.
        assert!(!callees.called_in(b"see sgemm_kernel_8x12 and my_kernel_8x12(x)"));
        assert!(callees.called_in(b"sgemm_kernel_8x12 ; kernel_8x12 (x)"));
        let nested =
            Callees::new(&["sgemm_kernel".to_owned(), "sgemm_kernel_8x12".to_owned()]).unwrap();
        assert!(nested.called_in(b"  sgemm_kernel_8x12(a, b);"));
        assert!(Callees::new(&[]).is_none());
    }

    #[test]
    fn a_source_calls_a_symbol_only_as_a_whole_identifier() {
        let c = b"void kai_kernel_matmul_f32_neon(KernelArgs* a);\n";
        assert!(calls(c, "kai_kernel_matmul_f32_neon"));
        assert!(calls(b"x = sgemm_kernel_8x12 (a, b);", "sgemm_kernel_8x12"));
        // A longer name, or the name without a call, is not it.
        assert!(!calls(b"my_sgemm_kernel_8x12(a);", "sgemm_kernel_8x12"));
        assert!(!calls(
            b"// see sgemm_kernel_8x12 for the tile",
            "sgemm_kernel_8x12"
        ));
    }
}
