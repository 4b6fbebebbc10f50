//! Reading git's loose objects in-process, for one question only: does a
//! staged blob contain a byte string? The gate asks it so that the common
//! staged change (no file mentions `Prior-art:`) needs no patch from git
//! (src/repo/git.rs). Anything this module cannot settle — the object is
//! packed, in an alternate store, unreadable, or not a blob — is `None`,
//! and the caller asks git instead.
//!
//! Objects are addressed by their content's hash, so a loose object found
//! under any object directory is the object git means: finding the wrong
//! directory can only make this module answer `None`, never wrongly.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::ZlibDecoder;

/// The ids of the empty blob, which git knows without storing it.
const EMPTY_BLOBS: [&str; 2] = [
    "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
    "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
];

/// The longest header a loose object can have: `<type> <size>\0`.
const MAX_HEADER: usize = 32;

/// One repository's loose-object directory.
#[derive(Clone, Debug)]
pub struct LooseObjects {
    dir: PathBuf,
}

impl LooseObjects {
    /// Read objects from this directory (`.git/objects` or the like).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        LooseObjects { dir: dir.into() }
    }

    /// The object directory of the repository around `work_dir`: the
    /// nearest `.git` directory, or the one a `.git` file names (`gitdir:`);
    /// a `commondir` file there (linked worktrees) leads to the shared
    /// store. `GIT_DIR` and `GIT_OBJECT_DIRECTORY` are not read: the
    /// process state belongs to the CLI, and a store that is not git's own
    /// can only miss (see the module comment), never mislead.
    pub fn discover(work_dir: &Path) -> Option<Self> {
        let git_dir = find_git_dir(work_dir)?;
        let common = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(text) => git_dir.join(text.trim_end_matches(['\n', '\r'])),
            Err(_) => git_dir,
        };
        Some(Self::at(common.join("objects")))
    }

    /// Whether every blob of `ids` is known not to contain `needle` (see
    /// [`LooseObjects::blob_contains`]): `false` as soon as one does or
    /// cannot be read. Inflating is the cost (~0.5 GB/s), so the blobs are
    /// shared out between two threads, each taking the next one left.
    pub fn none_contains(&self, ids: &[&str], needle: &[u8]) -> bool {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let work = || {
            while !failed.load(Ordering::Relaxed) {
                let Some(id) = ids.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    return;
                };
                if self.blob_contains(id, needle) != Some(false) {
                    failed.store(true, Ordering::Relaxed);
                }
            }
        };
        let helpers = std::thread::available_parallelism().map_or(1, |n| n.get()) > 1;
        if helpers && ids.len() > 1 {
            std::thread::scope(|s| {
                s.spawn(work);
                work();
            });
        } else {
            work();
        }
        !failed.load(Ordering::Relaxed)
    }

    /// Whether blob `oid` (full hex id) contains `needle`, ignoring ASCII
    /// case. `None` when it is not a loose blob here or cannot be read
    /// whole. Streams the blob: memory stays flat however large it is.
    pub fn blob_contains(&self, oid: &str, needle: &[u8]) -> Option<bool> {
        if EMPTY_BLOBS.contains(&oid) {
            return Some(false);
        }
        let valid = matches!(oid.len(), 40 | 64)
            && oid.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !valid || needle.is_empty() {
            return None;
        }
        let file = File::open(self.dir.join(&oid[..2]).join(&oid[2..])).ok()?;
        blob_stream_contains(ZlibDecoder::new(file), needle)
    }
}

/// As [`LooseObjects::blob_contains`], over an inflated object stream
/// (`blob <size>\0<content>`), read in whatever pieces `object` gives.
fn blob_stream_contains(mut object: impl Read, needle: &[u8]) -> Option<bool> {
    let mut buf = vec![0u8; 1 << 16];

    // The header: `blob <decimal size>\0`.
    let mut filled = 0;
    let nul = loop {
        let n = object.read(&mut buf[filled..MAX_HEADER]).ok()?;
        if n == 0 {
            return None;
        }
        filled += n;
        if let Some(i) = memchr::memchr(0, &buf[..filled]) {
            break i;
        }
        if filled == MAX_HEADER {
            return None;
        }
    };
    let size: u64 = std::str::from_utf8(buf[..nul].strip_prefix(b"blob ")?)
        .ok()?
        .parse()
        .ok()?;

    // The content, in windows that overlap by `needle.len() - 1` bytes so
    // a match split between two reads is seen.
    let carry = needle.len().saturating_sub(1);
    let mut start = nul + 1;
    let mut seen = (filled - start) as u64;
    loop {
        if contains_ignore_ascii_case(&buf[start..filled], needle) {
            return Some(true);
        }
        let keep = carry.min(filled - start);
        buf.copy_within(filled - keep..filled, 0);
        start = 0;
        filled = keep;
        let n = object.read(&mut buf[filled..]).ok()?;
        if n == 0 {
            break;
        }
        filled += n;
        seen += n as u64;
    }
    // A short or long stream is a damaged object: let git say so.
    (seen == size).then_some(false)
}

/// The nearest `.git` above `dir`: a directory, or a file naming one
/// (`gitdir: <path>`, relative to the file's directory).
fn find_git_dir(dir: &Path) -> Option<PathBuf> {
    for parent in dir.ancestors() {
        let dot_git = parent.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot_git);
        }
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.strip_prefix("gitdir:")?.trim();
        return Some(parent.join(target));
    }
    None
}

/// Whether `needle` occurs in `hay`, ignoring ASCII case. `needle` must be
/// lowercase; candidates are found by its first byte in either case.
fn contains_ignore_ascii_case(hay: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), hay).any(|i| {
        hay.get(i..i + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> String {
        use std::io::Write;
        let mut child = Command::new("git")
            .current_dir(dir)
            .args(args)
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git runs");
        if let Some(input) = input {
            child.stdin.take().unwrap().write_all(input).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"], None);
        dir
    }

    fn blob(dir: &Path, content: &[u8]) -> String {
        git(dir, &["hash-object", "-w", "--stdin"], Some(content))
    }

    const NEEDLE: &[u8] = b"prior-art:";

    #[test]
    fn finds_the_needle_in_any_case_and_only_when_present() {
        let repo = repo();
        let objects = LooseObjects::discover(repo.path()).unwrap();
        let with = blob(repo.path(), b"fn k() {}\n// PRIOR-Art: Marlin\n");
        let without = blob(repo.path(), b"fn k() {}\n// prior art, not a trailer\n");
        assert_eq!(objects.blob_contains(&with, NEEDLE), Some(true));
        assert_eq!(objects.blob_contains(&without, NEEDLE), Some(false));
        assert_eq!(objects.blob_contains(EMPTY_BLOBS[0], NEEDLE), Some(false));
        // Larger than one read of the inflater, the mention at the end.
        let mut big: Vec<u8> = (0..300_000u32)
            .map(|i| b"abcdefgh\n"[i as usize % 9])
            .collect();
        let clean = blob(repo.path(), &big);
        big.extend_from_slice(b"Prior-art: end\n");
        let late = blob(repo.path(), &big);
        assert_eq!(objects.blob_contains(&clean, NEEDLE), Some(false));
        assert_eq!(objects.blob_contains(&late, NEEDLE), Some(true));
    }

    /// Hands out at most `.1` bytes per read, as a pipe or inflater may.
    struct Pieces<'a>(&'a [u8], usize);

    impl Read for Pieces<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn object(content: &[u8]) -> Vec<u8> {
        let mut o = format!("blob {}\0", content.len()).into_bytes();
        o.extend_from_slice(content);
        o
    }

    #[test]
    fn a_match_split_between_reads_is_found() {
        let content = b"// kernel\n// see Prior-Art: Marlin\n";
        let whole = object(content);
        for piece in 1..whole.len() + 1 {
            let found = blob_stream_contains(Pieces(&whole, piece), NEEDLE);
            assert_eq!(found, Some(true), "pieces of {piece}");
        }
        let absent = object(b"prior-art prior_art: PRIOR-ART");
        for piece in 1..absent.len() + 1 {
            let found = blob_stream_contains(Pieces(&absent, piece), NEEDLE);
            assert_eq!(found, Some(false), "pieces of {piece}");
        }
        // Larger than the buffer, the mention at its very end.
        let mut big = vec![b'p'; (1 << 16) * 3 + 5];
        big.extend_from_slice(b"prior-ART:");
        let found = blob_stream_contains(Pieces(&object(&big), 40_000), NEEDLE);
        assert_eq!(found, Some(true));
    }

    #[test]
    fn a_stream_that_is_not_a_whole_blob_is_left_to_git() {
        let short = b"blob 10\0abc".to_vec();
        assert_eq!(blob_stream_contains(Pieces(&short, 4), NEEDLE), None);
        let long = b"blob 2\0abc".to_vec();
        assert_eq!(blob_stream_contains(Pieces(&long, 4), NEEDLE), None);
        let tree = b"tree 3\0abc".to_vec();
        assert_eq!(blob_stream_contains(Pieces(&tree, 4), NEEDLE), None);
        let no_header = vec![b'9'; 100];
        assert_eq!(blob_stream_contains(Pieces(&no_header, 7), NEEDLE), None);
    }

    #[test]
    fn what_it_cannot_read_whole_is_left_to_git() {
        let repo = repo();
        let objects = LooseObjects::discover(repo.path()).unwrap();
        let loose = |id: &str| {
            repo.path()
                .join(".git/objects")
                .join(&id[..2])
                .join(&id[2..])
        };
        // Not a blob: a tree.
        let staged = blob(repo.path(), b"Prior-art: x\n");
        let cacheinfo = format!("100644,{staged},f");
        git(
            repo.path(),
            &["update-index", "--add", "--cacheinfo", &cacheinfo],
            None,
        );
        let tree = git(repo.path(), &["write-tree"], None);
        assert_eq!(objects.blob_contains(&tree, NEEDLE), None);
        // Absent, or not an id at all.
        assert_eq!(objects.blob_contains(&"0".repeat(40), NEEDLE), None);
        assert_eq!(objects.blob_contains("../../etc/passwd", NEEDLE), None);
        // Damaged: a stream cut in half.
        let damaged = blob(repo.path(), &vec![b'a'; 100_000]);
        let bytes = std::fs::read(loose(&damaged)).unwrap();
        std::fs::remove_file(loose(&damaged)).unwrap();
        std::fs::write(loose(&damaged), &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(objects.blob_contains(&damaged, NEEDLE), None);
        // Packed (the index keeps it alive): no longer loose.
        assert_eq!(objects.blob_contains(&staged, NEEDLE), Some(true));
        git(repo.path(), &["repack", "-a", "-d", "-q"], None);
        git(repo.path(), &["prune-packed"], None);
        assert!(!loose(&staged).exists());
        assert_eq!(objects.blob_contains(&staged, NEEDLE), None);
    }

    #[test]
    fn a_linked_worktree_and_a_subdirectory_find_the_shared_store() {
        let repo = repo();
        std::fs::create_dir(repo.path().join("sub")).unwrap();
        std::fs::write(repo.path().join("sub/a"), b"a\n").unwrap();
        git(repo.path(), &["add", "-A"], None);
        git(
            repo.path(),
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "x",
            ],
            None,
        );
        let id = blob(repo.path(), b"Prior-art: y\n");
        let from_sub = LooseObjects::discover(&repo.path().join("sub")).unwrap();
        assert_eq!(from_sub.blob_contains(&id, NEEDLE), Some(true));

        let wt = tempfile::tempdir().unwrap();
        let wt_path = wt.path().join("wt");
        git(
            repo.path(),
            &["worktree", "add", "-q", wt_path.to_str().unwrap()],
            None,
        );
        assert!(wt_path.join(".git").is_file());
        let from_worktree = LooseObjects::discover(&wt_path.join("sub")).unwrap();
        assert_eq!(from_worktree.blob_contains(&id, NEEDLE), Some(true));
    }

    #[test]
    fn every_blob_must_be_read_and_clean_for_none_to_contain_it() {
        let repo = repo();
        let objects = LooseObjects::discover(repo.path()).unwrap();
        let clean: Vec<String> = (0..40)
            .map(|i| {
                blob(
                    repo.path(),
                    format!("kernel {i}\n").repeat(i * 500).as_bytes(),
                )
            })
            .collect();
        let ids: Vec<&str> = clean.iter().map(String::as_str).collect();
        assert!(objects.none_contains(&ids, NEEDLE));
        assert!(objects.none_contains(&[], NEEDLE));
        let mention = blob(repo.path(), b"x\n// Prior-art: FA2\n");
        let missing = "1".repeat(40);
        for odd in [mention.as_str(), missing.as_str()] {
            for at in [0, 17, ids.len()] {
                let mut with = ids.clone();
                with.insert(at, odd);
                assert!(!objects.none_contains(&with, NEEDLE), "{odd} at {at}");
            }
        }
    }

    #[test]
    fn the_search_ignores_ascii_case_only() {
        assert!(contains_ignore_ascii_case(b"xx PRIOR-ART: y", NEEDLE));
        assert!(contains_ignore_ascii_case(b"prior-art:", NEEDLE));
        assert!(!contains_ignore_ascii_case(b"prior-art", NEEDLE));
        assert!(!contains_ignore_ascii_case(b"prior_art:", NEEDLE));
        assert!(!contains_ignore_ascii_case(b"", NEEDLE));
    }
}
