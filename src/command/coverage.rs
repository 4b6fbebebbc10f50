//! The coverage scorecard as a library call: load the matrix, list the
//! tracked files, score.

use crate::context::{Context, Format};
use crate::matrix::Matrix;
use crate::outcome::{Failure, Outcome};
use crate::repo::git::Git;
use crate::repo::tracked;
use crate::surface::coverage::{self, Report};

/// Where a report's findings live, relative to the repository top (what
/// GitHub and SARIF viewers resolve paths against).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepoPaths {
    /// The matrix file, e.g. `sota.toml` or `sub/sota.toml`.
    pub matrix_file: String,
    /// The matrix root (`""` or `dir/`): prefixed to root-relative paths.
    pub root_prefix: String,
}

/// The scorecard with the matrix it scored.
#[derive(Debug)]
pub struct CoverageReport<'m> {
    pub matrix: &'m Matrix,
    pub report: Report,
    /// `--check`: hard debt fails the run.
    pub check: bool,
    /// Repository-relative places, for `--format github | sarif`
    /// (default otherwise).
    pub paths: RepoPaths,
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
    let matrix = ctx.project_matrix("coverage")?;
    let root = ctx.root(matrix);
    // The index's blob ids are read with its paths only when some proof
    // record may need them.
    let records = root.join(crate::surface::proofs::RECORD_DIR).is_dir();
    let (tracked, tracked_from, ids) =
        tracked::list_with_ids(&root, ctx.inputs.git_env_overrides, records)?;
    let from_index = |wanted: &[u32]| {
        let ids = ids.as_ref()?;
        Some(wanted.iter().map(|&i| ids.hex(i as usize)).collect())
    };
    let report = coverage::score(
        matrix,
        &coverage::Input {
            tracked: &tracked,
            tracked_from,
            today: ctx.today(),
            blob_ids: match tracked_from {
                tracked::TrackedFrom::GitIndex => coverage::BlobIds::Index(&from_index),
                tracked::TrackedFrom::Walk => coverage::BlobIds::WorkTree,
            },
        },
    );
    let paths = match ctx.format() {
        Format::Github | Format::Sarif => repo_paths(ctx, matrix),
        _ => RepoPaths::default(),
    };
    Ok(CoverageReport {
        matrix,
        report,
        check,
        paths,
    })
}

/// The matrix file and root relative to the repository top (the matrix
/// root stands in for the top outside a repository).
pub fn repo_paths(ctx: &Context, matrix: &Matrix) -> RepoPaths {
    let root = ctx.root(matrix);
    let canon = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let top = canon(&Git::new(&root).toplevel().unwrap_or_else(|_| root.clone()));
    let rel = |p: &std::path::Path| -> Option<String> {
        let r = canon(p);
        let r = r.strip_prefix(&top).ok()?;
        Some(r.to_string_lossy().replace('\\', "/"))
    };
    let root_prefix = match rel(&root) {
        Some(r) if !r.is_empty() => format!("{r}/"),
        _ => String::new(),
    };
    let matrix_file = ctx
        .source
        .path()
        .and_then(|p| rel(&ctx.absolute(p)))
        .unwrap_or_else(|| matrix.display_name());
    RepoPaths {
        matrix_file,
        root_prefix,
    }
}
