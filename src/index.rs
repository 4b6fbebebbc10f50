//! One compiled matcher for every op's `files` globs: "which ops match this
//! path" in one pass over one `GlobSet`, never a loop of matchers.
//!
//! Built on demand (lookups by slug never pay for it) and reused for every
//! path of a run.

use globset::{Candidate, GlobSet, GlobSetBuilder};

use crate::matrix::Matrix;

/// The compiled `files` globs of a matrix.
pub struct OpIndex {
    set: GlobSet,
    /// For each glob in `set`: (op index in `matrix.ops`, glob index in that op's `files`).
    owners: Vec<(usize, usize)>,
    scratch: Vec<usize>,
}

/// One op matched by a path, with the glob that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpMatch {
    /// Index into `matrix.ops`.
    pub op: usize,
    /// Index into that op's `files`.
    pub glob: usize,
}

impl OpIndex {
    /// Compile every op's `files` into one set.
    pub fn new(matrix: &Matrix) -> Result<OpIndex, globset::Error> {
        let mut builder = GlobSetBuilder::new();
        let mut owners = Vec::new();
        for (op_i, op) in matrix.ops.iter().enumerate() {
            for (glob_i, glob) in op.files.iter().enumerate() {
                builder.add(glob.value.globset_glob().clone());
                owners.push((op_i, glob_i));
            }
        }
        Ok(OpIndex {
            set: builder.build()?,
            owners,
            scratch: Vec::new(),
        })
    }

    /// The ops whose `files` match a root-relative `/`-separated path, in
    /// matrix order, each once, with the first glob of that op that matched.
    pub fn matches(&mut self, path: &str) -> Vec<OpMatch> {
        let candidate = Candidate::new(path);
        self.matches_candidate(&candidate)
    }

    /// As [`OpIndex::matches`], for a prepared candidate (reusable across
    /// matrices, and for non-UTF-8 paths).
    pub fn matches_candidate(&mut self, candidate: &Candidate<'_>) -> Vec<OpMatch> {
        self.set
            .matches_candidate_into(candidate, &mut self.scratch);
        let mut out: Vec<OpMatch> = Vec::with_capacity(self.scratch.len());
        // Glob indices come back ascending, and globs were added op by op, so
        // the first hit per op is its first matching glob.
        for &g in &self.scratch {
            let (op, glob) = self.owners[g];
            if out.last().is_none_or(|m| m.op != op) {
                out.push(OpMatch { op, glob });
            }
        }
        out
    }

    /// Whether any op matches the path.
    pub fn is_match(&self, path: &str) -> bool {
        self.set.is_match(path)
    }

    /// Number of globs compiled.
    pub fn len(&self) -> usize {
        self.owners.len()
    }

    pub fn is_empty(&self) -> bool {
        self.owners.is_empty()
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
files = ["src/attn/", "src/**/common.cuh"]
"#;

    #[test]
    fn one_pass_returns_every_matching_op_once_in_matrix_order() {
        let m = Matrix::from_str(TOML, "sota.toml").unwrap();
        let mut idx = OpIndex::new(&m).unwrap();
        assert_eq!(idx.len(), 4);
        let hit = idx.matches("src/gemm/k.cu");
        assert_eq!(hit, vec![OpMatch { op: 0, glob: 0 }]);
        let hit = idx.matches("src/x/common.cuh");
        assert_eq!(
            hit,
            vec![OpMatch { op: 0, glob: 1 }, OpMatch { op: 1, glob: 1 }]
        );
        assert_eq!(
            idx.matches("src/attn/deep/fa.cu"),
            vec![OpMatch { op: 1, glob: 0 }]
        );
        assert!(idx.matches("src/gemm/sub/k.cu").is_empty());
        assert!(!idx.is_match("README.md"));
    }
}
