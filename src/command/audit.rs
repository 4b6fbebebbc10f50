//! The trailer audit as a library call: stream the history from git into
//! the auditor. Progress is reported through a callback, so a front end
//! can draw it (or not).

use crate::context::Context;
use crate::matrix::Matrix;
use crate::outcome::{Failure, Outcome};
use crate::repo::git::{Git, LogLimits};
use crate::surface::audit::{Auditor, Report};

/// The audit's arguments.
#[derive(Clone, Debug, Default)]
pub struct AuditArgs {
    /// Revision range (default: everything reachable from HEAD).
    pub range: Option<String>,
    pub limits: LogLimits,
}

/// The audit with what it covered.
#[derive(Debug)]
pub struct AuditReport<'m> {
    pub matrix: &'m Matrix,
    /// The range walked (`HEAD` by default).
    pub range: String,
    /// The clone is shallow: history is cut.
    pub shallow: bool,
    pub report: Report,
}

impl AuditReport<'_> {
    pub fn outcome(&self) -> Outcome {
        Outcome::Done
    }
}

/// Progress callbacks: `total` once (when known), then `seen` as commits
/// arrive.
pub trait Progress {
    /// Whether the front end wants progress at all (counting costs a git
    /// call).
    fn wanted(&self) -> bool;
    fn total(&mut self, total: usize);
    fn seen(&mut self, seen: usize);
    fn done(&mut self);
}

/// No progress.
pub struct Quiet;

impl Progress for Quiet {
    fn wanted(&self) -> bool {
        false
    }
    fn total(&mut self, _: usize) {}
    fn seen(&mut self, _: usize) {}
    fn done(&mut self) {}
}

/// Audit the history of the project's matrix root.
pub fn run<'c>(
    ctx: &'c Context,
    args: &AuditArgs,
    progress: &mut dyn Progress,
) -> Result<AuditReport<'c>, Failure> {
    let matrix = ctx.project_matrix("audit")?;
    let git = Git::new(ctx.root(matrix));
    let range = args.range.clone().unwrap_or_else(|| "HEAD".to_owned());
    let extra = args.limits.args();
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();

    let mut auditor = Auditor::new(matrix, &git.comment_prefix());
    let shallow = git.is_shallow();
    if args.range.is_some() || git.has_commits() {
        if progress.wanted() {
            progress.total(git.count_commits(&range, &extra).unwrap_or(0));
        }
        let mut seen = 0usize;
        let result = git.for_each_commit(&range, &extra, crate::surface::trailer::KEY, |c| {
            auditor.add(c);
            seen += 1;
            if seen.is_multiple_of(64) {
                progress.seen(seen);
            }
        });
        progress.seen(seen);
        progress.done();
        result?;
    }
    Ok(AuditReport {
        matrix,
        range,
        shallow,
        report: auditor.finish(),
    })
}
