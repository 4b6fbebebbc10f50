//! Human-readable renderings: aligned, styled by role, deterministic.

use std::fmt::Write as _;

use super::{cell, paint, role, width};
use crate::matrix::{Matrix, Op, Origin};
use crate::quote::quote;
use crate::surface::lookup::{FileHit, NotFound, SearchHit};
use crate::surface::milestones::{LadderView, Mark, RungView};

const UNDECIDED: &str = "undecided";

/// `sota list`: every op, sorted by slug. With a terminal `width`, the
/// title and SOTA columns are cut (`…`) so no row wraps.
pub fn list(matrix: &Matrix, width_limit: Option<usize>) -> String {
    let ops = matrix.ops_sorted();
    let mut out = String::new();
    if ops.is_empty() {
        out.push_str("no ops in the matrix yet: add an [[op]] row (see `sota schema`)\n");
        return out;
    }
    let w_slug = ops
        .iter()
        .map(|o| width(&o.slug.value))
        .max()
        .unwrap_or(0)
        .max(4);
    let mut w_title = ops
        .iter()
        .map(|o| width(&o.title))
        .max()
        .unwrap_or(0)
        .max(5);
    let w_route = if matrix.origin == Origin::Catalog {
        0
    } else {
        "stay-minimal".len()
    };
    // What is left of the line for the title and the SOTA columns.
    let mut w_sota = usize::MAX;
    if let Some(total) = width_limit {
        let fixed = w_slug + 2 + if w_route > 0 { w_route + 2 } else { 0 };
        let avail = total.saturating_sub(fixed);
        const MIN_SOTA: usize = 16;
        if w_title + 2 + MIN_SOTA > avail {
            w_title = avail.saturating_sub(2 + MIN_SOTA).clamp(8, w_title);
        }
        w_sota = avail.saturating_sub(w_title + 2).max(8);
    }
    let _ = write!(
        out,
        "{}  {}  ",
        cell(role::HEADING, "SLUG", w_slug),
        cell(role::HEADING, "TITLE", w_title)
    );
    if w_route > 0 {
        let _ = write!(out, "{}  ", cell(role::HEADING, "ROUTE", w_route));
    }
    let _ = writeln!(out, "{}", paint(role::HEADING, "SOTA"));
    for op in &ops {
        let _ = write!(
            out,
            "{}  {}  ",
            cell(role::SLUG, &op.slug.value, w_slug),
            cell(
                role::PLAIN,
                &super::wrap::truncate(&op.title, w_title),
                w_title
            )
        );
        if w_route > 0 {
            match &op.route {
                Some(r) => {
                    let _ = write!(out, "{}  ", cell(role::ROUTE, r.value.name(), w_route));
                }
                None => {
                    let _ = write!(out, "{}  ", cell(role::DEBT, UNDECIDED, w_route));
                }
            }
        }
        let _ = writeln!(out, "{}", super::wrap::truncate(&op.sota, w_sota));
    }
    let _ = writeln!(
        out,
        "\n{} op{} · `sota <slug>` shows one in full · `sota <file>` finds the op for a file",
        ops.len(),
        if ops.len() == 1 { "" } else { "s" }
    );
    out
}

/// One op in full.
pub fn op(matrix: &Matrix, op: &Op) -> String {
    let mut out = String::new();
    op_into(&mut out, matrix, op, None);
    out
}

fn field(out: &mut String, name: &str, lines: &[String]) {
    for (i, line) in lines.iter().enumerate() {
        let label = if i == 0 { name } else { "" };
        // A continuation line starts with its value: quote one that the
        // CI runner would read as a workflow command.
        let line = if i == 0 { line.into() } else { quote(line) };
        let _ = writeln!(out, "  {}{line}", cell(role::DIM, label, 9));
    }
}

fn op_into(out: &mut String, matrix: &Matrix, op: &Op, matched_by: Option<&str>) {
    let _ = writeln!(
        out,
        "{} — {}",
        paint(role::SLUG, &op.slug.value),
        paint(role::HEADING, &op.title)
    );
    if let Some(glob) = matched_by {
        field(out, "matched", &[format!("by `{glob}`")]);
    }
    let mut where_lines: Vec<String> = op.at.iter().map(|a| a.value.to_string()).collect();
    if let Some(w) = &op.where_ {
        where_lines.push(w.clone());
    }
    if !where_lines.is_empty() {
        field(out, "where", &where_lines);
    }
    if !op.files.is_empty() {
        let globs: Vec<&str> = op.files.iter().map(|g| g.value.as_str()).collect();
        field(out, "files", &[globs.join(", ")]);
    }
    field(out, "sota", std::slice::from_ref(&op.sota));
    match &op.link {
        Some(link) => field(out, "read", &[paint(role::LINK, &link.value)]),
        None => field(
            out,
            "read",
            &[paint(
                role::DEBT,
                "no link yet (debt): add `link = \"https://…\"`",
            )],
        ),
    }
    for sup in &op.superseded {
        // `superseded` in the matrix; a label fits the 8-column gutter.
        field(
            out,
            "replaced",
            &[format!(
                "{} → {}",
                paint(role::LINK, &sup.link),
                paint(role::LINK, &sup.by)
            )],
        );
    }
    route_field(out, matrix, op);
    if let Some(note) = &op.note {
        field(out, "note", std::slice::from_ref(note));
    }
    oracle_fields(out, matrix, op);
}

/// The op's oracle, checks, witnesses, papers, the ladders it witnesses,
/// and, for a catalog row, when it was checked and which catalog holds it.
fn oracle_fields(out: &mut String, matrix: &Matrix, op: &Op) {
    match &op.oracle {
        Some(oracle) => field(out, "oracle", std::slice::from_ref(oracle)),
        None => field(
            out,
            "oracle",
            &[paint(
                role::DEBT,
                "none yet (debt): a kernel with no oracle is not done",
            )],
        ),
    }
    if !op.check.is_empty() {
        let checks: Vec<String> = op.check.iter().map(|c| c.value.to_string()).collect();
        field(out, "check", &[checks.join(", ")]);
    }
    if !op.witness.is_empty() {
        let w: Vec<String> = op.witness.iter().map(|a| a.value.to_string()).collect();
        field(out, "witness", &w);
    }
    if !op.papers.is_empty() {
        field(out, "papers", &op.papers);
    }
    for ladder in matrix.ladders_witnessed_by(&op.slug.value) {
        let view = LadderView::new(ladder, true);
        let at = match &view.reached {
            Some(r) => format!("witnesses L{} {}", r.level, r.rung.name),
            None => "witness".to_owned(),
        };
        field(
            out,
            "ladder",
            &[format!(
                "{} ({at}) — `sota milestones {}`",
                paint(role::SLUG, view.axis()),
                view.axis()
            )],
        );
    }
    if let Some(checked) = &op.checked {
        field(
            out,
            "checked",
            &[format!(
                "{} (last checked against the field)",
                checked.value
            )],
        );
    }
    if matrix.origin == Origin::Catalog {
        field(out, "catalog", &[catalog_name(op.team.as_deref())]);
    }
}

/// The route line: the project's decision, or the catalog's suggestion.
fn route_field(out: &mut String, matrix: &Matrix, op: &Op) {
    if matrix.origin == Origin::Project {
        match &op.route {
            Some(r) => field(
                out,
                "route",
                &[format!(
                    "{} — {}",
                    paint(role::ROUTE, r.value.name()),
                    r.value.meaning()
                )],
            ),
            None => field(
                out,
                "route",
                &[paint(
                    role::DEBT,
                    "undecided (debt): borrow | bind | stay-minimal",
                )],
            ),
        }
    } else if let Some(r) = &op.route {
        // The catalog's route is a suggestion; the project decides its own.
        field(
            out,
            "route",
            &[format!(
                "{} (suggested) — {}",
                paint(role::ROUTE, r.value.name()),
                r.value.meaning()
            )],
        );
    }
}

/// Which catalog answered: a team catalog by its file, else the built-in one.
pub fn catalog_name(team: Option<&crate::matrix::TeamSource>) -> String {
    match team {
        Some(team) => format!("team catalog {}", quote(&team.name)),
        None => crate::catalog::PSEUDO_PATH.to_owned(),
    }
}

/// The ops covering one file.
pub fn file_hits(matrix: &Matrix, path: &str, hits: &[FileHit<'_>]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is covered by {} op{}\n",
        paint(role::HEADING, &quote(path)),
        hits.len(),
        if hits.len() == 1 { "" } else { "s" }
    );
    for (i, hit) in hits.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        op_into(&mut out, matrix, hit.op, Some(hit.glob));
    }
    out
}

/// Ranked search results. A single hit is shown in full.
pub fn search(matrix: &Matrix, query: &str, hits: &[SearchHit<'_>]) -> String {
    let mut out = String::new();
    if let [only] = hits {
        let _ = writeln!(
            out,
            "{}\n",
            paint(role::DIM, &format!("best match for {}:", quoted(query)))
        );
        op_into(&mut out, matrix, only.op, None);
        return out;
    }
    let _ = writeln!(
        out,
        "{} ops match {}, best first:\n",
        hits.len(),
        quoted(query)
    );
    let w = hits
        .iter()
        .map(|h| width(&h.op.slug.value))
        .max()
        .unwrap_or(0);
    for hit in hits {
        let _ = writeln!(
            out,
            "  {}  {} — {}",
            cell(role::SLUG, &hit.op.slug.value, w),
            hit.op.title,
            hit.op.sota
        );
    }
    let _ = writeln!(out, "\n`sota <slug>` shows one in full");
    out
}

/// Nothing matched (printed to stderr).
pub fn not_found(nf: &NotFound<'_>) -> String {
    let mut out = String::new();
    match &nf.path {
        Some(path) => {
            let _ = writeln!(
                out,
                "no op covers `{}` and no op matches {}",
                quote(path),
                quoted(&nf.query)
            );
        }
        None => {
            let _ = writeln!(out, "no op matches {}", quoted(&nf.query));
        }
    }
    match nf.did_you_mean.as_slice() {
        [] => {}
        [one] => {
            let _ = writeln!(out, "did you mean `{one}`?");
        }
        many => {
            let quoted: Vec<String> = many.iter().map(|s| format!("`{s}`")).collect();
            let _ = writeln!(out, "did you mean {}?", quoted.join(" or "));
        }
    }
    if nf.slugs.is_empty() {
        let _ = writeln!(out, "the matrix has no ops yet");
    } else {
        let _ = writeln!(out, "ops: {}", nf.slugs.join(", "));
    }
    if nf.path.is_some() {
        let _ = writeln!(
            out,
            "to cover the file, add its glob to an op's `files` in sota.toml"
        );
    }
    out
}

/// Text shown in double quotes: quoted (escaped) when it needs it, else
/// plainly wrapped.
fn quoted(text: &str) -> String {
    match quote(text) {
        std::borrow::Cow::Borrowed(t) => format!("\"{t}\""),
        std::borrow::Cow::Owned(q) => q,
    }
}

fn rung_label(r: &RungView<'_>) -> String {
    format!("L{} {} ({})", r.level, r.rung.name, r.rung.year)
}

/// `sota milestones`: one row per ladder.
pub fn milestones_overview(matrix: &Matrix, views: &[LadderView<'_>]) -> String {
    let mut out = String::new();
    if views.is_empty() {
        out.push_str("no ladders in the matrix yet: add a [[ladder]] (see `sota schema`)\n");
        return out;
    }
    let catalog = matrix.origin == Origin::Catalog;
    let rows: Vec<(String, String, String)> = views
        .iter()
        .map(|v| {
            if catalog {
                let first = v.rungs.first().map(rung_label).unwrap_or_default();
                let last = v.rungs.last().map(rung_label).unwrap_or_default();
                (v.axis().to_owned(), first, last)
            } else {
                let today = v
                    .reached
                    .as_ref()
                    .map_or_else(|| "not implemented".to_owned(), rung_label);
                let mut next = v
                    .next
                    .as_ref()
                    .map_or_else(|| "— top of the ladder".to_owned(), rung_label);
                if let Some(note) = &v.ladder.next_note {
                    let _ = write!(next, " — {note}");
                }
                (v.axis().to_owned(), today, next)
            }
        })
        .collect();
    let (h2, h3) = if catalog {
        ("FIRST RUNG", "STATE OF THE ART")
    } else {
        ("TODAY", "NEXT MILESTONE")
    };
    let w1 = rows.iter().map(|r| width(&r.0)).max().unwrap_or(0).max(4);
    let w2 = rows
        .iter()
        .map(|r| width(&r.1))
        .max()
        .unwrap_or(0)
        .max(width(h2));
    let _ = writeln!(
        out,
        "{}  {}  {}",
        cell(role::HEADING, "AXIS", w1),
        cell(role::HEADING, h2, w2),
        paint(role::HEADING, h3)
    );
    for (view, (axis, today, next)) in views.iter().zip(&rows) {
        let today_style = if catalog {
            role::PLAIN
        } else if view.reached.is_some() {
            role::REACHED
        } else {
            role::DIM
        };
        let next_style = if catalog { role::PLAIN } else { role::NEXT };
        let _ = writeln!(
            out,
            "{}  {}  {}",
            cell(role::SLUG, axis, w1),
            cell(today_style, today, w2),
            paint(next_style, next)
        );
    }
    let _ = writeln!(out, "\n`sota milestones <axis>` shows every rung");
    out
}

/// `sota milestones <axis>`: every rung, `=>` reached, `->` next.
pub fn ladder(matrix: &Matrix, view: &LadderView<'_>) -> String {
    let mut out = String::new();
    let status = if matrix.origin == Origin::Catalog {
        "built-in catalog".to_owned()
    } else {
        match (&view.reached, &view.ladder.witness) {
            (Some(r), Some(w)) => format!(
                "reached L{} {} (witness: {})",
                r.level, r.rung.name, w.value
            ),
            (Some(r), None) => format!("reached L{} {}", r.level, r.rung.name),
            _ => "not implemented".to_owned(),
        }
    };
    let _ = writeln!(out, "{} — {status}", paint(role::HEADING, view.axis()));
    let w_level = view
        .rungs
        .iter()
        .map(|r| width(&format!("L{}", r.level)))
        .max()
        .unwrap_or(2);
    let w_name = view
        .rungs
        .iter()
        .map(|r| width(&format!("{} ({})", r.rung.name, r.rung.year)))
        .max()
        .unwrap_or(0);
    for r in &view.rungs {
        let (marker, style) = match r.mark {
            Mark::Reached => ("=>", role::REACHED),
            Mark::Next => ("->", role::NEXT),
            Mark::None => ("  ", role::PLAIN),
        };
        let name = format!("{} ({})", r.rung.name, r.rung.year);
        let _ = writeln!(
            out,
            "  {} {}  {}   {}",
            paint(style, marker),
            cell(style, &format!("L{}", r.level), w_level),
            cell(style, &name, w_name),
            r.rung.summary
        );
    }
    if matrix.origin == Origin::Project {
        if let Some(next) = &view.next {
            let mut line = format!("next: L{} {}", next.level, next.rung.name);
            if let Some(note) = &view.ladder.next_note {
                let _ = write!(line, " — {note}");
            }
            let _ = writeln!(out, "{}", paint(role::DIM, &line));
        }
    }
    out
}

/// The pointer printed when a surface answers from the catalog.
/// `sota milestones AXIS` for an axis with no ladder.
pub fn unknown_axis(axis: &str, did_you_mean: &[&str], axes: &[&str]) -> String {
    let mut msg = format!("no ladder on axis `{axis}`");
    if let Some(first) = did_you_mean.first() {
        msg.push_str(&format!("; did you mean `{first}`?"));
    }
    if axes.is_empty() {
        msg.push_str("\nthe matrix has no ladders yet");
    } else {
        msg.push_str(&format!("\naxes: {}", axes.join(", ")));
    }
    msg
}

/// `team`: the team catalog merged over the built-in one, if any.
pub fn catalog_notice(searched_from: &std::path::Path, team: Option<&str>) -> String {
    let team = team
        .map(|t| format!(" and the team catalog {}", quote(t)))
        .unwrap_or_default();
    format!(
        "sota: no sota.toml at or above {}; answering from the built-in catalog{team} (`sota init` drafts one for this repository)",
        searched_from.display()
    )
}
