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
//! a control statement — code.

/// True when the text holds no function body, lambda or statement block.
pub fn declares_only(src: &[u8]) -> bool {
    let mut lexer = Lexer { src, at: 0 };
    // The significant tokens before the current one: enough to see
    // `) const {` and `) -> T {`.
    let mut last: [Token; 3] = [Token::Other; 3];
    while let Some(token) = lexer.next_token() {
        if token == Token::OpenBrace && opens_body(&last) {
            return false;
        }
        last = [last[1], last[2], token];
    }
    true
}

/// Whether the tokens before a `{` make it a body: `)` directly, or
/// through one qualifier word, or through a trailing return `-> T`.
fn opens_body(last: &[Token; 3]) -> bool {
    matches!(
        last,
        [_, _, Token::CloseParen]
            | [_, Token::CloseParen, Token::Qualifier]
            | [_, Token::Arrow, Token::Word]
            | [Token::Arrow, Token::Word, Token::Word]
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    OpenBrace,
    CloseParen,
    Arrow,
    /// `const`, `noexcept`, `override`, `final`, `mutable`.
    Qualifier,
    Word,
    Other,
}

struct Lexer<'a> {
    src: &'a [u8],
    at: usize,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.at + ahead).copied()
    }

    fn next_token(&mut self) -> Option<Token> {
        loop {
            let b = self.peek(0)?;
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.at += 1,
                b'/' if self.peek(1) == Some(b'/') => self.skip_line(),
                b'/' if self.peek(1) == Some(b'*') => self.skip_block_comment(),
                b'#' if self.at_line_start() => self.skip_line(),
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
            b"const" | b"noexcept" | b"override" | b"final" | b"mutable" => Token::Qualifier,
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
    use super::declares_only;

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
enum class Mode { A, B };
static constexpr int BLOCK = 64;
static const int dims[] = {1, 2};
const char *name = "f() { }";
class Launcher : public Base {
 public:
  Launcher(int n);
  ~Launcher();
  void run(cudaStream_t s) const;
};
}
"#;
        assert!(declares_only(header));
    }

    #[test]
    fn a_function_body_a_method_body_or_a_lambda_is_code() {
        for code in [
            &b"__forceinline__ float warp_sum(float v) { return v; }"[..],
            b"struct S { int get() const { return n; } int n; };",
            b"auto f(int x) -> int { return x; }",
            b"auto g = [&](int i) { return i; };",
            b"void f() noexcept\n{\n}",
            b"#define X 1\nint main(int argc, char** argv) {\n  return 0;\n}",
        ] {
            assert!(!declares_only(code), "{}", String::from_utf8_lossy(code));
        }
    }
}
