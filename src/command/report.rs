//! `sota report --html FILE` as a library call: score coverage, walk the
//! history for the audit (a tree without git history still gets a page),
//! draw the ladders, and return the self-contained page; [`write`] puts it
//! on disk through `repo::write`.

use std::path::Path;

use crate::command::audit::{self, AuditArgs, Quiet};
use crate::command::coverage;
use crate::context::Context;
use crate::outcome::{Failure, Outcome};
use crate::surface::milestones;

/// The page and where it went.
#[derive(Debug)]
pub struct ReportPage {
    pub html: String,
    /// The file as shown to the user (after [`write`]).
    pub shown: String,
    /// Why the audit part is empty, when history could not be read.
    pub audit_error: Option<String>,
}

impl ReportPage {
    pub fn outcome(&self) -> Outcome {
        Outcome::Done
    }
}

/// Build the page for the project's matrix, as of `ctx.today()`: the
/// scorecard judged on that date, the history from adoption to the end of
/// that day (so `--today` reproduces a past report).
pub fn page(ctx: &Context) -> Result<ReportPage, Failure> {
    let cov = coverage::run(ctx, false)?;
    let matrix = cov.matrix;
    let args = AuditArgs {
        until: Some(ctx.today()),
        ..AuditArgs::default()
    };
    let (audit, audit_error) = match audit::run(ctx, &args, &mut Quiet) {
        Ok(a) => (Some(a.report), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let ladders = milestones::overview(matrix);
    let html = crate::output::html::page(matrix, &cov.report, &ladders, audit.as_ref());
    Ok(ReportPage {
        html,
        shown: String::new(),
        audit_error,
    })
}

/// Build the page and write it to `file` (atomically).
pub fn write(ctx: &Context, file: &Path) -> Result<ReportPage, Failure> {
    let mut page = page(ctx)?;
    let path = ctx.absolute(file);
    page.shown = ctx.shown(file);
    crate::repo::write::atomic(&path, page.html.as_bytes(), None)
        .map_err(|e| Failure::Usage(format!("sota report: cannot write {}: {e}", page.shown)))?;
    Ok(page)
}
