//! The one definition of sota's glob dialect (SPEC section 2), on top of
//! ripgrep's `globset`.
//!
//! Globs are anchored at the root and matched against whole `/`-separated,
//! root-relative paths, case-sensitively. `*`, `?` and classes never cross
//! `/`; `**` as a whole segment spans segments; `{a,b}` alternates (empty
//! alternatives allowed); `\` escapes; a trailing `/` means everything under
//! that directory; a leading `/` is invalid. globset is configured explicitly
//! so its OS-dependent defaults never leak in.

use std::fmt;

/// A validated glob from the matrix: the text as written and the globset
/// syntax it translates to. Compiling to a matcher is left to the index,
/// which does it only for globs a lookup can reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileGlob {
    text: String,
    translated: String,
}

/// Why a glob is invalid, with the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobError {
    pub message: String,
    pub help: String,
}

impl FileGlob {
    /// Validate a glob as written in `sota.toml`.
    pub fn new(text: &str) -> Result<FileGlob, GlobError> {
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
        if let Some(bad) = text.split('/').find(|seg| *seg == "." || *seg == "..") {
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
                message: format!(
                    "glob `{text}` has a `{bad}` segment, which no repository path has"
                ),
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
        let translated = translate(text);
        // Plain globs (no classes, at most one level of balanced braces, no
        // dangling escape) are always accepted by globset, so a large matrix
        // loads without building thousands of globs; anything else is
        // checked by globset itself. A test holds the fast path to globset.
        if !is_plain(&translated) {
            build(&translated).map_err(|e| GlobError {
                message: format!("invalid glob `{text}`: {}", kind_message(&e)),
                help: "see the glob rules in `sota schema` or README: `*` `?` `**` `[a-z]` `[!a]` `{a,b}` `\\` and a trailing `/`".into(),
            })?;
        }
        Ok(FileGlob {
            text: text.to_owned(),
            translated,
        })
    }

    /// The glob as written in the matrix.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The glob in globset syntax (after sota's rewrites).
    pub fn translated(&self) -> &str {
        &self.translated
    }

    /// The globset pattern, built with sota's options. Validated at load,
    /// so this cannot fail for a `FileGlob`.
    pub fn globset_glob(&self) -> globset::Glob {
        build(&self.translated).expect("validated when the matrix was loaded")
    }

    /// Match one root-relative path. For many paths and many globs use
    /// [`crate::index::OpIndex`], which compiles everything into one set.
    pub fn is_match(&self, path: &str) -> bool {
        self.globset_glob().compile_matcher().is_match(path)
    }
}

impl fmt::Display for FileGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// globset, configured explicitly so its OS-dependent defaults never leak in.
fn build(translated: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(translated)
        .literal_separator(true)
        .backslash_escape(true)
        .empty_alternates(true)
        .case_insensitive(false)
        .build()
}

/// A glob fragment (a file-name tail of a validated glob) built with the
/// same options, for the index.
pub(crate) fn build_for_index(text: &str) -> Result<globset::Glob, globset::Error> {
    build(text)
}

/// Whether a glob is in the plain subset globset always accepts: no
/// character classes, braces balanced and not nested, no dangling `\`.
fn is_plain(glob: &str) -> bool {
    let mut depth = 0u8;
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return false,
            '[' | ']' => return false,
            '{' => {
                depth += 1;
                if depth > 1 {
                    return false;
                }
            }
            '}' => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    depth == 0
}

/// sota syntax → globset syntax. The only rewrite needed is the trailing `/`
/// ("everything under this directory", like `dir/**`); globset already keeps
/// `*`, `?` and classes (negated or not) inside one segment once
/// `literal_separator` is on.
fn translate(text: &str) -> String {
    if text.ends_with('/') && !text.ends_with("\\/") {
        format!("{text}**")
    } else {
        text.to_owned()
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

fn kind_message(e: &globset::Error) -> String {
    // globset's Display repeats the glob; keep only the reason.
    e.kind().to_string()
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

    #[test]
    fn the_plain_fast_path_only_accepts_what_globset_accepts() {
        // Every string over an alphabet of glob metacharacters up to length
        // 5: whatever the fast path accepts, globset must build.
        let alphabet = ['a', '/', '*', '?', '{', '}', ',', '\\', '[', ']', '!', '-'];
        let mut stack: Vec<String> = vec![String::new()];
        let mut checked = 0;
        while let Some(s) = stack.pop() {
            if is_plain(&s) {
                assert!(build(&s).is_ok(), "plain but rejected by globset: {s:?}");
            }
            checked += 1;
            if s.chars().count() < 5 {
                for c in alphabet {
                    stack.push(format!("{s}{c}"));
                }
            }
        }
        assert!(checked > 200_000);
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
