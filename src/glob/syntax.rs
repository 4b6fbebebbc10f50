//! sota's glob syntax: parse a glob into tokens and alternation groups
//! (validating it, with the same rules and wording as ripgrep's globset,
//! which defined the dialect before this parser), then expand the braces
//! into plain alternatives and split each into path segments.
//!
//! Semantics fixed here (SPEC section 2, and the choices it leaves open):
//! braces are expanded first, as text, so `{**,k/a}` is the two globs `**`
//! and `k/a`, and an alternative may hold `/` and `**`; each alternative is
//! then split on `/`; a segment that is exactly two unescaped `*` is `**`
//! (any number of segments, at least one when it ends the glob), any other
//! run of `*` is one `*`; an alternative ending in `/` means everything
//! under that directory.

use std::fmt;
use std::iter::Peekable;
use std::str::Chars;

/// Most alternatives one glob may expand to. Written by people, a glob has
/// a few; this bound only stops `{a,b}{c,d}…` from exhausting memory.
pub const MAX_ALTERNATIVES: usize = 4096;

/// globset's nesting bound, kept so the set of valid globs does not move.
const MAX_DEPTH: usize = 100;

/// One token of a glob, braces excluded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tok {
    Lit(char),
    /// `?`: one character.
    Any,
    /// `*`: any run of characters within a segment.
    Star,
    Class(Class),
    /// `/`.
    Sep,
}

/// `[...]` or `[!...]`: one character in (or not in) the ranges, never `/`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Class {
    pub negated: bool,
    pub ranges: Vec<(char, char)>,
}

impl Class {
    pub fn matches(&self, c: char) -> bool {
        c != '/' && self.ranges.iter().any(|&(a, b)| a <= c && c <= b) != self.negated
    }
}

impl Tok {
    /// Whether this single-character token matches `c` (`Star`: never).
    pub fn matches_char(&self, c: char) -> bool {
        match self {
            Tok::Lit(l) => *l == c,
            Tok::Any => c != '/',
            Tok::Class(class) => class.matches(c),
            Tok::Star | Tok::Sep => false,
        }
    }
}

/// A parsed glob: tokens and alternation groups.
#[derive(Clone, Debug)]
pub enum Item {
    Tok(Tok),
    Alt(Vec<Vec<Item>>),
}

/// Why a glob does not parse. The wording is globset's, so messages users
/// already saw do not change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    UnclosedClass,
    InvalidRange(char, char),
    UnopenedAlternates,
    UnclosedAlternates,
    TooManyNestedAlternates,
    DanglingEscape,
    TooManyAlternatives,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyntaxError::UnclosedClass => f.write_str("unclosed character class; missing ']'"),
            SyntaxError::InvalidRange(a, b) => write!(f, "invalid range; '{a}' > '{b}'"),
            SyntaxError::UnopenedAlternates => {
                f.write_str("unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)")
            }
            SyntaxError::UnclosedAlternates => {
                f.write_str("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
            }
            SyntaxError::TooManyNestedAlternates => {
                f.write_str("alternate groups nested too deeply")
            }
            SyntaxError::DanglingEscape => f.write_str("dangling '\\'"),
            SyntaxError::TooManyAlternatives => write!(
                f,
                "its braces expand to more than {MAX_ALTERNATIVES} alternatives"
            ),
        }
    }
}

/// One lexeme: a token, or brace syntax.
enum Lex {
    Tok(Tok),
    Open,
    Comma,
    Close,
}

/// The next lexeme; `depth` is the number of open brace groups (a comma
/// outside braces is literal).
fn lex(c: char, chars: &mut Peekable<Chars<'_>>, depth: usize) -> Result<Lex, SyntaxError> {
    Ok(Lex::Tok(match c {
        '?' => Tok::Any,
        '*' => Tok::Star,
        '/' => Tok::Sep,
        '[' => Tok::Class(parse_class(chars)?),
        '\\' => match chars.next().ok_or(SyntaxError::DanglingEscape)? {
            '/' => Tok::Sep,
            c => Tok::Lit(c),
        },
        '{' if depth >= MAX_DEPTH => return Err(SyntaxError::TooManyNestedAlternates),
        '{' => return Ok(Lex::Open),
        ',' if depth > 0 => return Ok(Lex::Comma),
        '}' if depth == 0 => return Err(SyntaxError::UnopenedAlternates),
        '}' => return Ok(Lex::Close),
        c => Tok::Lit(c),
    }))
}

/// Check a glob without building it: the syntax, and how many
/// alternatives its braces expand to (at most [`MAX_ALTERNATIVES`]).
pub fn validate(text: &str) -> Result<(), SyntaxError> {
    alternatives(text).map(|_| ())
}

/// How many alternatives a valid glob's braces expand to (1 without
/// braces), or why it is not valid.
pub fn alternatives(text: &str) -> Result<usize, SyntaxError> {
    let bytes = text.as_bytes();
    if !bytes
        .iter()
        .any(|&b| matches!(b, b'{' | b'}' | b'[' | b'\\'))
    {
        // No braces, classes or escapes: every character is a token.
        return Ok(1);
    }
    let mut count = AltCount::default();
    if !bytes.iter().any(|&b| matches!(b, b'[' | b'\\')) {
        // Braces only: every other byte (UTF-8 continuation bytes included)
        // is a token, so the bytes are the lexemes.
        for &b in bytes {
            match b {
                b'{' if count.depth() >= MAX_DEPTH => {
                    return Err(SyntaxError::TooManyNestedAlternates)
                }
                b'{' => count.open(),
                b',' if count.depth() > 0 => count.comma(),
                b'}' if count.depth() == 0 => return Err(SyntaxError::UnopenedAlternates),
                b'}' => count.close()?,
                _ => {}
            }
        }
        return count.finish();
    }
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match lex(c, &mut chars, count.depth())? {
            Lex::Tok(_) => continue,
            Lex::Open => count.open(),
            Lex::Comma => count.comma(),
            Lex::Close => count.close()?,
        }
    }
    count.finish()
}

/// How many alternatives the braces seen so far expand to: of the root,
/// and per open group (of its finished branches, of its current one).
/// Allocates only for braces; most globs have none.
struct AltCount {
    root: usize,
    open: Vec<(usize, usize)>,
}

impl Default for AltCount {
    fn default() -> Self {
        AltCount {
            root: 1,
            open: Vec::new(),
        }
    }
}

impl AltCount {
    fn depth(&self) -> usize {
        self.open.len()
    }

    fn open(&mut self) {
        self.open.push((0, 1));
    }

    fn comma(&mut self) {
        let g = self.open.last_mut().expect("a group is open");
        *g = (g.0.saturating_add(g.1), 1);
    }

    fn close(&mut self) -> Result<(), SyntaxError> {
        let (done, cur) = self.open.pop().expect("a group is open");
        let n = done.saturating_add(cur);
        let product = match self.open.last_mut() {
            Some(parent) => &mut parent.1,
            None => &mut self.root,
        };
        *product = product.saturating_mul(n);
        // Every group expands to at least one alternative, so a product
        // past the bound already puts the whole glob past.
        if *product > MAX_ALTERNATIVES {
            return Err(SyntaxError::TooManyAlternatives);
        }
        Ok(())
    }

    fn finish(self) -> Result<usize, SyntaxError> {
        if !self.open.is_empty() {
            return Err(SyntaxError::UnclosedAlternates);
        }
        Ok(self.root)
    }
}

/// Parse a glob into tokens and alternation groups.
pub fn parse(text: &str) -> Result<Vec<Item>, SyntaxError> {
    // Open groups; each is a list of branches, the root a single branch.
    let mut stack: Vec<Vec<Vec<Item>>> = vec![vec![Vec::new()]];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match lex(c, &mut chars, stack.len() - 1)? {
            Lex::Tok(tok) => branch(&mut stack).push(Item::Tok(tok)),
            Lex::Open => stack.push(vec![Vec::new()]),
            Lex::Comma => stack.last_mut().expect("a group is open").push(Vec::new()),
            Lex::Close => {
                let group = stack.pop().expect("a group is open");
                branch(&mut stack).push(Item::Alt(group));
            }
        }
    }
    if stack.len() > 1 {
        return Err(SyntaxError::UnclosedAlternates);
    }
    Ok(stack.pop().and_then(|mut g| g.pop()).unwrap_or_default())
}

fn branch(stack: &mut [Vec<Vec<Item>>]) -> &mut Vec<Item> {
    stack
        .last_mut()
        .and_then(|g| g.last_mut())
        .expect("the root branch always exists")
}

/// A class after its `[`, with globset's rules: `!` or `^` negates, a
/// leading `]` or `-` and a trailing `-` are literal, `[:name:]` is a POSIX
/// class.
fn parse_class(chars: &mut Peekable<Chars<'_>>) -> Result<Class, SyntaxError> {
    let negated = matches!(chars.peek(), Some('!' | '^'));
    if negated {
        chars.next();
    }
    let mut ranges: Vec<(char, char)> = Vec::new();
    let mut first = true;
    let mut in_range = false;
    loop {
        let c = chars.next().ok_or(SyntaxError::UnclosedClass)?;
        match c {
            ']' if !first => break,
            '-' if first => ranges.push(('-', '-')),
            '-' if in_range => {
                extend(&mut ranges, '-')?;
                in_range = false;
            }
            '-' => in_range = true,
            '[' if !in_range && chars.peek() == Some(&':') => {
                match posix_class(chars) {
                    Some(r) => ranges.extend_from_slice(r),
                    None => ranges.push(('[', '[')),
                }
                in_range = false;
            }
            c => {
                if in_range {
                    extend(&mut ranges, c)?;
                } else {
                    ranges.push((c, c));
                }
                in_range = false;
            }
        }
        first = false;
    }
    if in_range {
        ranges.push(('-', '-'));
    }
    Ok(Class { negated, ranges })
}

fn extend(ranges: &mut [(char, char)], end: char) -> Result<(), SyntaxError> {
    let r = ranges.last_mut().expect("a range has a start");
    r.1 = end;
    if r.1 < r.0 {
        return Err(SyntaxError::InvalidRange(r.0, r.1));
    }
    Ok(())
}

/// `[:name:]` after a class's `[` (the iterator is at `:`); without a
/// closing `:]` nothing is consumed.
fn posix_class(chars: &mut Peekable<Chars<'_>>) -> Option<&'static [(char, char)]> {
    let mut look = chars.clone();
    look.next(); // ':'
    let mut name = String::new();
    loop {
        match look.next() {
            Some(':') if look.peek() == Some(&']') => {
                look.next();
                // As globset: once `:]` is seen it is consumed, known
                // name or not (an unknown one leaves a literal `[`).
                *chars = look;
                return posix_ranges(&name);
            }
            Some(c) if c.is_ascii_lowercase() && name.len() < 8 => name.push(c),
            _ => return None,
        }
    }
}

fn posix_ranges(name: &str) -> Option<&'static [(char, char)]> {
    Some(match name {
        "alnum" => &[('0', '9'), ('A', 'Z'), ('a', 'z')],
        "alpha" => &[('A', 'Z'), ('a', 'z')],
        "blank" => &[('\t', '\t'), (' ', ' ')],
        "cntrl" => &[('\x00', '\x1f'), ('\x7f', '\x7f')],
        "digit" => &[('0', '9')],
        "graph" => &[('!', '~')],
        "lower" => &[('a', 'z')],
        "print" => &[(' ', '~')],
        "punct" => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "space" => &[('\t', '\r'), (' ', ' ')],
        "upper" => &[('A', 'Z')],
        "xdigit" => &[('0', '9'), ('A', 'F'), ('a', 'f')],
        _ => return None,
    })
}

/// Expand every brace group: the plain token strings the glob alternates
/// between, in order (a repeated alternative is harmless to the index).
pub fn expand(items: &[Item]) -> Result<Vec<Vec<Tok>>, SyntaxError> {
    let mut out: Vec<Vec<Tok>> = vec![Vec::new()];
    for item in items {
        match item {
            Item::Tok(t) => out.iter_mut().for_each(|alt| alt.push(t.clone())),
            Item::Alt(branches) => {
                let mut tails: Vec<Vec<Tok>> = Vec::new();
                for b in branches {
                    tails.extend(expand(b)?);
                }
                if out.len().saturating_mul(tails.len()) > MAX_ALTERNATIVES {
                    return Err(SyntaxError::TooManyAlternatives);
                }
                out = out
                    .iter()
                    .flat_map(|head| {
                        tails.iter().map(move |tail| {
                            let mut alt = head.clone();
                            alt.extend_from_slice(tail);
                            alt
                        })
                    })
                    .collect();
            }
        }
    }
    Ok(out)
}

/// One segment of an expanded alternative.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    /// A literal name.
    Lit(String),
    /// `*` alone: any one segment.
    AnyOne,
    /// `**` not at the end: any number of segments, zero included.
    Any,
    /// A wildcard pattern within one segment (runs of `*` collapsed).
    Pat(Vec<Tok>),
}

/// Split an expanded alternative into segments. A trailing `/` becomes
/// `**`; a `**` that ends the glob needs at least one segment, so it
/// becomes `*` followed by zero or more; repeated `**` collapse.
pub fn segments(alt: &[Tok]) -> Vec<Seg> {
    let (body, dir) = match alt.split_last() {
        Some((Tok::Sep, body)) => (body, true),
        _ => (alt, false),
    };
    finish(body.split(|t| *t == Tok::Sep).map(segment), dir)
}

/// [`segments`] of an alternative written without braces, classes or
/// escapes (most globs), straight from its text: every character is a
/// token, so there is no token list to build.
pub fn plain_segments(text: &str) -> Vec<Seg> {
    let (body, dir) = match text.strip_suffix('/') {
        Some(body) => (body, true),
        None => (text, false),
    };
    finish(body.split('/').map(plain_segment), dir)
}

/// The segment list from its parts: repeated `**` collapse, a trailing
/// `/` (`dir`) adds `**`, and a final `**` becomes `*` then `**`.
fn finish(parts: impl Iterator<Item = Seg>, dir: bool) -> Vec<Seg> {
    let mut segs: Vec<Seg> = Vec::with_capacity(parts.size_hint().0 + 2);
    for seg in parts {
        if seg == Seg::Any && segs.last() == Some(&Seg::Any) {
            continue;
        }
        segs.push(seg);
    }
    if dir && segs.last() != Some(&Seg::Any) {
        segs.push(Seg::Any);
    }
    if segs.last() == Some(&Seg::Any) {
        segs.pop();
        segs.push(Seg::AnyOne);
        segs.push(Seg::Any);
    }
    segs
}

fn segment(part: &[Tok]) -> Seg {
    if part == [Tok::Star, Tok::Star] {
        return Seg::Any;
    }
    if let Some(lit) = part
        .iter()
        .map(|t| match t {
            Tok::Lit(c) => Some(*c),
            _ => None,
        })
        .collect::<Option<String>>()
    {
        return Seg::Lit(lit);
    }
    wildcard(part.iter().cloned())
}

/// [`segment`] of text in which every character is a token.
fn plain_segment(part: &str) -> Seg {
    if part == "**" {
        return Seg::Any;
    }
    if !part.contains(['*', '?']) {
        return Seg::Lit(part.to_owned());
    }
    wildcard(part.chars().map(|c| match c {
        '?' => Tok::Any,
        '*' => Tok::Star,
        c => Tok::Lit(c),
    }))
}

/// A segment with a wildcard: runs of `*` collapse, and `*` alone is any
/// one segment.
fn wildcard(part: impl Iterator<Item = Tok>) -> Seg {
    let mut toks: Vec<Tok> = Vec::with_capacity(part.size_hint().0);
    for t in part {
        if t == Tok::Star && toks.last() == Some(&Tok::Star) {
            continue;
        }
        toks.push(t);
    }
    if toks == [Tok::Star] {
        Seg::AnyOne
    } else {
        Seg::Pat(toks)
    }
}

/// The characters after which a glob is no longer a plain literal.
pub const META: [char; 5] = ['*', '?', '[', '{', '\\'];

/// The plain segment lists a glob alternates between (the index does the
/// same lazily, a segment at a time).
#[cfg(test)]
pub fn compile(text: &str) -> Result<Vec<Vec<Seg>>, SyntaxError> {
    if !text.contains(META) && !text.contains('}') {
        // A literal path or directory: no parse, no expansion.
        let (body, dir) = match text.strip_suffix('/') {
            Some(b) => (b, true),
            None => (text, false),
        };
        let mut segs: Vec<Seg> = body.split('/').map(|s| Seg::Lit(s.to_owned())).collect();
        if dir {
            segs.push(Seg::AnyOne);
            segs.push(Seg::Any);
        }
        return Ok(vec![segs]);
    }
    Ok(expand(&parse(text)?)?
        .iter()
        .map(|alt| segments(alt))
        .collect())
}
