//! Reading the files a matrix names — anchors, kernel sources — without
//! leaving the root: [`Confined`] resolves root-relative paths, symlinks
//! followed, and opens only regular files inside (docs/SECURITY.md).

#![allow(unsafe_code)] // each block below carries its `SAFETY:` note

use std::path::{Path, PathBuf};

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
}
