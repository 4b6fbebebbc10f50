//! The coverage scorecard as a library call: list the tracked files while
//! the matrix loads (they overlap on two cores), then score.

use crate::context::Context;
use crate::matrix::Matrix;
use crate::outcome::{Failure, Outcome};
use crate::repo::paths::PathList;
use crate::repo::tracked;
use crate::surface::coverage::{self, Report};

/// The scorecard with the matrix it scored.
#[derive(Debug)]
pub struct CoverageReport<'m> {
    pub matrix: &'m Matrix,
    pub report: Report,
    /// `--check`: hard debt fails the run.
    pub check: bool,
}

impl CoverageReport<'_> {
    pub fn outcome(&self) -> Outcome {
        if self.check && self.report.hard_debt > 0 {
            Outcome::DebtFound
        } else {
            Outcome::Done
        }
    }
}

/// Score the project's matrix against its tree, as of `ctx.today()`.
pub fn run(ctx: &Context, check: bool) -> Result<CoverageReport<'_>, Failure> {
    if let crate::context::Source::Catalog(_) = ctx.source {
        // Say so before reading anything.
        ctx.project_matrix("coverage")?;
    }
    let overrides = ctx.inputs.git_env_overrides;
    let likely = ctx.likely_root();
    let reader = likely
        .clone()
        .map(|dir| std::thread::spawn(move || tracked::list(&dir, overrides)));
    let matrix = ctx.project_matrix("coverage")?;
    let root = ctx.root(matrix);
    let listed = match (reader, likely) {
        (Some(handle), Some(dir)) if same_dir(&dir, &root) => handle
            .join()
            .unwrap_or_else(|_| tracked::list(&root, overrides)),
        _ => tracked::list(&root, overrides),
    };
    let (paths, tracked_from): (PathList, _) = listed?;
    let report = coverage::score(
        matrix,
        &coverage::Input {
            tracked: &paths,
            tracked_from,
            today: ctx.today(),
        },
    );
    // The process ends soon: skip freeing 100,000 paths one by one.
    std::mem::forget(paths);
    Ok(CoverageReport {
        matrix,
        report,
        check,
    })
}

fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    a == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
}
