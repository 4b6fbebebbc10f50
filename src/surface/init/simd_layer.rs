//! A repository's own SIMD layer: the vector types and macros its SIMD
//! headers define over the ISA's intrinsics (astc-encoder's `struct
//! vfloat4 { __m128 m; … }` in `astcenc_vecmathlib_sse_4.h`, abPOA's
//! `#define SIMDMaxi16(x,y) _mm512_max_epi16(x,y)`). The kernels written against
//! that layer carry no intrinsic of their own: once the scan has seen the
//! definitions, the C-family files that are no kernel yet are read again,
//! and those that compute with the layer's names join as SIMD kernels of
//! the kind of the headers that define them.
//!
//! This is the CPU side of what [`super::device_macros`] does for a GPU
//! library's names for `__global__` and `__device__`.

use std::collections::BTreeMap;
use std::path::Path;

use aho_corasick::{AhoCorasick, MatchKind};

use super::detect::{self, Detector, Kind};
use super::device_macros::code_uses;
use super::macro_defs::logical_line;
use super::signals::Signals;
use super::{computes, join_adopted, not_kernels_yet, reread_kinds, without_comments, Found};

/// One name of the layer and the kind of the header that defines it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LayerName {
    pub name: String,
    pub kind: Kind,
}

/// How far past a type's opening brace its members are looked for.
const MEMBERS_BYTES: usize = 512;

/// The shortest name counted: `V4` or `vec` is too common a word.
const SHORTEST_NAME: usize = 4;

/// Whether a name is the layer's own, not a word any code uses: long
/// enough, with a digit, an underscore or a capital past its first letter
/// (`vfloat4`, `SIMDi`, `v8sf`, `SIMD_ADD`; not a template's `Type`).
fn distinctive(name: &str) -> bool {
    name.len() >= SHORTEST_NAME
        && name
            .bytes()
            .skip(1)
            .any(|b| b.is_ascii_digit() || b == b'_' || b.is_ascii_uppercase())
}

/// The names a CPU SIMD header of this kind defines over intrinsics: a
/// macro whose body holds one, a `struct` / `class` with one among its
/// first members, and a `typedef` or `using` alias of one.
pub fn defined(detector: &Detector, prefix: &[u8], kind: Kind) -> Vec<LayerName> {
    let simd = |text: &[u8]| {
        detector
            .scan("layer.h", text)
            .kind
            .is_some_and(Kind::is_cpu_simd)
    };
    let text = without_comments(prefix);
    let prefix = text.as_slice();
    let mut names: Vec<String> = Vec::new();
    let mut keep = |name: &str| {
        if distinctive(name) && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    };
    for at in memchr::memmem::find_iter(prefix, b"#define") {
        let line = logical_line(&prefix[at + b"#define".len()..]);
        let line = line.as_bytes().trim_ascii_start();
        let (name, body) = split_ident(line);
        if !name.is_empty() && simd(body) {
            keep(name);
        }
    }
    for keyword in [&b"struct "[..], b"class "] {
        for at in memchr::memmem::find_iter(prefix, keyword) {
            if at > 0 && is_ident(prefix[at - 1]) {
                continue;
            }
            let rest = &prefix[at + keyword.len()..];
            let (name, after) = split_ident(rest.trim_ascii_start());
            let Some(open) = memchr::memchr2(b'{', b';', after) else {
                continue;
            };
            // `struct vfloat4 final : base {`, not `struct x;` or a
            // parameter's `struct x *p)`.
            if after[open] != b'{' || after[..open].contains(&b'(') {
                continue;
            }
            let members = body(&after[open..after.len().min(open + MEMBERS_BYTES)]);
            if !name.is_empty() && simd(members) {
                keep(name);
            }
        }
    }
    for at in memchr::memmem::find_iter(prefix, b"typedef ") {
        let rest = &prefix[at..];
        let Some(end) = memchr::memchr(b';', rest).filter(|&e| e < 256) else {
            continue;
        };
        let text = &rest[..end];
        let name_start = text
            .iter()
            .rposition(|&b| !is_ident(b))
            .map_or(0, |i| i + 1);
        let name = std::str::from_utf8(&text[name_start..]).unwrap_or("");
        if simd(&text[..name_start]) {
            keep(name);
        }
    }
    for at in memchr::memmem::find_iter(prefix, b"using ") {
        let rest = &prefix[at + b"using ".len()..];
        let (name, after) = split_ident(rest);
        let after = after.trim_ascii_start();
        let Some(value) = after.strip_prefix(b"=") else {
            continue;
        };
        let end = memchr::memchr(b';', value).unwrap_or(value.len()).min(256);
        if simd(&value[..end]) {
            keep(name);
        }
    }
    names
        .into_iter()
        .map(|name| LayerName { name, kind })
        .collect()
}

/// Read again the C-family files that are no kernel yet, and adopt those
/// that compute with the layer (see [`Uses::kind_of`]).
pub(super) fn adopt_users(
    root: &Path,
    found: &mut Vec<Found>,
    candidates: &[&str],
    names: Vec<LayerName>,
    signals: &Signals,
) {
    let Some(uses) = Uses::new(names) else {
        return;
    };
    // Infrastructure (a timer, a feature probe) stays out, as everywhere.
    let c_family = |p: &str| {
        (detect::is_c_source(p) || detect::is_header(p)) && detect::infrastructure(p).is_none()
    };
    let unmarked = not_kernels_yet(found, candidates, |f| f.kind.is_none(), c_family);
    let adopted = reread_kinds(root, &unmarked, signals, |prefix| uses.kind_of(prefix));
    join_adopted(found, adopted);
}

/// How often the layer's names must occur, and how many of them, for a
/// file to be written with it: a host file that passes one vector type
/// through does not.
const USES: usize = 3;
const DISTINCT: usize = 2;

/// Finds the uses of a SIMD layer's names in a prefix.
pub struct Uses {
    ac: AhoCorasick,
    names: Vec<LayerName>,
}

impl Uses {
    pub fn new(mut names: Vec<LayerName>) -> Option<Uses> {
        names.sort();
        names.dedup_by(|a, b| a.name == b.name && a.kind == b.kind);
        if names.is_empty() {
            return None;
        }
        // Leftmost-longest: `vfloat4` is not a use of `vfloat` cut short.
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(names.iter().map(|n| n.name.as_str()))
            .ok()?;
        Some(Uses { ac, names })
    }

    /// The kind a file written with the layer takes: it uses the layer's
    /// names [`USES`] times, [`DISTINCT`] of them, each as a whole
    /// identifier outside preprocessor lines, and computes (a loop or
    /// inline assembly, see [`computes`]); the kind is the one most of
    /// its uses' definitions have.
    pub fn kind_of(&self, prefix: &[u8]) -> Option<Kind> {
        let mut used: BTreeMap<&str, usize> = BTreeMap::new();
        for i in code_uses(&self.ac, prefix) {
            *used.entry(self.names[i].name.as_str()).or_default() += 1;
        }
        if used.len() < DISTINCT || used.values().sum::<usize>() < USES || !computes(prefix) {
            return None;
        }
        let mut kinds: BTreeMap<Kind, usize> = BTreeMap::new();
        for n in &self.names {
            if let Some(&count) = used.get(n.name.as_str()) {
                *kinds.entry(n.kind).or_default() += count;
            }
        }
        kinds
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(k, _)| k)
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The text of a `{ … }` block up to its closing brace (all of it when
/// that is further away).
fn body(block: &[u8]) -> &[u8] {
    let mut depth = 0usize;
    for (i, &b) in block.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &block[..i];
                }
            }
            _ => {}
        }
    }
    block
}

/// The identifier a text starts with, and the rest.
fn split_ident(text: &[u8]) -> (&str, &[u8]) {
    let end = text
        .iter()
        .position(|&b| !is_ident(b))
        .unwrap_or(text.len());
    let name = std::str::from_utf8(&text[..end]).unwrap_or("");
    let name = match name.bytes().next() {
        Some(b) if b.is_ascii_digit() => "",
        _ => name,
    };
    (name, &text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &[u8]) -> Vec<String> {
        defined(&Detector::new(), text, Kind::SimdX86)
            .into_iter()
            .map(|n| n.name)
            .collect()
    }

    #[test]
    fn a_layer_is_its_types_macros_and_aliases_over_intrinsics() {
        let header = b"#include <immintrin.h>\n\
            struct vfloat4 final\n{\n\tvfloat4() = default;\n\t__m128 m;\n};\n\
            struct config { int blocks; float weight; };\n\
            // a class that holds __m256 lanes\n\
            template <typename T> struct Pack { typedef __m256 Type; };\n\
            #define SIMDAdd16 _mm256_add_epi16\n\
            #define SIMD_WIDTH 16\n\
            #define SIMDMax(a, b) \\\n   _mm256_max_epi16(a, b)\n\
            typedef __m256i SIMDi;\n\
            using vint8 = __m256i;\n\
            void f(struct config *c);\n";
        assert_eq!(
            names(header),
            ["SIMDAdd16", "SIMDMax", "vfloat4", "SIMDi", "vint8"]
        );
    }

    #[test]
    fn a_file_written_with_the_layer_computes_with_its_names() {
        let layer = defined(
            &Detector::new(),
            b"struct vfloat4 { __m128 m; };\nstruct vint4 { __m128i m; };\n",
            Kind::SimdX86,
        );
        let uses = Uses::new(layer).unwrap();
        let kernel = b"void avg(const float* p, int n) {\n\
            vfloat4 sum = vfloat4::zero();\n\
            for (int i = 0; i < n; i += 4) { vfloat4 v = vfloat4(p + i); sum += v; }\n\
            vint4 lanes(1);\n}\n";
        assert_eq!(uses.kind_of(kernel), Some(Kind::SimdX86));
        // One name only, however often: a file that passes a type through.
        let passes = b"vfloat4 get(); vfloat4 put(vfloat4 v) { for (;;) {} }\n";
        assert_eq!(uses.kind_of(passes), None);
        // No loop: a wrapper that forwards.
        let forwards = b"vfloat4 f(vint4 a) { return vfloat4(a); }\nvint4 g();\n";
        assert_eq!(uses.kind_of(forwards), None);
        // Longer identifiers and preprocessor lines are not uses.
        let others = b"#if vfloat4 vint4\n#endif\nvfloat4x vint4_t vfloat4y;\nfor (;;) {}\n";
        assert_eq!(uses.kind_of(others), None);
    }
}
