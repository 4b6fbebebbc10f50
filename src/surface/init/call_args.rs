//! What a call's argument says, where a computation signature needs more
//! than which identifiers a file uses. A softmax takes the exp of a
//! difference from the row max (`exp(x - m_i)`, `exp2((s - row_max) *
//! log2e)`, `tl.exp(row_minus_max)`); an FP8 or MX quantizer has the same
//! identifiers in the same file (`tl.max` of an absolute value, `tl.sum`,
//! `exp2(ceil(log2(amax)))`) and exponentiates something else.

use memchr::memmem;

/// How far into a call's argument an identifier is looked for.
const ARGUMENT_BYTES: usize = 200;

/// One identifier pattern of an argument: `- m_i` must follow a minus
/// sign, a bare pattern may stand anywhere; `*` matches any run of
/// identifier characters. Compared in lower case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgPattern {
    after_minus: bool,
    glob: String,
}

impl ArgPattern {
    /// `- *max*` or `*minus_max*`, as signals.toml writes it.
    pub fn parse(text: &str) -> ArgPattern {
        let text = text.trim();
        match text.strip_prefix('-') {
            Some(rest) => ArgPattern {
                after_minus: true,
                glob: rest.trim().to_ascii_lowercase(),
            },
            None => ArgPattern {
                after_minus: false,
                glob: text.to_ascii_lowercase(),
            },
        }
    }

    fn matches(&self, ident: &str, after_minus: bool) -> bool {
        (after_minus || !self.after_minus) && glob_match(self.glob.as_bytes(), ident.as_bytes())
    }
}

/// Whether some call of one of `callees` (`exp`, as a whole identifier, a
/// member call's `tl.exp` too) takes an argument with an identifier one
/// of `patterns` matches.
pub fn any_call_takes(hay: &[u8], callees: &[String], patterns: &[ArgPattern]) -> bool {
    callees.iter().any(|callee| {
        memmem::find_iter(hay, callee.as_bytes()).any(|start| {
            let end = start + callee.len();
            let whole = (start == 0 || !is_ident(hay[start - 1]))
                && (end == hay.len() || !is_ident(hay[end]));
            whole && argument_of(hay, end).is_some_and(|arg| argument_says(arg, patterns))
        })
    })
}

/// The argument of a call whose callee ends at `end`: the bytes after its
/// `(` up to the matching `)`, a statement's end, or the reading limit.
fn argument_of(hay: &[u8], end: usize) -> Option<&[u8]> {
    let open = end
        + hay[end..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    if hay.get(open) != Some(&b'(') {
        return None;
    }
    let from = open + 1;
    let limit = hay.len().min(from + ARGUMENT_BYTES);
    let mut depth = 1u32;
    for (i, &b) in hay[from..limit].iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&hay[from..from + i]);
                }
            }
            b';' | b'{' | b'}' => return Some(&hay[from..from + i]),
            _ => {}
        }
    }
    Some(&hay[from..limit])
}

/// Whether an identifier of the argument matches a pattern, a minus sign
/// (not a `->`) before it counting for the patterns that need one.
fn argument_says(arg: &[u8], patterns: &[ArgPattern]) -> bool {
    let mut minus = false;
    let mut i = 0;
    while i < arg.len() {
        let b = arg[i];
        if is_ident(b) || b == b'.' {
            let len = arg[i..]
                .iter()
                .take_while(|&&c| is_ident(c) || c == b'.')
                .count();
            let ident = String::from_utf8_lossy(&arg[i..i + len]).to_ascii_lowercase();
            if patterns.iter().any(|p| p.matches(&ident, minus)) {
                return true;
            }
            minus = false;
            i += len;
            continue;
        }
        match b {
            b'-' => minus = arg.get(i + 1) != Some(&b'>'),
            b'(' => {}
            c if c.is_ascii_whitespace() => {}
            _ => minus = false,
        }
        i += 1;
    }
    false
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `*` matches any run, every other byte itself.
fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|skip| glob_match(rest, &text[skip..])),
        Some((&c, rest)) => text.first() == Some(&c) && glob_match(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn softmax_args() -> Vec<ArgPattern> {
        ["- *max*", "- m", "- m_i", "*minus_max*"]
            .iter()
            .map(|p| ArgPattern::parse(p))
            .collect()
    }

    fn takes(src: &str) -> bool {
        let callees = ["exp", "exp2", "__expf"].map(String::from);
        any_call_takes(src.as_bytes(), &callees, &softmax_args())
    }

    #[test]
    fn the_exp_of_a_difference_from_the_max_is_a_softmax() {
        assert!(takes("p = tl.exp(x - tl.max(x, axis=0))"));
        assert!(takes("float e = __expf(v[i] - row_max);"));
        assert!(takes("p = exp2((s - m_i) * LOG2E)"));
        assert!(takes("m = tl.max(s, 1)\np = tl.exp2(s * scale - m)"));
        assert!(takes("numerator = tl.exp(row_minus_max)"));
    }

    #[test]
    fn a_quantizers_exp_of_a_rounded_log_is_not() {
        assert!(!takes(
            "amax = tl.max(tl.abs(x))\nscale = tl.exp2(tl.ceil(tl.log2(amax)))"
        ));
        assert!(!takes("y = exp(-x)"));
        // A pointer's arrow is no minus; a maximum elsewhere in the
        // statement is not the exp's argument.
        assert!(!takes("e = exp(p->m); mx = fmaxf(mx, e);"));
        assert!(!takes("exponent = 3; m = max_val - 1;"));
    }

    #[test]
    fn a_bare_pattern_may_stand_anywhere_and_globs_match_runs() {
        assert!(glob_match(b"*max*", b"row_max"));
        assert!(glob_match(b"m", b"m"));
        assert!(!glob_match(b"m", b"mx"));
        assert!(!takes("y = exp(max_len)"));
        assert!(takes("y = exp(a_minus_max_b)"));
    }
}
