//! Load-time diagnostics: every problem found in a matrix file, each with its
//! stable code, its place (file, line, column), the offending text, and the fix.
//!
//! Only the matrix loader creates these; the CLI renders them with miette.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use miette::{LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::quote::{escape, quote, visible_same_len};

/// Stable, kebab-case names for every kind of load problem.
///
/// The names appear verbatim in messages (`sota::unknown-key`) and are
/// documented once, in [`Code::summary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
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
    TooLarge,
    RungOrder,
    UnknownLadderOp,
}

impl Code {
    /// Every code, in documentation order (declaration order: a new
    /// variant is listed by construction).
    pub fn all() -> impl Iterator<Item = Code> {
        <Code as strum::IntoEnumIterator>::iter()
    }

    /// The stable name, as printed and as used in JSON: the variant in
    /// kebab-case (`strum`), so a new code names itself.
    pub fn name(self) -> &'static str {
        self.into()
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
            Code::UnknownLadderOp => {
                "a team catalog's ladder names, in `ops`, no op of the merged catalog"
            }
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
            Code::TooLarge => "the file is larger than the largest matrix sota reads",
            Code::RungOrder => {
                "a catalog rung older than the rung below it, without an `order-note`"
            }
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

/// [`line_col`] for many offsets into one text, each in time independent
/// of the file's size: the line starts are found once, a binary search
/// finds the line, and the column is counted from the nearest character
/// checkpoint (one every [`CHAR_BLOCK`] bytes) rather than from the line's
/// start, so a file that is one long line costs no more per offset.
/// Every place that cites `file:line:col` for many spans goes through one.
pub struct LineIndex<'t> {
    text: &'t str,
    lines: Lines,
}

/// The part of a [`LineIndex`] that does not borrow the text.
#[derive(Debug, Clone)]
struct Lines {
    /// Byte offset of each line's first byte (the first is 0).
    starts: Vec<usize>,
    /// Characters before each `CHAR_BLOCK`-byte block; empty for ASCII text.
    chars_before_block: Vec<usize>,
}

/// Bytes between character-count checkpoints in a [`LineIndex`].
const CHAR_BLOCK: usize = 4096;

impl Lines {
    fn new(text: &str) -> Lines {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        let chars_before_block = if text.is_ascii() {
            Vec::new()
        } else {
            let mut before = 0;
            let mut blocks = Vec::with_capacity(text.len() / CHAR_BLOCK + 1);
            for block in text.as_bytes().chunks(CHAR_BLOCK) {
                blocks.push(before);
                before += count_chars(block);
            }
            blocks
        };
        Lines {
            starts,
            chars_before_block,
        }
    }

    /// Characters in `text[..offset]` (`offset` on a character boundary).
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        if self.chars_before_block.is_empty() {
            return offset;
        }
        let block = offset / CHAR_BLOCK;
        self.chars_before_block[block] + count_chars(&text.as_bytes()[block * CHAR_BLOCK..offset])
    }

    /// Byte offset of the end of a 0-based line (its `\n`, or the end).
    fn line_end(&self, text: &str, line: usize) -> usize {
        self.starts.get(line + 1).map_or(text.len(), |&s| s - 1)
    }

    /// 0-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.starts[line];
        let column = if offset - start <= CHAR_BLOCK {
            text[start..offset].chars().count()
        } else {
            self.chars_before(text, offset) - self.chars_before(text, start)
        };
        (line + 1, column + 1)
    }
}

/// Characters in a UTF-8 byte slice: the bytes that do not continue one.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> LineIndex<'t> {
        LineIndex {
            text,
            lines: Lines::new(text),
        }
    }

    /// Same answer as [`line_col`].
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines.line_col(self.text, offset)
    }
}

fn ceil_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset < text.len() && !text.is_char_boundary(offset) {
        offset += 1;
    }
    offset.min(text.len())
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The largest matrix file sota reads (16 MiB: a 1,000-op matrix is about
/// 400 KB). Everything a load does is linear in the file below it; a larger
/// file is refused with [`Code::TooLarge`] before it is parsed.
pub const MAX_MATRIX_BYTES: usize = 16 << 20;

/// How many problems a human-readable report renders in full; the rest
/// are counted ("and N more"). JSON lists every problem.
pub const MAX_SHOWN_PROBLEMS: usize = 100;

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
        /// It was about to be written (`init --force`), not read.
        write: bool,
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
        let lines = LineIndex::new(&self.text);
        self.problems
            .iter()
            .map(|p| {
                let (line, col) = lines.line_col(p.span.start);
                format!(
                    "{}:{line}:{col}: {}: {}",
                    quote(&self.name),
                    p.code,
                    escape(&p.message)
                )
            })
            .collect()
    }

    /// The problems as miette diagnostics, ready to render, built as they
    /// are taken (a report shows the first hundred of what may be tens of
    /// thousands). The file's text is untrusted: the snippet shows each
    /// control character as `?` (same byte length, so spans hold) and
    /// messages escape them.
    pub fn diagnostics(
        &self,
    ) -> impl DoubleEndedIterator<Item = ProblemDiagnostic> + ExactSizeIterator + '_ {
        let name = quote(&self.name).into_owned();
        let shown = visible_same_len(&self.text).into_owned();
        let source = Arc::new(Snippets::new(name.clone(), shown));
        self.problems.iter().map(move |p| {
            let mut help = p.help.as_deref().map(|h| escape(h).into_owned());
            let mut related = p
                .related
                .as_ref()
                .map(|(s, l)| (s.clone(), escape(l).into_owned()));
            // Two labels on one long line would be drawn as one
            // snippet as wide as the distance between them: name the
            // second place in the help instead.
            if let Some((span, label)) =
                related.take_if(|(s, _)| source.on_long_line(p.span.start, s.start))
            {
                let (l, c) = source.lines.line_col(&source.text, span.start);
                let place = format!("{label}: {name}:{l}:{c}");
                help = Some(match help {
                    Some(h) => format!("{h}\n{place}"),
                    None => place,
                });
            }
            ProblemDiagnostic {
                problem: Problem {
                    message: escape(&p.message).into_owned(),
                    label: escape(&p.label).into_owned(),
                    help,
                    related,
                    ..p.clone()
                },
                source: Arc::clone(&source),
                location: {
                    let (l, c) = source.lines.line_col(&source.text, p.span.start);
                    format!("{name}:{l}:{c}")
                },
            }
        })
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
                write,
            } => write!(
                f,
                "refusing to {} the matrix {}: it resolves to {}, outside the repository {}; nothing was {} (pass --allow-outside-repo if this is deliberate)",
                if *write { "write" } else { "read" },
                quote(&path.display().to_string()),
                quote(&resolved.display().to_string()),
                quote(&boundary.display().to_string()),
                if *write { "written" } else { "read from it" },
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
    source: Arc<Snippets>,
    location: String,
}

/// The file as miette reads it for snippets, with its line index: miette's
/// own `SourceCode` for text scans from the start of the file for every
/// label, which made rendering N problems cost N × the file. This one
/// starts miette's scan a few lines before the label, so a snippet costs
/// its own length.
#[derive(Debug)]
struct Snippets {
    name: String,
    /// The file as shown (control characters as `?`, so `\n` is the only
    /// line break, as in [`LineIndex`]).
    text: String,
    lines: Lines,
}

impl Snippets {
    fn new(name: String, text: String) -> Snippets {
        let lines = Lines::new(&text);
        Snippets { name, text, lines }
    }

    /// Whether two offsets are on one line longer than [`LONG_LINE`].
    fn on_long_line(&self, a: usize, b: usize) -> bool {
        let line = self.lines.line_of(a.min(self.text.len()));
        if line != self.lines.line_of(b.min(self.text.len())) {
            return false;
        }
        let end = self
            .lines
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        end - self.lines.starts[line] > LONG_LINE
    }
}

/// A line longer than this is shown as an excerpt around the label.
const LONG_LINE: usize = 1000;
/// Bytes of a long line shown on each side of a label.
const EXCERPT: usize = 120;

impl SourceCode for Snippets {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text = self.text.as_str();
        let start = span.offset().min(text.len());
        let end = (span.offset() + span.len()).min(text.len());
        let line = self.lines.line_of(start);
        let line_start = self.lines.starts[line];
        let line_end = self.lines.line_end(text, self.lines.line_of(end));
        if line_end - line_start > LONG_LINE {
            // One excerpt around the label, no context lines: a whole
            // long line per problem would make the output (and miette's
            // column arithmetic, which panics past 65535) grow with the
            // line instead of the problem.
            let from = if context_lines_before == 0 {
                start
            } else {
                floor_char_boundary(text, start.saturating_sub(EXCERPT).max(line_start))
            };
            let to = ceil_char_boundary(text, (end + EXCERPT).min(line_end)).max(end);
            let column = self.lines.line_col(text, from).1 - 1;
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                &text.as_bytes()[from..to],
                SourceSpan::new(from.into(), to - from),
                line,
                column,
                0,
            )));
        }
        let first = line.saturating_sub(context_lines_before);
        let window = self.lines.starts[first];
        let shifted = SourceSpan::new((span.offset() - window).into(), span.len());
        let inner = text.as_bytes()[window..].read_span(
            &shifted,
            context_lines_before,
            context_lines_after,
        )?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + window).into(), inner.span().len()),
            inner.line() + first,
            inner.column(),
            // Lines the snippet covers (miette's own count runs from the
            // start of the file, which merges far-apart labels into one
            // snippet as long as the distance between them).
            inner.line_count().saturating_sub(inner.line()),
        )))
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
    fn the_line_index_counts_columns_on_long_non_ascii_lines() {
        let text = format!("a\n{}x", "é·".repeat(5000));
        let index = LineIndex::new(&text);
        let x = text.len() - 1;
        assert_eq!(index.line_col(x), (2, 10001));
        assert_eq!(index.line_col(x), line_col(&text, x));
        for offset in (0..text.len()).step_by(997) {
            assert_eq!(index.line_col(offset), line_col(&text, offset), "{offset}");
        }
    }

    /// Two labels 70,000 columns apart on one line: miette panicked
    /// ("Formatting argument out of range", its column arithmetic stops at
    /// 65535) and drew the whole line for every problem.
    #[test]
    fn problems_on_one_very_long_line_render_as_short_excerpts() {
        let pad = " ".repeat(70_000);
        let text = format!(
            "op = [{{ slug = \"a\", title = \"t\", files = [\"x/\"] }},{pad}{{ slug = \"a\", title = \"t\", files = [\"y/\"], colour = 1 }}]\n[project]\nname = \"p\"\n"
        );
        let Err(LoadError::Invalid(invalid)) = crate::Matrix::from_str(&text, "sota.toml") else {
            panic!("the matrix should be invalid")
        };
        assert!(invalid.problems.len() >= 2, "{:?}", invalid.problems);
        let out = crate::fuzzing::render_diagnostics(&invalid);
        assert!(out.contains("duplicate-slug"), "{out}");
        assert!(out.contains("sota.toml:1:"), "{out}");
        assert!(out.len() < 5_000, "{} bytes rendered", out.len());
    }

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "a = 1\nb = \"×\" x\n";
        let offset = text.find('x').unwrap();
        assert_eq!(line_col(text, offset), (2, 9), "9th character, 10th byte");
        assert_eq!(line_col(text, 0), (1, 1));
    }
}
