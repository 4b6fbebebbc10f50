//! The PRIOR_ART gate as a library call: resolve the change (staged, a
//! message, explicit paths or a commit range), judge it with
//! `surface::gate`, and say whether it could check at all. The gate never
//! stands in the way unless told to: a gate that could not check is
//! `Skipped` (exit 0) in a hook, and `Unchecked` (exit 2, loudly, with the
//! fix) under `--strict` or in CI.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::context::{Context, Source};
use crate::index::OpIndex;
use crate::matrix::{LoadError, Matrix};
use crate::outcome::{Failure, Outcome};
use crate::repo::confined::Confined;
use crate::repo::git::{Git, GitError, GitPath, StagedDetail};
use crate::surface::gate::{self, Finding, GateReport};
use crate::surface::trailer;

/// What the gate checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateMode {
    /// The staged change (the pre-commit hook).
    Staged,
    /// The staged change and this commit message (the commit-msg hook).
    CommitMsg(PathBuf),
    /// Add the suggested trailers as comments to this message template
    /// (the prepare-commit-msg hook).
    PrepareMsg(PathBuf),
    /// These paths, as given (relative to the working directory).
    Paths(Vec<String>),
    /// Every commit of a revision range (CI).
    Range(String),
}

/// The mode's name, for JSON and messages.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter, serde::Serialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(rename_all = "kebab-case")]
pub enum ModeKind {
    Staged,
    CommitMsg,
    PrepareMsg,
    Paths,
    Range,
}

impl GateMode {
    pub fn kind(&self) -> ModeKind {
        match self {
            GateMode::Staged => ModeKind::Staged,
            GateMode::CommitMsg(_) => ModeKind::CommitMsg,
            GateMode::PrepareMsg(_) => ModeKind::PrepareMsg,
            GateMode::Paths(_) => ModeKind::Paths,
            GateMode::Range(_) => ModeKind::Range,
        }
    }
}

/// The gate's arguments.
#[derive(Clone, Debug)]
pub struct GateArgs {
    pub mode: GateMode,
    /// Exit 1 on an advisory, and 2 when the gate could not check.
    pub strict: bool,
}

/// Why the gate could not check, and what to do about it.
#[derive(Debug)]
pub struct Unchecked {
    pub reason: String,
    pub fix: Option<String>,
    /// The matrix's own diagnostics, when it did not load.
    pub load_error: Option<LoadError>,
    /// `--strict` or CI: fail instead of letting the commit through.
    pub enforced: bool,
}

/// A judged change (staged, message or paths).
#[derive(Debug)]
pub struct ChangeReport<'m> {
    pub matrix: &'m Matrix,
    pub mode: ModeKind,
    pub strict: bool,
    pub report: GateReport<'m>,
    /// The matrix root relative to the repository top (`""` or `dir/`),
    /// for repository-relative annotations.
    pub repo_prefix: String,
    /// Root-relative path → the first line the staged change touches in
    /// it (staged and commit-msg modes; empty for `--paths`).
    pub lines: BTreeMap<String, usize>,
}

/// A judged commit range.
#[derive(Debug)]
pub struct RangeReport<'m> {
    pub matrix: &'m Matrix,
    pub range: String,
    pub strict: bool,
    pub findings: Vec<Finding<'m>>,
    pub repo_prefix: String,
}

/// What the gate did.
#[derive(Debug)]
pub enum GateRun<'m> {
    /// No `sota.toml` belongs to this repository: nothing to say (a hook
    /// installed globally must not bother repositories without sota).
    NoMatrix,
    /// The gate could not check.
    Unchecked(Unchecked),
    Change(ChangeReport<'m>),
    Range(RangeReport<'m>),
    /// prepare-commit-msg: whether suggestions were added to the template.
    Prepared {
        file: PathBuf,
        added: bool,
    },
}

impl GateRun<'_> {
    pub fn outcome(&self) -> Outcome {
        match self {
            GateRun::NoMatrix | GateRun::Prepared { .. } => Outcome::Done,
            GateRun::Unchecked(u) if u.enforced => Outcome::Unchecked,
            GateRun::Unchecked(_) => Outcome::Skipped,
            GateRun::Change(c) if c.strict && !c.report.advisories().is_empty() => Outcome::Blocked,
            GateRun::Range(r) if r.strict && !r.findings.is_empty() => Outcome::Blocked,
            GateRun::Change(_) | GateRun::Range(_) => Outcome::Done,
        }
    }
}

/// Run the gate. Only an I/O failure of the caller's own is an `Err`;
/// everything the gate cannot check is a [`GateRun::Unchecked`].
pub fn run<'c>(ctx: &'c Context, args: &GateArgs) -> Result<GateRun<'c>, Failure> {
    let enforced = args.strict || ctx.inputs.ci;
    let Some(path) = matrix_path(ctx)? else {
        return Ok(GateRun::NoMatrix);
    };

    // Start git before loading the matrix: reading a large index and
    // loading a large matrix overlap. The root is the matrix's directory
    // unless `[project] root` moves it (then git is asked again, below).
    let wants_staged = matches!(
        args.mode,
        GateMode::Staged | GateMode::CommitMsg(_) | GateMode::PrepareMsg(_)
    );
    // Only annotations carry line numbers, and only they need git's patch.
    let annotating = matches!(
        ctx.format(),
        crate::context::Format::Github | crate::context::Format::Sarif
    );
    let detail = if annotating {
        StagedDetail::FirstLines
    } else {
        StagedDetail::Paths
    };
    let likely_root = ctx.absolute(path.parent().unwrap_or(Path::new(".")));
    let pending = wants_staged.then(|| Git::new(&likely_root).spawn_staged(detail, trailer::KEY));

    let matrix = match ctx.matrix() {
        Ok(m) => m,
        Err(Failure::Matrix(e)) => return Ok(GateRun::Unchecked(load_failed(e, enforced))),
        Err(other) => return Err(other),
    };
    let git = Git::new(ctx.root(matrix));
    let mut index = match OpIndex::new(matrix) {
        Ok(i) => i,
        Err(e) => {
            let reason = format!("cannot compile the matrix globs: {e}");
            return Ok(unchecked(reason, None, enforced));
        }
    };
    let repo_prefix = if annotating {
        repo_prefix(&git)
    } else {
        String::new()
    };

    if let GateMode::Range(range) = &args.mode {
        return Ok(run_range(
            matrix,
            &git,
            &mut index,
            range,
            args.strict,
            repo_prefix,
            enforced,
        ));
    }

    match read_change(ctx, &args.mode, matrix, &git, &mut index, pending, detail) {
        Ok(change) => Ok(judge_change(ctx, args, matrix, &git, change, repo_prefix)),
        Err((reason, fix)) => Ok(unchecked(reason, fix, enforced)),
    }
}

/// The change to judge: explicit paths, or the staged change (and the
/// message file in the message modes).
fn read_change<'m>(
    ctx: &Context,
    mode: &GateMode,
    matrix: &'m Matrix,
    git: &Git,
    index: &mut OpIndex<'_>,
    pending: Option<Result<crate::repo::git::PendingStaged, GitError>>,
    detail: StagedDetail,
) -> Result<Change<'m>, (String, Option<String>)> {
    if let GateMode::Paths(paths) = mode {
        let rel = paths
            .iter()
            .filter_map(|p| root_relative(p, ctx.cwd(), git.dir()))
            .map(|p| GitPath::from_bytes(p.as_bytes()));
        let mut touched = gate::touched(matrix, index, rel);
        let root = git.dir();
        gate::attach_proofs(&mut touched, &Confined::new(root), |p| {
            worktree_blob(root, p)
        });
        return Ok(Change {
            touched,
            staged_line: false,
            message: None,
            lines: BTreeMap::new(),
        });
    }
    let staged = match pending {
        Some(Ok(p)) if crate::lexical::same_dir(p.dir(), git.dir()) => p.finish(),
        Some(Err(e)) => Err(e),
        _ => git.staged(detail, trailer::KEY),
    };
    staged_change(matrix, git, index, staged, mode)
}

/// Judge a change; in prepare-commit-msg mode, edit the template instead.
fn judge_change<'m>(
    ctx: &Context,
    args: &GateArgs,
    matrix: &'m Matrix,
    git: &Git,
    change: Change<'m>,
    repo_prefix: String,
) -> GateRun<'m> {
    let Change {
        touched,
        staged_line,
        message,
        lines,
    } = change;
    let comment = if message.is_some() && !touched.is_empty() {
        git.comment_prefix()
    } else {
        "#".to_owned()
    };
    let mut report = gate::judge(
        touched,
        staged_line,
        message.as_deref(),
        &comment,
        args.strict,
    );
    if let GateMode::PrepareMsg(file) = &args.mode {
        let enforced = args.strict || ctx.inputs.ci;
        return prepare(git, &report, message.as_deref(), file, enforced);
    }
    if ctx.json() && !report.touched.is_empty() {
        if let Some(msg) = &message {
            report.git_sees_trailer = git
                .parse_trailers(msg, trailer::KEY)
                .ok()
                .map(|t| !t.is_empty());
        }
    }
    GateRun::Change(ChangeReport {
        matrix,
        mode: args.mode.kind(),
        strict: args.strict,
        report,
        repo_prefix,
        lines,
    })
}

/// The matrix the gate reads, or `None` when no `sota.toml` belongs to
/// this repository. Nothing to check is not "could not check": a
/// repository without sota.toml stays quiet even under --strict (a hook
/// installed through a global core.hooksPath must not block it).
fn matrix_path(ctx: &Context) -> Result<Option<PathBuf>, Failure> {
    Ok(match &ctx.source {
        Source::Catalog(crate::context::CatalogReason::Asked) => {
            return Err(Failure::CatalogNotAllowed { command: "gate" })
        }
        Source::Catalog(_) => None,
        Source::Nearest(p) if !inside_same_repo(p, ctx.cwd()) => None,
        source => Some(source.path().expect("a matrix source").to_path_buf()),
    })
}

/// A gate that could not check, for `reason`.
fn unchecked<'m>(reason: String, fix: Option<String>, enforced: bool) -> GateRun<'m> {
    GateRun::Unchecked(Unchecked {
        reason,
        fix,
        load_error: None,
        enforced,
    })
}

/// The matrix did not load: one line naming the first problem.
fn load_failed(e: LoadError, enforced: bool) -> Unchecked {
    let (reason, fix) = match &e {
        LoadError::Invalid(invalid) => {
            let n = invalid.problems.len();
            let first = invalid.one_line_summaries().swap_remove(0);
            (
                format!(
                    "{} has {n} problem{}, first {first}",
                    crate::quote::quote(&invalid.name),
                    if n == 1 { "" } else { "s" }
                ),
                Some("run `sota list` to see them with their fixes".to_owned()),
            )
        }
        LoadError::Io { .. } | LoadError::Outside { .. } => (e.to_string(), None),
    };
    Unchecked {
        reason,
        fix,
        load_error: Some(e),
        enforced,
    }
}

/// `--range`: every commit of the range judged on its own message.
fn run_range<'m>(
    matrix: &'m Matrix,
    git: &Git,
    index: &mut OpIndex<'_>,
    range: &str,
    strict: bool,
    repo_prefix: String,
    enforced: bool,
) -> GateRun<'m> {
    let commits = match git.commits(range, &[], trailer::KEY) {
        Ok(c) => c,
        Err(e) => {
            let fix = range_fix(git, &e);
            return unchecked(e.to_string(), fix, enforced);
        }
    };
    let comment = git.comment_prefix();
    let findings = gate::range_findings(matrix, index, commits, &comment, strict);
    GateRun::Range(RangeReport {
        matrix,
        range: range.to_owned(),
        strict,
        findings,
        repo_prefix,
    })
}

/// What a change holds, before it is judged.
struct Change<'m> {
    touched: Vec<gate::Advisory<'m>>,
    staged_line: bool,
    message: Option<String>,
    lines: BTreeMap<String, usize>,
}

/// The staged change (and the message file, in the message modes); the
/// reason and fix when it cannot be read.
fn staged_change<'m>(
    matrix: &'m Matrix,
    git: &Git,
    index: &mut OpIndex<'_>,
    staged: Result<crate::repo::git::Staged, GitError>,
    mode: &GateMode,
) -> Result<Change<'m>, (String, Option<String>)> {
    let staged = staged.map_err(|e| {
        let fix = match e {
            GitError::Missing => Some("install git, or put it on PATH".to_owned()),
            _ => None,
        };
        (e.to_string(), fix)
    })?;
    // A bare repository has no work tree: git compares an empty index
    // with HEAD and every tracked file looks deleted. Nothing is staged
    // there, so there is nothing to check (asked only when something
    // looks staged and the root looks like a git directory itself).
    if !staged.paths.is_empty() && looks_like_git_dir(git.dir()) && git.is_bare() {
        return Err((
            "this is a bare repository: it has no work tree and nothing staged, so there is nothing to check".to_owned(),
            Some("run the gate in a clone with a work tree, or check commits with `sota gate --range A..B`".to_owned()),
        ));
    }
    let mut lines = BTreeMap::new();
    for (path, line) in staged.paths.iter().zip(&staged.first_lines) {
        if let Some(line) = line {
            lines.insert(path.display(), *line);
        }
    }
    let blobs: BTreeMap<String, Option<String>> = staged
        .paths
        .iter()
        .zip(&staged.blobs)
        .map(|(p, b)| (p.display(), b.clone()))
        .collect();
    let mut touched = gate::touched(matrix, index, staged.paths);
    let root = git.dir();
    gate::attach_proofs(&mut touched, &Confined::new(root), |p| {
        match blobs.get(p).cloned().flatten() {
            // Proof records hold SHA-1 ids (`git hash-object` of the work
            // tree); a SHA-256 repository's staged ids are hashed again.
            Some(id) if id.len() == 40 => Some(id),
            Some(_) => worktree_blob(root, p),
            None => None,
        }
    });
    let message = match mode {
        GateMode::CommitMsg(file) | GateMode::PrepareMsg(file) => match std::fs::read(file) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) => return Err((format!("cannot read {}: {e}", file.display()), None)),
        },
        _ => None,
    };
    Ok(Change {
        touched,
        staged_line: staged.adds_prior_art,
        message,
        lines,
    })
}

/// A work-tree path's blob id, `None` when it is gone.
fn worktree_blob(root: &Path, rel: &str) -> Option<String> {
    let id = crate::repo::objects::worktree_blob_id(&root.join(rel));
    (id != "missing").then_some(id)
}

/// prepare-commit-msg: add the suggested trailers to the template as
/// comments, where git will strip them.
fn prepare<'m>(
    git: &Git,
    report: &GateReport<'_>,
    message: Option<&str>,
    file: &Path,
    enforced: bool,
) -> GateRun<'m> {
    let advisories = report.advisories();
    let setting = |key| (!advisories.is_empty()).then(|| git.config(key)).flatten();
    let comment_setting = setting("core.commentString").or_else(|| setting("core.commentChar"));
    let mode = setting("commit.cleanup");
    let cleanup = gate::Cleanup {
        comment: comment_setting.as_deref(),
        mode: mode.as_deref(),
    };
    let mut added = false;
    if let Some(text) = gate::with_suggestions(message.unwrap_or(""), &advisories, cleanup) {
        if let Err(e) = crate::repo::write::replace_existing(file, text.as_bytes()) {
            return unchecked(
                format!("cannot write {}: {e}", file.display()),
                None,
                enforced,
            );
        }
        added = true;
    }
    GateRun::Prepared {
        file: file.to_path_buf(),
        added,
    }
}

/// What to do when a range could not be read.
fn range_fix(git: &Git, e: &GitError) -> Option<String> {
    match e {
        GitError::Missing => Some("install git, or put it on PATH".into()),
        GitError::Failed { .. } if git.is_shallow() => Some(
            "the clone is shallow, so the range's commits are missing: fetch the history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)".into(),
        ),
        GitError::Failed { .. } => Some(
            "name a range whose ends both exist, e.g. `origin/main..HEAD`; check each end with `git rev-parse --verify`".into(),
        ),
        GitError::Io(_) => None,
    }
}

/// The matrix root relative to the repository top, as a path prefix
/// (`""` when they coincide), for repository-relative annotations.
fn repo_prefix(git: &Git) -> String {
    let Ok(top) = git.toplevel() else {
        return String::new();
    };
    let root = std::fs::canonicalize(git.dir()).unwrap_or_else(|_| git.dir().to_path_buf());
    let top = std::fs::canonicalize(&top).unwrap_or(top);
    match root.strip_prefix(&top) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            format!("{}/", rel.to_string_lossy().replace('\\', "/"))
        }
        _ => String::new(),
    }
}

/// A user-given path, relative to the matrix root (`None` outside it).
/// Symlinks on the way are followed, the file itself never: a tracked
/// symlink is a path of its own, to git, to lookups and to the matrix.
fn root_relative(path: &str, cwd: &Path, root: &Path) -> Option<String> {
    let given = Path::new(&path.replace('\\', "/")).to_path_buf();
    let full = if given.is_absolute() {
        given
    } else {
        cwd.join(given)
    };
    let canonical = match (full.parent(), full.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir).map(|dir| dir.join(name)),
        _ => std::fs::canonicalize(&full),
    };
    let full = canonical.unwrap_or_else(|_| crate::lexical::lexical(&full));
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let rel = full.strip_prefix(&root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    parts.map(|p| p.join("/")).filter(|p| !p.is_empty())
}

/// Whether `dir` looks like a git directory (a bare repository's top):
/// `HEAD` and `objects/` in it, no `.git`.
fn looks_like_git_dir(dir: &Path) -> bool {
    !dir.join(".git").exists() && dir.join("HEAD").is_file() && dir.join("objects").is_dir()
}

/// Whether a discovered matrix belongs to the repository the cwd is in (a
/// `sota.toml` above the work tree, e.g. in $HOME, does not).
fn inside_same_repo(matrix: &Path, cwd: &Path) -> bool {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return matrix.starts_with(d);
        }
        dir = d.parent();
    }
    true
}
