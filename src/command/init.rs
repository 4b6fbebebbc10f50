//! `sota init` and `sota suggest` as library calls: list the tracked files,
//! plan or suggest (surface::init, surface::suggest), and write the matrix
//! atomically when asked. No printing; the CLI renders the reports.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::matrix::{self, Matrix};
use crate::outcome::{Failure, Outcome};
use crate::repo::tracked;
use crate::surface::init::{self, Plan};
use crate::surface::suggest;

/// `sota init`'s arguments.
#[derive(Clone, Debug, Default)]
pub struct InitArgs {
    /// Print the draft instead of writing it.
    pub dry_run: bool,
    /// Replace an existing matrix.
    pub force: bool,
    /// `[project] name` (default: the directory's name).
    pub name: Option<String>,
}

/// What `sota init` did.
#[derive(Debug)]
pub struct InitReport {
    pub plan: Plan,
    /// The drafted matrix text.
    pub text: String,
    /// The matrix file as shown to the user.
    pub shown: String,
    /// Whether the file was written (false for a dry run or a refusal).
    pub written: bool,
    /// A matrix exists and `--force` was not given: nothing was done.
    pub refused: bool,
}

impl InitReport {
    pub fn outcome(&self) -> Outcome {
        if self.refused {
            Outcome::Refused
        } else {
            Outcome::Done
        }
    }
}

/// Draft a matrix for the tree at the working directory (or at the
/// directory of `--matrix PATH`), and write it unless `dry_run`.
pub fn init(ctx: &Context, args: &InitArgs) -> Result<InitReport, Failure> {
    let target = match &ctx.inputs.matrix_flag {
        Some(p) => ctx.absolute(p),
        None => ctx.cwd().join(matrix::FILE_NAME),
    };
    let shown = ctx.shown(&target);
    let root = target
        .parent()
        .map_or_else(|| ctx.cwd().to_path_buf(), Path::to_path_buf);
    let exists = target.exists();
    let (paths, _) = tracked::list(&root, ctx.inputs.git_env_overrides).map_err(Failure::Git)?;
    let name = args.name.clone().unwrap_or_else(|| dir_name(&root));
    let catalog = Matrix::catalog();
    let remote = crate::repo::git::Git::new(&root).config("remote.origin.url");
    let plan = init::plan(
        &catalog,
        &init::Input {
            root: &root,
            tracked: &paths,
            name: &name,
            today: ctx.today(),
            remote: remote.as_deref(),
        },
    );
    let text = init::emit::toml(&plan);
    // The draft must load: one that does not is a bug, never a file.
    Matrix::from_str(&text, &target).map_err(Failure::Matrix)?;
    let refused = exists && !args.force && !args.dry_run;
    let written = !refused && !args.dry_run;
    if written && exists {
        // `--force` on a `sota.toml` found here is untrusted like a read
        // one: a link leading outside the repository is refused with the
        // readers' message, never written through.
        if ctx.inputs.matrix_flag.is_none() && !ctx.inputs.allow_outside_repo {
            matrix::check_inside(&target).map_err(Failure::Matrix)?;
        }
        // `--force`: in place, as a user sees the file (through a symlink,
        // keeping its mode).
        crate::repo::write::replace_existing(&target, text.as_bytes())?;
    } else if written {
        crate::repo::write::atomic(&target, text.as_bytes(), None)?;
    }
    Ok(InitReport {
        plan,
        text,
        shown,
        written,
        refused,
    })
}

fn dir_name(root: &Path) -> String {
    std::fs::canonicalize(root)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".to_owned())
}

/// `sota suggest`'s arguments.
#[derive(Clone, Debug, Default)]
pub struct SuggestArgs {
    /// Files to place (cwd-relative or absolute); empty: every uncovered kernel file.
    pub files: Vec<String>,
    /// Apply the edits to the matrix.
    pub write: bool,
}

/// What `sota suggest` proposed (and wrote).
#[derive(Debug)]
pub struct SuggestReport {
    pub report: suggest::Report,
    /// The matrix file as shown to the user.
    pub matrix: String,
    pub written: bool,
}

impl SuggestReport {
    /// Nothing to place, or something placed: done; files and no proposal: nothing found.
    pub fn outcome(&self) -> Outcome {
        let answered = self
            .report
            .suggestions
            .iter()
            .any(|s| s.proposal.is_some() || !s.covered_by.is_empty());
        if answered || self.report.suggestions.is_empty() {
            Outcome::Done
        } else {
            Outcome::NotFound
        }
    }
}

/// Propose ops for uncovered kernel files, and apply the edits if asked.
pub fn suggest(ctx: &Context, args: &SuggestArgs) -> Result<SuggestReport, Failure> {
    let matrix = ctx.project_matrix("suggest")?;
    let root = ctx.root(matrix);
    let (paths, _) = tracked::list(&root, ctx.inputs.git_env_overrides).map_err(Failure::Git)?;
    let files: Vec<String> = if args.files.is_empty() {
        suggest::uncovered(matrix, &paths)
    } else {
        let mut files = Vec::new();
        for f in &args.files {
            match crate::surface::lookup::path_candidates(f, ctx.cwd(), &root)
                .into_iter()
                .next()
            {
                Some(rel) => files.push(rel),
                None => {
                    return Err(Failure::Usage(format!(
                        "{f} is outside the matrix root {}",
                        root.display()
                    )))
                }
            }
        }
        files
    };
    let catalog = Matrix::catalog();
    let report = suggest::suggest(
        matrix,
        &catalog,
        &suggest::Input {
            root: &root,
            tracked: &paths,
            files: &files,
        },
    );
    let path: PathBuf = ctx
        .source
        .path()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| matrix.file.clone());
    let mut written = false;
    if args.write && !report.edits.is_empty() {
        let new_text = suggest::apply(&matrix.text, &report.edits).map_err(|e| {
            Failure::Usage(format!("cannot edit {}: {}", matrix.display_name(), e.0))
        })?;
        Matrix::from_str(&new_text, &path).map_err(Failure::Matrix)?;
        // In place, as a user sees the file: through a symlink, keeping its mode.
        crate::repo::write::replace_existing(&ctx.absolute(&path), new_text.as_bytes())?;
        written = true;
    }
    Ok(SuggestReport {
        report,
        matrix: matrix.display_name(),
        written,
    })
}
