//! The one definition of sota's glob dialect (SPEC section 2): validation
//! at load, with a located error and a fix, and the parsed form the index
//! compiles.
//!
//! Globs are anchored at the root and matched against whole `/`-separated,
//! root-relative paths, case-sensitively. `*`, `?` and classes never cross
//! `/`; `**` as a whole segment spans segments; `{a,b}` alternates (empty
//! alternatives, nesting, `/` and `**` inside allowed); `\` escapes; a
//! trailing `/` means everything under that directory; a leading `/` is
//! invalid. [`syntax`] fixes the details; matching (`FileGlob::is_match`
//! included) is the index's, a layer up.

pub(crate) mod pattern;
pub(crate) mod syntax;

use std::fmt;

/// A validated glob from the matrix, as written. Compiling it to a matcher
/// is left to the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileGlob {
    text: String,
}

/// Why a glob is invalid, with the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobError {
    pub message: String,
    pub help: String,
}

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.help)
    }
}

impl std::error::Error for GlobError {}

impl FileGlob {
    /// Validate a glob as written in `sota.toml`.
    pub fn new(text: &str) -> Result<FileGlob, GlobError> {
        check(text)?;
        Ok(FileGlob {
            text: text.to_owned(),
        })
    }

    /// [`FileGlob::new`] on a string the caller already owns (the loader's
    /// decoded value): validated in place, not copied.
    pub fn from_string(text: String) -> Result<FileGlob, GlobError> {
        check(&text)?;
        Ok(FileGlob { text })
    }

    /// The glob as written in the matrix.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// Byte facts about a glob: whether a segment is `.` or `..`, and whether
/// it holds any of `{ } [ \\` (without them every character is a token and
/// the syntax cannot fail). The metacharacter test runs over every byte
/// without branching (so it vectorises); the segment test looks only at
/// the few dots, since only a segment starting with one can be `.`/`..`.
fn scan(text: &str) -> (bool, bool) {
    let bytes = text.as_bytes();
    let plain = bytes.iter().fold(true, |plain, &b| {
        plain & !matches!(b, b'{' | b'}' | b'[' | b'\\')
    });
    let dot_segment = memchr::memchr_iter(b'.', bytes).any(|i| {
        if i > 0 && bytes[i - 1] != b'/' {
            return false;
        }
        let segment = bytes[i..].split(|&b| b == b'/').next().unwrap_or_default();
        matches!(segment, b"." | b"..")
    });
    (dot_segment, plain)
}

/// Every load-time rule of a glob, with the message and fix for the first
/// one broken.
fn check(text: &str) -> Result<(), GlobError> {
    let (dot_segment, plain) = scan(text);
    if plain && !dot_segment && !text.is_empty() && !text.starts_with('/') {
        return Ok(());
    }
    if text.is_empty() {
        return Err(GlobError {
            message: "empty glob".into(),
            help: "write a root-relative pattern such as `src/kernels/*.cu`".into(),
        });
    }
    if text.starts_with('/') {
        return Err(GlobError {
            message: format!("glob `{text}` starts with `/`"),
            help: format!(
                "globs are already anchored at the matrix root: write `{}`",
                text.trim_start_matches('/')
            ),
        });
    }
    // Only a glob `scan` saw a dot segment in needs the search.
    let dot = dot_segment.then(|| text.split('/').find(|seg| *seg == "." || *seg == ".."));
    if let Some(bad) = dot.flatten() {
        // Repository paths never contain `.` or `..` segments, so such a
        // glob could never match: refuse it instead of letting it sit as
        // a dead glob.
        let fixed: Vec<&str> = text.split('/').filter(|seg| *seg != ".").collect();
        let help = if bad == "." {
            format!(
                "globs are already relative to the matrix root: write `{}`",
                fixed.join("/")
            )
        } else {
            "write the path from the matrix root without `..`; to reach outside it, move the root with `[project] root`".to_owned()
        };
        return Err(GlobError {
            message: format!("glob `{text}` has a `{bad}` segment, which no repository path has"),
            help,
        });
    }
    if text.contains('\\') && !looks_escaped(text) {
        // A Windows-style separator would silently be read as an escape.
        return Err(GlobError {
            message: format!("glob `{text}` uses `\\` as a path separator"),
            help: format!("use `/` separators: `{}`", text.replace('\\', "/")),
        });
    }
    syntax::validate(text).map_err(|e| GlobError {
        message: format!("invalid glob `{text}`: {e}"),
        help: "see the glob rules in `sota schema` or README: `*` `?` `**` `[a-z]` `[!a]` `{a,b}` `\\` and a trailing `/`".into(),
    })
}

impl fmt::Display for FileGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A backslash that escapes a glob metacharacter is intended; one before an
/// ordinary path character is a Windows separator.
fn looks_escaped(text: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('*' | '?' | '[' | ']' | '{' | '}' | '\\' | ',' | '!' | '-') => {}
                _ => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(glob: &str, path: &str) -> bool {
        FileGlob::new(glob).unwrap().is_match(path)
    }

    #[test]
    fn star_and_question_stay_inside_one_segment() {
        assert!(m("*.go", "x.go"));
        assert!(!m("*.go", "cmd/x.go"));
        assert!(m("a/?.cu", "a/b.cu"));
        assert!(!m("a?b", "a/b"));
    }

    #[test]
    fn double_star_spans_segments() {
        assert!(m("**/*.cu", "k.cu"));
        assert!(m("**/*.cu", "a/b/k.cu"));
        assert!(m("src/**", "src/a/b.c"));
        assert!(!m("src/**", "src"));
        assert!(m("a/**/b", "a/b"));
        assert!(m("a/**/b", "a/x/y/b"));
    }

    #[test]
    fn classes_never_match_a_separator() {
        assert!(m("k[a-z].cu", "kq.cu"));
        assert!(!m("k[!a].cu", "k/.cu"));
        assert!(m("k[!a].cu", "kb.cu"));
        assert!(
            !m("k[+-0].cu", "k/.cu"),
            "a range spanning `/` must skip it"
        );
    }

    #[test]
    fn alternation_allows_an_empty_branch() {
        assert!(m("x.cu{,h}", "x.cu"));
        assert!(m("x.cu{,h}", "x.cuh"));
        assert!(m("{a,b}/*.metal", "b/q.metal"));
        assert!(!m("{a,b}/*.metal", "c/q.metal"));
    }

    #[test]
    fn trailing_slash_means_everything_under() {
        assert!(m("internal/metalgemm/", "internal/metalgemm/a.go"));
        assert!(m("internal/metalgemm/", "internal/metalgemm/x/y.metal"));
        assert!(!m("internal/metalgemm/", "internal/metalgemm"));
        assert!(!m("internal/metalgemm/", "internal/metalgemmx/a.go"));
    }

    #[test]
    fn matching_is_case_sensitive_and_anchored() {
        assert!(!m("*.CU", "a.cu"));
        assert!(!m("k.cu", "a/k.cu"));
        assert!(m("a\\*b", "a*b"));
        assert!(!m("a\\*b", "axb"));
    }

    /// globset defined the dialect's syntax before sota parsed it itself:
    /// every string over the metacharacters up to length 5 is valid for
    /// both or for neither, with the same reason.
    #[test]
    fn validation_agrees_with_globset() {
        let alphabet = [
            'a', '/', '*', '?', '{', '}', ',', '\\', '[', ']', '!', '-', ':',
        ];
        let mut stack: Vec<String> = vec![String::new()];
        let mut checked = 0;
        while let Some(s) = stack.pop() {
            let ours = syntax::validate(&s).map_err(|e| e.to_string());
            assert_eq!(
                syntax::compile(&s).is_ok(),
                ours.is_ok(),
                "validate and compile disagree on {s:?}"
            );
            let theirs = globset::GlobBuilder::new(&s)
                .literal_separator(true)
                .backslash_escape(true)
                .empty_alternates(true)
                .build()
                .map(|_| ())
                .map_err(|e| e.kind().to_string());
            assert_eq!(ours, theirs, "{s:?}");
            if ours.is_ok() {
                let expanded = syntax::expand(&syntax::parse(&s).unwrap()).unwrap();
                assert_eq!(syntax::alternatives(&s), Ok(expanded.len()), "{s:?}");
            }
            checked += 1;
            if s.chars().count() < 5 {
                for c in alphabet {
                    stack.push(format!("{s}{c}"));
                }
            }
        }
        assert!(checked > 300_000);
    }

    /// The byte path for brace-only globs and the lexing path (taken when
    /// a class or escape is present) agree past the exhaustive lengths:
    /// nesting depth and the alternatives bound.
    #[test]
    fn brace_only_validation_agrees_with_the_lexing_path() {
        let cases = [
            "{".repeat(100) + &"}".repeat(100),
            "{".repeat(101) + &"}".repeat(101),
            "{a,b}".repeat(12),
            "{a,b}".repeat(13),
            "{a,{b,c}}/x{,y}".into(),
            "caf\u{e9}{a,\u{e9}}/{".into(),
            "a}".into(),
        ];
        for glob in cases {
            let bytes = syntax::validate(&glob);
            let lexed = syntax::validate(&format!("[a]{glob}"));
            assert_eq!(bytes, lexed, "{glob:?}");
        }
        assert_eq!(
            syntax::validate(&"{a,b}".repeat(13)),
            Err(syntax::SyntaxError::TooManyAlternatives)
        );
    }

    /// The index splits brace-free, class-free text straight into
    /// segments; it must give what the token path gives.
    #[test]
    fn plain_text_splits_into_the_segments_its_tokens_give() {
        let mut rng = crate::test_rng::Rng(0x5e9);
        for _ in 0..20_000 {
            let text: String = (0..rng.below(9))
                .map(|_| rng.pick(&['a', 'é', '.', '*', '*', '?', '/', '/']))
                .collect();
            let mut alts = syntax::expand(&syntax::parse(&text).unwrap()).unwrap();
            assert_eq!(alts.len(), 1, "{text:?}");
            let toks = alts.pop().unwrap();
            assert_eq!(
                syntax::plain_segments(&text),
                syntax::segments(&toks),
                "{text:?}"
            );
        }
    }

    #[test]
    fn owned_and_borrowed_construction_agree() {
        for glob in [
            "",
            "/a",
            "a/./b",
            "a/..",
            ".",
            "src/*.cu",
            "a\\b",
            "x{",
            "k[a-z].cu",
            "a/.cu",
            "..",
            "../a",
            "a/...",
            ".a/b",
            "a/.",
            "a/..b",
            "a./b",
            "a/b./c",
            "./",
            "a//..",
            "{a,b}/..",
        ] {
            let borrowed = FileGlob::new(glob);
            assert_eq!(FileGlob::from_string(glob.to_owned()), borrowed, "{glob:?}");
            let dot = glob.split('/').any(|seg| seg == "." || seg == "..");
            assert_eq!(scan(glob).0, dot, "{glob:?}");
            let plain = !glob.contains(['{', '}', '[', '\\']);
            assert_eq!(scan(glob).1, plain, "{glob:?}");
        }
        assert!(FileGlob::new("a/.cu").is_ok() && FileGlob::new("a/./b").is_err());
        // A glob with braces takes the long way, which must still refuse it.
        assert!(FileGlob::new("{a,b}/..").is_err() && FileGlob::new("{a,b}/.x").is_ok());
    }

    #[test]
    fn posix_classes_and_class_edges_parse_as_globset_does() {
        assert!(m("k[[:digit:]].cu", "k7.cu"));
        assert!(!m("k[[:digit:]].cu", "ka.cu"));
        assert!(m("k[]a].cu", "k].cu"));
        assert!(m("k[a-].cu", "k-.cu"));
        assert!(m("k[^a].cu", "kb.cu"));
    }

    #[test]
    fn a_glob_expanding_past_the_bound_is_rejected() {
        let g = "{a,b,c,d}".repeat(7);
        let e = FileGlob::new(&g).unwrap_err();
        assert!(e.message.contains("more than 4096 alternatives"), "{e:?}");
    }

    #[test]
    fn invalid_globs_are_rejected_with_a_fix() {
        let e = FileGlob::new("/src/*.cu").unwrap_err();
        assert!(e.help.contains("`src/*.cu`"), "{e:?}");
        assert!(FileGlob::new("src/[a-").is_err());
        assert!(FileGlob::new("{a,b").is_err(), "unclosed alternation");
        assert!(FileGlob::new("").is_err());
        let e = FileGlob::new("src\\k.cu").unwrap_err();
        assert!(e.help.contains("src/k.cu"), "{e:?}");
    }
}
