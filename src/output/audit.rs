//! Renderings of the trailer audit: a human summary and the JSON payload
//! (one object per kernel-touching commit plus the summary).

use std::fmt::Write as _;

use serde::Serialize;

use super::json::SourceJson;
use super::{cell, paint, role, stamp_phrase};
use crate::matrix::Matrix;
use crate::quote::quote;
use crate::surface::audit::{Audited, Report, Start, Tally};

/// How many recent unstamped commits the summary names.
pub const RECENT: usize = 10;

fn pct(t: &Tally) -> String {
    format!("{:.0}%", t.compliance() * 100.0)
}

/// Where the history starts, as a sentence for the header (`None` for an
/// explicit range, which the header names already).
pub fn start_phrase(start: &Start) -> Option<String> {
    const ALL: &str = "`--all` reads everything";
    Some(match start {
        Start::All => "all history (--all)".to_owned(),
        Start::Range => return None,
        Start::Since(s) => format!("history since {} (--since)", quote(s)),
        Start::Adopted(d) => {
            format!("history since adoption on {d} (`[project] adopted`); {ALL}")
        }
        Start::Added { hash, date, file } => format!(
            "history since adoption on {date}, when {} added {}; {ALL}",
            super::gate::short_hash(hash),
            quote(file)
        ),
        Start::Uncommitted { file } => format!(
            "all history: {} is in no commit yet, so adoption has no date",
            quote(file)
        ),
    })
}

/// The job summary: compliance overall, by month and per op, and the
/// recent commits without a valid trailer.
pub fn summary(matrix: &Matrix, range: &str, shallow: bool, report: &Report) -> String {
    use super::markdown::cell as md;
    let o = &report.overall;
    let mut out = format!(
        "## sota audit — {} ({})\n\n",
        md(&matrix.project.name),
        md(range)
    );
    if let Some(start) = start_phrase(&report.start) {
        let _ = writeln!(out, "{}\n", md(&start));
    }
    if shallow {
        out.push_str("> **History is cut**: a shallow clone; older commits are not counted (`fetch-depth: 0` in actions/checkout).\n\n");
    }
    let _ = writeln!(
        out,
        "**Compliance {}** · {} kernel commit{} of {} read · {} stamped · {} placeholder · {} without a trailer\n",
        pct(o),
        o.commits,
        if o.commits == 1 { "" } else { "s" },
        report.scanned,
        o.stamped,
        o.placeholder,
        o.missing
    );
    if o.commits == 0 {
        return out;
    }
    summary_tables(&mut out, report);
    out.push('\n');
    out
}

/// The summary's tables: by month, per op, recent unstamped commits.
fn summary_tables(out: &mut String, report: &Report) {
    use super::markdown::{cell as md, table};
    let tally_row = |key: String, t: &Tally| {
        vec![
            key,
            t.commits.to_string(),
            t.stamped.to_string(),
            t.placeholder.to_string(),
            t.missing.to_string(),
            pct(t),
        ]
    };
    let header = [
        "",
        "commits",
        "stamped",
        "placeholder",
        "missing",
        "compliance",
    ];
    out.push_str("### By month\n\n");
    let rows: Vec<Vec<String>> = report
        .by_month
        .iter()
        .map(|(m, t)| tally_row(md(m), t))
        .collect();
    let mut h = header;
    h[0] = "month";
    out.push_str(&table(&h, &rows));
    out.push_str("\n### Per op\n\n");
    let rows: Vec<Vec<String>> = report
        .per_op
        .iter()
        .map(|(op, t)| tally_row(md(op), t))
        .collect();
    h[0] = "op";
    out.push_str(&table(&h, &rows));
    let recent = report.recent_unstamped(RECENT);
    if !recent.is_empty() {
        out.push_str("\n### Recent commits without a valid trailer\n\n");
        let rows: Vec<Vec<String>> = recent
            .iter()
            .map(|c| {
                vec![
                    format!("`{}`", super::gate::short_hash(&c.hash)),
                    md(&c.date),
                    md(&c.subject),
                    md(&stamp_phrase(&c.stamp)),
                    md(&c.ops.join(", ")),
                ]
            })
            .collect();
        out.push_str(&table(
            &["commit", "date", "subject", "trailer", "ops"],
            &rows,
        ));
    }
}

pub fn human(matrix: &Matrix, range: &str, shallow: bool, report: &Report) -> String {
    let mut out = String::new();
    let o = &report.overall;
    let _ = writeln!(
        out,
        "{} — {} ({}), {range}: {} commit{} read, {} of them touched kernel files",
        paint(role::HEADING, "sota audit"),
        matrix.project.name,
        matrix.display_name(),
        report.scanned,
        if report.scanned == 1 { "" } else { "s" },
        o.commits
    );
    if let Some(start) = start_phrase(&report.start) {
        let _ = writeln!(out, "{}", paint(role::DIM, &start));
    }
    if shallow {
        let _ = writeln!(
            out,
            "{}",
            paint(
                role::DEBT,
                "history is cut: this is a shallow clone, older commits are not counted"
            )
        );
    }
    if o.commits == 0 {
        let _ = writeln!(
            out,
            "\nno commit in this range touched a file some op's `files` match"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "\n  compliance {} · {} stamped · {} placeholder · {} without a trailer\n",
        paint(
            if o.stamped == o.commits {
                role::REACHED
            } else {
                role::NEXT
            },
            &pct(o)
        ),
        o.stamped,
        o.placeholder,
        o.missing
    );
    if let Some(line) = proof_line(report) {
        let _ = writeln!(out, "  {line}\n");
    }
    per_op_lines(&mut out, report);
    month_and_recent_lines(&mut out, report);
    out
}

/// How many kernel commits to ops with checks a proof record followed
/// (`None` when no op has a `check` list in this history).
pub fn proof_line(report: &Report) -> Option<String> {
    (report.proof_wanted > 0).then(|| {
        format!(
            "proofs: {} of {} kernel changes to ops with a `check` list were followed by a proof record (.sota/proofs/, this commit or a later one)",
            report.proof_followed, report.proof_wanted
        )
    })
}

/// The per-op table of the human audit.
fn per_op_lines(out: &mut String, report: &Report) {
    let w = report
        .per_op
        .keys()
        .map(|k| k.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(out, "  {}", paint(role::HEADING, "per op"));
    let _ = writeln!(
        out,
        "    {}  {:>7}  {:>7}  {:>11}  {:>7}  {:>10}",
        cell(role::DIM, "op", w),
        "commits",
        "stamped",
        "placeholder",
        "missing",
        "compliance"
    );
    for (slug, t) in &report.per_op {
        let _ = writeln!(
            out,
            "    {}  {:>7}  {:>7}  {:>11}  {:>7}  {:>10}",
            cell(role::SLUG, slug, w),
            t.commits,
            t.stamped,
            t.placeholder,
            t.missing,
            pct(t)
        );
    }
}

/// The by-month bars and the most recent unstamped commits.
fn month_and_recent_lines(out: &mut String, report: &Report) {
    let _ = writeln!(out, "\n  {}", paint(role::HEADING, "by month"));
    for (month, t) in &report.by_month {
        let bar = "#".repeat((t.compliance() * 20.0).round() as usize);
        let _ = writeln!(
            out,
            "    {month}  {:>5} commits  {:>4}  {bar}",
            t.commits,
            pct(t)
        );
    }
    let recent = report.recent_unstamped(RECENT);
    if !recent.is_empty() {
        let _ = writeln!(
            out,
            "\n  {}",
            paint(
                role::HEADING,
                "most recent kernel commits without a valid trailer"
            )
        );
        for c in recent {
            let _ = writeln!(
                out,
                "    {} {}  {}  {} · {}",
                paint(role::SLUG, super::gate::short_hash(&c.hash)),
                c.date,
                quote(&c.subject),
                paint(role::DEBT, &stamp_phrase(&c.stamp)),
                c.ops.join(", ")
            );
        }
    }
}

#[derive(Serialize)]
pub struct TallyJson {
    pub commits: usize,
    pub stamped: usize,
    pub placeholder: usize,
    pub missing: usize,
    pub compliance: f64,
}

impl TallyJson {
    fn of(t: &Tally) -> Self {
        TallyJson {
            commits: t.commits,
            stamped: t.stamped,
            placeholder: t.placeholder,
            missing: t.missing,
            compliance: (t.compliance() * 1e4).round() / 1e4,
        }
    }
}

#[derive(Serialize)]
pub struct KeyedTally {
    pub key: String,
    #[serde(flatten)]
    pub tally: TallyJson,
}

#[derive(Serialize)]
pub struct CommitJson<'a> {
    pub hash: &'a str,
    pub date: &'a str,
    pub subject: &'a str,
    pub ops: &'a [String],
    pub paths: &'a [String],
    /// "valid", "placeholder" or "missing".
    pub stamp: &'static str,
    pub trailer: Option<&'a str>,
    /// `Prior-art` values git's own trailer parser sees.
    pub git_trailers: &'a [String],
    /// Each touched op with a `check` list: the commit (this one or a
    /// later one) that wrote its proof record, or null.
    pub proofs: Vec<CommitProofJson<'a>>,
}

#[derive(Serialize)]
pub struct CommitProofJson<'a> {
    pub op: &'a str,
    pub proved_in: Option<&'a str>,
}

impl<'a> CommitJson<'a> {
    fn of(c: &'a Audited) -> Self {
        CommitJson {
            hash: &c.hash,
            date: &c.date,
            subject: &c.subject,
            ops: &c.ops,
            paths: &c.paths,
            stamp: c.stamp.kind(),
            trailer: c.stamp.trailer().map(|t| t.value.as_str()),
            git_trailers: &c.git_trailers,
            proofs: c
                .proofs
                .iter()
                .map(|(op, by)| CommitProofJson {
                    op,
                    proved_in: by.as_deref(),
                })
                .collect(),
        }
    }
}

/// Where the history starts (SPEC 3.5).
#[derive(Serialize)]
pub struct StartJson {
    /// "matrix-added" (the default: the commit that added the matrix),
    /// "adopted" (`[project] adopted`), "since", "range", "all" or
    /// "uncommitted" (the matrix is in no commit: all history).
    pub kind: &'static str,
    /// The first day counted, when history is cut by date.
    pub date: Option<String>,
    /// The commit that added the matrix ("matrix-added").
    pub commit: Option<String>,
}

#[derive(Serialize)]
pub struct AuditJson<'a> {
    pub schema: crate::output::schema_id::SchemaId,
    pub source: SourceJson,
    pub range: &'a str,
    pub start: StartJson,
    /// True when the repository is a shallow clone: history is cut.
    pub shallow: bool,
    pub scanned: usize,
    pub summary: TallyJson,
    pub per_op: Vec<KeyedTally>,
    pub by_month: Vec<KeyedTally>,
    pub recent_unstamped: Vec<&'a str>,
    /// Kernel changes (commit × op with a `check` list) and how many a
    /// proof record followed.
    pub proofs: ProofTallyJson,
    pub commits: Vec<CommitJson<'a>>,
}

#[derive(Serialize)]
pub struct ProofTallyJson {
    pub changes: usize,
    pub followed_by_proof: usize,
}

pub fn json<'a>(
    matrix: &Matrix,
    range: &'a str,
    shallow: bool,
    report: &'a Report,
) -> AuditJson<'a> {
    let keyed = |m: &std::collections::BTreeMap<String, Tally>| {
        m.iter()
            .map(|(k, t)| KeyedTally {
                key: k.clone(),
                tally: TallyJson::of(t),
            })
            .collect()
    };
    AuditJson {
        schema: crate::output::schema_id::SchemaId::Audit,
        source: SourceJson::of(matrix),
        range,
        start: StartJson {
            kind: report.start.kind(),
            date: report.start.date(),
            commit: match &report.start {
                Start::Added { hash, .. } => Some(hash.clone()),
                _ => None,
            },
        },
        shallow,
        scanned: report.scanned,
        summary: TallyJson::of(&report.overall),
        per_op: keyed(&report.per_op),
        by_month: keyed(&report.by_month),
        recent_unstamped: report
            .recent_unstamped(RECENT)
            .iter()
            .map(|c| c.hash.as_str())
            .collect(),
        proofs: ProofTallyJson {
            changes: report.proof_wanted,
            followed_by_proof: report.proof_followed,
        },
        commits: report.commits.iter().map(CommitJson::of).collect(),
    }
}
