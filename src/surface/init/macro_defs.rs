//! A library's own names for device-code keywords, read from its
//! `#define` lines: `#define ROCPRIM_KERNEL __global__ static`,
//! `#define ROCSPARSE_KERNEL(N) \\` continued by `__launch_bounds__(N)
//! static __global__`. The definition names the keyword; it is no device
//! code itself (see [`defines_keyword_at`]).

/// A macro that stands for a device-code keyword.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceMacro {
    pub name: String,
    /// It stands for `__global__` (a kernel entry), else for `__device__`.
    pub kernel: bool,
    /// An unprefixed name (`KERNEL`) defined in a GPU kernel source: a
    /// portable kernel language's keyword (OpenMM's common compute
    /// kernels, written once for CUDA, HIP and OpenCL). Only a kernel
    /// entry at a line start (`KERNEL void f(`) uses it; the bare word
    /// alone is other code's too.
    pub bare: bool,
}

/// The device macros a C-family prefix defines.
pub fn defined(prefix: &[u8]) -> Vec<DeviceMacro> {
    defined_as(prefix, false)
}

/// The device macros a GPU kernel source defines (a `.cu`, `.cuh` or
/// `.hip` file): unprefixed kernel macros too (OpenMM's `common.cu`:
/// `#define KERNEL extern "C" __global__`).
pub fn defined_in_kernel_source(prefix: &[u8]) -> Vec<DeviceMacro> {
    defined_as(prefix, true)
}

fn defined_as(prefix: &[u8], kernel_source: bool) -> Vec<DeviceMacro> {
    let mut out = Vec::new();
    for at in memchr::memmem::find_iter(prefix, b"#define") {
        let rest = &prefix[at + b"#define".len()..];
        if let Some(m) = device_macro(&logical_line(rest), kernel_source) {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out
}

/// The function-like macros a C-family prefix defines whose body is an
/// explicit instantiation (`#define INSTANTIATE_GETF2_SMALL(T, …) \` then
/// `template rocblas_status getf2_run_small<T, …>(…);`): a unit that
/// calls one at a line start instantiates, as `template void f<…>(…);`
/// does.
pub fn instantiation_macros(prefix: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for at in memchr::memmem::find_iter(prefix, b"#define") {
        let line = logical_line(&prefix[at + b"#define".len()..]);
        let line = line.trim_start();
        let Some(open) = line.find('(') else { continue };
        let name = &line[..open];
        let prefixed = name.contains('_') && !name.starts_with("__");
        if !prefixed || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let Some(close) = line[open..].find(')') else {
            continue;
        };
        let body = line[open + close + 1..].trim_start();
        if body.starts_with("template ") && !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
    }
    out
}

/// Whether the text at `at` lies in a `#define` of a device macro (its
/// body, on the `#define` line or a line it continues onto with `\\`).
pub fn defines_keyword_at(prefix: &[u8], at: usize) -> bool {
    let line_start = |end: usize| memchr::memrchr(b'\n', &prefix[..end]).map_or(0, |i| i + 1);
    let mut start = line_start(at);
    // Walk back over the lines that a trailing `\\` continues.
    for _ in 0..8 {
        let trimmed = prefix[start..].trim_ascii_start();
        if let Some(rest) = trimmed.strip_prefix(b"#") {
            return match rest.trim_ascii_start().strip_prefix(b"define") {
                Some(define) => device_macro(&logical_line(define), true).is_some(),
                None => false,
            };
        }
        if start == 0 || !prefix[..start - 1].trim_ascii_end().ends_with(b"\\") {
            return false;
        }
        start = line_start(start - 1);
    }
    false
}

/// How many function-like macros must hold statements for a header of
/// macros to be code: one is a helper any header may define.
const STATEMENT_MACROS: usize = 2;

/// Whether the text defines code as macros: [`STATEMENT_MACROS`] or more
/// function-like `#define`s whose body holds a statement (a `;`), as
/// TurboPFor's `bitpack_.h` writes every bit width's SIMD packer
/// (`#define BITBLK128V32_1(ip, i, op, parm) { __m128i ov, iv; … }`), or
/// lines of an inline-assembly template (`"trn1 " #D0".d, …\n\t"`, BLIS's
/// SVE transposes). A macro that names a value or a type (`#define MAX(a,
/// b) ((a) > (b) ? (a) : (b))`) holds neither.
pub fn defines_statement_macros(text: &[u8]) -> bool {
    memchr::memmem::find_iter(text, b"#define")
        .filter(|&at| {
            let line = logical_line(&text[at + b"#define".len()..]);
            let (name, rest) = split_name(&line);
            !name.is_empty()
                && rest.starts_with('(')
                && rest.find(')').is_some_and(|close| {
                    let body = &rest[close..];
                    body.contains(';') || body.contains("\\n\\t\"")
                })
        })
        .nth(STATEMENT_MACROS - 1)
        .is_some()
}

/// A `#define` line's macro name and what follows it (its parameters and
/// body).
fn split_name(line: &str) -> (&str, &str) {
    let line = line.trim_start();
    let name_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    line.split_at(name_end)
}

/// The text up to the end of a logical line: a `\` before the newline
/// continues it (`#define ROCSPARSE_KERNEL(N) \` puts its body below).
pub(super) fn logical_line(rest: &[u8]) -> String {
    let mut line = String::new();
    let mut rest = rest;
    loop {
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let part = String::from_utf8_lossy(&rest[..end]);
        match part.trim_end().strip_suffix('\\') {
            Some(head) if end < rest.len() && line.len() < 512 => {
                line.push_str(head);
                line.push(' ');
                rest = &rest[end + 1..];
            }
            _ => {
                line.push_str(&part);
                return line;
            }
        }
    }
}

/// `NAME BODY` or `NAME(PARAMS) BODY` of one `#define`, when BODY is
/// device-code keywords only (`__global__ static`, `__forceinline__
/// __device__`, `__launch_bounds__(N, M) static __global__`).
fn device_macro(line: &str, kernel_source: bool) -> Option<DeviceMacro> {
    let (name, mut body) = split_name(line);
    // A library's prefixed name (`ROCPRIM_DEVICE`); a bare `DEVICE` or
    // `KERNEL` is a word other code uses too, unless a kernel source
    // defines it as a kernel entry (see [`DeviceMacro::bare`]).
    let bare = !name.contains('_');
    if name.is_empty() || name.starts_with("__") || (bare && !kernel_source) {
        return None;
    }
    if body.starts_with('(') {
        // A function-like macro: its parameters are no part of the body.
        body = &body[body.find(')')? + 1..];
    } else if !body.starts_with(char::is_whitespace) {
        return None;
    }
    let body = without_launch_bound_arguments(body);
    let words: Vec<&str> = body.split_whitespace().collect();
    let keyword = |w: &&str| {
        matches!(
            *w,
            "__global__"
                | "__device__"
                | "__forceinline__"
                | "__inline__"
                | "inline"
                | "static"
                | "__launch_bounds__"
                | "extern"
                | "\"C\""
        )
    };
    if words.is_empty() || words.len() > 4 || !words.iter().all(keyword) {
        return None;
    }
    let kernel = words.contains(&"__global__");
    if bare && !kernel {
        return None;
    }
    (kernel || words.contains(&"__device__")).then(|| DeviceMacro {
        name: name.to_owned(),
        kernel,
        bare,
    })
}

/// The body with the argument list of each `__launch_bounds__(...)` cut
/// out, so `__launch_bounds__(N, M)` reads as one keyword.
fn without_launch_bound_arguments(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find("__launch_bounds__") {
        let after = &rest[at + "__launch_bounds__".len()..];
        out.push_str(&rest[..at]);
        out.push_str("__launch_bounds__ ");
        rest = match after.trim_start().strip_prefix('(') {
            Some(args) => match args.find(')') {
                Some(close) => &args[close + 1..],
                None => return out + after,
            },
            None => after,
        };
    }
    out + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_with_statement_bodies_are_code_and_value_macros_are_not() {
        let code = b"#define BLK_1(ip, op) { __m128i v = _mm_loadu_si128(ip); \\\n  _mm_storeu_si128(op, v); }\n#define BLK_2(ip, op) { op[0] = ip[0]; }\n";
        assert!(defines_statement_macros(code));
        let one = b"#define BLK_1(ip, op) { op[0] = ip[0]; }\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n";
        assert!(!defines_statement_macros(one));
        let values = b"#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define N 4\n#define SEMI ;\n";
        assert!(!defines_statement_macros(values));
        // Inline-assembly templates are code; strings that name an
        // instruction (a per-precision `#define LD1 "ld1d"`) are values.
        let asm = b"#define TRN_D8X2(D0, D1, S0, S1) \\\n  \"trn1 \" #D0\".d, \" #S0\".d \\n\\t\" \\\n  \"trn2 \" #D1\".d, \" #S1\".d \\n\\t\"\n#define CMP_D(D, P) \\\n  \"compact \" #D\".d, \" #P \"\\n\\t\"\n";
        assert!(defines_statement_macros(asm));
        let names = b"#define LD1 \"ld1d\"\n#define ST1 \"st1d\"\n#define OP(x) \"x\"\n";
        assert!(!defines_statement_macros(names));
    }

    use crate::surface::init::device_macros::Uses;

    /// Each macro a text defines: its name, and whether it marks a kernel.
    fn names(text: &[u8]) -> Vec<(String, bool)> {
        defined(text)
            .into_iter()
            .map(|m| (m.name, m.kernel))
            .collect()
    }

    #[test]
    fn a_library_names_its_device_keywords() {
        let config = b"#ifdef __HIP__\n    #define ROCPRIM_DEVICE __device__\n    #define ROCPRIM_HOST_DEVICE __host__ __device__\n    #define ROCPRIM_KERNEL __global__ static\n#define ROCPRIM_INLINE inline\n#define CUTLASS_DEVICE __forceinline__ __device__\n#define LAUNCH(k) k<<<1, 1>>>()\n#define KERNEL __global__\n";
        assert_eq!(
            names(config),
            [
                ("ROCPRIM_DEVICE".to_owned(), false),
                ("ROCPRIM_KERNEL".to_owned(), true),
                ("CUTLASS_DEVICE".to_owned(), false),
            ]
        );
    }

    #[test]
    fn a_function_like_macro_continued_on_the_next_line_is_read_whole() {
        let types = b"#define ROCSPARSE_KERNEL_W(MAX_THREADS, MIN_WARPS) \\\n    __launch_bounds__(MAX_THREADS, MIN_WARPS) static __global__\n#define ROCSPARSE_KERNEL(MAX_THREADS) \\\n    __launch_bounds__(MAX_THREADS) static __global__\n#define ROCSPARSE_DEVICE_ILF static __device__ __forceinline__\n#define ROCSPARSE_MAX(a, b) ((a) > (b) ? (a) : (b))\n#define ROCSPARSE_CHECK(x) \\\n    do { x; } while (0)\n";
        assert_eq!(
            names(types),
            [
                ("ROCSPARSE_KERNEL_W".to_owned(), true),
                ("ROCSPARSE_KERNEL".to_owned(), true),
                ("ROCSPARSE_DEVICE_ILF".to_owned(), false),
            ]
        );
        let uses = Uses::new(defined(types)).unwrap();
        assert!(uses.marks_device_code(
            b"template <uint32_t B>\nROCSPARSE_KERNEL(B)\nvoid bsr2csr_kernel(int* p) {}\n"
        ));
    }

    #[test]
    fn a_definition_names_the_keyword_and_is_no_use_of_it() {
        let text = b"#define LIB_KERNEL(N) \\\n    __launch_bounds__(N) static __global__\n#define LIB_DEVICE __device__\n#define MAKE_KERNEL(name) __global__ void name(float* p) { p[0] = 0; }\n__global__ void real(float* p) {}\n";
        let at = |needle: &str, nth: usize| {
            memchr::memmem::find_iter(text, needle.as_bytes())
                .nth(nth)
                .unwrap()
        };
        assert!(defines_keyword_at(text, at("__global__", 0)));
        assert!(defines_keyword_at(text, at("__device__", 0)));
        // A macro whose body is a kernel defines one; a kernel is a use.
        assert!(!defines_keyword_at(text, at("__global__", 1)));
        assert!(!defines_keyword_at(text, at("__global__", 2)));
    }

    #[test]
    fn a_macro_whose_body_is_an_explicit_instantiation_is_read() {
        let prefix = b"#define INSTANTIATE_GETF2_SMALL(T, I)                  \\\n    template rocblas_status getf2_run_small<T, I>(I m, T* A);\n#define ROCSOLVER_KERNEL static __global__\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define DECL_ONLY(T) void f(T);\n";
        assert_eq!(instantiation_macros(prefix), ["INSTANTIATE_GETF2_SMALL"]);
    }
}
