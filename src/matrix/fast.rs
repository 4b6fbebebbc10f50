//! The loader's fast path: a valid matrix read straight from the TOML
//! parser's events into the typed model, without building a document tree.
//!
//! It handles only the documents the format's own layout produces
//! (`[project]`, `[kernels]`, `[[op]]`, `[[ladder]]`, `[[ladder.rung]]`,
//! one simple key per line, arrays of strings, inline `check` tables) and
//! only when they are valid: on any syntax error, unusual structure
//! (dotted keys, a top-level key, a repeated key or table, an unknown
//! key) or any problem the slow path would report, it gives up and
//! returns `None`, and `parse::walk` reads the document the slow way,
//! which writes every diagnostic. So this module only has to be right on
//! valid input, and its tests (`fast/tests.rs`: the fuzz corpus, random
//! perturbations of valid matrices) hold it to the slow path's model on
//! every document it accepts.

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashSet;
use toml_parser::decoder::{Encoding, ScalarKind};
use toml_parser::parser::{EventReceiver, RecursionGuard, ValidateWhitespace};
use toml_parser::{ErrorSink, ParseError, Raw, Source, Span};

use self::tables::{kernels, ladder, op, project, rung, LadderParts};
use super::keys;
use super::model::*;
use super::parse::normalize;

/// The nesting limit the `toml` crate's document parser applies.
const RECURSION_LIMIT: u32 = 80;

/// The most keys any table of the format has (`[[op]]`).
const MAX_KEYS: usize = 13;

/// About how much text is lexed at a time: its tokens (24 bytes each, about
/// one per 4 bytes of a matrix) fit one buffer that stays in the cache,
/// instead of a vector for the whole file (3 MB for a 1,000-op matrix,
/// every page of it faulted in and zeroed).
const CHUNK: usize = 8 * 1024;

/// From this size on (about 100 ops), a matrix is read in two halves on
/// two threads: below it, starting a thread costs more than it saves.
const PARALLEL_FROM: usize = 64 * 1024;

/// The matrix `text` holds, when the fast path can read it; `None` when the
/// slow path must (invalid or unusual documents).
pub(crate) fn parse(
    text: &Arc<String>,
    file: &Path,
    name: &str,
    root_dir: &Path,
    check_fs: bool,
) -> Option<Matrix> {
    let cut = if text.len() >= PARALLEL_FROM {
        op_header_after(text, text.len() / 2)
    } else {
        None
    };
    parse_cut(text, file, name, root_dir, check_fs, CHUNK, cut)
}

/// The start of the first line at or after `from` that is an `[[op]]`
/// header.
fn op_header_after(text: &str, from: usize) -> Option<usize> {
    let from = from.checked_sub(1)?;
    memchr::memmem::find(&text.as_bytes()[from..], b"\n[[op]]").map(|at| from + at + 1)
}

/// [`parse`], the text read in pieces of about `chunk` bytes; with a `cut`
/// (the start of an `[[op]]` header line), the text before it and the
/// text from it on are read by two builders on two threads and their
/// tables joined in document order. A table never spans the cut, and
/// what the cut hides from each half is checked when they are joined: a
/// table both halves hold (`[project]`), a slug or axis both use. A
/// `[[ladder.rung]]` that belongs to a ladder before the cut has no ladder
/// in its half, and the second half gives up (the slow path reads that
/// layout).
fn parse_cut(
    shared: &Arc<String>,
    file: &Path,
    name: &str,
    root_dir: &Path,
    check_fs: bool,
    chunk: usize,
    cut: Option<usize>,
) -> Option<Matrix> {
    let text = shared.as_str();
    let out = match cut {
        None => read_part(text, 0..text.len(), chunk, text.len())?,
        Some(cut) => {
            let (first, second) = std::thread::scope(|s| {
                let second = s.spawn(|| read_part(text, cut..text.len(), chunk, text.len() - cut));
                // Room for every op, so joining the halves appends the
                // second's without moving the first's (a 1,000-op
                // matrix's ops are about 370 KB).
                let first = read_part(text, 0..cut, chunk, text.len());
                let second = second
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (first, second)
            });
            first?.join(second?)?
        }
    };
    let (project, root_rel) = out.project?;
    let ladders = out
        .ladders
        .into_iter()
        .map(LadderParts::finish)
        .collect::<Option<Vec<Ladder>>>()?;
    let root = match &root_rel {
        Some(rel) => {
            let root = root_dir.join(&rel.value);
            if check_fs && !root.is_dir() {
                return None;
            }
            root
        }
        None => root_dir.to_path_buf(),
    };
    Some(Matrix {
        name: name.to_owned(),
        origin: Origin::Project,
        file: file.to_path_buf(),
        text: Arc::clone(shared),
        root: normalize(&root),
        project,
        kernels: out.kernels,
        ops: out.ops,
        ladders,
    })
}

/// The tables of `text[range]` (which starts at the start of a line), read
/// in pieces of about `chunk` bytes, each ending before a line that starts
/// with `[` (a table header). TOML carries no state across the end of a
/// complete line but the current table, which the builder keeps; a cut
/// inside a value (a multi-line array or string) leaves the piece before
/// it unterminated, a syntax error, so the slow path reads such a
/// document. The ops vector is sized for the ops of `room` bytes of text.
/// `None` when the fast path cannot read it.
fn read_part(text: &str, range: Range<usize>, chunk: usize, room: usize) -> Option<Out> {
    let mut builder = Builder::new(&text[range.clone()], room);
    let mut failed = Failed(false);
    // One allocation for every piece but an unusually long one.
    let mut tokens = Vec::with_capacity(chunk.min(range.len()) / 2 + 64);
    let mut start = range.start;
    while start < range.end && !failed.0 && !builder.bail {
        let from = (start + chunk).min(range.end);
        let end = match memchr::memmem::find(&text.as_bytes()[from..range.end], b"\n[") {
            Some(at) => from + at + 1,
            None => range.end,
        };
        let piece = &text[start..end];
        let source = Source::new(piece);
        tokens.clear();
        tokens.extend(source.lex());
        builder.piece = piece;
        builder.base = start;
        let mut whitespace = ValidateWhitespace::new(&mut builder, source);
        let mut guard = RecursionGuard::new(&mut whitespace, RECURSION_LIMIT);
        toml_parser::parser::parse_document(&tokens, &mut guard, &mut failed);
        start = end;
    }
    drop(tokens);
    if failed.0 || builder.bail {
        return None;
    }
    builder.finish_table();
    if builder.bail {
        return None;
    }
    Some(builder.out)
}

/// An error sink that only remembers whether anything was reported.
struct Failed(bool);

impl ErrorSink for Failed {
    fn report_error(&mut self, _error: ParseError) {
        self.0 = true;
    }
}

/// A decoded value, as the `toml` crate's `DeValue` would hold it.
enum Val<'i> {
    Str(Cow<'i, str>),
    Int(Cow<'i, str>, u32),
    Float(Cow<'i, str>),
    Bool,
    Date(toml::value::Datetime),
    Array(Vec<(Val<'i>, Range<usize>)>),
    Table(Vec<(Cow<'i, str>, Val<'i>, Range<usize>)>),
}

type Field<'i> = Option<(Val<'i>, Range<usize>)>;

/// An array or inline table being read.
enum Open<'i> {
    Array {
        start: usize,
        items: Vec<(Val<'i>, Range<usize>)>,
    },
    Inline {
        start: usize,
        key: Option<Cow<'i, str>>,
        entries: Vec<(Cow<'i, str>, Val<'i>, Range<usize>)>,
    },
}

/// The table the key/value lines belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Top,
    Project,
    Kernels,
    Op,
    Ladder,
    Rung,
}

impl Kind {
    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Top => &[],
            Kind::Project => keys::PROJECT,
            Kind::Kernels => keys::KERNELS,
            Kind::Op => keys::OP,
            Kind::Ladder => keys::LADDER,
            Kind::Rung => keys::RUNG,
        }
    }
}

/// A `[...]` or `[[...]]` header being read.
struct Header<'i> {
    array: bool,
    keys: Vec<Cow<'i, str>>,
}

/// What the document has produced so far.
#[derive(Default)]
struct Out {
    project: Option<(Project, Option<Located<String>>)>,
    kernels: Option<Kernels>,
    ops: Vec<Op>,
    slugs: FxHashSet<String>,
    ladders: Vec<LadderParts>,
    axes: FxHashSet<String>,
}

impl Out {
    /// The tables of a document whose text is this one's followed by
    /// `next`'s; `None` where reading it whole would have given up: a
    /// table both hold, or a slug or an axis both use.
    fn join(mut self, next: Out) -> Option<Out> {
        if (self.project.is_some() && next.project.is_some())
            || (self.kernels.is_some() && next.kernels.is_some())
            || !self.slugs.is_disjoint(&next.slugs)
            || !self.axes.is_disjoint(&next.axes)
        {
            return None;
        }
        self.project = self.project.or(next.project);
        self.kernels = self.kernels.or(next.kernels);
        self.ops.extend(next.ops);
        self.slugs.extend(next.slugs);
        self.ladders.extend(next.ladders);
        self.axes.extend(next.axes);
        Some(self)
    }
}

struct Builder<'i> {
    /// The piece of the text being parsed, and its offset in the text
    /// (the parser's spans are relative to the piece).
    piece: &'i str,
    base: usize,
    /// Whether no key or string can hold an unsafe character (see
    /// `text_safety`), so strings need no check of their own.
    plain: bool,
    bail: bool,
    header: Option<Header<'i>>,
    kind: Kind,
    /// The current table's values, by the key's index in `kind.keys()`.
    fields: [Field<'i>; MAX_KEYS],
    /// The key of the key/value line being read.
    key: Option<Cow<'i, str>>,
    stack: Vec<Open<'i>>,
    out: Out,
}

impl<'i> Builder<'i> {
    fn new(text: &'i str, room: usize) -> Self {
        Builder {
            piece: text,
            base: 0,
            plain: super::text_safety::plain_document(text),
            bail: false,
            header: None,
            kind: Kind::Top,
            fields: Default::default(),
            key: None,
            stack: Vec::new(),
            out: Out {
                ops: Vec::with_capacity(room / 256),
                ..Out::default()
            },
        }
    }

    fn raw(&self, span: Span, encoding: Option<Encoding>) -> Raw<'i> {
        Raw::new_unchecked(&self.piece[span.start()..span.end()], encoding, span)
    }

    /// Where a parser offset is in the whole text.
    fn at(&self, offset: usize) -> usize {
        self.base + offset
    }

    fn value(&mut self, value: Val<'i>, span: Range<usize>) {
        match self.stack.last_mut() {
            Some(Open::Array { items, .. }) => items.push((value, span)),
            Some(Open::Inline { key, entries, .. }) => match key.take() {
                Some(key) if !entries.iter().any(|(k, _, _)| *k == key) => {
                    entries.push((key, value, span));
                }
                _ => self.bail = true,
            },
            None => {
                let Some(key) = self.key.take() else {
                    self.bail = true;
                    return;
                };
                match self.kind.keys().iter().position(|k| *k == key) {
                    Some(i) if self.fields[i].is_none() => self.fields[i] = Some((value, span)),
                    _ => self.bail = true,
                }
            }
        }
    }

    /// Turn the finished table's fields into the model.
    fn finish_table(&mut self) {
        let fields = std::mem::take(&mut self.fields);
        let done = match self.kind {
            Kind::Top => fields.iter().all(Option::is_none).then_some(()),
            Kind::Project => project(fields).map(|p| self.out.project = Some(p)),
            Kind::Kernels => kernels(fields).map(|k| self.out.kernels = Some(k)),
            Kind::Op => op(fields, &mut self.out.slugs).map(|op| self.out.ops.push(op)),
            Kind::Ladder => {
                ladder(fields, &mut self.out.axes).map(|ladder| self.out.ladders.push(ladder))
            }
            Kind::Rung => match (rung(fields), self.out.ladders.last_mut()) {
                (Some(rung), Some(ladder)) => ladder.names.insert(rung.name.clone()).then(|| {
                    ladder.rungs.push(rung);
                }),
                _ => None,
            },
        };
        if done.is_none() {
            self.bail = true;
        }
    }

    fn open_header(&mut self, array: bool) {
        if self.stack.is_empty() && self.key.is_none() && self.header.is_none() {
            self.finish_table();
            self.header = Some(Header {
                array,
                keys: Vec::new(),
            });
        } else {
            self.bail = true;
        }
    }

    fn close_header(&mut self) {
        let Some(header) = self.header.take() else {
            self.bail = true;
            return;
        };
        let keys: Vec<&str> = header.keys.iter().map(|k| k.as_ref()).collect();
        self.kind = match (header.array, keys.as_slice()) {
            (false, ["project"]) if self.out.project.is_none() => Kind::Project,
            (false, ["kernels"]) if self.out.kernels.is_none() => Kind::Kernels,
            (true, ["op"]) => Kind::Op,
            (true, ["ladder"]) => Kind::Ladder,
            (true, ["ladder", "rung"]) if !self.out.ladders.is_empty() => Kind::Rung,
            _ => {
                self.bail = true;
                Kind::Top
            }
        };
        // A second `[project]` after one that failed is caught by the bail.
    }
}

impl<'i> EventReceiver for Builder<'i> {
    fn std_table_open(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.open_header(false);
    }
    fn std_table_close(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.close_header();
    }
    fn array_table_open(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.open_header(true);
    }
    fn array_table_close(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.close_header();
    }
    fn inline_table_open(&mut self, span: Span, _error: &mut dyn ErrorSink) -> bool {
        self.stack.push(Open::Inline {
            start: self.at(span.start()),
            key: None,
            entries: Vec::new(),
        });
        true
    }
    fn inline_table_close(&mut self, span: Span, _error: &mut dyn ErrorSink) {
        match self.stack.pop() {
            Some(Open::Inline {
                start,
                key: None,
                entries,
            }) => {
                let end = self.at(span.end());
                self.value(Val::Table(entries), start..end)
            }
            _ => self.bail = true,
        }
    }
    fn array_open(&mut self, span: Span, _error: &mut dyn ErrorSink) -> bool {
        self.stack.push(Open::Array {
            start: self.at(span.start()),
            items: Vec::new(),
        });
        true
    }
    fn array_close(&mut self, span: Span, _error: &mut dyn ErrorSink) {
        match self.stack.pop() {
            Some(Open::Array { start, items }) => {
                let end = self.at(span.end());
                self.value(Val::Array(items), start..end)
            }
            _ => self.bail = true,
        }
    }
    fn simple_key(&mut self, span: Span, encoding: Option<Encoding>, error: &mut dyn ErrorSink) {
        if self.bail {
            return;
        }
        let raw = self.raw(span, encoding);
        let key = match plain_key(raw.as_str(), encoding) {
            Some(key) => Cow::Borrowed(key),
            None => {
                let mut key = Cow::Borrowed("");
                raw.decode_key(&mut key, error);
                key
            }
        };
        if let Some(header) = &mut self.header {
            header.keys.push(key);
            return;
        }
        let slot = match self.stack.last_mut() {
            Some(Open::Inline { key, .. }) => key,
            Some(Open::Array { .. }) => {
                self.bail = true;
                return;
            }
            None => &mut self.key,
        };
        if slot.replace(key).is_some() {
            self.bail = true;
        }
    }
    fn key_sep(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        // Dotted keys are for the slow path; dotted headers are read there
        // too, except `[[ladder.rung]]`.
        if self.header.is_none() {
            self.bail = true;
        }
    }
    fn scalar(&mut self, span: Span, encoding: Option<Encoding>, error: &mut dyn ErrorSink) {
        if self.bail {
            return;
        }
        let raw = self.raw(span, encoding);
        if let Some(text) = plain_string(raw.as_str(), encoding) {
            // Printable ASCII: nothing for `text_safety` to find.
            let span = self.at(span.start())..self.at(span.end());
            self.value(Val::Str(Cow::Borrowed(text)), span);
            return;
        }
        let mut decoded = Cow::Borrowed("");
        let kind = raw.decode_scalar(&mut decoded, error);
        let value = match kind {
            ScalarKind::String => {
                if !self.plain && !super::text_safety::is_safe(&decoded) {
                    self.bail = true;
                    return;
                }
                Val::Str(decoded)
            }
            ScalarKind::Boolean(_) => Val::Bool,
            ScalarKind::DateTime => match decoded.parse::<toml::value::Datetime>() {
                Ok(dt) => Val::Date(dt),
                Err(_) => {
                    self.bail = true;
                    return;
                }
            },
            ScalarKind::Float => Val::Float(decoded),
            ScalarKind::Integer(radix) => Val::Int(decoded, radix.value()),
        };
        let span = self.at(span.start())..self.at(span.end());
        self.value(value, span);
    }
    fn error(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.bail = true;
    }
}

/// The text of a one-line string token that needs no decoding: delimited
/// at both ends, and every byte inside printable ASCII or a tab, other
/// than the delimiter and `\`. `toml_parser`'s decoder would return
/// exactly these bytes and report nothing; any other string is decoded.
fn plain_string(raw: &str, encoding: Option<Encoding>) -> Option<&str> {
    let quote = match encoding {
        Some(Encoding::BasicString) => b'"',
        Some(Encoding::LiteralString) => b'\'',
        _ => return None,
    };
    let bytes = raw.as_bytes();
    if bytes.len() < 2 || bytes[0] != quote || bytes[bytes.len() - 1] != quote {
        return None;
    }
    let inner = &bytes[1..bytes.len() - 1];
    // No early exit, so the compiler can vectorise it.
    let plain = inner.iter().fold(true, |ok, &b| {
        ok & ((b' '..=b'~').contains(&b) & (b != quote) & (b != b'\\') | (b == b'\t'))
    });
    plain.then(|| &raw[1..raw.len() - 1])
}

/// A bare key that needs no decoding: one or more of `A-Za-z0-9_-`, which
/// the decoder would return as they are, reporting nothing.
fn plain_key(raw: &str, encoding: Option<Encoding>) -> Option<&str> {
    let bare = encoding.is_none()
        && !raw.is_empty()
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    bare.then_some(raw)
}

mod tables;
#[cfg(test)]
mod tests;
