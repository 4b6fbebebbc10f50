//! The trailer audit as a library call: stream the history from git into
//! the auditor. Progress is reported through a callback, so a front end
//! can draw it (or not).

use crate::context::Context;
use crate::matrix::Matrix;
use crate::outcome::{Failure, Outcome};
use crate::repo::git::{Git, LogLimits};
use crate::surface::audit::{Auditor, Report, Start};

/// The audit's arguments.
#[derive(Clone, Debug, Default)]
pub struct AuditArgs {
    /// Revision range (default: everything reachable from HEAD).
    pub range: Option<String>,
    pub limits: LogLimits,
    /// Read all history, not only since adoption.
    pub all: bool,
    /// Only commits up to the end of this day (`sota report --today`).
    pub until: Option<crate::matrix::Date>,
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
    let (start, since) = start(ctx, matrix, &git, args);
    let mut extra = args.limits.args();
    extra.extend(since);
    extra.extend(args.until.map(|d| format!("--until={d}T23:59:59")));
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
    let mut report = auditor.finish();
    report.start = start;
    Ok(AuditReport {
        matrix,
        range,
        shallow,
        report,
    })
}

/// Where the history starts, and the `git log` argument that cuts it there
/// (SPEC 3.5): `--all`, `--since` or an explicit range as asked; else
/// `[project] adopted` (`--since` that day); else the first commit that
/// added the matrix file (it and its descendants: `^COMMIT^@`).
fn start(ctx: &Context, matrix: &Matrix, git: &Git, args: &AuditArgs) -> (Start, Option<String>) {
    if args.all {
        return (Start::All, None);
    }
    if let Some(since) = &args.limits.since {
        return (Start::Since(since.clone()), None);
    }
    if args.range.is_some() {
        return (Start::Range, None);
    }
    if let Some(d) = &matrix.project.adopted {
        // A bare date would take git's time of day: start at midnight.
        return (
            Start::Adopted(d.value),
            Some(format!("--since={}T00:00:00", d.value)),
        );
    }
    let file = matrix_file(ctx, git.dir());
    match git.first_commit_of(&file) {
        Some((hash, committed, _)) => {
            let date = committed.get(..10).unwrap_or(&committed).to_owned();
            // The adoption commit and what descends from it, whatever the
            // commits' dates say: exclude its parents' history (a root
            // commit has none, and then nothing is excluded).
            let after = format!("^{hash}^@");
            (Start::Added { hash, date, file }, Some(after))
        }
        None => (Start::Uncommitted { file }, None),
    }
}

/// The matrix file relative to the root (absolute when outside it).
fn matrix_file(ctx: &Context, root: &std::path::Path) -> String {
    let Some(path) = ctx.source.path() else {
        return "sota.toml".to_owned();
    };
    let full = crate::lexical::lexical(&ctx.absolute(path));
    let shown = full.strip_prefix(root).unwrap_or(&full);
    shown.to_string_lossy().replace('\\', "/")
}
