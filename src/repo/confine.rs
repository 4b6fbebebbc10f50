//! Confining a path someone else chose to a root: whether `../../etc/passwd`,
//! an absolute path elsewhere, or a symlink that leads out of the root stays
//! inside it. Only metadata is consulted (`symlink_metadata`,
//! `canonicalize`); nothing is opened or read. Front ends that take paths
//! from an untrusted peer (the MCP server) check here before any command
//! sees the path.

use std::path::{Path, PathBuf};

use crate::lexical::lexical;

/// A path that leads outside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside {
    /// The path as given.
    pub given: String,
    /// Where it leads (symlinks followed as far as they exist).
    pub resolved: PathBuf,
    /// The root it had to stay in (canonical).
    pub root: PathBuf,
}

impl std::fmt::Display for Outside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` leads to {}, outside the repository root {}; nothing of it was read",
            self.given,
            self.resolved.display(),
            self.root.display()
        )
    }
}

/// Check that `given` (relative to `cwd`, or absolute; an editor's trailing
/// `:LINE[:COL]` is the caller's to strip) stays inside `root`, both as
/// written and with every existing symlink on the way followed. Returns
/// where it leads.
pub fn confine(given: &str, cwd: &Path, root: &Path) -> Result<PathBuf, Outside> {
    let root_as_given = lexical(root);
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root_as_given.clone());
    let raw = PathBuf::from(given.replace('\\', "/"));
    let full = if raw.is_absolute() {
        raw
    } else {
        cwd.join(raw)
    };
    let outside = |resolved: PathBuf| Outside {
        given: given.to_owned(),
        resolved,
        root: root.clone(),
    };
    // As written: `..` taken literally.
    let written = lexical(&full);
    let cwd_canon = std::fs::canonicalize(cwd).unwrap_or_else(|_| lexical(cwd));
    let written_inside = written.starts_with(&root)
        || written.starts_with(&root_as_given)
        || written
            .strip_prefix(lexical(cwd))
            .is_ok_and(|rel| lexical(&cwd_canon.join(rel)).starts_with(&root));
    // As the filesystem resolves it: the longest existing prefix
    // canonicalized (following symlinks, `..` after a symlink included), the
    // rest appended.
    let resolved = resolve(&full);
    match resolved {
        Some(resolved) if written_inside && resolved.starts_with(&root) => Ok(resolved),
        Some(resolved) => Err(outside(resolved)),
        // A dangling symlink: where it leads cannot be checked.
        None => Err(outside(written)),
    }
}

/// The longest existing prefix of `full` canonicalized, the rest appended;
/// `None` when an existing entry cannot be canonicalized (a dangling or
/// looping symlink) or an entry cannot be looked up at all (a path past
/// `PATH_MAX`, a directory this user may not search): what cannot be
/// resolved is refused, never passed on as written.
fn resolve(full: &Path) -> Option<PathBuf> {
    use std::io::ErrorKind;
    for ancestor in full.ancestors() {
        match std::fs::symlink_metadata(ancestor) {
            Ok(_) => {
                let canon = std::fs::canonicalize(ancestor).ok()?;
                let rest = full.strip_prefix(ancestor).ok()?;
                return Some(lexical(&canon.join(rest)));
            }
            // Not there (yet): its parent decides.
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {}
            Err(_) => return None,
        }
    }
    Some(lexical(full))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("repo");
        std::fs::create_dir_all(root.join("kernels")).unwrap();
        std::fs::write(root.join("kernels/attn.cu"), "//").unwrap();
        (dir, root)
    }

    #[test]
    fn paths_inside_the_root_are_kept() {
        let (_d, root) = tree();
        assert_eq!(
            confine("kernels/attn.cu", &root, &root).unwrap(),
            root.join("kernels/attn.cu")
        );
        assert!(confine("kernels/new.cu:12", &root, &root).is_ok());
        assert!(confine("kernels/../kernels/attn.cu", &root, &root).is_ok());
        assert!(confine(root.join("kernels").to_str().unwrap(), &root, &root).is_ok());
        assert!(confine("attn.cu", &root.join("kernels"), &root).is_ok());
    }

    #[test]
    fn climbing_out_or_naming_elsewhere_is_refused() {
        let (_d, root) = tree();
        let e = confine("../../etc/passwd", &root, &root).unwrap_err();
        assert_eq!(e.resolved, lexical(&root.join("../../etc/passwd")));
        assert!(e.to_string().contains("outside the repository root"));
        assert!(confine("/etc/passwd", &root, &root).is_err());
        assert!(confine("kernels/../../x", &root, &root).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_that_lead_out_are_refused() {
        let (d, root) = tree();
        let secret = d.path().join("secret.txt");
        std::fs::write(&secret, "s").unwrap();
        std::os::unix::fs::symlink(&secret, root.join("evil.cu")).unwrap();
        std::os::unix::fs::symlink(d.path(), root.join("up")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("dangling")).unwrap();
        assert!(confine("evil.cu", &root, &root).is_err());
        assert!(confine("up/secret.txt", &root, &root).is_err());
        assert!(confine("up/not-there.cu", &root, &root).is_err());
        assert!(confine("dangling", &root, &root).is_err());
        std::os::unix::fs::symlink(root.join("kernels"), root.join("k")).unwrap();
        assert!(confine("k/attn.cu", &root, &root).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_path_past_path_max_is_refused_not_passed_as_written() {
        // The lookups of the long prefixes fail with ENAMETOOLONG; taking
        // the shortest one that resolves and appending the rest lexically
        // judged `././…/evil.cu` as the root's own `evil.cu`.
        let (d, root) = tree();
        let secret = d.path().join("secret.txt");
        std::fs::write(&secret, "s").unwrap();
        std::os::unix::fs::symlink(&secret, root.join("evil.cu")).unwrap();
        let long = format!("{}evil.cu", "./".repeat(3000));
        assert!(confine(&long, &root, &root).is_err());
        let long_dir = format!("{}attn.cu", "kernels/../".repeat(500));
        assert!(confine(&long_dir, &root, &root).is_err());
        assert!(confine("kernels/attn.cu/x", &root, &root).is_ok());
    }
}
