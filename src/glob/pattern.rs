//! One wildcard path segment (`*.cu`, `op?_[a-z]*.h`) compiled for
//! matching: a literal prefix and suffix checked on bytes first, then the
//! tokens in between with the classic one-star backtracking walk (as git's
//! `wildmatch` and globset's literal fast paths do). Never crosses `/`:
//! it is only ever given one segment.

use std::borrow::Cow;

use super::syntax::Tok;

/// A compiled segment pattern.
#[derive(Clone, Debug)]
pub struct SegPattern {
    /// The tokens, runs of `*` collapsed.
    toks: Vec<Tok>,
    /// Leading and trailing literal runs, as UTF-8.
    prefix: Vec<u8>,
    suffix: Vec<u8>,
    /// Whether the tokens are just `prefix*suffix`.
    affix: bool,
}

impl SegPattern {
    pub fn new(toks: Vec<Tok>) -> SegPattern {
        let lit = |t: &Tok| matches!(t, Tok::Lit(_));
        let head = toks.iter().take_while(|t| lit(t)).count();
        let tail = if head == toks.len() {
            0
        } else {
            toks.iter().rev().take_while(|t| lit(t)).count()
        };
        let text = |ts: &[Tok]| -> Vec<u8> {
            ts.iter()
                .filter_map(|t| match t {
                    Tok::Lit(c) => Some(*c),
                    _ => None,
                })
                .collect::<String>()
                .into_bytes()
        };
        let prefix = text(&toks[..head]);
        let suffix = text(&toks[toks.len() - tail..]);
        let affix = head + tail + 1 == toks.len() && toks[head] == Tok::Star;
        SegPattern {
            toks,
            prefix,
            suffix,
            affix,
        }
    }

    /// The file extension every match has (the text after the last `.` of
    /// the trailing literal run), if the pattern fixes one.
    pub fn extension(&self) -> Option<&[u8]> {
        if self.suffix.len() == self.toks.len() {
            return None; // all literal: not a pattern
        }
        let dot = self.suffix.iter().rposition(|&b| b == b'.')?;
        Some(&self.suffix[dot + 1..])
    }

    /// The literal text every match starts with.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// Whether one path segment matches.
    pub fn is_match(&self, seg: &[u8]) -> bool {
        if seg.len() < self.prefix.len() + self.suffix.len()
            || !memchr::arch::all::is_prefix(seg, &self.prefix)
            || !memchr::arch::all::is_suffix(seg, &self.suffix)
        {
            return false;
        }
        if self.affix {
            return true;
        }
        let text: Cow<'_, str> = String::from_utf8_lossy(seg);
        wild(&self.toks, &text)
    }
}

/// Match tokens against a whole string: `*` any run, the others one char.
/// One backtrack point suffices for `*`-only wildcards.
fn wild(toks: &[Tok], s: &str) -> bool {
    let (mut ti, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if let Some(t) = toks.get(ti) {
            if *t == Tok::Star {
                star = Some((ti, si));
                ti += 1;
                continue;
            }
            if let Some(c) = s[si..].chars().next() {
                if t.matches_char(c) {
                    ti += 1;
                    si += c.len_utf8();
                    continue;
                }
            }
        } else if si == s.len() {
            return true;
        }
        match star {
            Some((st, ss)) => match s[ss..].chars().next() {
                Some(c) => {
                    let next = ss + c.len_utf8();
                    star = Some((st, next));
                    ti = st + 1;
                    si = next;
                }
                None => return false,
            },
            None => return false,
        }
    }
}
