//! The tracked files of a tree: git's index when the root is inside a work
//! tree (read in-process when the index is a plain one, else through
//! `git ls-files`), or every non-ignored file when it is not.

#![allow(unsafe_code)] // each block below carries its `SAFETY:` note

use std::path::Path;

use crate::repo::git::{Git, GitError};
use crate::repo::paths::PathList;

/// Where the tracked-file list came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackedFrom {
    /// git's index.
    GitIndex,
    /// A walk of the tree (not a git work tree, or no git), honouring
    /// `.gitignore` and `.ignore`.
    Walk,
}

/// The files under `dir`, relative to it, and where the list came from.
/// `git_env_overrides`: `GIT_DIR` or the like is set, so only git knows
/// where the index is.
pub fn list(dir: &Path, git_env_overrides: bool) -> Result<(PathList, TrackedFrom), GitError> {
    list_with_ids(dir, git_env_overrides, false).map(|(paths, from, _)| (paths, from))
}

/// The blob ids git's index holds for a tracked list, in its order.
#[derive(Clone, Debug)]
pub struct IndexIds {
    hash_len: usize,
    raw: Vec<u8>,
}

impl IndexIds {
    /// The id of the list's `i`-th path, lowercase hex.
    pub fn hex(&self, i: usize) -> Option<String> {
        let id = self.raw.get(i * self.hash_len..(i + 1) * self.hash_len)?;
        Some(crate::repo::index_file::hex(id))
    }
}

/// [`list`], and with `ids`, the blob id of each path as git's index
/// records it — when the index is read here and in its own order; else
/// `None` (the caller hashes the work tree).
pub fn list_with_ids(
    dir: &Path,
    git_env_overrides: bool,
    ids: bool,
) -> Result<(PathList, TrackedFrom, Option<IndexIds>), GitError> {
    if !git_env_overrides && !inside_work_tree(dir) {
        return Ok((walk(dir), TrackedFrom::Walk, None));
    }
    match index_paths(dir, git_env_overrides, ids) {
        Ok((paths, ids)) => Ok((paths, TrackedFrom::GitIndex, ids)),
        Err(GitError::Missing) => Ok((walk(dir), TrackedFrom::Walk, None)),
        Err(e) => Err(e),
    }
}

/// Whether `dir` or a directory above it holds `.git` (a directory, or a
/// file for worktrees and submodules) — the layout git itself looks for.
pub fn inside_work_tree(dir: &Path) -> bool {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// The paths in the index under `dir`, relative to it (and their ids,
/// when asked and read here).
fn index_paths(
    dir: &Path,
    git_env_overrides: bool,
    want_ids: bool,
) -> Result<(PathList, Option<IndexIds>), GitError> {
    let git = Git::new(dir);
    let plain = if git_env_overrides {
        None
    } else {
        crate::repo::index_file::locate_plain(dir)
    };
    let loc = match plain {
        Some(loc) => loc,
        None => git.index_location()?,
    };
    if let Ok(map) = map(&loc.index) {
        if want_ids {
            let read = crate::repo::index_file::read_paths_and_ids_mapped;
            if let Some((list, raw)) = read(map, loc.hash_len, &loc.prefix) {
                let ids = raw.map(|raw| IndexIds {
                    hash_len: loc.hash_len,
                    raw,
                });
                return Ok((list, ids));
            }
        } else if let Some(list) =
            crate::repo::index_file::read_paths_mapped(map, loc.hash_len, &loc.prefix)
        {
            return Ok((list, None));
        }
    } else if !loc.index.exists() {
        // A repository with nothing staged yet has no index file.
        return Ok((PathList::default(), None));
    }
    Ok((git.spawn_ls_files()?.finish()?, None))
}

/// The index file's bytes, mapped rather than copied (a 100,000-file index
/// is 10 MB: reading it copies every page and zeroes as many fresh ones),
/// as git's `read-cache.c` maps it; the path list keeps the map and reads
/// the names where they lie.
fn map(index: &Path) -> std::io::Result<memmap2::Mmap> {
    let file = std::fs::File::open(index)?;
    // SAFETY: the mapping is private and read-only, and the bytes are only
    // ever read. Git never rewrites an index in place: it writes
    // `index.lock` and renames it over the old file, so the pages mapped
    // here stay those of the file as opened, for as long as the path
    // list that keeps the map lives (one command).
    unsafe { memmap2::MmapOptions::new().populate().map(&file) }
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
