//! Proof state (SPEC 7): whether an op's `check` list has been proved on
//! the op's current files. The evidence is the op's proof record,
//! `.sota/proofs/SLUG.json` under the matrix root (written by
//! `sota prove SLUG --record` and by `pytest --sota-record`, committed
//! with the kernel), compared with the git blob ids of the files the op
//! covers now. The scorecard's `proven` KPI, the gate's proof line and the
//! HTML report read the states computed here; `audit` finds proof commits
//! by [`record_path`].

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::prove::record::{parse_record, RecordSummary};
use crate::repo::confined::{Confined, Opened};

/// Whether an op's checks have been proved on its current files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProofState {
    /// No record, or a file there that is not a `sota.proof/v1` record.
    Missing,
    /// The latest record's verdict is not `pass`.
    Failing { date: String },
    /// Files changed, appeared or vanished since the record (root-relative,
    /// sorted).
    Stale { date: String, files: Vec<String> },
    /// A passing record of the op's current files.
    Proven { date: String },
}

impl ProofState {
    /// The state's one-word name in every output format.
    pub fn name(&self) -> &'static str {
        match self {
            ProofState::Missing => "missing",
            ProofState::Failing { .. } => "failing",
            ProofState::Stale { .. } => "stale",
            ProofState::Proven { .. } => "proven",
        }
    }

    /// Proven: nothing to do.
    pub fn holds(&self) -> bool {
        matches!(self, ProofState::Proven { .. })
    }

    /// The date of the record it rests on, if any.
    pub fn date(&self) -> Option<&str> {
        match self {
            ProofState::Missing => None,
            ProofState::Failing { date }
            | ProofState::Stale { date, .. }
            | ProofState::Proven { date } => Some(date),
        }
    }

    /// One line for a person: what the state is and what to run.
    pub fn explain(&self, slug: &str) -> String {
        let rerun = format!(
            "run `sota prove {slug} REF CAND --record` (or `pytest --sota-record`) and commit {}",
            record_path(slug).display()
        );
        match self {
            ProofState::Missing => format!("no proof record of its checks: {rerun}"),
            ProofState::Failing { date } => {
                format!("the proof of {date} failed its checks: fix the kernel, then {rerun}")
            }
            ProofState::Stale { date, files } => format!(
                "{} changed since the proof of {date}: {rerun}",
                list_files(files)
            ),
            ProofState::Proven { date } => {
                format!("the passing record of {date} matches the files")
            }
        }
    }
}

/// Up to three files, then how many more.
fn list_files(files: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut s: Vec<String> = files
        .iter()
        .take(SHOWN)
        .map(|f| crate::quote::quote(f).into_owned())
        .collect();
    if files.len() > SHOWN {
        s.push(format!("and {} more", files.len() - SHOWN));
    }
    s.join(", ")
}

/// The directory of the proof records, relative to the matrix root.
pub const RECORD_DIR: &str = ".sota/proofs";

/// Where an op's proof record lives, relative to the matrix root.
pub fn record_path(slug: &str) -> PathBuf {
    PathBuf::from(record_git_path(slug))
}

/// The record path as a `/`-separated root-relative git path.
pub fn record_git_path(slug: &str) -> String {
    format!("{RECORD_DIR}/{slug}.json")
}

/// The op slug of a record's root-relative git path
/// (`.sota/proofs/SLUG.json`), if it is one.
pub fn record_slug(path: &[u8]) -> Option<&str> {
    let rest = path
        .strip_prefix(RECORD_DIR.as_bytes())?
        .strip_prefix(b"/")?;
    let slug = std::str::from_utf8(rest.strip_suffix(b".json")?).ok()?;
    (!slug.is_empty() && !slug.contains('/')).then_some(slug)
}

/// Op `slug`'s proof record under `root`, read only when it is a regular
/// file inside the root (a record is committed, so untrusted: a link out
/// of the repository or a FIFO is no record); `None` when there is none
/// or it is not a `sota.proof/v1` record.
pub fn read_record(files: &Confined, slug: &str) -> Option<RecordSummary> {
    const MAX_RECORD: u64 = 16 << 20;
    let Opened::File(file, len) = files.open(&record_git_path(slug)) else {
        return None;
    };
    if len > MAX_RECORD {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_RECORD).read_to_string(&mut text).ok()?;
    parse_record(&text)
}

/// The state of a record against the op's files now: `(path, blob id)`
/// pairs, root-relative, sorted by path (as tracked lists are). A merge of
/// two sorted lists: a record is written sorted, and one that is not (an
/// edit by hand) is sorted here first.
pub fn state(record: Option<RecordSummary>, now: &[(&str, &str)]) -> ProofState {
    let Some(mut rec) = record else {
        return ProofState::Missing;
    };
    if rec.verdict != "pass" {
        return ProofState::Failing { date: rec.date };
    }
    if !rec.files.is_sorted() {
        rec.files.sort();
    }
    let (mut r, mut n) = (rec.files.iter().peekable(), now.iter().peekable());
    let mut changed = Vec::new();
    loop {
        match (r.peek(), n.peek()) {
            (None, None) => break,
            (Some((rp, rb)), Some((np, nb))) if rp.as_str() == *np => {
                if rb.as_str() != *nb {
                    changed.push(rp.clone());
                }
                r.next();
                n.next();
            }
            (Some((rp, _)), Some((np, _))) if rp.as_str() < *np => {
                changed.push(rp.clone());
                r.next();
            }
            (Some((rp, _)), None) => {
                changed.push(rp.clone());
                r.next();
            }
            (_, Some((np, _))) => {
                changed.push((*np).to_owned());
                n.next();
            }
        }
    }
    settle(rec.date, changed)
}

/// Proven when nothing changed, else stale with the files (sorted, once).
fn settle(date: String, mut changed: Vec<String>) -> ProofState {
    changed.sort();
    changed.dedup();
    if changed.is_empty() {
        ProofState::Proven { date }
    } else {
        ProofState::Stale {
            date,
            files: changed,
        }
    }
}

/// The work-tree blob id of each root-relative path (`git hash-object`).
pub fn worktree_blobs<'a>(
    root: &Path,
    paths: impl IntoIterator<Item = &'a str>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = paths
        .into_iter()
        .map(|p| {
            (
                p.to_owned(),
                crate::repo::objects::worktree_blob_id(&root.join(p)),
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The gate's question, on a staged change: which of the op's staged
/// paths differ from its record (by their staged blob ids; a deleted
/// path has none). A commit changes only what it stages, so paths it does
/// not touch are the scorecard's business, not the gate's.
pub fn staged_state(
    record: Option<RecordSummary>,
    staged: &[(String, Option<String>)],
) -> ProofState {
    let Some(rec) = record else {
        return ProofState::Missing;
    };
    if rec.verdict != "pass" {
        return ProofState::Failing { date: rec.date };
    }
    let changed: Vec<String> = staged
        .iter()
        .filter(|(path, blob)| {
            let recorded = rec.files.iter().find(|f| &f.0 == path).map(|f| &f.1);
            match (recorded, blob) {
                (None, None) => false,
                (Some(r), Some(b)) => r != b,
                _ => true,
            }
        })
        .map(|(p, _)| p.clone())
        .collect();
    settle(rec.date, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(verdict: &str, files: &[(&str, &str)]) -> Option<RecordSummary> {
        Some(RecordSummary {
            verdict: verdict.into(),
            date: "2026-11-30".into(),
            files: files
                .iter()
                .map(|(p, b)| ((*p).into(), (*b).into()))
                .collect(),
        })
    }

    fn now<'a>(files: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        files.to_vec()
    }

    #[test]
    fn a_record_is_proven_stale_failing_or_missing() {
        let files = [("k/a.cu", "1"), ("k/b.cu", "2")];
        assert_eq!(state(None, &now(&files)), ProofState::Missing);
        assert_eq!(
            state(rec("fail", &files), &now(&files)),
            ProofState::Failing {
                date: "2026-11-30".into()
            }
        );
        assert_eq!(state(rec("pass", &files), &now(&files)).name(), "proven");
        // Changed, added and removed files all make it stale.
        let changed = now(&[("k/a.cu", "9"), ("k/c.cu", "3")]);
        match state(rec("pass", &files), &changed) {
            ProofState::Stale { files, .. } => assert_eq!(files, ["k/a.cu", "k/b.cu", "k/c.cu"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_record_out_of_order_is_read_as_well() {
        let files = [("k/b.cu", "2"), ("k/a.cu", "1")];
        let sorted = now(&[("k/a.cu", "1"), ("k/b.cu", "2")]);
        assert_eq!(state(rec("pass", &files), &sorted).name(), "proven");
        let changed = now(&[("k/a.cu", "1"), ("k/b.cu", "9")]);
        match state(rec("pass", &files), &changed) {
            ProofState::Stale { files, .. } => assert_eq!(files, ["k/b.cu"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_gate_judges_only_the_staged_paths() {
        let files = [("k/a.cu", "1"), ("k/b.cu", "2")];
        let staged = |p: &str, b: Option<&str>| vec![(p.to_owned(), b.map(str::to_owned))];
        assert_eq!(
            staged_state(rec("pass", &files), &staged("k/a.cu", Some("1"))).name(),
            "proven"
        );
        assert_eq!(
            staged_state(rec("pass", &files), &staged("k/a.cu", Some("7"))).name(),
            "stale"
        );
        assert_eq!(
            staged_state(rec("pass", &files), &staged("k/b.cu", None)).name(),
            "stale"
        );
        assert_eq!(
            staged_state(rec("pass", &files), &staged("k/new.cu", Some("5"))).name(),
            "stale"
        );
        assert_eq!(
            staged_state(None, &staged("k/a.cu", Some("1"))),
            ProofState::Missing
        );
    }

    #[test]
    fn a_stale_proof_names_three_files_then_counts() {
        let s = ProofState::Stale {
            date: "2026-11-30".into(),
            files: (0..5).map(|i| format!("k/{i}.cu")).collect(),
        };
        let line = s.explain("softmax");
        assert!(line.contains("k/0.cu") && line.contains("k/2.cu"), "{line}");
        assert!(
            !line.contains("k/3.cu") && line.contains("and 2 more"),
            "{line}"
        );
        assert!(
            line.contains("sota prove softmax REF CAND --record"),
            "{line}"
        );
    }
}
