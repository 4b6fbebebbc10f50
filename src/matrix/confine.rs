//! Keeping the matrix inside its repository (docs/SECURITY.md). A
//! committed `sota.toml` is untrusted: it must not be a symlink that makes
//! sota read (and echo) a file elsewhere, and its `[project] root` must not
//! point sota at the rest of the filesystem.
//!
//! The boundary is the top of the git work tree holding the matrix (the
//! nearest ancestor of its directory with a `.git` entry), or the matrix's
//! own directory outside git; paths are compared after canonicalization,
//! so symlinks are judged by where they lead. A matrix named explicitly
//! (`--matrix`, `$SOTA_MATRIX`) is trusted as a file — the user chose it —
//! but its root is still confined to its own boundary. One opt-out,
//! [`LoadOptions::allow_outside_repo`], lifts both checks.

use std::path::{Path, PathBuf};

use super::diagnostic::{Code, LoadError, Problem};
use super::Matrix;

/// How [`Matrix::load_found`] treats a matrix that reaches outside.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Read a discovered matrix that resolves outside the repository, and
    /// accept a `[project] root` outside it (`--allow-outside-repo`).
    pub allow_outside_repo: bool,
}

impl Matrix {
    /// [`Matrix::load_named`], confined to the matrix's repository unless
    /// `options` allow otherwise (see the module docs). `discovered` is true
    /// for a `sota.toml` found by walking up (its file is untrusted), false
    /// for one the user named (`--matrix`, `$SOTA_MATRIX`).
    pub fn load_confined(
        path: &Path,
        name: &str,
        discovered: bool,
        options: LoadOptions,
    ) -> Result<Matrix, LoadError> {
        load_confined_with(path, discovered, options, |bytes| {
            Matrix::from_bytes_named(bytes, path, name).map(Box::new)
        })
        .map(|m| *m)
    }
}

/// The confinement of [`Matrix::load_confined`] around any loader of the
/// bytes [`read_confined`] read from `path` (e.g.
/// [`super::cache::Cache::load_bytes`], which returns a shared matrix):
/// the file is checked as it is read, the root after the load.
pub fn load_confined_with<M: std::ops::Deref<Target = Matrix>>(
    path: &Path,
    discovered: bool,
    options: LoadOptions,
    load: impl FnOnce(Vec<u8>) -> Result<M, LoadError>,
) -> Result<M, LoadError> {
    // Found once: the file's check and the root's share it.
    let boundary = (!options.allow_outside_repo).then(|| boundary(path));
    let file_inside = boundary.as_deref().filter(|_| discovered);
    let matrix = load(read_within(path, file_inside)?)?;
    if let Some(boundary) = &boundary {
        check_root(&matrix, boundary)?;
    }
    Ok(matrix)
}

/// The matrix file's bytes under the rule every front end obeys (the CLI,
/// each MCP tool and the `sota://matrix` resource): only a regular file,
/// never more than one byte past the size cap, and — for a discovered
/// file, unless `options` allow it — only when the file actually opened
/// lies inside the repository. The check is made on the open descriptor
/// (on Linux, where `/proc/self/fd` names it), so a symlink swapped in
/// between a check and the read cannot lead elsewhere; a file whose place
/// cannot be told is refused, not read.
pub fn read_confined(
    path: &Path,
    discovered: bool,
    options: LoadOptions,
) -> Result<Vec<u8>, LoadError> {
    let confined = discovered && !options.allow_outside_repo;
    read_within(path, confined.then(|| boundary(path)).as_deref())
}

/// A file a matrix names (its `[project] catalog`), read under the
/// matrix's own rule: a regular file, capped, and, unless `options` allow
/// otherwise, only when the file actually opened lies inside the boundary
/// of the repository holding `matrix` — whether the matrix was discovered
/// or named, as its `[project] root` is.
pub fn read_named_by(
    matrix: &Path,
    path: &Path,
    options: LoadOptions,
) -> Result<Vec<u8>, LoadError> {
    let boundary = (!options.allow_outside_repo).then(|| boundary(matrix));
    read_within(path, boundary.as_deref())
}

/// [`read_confined`] with the boundary the opened file must lie in, if any.
fn read_within(path: &Path, boundary: Option<&Path>) -> Result<Vec<u8>, LoadError> {
    let io = |error| LoadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = crate::read_only::open_regular(path).map_err(io)?;
    if let Some(boundary) = boundary {
        let real = opened_at(&file, path);
        if !real.as_ref().is_some_and(|r| r.starts_with(boundary)) {
            return Err(outside(path, real, boundary, false));
        }
    }
    super::read_capped_from(file).map_err(io)
}

/// Refuse a `sota.toml` that resolves outside its repository before
/// anything is written through it (`init --force`): the readers' rule and
/// message, for a writer. A path whose place cannot be told is refused.
pub fn check_inside(path: &Path) -> Result<(), LoadError> {
    let boundary = boundary(path);
    match std::fs::canonicalize(path) {
        Ok(real) if real.starts_with(&boundary) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        real => Err(outside(path, real.ok(), &boundary, true)),
    }
}

/// The refusal of `path`, which leads to `resolved` (`None`: cannot be told).
fn outside(path: &Path, resolved: Option<PathBuf>, boundary: &Path, write: bool) -> LoadError {
    LoadError::Outside {
        path: path.to_path_buf(),
        resolved: resolved.unwrap_or_else(|| path.to_path_buf()),
        boundary: boundary.to_path_buf(),
        write,
    }
}

/// Where the file open as `file` lies: the kernel's name for the
/// descriptor on Linux, else `path` canonicalized. `None` when neither can
/// be told (a path past `PATH_MAX`, no `/proc`).
fn opened_at(file: &std::fs::File, path: &Path) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let link = format!("/proc/self/fd/{}", file.as_raw_fd());
        if let Ok(real) = std::fs::read_link(link) {
            if real.is_absolute() {
                return Some(real);
            }
        }
    }
    let _ = file;
    std::fs::canonicalize(path).ok()
}

/// The directory `matrix` (a path to the file) must stay inside: the top
/// of its git work tree, else its directory; canonical when it exists.
pub fn boundary(matrix: &Path) -> PathBuf {
    let dir = match matrix.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let top = dir
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&dir);
    top.to_path_buf()
}

/// Refuse a `[project] root` that resolves outside `boundary`, as a
/// problem at the `root` key's value.
fn check_root(matrix: &Matrix, boundary: &Path) -> Result<(), LoadError> {
    let Ok(real) = std::fs::canonicalize(&matrix.root) else {
        return Ok(()); // a missing root is reported by the loader
    };
    if real.starts_with(boundary) {
        return Ok(());
    }
    let text = &matrix.text;
    let span = root_span(text).unwrap_or(0..0);
    let problem = Problem::new(
        Code::OutsideRepo,
        span,
        format!(
            "`[project] root` resolves to {}, outside the repository {}",
            real.display(),
            boundary.display()
        ),
    )
    .label("leads outside the repository")
    .help("point `root` at a directory inside the repository (e.g. `root = \"..\"` from a subdirectory); if this is deliberate, pass --allow-outside-repo");
    Err(LoadError::invalid(
        &matrix.display_name(),
        text,
        vec![problem],
    ))
}

/// Byte span of the `root = …` value in the `[project]` table.
fn root_span(text: &str) -> Option<std::ops::Range<usize>> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let project = doc.get_ref().get("project")?;
    let toml::de::DeValue::Table(t) = project.get_ref() else {
        return None;
    };
    Some(t.get("root")?.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundary_is_the_work_tree_top() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(top.join(".git")).unwrap();
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        assert_eq!(boundary(&top.join("a/b/sota.toml")), top);
        let bare = tempfile::tempdir().unwrap();
        let bare = std::fs::canonicalize(bare.path()).unwrap();
        assert_eq!(boundary(&bare.join("sota.toml")), bare);
    }
}
