//! Whether a C-family file holds code or only declares: prototypes,
//! constants, type and parameter structs, macros. A GPU header with no
//! device marker of its own that also holds no function body is the
//! kernel's interface to the host (`kernel.h` declaring a launcher, a
//! `params.h`, a shape list), not a part of the kernel.
//!
//! A one-pass lexer over the prefix: comments, string and character
//! literals and preprocessor lines are skipped; a `{` that follows a `)`
//! (optionally through `const`, `noexcept`, `override`, `final`,
//! `mutable`, a trailing return type) opens a function body, a lambda or
//! a control statement — code. So does a `)` that ends its line with no
//! `;` and a word on the next: a macro call that instantiates kernels
//! (`define_dot_(f32, neon)` line after line), which a prototype never is.

/// True when the text holds no function body, lambda or statement block.
pub fn declares_only(src: &[u8]) -> bool {
    let mut lexer = Lexer::new(src);
    // The significant tokens before the current one: enough to see
    // `) const {` and `) -> T {`.
    let mut last: [Token; 3] = [Token::Other; 3];
    while let Some(token) = lexer.next_token() {
        if token == Token::OpenBrace && opens_body(&last) {
            return false;
        }
        if matches!(token, Token::Word | Token::Macro | Token::Device)
            && last[2] == Token::CloseParen
            && lexer.new_line
        {
            return false;
        }
        // A run of qualifiers after `)` reads as one (`) const override {`).
        let qualifier_run = matches!(token, Token::Qualifier | Token::Macro)
            && matches!(
                last,
                [_, Token::CloseParen, Token::Qualifier | Token::Macro]
            );
        if !qualifier_run {
            last = [last[1], last[2], token];
        }
    }
    true
}

/// True when the text marks device code (`__global__`, `__device__`) and
/// every mark starts a declaration: the first `;` or `{` after it, outside
/// parentheses, is a `;` (`__global__ void k(Inputs in);`). The kernels
/// are defined elsewhere, whatever host helpers the header also defines
/// (XSBench's `XSbench_header.cuh`: prototypes of every kernel and an
/// inline `gpuAssert`).
pub fn device_code_declared_only(src: &[u8]) -> bool {
    let mut lexer = Lexer::new(src);
    let (mut seen, mut pending, mut depth) = (false, false, 0usize);
    while let Some(token) = lexer.next_token() {
        match token {
            Token::Device => (seen, pending, depth) = (true, true, 0),
            _ if !pending => {}
            Token::OpenParen => depth += 1,
            Token::CloseParen => depth = depth.saturating_sub(1),
            Token::Semicolon if depth == 0 => pending = false,
            Token::OpenBrace if depth == 0 => return false,
            _ => {}
        }
    }
    seen && !pending
}

/// True when the text holds nothing but comments and preprocessor lines
/// (a unit that only sets macros and includes).
pub fn preprocessor_only(src: &[u8]) -> bool {
    Lexer::new(src).next_token().is_none()
}

/// True when the text declares a function: a name, its parameters and
/// a `;` (through qualifiers, `= 0`, `= default`), outside an
/// initializer. With [`declares_only`], the mark of a host interface (a
/// launcher's prototype, a class's methods), which a header of device
/// types and constants (`static_assert`, `using`, `concept`) or an
/// umbrella of includes is not.
pub fn declares_a_function(src: &[u8]) -> bool {
    let mut lexer = Lexer::new(src);
    let mut previous = Token::Other;
    // Per statement: an `=` before any parameter list (an initializer),
    // the depth of parentheses, whether the outermost group open follows
    // a name, and whether such a group closed.
    let (mut initializer, mut depth) = (false, 0usize);
    let (mut parameters, mut after_parameters) = (false, false);
    while let Some(token) = lexer.next_token() {
        match token {
            Token::OpenParen => {
                if depth == 0 {
                    parameters = previous == Token::Word && !initializer && !after_parameters;
                }
                depth += 1;
            }
            Token::CloseParen if depth > 0 => {
                depth -= 1;
                after_parameters |= depth == 0 && parameters;
            }
            Token::Semicolon if depth == 0 && after_parameters => return true,
            Token::Semicolon | Token::OpenBrace | Token::CloseBrace if depth == 0 => {
                (initializer, after_parameters) = (false, false);
            }
            Token::Equals if depth == 0 && !after_parameters => initializer = true,
            _ => {}
        }
        previous = token;
    }
    false
}

/// Whether the tokens before a `{` make it a body: `)` directly, or
/// through a run of qualifier words (`const override`, or a library's own macro:
/// `) NK_STREAMING_COMPATIBLE_ {`), or through a trailing return `-> T`.
fn opens_body(last: &[Token; 3]) -> bool {
    matches!(
        last,
        [_, _, Token::CloseParen]
            | [_, Token::CloseParen, Token::Qualifier | Token::Macro]
            | [_, Token::Arrow, Token::Word]
            | [Token::Arrow, Token::Word, Token::Word]
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    OpenBrace,
    CloseBrace,
    OpenParen,
    CloseParen,
    Semicolon,
    Equals,
    Arrow,
    /// `const`, `noexcept`, `override`, `final`, `mutable`.
    Qualifier,
    /// An upper-case word: a library's own qualifier macro.
    Macro,
    /// `__global__` or `__device__`: what starts device code.
    Device,
    /// A word that takes parentheses but names no function:
    /// `static_assert`, `decltype`, `sizeof`, `alignof`, `alignas`.
    Operator,
    Word,
    Other,
}

struct Lexer<'a> {
    src: &'a [u8],
    at: usize,
    /// Whether a line ended between the last token and this one.
    new_line: bool,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer {
            src,
            at: 0,
            new_line: false,
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.at + ahead).copied()
    }

    fn next_token(&mut self) -> Option<Token> {
        self.new_line = false;
        loop {
            let b = self.peek(0)?;
            match b {
                b'\n' => {
                    self.new_line = true;
                    self.at += 1;
                }
                b' ' | b'\t' | b'\r' => self.at += 1,
                b'/' if self.peek(1) == Some(b'/') => {
                    self.new_line = true;
                    self.skip_line();
                }
                b'/' if self.peek(1) == Some(b'*') => self.skip_block_comment(),
                b'#' if self.at_line_start() => {
                    self.new_line = true;
                    self.skip_line();
                }
                b'"' | b'\'' => {
                    self.skip_literal(b);
                    return Some(Token::Other);
                }
                b'{' => {
                    self.at += 1;
                    return Some(Token::OpenBrace);
                }
                b')' => {
                    self.at += 1;
                    return Some(Token::CloseParen);
                }
                b'}' | b'(' | b';' | b'=' => {
                    self.at += 1;
                    return Some(match b {
                        b'}' => Token::CloseBrace,
                        b'(' => Token::OpenParen,
                        b';' => Token::Semicolon,
                        _ => Token::Equals,
                    });
                }
                b'-' if self.peek(1) == Some(b'>') => {
                    self.at += 2;
                    return Some(Token::Arrow);
                }
                b if b == b'_' || b.is_ascii_alphanumeric() => return Some(self.word()),
                _ => {
                    self.at += 1;
                    return Some(Token::Other);
                }
            }
        }
    }

    fn word(&mut self) -> Token {
        let start = self.at;
        while self
            .peek(0)
            .is_some_and(|b| b == b'_' || b.is_ascii_alphanumeric())
        {
            self.at += 1;
        }
        match &self.src[start..self.at] {
            b"__global__" | b"__device__" => Token::Device,
            b"static_assert" | b"decltype" | b"sizeof" | b"alignof" | b"alignas" | b"typeof" => {
                Token::Operator
            }
            b"const" | b"noexcept" | b"override" | b"final" | b"mutable" | b"__attribute__"
            | b"__declspec" | b"throw" | b"__THROW" | b"requires" | b"__launch_bounds__" => {
                Token::Qualifier
            }
            w if w.len() > 1
                && w.iter()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_') =>
            {
                Token::Macro
            }
            _ => Token::Word,
        }
    }

    /// Only blanks since the last newline: a `#` there starts a directive.
    fn at_line_start(&self) -> bool {
        self.src[..self.at]
            .iter()
            .rev()
            .take_while(|&&b| b != b'\n')
            .all(|&b| b == b' ' || b == b'\t')
    }

    /// To the end of the line, following `\` continuations (macros).
    fn skip_line(&mut self) {
        while let Some(b) = self.peek(0) {
            self.at += 1;
            match b {
                b'\\' if self.peek(0) == Some(b'\n') => self.at += 1,
                b'\\' if self.peek(0) == Some(b'\r') && self.peek(1) == Some(b'\n') => self.at += 2,
                b'\n' => return,
                _ => {}
            }
        }
    }

    fn skip_block_comment(&mut self) {
        self.at += 2;
        while let Some(b) = self.peek(0) {
            self.at += 1;
            if b == b'*' && self.peek(0) == Some(b'/') {
                self.at += 1;
                return;
            }
        }
    }

    fn skip_literal(&mut self, quote: u8) {
        self.at += 1;
        while let Some(b) = self.peek(0) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'\n' => return,
                b if b == quote => return,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{declares_a_function, declares_only, device_code_declared_only};

    #[test]
    fn device_code_declared_only_when_every_mark_starts_a_prototype() {
        let header = b"#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }\n\
            inline void gpuAssert(cudaError_t code, const char *file, int line) {\n  if (code) exit(code);\n}\n\
            typedef struct { double energy; } NuclideGridPoint;\n\
            __global__ void xs_lookup_kernel(Inputs in, SimulationData GSD);\n\
            __host__ __device__ long grid_search(long n, double q, double * __restrict__ A);\n\
            // __global__ void commented() { }\n";
        assert!(device_code_declared_only(header));
        for code in [
            &b"__global__ void k(float* x) { x[0] = 1.f; }"[..],
            b"struct Acc { __device__ float get() const { return v; } float v; };",
            b"__device__ int table[2] = {1, 2};",
            b"__global__ void k(int n);\n__device__ void f(int (*g)(int)) { g(1); }",
            b"inline void host_only() { }",
        ] {
            assert!(
                !device_code_declared_only(code),
                "{}",
                String::from_utf8_lossy(code)
            );
        }
    }

    #[test]
    fn a_prototype_or_a_method_declares_a_function_and_device_types_do_not() {
        for interface in [
            &b"void rms_norm_cuda(cudaStream_t s, const half* x,\n    int rows);"[..],
            b"class IVFBase {\n public:\n  IVFBase(int dim);\n  virtual void reset() = 0;\n};",
            b"void launch(int n) __attribute__((visibility(\"default\")));",
        ] {
            assert!(
                declares_a_function(interface),
                "{}",
                String::from_utf8_lossy(interface)
            );
        }
        for device_types in [
            // An umbrella of includes.
            &b"#pragma once\n#include \"types/types.cuh\"\n#include \"ops/ops.cuh\"\n"[..],
            // Layouts and traits: constants, assertions, aliases.
            b"struct naive { static constexpr bool row = true; };\ntemplate <typename T> concept all = std::is_same_v<T, naive>;",
            b"struct traits {\n  static constexpr int B_M = opus::get<0>(BLOCK{});\n  static_assert(BLOCK_SIZE / opus::get_warp_size() == T_M);\n  using T = decltype(make_tile(B_M));\n};",
            b"static const int dims[] = {f(1), f(2)};\nconstexpr int N = max(A, B);",
        ] {
            assert!(
                !declares_a_function(device_types),
                "{}",
                String::from_utf8_lossy(device_types)
            );
        }
    }

    #[test]
    fn prototypes_constants_structs_and_macros_only_declare() {
        let header = br#"
#pragma once
#include "params.h"
#define LAUNCH(K) \
    void K(int n) { body(); }
// void commented() { }
/* int f() { return 1; } */
namespace sm100::decode {
template <typename T>
void run_kernel(const Params &params);
struct Params { int n; float scale = 1.0f; };
struct alignas(16) Packed { int a; };
enum class Mode { A, B };
static constexpr int BLOCK = 64;
static const int dims[] = {1, 2};
const char *name = "f() { }";
class Launcher : public Base {
 public:
  Launcher(int n);
  ~Launcher();
  void run(cudaStream_t s) const;
  virtual int forward(const Mat& a,
                      const Option& opt) const;
};
void launch(int n)
    __attribute__((visibility("default")));
}
"#;
        assert!(declares_only(header));
    }

    #[test]
    fn a_function_body_a_method_body_or_a_lambda_is_code() {
        for code in [
            &b"__forceinline__ float warp_sum(float v) { return v; }"[..],
            b"struct S { int get() const { return n; } int n; };",
            // gemmlowp's SSE kernel: a body through two qualifiers.
            b"struct K : KernelBase {\n  void Run(int n) const override {\n    asm volatile(\"pxor %%xmm4, %%xmm4\");\n  }\n};",
            b"struct K { void f(int n) const noexcept final { g(n); } };",
            b"auto f(int x) -> int { return x; }",
            b"auto g = [&](int i) { return i; };",
            b"void f() noexcept\n{\n}",
            b"NK_INTERNAL float unpoison(float v) NK_STREAMING_ {\n    return v;\n}",
            b"#define X 1\nint main(int argc, char** argv) {\n  return 0;\n}",
            // Kernels instantiated by macro calls, one a line.
            b"extern \"C\" {\ndefine_dot_(f32, neon, 4)\ndefine_dot_(f16, neon, 8)\n}",
        ] {
            assert!(!declares_only(code), "{}", String::from_utf8_lossy(code));
        }
    }
}
