//! The one module that writes files: atomically (a temporary file in the
//! same directory, then a rename), so an interrupted write leaves the old
//! file intact, with an explicit Unix mode where one matters.
//!
//! Leftovers: on Linux the data goes into an unnamed `O_TMPFILE` inode,
//! which the kernel frees if the process dies (even by `kill -9`); it gets
//! a name (`.sota-*.tmp`) only for the two system calls between `linkat`
//! and `rename`, when it is complete. git has no default ignore rule a
//! name could hide behind, and putting the file under `.git/` would be
//! wrong for files outside a repository and fails across file systems, so
//! not naming the file at all is the only way `git add -A` never sees one.
//! A later write into the same directory removes such a leftover once it
//! is a minute old ([`sweep_leftovers`]).
//! Elsewhere (or where the file system lacks `O_TMPFILE`) a named
//! temporary file is used, removed on every error path.

#![allow(unsafe_code)] // each block below carries its `SAFETY:` note

use std::io::Write;
use std::path::{Path, PathBuf};

/// Replace (or create) `path` with `bytes`, atomically; `mode` is the Unix
/// mode to give it (`None`: what a new file gets, 0666 less the umask, as
/// `> file` in a shell would; never the private 0600 of a temporary file).
pub fn atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    write_atomic(dir, path, bytes, mode)?;
    // "Now" as the file system tells it (the file just written), the same
    // clock as the leftovers' times, and no reading of the process clock.
    if let Ok(now) = std::fs::metadata(path).and_then(|m| m.modified()) {
        sweep_leftovers(dir, now);
    }
    Ok(())
}

fn write_atomic(dir: &Path, path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if let Some(done) = unnamed::write(dir, path, bytes, mode) {
        return done;
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(".sota-").suffix(".tmp");
    #[cfg(unix)]
    if mode.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // Passed to open(2), so the umask applies, as for any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Rewrite an existing file in place as a user sees it: through a symlink
/// to its target (the link stays a link), keeping the target's mode.
pub fn replace_existing(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let target = std::fs::canonicalize(path)?;
    let meta = std::fs::metadata(&target)?;
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o7777)
    };
    #[cfg(not(unix))]
    let mode = {
        let _ = meta;
        None
    };
    atomic(&target, bytes, mode)?;
    Ok(target)
}

#[cfg(target_os = "linux")]
mod unnamed {
    //! `O_TMPFILE`: write into an inode with no name, then link it in.

    use std::ffi::CString;
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// `None` when the file system cannot do it (the caller falls back).
    /// Without an explicit `mode` the inode is created 0666 and open(2)
    /// applies the umask, as for any new file.
    pub fn write(
        dir: &Path,
        path: &Path,
        bytes: &[u8],
        mode: Option<u32>,
    ) -> Option<std::io::Result<()>> {
        let c_dir = CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: a valid NUL-terminated path; the fd is owned below.
        let fd = unsafe {
            libc::open(
                c_dir.as_ptr(),
                libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC,
                mode.unwrap_or(0o666) as libc::c_uint,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        Some((|| {
            file.write_all(bytes)?;
            if let Some(mode) = mode {
                use std::os::unix::fs::PermissionsExt;
                file.set_permissions(std::fs::Permissions::from_mode(mode))?;
            }
            file.sync_all()?;
            let proc_path =
                CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).expect("no NUL");
            // tempfile picks a free random name and retries on collisions;
            // the closure gives that name to the unnamed inode.
            let named = tempfile::Builder::new()
                .prefix(".sota-")
                .suffix(".tmp")
                .make_in(dir, |name| {
                    let c_name = CString::new(name.as_os_str().as_bytes())
                        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
                    // SAFETY: valid NUL-terminated paths.
                    let linked = unsafe {
                        libc::linkat(
                            libc::AT_FDCWD,
                            proc_path.as_ptr(),
                            libc::AT_FDCWD,
                            c_name.as_ptr(),
                            libc::AT_SYMLINK_FOLLOW,
                        )
                    };
                    if linked == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                })?;
            named.persist(path).map_err(|e| e.error)?;
            Ok(())
        })())
    }
}

/// How old a `.sota-*.tmp` must be before a later write removes it: far
/// past the two system calls it is named for, so a concurrent sota's
/// file in that window is never taken.
const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Remove what a process killed between `linkat` and `rename` left in
/// `dir`: regular files named as this module names its temporary files
/// (`.sota-` + six characters + `.tmp`, tempfile's default), older than
/// [`LEFTOVER_AGE`]. Best effort: a file that cannot be judged or removed
/// stays, and the write goes on.
fn sweep_leftovers(dir: &Path, now: std::time::SystemTime) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = name.len() == ".sota-".len() + 6 + ".tmp".len()
            && name.starts_with(".sota-")
            && name.ends_with(".tmp")
            && name[6..12].bytes().all(|b| b.is_ascii_alphanumeric());
        if !ours {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > LEFTOVER_AGE);
        if meta.is_file() && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Append `bytes` to `path` (created when missing) in one write: for
/// files other processes append to too, like GitHub's
/// `$GITHUB_STEP_SUMMARY`, which must never be replaced.
pub fn append(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// Rename `from` to `to`, refusing to clobber an existing `to`.
pub fn rename_new(from: &Path, to: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{} already exists", to.display()),
        ));
    }
    std::fs::rename(from, to)
}

/// Rename `from` over `to` (which may exist): putting a kept file back,
/// whatever it is (a symlink, dangling or not, is moved as a link).
pub fn restore(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::rename(from, to)
}

/// Remove a file sota wrote.
pub fn remove(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(path)
}

/// Create a directory and its parents (nothing when it exists).
pub fn create_dir_all(path: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(path)
}

/// [`atomic`], its directory created first when missing (a proof record
/// in `.sota/proofs/`).
pub fn atomic_in_new_dir(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_dir_all(dir)?;
    }
    atomic(path, bytes, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_content_and_sets_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, "old").unwrap();
        atomic(&p, b"new", Some(0o755)).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o755
            );
        }
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp files left behind");
        assert!(rename_new(&p, &p).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn replace_existing_writes_through_a_symlink_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.md");
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink("real.md", &link).unwrap();
        replace_existing(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644);
    }

    #[test]
    fn a_write_sweeps_old_leftovers_of_a_killed_run_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let mk = |name: &str, mtime: Option<std::time::SystemTime>| {
            let p = dir.path().join(name);
            std::fs::write(&p, "x").unwrap();
            if let Some(t) = mtime {
                std::fs::File::options()
                    .write(true)
                    .open(&p)
                    .unwrap()
                    .set_modified(t)
                    .unwrap();
            }
            p
        };
        let stale = mk(".sota-a1B2c3.tmp", Some(old));
        let fresh = mk(".sota-z9Y8x7.tmp", None);
        let theirs = mk(".sota-notes.tmp", Some(old));
        let other = mk("page.tmp", Some(old));
        atomic(&dir.path().join("out.md"), b"new", None).unwrap();
        assert!(!stale.exists(), "an old leftover is swept");
        assert!(fresh.exists(), "a concurrent writer's file stays");
        assert!(theirs.exists() && other.exists(), "other names stay");
    }

    #[test]
    fn append_keeps_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("summary.md");
        append(&p, b"one\n").unwrap();
        append(&p, b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one\ntwo\n");
    }
}
