//! One index over every op's `files` globs: "which ops match this path" in
//! one pass, never a loop of per-op matchers.
//!
//! Globs are anchored at the root, so each has a literal directory prefix
//! (`src/attn/` for `src/attn/*.cu`, empty for `**/*.cu` or `{a,b}/x`). The
//! index buckets globs by that prefix and compiles each bucket into one
//! globset `GlobSet`, lazily, the first time a path under that directory is
//! looked up. A path consults only the buckets of its ancestor directories
//! (one hash lookup per path component). A gate over a dozen staged files in
//! a 1,000-op matrix compiles a handful of globs instead of thousands; a
//! scan over a whole tree compiles every bucket once. Built on demand: slug
//! lookups never pay for it.

use std::collections::HashMap;

use globset::{Candidate, GlobSet, GlobSetBuilder};

use crate::matrix::Matrix;

/// The compiled `files` globs of a matrix.
pub struct OpIndex<'m> {
    matrix: &'m Matrix,
    buckets: HashMap<&'m str, Bucket>,
    /// Longest bucket prefix, in bytes: no need to look deeper.
    max_prefix: usize,
    globs: usize,
    scratch: Vec<usize>,
    hits: Vec<(usize, usize)>,
}

struct Bucket {
    /// (op index, glob index in that op's `files`), in matrix order.
    owners: Vec<(usize, usize)>,
    set: Option<GlobSet>,
}

/// One op matched by a path, with the glob that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpMatch {
    /// Index into `matrix.ops`.
    pub op: usize,
    /// Index into that op's `files`.
    pub glob: usize,
}

/// The literal directory prefix of a (globset-syntax) glob: everything up
/// to the last `/` before the first metacharacter.
fn literal_dir(glob: &str) -> &str {
    let meta = glob.find(['*', '?', '[', '{', '\\']).unwrap_or(glob.len());
    match glob[..meta].rfind('/') {
        Some(i) => &glob[..=i],
        None => "",
    }
}

impl<'m> OpIndex<'m> {
    /// Index every op's `files` (nothing is compiled yet).
    pub fn new(matrix: &'m Matrix) -> Result<OpIndex<'m>, globset::Error> {
        let mut buckets: HashMap<&'m str, Bucket> = HashMap::new();
        let mut globs = 0;
        for (op_i, op) in matrix.ops.iter().enumerate() {
            for (glob_i, glob) in op.files.iter().enumerate() {
                let bucket = buckets
                    .entry(literal_dir(glob.value.translated()))
                    .or_insert_with(|| Bucket {
                        owners: Vec::new(),
                        set: None,
                    });
                bucket.owners.push((op_i, glob_i));
                globs += 1;
            }
        }
        let max_prefix = buckets.keys().map(|k| k.len()).max().unwrap_or(0);
        Ok(OpIndex {
            matrix,
            buckets,
            max_prefix,
            globs,
            scratch: Vec::new(),
            hits: Vec::new(),
        })
    }

    /// The ops whose `files` match a root-relative `/`-separated path, in
    /// matrix order, each once, with the first glob of that op that matched.
    pub fn matches(&mut self, path: &str) -> Vec<OpMatch> {
        self.matches_bytes(path.as_bytes())
    }

    /// As [`OpIndex::matches`], for a path given as raw bytes (non-UTF-8
    /// names included, as git prints them).
    pub fn matches_bytes(&mut self, path: &[u8]) -> Vec<OpMatch> {
        let os_path = bytes_to_path(path);
        let candidate = Candidate::new(&os_path);
        self.matches_prepared(path, &candidate)
    }

    /// Every (op, glob) pair whose glob matches the path, sorted — not just
    /// the first glob per op (for dead-glob accounting).
    pub fn all_hits(&mut self, path: &[u8]) -> &[(usize, usize)] {
        let os_path = bytes_to_path(path);
        let candidate = Candidate::new(&os_path);
        self.collect_hits(path, &candidate);
        &self.hits
    }

    fn matches_prepared(&mut self, path: &[u8], candidate: &Candidate<'_>) -> Vec<OpMatch> {
        self.collect_hits(path, candidate);
        let mut out: Vec<OpMatch> = Vec::with_capacity(self.hits.len());
        for &(op, glob) in &self.hits {
            if out.last().is_none_or(|m| m.op != op) {
                out.push(OpMatch { op, glob });
            }
        }
        out
    }

    fn collect_hits(&mut self, path: &[u8], candidate: &Candidate<'_>) {
        self.hits.clear();
        // The root bucket, then one per ancestor directory.
        let mut ends = vec![0];
        ends.extend(
            path.iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'/' && i < self.max_prefix)
                .map(|(i, _)| i + 1),
        );
        for end in ends {
            let Ok(prefix) = std::str::from_utf8(&path[..end]) else {
                continue;
            };
            let Some(bucket) = self.buckets.get_mut(prefix) else {
                continue;
            };
            let set = match &bucket.set {
                Some(set) => set,
                None => {
                    let mut builder = GlobSetBuilder::new();
                    for &(op, glob) in &bucket.owners {
                        builder.add(self.matrix.ops[op].files[glob].value.globset_glob());
                    }
                    // Every glob was validated at load; a set of valid globs builds.
                    bucket.set = Some(builder.build().unwrap_or_else(|_| GlobSet::empty()));
                    bucket.set.as_ref().expect("just built")
                }
            };
            set.matches_candidate_into(candidate, &mut self.scratch);
            self.hits
                .extend(self.scratch.iter().map(|&i| bucket.owners[i]));
        }
        self.hits.sort_unstable();
    }

    /// Whether any op matches the path.
    pub fn is_match(&mut self, path: &str) -> bool {
        !self.matches(path).is_empty()
    }

    /// Number of globs indexed.
    pub fn len(&self) -> usize {
        self.globs
    }

    pub fn is_empty(&self) -> bool {
        self.globs == 0
    }
}

fn bytes_to_path(bytes: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = r#"
[project]
name = "t"

[[op]]
slug = "gemm"
title = "GEMM"
sota = "CUTLASS"
files = ["src/gemm/*.cu", "src/**/common.cuh"]

[[op]]
slug = "attn"
title = "Attention"
sota = "FlashAttention"
files = ["src/attn/", "src/**/common.cuh", "**/*.flash"]
"#;

    #[test]
    fn one_pass_returns_every_matching_op_once_in_matrix_order() {
        let m = Matrix::from_str(TOML, "sota.toml").unwrap();
        let mut idx = OpIndex::new(&m).unwrap();
        assert_eq!(idx.len(), 5);
        assert_eq!(
            idx.matches("src/gemm/k.cu"),
            vec![OpMatch { op: 0, glob: 0 }]
        );
        assert_eq!(
            idx.matches("src/x/common.cuh"),
            vec![OpMatch { op: 0, glob: 1 }, OpMatch { op: 1, glob: 1 }]
        );
        assert_eq!(
            idx.matches("src/attn/deep/fa.cu"),
            vec![OpMatch { op: 1, glob: 0 }]
        );
        assert_eq!(idx.matches("a/b/c.flash"), vec![OpMatch { op: 1, glob: 2 }]);
        assert!(idx.matches("src/gemm/sub/k.cu").is_empty());
        assert!(!idx.is_match("README.md"));
    }

    #[test]
    fn literal_prefixes_stop_at_the_first_metacharacter() {
        assert_eq!(literal_dir("src/mod1/*.cu"), "src/mod1/");
        assert_eq!(literal_dir("src/attn/**"), "src/attn/");
        assert_eq!(literal_dir("kernels/common.cuh"), "kernels/");
        assert_eq!(literal_dir("**/*.cu"), "");
        assert_eq!(literal_dir("{a,b}/x.cu"), "");
        assert_eq!(literal_dir("src/a[bc]/x"), "src/");
        assert_eq!(literal_dir("top.cu"), "");
    }
}
