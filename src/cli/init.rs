//! `sota init` and `sota suggest`: resolve the root, list the tracked files,
//! call the library, print, write atomically, and decide the exit code.

use std::path::{Path, PathBuf};

use sota::matrix::{self, Date, Matrix};
use sota::output::init as render;
use sota::repo::tracked;
use sota::surface::{init, suggest};

use super::{absolute, err, out, Failure, Outcome};

#[derive(clap::Args, Debug)]
pub(crate) struct InitArgs {
    /// Print the drafted sota.toml instead of writing it
    #[arg(long)]
    dry_run: bool,
    /// Replace an existing matrix
    #[arg(long)]
    force: bool,
    /// The project name (default: the directory's name)
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// The `reviewed` date to write (YYYY-MM-DD) instead of today
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = super::parse_date)]
    today: Option<Date>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct SuggestArgs {
    /// Kernel files to place (relative to the current directory, or absolute)
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// Every kernel file no op covers (the default without FILEs)
    #[arg(long, conflicts_with = "files")]
    uncovered: bool,
    /// Apply the edits to sota.toml (comments and layout are kept)
    #[arg(long)]
    write: bool,
}

/// Today's date (UTC) from the system clock.
fn clock_today() -> Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Date::from_days_since_epoch((secs / 86_400) as i64)
}

pub(super) fn init(flag: Option<&Path>, json: bool, args: &InitArgs) -> Result<Outcome, Failure> {
    let cwd = std::env::current_dir()?;
    let target = match flag {
        Some(p) => absolute(p, &cwd),
        None => cwd.join(matrix::FILE_NAME),
    };
    let shown = flag.map_or_else(|| matrix::FILE_NAME.to_owned(), |p| p.display().to_string());
    if !args.dry_run && !args.force && target.exists() {
        err(&format!(
            "sota init: {shown} already exists; nothing was changed\n  hint: `sota init --force` replaces it, `sota init --dry-run` prints the draft, `sota suggest --uncovered` adds to it"
        ));
        return Ok(Outcome::Refused);
    }
    let root = target
        .parent()
        .map_or_else(|| cwd.clone(), Path::to_path_buf);
    let (paths, _) = match tracked::list(&root) {
        Ok(found) => found,
        Err(e) => {
            err(&format!("sota init: {e}"));
            return Ok(Outcome::Refused);
        }
    };
    let name = args.name.clone().unwrap_or_else(|| dir_name(&root));
    let catalog = Matrix::catalog();
    let plan = init::plan(
        &catalog,
        &init::Input {
            root: &root,
            tracked: &paths,
            name: &name,
            today: args.today.unwrap_or_else(clock_today),
        },
    );
    let text = init::emit::toml(&plan);
    // The draft must load: a plan that does not is a bug, never a file.
    if let Err(e) = Matrix::from_str(&text, &target) {
        err(&format!(
            "sota init: the draft does not load (a bug in sota init; please report it): {e}"
        ));
        return Ok(Outcome::Refused);
    }
    if args.dry_run {
        if json {
            out(&render::init_json(&plan, None))?;
        } else {
            out(&text)?;
            err(render::init_human(&plan, None).trim_end());
        }
        return Ok(Outcome::Done);
    }
    sota::repo::write::atomic(&target, text.as_bytes(), None)?;
    if json {
        out(&render::init_json(&plan, Some(&shown)))?;
    } else {
        out(&render::init_human(&plan, Some(&shown)))?;
    }
    Ok(Outcome::Done)
}

fn dir_name(root: &Path) -> String {
    std::fs::canonicalize(root)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".to_owned())
}

pub(super) fn suggest(
    flag: Option<&Path>,
    json: bool,
    args: &SuggestArgs,
) -> Result<Outcome, Failure> {
    let cwd = std::env::current_dir()?;
    let env = std::env::var_os("SOTA_MATRIX").map(PathBuf::from);
    let found = matrix::discover(&cwd, flag, env.as_deref());
    let Some(path) = found.path() else {
        err(&super::no_matrix_message("sota suggest", &cwd));
        return Ok(Outcome::Refused);
    };
    let path = path.to_path_buf();
    let matrix = Matrix::load(&path).map_err(Failure::Matrix)?;
    let root = absolute(&matrix.root, &cwd);
    let (paths, _) = match tracked::list(&root) {
        Ok(found) => found,
        Err(e) => {
            err(&format!("sota suggest: {e}"));
            return Ok(Outcome::Refused);
        }
    };
    let files: Vec<String> = if args.files.is_empty() {
        suggest::uncovered(&matrix, &paths)
    } else {
        let mut files = Vec::new();
        for f in &args.files {
            match sota::surface::lookup::path_candidates(f, &cwd, &root)
                .into_iter()
                .next()
            {
                Some(rel) => files.push(rel),
                None => {
                    err(&format!(
                        "sota suggest: {f} is outside the matrix root {}",
                        root.display()
                    ));
                    return Ok(Outcome::Refused);
                }
            }
        }
        files
    };
    let catalog = Matrix::catalog();
    let report = suggest::suggest(
        &matrix,
        &catalog,
        &suggest::Input {
            root: &root,
            tracked: &paths,
            files: &files,
        },
    );
    let name = matrix.display_name();
    let mut written = false;
    if args.write && !report.edits.is_empty() {
        let new_text = match suggest::apply(&matrix.text, &report.edits) {
            Ok(t) => t,
            Err(e) => {
                err(&format!("sota suggest: cannot edit {name}: {}", e.0));
                return Ok(Outcome::Refused);
            }
        };
        if let Err(e) = Matrix::from_str(&new_text, &path) {
            err(&format!(
                "sota suggest: the edited matrix would not load, so nothing was written: {e}"
            ));
            return Ok(Outcome::Refused);
        }
        sota::repo::write::atomic(&path, new_text.as_bytes(), None)?;
        written = true;
    }
    if json {
        out(&render::suggest_json(&report, &name, written))?;
    } else {
        out(&render::suggest_human(&report, &name))?;
        if written {
            out(&format!(
                "wrote {} edit{} to {name}\n",
                report.edits.len(),
                if report.edits.len() == 1 { "" } else { "s" }
            ))?;
        }
    }
    let proposed = report
        .suggestions
        .iter()
        .any(|s| s.proposal.is_some() || !s.covered_by.is_empty());
    Ok(if proposed || report.suggestions.is_empty() {
        Outcome::Done
    } else {
        Outcome::NothingFound
    })
}
