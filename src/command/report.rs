//! `sota report --html FILE` as a library call: score coverage, walk the
//! history for the audit (a tree without git history still gets a page)
//! and draw the ladders; [`page`] returns that data, and the front end
//! renders the self-contained page (`output::html`) and writes it.

use crate::command::audit::{self, AuditArgs, Quiet};
use crate::command::coverage;
use crate::context::Context;
use crate::matrix::Matrix;
use crate::outcome::{Failure, Outcome};
use crate::surface::audit::Report as AuditReport;
use crate::surface::coverage::Report as CoverageReport;
use crate::surface::milestones::{self, LadderView};

/// What the page shows.
#[derive(Debug)]
pub struct ReportPage<'c> {
    pub matrix: &'c Matrix,
    pub coverage: CoverageReport,
    pub ladders: Vec<LadderView<'c>>,
    pub audit: Option<AuditReport>,
    /// Why the audit part is empty, when history could not be read.
    pub audit_error: Option<String>,
}

impl ReportPage<'_> {
    pub fn outcome(&self) -> Outcome {
        Outcome::Done
    }
}

/// Gather the page's data for the project's matrix, as of `ctx.today()`:
/// the scorecard judged on that date, the history from adoption to the end
/// of that day (so `--today` reproduces a past report).
pub fn page(ctx: &Context) -> Result<ReportPage<'_>, Failure> {
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
    Ok(ReportPage {
        matrix,
        coverage: cov.report,
        ladders,
        audit,
        audit_error,
    })
}
