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
    let catalog = ctx.catalog()?;
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
    /// Place the files in this op (`--op`): a row of the matrix, an op of
    /// the catalog, or a custom op described by `title`/`sota`/`link`.
    pub op: Option<String>,
    pub title: Option<String>,
    pub sota: Option<String>,
    pub link: Option<String>,
    /// Bring in this catalog ladder (`--ladder AXIS`).
    pub ladder: Option<String>,
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
    suggest_in(ctx, matrix, args)
}

/// [`suggest`] for a read-only caller (the MCP server) in a repository
/// that may have no `sota.toml` yet: then every file is uncovered and the
/// catalog's best match (with its evidence) is proposed against an empty
/// matrix at the working directory. Never writes.
pub fn suggest_read_only(ctx: &Context, files: Vec<String>) -> Result<SuggestReport, Failure> {
    let args = SuggestArgs {
        files,
        ..SuggestArgs::default()
    };
    match ctx.source {
        crate::context::Source::Catalog(_) => {
            let empty = Matrix::from_str(
                "[project]\nname = \"(no sota.toml yet)\"\n",
                ctx.cwd().join(matrix::FILE_NAME),
            )
            .map_err(Failure::Matrix)?;
            suggest_in(ctx, &empty, &args)
        }
        _ => suggest(ctx, &args),
    }
}

fn suggest_in(
    ctx: &Context,
    matrix: &Matrix,
    args: &SuggestArgs,
) -> Result<SuggestReport, Failure> {
    let root = ctx.root(matrix);
    let (paths, _) = tracked::list(&root, ctx.inputs.git_env_overrides).map_err(Failure::Git)?;
    let catalog = ctx.catalog()?;
    let asked = asked_op(matrix, &catalog, args)?;
    let ladder = asked_ladder(matrix, &catalog, args)?;
    let files: Vec<String> = if args.files.is_empty() && ladder.is_some() {
        Vec::new()
    } else if args.files.is_empty() {
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
    let mut report = suggest::suggest(
        matrix,
        &catalog,
        &suggest::Input {
            root: &root,
            tracked: &paths,
            files: &files,
            op: asked.as_ref(),
        },
    );
    report.ladders.extend(ladder);
    let path: PathBuf = ctx
        .source
        .path()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| matrix.file.clone());
    let mut written = false;
    if args.write && (!report.edits.is_empty() || !report.ladders.is_empty()) {
        let new_text =
            suggest::apply(&matrix.text, &report.edits, &report.ladders).map_err(|e| {
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

/// The op `--op` names: a row of the matrix or an op of the catalog as
/// they are; any other slug is a custom op, which needs a title and a
/// reference (`--title`, `--sota`).
fn asked_op(
    matrix: &Matrix,
    catalog: &Matrix,
    args: &SuggestArgs,
) -> Result<Option<suggest::Asked>, Failure> {
    let Some(slug) = &args.op else {
        if args.title.is_some() || args.sota.is_some() || args.link.is_some() {
            return Err(Failure::Usage(
                "--title, --sota and --link describe a custom op: use them with --op SLUG"
                    .to_owned(),
            ));
        }
        return Ok(None);
    };
    if matrix.op(slug).is_some() || catalog.op(slug).is_some() {
        return Ok(Some(suggest::Asked {
            slug: slug.clone(),
            custom: None,
        }));
    }
    if !crate::matrix::is_kebab(slug) {
        return Err(Failure::Usage(format!(
            "--op {}: a slug is kebab-case (lowercase letters, digits and single hyphens), e.g. `fused-attention`",
            crate::quote::quote(slug)
        )));
    }
    let known = matrix
        .ops
        .iter()
        .chain(&catalog.ops)
        .map(|o| o.slug.value.as_str());
    let (Some(title), Some(sota)) = (&args.title, &args.sota) else {
        return Err(Failure::Usage(format!(
            "--op {}: no op of {} or of the catalog has this slug{}; for a custom op, say what it is and what to read: --title \"...\" --sota \"...\" [--link URL]",
            crate::quote::quote(slug),
            matrix.display_name(),
            crate::did_you_mean::phrase(slug, known).map_or(String::new(), |p| format!(" ({p})")),
        )));
    };
    Ok(Some(suggest::Asked {
        slug: slug.clone(),
        custom: Some(suggest::CustomOp {
            title: title.clone(),
            sota: sota.clone(),
            link: args.link.clone(),
        }),
    }))
}

/// The catalog ladder `--ladder` names, when the matrix has none on that axis.
fn asked_ladder(
    matrix: &Matrix,
    catalog: &Matrix,
    args: &SuggestArgs,
) -> Result<Option<crate::matrix::Ladder>, Failure> {
    let Some(axis) = &args.ladder else {
        return Ok(None);
    };
    if matrix.ladder(axis).is_some() {
        return Err(Failure::Usage(format!(
            "--ladder {}: {} already has a ladder on this axis; `sota milestones {}` shows it",
            crate::quote::quote(axis),
            matrix.display_name(),
            crate::quote::quote(axis),
        )));
    }
    match catalog.ladder(axis) {
        Some(l) => Ok(Some(l.clone())),
        None => Err(Failure::Usage(format!(
            "--ladder {}: the catalog has no ladder on this axis{}; `sota milestones --catalog` lists them",
            crate::quote::quote(axis),
            crate::did_you_mean::phrase(axis, catalog.ladders.iter().map(|l| l.axis.value.as_str()))
                .map_or(String::new(), |p| format!(" ({p})")),
        ))),
    }
}
