//! Load-time diagnostics: every problem found in a matrix file, each with its
//! stable code, its place (file, line, column), the offending text, and the fix.
//!
//! Only the matrix loader creates these; the CLI renders them with miette.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, SourceCode};

use crate::output::quote::{escape, quote, visible_same_len};

/// Stable, kebab-case names for every kind of load problem.
///
/// The names appear verbatim in messages (`sota::unknown-key`) and are
/// documented once, in [`Code::summary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum Code {
    TomlSyntax,
    WrongType,
    UnknownKey,
    MissingField,
    EmptyValue,
    DuplicateSlug,
    DuplicateAxis,
    DuplicateRung,
    InvalidGlob,
    UnknownRoute,
    SlugNotKebab,
    UnknownRung,
    ReachedWithoutWitness,
    WitnessWithoutReached,
    BadDate,
    BadLink,
    BadAt,
    BadCheck,
    BadNumber,
    EmptyLadder,
    CatalogBinding,
    BadRoot,
    ControlChar,
    OutsideRepo,
}

impl Code {
    /// Every code, in documentation order (declaration order: a new
    /// variant is listed by construction).
    pub fn all() -> impl Iterator<Item = Code> {
        <Code as strum::IntoEnumIterator>::iter()
    }

    /// The stable name, as printed and as used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Code::TomlSyntax => "toml-syntax",
            Code::WrongType => "wrong-type",
            Code::UnknownKey => "unknown-key",
            Code::MissingField => "missing-field",
            Code::EmptyValue => "empty-value",
            Code::DuplicateSlug => "duplicate-slug",
            Code::DuplicateAxis => "duplicate-axis",
            Code::DuplicateRung => "duplicate-rung",
            Code::InvalidGlob => "invalid-glob",
            Code::UnknownRoute => "unknown-route",
            Code::SlugNotKebab => "slug-not-kebab",
            Code::UnknownRung => "unknown-rung",
            Code::ReachedWithoutWitness => "reached-without-witness",
            Code::WitnessWithoutReached => "witness-without-reached",
            Code::BadDate => "bad-date",
            Code::BadLink => "bad-link",
            Code::BadAt => "bad-at",
            Code::BadCheck => "bad-check",
            Code::BadNumber => "bad-number",
            Code::EmptyLadder => "empty-ladder",
            Code::CatalogBinding => "catalog-binding",
            Code::BadRoot => "bad-root",
            Code::ControlChar => "control-char",
            Code::OutsideRepo => "outside-repo",
        }
    }

    /// One line saying what the code means.
    pub fn summary(self) -> &'static str {
        match self {
            Code::TomlSyntax => "the file is not valid TOML",
            Code::WrongType => "a value has the wrong TOML type",
            Code::UnknownKey => "a key the format does not define",
            Code::MissingField => "a required field is absent",
            Code::EmptyValue => "a field is present but empty",
            Code::DuplicateSlug => "two ops share a slug",
            Code::DuplicateAxis => "two ladders share an axis",
            Code::DuplicateRung => "two rungs of one ladder share a name",
            Code::InvalidGlob => "a glob that cannot be compiled or is not root-relative",
            Code::UnknownRoute => "a route other than borrow, bind or stay-minimal",
            Code::SlugNotKebab => "a slug or axis that is not kebab-case",
            Code::UnknownRung => "a ladder's `reached` names no rung of that ladder",
            Code::ReachedWithoutWitness => "a ladder claims a rung without a witness",
            Code::WitnessWithoutReached => "a ladder names a witness but claims no rung",
            Code::BadDate => "a date that is not a plain TOML date",
            Code::BadLink => "a link that is not an http(s) URL",
            Code::BadAt => "an `at`/`witness` entry that is not path[:LINE][#symbol]",
            Code::BadCheck => "a machine-checkable oracle that is malformed",
            Code::BadNumber => "a number out of its allowed range",
            Code::EmptyLadder => "a ladder without rungs",
            Code::CatalogBinding => "the built-in catalog carries a project binding",
            Code::BadRoot => "`[project] root` does not name a directory",
            Code::ControlChar => "a key or string holds a control or bidi character",
            Code::OutsideRepo => "`[project] root` resolves outside the repository",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One problem in a matrix file.
#[derive(Clone, Debug)]
pub struct Problem {
    pub code: Code,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Byte range of the offending text in the file.
    pub span: Range<usize>,
    /// Short label drawn under the offending text.
    pub label: String,
    /// How to fix it.
    pub help: Option<String>,
    /// A second place worth showing (e.g. the first definition of a duplicate).
    pub related: Option<(Range<usize>, String)>,
}

impl Problem {
    pub fn new(code: Code, span: Range<usize>, message: impl Into<String>) -> Self {
        Problem {
            code,
            message: message.into(),
            span,
            label: String::from("here"),
            help: None,
            related: None,
        }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn related(mut self, span: Range<usize>, label: impl Into<String>) -> Self {
        self.related = Some((span, label.into()));
        self
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// [`line_col`] for many offsets into one text: the line starts found
/// once, then a binary search per offset (the coverage scorecard cites a
/// line for every debt, hundreds on a large matrix).
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> LineIndex<'t> {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// Same answer as [`line_col`].
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        (line, self.text[start..offset].chars().count() + 1)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Why a matrix did not load.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The file was read and has one or more problems, all of them listed.
    Invalid(InvalidMatrix),
    /// A discovered matrix resolves (through symlinks) outside its
    /// repository; it was not read.
    Outside {
        path: PathBuf,
        resolved: PathBuf,
        boundary: PathBuf,
    },
}

/// A matrix file with problems: the source text and every problem found.
#[derive(Debug, Clone)]
pub struct InvalidMatrix {
    /// The file name as shown to the user.
    pub name: String,
    pub text: Arc<str>,
    pub problems: Vec<Problem>,
}

impl InvalidMatrix {
    /// `file:line:col: code: message` for each problem, one per line.
    pub fn one_line_summaries(&self) -> Vec<String> {
        self.problems
            .iter()
            .map(|p| {
                let (line, col) = line_col(&self.text, p.span.start);
                format!(
                    "{}:{line}:{col}: {}: {}",
                    quote(&self.name),
                    p.code,
                    escape(&p.message)
                )
            })
            .collect()
    }

    /// The problems as miette diagnostics, ready to render. The file's
    /// text is untrusted: the snippet shows each control character as `?`
    /// (same byte length, so spans hold) and messages escape them.
    pub fn diagnostics(&self) -> Vec<ProblemDiagnostic> {
        let name = quote(&self.name).into_owned();
        let shown = visible_same_len(&self.text).into_owned();
        let source = Arc::new(NamedSource::new(name.clone(), shown));
        self.problems
            .iter()
            .map(|p| ProblemDiagnostic {
                problem: Problem {
                    message: escape(&p.message).into_owned(),
                    label: escape(&p.label).into_owned(),
                    help: p.help.as_deref().map(|h| escape(h).into_owned()),
                    related: p
                        .related
                        .as_ref()
                        .map(|(s, l)| (s.clone(), escape(l).into_owned())),
                    ..p.clone()
                },
                source: Arc::clone(&source),
                location: {
                    let (l, c) = line_col(&self.text, p.span.start);
                    format!("{name}:{l}:{c}")
                },
            })
            .collect()
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io { path, error } => {
                write!(
                    f,
                    "cannot read matrix {}: {error}",
                    quote(&path.display().to_string())
                )
            }
            LoadError::Outside {
                path,
                resolved,
                boundary,
            } => write!(
                f,
                "refusing to read the matrix {}: it resolves to {}, outside the repository {}; nothing was read from it (pass --allow-outside-repo if this is deliberate)",
                quote(&path.display().to_string()),
                quote(&resolved.display().to_string()),
                quote(&boundary.display().to_string())
            ),
            LoadError::Invalid(invalid) => {
                let n = invalid.problems.len();
                write!(
                    f,
                    "{}: {n} problem{} found",
                    invalid.name,
                    if n == 1 { "" } else { "s" }
                )
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    pub(crate) fn invalid(name: &str, text: &str, mut problems: Vec<Problem>) -> Self {
        problems.sort_by_key(|p| (p.span.start, p.span.end));
        LoadError::Invalid(InvalidMatrix {
            name: name.to_owned(),
            text: Arc::from(text),
            problems,
        })
    }
}

/// The name under which a matrix file is shown when the caller gives none:
/// the path as given, with `/` separators.
pub(crate) fn display_name(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// One problem, as a miette diagnostic with its source snippet.
#[derive(Debug)]
pub struct ProblemDiagnostic {
    problem: Problem,
    source: Arc<NamedSource<String>>,
    location: String,
}

impl ProblemDiagnostic {
    /// `file:line:col` of the offending text.
    pub fn location(&self) -> &str {
        &self.location
    }
}

impl fmt::Display for ProblemDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.problem.message)
    }
}

impl std::error::Error for ProblemDiagnostic {}

impl miette::Diagnostic for ProblemDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("sota::{}", self.problem.code)))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.problem
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self.source.as_ref())
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let p = &self.problem;
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(p.label.clone()),
            p.span.clone(),
        )];
        if let Some((span, label)) = &p.related {
            labels.push(LabeledSpan::new_with_span(
                Some(label.clone()),
                span.clone(),
            ));
        }
        Some(Box::new(labels.into_iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn code_names_are_unique_kebab_case() {
        let mut seen = HashSet::new();
        for code in Code::all() {
            let name = code.name();
            assert!(seen.insert(name), "duplicate code name {name}");
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name} is not kebab-case"
            );
            assert!(!code.summary().is_empty());
        }
    }

    #[test]
    fn the_line_index_agrees_with_line_col() {
        let text = "a = 1\nb = \"×\" x\n\n[op]\nz";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(index.line_col(offset), line_col(text, offset), "{offset}");
        }
    }

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "a = 1\nb = \"×\" x\n";
        let offset = text.find('x').unwrap();
        assert_eq!(line_col(text, offset), (2, 9), "9th character, 10th byte");
        assert_eq!(line_col(text, 0), (1, 1));
    }
}
