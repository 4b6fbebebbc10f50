//! Thin entry points for the fuzz harnesses in `fuzz/` and for the corpus
//! replay test (`tests/cli/fuzz_replay.rs`): each takes the raw bytes an
//! attacker controls and runs them through the same code a real run does.
//! Not a stable API: hidden from the docs, and nothing else calls it.
//! Every function must return for any input without panicking.

use std::path::Path;

fn load_matrix(data: &[u8]) -> Result<crate::Matrix, crate::LoadError> {
    crate::Matrix::from_bytes_named(data.to_vec(), Path::new("sota.toml"), "sota.toml")
}

/// The matrix loader and what every command does with a valid matrix: the
/// JSON list and a glob index matched against a few paths. An invalid
/// matrix stops at the error's one-line message; its diagnostics are
/// rendered by [`diagnostic`], a target of its own because rendering is
/// a hundred times slower than loading.
pub fn matrix(data: &[u8]) {
    match load_matrix(data) {
        Ok(matrix) => {
            let _ = crate::output::json::to_string(&crate::output::json::list(&matrix));
            if let Ok(mut index) = crate::OpIndex::new(&matrix) {
                for path in ["a.cu", "kernels/attn/flash.cu", "src/x/y/z.rs", ""] {
                    let _ = index.matches(path);
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// The problems of an invalid matrix as a user sees them: rendered as
/// `sota list` renders them (miette), as one-line summaries, and as JSON
/// problems.
pub fn diagnostic(data: &[u8]) {
    if let Err(e) = load_matrix(data) {
        let _ = crate::output::json::problems(&e);
        if let crate::LoadError::Invalid(invalid) = &e {
            let _ = invalid.one_line_summaries();
            render_some_diagnostics(invalid);
        }
    }
}

/// The problems of an invalid matrix rendered with the handler `sota list`
/// uses (width 100, no colour).
pub fn render_diagnostics(invalid: &crate::matrix::InvalidMatrix) -> String {
    render(invalid.diagnostics())
}

/// How many problems of one input the `diagnostic` harness renders in
/// full, besides the last. Each problem is built and rendered on its own,
/// so one more exercises no new code, yet a 4 KiB input can hold a
/// thousand problems and each costs about 0.1 ms under instrumentation.
const RENDERED_PROBLEMS: usize = 8;

/// The first [`RENDERED_PROBLEMS`] problems and the last, rendered.
fn render_some_diagnostics(invalid: &crate::matrix::InvalidMatrix) -> String {
    let mut diags = invalid.diagnostics();
    let last = if diags.len() > RENDERED_PROBLEMS {
        diags.next_back()
    } else {
        None
    };
    render(diags.take(RENDERED_PROBLEMS).chain(last))
}

fn render(diags: impl Iterator<Item = crate::matrix::ProblemDiagnostic>) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false);
    let mut out = String::new();
    for diag in diags {
        let _ = handler.render_report(&mut out, &diag);
    }
    out
}

/// The `Prior-art:` trailer rules over a commit message (the first byte
/// picks the comment prefix, as `core.commentChar` would), and the
/// staged-diff silencer over each line.
pub fn trailer(data: &[u8]) {
    let (comment, message) = match data.split_first() {
        Some((b'0', rest)) => ("", rest),
        Some((b';', rest)) => (";", rest),
        Some((_, rest)) => ("#", rest),
        None => ("#", data),
    };
    let message = String::from_utf8_lossy(message);
    let _ = crate::surface::trailer::find(&message, comment);
    let _ = crate::surface::trailer::stamp(&message, comment);
    for line in data.split(|&b| b == b'\n') {
        let _ = crate::surface::trailer::mentions(line);
    }
}

/// The parser of `git log -z` records (what `sota audit` and the gate's
/// range mode read from git), on arbitrary bytes.
pub fn git_log(data: &[u8]) {
    let _ = crate::repo::git::parse_log(data);
}

/// The in-process index reader, for SHA-1 and SHA-256 layouts, with and
/// without a prefix filter.
pub fn index_file(data: &[u8]) {
    for hash_len in [20, 32] {
        let _ = crate::repo::index_file::read_paths(data, hash_len, b"");
        let _ = crate::repo::index_file::read_paths(data, hash_len, b"src/");
    }
}

/// The largest brace expansion the `glob` harness compiles.
const GLOB_ALTERNATIVES: usize = 64;

/// Glob compilation, then matching: the first line is the glob, each
/// further line a path. One index answers every path, as in `coverage`
/// (its lazily compiled states reused from path to path); after two or
/// more paths its answer for the last must equal a freshly compiled
/// glob's, so a state cached wrongly between paths is a crash.
pub fn glob(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let Some(glob) = lines.next() else { return };
    let Ok(g) = crate::glob::FileGlob::new(glob) else {
        return;
    };
    // Compiling is linear in the alternatives; past this many, an input
    // costs a millisecond and exercises no code a smaller expansion does
    // not (the bound itself is checked above, by `FileGlob::new`, and a
    // 4,096-way glob is compiled in `index::tests`).
    if crate::glob::syntax::alternatives(glob).map_or(true, |n| n > GLOB_ALTERNATIVES) {
        return;
    }
    let mut index = crate::index::OpIndex::from_globs([((0, 0), &g)]);
    let mut last = None;
    for (i, path) in lines.take(64).enumerate() {
        last = Some((i, path, !index.all_hits(path.as_bytes()).is_empty()));
    }
    if let Some((1.., path, hit)) = last {
        assert_eq!(hit, g.is_match(path), "warm index on {path:?}");
    }
}

/// The `.npy` header reader of `sota prove`, on a whole file. What it
/// accepts must describe bytes that are there: the data slice it names is
/// taken (as `TensorFile::view` takes it) and its first element decoded.
pub fn npy(data: &[u8]) {
    if let Ok(meta) = crate::prove::npy::parse(data) {
        touch_tensor(data, &meta);
    }
}

/// The `.safetensors` header reader of `sota prove`, on a whole file: every
/// tensor it accepts is sliced and its first element decoded, and the
/// tensors must not overlap.
pub fn safetensors(data: &[u8]) {
    if let Ok(tensors) = crate::prove::safetensors::parse(data) {
        let mut spans: Vec<_> = tensors.iter().map(|t| (t.offset, t.nbytes)).collect();
        spans.sort_unstable();
        for pair in spans.windows(2) {
            assert!(pair[0].0 + pair[0].1 <= pair[1].0, "overlapping tensors");
        }
        for meta in &tensors {
            touch_tensor(data, meta);
        }
    }
}

/// What `sota prove` does first with a parsed header: slice the tensor's
/// data out of the file and read it. Panics (a fuzzer finding) when the
/// header's sizes do not fit the file or do not match the shape.
fn touch_tensor(data: &[u8], meta: &crate::prove::tensor::TensorMeta) {
    let bytes = &data[meta.offset..meta.offset + meta.nbytes];
    let count = crate::prove::tensor::element_count(&meta.shape).expect("checked by the parser");
    assert_eq!(
        count.checked_mul(meta.dtype.size()),
        Some(bytes.len()),
        "size of {meta:?}"
    );
    let _ = crate::prove::tensor::strides(&meta.shape, meta.layout);
    if !bytes.is_empty() {
        let _ = meta.dtype.decoder(meta.order).decode_one(bytes);
    }
}

/// The user-text parsers of `sota prove`'s flags: the first line is a
/// `--check SPEC`, the second a `--shape`, the third a `--dtype` (lossy
/// UTF-8: a non-UTF-8 argument never reaches them); a shape and dtype that
/// both parse are sized as a raw file's would be.
pub fn prove_spec(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(3, '\n');
    let _ = crate::prove::spec::parse_checks(lines.next().unwrap_or(""));
    let shape = crate::prove::spec::parse_shape(lines.next().unwrap_or(""));
    let dtype = crate::prove::spec::parse_dtype(lines.next().unwrap_or(""));
    if let (Ok(shape), Ok((dtype, _))) = (shape, dtype) {
        let _ =
            crate::prove::tensor::element_count(&shape).and_then(|c| c.checked_mul(dtype.size()));
    }
}
