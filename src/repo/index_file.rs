//! Reading the paths out of git's index file in-process, so the scorecard
//! does not wait for `git ls-files` to parse, checksum and print 100,000
//! entries. Only the path list is read: versions 2, 3 and 4 (v4's
//! prefix-compressed names included), SHA-1 and SHA-256 repositories.
//! Anything this reader does not handle exactly — a split index, sparse
//! directory entries, an unknown version, a truncated file — returns
//! `None`, and the caller asks `git ls-files` instead.
//!
//! Format: Documentation/gitformat-index.txt in git; gitoxide's `gix-index`
//! decodes the same layout.

#![allow(unsafe_code)] // each block below carries its `SAFETY:` note

use crate::repo::paths::PathList;

/// Fixed part of an entry before the flags: ctime, mtime (8 bytes each),
/// dev, ino, mode, uid, gid, size (4 bytes each).
const STAT_BYTES: usize = 40;
const MODE_OFFSET: usize = 24;
/// The extended-flags bit of the 16-bit flags (version 3+).
const EXTENDED: u16 = 0x4000;
/// A directory entry of a sparse index.
const DIR_MODE: u32 = 0o040000;
/// Longest path this reader accepts (Linux PATH_MAX); a longer one, or a
/// v4 file whose names expand past [`MAX_EXPANSION`] times its size, is
/// handed to git: a crafted index must not make the reader allocate
/// without bound (v4 names grow by prefix reuse, quadratically).
const MAX_NAME: usize = 4096;
const MAX_EXPANSION: usize = 32;

/// The paths in an index file, filtered to those under `prefix` (with the
/// prefix stripped), or `None` when the file is not something this reader
/// handles exactly.
///
/// The trailing checksum is verified first ([`checksum_holds`]).
pub fn read_paths(bytes: &[u8], hash_len: usize, prefix: &[u8]) -> Option<PathList> {
    Some(match read(bytes, hash_len, prefix)? {
        Names::InFile { spans, .. } => {
            let mut out = Vec::with_capacity(spans.iter().map(|(a, b)| b - a).sum());
            let spans = spans
                .into_iter()
                .map(|(a, b)| {
                    let start = out.len();
                    out.extend_from_slice(&bytes[a..b]);
                    (start, out.len())
                })
                .collect();
            PathList::from_spans(out, spans)
        }
        Names::Copied(out, spans) => PathList::from_spans(out, spans),
    })
}

/// [`read_paths`] over a mapped index file, whose names the list keeps
/// where they are (versions 2 and 3 store each name whole in its entry;
/// version 4's prefix-compressed names are expanded into a buffer).
pub fn read_paths_mapped(map: memmap2::Mmap, hash_len: usize, prefix: &[u8]) -> Option<PathList> {
    Some(match read(&map, hash_len, prefix)? {
        Names::InFile { spans, sorted } => PathList::from_mapped(map, spans, sorted),
        Names::Copied(out, spans) => PathList::from_spans(out, spans),
    })
}

/// Where the names [`read`] found are.
enum Names {
    /// (start, end) of each name in the index file's bytes, and whether
    /// they are in order ([`crate::repo::paths::strictly_sorted`]).
    InFile {
        spans: Vec<(usize, usize)>,
        sorted: bool,
    },
    /// Expanded into a buffer (version 4), with their spans in it.
    Copied(Vec<u8>, Vec<(usize, usize)>),
}

/// The header check, the checksum and the parse of [`read_paths`].
fn read(bytes: &[u8], hash_len: usize, prefix: &[u8]) -> Option<Names> {
    if bytes.len() < 12 + hash_len || &bytes[..4] != b"DIRC" {
        return None;
    }
    checksum_holds(bytes, hash_len)
        .then(|| parse_paths(bytes, hash_len, prefix, None))
        .flatten()
}

/// One index entry under the prefix, as [`walk_entries`] hands it over.
struct Entry<'b> {
    /// The name, the prefix stripped.
    name: &'b [u8],
    /// Where the stripped name lies in the file (versions 2 and 3; a
    /// version 4 name is rebuilt from its predecessor's).
    in_file: Option<(usize, usize)>,
    /// The object id, raw (`hash_len` bytes).
    oid: &'b [u8],
}

/// Every entry of an index whose header was checked by [`read`], in file
/// order, handed to `each` when its name is under `prefix`; the version,
/// or `None` when the file is not something this reader handles exactly.
fn walk_entries(
    bytes: &[u8],
    hash_len: usize,
    prefix: &[u8],
    mut each: impl FnMut(Entry<'_>),
) -> Option<u32> {
    let version = u32::from_be_bytes(bytes[4..8].try_into().ok()?);
    let count = u32::from_be_bytes(bytes[8..12].try_into().ok()?) as usize;
    if !(2..=4).contains(&version) {
        return None;
    }
    let mut at = 12;
    // Version 4 only: the names rebuilt, and how many bytes so far.
    let mut previous: Vec<u8> = Vec::new();
    let mut expanded = 0usize;
    for _ in 0..count {
        let entry_start = at;
        let fixed = STAT_BYTES + hash_len + 2;
        let head = bytes.get(at..at + fixed)?;
        let mode = u32::from_be_bytes(head[MODE_OFFSET..MODE_OFFSET + 4].try_into().ok()?);
        if mode & 0o170000 == DIR_MODE {
            // A sparse index folds a directory into one entry; `ls-files`
            // expands it, and so must the caller.
            return None;
        }
        let oid = &head[STAT_BYTES..STAT_BYTES + hash_len];
        let flags = u16::from_be_bytes(head[fixed - 2..fixed].try_into().ok()?);
        at += fixed;
        if flags & EXTENDED != 0 {
            if version < 3 {
                return None;
            }
            at += 2;
        }
        if version == 4 {
            // Varint: bytes to strip from the previous name, then a
            // NUL-terminated suffix; no padding.
            let (strip, used) = varint(bytes.get(at..)?)?;
            at += used;
            let end = at + memchr::memchr(0, bytes.get(at..)?)?;
            let keep = previous.len().checked_sub(strip)?;
            previous.truncate(keep);
            previous.extend_from_slice(&bytes[at..end]);
            expanded += previous.len();
            if previous.len() > MAX_NAME || expanded > MAX_EXPANSION * bytes.len() {
                return None;
            }
            at = end + 1;
            if let Some(rest) = previous.strip_prefix(prefix) {
                if !rest.is_empty() {
                    each(Entry {
                        name: rest,
                        in_file: None,
                        oid,
                    });
                }
            }
        } else {
            let end = at + memchr::memchr(0, bytes.get(at..)?)?;
            // Entries are padded with 1-8 NULs to a multiple of 8 bytes.
            let len = end - entry_start;
            if memchr::arch::all::is_prefix(&bytes[at..end], prefix) && end > at + prefix.len() {
                let start = at + prefix.len();
                each(Entry {
                    name: &bytes[start..end],
                    in_file: Some((start, end)),
                    oid,
                });
            }
            at = entry_start + (len + 8) / 8 * 8;
        }
    }
    only_optional_extensions(bytes, at, hash_len)?;
    Some(version)
}

/// The entries' names under `prefix` ([`walk_entries`]); with `ids`, each
/// entry's raw object id appended to it, in the same order.
fn parse_paths(
    bytes: &[u8],
    hash_len: usize,
    prefix: &[u8],
    mut ids: Option<&mut Vec<u8>>,
) -> Option<Names> {
    // Version 4 only: the expanded names.
    let mut out = Vec::new();
    let mut copied = Vec::new();
    // The count comes from the file: trust it only as far as the file's
    // size allows (every entry takes at least STAT_BYTES + hash + flags).
    let count = u32::from_be_bytes(bytes.get(8..12)?.try_into().ok()?) as usize;
    let mut spans = Vec::with_capacity(count.min(bytes.len() / (STAT_BYTES + hash_len + 2)));
    let version = walk_entries(bytes, hash_len, prefix, |e| {
        if let Some(ids) = ids.as_deref_mut() {
            ids.extend_from_slice(e.oid);
        }
        match e.in_file {
            Some(span) => spans.push(span),
            None => {
                let start = out.len();
                out.extend_from_slice(e.name);
                copied.push((start, out.len()));
            }
        }
    })?;
    Some(if version == 4 {
        Names::Copied(out, copied)
    } else {
        let sorted = crate::repo::paths::strictly_sorted(bytes, &spans);
        Names::InFile { spans, sorted }
    })
}

/// [`read_paths_mapped`], and the blob id of every path (raw, `hash_len`
/// bytes each, in the list's order) — git's record of what `git add`
/// stored, for proof records (`proven`). The ids are `None` when the
/// list is not in the index's order (an index out of order is sorted).
pub fn read_paths_and_ids_mapped(
    map: memmap2::Mmap,
    hash_len: usize,
    prefix: &[u8],
) -> Option<(PathList, Option<Vec<u8>>)> {
    if map.len() < 12 + hash_len || &map[..4] != b"DIRC" || !checksum_holds(&map, hash_len) {
        return None;
    }
    let mut ids = Vec::new();
    Some(match parse_paths(&map, hash_len, prefix, Some(&mut ids))? {
        Names::InFile { spans, sorted } => {
            let ids = sorted.then_some(ids);
            (PathList::from_mapped(map, spans, sorted), ids)
        }
        Names::Copied(out, spans) => {
            let ids = crate::repo::paths::strictly_sorted(&out, &spans).then_some(ids);
            (PathList::from_spans(out, spans), ids)
        }
    })
}

/// Lowercase hex, two digits a byte (what git prints).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// `Some` when every extension from `at` to the trailer is optional. As in
/// git's read-cache.c, one whose signature starts with 'A'..'Z' is
/// optional (a cache, skipped); any other is needed to read the index
/// right, and declined: git refuses those it does not know, and of those it
/// knows, a split index ("link") keeps entries elsewhere and a sparse one
/// ("sdir") folds directories into single entries.
fn only_optional_extensions(bytes: &[u8], mut at: usize, hash_len: usize) -> Option<()> {
    let trailer = bytes.len().checked_sub(hash_len)?;
    while at + 8 <= trailer {
        if !bytes[at].is_ascii_uppercase() {
            return None;
        }
        let size = u32::from_be_bytes(bytes[at + 4..at + 8].try_into().ok()?) as usize;
        at = at.checked_add(8 + size)?;
    }
    Some(())
}

/// Whether the file's trailing hash is the SHA-1 (or, for 32-byte hashes,
/// SHA-256) of every byte before it, as `git fsck` checks it
/// (`verify_hdr` in read-cache.c). An all-zero trailer is accepted: git
/// writes it under `index.skipHash` and skips the check for it too.
/// Plain reads in git do not verify it; this reader does, so a corrupt
/// index (one flipped byte) is never read as fine: it goes to git, which
/// reports the damage or reads what it can.
fn checksum_holds(bytes: &[u8], hash_len: usize) -> bool {
    use sha1::Digest;
    let Some(at) = bytes.len().checked_sub(hash_len) else {
        return false;
    };
    let (body, sum) = bytes.split_at(at);
    if sum.iter().all(|&b| b == 0) {
        return true;
    }
    match hash_len {
        20 => sha1::Sha1::digest(body).as_slice() == sum,
        32 => sha2::Sha256::digest(body).as_slice() == sum,
        _ => false,
    }
}

/// Environment variables that move git's files; when one is set, only git
/// knows where the index is.
pub const GIT_ENV_OVERRIDES: [&str; 5] = [
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
];

/// Where the index of the work tree containing `dir` is, found without
/// running git — only for the plain layout: a `.git` directory (the caller
/// checks that no [`GIT_ENV_OVERRIDES`] variable is set), no
/// `extensions.objectFormat` or `core.worktree` in its config. Anything else returns `None`, and the caller asks git
/// (`git rev-parse`), which knows every layout.
pub fn locate_plain(dir: &std::path::Path) -> Option<crate::repo::git::IndexLocation> {
    let dir = std::fs::canonicalize(dir).ok()?;
    let top = dir.ancestors().find(|d| d.join(".git").exists())?;
    let git_dir = top.join(".git");
    if !git_dir.is_dir() {
        return None; // a worktree or submodule: `.git` is a file
    }
    let config = std::fs::read_to_string(git_dir.join("config"))
        .unwrap_or_default()
        .to_ascii_lowercase();
    if config.contains("objectformat") || config.contains("worktree") {
        return None;
    }
    let rel = dir.strip_prefix(top).ok()?;
    let mut prefix = String::new();
    for c in rel.components() {
        prefix.push_str(c.as_os_str().to_str()?);
        prefix.push('/');
    }
    Some(crate::repo::git::IndexLocation {
        index: git_dir.join("index"),
        hash_len: 20,
        prefix: prefix.into_bytes(),
    })
}

/// Git's offset varint (as in `varint.c`).
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    let mut c = *bytes.first()?;
    let mut val = usize::from(c & 0x7f);
    while c & 0x80 != 0 {
        i += 1;
        c = *bytes.get(i)?;
        val = val.checked_add(1)?.checked_shl(7)? | usize::from(c & 0x7f);
    }
    Some((val, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_decode_like_git() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        assert_eq!(varint(&[0x80, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0x81, 0x00]), Some((256, 2)));
        assert_eq!(varint(&[0x80]), None);
    }

    #[test]
    fn garbage_is_declined_not_misread() {
        assert!(read_paths(b"", 20, b"").is_none());
        assert!(read_paths(b"DIRC\0\0\0\x09\0\0\0\0", 20, b"").is_none());
        assert!(
            read_paths(b"DIRC\0\0\0\x02\0\0\0\x05", 20, b"").is_none(),
            "truncated"
        );
    }

    /// A version 2 index of these names, in this order, with an unknown
    /// optional extension, trailer all zeros (`index.skipHash`).
    fn v2_index(names: &[&[u8]]) -> Vec<u8> {
        v2_index_with(names, b"Zpad")
    }

    /// [`v2_index`] with the extension signed `sig`.
    fn v2_index_with(names: &[&[u8]], sig: &[u8; 4]) -> Vec<u8> {
        let mut bytes = b"DIRC\0\0\0\x02".to_vec();
        bytes.extend_from_slice(&(names.len() as u32).to_be_bytes());
        for name in names {
            let start = bytes.len();
            bytes.extend_from_slice(&[0; STAT_BYTES + 20]);
            bytes[start + MODE_OFFSET..start + MODE_OFFSET + 4]
                .copy_from_slice(&0o100644u32.to_be_bytes());
            bytes.extend_from_slice(&(name.len() as u16).to_be_bytes());
            bytes.extend_from_slice(name);
            let len = bytes.len() - start;
            bytes.resize(start + (len + 8) / 8 * 8, 0);
        }
        bytes.extend_from_slice(sig);
        bytes.extend_from_slice(&64u32.to_be_bytes());
        bytes.resize(bytes.len() + 64, 0);
        bytes.extend_from_slice(&[0; 20]);
        bytes
    }

    #[test]
    fn ids_come_with_the_paths_in_their_order() {
        let mut bytes = v2_index(&[b"a/x.cu", b"b/y.cu", b"b/z.cu"]);
        // Give each entry its own id: entry i's first id byte is i + 1.
        let mut at = 12;
        for i in 0..3u8 {
            bytes[at + STAT_BYTES] = i + 1;
            let name_len = u16::from_be_bytes([bytes[at + 60], bytes[at + 61]]) as usize;
            at += (62 + name_len + 8) / 8 * 8;
        }
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, &bytes).unwrap();
        // SAFETY: a private read-only map of a file this test owns.
        let map = unsafe { memmap2::Mmap::map(file.as_file()) }.unwrap();
        let (list, ids) = read_paths_and_ids_mapped(map, 20, b"b/").unwrap();
        assert_eq!(list.iter().collect::<Vec<_>>(), [&b"y.cu"[..], b"z.cu"]);
        let ids = ids.unwrap();
        assert_eq!(hex(&ids[..20]), format!("02{}", "0".repeat(38)));
        assert_eq!(hex(&ids[20..]), format!("03{}", "0".repeat(38)));
    }

    #[test]
    fn a_mapped_index_out_of_order_is_sorted_and_deduplicated() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let names: [&[u8]; 4] = [b"b/x.cu", b"a.cu", b"b/x.cu", b"b.cu"];
        std::io::Write::write_all(&mut file, &v2_index(&names)).unwrap();
        // SAFETY: a private read-only map of a file this test owns.
        let map = unsafe { memmap2::Mmap::map(file.as_file()) }.unwrap();
        let list = read_paths_mapped(map, 20, b"").expect("a plain v2 index");
        let got: Vec<&[u8]> = list.iter().collect();
        assert_eq!(got, [&b"a.cu"[..], b"b.cu", b"b/x.cu"]);
        // In order, the names stay where they are, as given.
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, &v2_index(&[b"a.cu", b"b.cu"])).unwrap();
        // SAFETY: as above.
        let map = unsafe { memmap2::Mmap::map(file.as_file()) }.unwrap();
        let list = read_paths_mapped(map, 20, b"").expect("a plain v2 index");
        assert_eq!(list.iter().collect::<Vec<_>>(), [&b"a.cu"[..], b"b.cu"]);
    }

    #[test]
    fn an_unknown_mandatory_extension_is_declined_like_git() {
        // read-cache.c: a signature starting with 'A'..'Z' is optional
        // ("ignoring %.4s extension"); any other is needed to read the
        // index right ("index uses %.4s extension, which we do not
        // understand"), and git refuses it. So must this reader.
        let names: [&[u8]; 2] = [b"a.cu", b"b.cu"];
        for sig in [
            b"Zpad", b"TREE", b"REUC", b"UNTR", b"FSMN", b"EOIE", b"IEOT",
        ] {
            assert!(
                read_paths(&v2_index_with(&names, sig), 20, b"").is_some(),
                "{}",
                String::from_utf8_lossy(sig)
            );
        }
        for sig in [
            b"zpad", b"link", b"sdir", b"1abc", b"\xffabc", b"@ABC", b"[ABC",
        ] {
            assert!(
                read_paths(&v2_index_with(&names, sig), 20, b"").is_none(),
                "{}",
                String::from_utf8_lossy(sig)
            );
        }
    }

    #[test]
    fn a_v4_index_whose_names_explode_is_declined() {
        // Each entry keeps the whole previous name and adds 100 bytes: the
        // names would total count² × 50 bytes.
        let count: u32 = 2000;
        let mut bytes = b"DIRC\0\0\0\x04".to_vec();
        bytes.extend_from_slice(&count.to_be_bytes());
        for _ in 0..count {
            bytes.extend_from_slice(&[0; STAT_BYTES + 20 + 2]);
            bytes.push(0); // strip nothing
            bytes.extend_from_slice(&[b'a'; 100]);
            bytes.push(0);
        }
        bytes.extend_from_slice(&[0; 20]);
        assert!(read_paths(&bytes, 20, b"").is_none());
    }
}
