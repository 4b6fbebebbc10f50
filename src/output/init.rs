//! Renderings of `sota init` (what was drafted, what is left, the next
//! steps) and `sota suggest` (per file: the op, the evidence, the edit), as
//! text for people and as JSON (`sota.init/v1`, `sota.suggest/v1`).

use std::fmt::Write as _;

use serde::Serialize;

use super::{paint, role};
use crate::quote::{escape, quote};
use crate::surface::init::signals::Evidence;
use crate::surface::init::{emit, Plan};
use crate::surface::suggest::{Edit, Report};

pub const INIT_SCHEMA: &str = super::schema_id::SchemaId::Init.id();
pub const SUGGEST_SCHEMA: &str = super::schema_id::SchemaId::Suggest.id();

/// How many uncovered files the human form lists.
pub const LIST_CAP: usize = 20;

/// The summary after drafting (`written` is the matrix path shown, or None
/// for a dry run).
pub fn init_human(plan: &Plan, written: Option<&str>) -> String {
    let mut out = String::new();
    match written {
        Some(path) => {
            let _ = writeln!(
                out,
                "{} wrote {} ({})",
                paint(role::HEADING, "sota init:"),
                quote(path),
                quote(&plan.name)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "{} dry run, nothing written ({})",
                paint(role::HEADING, "sota init:"),
                quote(&plan.name)
            );
        }
    }
    population(&mut out, plan);
    ops(&mut out, plan);
    unclassified(&mut out, plan);
    checks_and_ladders(&mut out, plan);
    let _ = writeln!(
        out,
        "  Routes and oracles are left undecided: each op's is debt in the scorecard until the team decides it."
    );
    let _ = writeln!(out, "Next:");
    let _ = writeln!(
        out,
        "  sota coverage              the scorecard of the draft: what is left to decide"
    );
    if !plan.unclassified.is_empty() {
        let _ = writeln!(
            out,
            "  sota suggest --uncovered   the kernel files left uncovered; place each with --op SLUG"
        );
    }
    if !plan.ladders.is_empty() {
        let _ = writeln!(
            out,
            "  sota milestones            the drafted ladders: where the field is, what comes next"
        );
    }
    let _ = writeln!(
        out,
        "  sota hook install          name the reference on every commit that touches a kernel"
    );
    out
}

/// The ops that carry the catalog's `check` list, and the ladders drafted.
fn checks_and_ladders(out: &mut String, plan: &Plan) {
    let checked = plan.ops.iter().filter(|o| !o.check.is_empty()).count();
    if checked > 0 {
        let _ = writeln!(
            out,
            "  {checked} of {} op{} {} the catalog's `check` list: `sota prove SLUG` runs on the draft.",
            plan.ops.len(),
            if plan.ops.len() == 1 { "" } else { "s" },
            if checked == 1 { "carries" } else { "carry" }
        );
    }
    if !plan.ladders.is_empty() {
        let axes: Vec<&str> = plan
            .ladders
            .iter()
            .map(|l| l.ladder.axis.value.as_str())
            .collect();
        let _ = writeln!(
            out,
            "  Ladders from the catalog, no rung claimed: {}.",
            axes.join(", ")
        );
    }
}

/// The tracked files, the kernel files by kind, what was left out.
fn population(out: &mut String, plan: &Plan) {
    let kinds: Vec<String> = plan
        .kinds
        .iter()
        .map(|(k, n)| format!("{} {n}", k.describe()))
        .collect();
    let _ = writeln!(
        out,
        "  {} tracked files; {} kernel file{}{}{}",
        plan.tracked_files,
        plan.kernels.len(),
        if plan.kernels.len() == 1 { "" } else { "s" },
        if kinds.is_empty() { "" } else { ": " },
        kinds.join(", ")
    );
    if !plan.skipped.is_empty() {
        let mut by_role: std::collections::BTreeMap<&str, usize> = Default::default();
        for s in &plan.skipped {
            *by_role.entry(s.role.name()).or_default() += 1;
        }
        let parts: Vec<String> = by_role.iter().map(|(r, n)| format!("{n} {r}")).collect();
        let _ = writeln!(
            out,
            "  left out of [kernels]: {} kernel-extension files ({})",
            plan.skipped.len(),
            parts.join(", ")
        );
    }
    if plan.kernels.is_empty() {
        let _ = writeln!(
            out,
            "  no kernel files found: the draft has no [kernels] and no ops (the scorecard then counts the default kernel extensions)"
        );
    } else {
        let _ = writeln!(
            out,
            "  {} of {} kernel file{} in {} op{}:",
            plan.covered(),
            plan.kernels.len(),
            if plan.kernels.len() == 1 { "" } else { "s" },
            plan.ops.len(),
            if plan.ops.len() == 1 { "" } else { "s" }
        );
    }
}

/// How many families of the tree's own the summary names.
const FAMILIES_SHOWN: usize = 6;

/// Each drafted catalog op: its file count and first globs; then the
/// families of the tree's own in one line.
fn ops(out: &mut String, plan: &Plan) {
    let (families, catalog): (Vec<_>, Vec<_>) = plan.ops.iter().partition(|o| o.family.is_some());
    let width = catalog.iter().map(|o| o.slug.len()).max().unwrap_or(0);
    for op in catalog {
        let shown: Vec<_> = op.files.iter().take(3).map(|g| quote(g)).collect();
        let globs = if op.files.len() > 3 {
            format!("{}, … ({} globs)", shown.join(", "), op.files.len())
        } else {
            shown.join(", ")
        };
        let _ = writeln!(
            out,
            "    {}  {:>4} file{}  {}",
            super::cell(role::SLUG, &op.slug, width),
            op.file_count,
            if op.file_count == 1 { " " } else { "s" },
            globs
        );
    }
    if families.is_empty() {
        return;
    }
    let files: usize = families.iter().map(|o| o.file_count).sum();
    let mut shown: Vec<String> = families
        .iter()
        .take(FAMILIES_SHOWN)
        .map(|o| format!("{} ({})", o.slug, o.file_count))
        .collect();
    if families.len() > FAMILIES_SHOWN {
        shown.push(format!("… {} more", families.len() - FAMILIES_SHOWN));
    }
    let _ = writeln!(
        out,
        "    and {files} files in {} famil{} of this tree's own, grouped by a shared name or as one computation's ports to several instruction sets (no catalog op; name each in the draft): {}",
        families.len(),
        if families.len() == 1 { "y" } else { "ies" },
        shown.join(", ")
    );
}

/// The kernel files no op took.
fn unclassified(out: &mut String, plan: &Plan) {
    if !plan.unclassified.is_empty() {
        let _ = writeln!(
            out,
            "  {} kernel file{} matched no op and stay{} uncovered (debt to decide):",
            plan.unclassified.len(),
            if plan.unclassified.len() == 1 {
                ""
            } else {
                "s"
            },
            if plan.unclassified.len() == 1 {
                "s"
            } else {
                ""
            }
        );
        for f in plan.unclassified.iter().take(LIST_CAP) {
            let _ = writeln!(out, "    {}", quote(f));
        }
        if plan.unclassified.len() > LIST_CAP {
            let _ = writeln!(out, "    … and {} more", plan.unclassified.len() - LIST_CAP);
        }
    }
}

#[derive(Serialize)]
struct InitJson<'a> {
    schema: &'static str,
    matrix: Option<&'a str>,
    written: bool,
    project: &'a str,
    reviewed: String,
    tracked_files: usize,
    kernel_files: usize,
    covered_files: usize,
    kinds: std::collections::BTreeMap<&'static str, usize>,
    include: &'a [String],
    exclude: &'a [String],
    ops: Vec<InitOpJson<'a>>,
    /// Every kernel file: its kind, its op (or null) and why.
    kernels: Vec<KernelJson<'a>>,
    unclassified: &'a [String],
    skipped: Vec<SkippedJson<'a>>,
    /// The catalog ladders drafted, and the ops that brought each in.
    ladders: Vec<LadderJson<'a>>,
    toml: String,
}

#[derive(Serialize)]
struct LadderJson<'a> {
    axis: &'a str,
    brought_by: &'a [String],
}

#[derive(Serialize)]
struct InitOpJson<'a> {
    slug: &'a str,
    title: &'a str,
    file_count: usize,
    files: &'a [String],
    at: &'a [String],
    sota: &'a str,
    link: Option<&'a str>,
    suggested_route: Option<&'a str>,
    suggested_oracle: Option<&'a str>,
    signals: Vec<SignalCount<'a>>,
    /// How many `check` entries the draft gives the op (the catalog's).
    check_entries: usize,
    /// Files placed on weak evidence only (a directory, a backend default, the repository's own op).
    weak_files: usize,
    /// The catalog's link when it was this repository (replaced by the next reference).
    #[serde(skip_serializing_if = "Option::is_none")]
    self_reference: Option<&'a str>,
    /// A family of the tree's own (no catalog op): the word its files' names share.
    #[serde(skip_serializing_if = "Option::is_none")]
    family: Option<&'a str>,
}

#[derive(Serialize)]
struct KernelJson<'a> {
    path: &'a str,
    kind: &'static str,
    op: Option<&'a str>,
    evidence: &'a [Evidence],
}

#[derive(Serialize)]
struct SignalCount<'a> {
    signal: &'a str,
    files: usize,
}

#[derive(Serialize)]
struct SkippedJson<'a> {
    path: &'a str,
    role: &'static str,
    /// For infrastructure: what the file is.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
}

/// The plan as JSON (`matrix` is the path written, or None for a dry run).
pub fn init_json(plan: &Plan, matrix: Option<&str>) -> String {
    let payload = InitJson {
        schema: INIT_SCHEMA,
        matrix,
        written: matrix.is_some(),
        project: &plan.name,
        reviewed: plan.today.to_string(),
        tracked_files: plan.tracked_files,
        kernel_files: plan.kernels.len(),
        covered_files: plan.covered(),
        kinds: plan.kinds.iter().map(|(k, n)| (k.name(), *n)).collect(),
        include: &plan.include,
        exclude: &plan.exclude,
        ops: plan
            .ops
            .iter()
            .map(|o| InitOpJson {
                slug: &o.slug,
                title: &o.title,
                file_count: o.file_count,
                files: &o.files,
                at: &o.at,
                sota: &o.sota,
                link: o.link.as_deref(),
                suggested_route: o.suggested_route.as_deref(),
                suggested_oracle: o.suggested_oracle.as_deref(),
                signals: o
                    .signals
                    .iter()
                    .map(|(s, n)| SignalCount {
                        signal: s,
                        files: *n,
                    })
                    .collect(),
                check_entries: o.check.len(),
                weak_files: o.weak,
                self_reference: o.self_reference.as_deref(),
                family: o.family.as_deref(),
            })
            .collect(),
        kernels: plan
            .kernels
            .iter()
            .map(|k| KernelJson {
                path: &k.path,
                kind: k.kind.name(),
                op: k.op.as_deref(),
                evidence: &k.evidence,
            })
            .collect(),
        unclassified: &plan.unclassified,
        skipped: plan
            .skipped
            .iter()
            .map(|s| SkippedJson {
                path: &s.path,
                role: s.role.name(),
                reason: s.reason,
            })
            .collect(),
        ladders: plan
            .ladders
            .iter()
            .map(|l| LadderJson {
                axis: &l.ladder.axis.value,
                brought_by: &l.brought_by,
            })
            .collect(),
        toml: emit::toml(plan),
    };
    super::json::to_string(&payload)
}

/// The edit as the user would type it.
pub fn edit_text(edit: &Edit) -> String {
    let globs: Vec<String> = edit.add_files.iter().map(|g| emit::quote(g)).collect();
    if edit.new_row {
        let mut s = format!(
            "[[op]]\nslug = {}\ntitle = {}\nfiles = [{}]\nsota = {}\n",
            emit::quote(&edit.slug),
            emit::quote(&edit.title),
            globs.join(", "),
            emit::quote(&edit.sota)
        );
        if let Some(link) = &edit.link {
            let _ = writeln!(s, "link = {}", emit::quote(link));
        }
        s
    } else {
        let mut s = String::new();
        if !edit.remove_files.is_empty() {
            let gone: Vec<String> = edit.remove_files.iter().map(|g| emit::quote(g)).collect();
            let _ = writeln!(
                s,
                "[[op]] slug = {}: files -= [{}]",
                emit::quote(&edit.slug),
                gone.join(", ")
            );
        }
        if !globs.is_empty() {
            let _ = writeln!(
                s,
                "[[op]] slug = {}: files += [{}]",
                emit::quote(&edit.slug),
                globs.join(", ")
            );
        }
        s
    }
}

/// A ladder `--ladder` brings in, as the edit shows it.
fn ladder_text(ladder: &crate::matrix::Ladder) -> String {
    let rungs: Vec<String> = ladder
        .rungs
        .iter()
        .map(|r| format!("{} ({})", r.name, r.year))
        .collect();
    format!(
        "[[ladder]] axis = {}: {} rungs, none reached: {}\n",
        emit::quote(&ladder.axis.value),
        ladder.rungs.len(),
        rungs.join(" → ")
    )
}

/// `apply` says how the edits get into the matrix: the CLI's flag, or for
/// a read-only front end (MCP) the command to run.
pub fn suggest_human(report: &Report, matrix_name: &str, apply: &str) -> String {
    let mut out = String::new();
    if report.suggestions.is_empty() && report.ladders.is_empty() {
        let _ = writeln!(
            out,
            "every kernel file is covered by an op of {matrix_name}; nothing to suggest"
        );
        return out;
    }
    for s in &report.suggestions {
        let _ = writeln!(out, "{}", paint(role::HEADING, &quote(&s.file)));
        if !s.exists {
            let _ = writeln!(out, "  not found under the matrix root");
        }
        if !s.covered_by.is_empty() && s.proposal.is_none() {
            let _ = writeln!(out, "  already covered by {}", s.covered_by.join(", "));
            continue;
        }
        match &s.proposal {
            Some(p) => {
                let whence = match (&p.catalog, p.existing_row) {
                    (_, true) => "row in the matrix".to_owned(),
                    _ if p.custom => "a new custom op".to_owned(),
                    (Some(c), false) if c != crate::catalog::PSEUDO_PATH => {
                        format!("from the team catalog {}", quote(c))
                    }
                    _ => "from the catalog".to_owned(),
                };
                let _ = writeln!(
                    out,
                    "  -> {} ({whence}): {}",
                    paint(role::SLUG, &p.slug),
                    p.title
                );
                let leaving: Vec<&String> = s.covered_by.iter().filter(|c| **c != p.slug).collect();
                if p.asked {
                    let _ = writeln!(out, "     asked for with --op");
                } else {
                    let ev: Vec<String> = p.evidence.iter().map(Evidence::to_string).collect();
                    let _ = writeln!(out, "     evidence: {}", ev.join(", "));
                }
                if !leaving.is_empty() {
                    let from: Vec<&str> = leaving.iter().map(|s| s.as_str()).collect();
                    let _ = writeln!(out, "     moves out of {}", from.join(", "));
                }
                if !p.glob.is_empty() {
                    let _ = writeln!(out, "     glob: {}", quote(&p.glob));
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "  no op has enough evidence: place it with `sota suggest FILE --op SLUG`, or leave it as debt"
                );
            }
        }
    }
    if !report.edits.is_empty() || !report.ladders.is_empty() {
        let _ = writeln!(out, "\nEdits to {matrix_name} ({apply}):");
        let texts = report.edits.iter().map(edit_text);
        for text in texts.chain(report.ladders.iter().map(ladder_text)) {
            for line in text.lines() {
                let _ = writeln!(out, "  {}", escape(line));
            }
        }
    }
    out
}

#[derive(Serialize)]
struct SuggestJson<'a> {
    schema: &'static str,
    matrix: &'a str,
    written: bool,
    suggestions: Vec<SuggestionJson<'a>>,
    edits: Vec<EditJson<'a>>,
    /// Axes of the catalog ladders brought in (`--ladder`).
    ladders: Vec<&'a str>,
}

#[derive(Serialize)]
struct SuggestionJson<'a> {
    file: &'a str,
    kind: Option<&'static str>,
    exists: bool,
    covered_by: &'a [String],
    proposal: Option<ProposalJson<'a>>,
}

#[derive(Serialize)]
struct ProposalJson<'a> {
    op: &'a str,
    title: &'a str,
    existing_row: bool,
    /// The catalog the row comes from; null for the matrix's own row.
    catalog: Option<&'a str>,
    score: u32,
    evidence: &'a [Evidence],
    glob: &'a str,
    asked: bool,
}

#[derive(Serialize)]
struct EditJson<'a> {
    op: &'a str,
    new_row: bool,
    add_files: &'a [String],
    remove_files: &'a [String],
    text: String,
}

pub fn suggest_json(report: &Report, matrix_name: &str, written: bool) -> String {
    let payload = SuggestJson {
        schema: SUGGEST_SCHEMA,
        matrix: matrix_name,
        written,
        suggestions: report
            .suggestions
            .iter()
            .map(|s| SuggestionJson {
                file: &s.file,
                kind: s.kind.map(|k| k.name()),
                exists: s.exists,
                covered_by: &s.covered_by,
                proposal: s.proposal.as_ref().map(|p| ProposalJson {
                    op: &p.slug,
                    title: &p.title,
                    existing_row: p.existing_row,
                    catalog: p.catalog.as_deref(),
                    score: p.score,
                    evidence: &p.evidence,
                    glob: &p.glob,
                    asked: p.asked,
                }),
            })
            .collect(),
        edits: report
            .edits
            .iter()
            .map(|e| EditJson {
                op: &e.slug,
                new_row: e.new_row,
                add_files: &e.add_files,
                remove_files: &e.remove_files,
                text: edit_text(e),
            })
            .collect(),
        ladders: report
            .ladders
            .iter()
            .map(|l| l.axis.value.as_str())
            .collect(),
    };
    super::json::to_string(&payload)
}
