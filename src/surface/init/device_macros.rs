//! A library's own names for device code: `#define ROCPRIM_DEVICE
//! __device__`, `#define ROCPRIM_KERNEL __global__`. Its headers then
//! write `ROCPRIM_DEVICE ROCPRIM_INLINE` where another library writes
//! `__device__`, and carry no marker of their own; once the scan has seen
//! the definitions, the files that use them are read again and judged as
//! if the macro were spelled out (a kernel macro once, a device macro as
//! often as `__device__` must occur).
//!
//! A macro that also says `__host__` marks code shared with the host
//! (`C10_HOST_DEVICE`), which is no evidence of a kernel. A macro whose
//! body is an explicit instantiation (`INSTANTIATE_GETF2_SMALL(…)`) makes
//! the host sources that call it instantiation units.

use std::collections::BTreeMap;
use std::path::Path;

use aho_corasick::{AhoCorasick, MatchKind};

use super::detect::{self, Kind};
use super::macro_defs::DeviceMacro;
use super::signals::Signals;
use super::{most_common, not_kernels_yet, reread_kinds, Found, Reread};

/// Whether a path is C-family source that may define or use such macros.
pub fn may_hold(path: &str) -> bool {
    detect::is_c_source(path)
        || detect::is_header(path)
        || detect::is_cuda_dialect(path)
        || detect::source_extension(path) == Some("hip")
}

/// Read again the C-family files that are no kernel yet (or a GPU source
/// by extension only), and adopt those that the repository's device macros
/// mark as device code, with the kind of most of its device kernels.
pub(super) fn adopt_users(
    root: &Path,
    found: &mut Vec<Found>,
    candidates: &[&str],
    macros: Vec<DeviceMacro>,
    signals: &Signals,
) {
    let Some(uses) = Uses::new(macros) else {
        return;
    };
    let mut kinds: BTreeMap<Kind, usize> = BTreeMap::new();
    for k in found.iter().filter_map(|f| f.kind) {
        if k.marks_device_code() {
            *kinds.entry(k).or_default() += 1;
        }
    }
    let kind = most_common(&kinds).copied().unwrap_or(Kind::Cuda);
    // The files found but no kernel yet, then the candidates not found.
    let unmarked = not_kernels_yet(
        found,
        candidates,
        |f| f.kind.is_none() || f.bare.is_some(),
        may_hold,
    );
    let mut marked = reread_kinds(root, &unmarked, signals, |prefix| {
        uses.marks_device_code(prefix)
            .then(|| detect::hip_source(prefix).unwrap_or(kind))
    });
    for f in found.iter_mut() {
        if let Some((kind, best)) = marked.remove(&f.path) {
            // A `.cu` is a kernel by its extension already: the macros
            // show it holds device code (see `host_units`).
            // Whether a macro names a kernel entry or a helper is not
            // kept: a unit that reaches the file still counts as a kernel.
            f.entry = true;
            if f.bare.take().is_some() {
                continue;
            }
            f.kind = Some(kind);
            f.best = best;
            f.plain_kind = None;
        }
    }
    // What is left was not found by the scan.
    found.extend(
        marked
            .into_iter()
            .map(|(path, (kind, best))| Found::adopted(path, kind, best)),
    );
}

/// The host sources (with what they include from their directory) that
/// call one of the repository's instantiation macros at the start of a
/// line: units that build a kernel header's templates, for
/// [`super::siblings::adopt_launch_units`] to judge by what they include.
pub(super) fn instantiating_units(
    root: &Path,
    includers: &[(String, Vec<String>)],
    macros: &[String],
) -> Vec<(String, Vec<String>)> {
    if macros.is_empty() {
        return Vec::new();
    }
    let calls: Vec<String> = macros.iter().map(|m| format!("{m}(")).collect();
    let Ok(ac) = AhoCorasick::new(&calls) else {
        return Vec::new();
    };
    let mut reread = Reread::new(root);
    includers
        .iter()
        .filter(|(path, includes)| {
            if includes.is_empty() {
                return false;
            }
            let prefix = reread.prefix(path);
            ac.find_iter(prefix).any(|m| {
                let line_start = memchr::memrchr(b'\n', &prefix[..m.start()]).map_or(0, |i| i + 1);
                prefix[line_start..m.start()]
                    .iter()
                    .all(u8::is_ascii_whitespace)
            })
        })
        .cloned()
        .collect()
}

/// How often a device (not kernel) macro must occur, as `__device__` must
/// (see detect's weak markers).
const DEVICE_USES: usize = 3;

/// Finds the uses of a set of device macros in a prefix.
pub struct Uses {
    ac: AhoCorasick,
    macros: Vec<DeviceMacro>,
}

impl Uses {
    pub fn new(macros: Vec<DeviceMacro>) -> Option<Uses> {
        if macros.is_empty() {
            return None;
        }
        // Leftmost-longest: `CK_TILE_DEVICE_EXTERN` is not a use of
        // `CK_TILE_DEVICE` cut short.
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(macros.iter().map(|m| m.name.as_str()))
            .ok()?;
        Some(Uses { ac, macros })
    }

    /// Whether the prefix is device code by these macros: a kernel macro
    /// once, or device macros [`DEVICE_USES`] times, each as a whole
    /// identifier (not its `#define` line).
    pub fn marks_device_code(&self, prefix: &[u8]) -> bool {
        let mut device = 0;
        for (i, end) in code_uses_at(&self.ac, prefix) {
            let m = &self.macros[i];
            if m.bare {
                if entry_at_line_start(prefix, end - m.name.len(), end) {
                    return true;
                }
                continue;
            }
            if m.kernel {
                return true;
            }
            device += 1;
            if device >= DEVICE_USES {
                return true;
            }
        }
        false
    }
}

/// Whether the macro use at `start..end` opens a kernel entry at the
/// start of its line: `KERNEL void f(`, `extern "C" KERNEL void f(`,
/// `static KERNEL void f(`, and `KERNEL void` with the name on the next
/// line.
fn entry_at_line_start(prefix: &[u8], start: usize, end: usize) -> bool {
    let line_start = memchr::memrchr(b'\n', &prefix[..start]).map_or(0, |i| i + 1);
    let before = prefix[line_start..start].trim_ascii();
    let qualifiers = [&b"extern \"C\""[..], b"static", b"inline", b"static inline"];
    (before.is_empty() || qualifiers.contains(&before))
        && prefix[end..]
            .trim_ascii_start()
            .strip_prefix(b"void")
            .is_some_and(|rest| rest.first().is_some_and(u8::is_ascii_whitespace))
}

/// The patterns of `ac` the prefix uses as code: each match a whole
/// identifier, not on a preprocessor line (its `#define`, an `#if`).
pub(super) fn code_uses<'a>(
    ac: &'a AhoCorasick,
    prefix: &'a [u8],
) -> impl Iterator<Item = usize> + 'a {
    code_uses_at(ac, prefix).map(|(i, _)| i)
}

/// As [`code_uses`], with where each use ends.
fn code_uses_at<'a>(
    ac: &'a AhoCorasick,
    prefix: &'a [u8],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    ac.find_iter(prefix).filter_map(move |m| {
        let before = m.start().checked_sub(1).map(|i| prefix[i]);
        let after = prefix.get(m.end()).copied();
        if before.is_some_and(ident) || after.is_some_and(ident) {
            return None;
        }
        let line_start = memchr::memrchr(b'\n', &prefix[..m.start()]).map_or(0, |i| i + 1);
        let directive = prefix[line_start..m.start()]
            .trim_ascii_start()
            .starts_with(b"#");
        (!directive).then(|| (m.pattern().as_usize(), m.end()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::init::macro_defs::defined;

    #[test]
    fn device_code_is_a_kernel_macro_once_or_a_device_macro_three_times() {
        let uses = Uses::new(defined(
            b"#define ROCPRIM_DEVICE __device__\n#define ROCPRIM_KERNEL __global__\n",
        ))
        .unwrap();
        assert!(uses.marks_device_code(b"ROCPRIM_KERNEL void scan_kernel(int* p) {}\n"));
        let helpers = b"ROCPRIM_DEVICE int a();\nROCPRIM_DEVICE int b();\n";
        assert!(!uses.marks_device_code(helpers));
        assert!(uses.marks_device_code(&[&helpers[..], b"ROCPRIM_DEVICE int c();\n"].concat()));
        // A longer macro is its own name, not a use of the shorter one.
        let tile = Uses::new(defined(
            b"#define CK_TILE_DEVICE __device__\n#define CK_TILE_DEVICE_EXTERN __device__\n",
        ))
        .unwrap();
        let longer =
            b"CK_TILE_DEVICE_EXTERN a();\nCK_TILE_DEVICE_EXTERN b();\nCK_TILE_DEVICE c();\n";
        assert!(tile.marks_device_code(longer));
        // The definition, and a longer name, are not uses.
        assert!(!uses.marks_device_code(
            b"#define ROCPRIM_KERNEL __global__\nint ROCPRIM_KERNEL_COUNT = 1;\n"
        ));
    }

    #[test]
    fn a_bare_kernel_macro_counts_only_from_a_kernel_source_and_at_an_entry() {
        use crate::surface::init::macro_defs::defined_in_kernel_source;
        let common =
            b"#define KERNEL extern \"C\" __global__\n#define DEVICE __device__\n#define GLOBAL\n";
        // A public header's bare `KERNEL` is no one's keyword.
        assert!(defined(common).is_empty());
        let macros = defined_in_kernel_source(common);
        assert_eq!(macros.len(), 1, "{macros:?}");
        assert!(macros[0].bare && macros[0].kernel);
        let uses = Uses::new(macros).unwrap();
        assert!(uses.marks_device_code(
            b"/* Born radii */\nKERNEL void reduceBornSum(GLOBAL const float* s) {\n}\n"
        ));
        assert!(uses.marks_device_code(b"extern \"C\" KERNEL void k(int n) {}\n"));
        assert!(uses.marks_device_code(b"static KERNEL void k(int n) {}\n"));
        assert!(uses.marks_device_code(b"KERNEL void\nk(int n) {}\n"));
        assert!(!uses.marks_device_code(b"KERNEL voidness = 1;\n"));
        // The word elsewhere: a condition, an argument, a table.
        assert!(!uses.marks_device_code(b"if (mode == KERNEL) run();\n"));
        assert!(!uses.marks_device_code(b"#ifdef KERNEL\nint x;\n#endif\n"));
        assert!(!uses.marks_device_code(b"static const char* names[] = { KERNEL };\n"));
    }
}
