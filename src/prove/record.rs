//! Proof records (`sota prove SLUG --record`): what one says besides the
//! comparison, and reading one back. A record is sota's own file, committed
//! to the repository, so reading it is parsing untrusted input (any shape:
//! `None` when it is not a record); `output::prove` writes it.

use std::borrow::Cow;

/// The `schema` of a record (registered in `output::schema_id` as `Proof`).
pub const SCHEMA: &str = "sota.proof/v1";

/// What a proof record says besides the comparison.
#[derive(Clone, Debug)]
pub struct RecordMeta {
    pub op: String,
    /// `YYYY-MM-DD`, from the front end's clock.
    pub date: String,
    /// The op's files at proof time, root-relative, with their git blob ids.
    pub files: Vec<(String, String)>,
}

/// What the scorecard needs from a committed proof record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordSummary {
    pub verdict: String,
    pub date: String,
    /// (path, blob id) of the op's files at proof time.
    pub files: Vec<(String, String)>,
}

/// The fields of a record the scorecard reads; the rest (the metrics) is
/// skipped unallocated.
#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    schema: Cow<'a, str>,
    #[serde(borrow)]
    verdict: Cow<'a, str>,
    #[serde(borrow)]
    date: Cow<'a, str>,
    #[serde(borrow)]
    files: Vec<FileEntry<'a>>,
}

#[derive(serde::Deserialize)]
struct FileEntry<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    blob: Cow<'a, str>,
}

/// Read a `sota.proof/v1` record; `None` when it is not one.
pub fn parse_record(text: &str) -> Option<RecordSummary> {
    let head: Head<'_> = serde_json::from_str(text).ok()?;
    if head.schema != SCHEMA {
        return None;
    }
    Some(RecordSummary {
        verdict: head.verdict.into_owned(),
        date: head.date.into_owned(),
        files: head
            .files
            .into_iter()
            .map(|f| (f.path.into_owned(), f.blob.into_owned()))
            .collect(),
    })
}
