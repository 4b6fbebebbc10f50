//! Reading git's loose objects in-process, for one question only: does a
//! staged blob contain a byte string? The gate asks it so that the common
//! staged change (no file mentions `Prior-art:`) needs no patch from git
//! (src/repo/git.rs). Anything this module cannot settle — the object is
//! packed, in an alternate store, unreadable, or not a blob — is `None`,
//! and the caller asks git instead.
//!
//! Objects are addressed by their content's hash, so a loose object found
//! under any object directory is the object git means: finding the wrong
//! directory can only make this module answer `None`, never wrongly. The
//! same holds for the work tree: a staged file usually still sits there
//! unchanged, and reading and hashing it (`blob <len>\0` + bytes, as git
//! does) is ~3x faster than inflating the object; when the hash is the
//! staged id, the file's bytes are the blob's.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::ZlibDecoder;
use sha1::Digest;

use crate::repo::confined::{Confined, Opened};

/// The ids of the empty blob, which git knows without storing it.
const EMPTY_BLOBS: [&str; 2] = [
    "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
    "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
];

/// The largest work-tree file read in place of a staged blob; larger
/// blobs are inflated (kernel sources are rarely over 1 MiB).
const MAX_WORKTREE_READ: u64 = 4 << 20;

/// The longest header a loose object can have: `<type> <size>\0`.
const MAX_HEADER: usize = 32;

/// One repository's loose-object directory, and the work tree whose files
/// may hold the same bytes.
#[derive(Clone, Debug)]
pub struct LooseObjects {
    dir: PathBuf,
    work_dir: PathBuf,
}

/// A staged blob to search: its id, and the work-tree file (relative to
/// the directory given to [`LooseObjects::discover`]) that may hold it.
#[derive(Clone, Debug)]
pub struct Blob {
    pub id: String,
    pub path: Option<String>,
}

impl LooseObjects {
    /// Read objects from `dir` (`.git/objects` or the like), and work-tree
    /// files under `work_dir`.
    pub fn at(dir: impl Into<PathBuf>, work_dir: impl Into<PathBuf>) -> Self {
        LooseObjects {
            dir: dir.into(),
            work_dir: work_dir.into(),
        }
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
        Some(Self::at(common.join("objects"), work_dir))
    }

    /// Whether every blob is known not to contain `needle`: `false` as
    /// soon as one does or cannot be read, `true` when none did. Each blob
    /// is read from its work-tree file when that hashes to its id
    /// ([`worktree_contains`]), else inflated
    /// ([`LooseObjects::blob_contains`]).
    pub fn none_contain(&self, blobs: impl IntoIterator<Item = Blob>, needle: &[u8]) -> bool {
        let worktree = Confined::new(&self.work_dir);
        blobs.into_iter().all(|blob| {
            let answer = blob
                .path
                .as_deref()
                .and_then(|rel| worktree_contains(&worktree, rel, &blob.id, needle))
                .or_else(|| self.blob_contains(&blob.id, needle));
            answer == Some(false)
        })
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

    let mut finder = Finder::new(needle);
    let mut seen = (filled - nul - 1) as u64;
    if finder.feed(&buf[nul + 1..filled]) {
        return Some(true);
    }
    loop {
        let n = object.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        seen += n as u64;
        if finder.feed(&buf[..n]) {
            return Some(true);
        }
    }
    // A short or long stream is a damaged object: let git say so.
    (seen == size).then_some(false)
}

/// Whether the work-tree file `rel` contains `needle`, when it holds blob
/// `id`'s bytes: it must be a regular file inside the work tree (opened
/// without blocking, so a FIFO is never waited on), at most
/// [`MAX_WORKTREE_READ`] bytes, whose git hash is `id`. `None` otherwise —
/// then the object is read.
fn worktree_contains(worktree: &Confined, rel: &str, id: &str, needle: &[u8]) -> Option<bool> {
    let Opened::File(file, len) = worktree.open(rel) else {
        return None;
    };
    // A work tree grown past the staged file (a log, a sparse file) is
    // not read: the object is. Nor is more than `len` bytes of one that
    // grows while read.
    if len > MAX_WORKTREE_READ {
        return None;
    }
    let mut file = file.take(len);
    let header = format!("blob {len}\0");
    let mut hash = match id.len() {
        40 => Hasher::Sha1(sha1::Sha1::new_with_prefix(&header)),
        64 => Hasher::Sha256(sha2::Sha256::new_with_prefix(&header)),
        _ => return None,
    };
    let mut finder = Finder::new(needle);
    let mut found = false;
    let mut read = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hash.update(&buf[..n]);
        found = found || finder.feed(&buf[..n]);
    }
    // Changed while read, or other bytes than the staged blob's.
    (read == len && hash.hex() == id).then_some(found)
}

/// Git's SHA-1 blob id of a work-tree entry, as `git hash-object` gives it
/// (a symlink's bytes are its target), streamed through the same hasher
/// the staged-blob search uses; "missing" for an entry that is gone or
/// cannot be read. For proof records (`sota prove --record`).
pub fn worktree_blob_id(path: &Path) -> String {
    let bytes = match std::fs::symlink_metadata(path) {
        Ok(md) if md.file_type().is_symlink() => std::fs::read_link(path)
            .map(|t| t.as_os_str().as_encoded_bytes().to_vec())
            .ok(),
        Ok(md) if md.is_file() => crate::read_only::open_regular(path)
            .and_then(|mut f| {
                let mut v = Vec::new();
                f.read_to_end(&mut v).map(|_| v)
            })
            .ok(),
        _ => None,
    };
    let Some(bytes) = bytes else {
        return "missing".into();
    };
    let mut hash = Hasher::Sha1(sha1::Sha1::new_with_prefix(format!(
        "blob {}\0",
        bytes.len()
    )));
    hash.update(&bytes);
    hash.hex()
}

/// SHA-1 or SHA-256, as the repository's ids are.
enum Hasher {
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
}

impl Hasher {
    fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
        }
    }

    fn hex(self) -> String {
        use std::fmt::Write;
        let digest = match self {
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
        };
        digest.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }
}

/// Finds a lowercase needle, ignoring ASCII case, in bytes fed in pieces:
/// the last `needle.len() - 1` bytes of each piece are kept, so a match
/// split between two pieces is seen.
struct Finder<'n> {
    needle: &'n [u8],
    tail: Vec<u8>,
}

impl<'n> Finder<'n> {
    fn new(needle: &'n [u8]) -> Self {
        Finder {
            needle,
            tail: Vec::with_capacity(2 * needle.len()),
        }
    }

    /// Whether the needle ends in this piece.
    fn feed(&mut self, piece: &[u8]) -> bool {
        let keep = self.needle.len().saturating_sub(1);
        self.tail.extend_from_slice(&piece[..keep.min(piece.len())]);
        if contains_ignore_ascii_case(&self.tail, self.needle)
            || contains_ignore_ascii_case(piece, self.needle)
        {
            return true;
        }
        if piece.len() >= keep {
            self.tail.clear();
            self.tail.extend_from_slice(&piece[piece.len() - keep..]);
        } else {
            let drop = self.tail.len().saturating_sub(keep);
            self.tail.drain(..drop);
        }
        false
    }
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

/// Whether `needle` occurs in `hay`, ignoring ASCII case: the one search
/// behind the gate's trailer test (`surface::trailer::mentions`), over
/// added diff lines and whole staged blobs. `needle` must be lowercase;
/// candidates are found by its first byte in either case.
pub fn contains_ignore_ascii_case(hay: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), hay).any(|i| {
        hay.get(i..i + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
    })
}

#[cfg(test)]
#[allow(unsafe_code)] // libc::mkfifo, to test that a FIFO is never opened
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

    fn by_id(ids: &[&str]) -> Vec<Blob> {
        ids.iter()
            .map(|&id| Blob {
                id: id.to_owned(),
                path: None,
            })
            .collect()
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
        let clean: Vec<&str> = clean.iter().map(String::as_str).collect();
        assert!(objects.none_contain(by_id(&clean), NEEDLE));
        assert!(objects.none_contain(Vec::new(), NEEDLE));
        let mention = blob(repo.path(), b"x\n// Prior-art: FA2\n");
        let missing = "1".repeat(40);
        for odd in [&mention, &missing] {
            for at in [0, 17, clean.len()] {
                let mut with = clean.clone();
                with.insert(at, odd);
                assert!(!objects.none_contain(by_id(&with), NEEDLE), "{odd} at {at}");
            }
        }
    }

    #[test]
    fn a_work_tree_file_answers_only_when_it_hashes_to_the_staged_id() {
        let repo = repo();
        let root = repo.path();
        let objects = LooseObjects::discover(root).unwrap();
        let write = |rel: &str, bytes: &[u8]| std::fs::write(root.join(rel), bytes).unwrap();
        let one = |id: &str, path: &str| {
            objects.none_contain(
                vec![Blob {
                    id: id.to_owned(),
                    path: Some(path.to_owned()),
                }],
                NEEDLE,
            )
        };

        // Staged, then packed away: only the identical work-tree file
        // can answer, and it does (without it, git would be asked).
        write("k.cu", b"__global__ void k() {}\n");
        git(root, &["add", "k.cu"], None);
        let staged = git(root, &["rev-parse", ":k.cu"], None);
        git(root, &["repack", "-a", "-d", "-q"], None);
        git(root, &["prune-packed"], None);
        assert!(one(&staged, "k.cu"));
        assert!(!objects.none_contain(
            vec![Blob {
                id: staged.clone(),
                path: None
            }],
            NEEDLE
        ));
        // The work tree edited after staging (`git add -p`): its bytes are
        // not the blob's, and the packed blob cannot be read here.
        write("k.cu", b"__global__ void k() { /* more */ }\n");
        assert!(!one(&staged, "k.cu"));

        // A mention staged, the work tree cleaned since: the blob says so.
        write("m.cu", b"// Prior-art: FA2\n");
        git(root, &["add", "m.cu"], None);
        let mentions = git(root, &["rev-parse", ":m.cu"], None);
        write("m.cu", b"// nothing\n");
        assert!(!one(&mentions, "m.cu"));
        // And the other way round: staged clean, a mention added since.
        write("c.cu", b"// clean\n");
        git(root, &["add", "c.cu"], None);
        let clean = git(root, &["rev-parse", ":c.cu"], None);
        write("c.cu", b"// Prior-art: FA2\n");
        assert!(one(&clean, "c.cu"));
        // Gone from the work tree, or never a path inside it.
        std::fs::remove_file(root.join("c.cu")).unwrap();
        assert!(one(&clean, "c.cu"));
        assert!(one(&clean, "../c.cu"));

        // A work tree grown huge since staging (here 64 GiB, sparse) is
        // not read: the object answers at once.
        write("big.cu", b"// small when staged\n");
        git(root, &["add", "big.cu"], None);
        let small = git(root, &["rev-parse", ":big.cu"], None);
        std::fs::File::options()
            .write(true)
            .open(root.join("big.cu"))
            .unwrap()
            .set_len(64 << 30)
            .unwrap();
        let started = std::time::Instant::now();
        assert!(one(&small, "big.cu"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));

        #[cfg(target_os = "linux")]
        {
            // A FIFO in its place is never opened for reading.
            std::fs::remove_file(root.join("m.cu")).unwrap();
            let fifo = std::ffi::CString::new(root.join("m.cu").to_str().unwrap()).unwrap();
            // SAFETY: a NUL-terminated path and a mode.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
            assert!(!one(&mentions, "m.cu"));
            std::fs::remove_file(root.join("m.cu")).unwrap();
            write("m.cu", b"// nothing\n");
            std::os::unix::fs::symlink("m.cu", root.join("link")).unwrap();
            let target_text = blob(root, b"m.cu");
            // A symlink's blob is its target's name: the file it leads to
            // does not hash to it, so the object answers.
            assert!(one(&target_text, "link"));
        }
    }
}
