//! Opening untrusted files for reading: a regular file only, and never an
//! open or a read that waits forever. A committed symlink can lead to a
//! FIFO (whose open blocks until a writer comes) or a device (whose read
//! never ends); every reader of a path from the repository or the user
//! (the matrix, tensors) opens it here. Nothing here writes: the
//! architecture test holds this file to read-only opens.

use std::fs::File;
use std::io;
use std::path::Path;

/// `path` opened for reading when it is a regular file. On Linux the open
/// itself cannot block or take a terminal (`O_NONBLOCK | O_NOCTTY`: a FIFO
/// opens at once) and `fstat` on the open file decides; elsewhere `stat`
/// decides before the open. A FIFO, socket, device or directory is an
/// [`io::ErrorKind::InvalidInput`] error, never a read that waits forever.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    #[cfg(not(target_os = "linux"))]
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

fn not_regular() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "not a regular file (a directory, FIFO, socket or device): sota reads only regular files",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_a_device_and_a_directory_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = open_regular(&fifo).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
        for p in [Path::new("/dev/null"), dir.path()] {
            let e = open_regular(p).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{p:?}");
        }
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(open_regular(&file).is_ok());
    }
}
