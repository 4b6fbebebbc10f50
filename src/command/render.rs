//! Docs rendering as a library call: read the Markdown file, render its
//! regions from the matrix, and write it atomically (or, under `--check`,
//! only say whether it is stale).

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::matrix::Matrix;
use crate::outcome::{Failure, Outcome};
use crate::surface::render::{self, Change};

/// What the render did.
#[derive(Debug)]
pub struct RenderReport<'m> {
    pub matrix: &'m Matrix,
    /// The file as given.
    pub file: PathBuf,
    /// The file as shown to the user.
    pub shown: String,
    /// The regions whose content changed (or, under `--check`, would).
    pub changes: Vec<Change>,
    pub check: bool,
    /// Whether the file was rewritten.
    pub wrote: bool,
}

impl RenderReport<'_> {
    pub fn outcome(&self) -> Outcome {
        if self.check && !self.changes.is_empty() {
            Outcome::Stale
        } else {
            Outcome::Done
        }
    }
}

/// Render `file` from the matrix (and `facts`, what only the front end
/// knows); with `check`, change nothing.
pub fn run<'c>(
    ctx: &'c Context,
    file: &Path,
    check: bool,
    facts: &render::Facts,
) -> Result<RenderReport<'c>, Failure> {
    let matrix = ctx.matrix()?;
    let path = ctx.absolute(file);
    let shown = ctx.shown(file);
    let text = match std::fs::read(&path).map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => {
            return Err(Failure::Usage(format!(
                "sota render: {shown} is not UTF-8 text"
            )))
        }
        Err(e) => {
            return Err(Failure::Usage(format!(
                "sota render: cannot read {shown}: {e}"
            )))
        }
    };
    let rendered = render::render_with(&text, matrix, facts).map_err(|e| {
        Failure::Usage(match e.line {
            Some(line) => format!("sota render: {shown}:{line}: {}", e.message),
            None => format!("sota render: {shown}: {}", e.message),
        })
    })?;
    let wrote = !check && !rendered.changes.is_empty();
    if wrote {
        crate::repo::write::replace_existing(&path, rendered.text.as_bytes())?;
    }
    Ok(RenderReport {
        matrix,
        file: file.to_path_buf(),
        shown,
        changes: rendered.changes,
        check,
        wrote,
    })
}
