//! A sorted list of root-relative paths in one buffer: 100,000 tracked
//! files as one allocation instead of 100,000.

/// Paths as raw bytes (`/`-separated), sorted and deduplicated.
#[derive(Clone, Debug, Default)]
pub struct PathList {
    bytes: Bytes,
    /// (start, end) of each path in `bytes`.
    spans: Vec<(usize, usize)>,
}

/// Where a list's paths are: a buffer of its own (shared with the lists
/// [`PathList::subset`] makes of it), or a mapped git index
/// whose entries hold them (the names are used where they lie, as git's
/// `read-cache.c` uses the names of a mapped index).
#[derive(Clone, Debug)]
enum Bytes {
    Owned(std::sync::Arc<Vec<u8>>),
    Mapped(std::sync::Arc<memmap2::Mmap>),
}

impl Default for Bytes {
    fn default() -> Bytes {
        Bytes::Owned(Default::default())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => m,
        }
    }
}

/// Two lists are equal when they list the same paths, wherever the bytes
/// are.
impl PartialEq for PathList {
    fn eq(&self, other: &PathList) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for PathList {}

impl PathList {
    /// From a NUL-separated listing (`git ls-files -z`); sorted if needed.
    pub fn from_nul_separated(bytes: Vec<u8>) -> PathList {
        let mut spans = Vec::new();
        let mut start = 0;
        for i in memchr::memchr_iter(0, &bytes) {
            if i > start {
                spans.push((start, i));
            }
            start = i + 1;
        }
        if bytes.len() > start {
            spans.push((start, bytes.len()));
        }
        PathList::checked(Bytes::Owned(std::sync::Arc::new(bytes)), spans)
    }

    /// From a buffer and the (start, end) span of each path in it; sorted
    /// and deduplicated if needed.
    pub fn from_spans(bytes: Vec<u8>, spans: Vec<(usize, usize)>) -> PathList {
        PathList::checked(Bytes::Owned(std::sync::Arc::new(bytes)), spans)
    }

    /// From a mapped file and the (start, end) span of each path in it,
    /// kept where they are; sorted and deduplicated (into a buffer of its
    /// own) unless `sorted`, which is what [`strictly_sorted`] said of
    /// these spans in these bytes (the index reader checks it while the
    /// checksum is still being computed, not after).
    pub fn from_mapped(map: memmap2::Mmap, spans: Vec<(usize, usize)>, sorted: bool) -> PathList {
        PathList::known(Bytes::Mapped(std::sync::Arc::new(map)), spans, sorted)
    }

    /// The list as given when it is sorted without repeats (one pass, as
    /// a listing from git is), else sorted and deduplicated.
    fn checked(bytes: Bytes, spans: Vec<(usize, usize)>) -> PathList {
        let sorted = strictly_sorted(&bytes, &spans);
        PathList::known(bytes, spans, sorted)
    }

    /// The list as given when `sorted` ([`strictly_sorted`]), else
    /// sorted and deduplicated.
    fn known(bytes: Bytes, spans: Vec<(usize, usize)>, sorted: bool) -> PathList {
        let list = PathList { bytes, spans };
        if sorted {
            list
        } else {
            PathList::from_paths(list.iter().map(<[u8]>::to_vec).collect())
        }
    }

    /// From separate paths (sorted and deduplicated here).
    pub fn from_paths(mut paths: Vec<Vec<u8>>) -> PathList {
        paths.sort_unstable();
        paths.dedup();
        let mut bytes = Vec::with_capacity(paths.iter().map(Vec::len).sum());
        let mut spans = Vec::with_capacity(paths.len());
        for p in paths {
            let start = bytes.len();
            bytes.extend_from_slice(&p);
            spans.push((start, bytes.len()));
        }
        PathList {
            bytes: Bytes::Owned(std::sync::Arc::new(bytes)),
            spans,
        }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn get(&self, i: usize) -> &[u8] {
        let (start, end) = self.spans[i];
        &self.bytes[start..end]
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The paths at `indices` (ascending; `count` of them, or about),
    /// sharing this list's buffer: a subset of a mapped index copies no
    /// name, only spans.
    pub fn subset(&self, indices: impl Iterator<Item = usize>, count: usize) -> PathList {
        let mut spans = Vec::with_capacity(count);
        spans.extend(indices.map(|i| self.spans[i]));
        debug_assert!(strictly_sorted(&self.bytes, &spans));
        PathList {
            bytes: self.bytes.clone(),
            spans,
        }
    }

    /// The paths as text, invalid UTF-8 replaced (`U+FFFD`).
    pub fn lossy(&self) -> impl Iterator<Item = std::borrow::Cow<'_, str>> + '_ {
        self.iter().map(String::from_utf8_lossy)
    }

    /// Whether `path` is listed, or is a directory some listed path lies under.
    pub fn contains_file_or_dir(&self, path: &[u8]) -> bool {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.get(mid) < path {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo < self.len() && {
            let p = self.get(lo);
            p == path || (p.starts_with(path) && p.get(path.len()) == Some(&b'/'))
        }
    }
}

/// Whether the paths at `spans` in `bytes` are in byte order without
/// repeats (one pass, as a listing from git is).
pub fn strictly_sorted(bytes: &[u8], spans: &[(usize, usize)]) -> bool {
    spans
        .windows(2)
        .all(|w| strictly_before(&bytes[w[0].0..w[0].1], &bytes[w[1].0..w[1].1]))
}

/// `a < b` in byte order, eight bytes at a time. Slice comparison calls the
/// C library's `memcmp`, whose AVX-512 variant reads a short slice with a
/// masked load that stalls on the mapped index's pages (measured: a fifth
/// of `sota coverage`'s samples on one instruction); a path is short, so
/// plain loads win (as `memchr::arch::all::is_equal` does for equality).
fn strictly_before(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_be_bytes(a[i..i + 8].try_into().expect("8 bytes"));
        let y = u64::from_be_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != y {
            return x < y;
        }
        i += 8;
    }
    for (x, y) in a[i..n].iter().zip(&b[i..n]) {
        if x != y {
            return x < y;
        }
    }
    a.len() < b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_listings_become_sorted_unique_paths() {
        let l = PathList::from_nul_separated(b"b/x\0a/y\0a/y\0c\0".to_vec());
        let got: Vec<&[u8]> = l.iter().collect();
        assert_eq!(got, [&b"a/y"[..], b"b/x", b"c"]);
        assert!(l.contains_file_or_dir(b"a"));
        assert!(l.contains_file_or_dir(b"b/x"));
        assert!(!l.contains_file_or_dir(b"b/"));
        assert!(!l.contains_file_or_dir(b"a/yy"));
    }

    #[test]
    fn a_subset_lists_the_chosen_paths_in_order_and_can_be_searched() {
        let l = PathList::from_nul_separated(b"a/x\0a/y\0b/z\0c\0\xff.cu\0".to_vec());
        let s = l.subset([1, 2, 4].into_iter(), 3);
        let got: Vec<&[u8]> = s.iter().collect();
        assert_eq!(got, [&b"a/y"[..], b"b/z", b"\xff.cu"]);
        assert!(s.contains_file_or_dir(b"b") && !s.contains_file_or_dir(b"c"));
        let shown: Vec<_> = s.lossy().collect();
        assert_eq!(shown, ["a/y", "b/z", "\u{fffd}.cu"]);
    }

    #[test]
    fn byte_order_check_agrees_with_slice_order() {
        // Short alphabets and lengths around the 8-byte step, so that
        // shared prefixes, equal words and ties on length are common.
        let mut rng = crate::test_rng::Rng(0x5eed_0f04);
        let alphabet = [b'a', b'b', b'/', 0xff, 0x00];
        let word = |rng: &mut crate::test_rng::Rng| -> Vec<u8> {
            let len = rng.below(20);
            (0..len).map(|_| rng.pick(&alphabet)).collect()
        };
        for _ in 0..50_000 {
            let a = word(&mut rng);
            let b = if rng.below(3) == 0 {
                let mut b = a.clone();
                b.truncate(rng.below(a.len() + 1));
                b.extend(word(&mut rng).into_iter().take(rng.below(3)));
                b
            } else {
                word(&mut rng)
            };
            assert_eq!(strictly_before(&a, &b), a < b, "{a:?} < {b:?}");
        }
        // An unsorted listing (as a hand-made one might be) is sorted.
        let l = PathList::from_nul_separated(b"k/aaaaaaaab\0k/aaaaaaaaa\0".to_vec());
        let got: Vec<&[u8]> = l.iter().collect();
        assert_eq!(got, [&b"k/aaaaaaaaa"[..], b"k/aaaaaaaab"]);
    }
}
