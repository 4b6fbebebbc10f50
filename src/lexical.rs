//! Path arithmetic with no repository knowledge: `.` and `..` resolved
//! by text, and whether two paths are one directory.

/// Resolve `.` and `..` without touching the filesystem (a `..` that climbs
/// above the start is kept).
pub fn lexical(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether two paths name the same directory (equal, or equal once
/// symlinks are resolved): whether work started in a guessed root is still
/// good for the real one.
pub fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    a == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
}
