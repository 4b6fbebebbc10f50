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

/// What [`Confined::open`] found at a root-relative path.
#[derive(Debug)]
pub enum Opened {
    /// A regular file inside the root, open for reading, and its size
    /// when it was opened.
    File(std::fs::File, u64),
    /// Something inside the root that is not a regular file sota may read:
    /// a directory, a FIFO or device (never read), a file this user
    /// cannot open.
    Other { is_dir: bool },
    /// Nothing there, or it leads outside the root.
    Missing,
}

/// Root-relative paths resolved to files inside a root, symlinks followed,
/// for reading many files a matrix names. [`Confined::open`] asks the
/// kernel first (Linux); the `lstat` walk canonicalizes each directory
/// once (one `lstat` per new directory), and each file costs one `lstat`
/// unless it is a symlink (then it is resolved in full). Same answers as
/// [`resolve_inside`].
#[derive(Debug)]
pub struct Confined {
    root: PathBuf,
    dirs: std::cell::RefCell<std::collections::HashMap<PathBuf, Option<PathBuf>>>,
    /// The root, opened once for [`Confined::open`]'s `openat2`; `None`
    /// inside when it cannot be opened.
    #[cfg(target_os = "linux")]
    beneath: std::cell::OnceCell<Option<std::os::fd::OwnedFd>>,
    /// The kernel has no `openat2` (`ENOSYS`).
    #[cfg(target_os = "linux")]
    beneath_refused: std::cell::Cell<bool>,
}

impl Confined {
    /// Paths under `root` (canonicalized here).
    pub fn new(root: &Path) -> Self {
        Confined {
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            dirs: Default::default(),
            #[cfg(target_os = "linux")]
            beneath: Default::default(),
            #[cfg(target_os = "linux")]
            beneath_refused: Default::default(),
        }
    }

    /// `rel` under the root, opened for reading when it is a regular file
    /// inside; the same answers as [`Confined::resolve_entry`] followed by
    /// an open. On Linux the kernel resolves the path in one call
    /// ([`Confined::open_beneath`]); whatever it cannot settle alone takes
    /// the `lstat` walk.
    pub fn open(&self, rel: &str) -> Opened {
        #[cfg(target_os = "linux")]
        if let Some(found) = self.open_beneath(rel) {
            return found;
        }
        match self.resolve_entry(rel) {
            None => Opened::Missing,
            Some(e) if e.is_file => match std::fs::File::open(&e.path) {
                Ok(file) => Opened::File(file, e.len),
                Err(_) => Opened::Other { is_dir: false },
            },
            Some(e) => Opened::Other { is_dir: e.is_dir },
        }
    }

    /// `openat2(root, rel, RESOLVE_BENEATH)` (Linux 5.6+): one system call
    /// walks `rel` from the root's descriptor, follows symlinks that stay
    /// below it and fails with `EXDEV` on any step outside (`..` past the
    /// root, an absolute symlink) — the kernel's form of this type's rule,
    /// with a walk of `rel` alone, not of the root's absolute path, and no
    /// `lstat` per directory. The file is opened without blocking (a FIFO
    /// returns at once) and not as a controlling terminal, then read only
    /// if `fstat` says it is a regular file. `None` when the kernel cannot
    /// settle it alone: not a plain relative path, no `openat2` (older
    /// kernel, a sandbox refusing it), or a refused step — an absolute
    /// symlink may still lead inside the root, which the `lstat` walk
    /// judges.
    #[cfg(target_os = "linux")]
    fn open_beneath(&self, rel: &str) -> Option<Opened> {
        use std::os::fd::{AsRawFd, FromRawFd};
        let plain = !rel.is_empty() && !rel.ends_with('/') && only_names(Path::new(rel));
        if !plain || self.beneath_refused.get() {
            return None;
        }
        let root = self
            .beneath
            // A directory opens read-only like a file (and without read
            // permission on it, not at all: then the `lstat` walk).
            .get_or_init(|| {
                std::fs::File::open(&self.root)
                    .ok()
                    .map(std::os::fd::OwnedFd::from)
            })
            .as_ref()?;
        let name = std::ffi::CString::new(rel).ok()?;
        // SAFETY: `open_how` is three integers; all zero is valid.
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = (libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK) as u64;
        how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
        // SAFETY: `name` is NUL-terminated and `how` is an `open_how` of
        // the size passed; both outlive the call.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                root.as_raw_fd(),
                name.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd < 0 {
            return match std::io::Error::last_os_error().raw_os_error() {
                Some(libc::ENOENT | libc::ENOTDIR) => Some(Opened::Missing),
                // No `openat2` in this kernel: stop asking.
                Some(libc::ENOSYS) => {
                    self.beneath_refused.set(true);
                    None
                }
                // `EXDEV` (a step outside), `EPERM` (some seccomp
                // sandboxes' "not implemented"), `EAGAIN` (a rename raced
                // the walk), `ELOOP`, `EACCES`, anything else.
                _ => None,
            };
        }
        // SAFETY: `fd` is a descriptor the call just returned; nothing
        // else owns it.
        let file = unsafe { std::fs::File::from_raw_fd(fd as std::os::fd::RawFd) };
        let meta = file.metadata().ok()?;
        Some(if meta.is_file() {
            Opened::File(file, meta.len())
        } else {
            Opened::Other {
                is_dir: meta.is_dir(),
            }
        })
    }

    /// `rel` under the root, canonical, when it exists and stays inside.
    pub fn resolve(&self, rel: &str) -> Option<PathBuf> {
        self.resolve_entry(rel).map(|e| e.path)
    }

    /// [`Confined::resolve`], with what the lookup learned about the
    /// target: a caller about to read it needs no second `stat`.
    pub fn resolve_entry(&self, rel: &str) -> Option<Resolved> {
        let path = Path::new(rel);
        let (Some(parent), Some(name), true) = (path.parent(), path.file_name(), only_names(path))
        else {
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

/// A relative path of names only: no `..`, `.`, root or prefix (both of
/// [`Confined`]'s walks take only these; anything else is resolved whole).
fn only_names(path: &Path) -> bool {
    path.components()
        .all(|c| matches!(c, std::path::Component::Normal(_)))
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

    /// `open` (the kernel's `RESOLVE_BENEATH` walk on Linux, the `lstat`
    /// walk where it cannot answer) gives the answers `resolve_entry`
    /// gives, for every kind of entry and every way out of the root.
    #[test]
    fn open_agrees_with_the_lstat_walk() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let root = top.join("root");
        std::fs::create_dir_all(root.join("k/sub")).unwrap();
        std::fs::write(root.join("a.cu"), "a").unwrap();
        std::fs::write(root.join("k/sub/b.cu"), "bb").unwrap();
        std::fs::write(top.join("secret.cu"), "s").unwrap();
        let link =
            |target: &Path, at: &str| std::os::unix::fs::symlink(target, root.join(at)).unwrap();
        link(Path::new("sub/b.cu"), "k/rel.cu"); // relative, stays inside
        link(&root.join("a.cu"), "abs-in.cu"); // absolute, leads inside
        link(&root.join("k"), "abs-dir"); // absolute directory, inside
        link(Path::new("../secret.cu"), "up.cu"); // relative, leads out
        link(&top.join("secret.cu"), "abs-out.cu"); // absolute, leads out
        link(Path::new("/"), "slash");
        link(Path::new("missing.cu"), "dangling.cu");
        link(Path::new("loop.cu"), "loop.cu");
        // A FIFO (libc is a dependency on Linux only).
        #[cfg(target_os = "linux")]
        {
            let fifo =
                std::ffi::CString::new(root.join("pipe").into_os_string().into_encoded_bytes())
                    .unwrap();
            // SAFETY: a NUL-terminated path that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        }
        let c = Confined::new(&root);
        for rel in [
            "a.cu",
            "k",
            "k/",
            "k/sub/b.cu",
            "k/rel.cu",
            "abs-in.cu",
            "abs-dir/sub/b.cu",
            "up.cu",
            "abs-out.cu",
            "slash/etc/passwd",
            "dangling.cu",
            "loop.cu",
            "pipe",
            "missing.cu",
            "a.cu/x",
            "k/../a.cu",
            "../root/a.cu",
            "./a.cu",
            "k//sub/b.cu",
        ] {
            let want = c.resolve_entry(rel);
            let got = c.open(rel);
            match (&want, &got) {
                (None, Opened::Missing) => {}
                (Some(e), Opened::File(file, len)) if e.is_file => {
                    assert_eq!(*len, e.len, "{rel}");
                    assert!(file.metadata().unwrap().is_file(), "{rel}");
                }
                (Some(e), Opened::Other { is_dir }) if !e.is_file => {
                    assert_eq!(*is_dir, e.is_dir, "{rel}");
                }
                _ => panic!("{rel}: resolve_entry {want:?}, open {got:?}"),
            }
        }
        // A FIFO is looked at, never read (opening it did not block).
        #[cfg(target_os = "linux")]
        assert!(matches!(c.open("pipe"), Opened::Other { is_dir: false }));
        assert!(matches!(c.open("abs-in.cu"), Opened::File(_, 1)));
        assert!(matches!(c.open("up.cu"), Opened::Missing));
        // Where the kernel has `openat2`, it answered the plain cases
        // itself and handed the absolute symlinks and escapes back.
        #[cfg(target_os = "linux")]
        if !c.beneath_refused.get() {
            assert!(matches!(
                c.open_beneath("k/rel.cu"),
                Some(Opened::File(_, 2))
            ));
            assert!(matches!(
                c.open_beneath("missing.cu"),
                Some(Opened::Missing)
            ));
            for escape in ["abs-in.cu", "up.cu", "slash/etc/passwd", "k/"] {
                assert!(c.open_beneath(escape).is_none(), "{escape}");
            }
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
