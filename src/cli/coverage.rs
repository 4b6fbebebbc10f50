//! `sota coverage`: gather the tracked files (git index, or a walk outside
//! git), score the matrix, print, and decide `--check`'s exit code.

use std::path::{Path, PathBuf};

use sota::matrix::{self, Date, Matrix};
use sota::output::{coverage as render, json};
use sota::repo::git::{Git, GitError};
use sota::repo::paths::PathList;
use sota::surface::coverage::{self, Tracked};

use super::{absolute, err, out, same_dir, Failure, Outcome};

pub(super) fn run(
    flag: Option<&Path>,
    json_flag: bool,
    check: bool,
    today: Option<Date>,
) -> Result<Outcome, Failure> {
    let cwd = std::env::current_dir()?;
    let env = std::env::var_os("SOTA_MATRIX").map(PathBuf::from);
    let found = matrix::discover(&cwd, flag, env.as_deref());
    let Some(path) = found.path() else {
        err(&super::no_matrix_message("sota coverage", &cwd));
        return Ok(Outcome::Refused);
    };
    // Read the index while the matrix loads (they overlap on two cores):
    // in-process when the index is a plain one, else through `git ls-files`.
    let guess_root = absolute(path.parent().unwrap_or(Path::new(".")), &cwd);
    let reader = std::thread::spawn({
        let dir = guess_root.clone();
        move || list_tracked(&dir)
    });
    let matrix = Matrix::load(path).map_err(Failure::Matrix)?;
    let root = absolute(&matrix.root, &cwd);
    let listed = match reader.join() {
        Ok(listed) if same_dir(&guess_root, &root) => listed,
        _ => list_tracked(&root),
    };
    let (tracked, tracked_from): (PathList, Tracked) = match listed {
        Ok(paths) => (paths, Tracked::GitIndex),
        Err(GitError::Missing) => (walk(&root), Tracked::Walk),
        Err(GitError::Failed { stderr, .. }) if stderr.contains("not a git repository") => {
            (walk(&root), Tracked::Walk)
        }
        Err(e) => {
            err(&format!("sota coverage: {e}"));
            return Ok(Outcome::Refused);
        }
    };
    let today = today.unwrap_or_else(clock_today);
    let report = coverage::score(
        &matrix,
        &coverage::Input {
            tracked: &tracked,
            tracked_from,
            today,
        },
    );
    if json_flag {
        out(&json::to_string(&render::json(&matrix, &report)))?;
    } else {
        out(&render::human(&matrix, &report))?;
    }
    let outcome = if check && report.hard_debt > 0 {
        Outcome::NothingFound
    } else {
        Outcome::Done
    };
    // The process ends here: skip freeing 100,000 paths one by one.
    std::mem::forget((report, tracked, matrix));
    Ok(outcome)
}

/// The paths in the index under `dir`, relative to it.
fn list_tracked(dir: &Path) -> Result<PathList, GitError> {
    let git = Git::new(dir);
    let loc = match sota::repo::index_file::locate_plain(dir) {
        Some(loc) => loc,
        None => git.index_location()?,
    };
    if let Ok(bytes) = std::fs::read(&loc.index) {
        if let Some(list) = sota::repo::index_file::read_paths(&bytes, loc.hash_len, &loc.prefix) {
            return Ok(list);
        }
    } else if !loc.index.exists() {
        // A repository with nothing staged yet has no index file.
        return Ok(PathList::default());
    }
    git.spawn_ls_files()?.finish()
}

/// Today's date (UTC) from the system clock.
fn clock_today() -> Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Date::from_days_since_epoch((secs / 86_400) as i64)
}

/// Every file under `root` that is not ignored (.gitignore, .ignore,
/// hidden files), root-relative with `/` separators — for trees outside git.
fn walk(root: &Path) -> PathList {
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(root)
        .require_git(false)
        .build()
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        out.push(parts.join("/").into_bytes());
    }
    PathList::from_paths(out)
}
