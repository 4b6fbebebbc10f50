//! Proof records (`sota prove SLUG --record`): what one says besides the
//! comparison, and reading one back. A record is sota's own file, committed
//! to the repository, so reading it is parsing untrusted input (any shape:
//! `None` when it is not a record); `output::prove` writes it.

use serde_json::Value;

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

/// Read a `sota.proof/v1` record; `None` when it is not one.
pub fn parse_record(text: &str) -> Option<RecordSummary> {
    let v: Value = serde_json::from_str(text).ok()?;
    if v["schema"] != SCHEMA {
        return None;
    }
    let files = v["files"]
        .as_array()?
        .iter()
        .map(|f| {
            Some((
                f["path"].as_str()?.to_owned(),
                f["blob"].as_str()?.to_owned(),
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(RecordSummary {
        verdict: v["verdict"].as_str()?.to_owned(),
        date: v["date"].as_str()?.to_owned(),
        files,
    })
}
