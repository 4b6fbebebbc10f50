//! Thin entry points for the fuzz harnesses in `fuzz/` and for the corpus
//! replay test (`tests/cli/fuzz_replay.rs`): each takes the raw bytes an
//! attacker controls and runs them through the same code a real run does.
//! Not a stable API: hidden from the docs, and nothing else calls it.
//! Every function must return for any input without panicking.

use std::path::Path;

/// The matrix loader, then whatever a user sees of the result: on success
/// the JSON list and a glob index matched against a few paths; on failure
/// every problem rendered as `sota list` renders it (miette), as one-line
/// summaries, and as JSON problems.
pub fn matrix(data: &[u8]) {
    match crate::Matrix::from_bytes_named(data.to_vec(), Path::new("sota.toml"), "sota.toml") {
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
            let _ = crate::output::json::problems(&e);
            if let crate::LoadError::Invalid(invalid) = &e {
                let _ = invalid.one_line_summaries();
                render_diagnostics(invalid);
            }
        }
    }
}

/// The problems of an invalid matrix rendered with the handler `sota list`
/// uses (width 100, no colour).
pub fn render_diagnostics(invalid: &crate::matrix::InvalidMatrix) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false);
    let mut out = String::new();
    for diag in invalid.diagnostics() {
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

/// Glob compilation, then matching: the first line is the glob, each
/// further line a path.
pub fn glob(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let Some(glob) = lines.next() else { return };
    if let Ok(g) = crate::glob::FileGlob::new(glob) {
        for path in lines.take(64) {
            let _ = g.is_match(path);
        }
    }
}
