//! The trailer audit (SPEC 3.5): over history, which commits touched a
//! matched file, which carried a valid `Prior-art:` trailer, which a
//! placeholder, which none — overall, per op and by month. Pure: commits
//! come in (from `git.rs`), a report goes out; trailer rules are
//! `trailer.rs`'s, the same the gate uses.

use std::collections::BTreeMap;

use crate::index::OpIndex;
use crate::matrix::Matrix;
use crate::repo::git::Commit;
use crate::surface::trailer::{self, Stamp};

/// One commit that touched a file some op's `files` match.
#[derive(Clone, Debug)]
pub struct Audited {
    pub hash: String,
    pub date: String,
    pub subject: String,
    /// Slugs of the ops touched, sorted.
    pub ops: Vec<String>,
    /// The matched paths.
    pub paths: Vec<String>,
    pub stamp: Stamp,
    /// `Prior-art` values as git's own trailer parser sees them.
    pub git_trailers: Vec<String>,
    /// Per touched op with a `check` list (sorted by slug): the commit,
    /// this one or a later one, that wrote its proof record
    /// (`.sota/proofs/SLUG.json`), if any did.
    pub proofs: Vec<(String, Option<String>)>,
}

/// Counts for one op or one month.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub commits: usize,
    pub stamped: usize,
    pub placeholder: usize,
    pub missing: usize,
}

impl Tally {
    fn add(&mut self, stamp: &Stamp) {
        self.commits += 1;
        match stamp {
            Stamp::Valid(_) => self.stamped += 1,
            Stamp::Placeholder(_) => self.placeholder += 1,
            Stamp::Missing => self.missing += 1,
        }
    }

    /// Stamped share, 0.0–1.0 (1.0 when there is nothing to stamp).
    pub fn compliance(&self) -> f64 {
        if self.commits == 0 {
            1.0
        } else {
            self.stamped as f64 / self.commits as f64
        }
    }
}

/// Where the audited history starts (SPEC 3.5): by default at adoption,
/// so commits from before the team used sota do not count as unstamped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Start {
    /// `--all`: everything reachable.
    #[default]
    All,
    /// An explicit revision range: exactly the commits it names.
    Range,
    /// `--since DATE`, as given.
    Since(String),
    /// `[project] adopted` in the matrix.
    Adopted(crate::matrix::Date),
    /// The first commit that added the matrix file (renames followed).
    Added {
        hash: String,
        /// Its committer date, `YYYY-MM-DD`.
        date: String,
        /// The matrix file, root-relative.
        file: String,
    },
    /// The matrix file is in no commit yet: everything is read.
    Uncommitted { file: String },
}

impl Start {
    /// Stable name for JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Start::All => "all",
            Start::Range => "range",
            Start::Since(_) => "since",
            Start::Adopted(_) => "adopted",
            Start::Added { .. } => "matrix-added",
            Start::Uncommitted { .. } => "uncommitted",
        }
    }

    /// The first day counted, when the history is cut by date.
    pub fn date(&self) -> Option<String> {
        match self {
            Start::Since(s) => Some(s.clone()),
            Start::Adopted(d) => Some(d.to_string()),
            Start::Added { date, .. } => Some(date.clone()),
            Start::All | Start::Range | Start::Uncommitted { .. } => None,
        }
    }
}

/// The audit.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Where the history starts.
    pub start: Start,
    /// Commits read from history.
    pub scanned: usize,
    /// The kernel-touching commits, newest first.
    pub commits: Vec<Audited>,
    pub overall: Tally,
    /// Per op slug, sorted by slug.
    pub per_op: BTreeMap<String, Tally>,
    /// Per `YYYY-MM` of the author date, oldest first.
    pub by_month: BTreeMap<String, Tally>,
    /// Kernel commits to ops with a `check` list, per op touched: how
    /// many there were, and how many a proof record followed.
    pub proof_wanted: usize,
    pub proof_followed: usize,
}

impl Report {
    /// The most recent commits without a valid trailer, newest first.
    pub fn recent_unstamped(&self, n: usize) -> Vec<&Audited> {
        self.commits
            .iter()
            .filter(|c| !c.stamp.is_valid())
            .take(n)
            .collect()
    }
}

/// Incremental audit: feed commits in history order (newest first).
pub struct Auditor<'m> {
    matrix: &'m Matrix,
    index: OpIndex<'m>,
    comment: String,
    report: Report,
    /// Op slug → the oldest commit seen so far (history is read newest
    /// first) that wrote the op's proof record.
    proved_by: BTreeMap<String, String>,
}

impl<'m> Auditor<'m> {
    pub fn new(matrix: &'m Matrix, comment: &str) -> Self {
        Auditor {
            matrix,
            index: OpIndex::new(matrix).unwrap_or_else(|_| OpIndex::from_globs(std::iter::empty())),
            comment: comment.to_owned(),
            report: Report::default(),
            proved_by: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, commit: Commit) {
        self.report.scanned += 1;
        let deleted = |i: usize| commit.deleted.get(i).copied().unwrap_or(false);
        for (i, p) in commit.paths.iter().enumerate() {
            if deleted(i) {
                continue;
            }
            if let Some(slug) = crate::surface::proofs::record_slug(p.as_bytes()) {
                self.proved_by.insert(slug.to_owned(), commit.hash.clone());
            }
        }
        let mut ops: Vec<&str> = Vec::new();
        let mut paths = Vec::new();
        for p in &commit.paths {
            let hits = self.index.matches_bytes(p.as_bytes());
            if !hits.is_empty() {
                paths.push(p.display());
            }
            for m in hits {
                let slug = self.matrix.ops[m.op].slug.value.as_str();
                if !ops.contains(&slug) {
                    ops.push(slug);
                }
            }
        }
        if ops.is_empty() {
            return;
        }
        ops.sort_unstable();
        let stamp = trailer::stamp(&commit.message, &self.comment);
        self.report.overall.add(&stamp);
        for slug in &ops {
            self.report
                .per_op
                .entry((*slug).to_owned())
                .or_default()
                .add(&stamp);
        }
        let month = crate::matrix::Date::parse(&commit.date)
            .map(|d| d.month_key())
            .unwrap_or_else(|| "unknown".to_owned());
        self.report.by_month.entry(month).or_default().add(&stamp);
        let proofs: Vec<(String, Option<String>)> = ops
            .iter()
            .filter(|slug| self.matrix.op(slug).is_some_and(|o| !o.check.is_empty()))
            .map(|slug| ((*slug).to_owned(), self.proved_by.get(*slug).cloned()))
            .collect();
        self.report.proof_wanted += proofs.len();
        self.report.proof_followed += proofs.iter().filter(|p| p.1.is_some()).count();
        self.report.commits.push(Audited {
            hash: commit.hash,
            date: commit.date,
            subject: commit.subject,
            ops: ops.into_iter().map(str::to_owned).collect(),
            paths,
            stamp,
            git_trailers: commit.git_trailers,
            proofs,
        });
    }

    pub fn finish(self) -> Report {
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::git::GitPath;

    fn commit(hash: &str, date: &str, msg: &str, paths: &[&str]) -> Commit {
        Commit {
            hash: hash.into(),
            date: date.into(),
            subject: msg.lines().next().unwrap().into(),
            message: msg.into(),
            git_trailers: vec![],
            deleted: vec![false; paths.len()],
            paths: paths
                .iter()
                .map(|p| GitPath::from_bytes(p.as_bytes()))
                .collect(),
        }
    }

    #[test]
    fn tallies_overall_per_op_and_by_month() {
        let m = Matrix::from_str(
            "[project]\nname='t'\n[[op]]\nslug='attn'\ntitle='A'\nsota='S'\nfiles=['k/attn/']\n[[op]]\nslug='gemm'\ntitle='G'\nsota='S'\nfiles=['k/*.cu']\n",
            "sota.toml",
        )
        .unwrap();
        let mut a = Auditor::new(&m, "#");
        a.add(commit("4", "2026-03-02", "docs", &["README.md"]));
        a.add(commit(
            "3",
            "2026-03-01",
            "both\n\nPrior-art: FlashAttention",
            &["k/attn/x.cu", "k/g.cu"],
        ));
        a.add(commit(
            "2",
            "2026-02-10",
            "gemm\n\nPrior-art: n/a",
            &["k/g.cu"],
        ));
        a.add(commit("1", "2026-02-01", "attn", &["k/attn/y.cu"]));
        let r = a.finish();
        assert_eq!(r.scanned, 4);
        assert_eq!(
            r.overall,
            Tally {
                commits: 3,
                stamped: 1,
                placeholder: 1,
                missing: 1
            }
        );
        assert_eq!(
            r.per_op["attn"],
            Tally {
                commits: 2,
                stamped: 1,
                placeholder: 0,
                missing: 1
            }
        );
        assert_eq!(
            r.per_op["gemm"],
            Tally {
                commits: 2,
                stamped: 1,
                placeholder: 1,
                missing: 0
            }
        );
        assert_eq!(
            r.by_month.keys().collect::<Vec<_>>(),
            ["2026-02", "2026-03"]
        );
        let recent: Vec<&str> = r
            .recent_unstamped(5)
            .iter()
            .map(|c| c.hash.as_str())
            .collect();
        assert_eq!(recent, ["2", "1"]);
        assert!((r.overall.compliance() - 1.0 / 3.0).abs() < 1e-9);
    }
}
