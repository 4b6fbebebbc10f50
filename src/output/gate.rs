//! Renderings of the PRIOR_ART gate: human, short (one line per op, at most
//! 240 characters), JSON, and GitHub Actions workflow annotations.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::github::{Annotation, Level};
use super::json::{CheckJson, SourceJson};
use super::{cell, paint, role, stamp_phrase};
use crate::matrix::Matrix;
use crate::quote::quote;
use crate::surface::gate::{Advisory, Finding, GateReport, Silence};
use crate::surface::proofs::ProofState;

/// Longest line `--format short` prints.
pub const SHORT_MAX: usize = 240;

fn paths_phrase(paths: &[String]) -> String {
    match paths {
        [] => String::new(),
        [one] => quote(one).into_owned(),
        [first, rest @ ..] => format!("{} (+{} more)", quote(first), rest.len()),
    }
}

fn field(out: &mut String, name: &str, value: &str) {
    let _ = writeln!(out, "  {}{value}", cell(role::DIM, name, 9));
}

/// The human advisory for one change.
pub fn human(report: &GateReport<'_>) -> String {
    let mut out = String::new();
    let advisories = report.advisories();
    for a in &advisories {
        let _ = writeln!(
            out,
            "{} {} touches {} — {}",
            paint(role::NEXT, "PRIOR_ART:"),
            paths_phrase(&a.paths),
            paint(role::SLUG, &a.op.slug.value),
            a.op.title
        );
        field(&mut out, "read", &a.op.sota);
        if let Some(link) = &a.op.link {
            field(&mut out, "", &paint(role::LINK, &link.value));
        }
        match &a.op.route {
            Some(r) => field(
                &mut out,
                "route",
                &format!(
                    "{} — {}",
                    paint(role::ROUTE, r.value.name()),
                    r.value.meaning()
                ),
            ),
            None => field(&mut out, "route", &paint(role::DEBT, "undecided")),
        }
        match &a.op.oracle {
            Some(o) => field(&mut out, "oracle", o),
            None => field(
                &mut out,
                "oracle",
                &paint(role::DEBT, "none yet: a kernel with no oracle is not done"),
            ),
        }
        if let Some(p) = &a.proof {
            field(&mut out, "proof", &proof_phrase(p, &a.op.slug.value));
        }
        field(&mut out, "trailer", &paint(role::HEADING, &a.suggestion));
        out.push('\n');
    }
    // A trailer silences the prior-art advisory, not a proof the change
    // breaks (stale) or that failed. A proof never recorded is standing
    // debt the scorecard counts: said with the advisory, not on every
    // stamped commit.
    for a in report
        .touched
        .iter()
        .filter(|a| !advisories.iter().any(|b| std::ptr::eq(*b, *a)))
    {
        let breaks =
            |p: &&ProofState| matches!(p, ProofState::Stale { .. } | ProofState::Failing { .. });
        if let Some(p) = a.proof.as_ref().filter(breaks) {
            let _ = writeln!(
                out,
                "{} {} {}",
                paint(role::NEXT, "PROOF:"),
                paint(role::SLUG, &a.op.slug.value),
                proof_phrase(p, &a.op.slug.value)
            );
        }
    }
    if let Some(p) = &report.placeholder {
        let _ = writeln!(
            out,
            "{} `Prior-art: {}` (message line {}) is a placeholder and does not count: name what you read, or write `Prior-art: none found - <what is novel>; oracle <how it is checked>`",
            paint(role::DEBT, "placeholder:"),
            quote(&p.value),
            p.line
        );
    }
    if !report.unnamed.is_empty() {
        let _ = writeln!(
            out,
            "{} no `Prior-art:` trailer names {}: under --strict each touched op needs a trailer naming its slug, its reference or its link",
            paint(role::DEBT, "unnamed:"),
            report.unnamed.join(", ")
        );
    }
    if !advisories.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            paint(
                role::DIM,
                "Advisory: add the trailer line to the commit message to record what you consulted (or `Prior-art: none found - …; oracle …`)."
            )
        );
    }
    out
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// A proof state for a person: red unless it holds.
fn proof_phrase(p: &ProofState, slug: &str) -> String {
    let line = format!("{} — {}", p.name(), p.explain(slug));
    if p.holds() {
        line
    } else {
        paint(role::DEBT, &line)
    }
}

/// One line per op, at most [`SHORT_MAX`] characters, the suggested
/// trailer kept whole where possible.
pub fn short(report: &GateReport<'_>) -> String {
    let mut out = String::new();
    for a in report.advisories() {
        let head = format!("PRIOR_ART {}: {}", a.op.slug.value, paths_phrase(&a.paths));
        let link =
            a.op.link
                .as_ref()
                .map(|l| format!(" ({})", l.value))
                .unwrap_or_default();
        let route = a.op.route.as_ref().map_or("undecided", |r| r.value.name());
        let proof = match &a.proof {
            Some(p) if !p.holds() => format!(" · proof {}", p.name()),
            _ => String::new(),
        };
        let tail = format!("{proof} · {}", a.suggestion);
        let mut sota = a.op.sota.clone();
        let mut line = format!("{head} → read {sota}{link} · route {route}{tail}");
        // Shorten the prose before the actionable parts.
        while line.chars().count() > SHORT_MAX && sota.chars().count() > 24 {
            sota = clip(&sota, sota.chars().count() - 8);
            line = format!("{head} → read {sota}{link} · route {route}{tail}");
        }
        let _ = writeln!(out, "{}", clip(&line, SHORT_MAX));
    }
    if let Some(p) = &report.placeholder {
        let _ = writeln!(
            out,
            "{}",
            clip(
                &format!(
                    "PRIOR_ART placeholder: `Prior-art: {}` does not count",
                    quote(&p.value)
                ),
                SHORT_MAX
            )
        );
    }
    if !report.unnamed.is_empty() {
        let line = format!(
            "PRIOR_ART unnamed: no Prior-art: trailer names {}",
            report.unnamed.join(", ")
        );
        let _ = writeln!(out, "{}", clip(&line, SHORT_MAX));
    }
    out
}

fn gh_message(a: &Advisory<'_>) -> String {
    let mut m = format!("{} — read {}", a.op.title, a.op.sota);
    if let Some(link) = &a.op.link {
        let _ = write!(m, " ({})", link.value);
    }
    if let Some(r) = &a.op.route {
        let _ = write!(m, "\nroute: {}", r.value.name());
    }
    if let Some(o) = &a.op.oracle {
        let _ = write!(m, "\noracle: {o}");
    }
    if a.paths.len() > 1 {
        let files: Vec<_> = a.paths.iter().map(|p| quote(p)).collect();
        let _ = write!(m, "\nfiles: {}", files.join(", "));
    }
    if let Some(p) = &a.proof {
        let _ = write!(m, "\nproof: {} — {}", p.name(), p.explain(&a.op.slug.value));
    }
    let _ = write!(m, "\nadd to the commit message: {}", a.suggestion);
    m
}

/// GitHub Actions annotations, one per op, on the first matched file
/// (at the first line the staged change touches, when `lines` knows it),
/// capped per type ([`super::github::CAP`]). `prefix` turns root-relative
/// paths into repository-relative ones.
pub fn github(report: &GateReport<'_>, prefix: &str, lines: &BTreeMap<String, usize>) -> String {
    let annotations: Vec<Annotation> = report
        .advisories()
        .iter()
        .map(|a| {
            let first = a.paths.first().map(String::as_str).unwrap_or("");
            Annotation {
                level: Level::Warning,
                file: format!("{prefix}{}", quote(first)),
                line: lines.get(first).copied(),
                col: None,
                title: format!("PRIOR_ART {}", a.op.slug.value),
                message: gh_message(a),
            }
        })
        .collect();
    super::github::render(&annotations, "run `sota gate` for every advisory")
}

#[derive(Serialize)]
pub struct AdvisoryJson {
    pub slug: String,
    pub title: String,
    pub paths: Vec<String>,
    pub sota: String,
    pub link: Option<String>,
    pub route: Option<&'static str>,
    pub route_meaning: Option<&'static str>,
    pub oracle: Option<String>,
    pub check: Vec<CheckJson>,
    pub suggested_trailer: String,
}

impl AdvisoryJson {
    fn of(a: &Advisory<'_>) -> Self {
        AdvisoryJson {
            slug: a.op.slug.value.clone(),
            title: a.op.title.clone(),
            paths: a.paths.clone(),
            sota: a.op.sota.clone(),
            link: a.op.link.as_ref().map(|l| l.value.clone()),
            route: a.op.route.as_ref().map(|r| r.value.name()),
            route_meaning: a.op.route.as_ref().map(|r| r.value.meaning()),
            oracle: a.op.oracle.clone(),
            check: a
                .op
                .check
                .iter()
                .map(|c| CheckJson::of_entry(&c.value))
                .collect(),
            suggested_trailer: a.suggestion.clone(),
        }
    }
}

#[derive(Serialize)]
pub struct TrailerJson {
    pub value: String,
    pub line: usize,
}

#[derive(Serialize)]
pub struct SilenceJson {
    /// "staged-line" or "trailer".
    pub by: &'static str,
    pub trailer: Option<TrailerJson>,
}

#[derive(Serialize)]
pub struct GateJson {
    pub schema: crate::output::schema_id::SchemaId,
    pub source: SourceJson,
    /// "staged", "commit-msg" or "paths".
    pub mode: crate::command::gate::ModeKind,
    pub strict: bool,
    /// Ops the change touches (whether or not silenced), sorted by slug.
    pub touched: Vec<String>,
    pub silenced: Option<SilenceJson>,
    pub placeholder: Option<TrailerJson>,
    /// Whether `git interpret-trailers --parse` sees a Prior-art trailer in
    /// the message (null when no message was checked).
    pub git_sees_trailer: Option<bool>,
    /// What to print: empty when silenced.
    pub advisories: Vec<AdvisoryJson>,
    /// `--strict` with a valid trailer: the touched ops no trailer names
    /// (by slug, reference or link); empty otherwise.
    pub unnamed: Vec<String>,
    /// Each touched op with a `check` list: whether its proof record still
    /// holds for the change (shown whether or not a trailer silenced it).
    pub proofs: Vec<ProofJson>,
}

/// An op's proof state (`.sota/proofs/SLUG.json` against the change).
#[derive(Serialize)]
pub struct ProofJson {
    pub op: String,
    /// "proven", "stale", "failing" or "missing".
    pub state: &'static str,
    /// The record's date (null when there is none).
    pub date: Option<String>,
    /// Stale: the files that changed since the record.
    pub files: Vec<String>,
    /// What to do, for a person.
    pub message: String,
}

impl ProofJson {
    pub fn of(slug: &str, p: &ProofState) -> Self {
        ProofJson {
            op: slug.to_owned(),
            state: p.name(),
            date: p.date().map(str::to_owned),
            files: match p {
                ProofState::Stale { files, .. } => files.clone(),
                _ => Vec::new(),
            },
            message: p.explain(slug),
        }
    }
}

pub fn json(
    matrix: &Matrix,
    report: &GateReport<'_>,
    mode: crate::command::gate::ModeKind,
    strict: bool,
) -> GateJson {
    GateJson {
        schema: crate::output::schema_id::SchemaId::Gate,
        source: SourceJson::of(matrix),
        mode,
        strict,
        touched: report
            .touched
            .iter()
            .map(|a| a.op.slug.value.clone())
            .collect(),
        silenced: report.silenced.as_ref().map(|s| match s {
            Silence::StagedLine => SilenceJson {
                by: "staged-line",
                trailer: None,
            },
            Silence::Trailer(t) => SilenceJson {
                by: "trailer",
                trailer: Some(TrailerJson {
                    value: t.value.clone(),
                    line: t.line,
                }),
            },
        }),
        placeholder: report.placeholder.as_ref().map(|t| TrailerJson {
            value: t.value.clone(),
            line: t.line,
        }),
        git_sees_trailer: report.git_sees_trailer,
        advisories: report
            .advisories()
            .into_iter()
            .map(AdvisoryJson::of)
            .collect(),
        unnamed: report.unnamed.clone(),
        proofs: report
            .touched
            .iter()
            .filter_map(|a| a.proof.as_ref().map(|p| ProofJson::of(&a.op.slug.value, p)))
            .collect(),
    }
}

/// The gate could not check (`sota.gate-unchecked/v1`).
#[derive(Serialize)]
pub struct UncheckedJson {
    pub schema: crate::output::schema_id::SchemaId,
    pub reason: String,
    pub fix: Option<String>,
    /// `--strict` or CI: the run failed (exit 2) instead of letting the
    /// commit through.
    pub enforced: bool,
    /// The matrix's located problems, when it did not load.
    pub problems: Vec<super::json::ProblemJson>,
}

pub fn unchecked_json(u: &crate::command::gate::Unchecked) -> UncheckedJson {
    let problems = u
        .load_error
        .as_ref()
        .map(super::json::problems)
        .unwrap_or_default();
    UncheckedJson {
        schema: crate::output::schema_id::SchemaId::GateUnchecked,
        reason: u.reason.clone(),
        fix: u.fix.clone(),
        enforced: u.enforced,
        problems,
    }
}

/// A gate that could not check, as one annotation: an error when it
/// fails the run (`--strict`, CI), else a notice.
pub fn unchecked_github(u: &crate::command::gate::Unchecked) -> String {
    let mut msg = format!("could not check: {}", quote(&u.reason));
    if let Some(fix) = &u.fix {
        let _ = write!(msg, "\nfix: {fix}");
    }
    let level = if u.enforced { "error" } else { "notice" };
    format!("::{level} title=sota gate::{}\n", super::github::data(&msg))
}

/// The job summary of a gate that could not check.
pub fn unchecked_summary(u: &crate::command::gate::Unchecked) -> String {
    use super::markdown::cell as md;
    let mut out = format!(
        "## sota gate\n\n{} **Could not check**: {}\n",
        if u.enforced { "❌" } else { "⚠️" },
        md(&u.reason)
    );
    if let Some(fix) = &u.fix {
        let _ = writeln!(out, "\nFix: {}", md(fix));
    }
    out.push('\n');
    out
}

// ─── --range ────────────────────────────────────────────────────────────────

/// The first 10 characters of a hash (cut on a character boundary).
pub(crate) fn short_hash(h: &str) -> &str {
    h.char_indices().nth(10).map_or(h, |(i, _)| &h[..i])
}

fn slugs(f: &Finding<'_>) -> String {
    let all = f
        .touched
        .iter()
        .map(|a| a.op.slug.value.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if f.unnamed.is_empty() {
        all
    } else {
        format!("{all} (no trailer names {})", f.unnamed.join(", "))
    }
}

pub fn range_human(range: &str, findings: &[Finding<'_>]) -> String {
    let mut out = String::new();
    if findings.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "{} {} commit{} in {range} touch{} kernel files without a valid Prior-art: trailer\n",
        paint(role::NEXT, "PRIOR_ART:"),
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        if findings.len() == 1 { "es" } else { "" }
    );
    for f in findings {
        let _ = writeln!(
            out,
            "  {} {}",
            paint(role::SLUG, short_hash(&f.commit.hash)),
            quote(&f.commit.subject)
        );
        let _ = writeln!(
            out,
            "    {} · ops: {}",
            paint(role::DEBT, &stamp_phrase(&f.stamp)),
            slugs(f)
        );
        for a in &f.touched {
            let _ = writeln!(out, "    {}", paint(role::DIM, &a.suggestion));
        }
    }
    out
}

pub fn range_short(findings: &[Finding<'_>]) -> String {
    let mut out = String::new();
    for f in findings {
        let line = format!(
            "PRIOR_ART {} {}: {} · ops {}",
            short_hash(&f.commit.hash),
            quote(&f.commit.subject),
            stamp_phrase(&f.stamp),
            slugs(f)
        );
        let _ = writeln!(out, "{}", clip(&line, SHORT_MAX));
    }
    out
}

pub fn range_github(findings: &[Finding<'_>], prefix: &str) -> String {
    let mut annotations = Vec::new();
    for f in findings {
        let file = f
            .touched
            .first()
            .and_then(|a| a.paths.first())
            .map(String::as_str)
            .unwrap_or("");
        let mut msg = format!(
            "{} {}: {}",
            short_hash(&f.commit.hash),
            quote(&f.commit.subject),
            stamp_phrase(&f.stamp)
        );
        for a in &f.touched {
            let _ = write!(msg, "\n{}: {}", a.op.slug.value, a.suggestion);
        }
        annotations.push(Annotation {
            level: Level::Warning,
            file: format!("{prefix}{}", quote(file)),
            line: None,
            col: None,
            title: format!("PRIOR_ART {}", short_hash(&f.commit.hash)),
            message: msg,
        });
    }
    super::github::render(
        &annotations,
        "run `sota gate --range` with this range for every commit",
    )
}

/// The job summary of a change: each op that wants a trailer.
pub fn summary(report: &GateReport<'_>) -> String {
    use super::markdown::{cell as md, table};
    let advisories = report.advisories();
    let mut out = String::from("## sota gate\n\n");
    if advisories.is_empty() {
        out.push_str("✅ No kernel op in this change needs a `Prior-art:` trailer.\n\n");
        return out;
    }
    let _ = writeln!(
        out,
        "**{} kernel op{}** touched without a valid `Prior-art:` trailer:\n",
        advisories.len(),
        if advisories.len() == 1 { "" } else { "s" }
    );
    let rows: Vec<Vec<String>> = advisories
        .iter()
        .map(|a| {
            vec![
                format!("`{}`", md(&a.op.slug.value)),
                md(&a.paths.join(", ")),
                md(&a.op.sota),
                md(&a.suggestion),
            ]
        })
        .collect();
    out.push_str(&table(&["op", "files", "read", "suggested trailer"], &rows));
    out.push('\n');
    out
}

/// The job summary of a range: the unstamped commits.
pub fn range_summary(range: &str, findings: &[Finding<'_>]) -> String {
    use super::markdown::{cell as md, table, ROW_CAP};
    let mut out = format!("## sota gate — {}\n\n", md(range));
    if findings.is_empty() {
        out.push_str(
            "✅ Every commit that touches a kernel file carries a valid `Prior-art:` trailer.\n\n",
        );
        return out;
    }
    let _ = writeln!(
        out,
        "**{} commit{}** touch{} kernel files without a valid `Prior-art:` trailer:\n",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        if findings.len() == 1 { "es" } else { "" }
    );
    let rows: Vec<Vec<String>> = findings
        .iter()
        .take(ROW_CAP)
        .map(|f| {
            vec![
                format!("`{}`", short_hash(&f.commit.hash)),
                md(&f.commit.subject),
                md(&stamp_phrase(&f.stamp)),
                md(&slugs(f)),
            ]
        })
        .collect();
    out.push_str(&table(&["commit", "subject", "trailer", "ops"], &rows));
    if findings.len() > ROW_CAP {
        let _ = writeln!(out, "\n… and {} more.", findings.len() - ROW_CAP);
    }
    out.push_str("\nAmend the commits, or record the prior art in a follow-up commit with a `Prior-art:` trailer.\n\n");
    out
}

#[derive(Serialize)]
pub struct FindingJson {
    pub hash: String,
    pub subject: String,
    /// "placeholder" or "missing"; "valid" under `--strict` when a
    /// trailer leaves some op unnamed.
    pub stamp: &'static str,
    pub trailer: Option<String>,
    pub git_trailers: Vec<String>,
    pub ops: Vec<AdvisoryJson>,
    /// Under `--strict`: the touched ops no trailer names.
    pub unnamed: Vec<String>,
}

#[derive(Serialize)]
pub struct RangeJson {
    pub schema: crate::output::schema_id::SchemaId,
    pub source: SourceJson,
    pub range: String,
    pub strict: bool,
    pub commits: Vec<FindingJson>,
}

pub fn range_json(
    matrix: &Matrix,
    range: &str,
    strict: bool,
    findings: &[Finding<'_>],
) -> RangeJson {
    RangeJson {
        schema: crate::output::schema_id::SchemaId::GateRange,
        source: SourceJson::of(matrix),
        range: range.to_owned(),
        strict,
        commits: findings
            .iter()
            .map(|f| FindingJson {
                hash: f.commit.hash.clone(),
                subject: f.commit.subject.clone(),
                stamp: f.stamp.kind(),
                trailer: f.stamp.trailer().map(|t| t.value.clone()),
                git_trailers: f.commit.git_trailers.clone(),
                ops: f.touched.iter().map(AdvisoryJson::of).collect(),
                unnamed: f.unnamed.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_never_exceeds_the_limit() {
        let long = "x".repeat(500);
        assert_eq!(clip(&long, SHORT_MAX).chars().count(), SHORT_MAX);
        assert_eq!(clip("short", SHORT_MAX), "short");
    }
}
