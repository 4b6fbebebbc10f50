//! The tracked files under a directory: the git index (read in-process when
//! it is a plain one, else `git ls-files`), or, outside git, a walk that
//! honours ignore files. The same rule as the coverage scorecard's.

use std::path::Path;

use super::git::{Git, GitError};
use super::paths::PathList;

/// Where the list came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    GitIndex,
    Walk,
}

/// The tracked paths under `dir`, relative to it, and where they came from.
pub fn list(dir: &Path) -> Result<(PathList, Source), GitError> {
    match list_index(dir) {
        Ok(paths) => Ok((paths, Source::GitIndex)),
        Err(GitError::Missing) => Ok((walk(dir), Source::Walk)),
        Err(GitError::Failed { stderr, .. }) if stderr.contains("not a git repository") => {
            Ok((walk(dir), Source::Walk))
        }
        Err(e) => Err(e),
    }
}

fn list_index(dir: &Path) -> Result<PathList, GitError> {
    let git = Git::new(dir);
    let loc = match super::index_file::locate_plain(dir) {
        Some(loc) => loc,
        None => git.index_location()?,
    };
    if let Ok(bytes) = std::fs::read(&loc.index) {
        if let Some(list) = super::index_file::read_paths(&bytes, loc.hash_len, &loc.prefix) {
            return Ok(list);
        }
    } else if !loc.index.exists() {
        return Ok(PathList::default());
    }
    git.spawn_ls_files()?.finish()
}

/// Every file under `root` that is not ignored (.gitignore, .ignore,
/// hidden files), root-relative with `/` separators.
pub fn walk(root: &Path) -> PathList {
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
