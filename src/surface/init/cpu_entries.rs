//! The entry points of a CPU SIMD source: the functions it defines for
//! other code to call. A GPU kernel names itself (`__global__ void
//! rmsnorm_kernel(`); a SIMD source's kernels are its exported functions
//! — libfacedetection's `hw_kernels_intrinsics.cpp` defines
//! `convolution_1x1pointwise` and `depthwise_conv3x3`, a Rust crate's
//! `x86.rs` its `pub unsafe fn conv_…` — while its `static inline`
//! helpers (loads, horizontal sums) say how, not what. When a file's own
//! name says only how it is written, these names are read as its name
//! (see `signals::entry_tokens`).
//!
//! A definition is found the way universal-ctags' C parser finds one: an
//! identifier followed by a parameter list and then a body, not a `;`. In
//! C and C++ only definitions that start a line and are not `static` or
//! `inline` count (the exported ones); in Rust, `pub fn` anywhere and
//! `fn` at the start of a line.

use super::detect;

/// The names of the functions a C-family or Rust source defines for other
/// code, in order, at most `at_most`. Headers are not read: all their
/// functions are inline helpers as often as kernels.
pub fn names(path: &str, text: &str, at_most: usize) -> Vec<String> {
    let rust = path.ends_with(".rs");
    if !rust && !detect::is_c_source(path) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let name = match rust {
            true => rust_definition(line),
            false => c_definition(line),
        };
        // The line holds no `;` or `{` before the name, so the body test
        // may start at the line.
        let Some(name) = name.filter(|_| has_body(&text[start..])) else {
            continue;
        };
        if !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
            if out.len() == at_most {
                break;
            }
        }
    }
    out
}

/// Words that open a line which is no exported definition, or qualify
/// one that is not exported.
const NOT_EXPORTED: &[&str] = &[
    "static",
    "inline",
    "return",
    "if",
    "for",
    "while",
    "switch",
    "else",
    "case",
    "do",
    "typedef",
    "template",
    "using",
    "namespace",
    "struct",
    "class",
    "enum",
    "union",
    "extern",
    "goto",
    "sizeof",
    "__forceinline",
    "__inline",
    "constexpr",
    "operator",
    "delete",
    "new",
    "public",
    "private",
    "protected",
    "friend",
    "virtual",
];

/// The function a C / C++ line defines, when it starts the line: the
/// identifier before the line's first `(`, after a return type.
fn c_definition(line: &str) -> Option<&str> {
    let first = line.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let open = line.find('(')?;
    let head = &line[..open];
    if head.contains(['=', ';', '"', '#', '{', '}']) {
        return None;
    }
    let words: Vec<&str> = head
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| !w.is_empty())
        .collect();
    // A return type and a name at least: `void f(`, not a call `f(`.
    if words.len() < 2 || words.iter().any(|w| NOT_EXPORTED.contains(w)) {
        return None;
    }
    let name = words.last()?.rsplit("::").next()?;
    let upper = name.bytes().all(|b| !b.is_ascii_lowercase());
    (!name.is_empty() && !upper && !name.as_bytes()[0].is_ascii_digit()).then_some(name)
}

/// The function a Rust line defines for other code: `pub [unsafe]
/// [extern "C"] fn NAME`, an `impl` block's methods too.
fn rust_definition(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if !trimmed.starts_with("pub ") && !trimmed.starts_with("pub(") {
        return None;
    }
    let at = trimmed.find("fn ")?;
    let rest = &trimmed[at + 3..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    let opens = rest[end..].trim_start().starts_with(['(', '<']);
    (opens && !name.is_empty()).then_some(name)
}

/// Whether the definition from `from` reaches a body (`{`) before a `;`:
/// a definition, not a prototype.
fn has_body(from: &str) -> bool {
    match from.find(['{', ';']) {
        Some(i) => from.as_bytes()[i] == b'{',
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exported_c_definitions_are_entries_and_static_helpers_are_not() {
        let text = "#include <immintrin.h>\n\
            static inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }\n\
            void convolution_1x1pointwise(const float* in, float* out,\n    int n)\n{\n  load8(in);\n}\n\
            void depthwise_conv3x3(const float* in, float* out);\n\
            int HW_API maxpooling2x2(float* x) {\n  return 0;\n}\n";
        assert_eq!(
            names("src/hw_kernels.cpp", text, 8),
            ["convolution_1x1pointwise", "maxpooling2x2"]
        );
    }

    #[test]
    fn calls_macros_and_headers_are_not_entries() {
        let text = "DEFINE_KERNEL(add)\nfoo(bar);\nint x = f(y);\n  void indented(int a) {}\n";
        assert!(names("a.c", text, 8).is_empty());
        assert!(names("a.h", "void f(int a) {}\n", 8).is_empty());
    }

    #[test]
    fn rust_public_functions_are_entries() {
        let text = "use std::arch::x86_64::*;\n\
            #[target_feature(enable = \"avx2\")]\n\
            pub unsafe fn conv3x3_avx2(x: &[f32]) -> f32 {\n  0.0\n}\n\
            unsafe fn hsum(v: __m256) -> f32 { 0.0 }\n\
            impl K {\n    pub fn pool_max<T>(&self) {}\n}\n";
        assert_eq!(
            names("src/kernels/x86.rs", text, 8),
            ["conv3x3_avx2", "pool_max"]
        );
    }
}
