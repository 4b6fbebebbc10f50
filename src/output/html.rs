//! `sota report --html`: one self-contained page — the matrix table, each
//! ladder as an inline-SVG rung diagram (reached and next marked), the
//! coverage scorecard with its grade, and the audit's compliance by month
//! as an inline-SVG chart. No scripts, no fonts, no network: styles are
//! inline, colours meet WCAG AA contrast on white, every SVG has a title and
//! description (and the chart's data is also a real table), the layout
//! reflows on a phone and prints without the page chrome.

use std::fmt::Write as _;

use crate::matrix::Matrix;
use crate::surface::audit::Report as Audit;
use crate::surface::coverage::Report as Coverage;
use crate::surface::milestones::{LadderView, Mark};
use crate::surface::proofs::ProofState;

/// `text` safe inside HTML text and double-quoted attributes; control
/// characters are shown as U+FFFD so nothing invisible reaches the page.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if crate::quote::is_unsafe_char(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// An `http(s)` link as an anchor, anything else as text (no
/// `javascript:` or `data:` URL reaches an `href`).
fn link(url: &str) -> String {
    if url.starts_with("https://") || url.starts_with("http://") {
        format!("<a href=\"{0}\">{0}</a>", esc(url))
    } else {
        esc(url)
    }
}

const STYLE: &str = r#"
:root { color-scheme: light; --ink: #1a1a1a; --dim: #4a4a4a; --line: #c8c8c8;
  --reached: #1b6e2e; --next: #a04a00; --debt: #b00020; --band: #f3f5f7; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: #fff; margin: 0 auto; max-width: 72rem; padding: 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
.meta { color: var(--dim); margin: 0 0 1rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
/* The matrix table fits the page at any width: fixed columns, and long
   references, links and oracles wrap anywhere rather than push the oracle
   column behind a scrollbar. */
table.matrix { table-layout: fixed; }
table.matrix col.op { width: 15%; } table.matrix col.title { width: 15%; }
table.matrix col.route { width: 9%; } table.matrix col.sota { width: 29%; }
table.matrix col.oracle { width: 20%; } table.matrix col.proof { width: 12%; }
table.matrix th, table.matrix td { overflow-wrap: anywhere; word-break: break-word; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
thead th { background: var(--band); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.grade { display: inline-block; font-size: 2.5rem; font-weight: 700; line-height: 1;
  border: 3px solid currentColor; border-radius: .5rem; padding: .25rem .75rem; margin-right: 1rem; }
.grade-A { color: var(--reached); } .grade-B, .grade-C { color: var(--next); }
.grade-D, .grade-F { color: var(--debt); }
.ok { color: var(--reached); } .bad { color: var(--debt); }
.ladders { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 26rem), 1fr)); gap: 1rem; }
figure { margin: 0; border: 1px solid var(--line); border-radius: .5rem; padding: .5rem; }
figcaption { font-weight: 600; }
svg { max-width: 100%; height: auto; }
svg text { font: 13px system-ui, sans-serif; fill: var(--ink); }
a { color: #0b57d0; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  a { color: inherit; text-decoration: none; }
  figure, table, tr { break-inside: avoid; }
  .scroll { overflow: visible; }
}
"#;

/// The whole page.
pub fn page(
    matrix: &Matrix,
    coverage: &Coverage,
    ladders: &[LadderView<'_>],
    audit: Option<&Audit>,
) -> String {
    let name = esc(&matrix.project.name);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>sota report — {name}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <header><h1>sota report — {name}</h1>\n<p class=\"meta\">{} · as of {}</p></header>\n<main>\n",
        esc(&matrix.display_name()),
        coverage.today
    );
    scorecard(&mut out, coverage);
    matrix_table(&mut out, matrix, &coverage.proofs);
    ladders_section(&mut out, ladders);
    audit_section(&mut out, audit);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn scorecard(out: &mut String, c: &Coverage) {
    let g = c.grade();
    let _ = write!(
        out,
        "<section aria-labelledby=\"scorecard\">\n<h2 id=\"scorecard\">Coverage scorecard</h2>\n\
         <p><span class=\"grade grade-{g}\" role=\"img\" aria-label=\"grade {g}\">{g}</span>\
         sota_debt <strong>{}</strong> · hard debt <strong>{}</strong></p>\n\
         <div class=\"scroll\"><table>\n<caption>Key performance indicators</caption>\n\
         <thead><tr><th scope=\"col\">KPI</th><th scope=\"col\">group</th><th scope=\"col\">kind</th>\
         <th scope=\"col\" class=\"num\">debt</th><th scope=\"col\">detail</th></tr></thead>\n<tbody>\n",
        c.sota_debt, c.hard_debt
    );
    for k in &c.kpis {
        let (class, mark) = if k.debt == 0 {
            ("ok", "✓ ")
        } else {
            ("bad", "✗ ")
        };
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\"><span class=\"{class}\" aria-hidden=\"true\">{mark}</span>{}</th>\
             <td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            k.kpi.name(),
            k.kpi.group().name(),
            if k.kpi.hard() { "hard" } else { "soft" },
            k.debt,
            esc(&k.detail)
        );
    }
    out.push_str("</tbody></table></div>\n</section>\n");
}

/// An op's proof cell: the state, its date, and for a stale proof the
/// files that changed (a tooltip lists them all).
fn proof_cell(state: Option<&ProofState>) -> String {
    match state {
        None => "<em>no checks</em>".to_owned(),
        Some(s @ ProofState::Proven { .. }) => format!(
            "<span class=\"ok\">proven</span><br>{}",
            esc(s.date().unwrap_or(""))
        ),
        Some(ProofState::Missing) => "<span class=\"bad\">missing</span>".to_owned(),
        Some(s @ ProofState::Failing { .. }) => format!(
            "<span class=\"bad\">failing</span><br>{}",
            esc(s.date().unwrap_or(""))
        ),
        Some(ProofState::Stale { date, files }) => format!(
            "<span class=\"bad\" title=\"changed since: {}\">stale</span><br>{} · {} file{} changed",
            esc(&files.join(", ")),
            esc(date),
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        ),
    }
}

fn matrix_table(out: &mut String, m: &Matrix, proofs: &[(usize, ProofState)]) {
    out.push_str(
        "<section aria-labelledby=\"matrix\">\n<h2 id=\"matrix\">Prior-art matrix</h2>\n\
         <div class=\"scroll\"><table class=\"matrix\">\n<caption>Every op: what to read, the route, the oracle</caption>\n\
         <colgroup><col class=\"op\"><col class=\"title\"><col class=\"route\"><col class=\"sota\"><col class=\"oracle\"><col class=\"proof\"></colgroup>\n\
         <thead><tr><th scope=\"col\">op</th><th scope=\"col\">title</th><th scope=\"col\">route</th>\
         <th scope=\"col\">state of the art</th><th scope=\"col\">oracle</th><th scope=\"col\">proof</th></tr></thead>\n<tbody>\n",
    );
    for op in m.ops_sorted() {
        let route = op.route.as_ref().map_or("undecided", |r| r.value.name());
        let sota = match &op.link {
            Some(l) => format!("{}<br>{}", esc(&op.sota), link(&l.value)),
            None => esc(&op.sota),
        };
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\"><code>{}</code></th><td>{}</td><td>{route}</td><td>{sota}</td><td>{}</td><td>{}</td></tr>",
            esc(&op.slug.value),
            esc(&op.title),
            op.oracle.as_deref().map_or_else(|| "<em>none yet</em>".to_owned(), esc),
            proof_cell(
                m.ops
                    .iter()
                    .position(|o| std::ptr::eq(o, op))
                    .and_then(|i| proofs.iter().find(|(j, _)| *j == i))
                    .map(|(_, s)| s)
            )
        );
    }
    out.push_str("</tbody></table></div>\n</section>\n");
}

/// One ladder as a vertical rung diagram: the oldest rung at the bottom,
/// the reached rung filled green, the next outlined in orange, dashed.
fn ladder_svg(view: &LadderView<'_>, id: usize) -> String {
    const ROW: usize = 44;
    // Wide enough for the longest label at 13px (about 7.5px a character);
    // on a narrow screen the drawing scales down with the page.
    let longest = view
        .rungs
        .iter()
        .map(|r| r.rung.name.chars().count() + 22)
        .max()
        .unwrap_or(0);
    let width = (70 + longest * 15 / 2).max(320);
    let n = view.rungs.len();
    let h = n * ROW + 16;
    let axis = esc(view.axis());
    let reached = view
        .reached
        .as_ref()
        .map_or("no rung reached".to_owned(), |r| {
            format!("reached L{} {}", r.level, r.rung.name)
        });
    let next = view.next.as_ref().map_or("no next rung".to_owned(), |r| {
        format!("next L{} {}", r.level, r.rung.name)
    });
    let mut s = format!(
        "<svg class=\"rungs\" viewBox=\"0 0 {width} {h}\" width=\"{width}\" height=\"{h}\" role=\"img\" \
         aria-labelledby=\"l{id}t l{id}d\"><title id=\"l{id}t\">{axis} ladder</title>\
         <desc id=\"l{id}d\">{} rungs; {}; {}</desc>\
         <line x1=\"20\" y1=\"8\" x2=\"20\" y2=\"{}\" stroke=\"#4a4a4a\" stroke-width=\"2\"/>\
         <line x1=\"44\" y1=\"8\" x2=\"44\" y2=\"{}\" stroke=\"#4a4a4a\" stroke-width=\"2\"/>",
        n,
        esc(&reached),
        esc(&next),
        h - 8,
        h - 8
    );
    for (i, r) in view.rungs.iter().rev().enumerate() {
        let y = 8 + i * ROW + ROW / 2;
        let (fill, stroke, dash, tag) = match r.mark {
            Mark::Reached => ("#1b6e2e", "#1b6e2e", "", " — reached"),
            Mark::Next => ("#ffffff", "#a04a00", " stroke-dasharray=\"4 3\"", " — next"),
            Mark::None => ("#ffffff", "#4a4a4a", "", ""),
        };
        let _ = write!(
            s,
            "<g class=\"rung rung-{}\"><title>{}</title><rect x=\"12\" y=\"{}\" width=\"40\" height=\"12\" rx=\"3\" \
             fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"2\"{dash}/>\
             <text x=\"62\" y=\"{}\">L{} {} ({}){}</text></g>",
            match r.mark {
                Mark::Reached => "reached",
                Mark::Next => "next",
                Mark::None => "other",
            },
            esc(&r.rung.summary),
            y - 6,
            y + 5,
            r.level,
            esc(&r.rung.name),
            r.rung.year,
            tag
        );
    }
    s.push_str("</svg>");
    s
}

fn ladders_section(out: &mut String, ladders: &[LadderView<'_>]) {
    out.push_str(
        "<section aria-labelledby=\"ladders\">\n<h2 id=\"ladders\">Milestone ladders</h2>\n",
    );
    if ladders.is_empty() {
        out.push_str("<p>The matrix has no ladders.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<p>Oldest rung at the bottom; <span class=\"ok\">filled green</span>: the rung reached; \
         <span style=\"color:#a04a00\">dashed orange</span>: the next one.</p>\n<div class=\"ladders\">\n",
    );
    for (i, view) in ladders.iter().enumerate() {
        let _ = writeln!(
            out,
            "<figure>{}<figcaption>{}</figcaption></figure>",
            ladder_svg(view, i),
            esc(view.axis())
        );
    }
    out.push_str("</div>\n</section>\n");
}

/// Every month from the first to the last with kernel commits, in order,
/// with its tally (`None`: a month without kernel commits, drawn as a gap);
/// keys that are not `YYYY-MM` come last.
fn month_slots(a: &Audit) -> Vec<(String, Option<&crate::surface::audit::Tally>)> {
    let parse = |k: &str| -> Option<(i32, u32)> {
        let (y, m) = k.split_once('-')?;
        let (y, m) = (y.parse().ok()?, m.parse().ok()?);
        (k.len() == 7 && (1..=12).contains(&m)).then_some((y, m))
    };
    let dated: Vec<(i32, u32)> = a.by_month.keys().filter_map(|k| parse(k)).collect();
    let mut slots = Vec::new();
    if let (Some(&first), Some(&last)) = (dated.first(), dated.last()) {
        let (mut y, mut m) = first;
        while (y, m) <= last {
            let key = format!("{y:04}-{m:02}");
            let tally = a.by_month.get(&key);
            slots.push((key, tally));
            (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
        }
    }
    for (k, t) in &a.by_month {
        if parse(k).is_none() {
            slots.push((k.clone(), Some(t)));
        }
    }
    slots
}

/// The compliance chart: one bar per month with kernel commits; a month
/// without any is an empty, labelled slot, so gaps show as gaps.
fn chart(out: &mut String, a: &Audit) {
    let months = month_slots(a);
    const H: f64 = 160.0;
    const LEFT: f64 = 40.0;
    let bar = 36.0;
    let gap = 12.0;
    let w = LEFT + months.len() as f64 * (bar + gap) + gap;
    let total_h = H + 50.0;
    let _ = write!(
        out,
        "<figure><svg class=\"chart\" viewBox=\"0 0 {w:.0} {total_h:.0}\" width=\"{w:.0}\" height=\"{total_h:.0}\" \
         role=\"img\" aria-labelledby=\"ct cd\"><title id=\"ct\">Compliance by month</title>\
         <desc id=\"cd\">Share of kernel commits with a valid trailer, per month, {} to {}; months without kernel commits are left empty; the table below holds the same data.</desc>",
        esc(months.first().map_or("", |m| m.0.as_str())),
        esc(months.last().map_or("", |m| m.0.as_str())),
    );
    for pct in [0, 50, 100] {
        let y = 10.0 + H - H * f64::from(pct) / 100.0;
        let _ = write!(
            out,
            "<line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{w:.0}\" y2=\"{y}\" stroke=\"#c8c8c8\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{pct}%</text>",
            LEFT - 4.0,
            y + 4.0
        );
    }
    for (i, (m, tally)) in months.iter().enumerate() {
        let x = LEFT + gap + i as f64 * (bar + gap);
        let label = format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x + bar / 2.0,
            10.0 + H + 18.0,
            esc(m.get(2..).unwrap_or(m))
        );
        let Some(t) = tally else {
            let _ = write!(
                out,
                "<g class=\"gap\"><title>{}: no kernel commits</title>{label}</g>",
                esc(m)
            );
            continue;
        };
        let pct = t.compliance() * 100.0;
        let bh = (H * pct / 100.0).max(1.0);
        let y = 10.0 + H - bh;
        let _ = write!(
            out,
            "<g class=\"bar\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar}\" height=\"{bh:.1}\" fill=\"#1b6e2e\">\
             <title>{}: {pct:.0}% of {}</title></rect>{label}</g>",
            esc(m),
            t.commits,
        );
    }
    out.push_str("</svg><figcaption>Compliance by month (YY-MM); an empty month had no kernel commits</figcaption></figure>\n");
}

fn audit_section(out: &mut String, audit: Option<&Audit>) {
    out.push_str(
        "<section aria-labelledby=\"audit\">\n<h2 id=\"audit\">Prior-art trailer compliance</h2>\n",
    );
    let Some(a) = audit.filter(|a| !a.by_month.is_empty()) else {
        let start = audit
            .and_then(|a| crate::output::audit::start_phrase(&a.start))
            .map(|s| format!(" ({})", esc(&s)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<p>No kernel commit in the history{start} (or no git history) to audit.</p>\n</section>"
        );
        return;
    };
    if let Some(start) = crate::output::audit::start_phrase(&a.start) {
        let _ = writeln!(out, "<p class=\"meta\">Counted: {}.</p>", esc(&start));
    }
    let _ = writeln!(
        out,
        "<p>Overall <strong>{:.0}%</strong> of {} kernel commits carry a valid <code>Prior-art:</code> trailer.</p>",
        a.overall.compliance() * 100.0,
        a.overall.commits,
    );
    if let Some(line) = crate::output::audit::proof_line(a) {
        let _ = writeln!(out, "<p>{}</p>", esc(&line));
    }
    chart(out, a);
    out.push_str(
        "<div class=\"scroll\"><table>\n<caption>Compliance by month</caption>\n<thead><tr>\
         <th scope=\"col\">month</th><th scope=\"col\" class=\"num\">commits</th>\
         <th scope=\"col\" class=\"num\">stamped</th><th scope=\"col\" class=\"num\">placeholder</th>\
         <th scope=\"col\" class=\"num\">missing</th><th scope=\"col\" class=\"num\">compliance</th></tr></thead>\n<tbody>\n",
    );
    for (m, t) in &a.by_month {
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\">{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.0}%</td></tr>",
            esc(m),
            t.commits,
            t.stamped,
            t.placeholder,
            t.missing,
            t.compliance() * 100.0
        );
    }
    out.push_str("</tbody></table></div>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_links_cannot_become_markup() {
        assert_eq!(esc("<b a=\"x\">&'"), "&lt;b a=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!(esc("a\u{1b}[2Jb"), "a\u{FFFD}[2Jb");
        assert_eq!(link("javascript:alert(1)"), "javascript:alert(1)");
        assert!(link("https://e.org/?a=1&b=\"")
            .starts_with("<a href=\"https://e.org/?a=1&amp;b=&quot;\">"));
    }
}
