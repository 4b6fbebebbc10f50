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
        load_confined_with(path, discovered, options, || {
            Matrix::load_named(path, name).map(Box::new)
        })
        .map(|m| *m)
    }
}

/// The confinement of [`Matrix::load_confined`] around any loader of
/// `path` (e.g. [`super::cache::Cache::load_named`], which returns a shared
/// matrix): the file is checked before `load` runs, the root after.
pub fn load_confined_with<M: std::ops::Deref<Target = Matrix>>(
    path: &Path,
    discovered: bool,
    options: LoadOptions,
    load: impl FnOnce() -> Result<M, LoadError>,
) -> Result<M, LoadError> {
    if options.allow_outside_repo {
        return load();
    }
    let boundary = boundary(path);
    if discovered {
        if let Ok(real) = std::fs::canonicalize(path) {
            if !real.starts_with(&boundary) {
                return Err(LoadError::Outside {
                    path: path.to_path_buf(),
                    resolved: real,
                    boundary,
                });
            }
        }
    }
    let matrix = load()?;
    check_root(&matrix, &boundary)?;
    Ok(matrix)
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

/// `rel` under `root`, canonical, when it exists and stays inside `root`
/// (itself canonical) — for reading files a matrix names.
pub fn resolve_inside(root: &Path, rel: &str) -> Option<PathBuf> {
    let real = std::fs::canonicalize(root.join(rel)).ok()?;
    real.starts_with(root).then_some(real)
}

/// A path [`Confined::resolve_entry`] found: canonical, inside the root,
/// and what it is (symlinks followed).
#[derive(Clone, Debug)]
pub struct Resolved {
    pub path: PathBuf,
    pub is_dir: bool,
    /// A regular file (not a directory, fifo, socket or device).
    pub is_file: bool,
    /// Its size in bytes when it was looked up.
    pub len: u64,
}

impl Resolved {
    fn new(path: PathBuf, meta: &std::fs::Metadata) -> Resolved {
        Resolved {
            path,
            is_dir: meta.is_dir(),
            is_file: meta.is_file(),
            len: meta.len(),
        }
    }
}

/// Root-relative paths resolved to files inside a root, symlinks followed,
/// for reading many files a matrix names: each directory is canonicalized
/// once (one `lstat` per new directory), and each file costs one `lstat`
/// unless it is a symlink (then it is resolved in full). Same answers as
/// [`resolve_inside`].
#[derive(Debug)]
pub struct Confined {
    root: PathBuf,
    dirs: std::cell::RefCell<std::collections::HashMap<PathBuf, Option<PathBuf>>>,
}

impl Confined {
    /// Paths under `root` (canonicalized here).
    pub fn new(root: &Path) -> Self {
        Confined {
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            dirs: Default::default(),
        }
    }

    /// `rel` under the root, canonical, when it exists and stays inside.
    pub fn resolve(&self, rel: &str) -> Option<PathBuf> {
        self.resolve_entry(rel).map(|e| e.path)
    }

    /// [`Confined::resolve`], with what the lookup learned about the
    /// target: a caller about to read it needs no second `stat`.
    pub fn resolve_entry(&self, rel: &str) -> Option<Resolved> {
        let path = Path::new(rel);
        let plain = path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        let (Some(parent), Some(name), true) = (path.parent(), path.file_name(), plain) else {
            let real = resolve_inside(&self.root, rel)?;
            let meta = std::fs::metadata(&real).ok()?;
            return Some(Resolved::new(real, &meta));
        };
        self.step(&self.dir(parent)?, name)
    }

    /// `name` inside the canonical directory `dir`: as is unless it is a
    /// symlink, which is resolved and must stay inside the root.
    fn step(&self, dir: &Path, name: &std::ffi::OsStr) -> Option<Resolved> {
        let candidate = dir.join(name);
        let meta = std::fs::symlink_metadata(&candidate).ok()?;
        if meta.file_type().is_symlink() {
            let real = std::fs::canonicalize(&candidate).ok()?;
            let meta = std::fs::metadata(&real).ok()?;
            return real
                .starts_with(&self.root)
                .then(|| Resolved::new(real, &meta));
        }
        Some(Resolved::new(candidate, &meta))
    }

    /// The canonical form of a root-relative directory (plain components
    /// only), when inside: its parent's, plus one `lstat`.
    fn dir(&self, rel: &Path) -> Option<PathBuf> {
        if rel.as_os_str().is_empty() {
            return Some(self.root.clone());
        }
        if let Some(known) = self.dirs.borrow().get(rel) {
            return known.clone();
        }
        let parent = self.dir(rel.parent().unwrap_or(Path::new("")))?;
        let real = self
            .step(&parent, rel.file_name()?)
            .and_then(|e| e.is_dir.then_some(e.path));
        self.dirs
            .borrow_mut()
            .insert(rel.to_path_buf(), real.clone());
        real
    }
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
    fn resolve_inside_follows_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a.cu"), "x").unwrap();
        std::os::unix::fs::symlink("/", root.join("up")).unwrap();
        assert!(resolve_inside(&root, "a.cu").is_some());
        assert!(resolve_inside(&root, "../").is_none());
        assert!(resolve_inside(&root, "up/etc").is_none());
        assert!(resolve_inside(&root, "missing.cu").is_none());
        std::fs::create_dir_all(root.join("k")).unwrap();
        std::fs::write(root.join("k/b.cu"), "x").unwrap();
        std::os::unix::fs::symlink("../up/etc", root.join("k/out")).unwrap();
        let c = Confined::new(&root);
        for rel in [
            "a.cu",
            "../",
            "up/etc",
            "missing.cu",
            "k/b.cu",
            "k/out",
            "k/out/passwd",
            "k/../a.cu",
            "k/",
        ] {
            assert_eq!(c.resolve(rel), resolve_inside(&root, rel), "{rel}");
        }
    }

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
