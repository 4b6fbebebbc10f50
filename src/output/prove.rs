//! Renderings of a `sota prove` report: aligned text for people, the
//! `sota.prove/v1` JSON payload for machines, and an SVG histogram of the
//! absolute error (one panel per tensor, log₂ bins, the bound drawn).

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::{cell, paint, role, width};
use crate::matrix::{Check, LocalStat};
use crate::prove::local::{Grouping, Local};
use crate::prove::metrics::{Metrics, Place};
use crate::prove::{ChecksFrom, Layout, PairReport, Report, Verdict};
use crate::quote::quote;

pub const PROVE_SCHEMA: &str = super::schema_id::SchemaId::Prove.id();

/// `x` with `sig` significant digits, plain when moderate, else scientific.
pub fn num(x: f64, sig: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let sci = format!("{:.*e}", sig.saturating_sub(1), x);
    let (mant, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let mant = trim_zeros(mant);
    if (-4..6).contains(&exp) {
        let decimals = (sig as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{x:.decimals$}"))
    } else {
        format!("{mant}e{exp}")
    }
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s.to_owned()
    }
}

fn index(ix: &[usize]) -> String {
    let parts: Vec<String> = ix.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// `p99` for 0.99, `q0.995` otherwise.
pub fn quantile_label(q: f64) -> String {
    let pct = q * 100.0;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("p{}", pct.round() as i64)
    } else {
        format!("q{q}")
    }
}

fn check_name(c: &Check) -> String {
    match c {
        Check::Allclose { rtol, atol } => format!(
            "allclose(rtol={}, atol={})",
            rtol.map_or("-".into(), |v| num(v, 6)),
            atol.map_or("-".into(), |v| num(v, 6))
        ),
        other => other.metric().name().to_owned(),
    }
}

/// A similarity near 1 without rounding it to 1: `1 - 2.3e-13`.
pub fn near_one(x: f64) -> String {
    let shown = num(x, 9);
    if shown == "1" && x < 1.0 {
        format!("1 - {}", num(1.0 - x, 3))
    } else {
        shown
    }
}

fn check_value(c: &crate::prove::CheckResult) -> String {
    match (&c.check, c.value) {
        (_, None) => "n/a".into(),
        (
            Check::Cosine { .. }
            | Check::Argmax { .. }
            | Check::Local {
                stat: LocalStat::Cosine,
                ..
            },
            Some(v),
        ) => near_one(v),
        (Check::BitIdentity | Check::Allclose { .. }, Some(v)) => format!("{}", v as u64),
        (_, Some(v)) => num(v, 4),
    }
}

fn place(p: &Place) -> String {
    format!(
        "at {} (ref {}, cand {})",
        index(&p.index),
        num(p.reference, 8),
        num(p.candidate, 8)
    )
}

fn layout(l: Layout) -> &'static str {
    match l {
        Layout::C => "C",
        Layout::F => "F",
    }
}

fn title(pair: &PairReport) -> String {
    let dims: Vec<String> = pair.shape.iter().map(usize::to_string).collect();
    let mut s = String::new();
    if !pair.name.is_empty() {
        let _ = write!(s, "{}  ", paint(role::SLUG, &quote(&pair.name)));
    }
    let dtype = if pair.reference_dtype != pair.dtype {
        format!("{} (reference {})", pair.dtype, pair.reference_dtype)
    } else {
        pair.dtype.to_string()
    };
    let _ = write!(
        s,
        "{dtype} [{}]  {} element{}",
        dims.join(", "),
        pair.metrics.elements,
        if pair.metrics.elements == 1 { "" } else { "s" }
    );
    if pair.layouts != (Layout::C, Layout::C) {
        let _ = write!(
            s,
            "  (layout: reference {}, candidate {})",
            layout(pair.layouts.0),
            layout(pair.layouts.1)
        );
    }
    s
}

/// The human report.
pub fn human(report: &Report) -> String {
    let mut out = String::new();
    let from = match &report.checks_from {
        ChecksFrom::Op(slug) => format!("checks of op {}", paint(role::SLUG, slug)),
        ChecksFrom::Flag => "checks from --check".to_owned(),
        ChecksFrom::None => "no checks: metrics only (give an op slug or --check)".to_owned(),
    };
    let _ = writeln!(out, "{} — {from}", paint(role::HEADING, "sota prove"));
    let _ = writeln!(
        out,
        "  reference  {} ({})",
        quote(&report.reference.display().to_string()),
        report.formats.0.name()
    );
    let _ = writeln!(
        out,
        "  candidate  {} ({})",
        quote(&report.candidate.display().to_string()),
        report.formats.1.name()
    );
    for pair in &report.pairs {
        out.push('\n');
        let _ = writeln!(out, "{}", title(pair));
        pair_human(&mut out, pair, report.quantile);
    }
    for (side, names) in [
        ("reference", &report.only_in_reference),
        ("candidate", &report.only_in_candidate),
    ] {
        if !names.is_empty() {
            let _ = writeln!(
                out,
                "\n{} only in the {side}, not compared: {}",
                paint(role::DEBT, "note:"),
                names
                    .iter()
                    .map(|n| quote(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let checks: Vec<_> = report.pairs.iter().flat_map(|p| &p.checks).collect();
    let failed = checks.iter().filter(|c| !c.pass).count();
    out.push('\n');
    match report.verdict() {
        Verdict::Unjudged => {
            let _ = writeln!(out, "no checks given: nothing judged");
        }
        Verdict::Pass => {
            let _ = writeln!(
                out,
                "{}: all {} check{} hold",
                paint(role::REACHED, "PASS"),
                checks.len(),
                if checks.len() == 1 { "" } else { "s" }
            );
        }
        Verdict::Fail => {
            let _ = writeln!(
                out,
                "{}: {failed} of {} check{} failed",
                paint(role::DEBT, "FAIL"),
                checks.len(),
                if checks.len() == 1 { "" } else { "s" }
            );
        }
    }
    out
}

fn pair_human(out: &mut String, pair: &PairReport, q: f64) {
    checks_human(out, pair);
    let m = &pair.metrics;
    let label = |s: &str| cell(role::DIM, s, 12);
    let _ = writeln!(
        out,
        "  {}cosine {}",
        label("similarity"),
        m.cosine.map_or("n/a".into(), near_one)
    );
    errors_human(out, m, q);
    allclose_human(out, pair);
    for local in [&m.rows, &m.tiles].into_iter().flatten() {
        local_human(out, local, &pair.shape);
    }
    let mut line = format!(
        "  {}{} of {} rows agree along the last axis",
        label("argmax"),
        m.argmax.agree,
        m.argmax.rows
    );
    if let Some((row, a, b)) = &m.argmax.first_miss {
        let _ = write!(line, "; first differs at row {} ({a} vs {b})", index(row));
    }
    let _ = writeln!(out, "{line}");
    let mut line = if m.bits_differing == 0 {
        format!("  {}identical", label("bits"))
    } else {
        format!(
            "  {}{} of {} elements differ",
            label("bits"),
            m.bits_differing,
            m.elements
        )
    };
    if let Some(p) = &m.first_bit_difference {
        let _ = write!(line, ", first {}", place(p));
    }
    let _ = writeln!(out, "{line}");
    nonfinite_human(out, m);
}

/// The check table: check, value, bound, PASS/FAIL, note.
fn checks_human(out: &mut String, pair: &PairReport) {
    if pair.checks.is_empty() && pair.other_dtypes == 0 {
        return;
    }
    let rows: Vec<[String; 3]> = pair
        .checks
        .iter()
        .map(|c| [check_name(&c.check), check_value(c), c.bound.clone()])
        .collect();
    let w: Vec<usize> = (0..3)
        .map(|i| rows.iter().map(|r| width(&r[i])).max().unwrap_or(0))
        .collect();
    for (r, c) in rows.iter().zip(&pair.checks) {
        let verdict = if c.pass {
            paint(role::REACHED, "PASS")
        } else {
            paint(role::DEBT, "FAIL")
        };
        let mut line = format!(
            "  {}  {}  {}  {verdict}",
            cell(role::PLAIN, &r[0], w[0]),
            cell(role::PLAIN, &r[1], w[1]),
            cell(role::PLAIN, &r[2], w[2]),
        );
        if let Some(note) = &c.note {
            let _ = write!(line, "  ({note})");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if pair.other_dtypes > 0 {
        let n = pair.other_dtypes;
        let _ = writeln!(
            out,
            "  ({n} check{} for other candidate dtypes left out{})",
            if n == 1 { "" } else { "s" },
            if pair.checks.is_empty() {
                format!(
                    "; {}: no check applies to a {} candidate",
                    paint(role::DEBT, "FAIL"),
                    pair.dtype
                )
            } else {
                String::new()
            }
        );
    }
    out.push('\n');
}

fn errors_human(out: &mut String, m: &Metrics, q: f64) {
    let label = |s: &str| cell(role::DIM, s, 12);
    let opt = |x: Option<f64>| x.map_or("n/a".to_owned(), |v| num(v, 4));
    let ql = quantile_label(q);
    for (name, max, mean, median, quant) in [
        (
            "abs error",
            &m.max_abs,
            m.mean_abs,
            m.median_abs,
            m.quantile_abs,
        ),
        (
            "rel error",
            &m.max_rel,
            m.mean_rel,
            m.median_rel,
            m.quantile_rel,
        ),
    ] {
        let mut line = format!(
            "  {}mean {}  median {}  {ql} {}",
            label(name),
            opt(mean),
            opt(median),
            opt(quant)
        );
        if let Some(p) = max {
            let _ = write!(line, "  max {} {}", num(p.value, 4), place(p));
        }
        let _ = writeln!(out, "{line}");
    }
}

fn allclose_human(out: &mut String, pair: &PairReport) {
    let m = &pair.metrics;
    for a in &m.allclose {
        let t = &a.tolerance;
        let mut line = format!(
            "  {}rtol={} atol={}{}: {} of {} outside",
            cell(role::DIM, "allclose", 12),
            num(t.rtol, 6),
            num(t.atol, 6),
            if t.defaulted {
                format!(" (default for {})", pair.dtype)
            } else {
                String::new()
            },
            a.mismatches,
            m.finite_pairs
        );
        if let Some(w) = &a.worst {
            let _ = write!(
                line,
                ", worst {}× the tolerance {}",
                num(w.value, 4),
                place(w)
            );
        }
        let _ = writeln!(out, "{line}");
    }
}

/// `rows` / `tiles`: how they were grouped, the worst group per
/// statistic, and the failing counts.
fn local_human(out: &mut String, l: &Local, shape: &[usize]) {
    let (label, one, how) = match l.grouping {
        Grouping::Rows { axis } => {
            let last = shape.len().saturating_sub(1) == axis;
            let how = format!("along axis {axis}{}", if last { " (the last)" } else { "" });
            ("rows", "row", how)
        }
        Grouping::Tiles { h, w } => ("tiles", "tile", format!("{h}x{w} over the last two axes")),
    };
    let _ = writeln!(
        out,
        "  {}{} {how}; the worst by",
        cell(role::DIM, label, 12),
        l.groups
    );
    let pad = " ".repeat(14);
    if let Some(w) = &l.cosine {
        let _ = writeln!(
            out,
            "{pad}cosine   {} ({one} at {})",
            near_one(w.value),
            index(&w.origin)
        );
    }
    if let Some(w) = &l.rel_l2 {
        let _ = writeln!(
            out,
            "{pad}rel-l2   {} ({one} at {})",
            num(w.value, 4),
            index(&w.origin)
        );
    }
    if let Some(w) = &l.max_abs {
        let at = w.at.as_ref().map(place).unwrap_or_default();
        let _ = writeln!(out, "{pad}max-abs  {} {at}", num(w.value, 4));
    }
    for (stat, bound, n) in &l.failing {
        let op = if stat.is_min() { "<" } else { ">" };
        let _ = writeln!(
            out,
            "{pad}{n} of {} {label} with {} {op} {}",
            l.groups,
            stat.name(),
            num(*bound, 6)
        );
    }
}

fn nonfinite_human(out: &mut String, m: &Metrics) {
    let label = |s: &str| cell(role::DIM, s, 12);
    let nf = &m.nonfinite;
    if nf.reference.total() + nf.candidate.total() == 0 {
        let _ = writeln!(out, "  {}none", label("non-finite"));
    } else {
        let c = |x: &crate::prove::metrics::NonFiniteCounts| {
            format!("{} NaN, {} +Inf, {} -Inf", x.nan, x.pos_inf, x.neg_inf)
        };
        let mut line = format!(
            "  {}reference {}; candidate {}; {} in different places",
            label("non-finite"),
            c(&nf.reference),
            c(&nf.candidate),
            nf.mismatched
        );
        if let Some(p) = &nf.first_mismatch {
            let _ = write!(line, ", first {}", place(p));
        }
        let _ = writeln!(out, "{line}");
    }
}

/// A JSON number, or a string for the values JSON cannot hold.
fn f(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else if x.is_nan() {
        json!("nan")
    } else if x > 0.0 {
        json!("inf")
    } else {
        json!("-inf")
    }
}

fn of(x: Option<f64>) -> Value {
    x.map_or(Value::Null, f)
}

fn place_json(p: &Option<Place>, with_value: bool) -> Value {
    match p {
        None => Value::Null,
        Some(p) => {
            let mut v = json!({
                "index": p.index,
                "reference": f(p.reference),
                "candidate": f(p.candidate),
            });
            if with_value {
                v["value"] = f(p.value);
            }
            v
        }
    }
}

fn metrics_json(m: &Metrics) -> Value {
    let counts = |c: &crate::prove::metrics::NonFiniteCounts| json!({"nan": c.nan, "pos_inf": c.pos_inf, "neg_inf": c.neg_inf});
    json!({
        "cosine": of(m.cosine),
        "max_abs": place_json(&m.max_abs, true),
        "max_rel": place_json(&m.max_rel, true),
        "mean_abs": of(m.mean_abs),
        "mean_rel": of(m.mean_rel),
        "median_abs": of(m.median_abs),
        "median_rel": of(m.median_rel),
        "quantile_abs": of(m.quantile_abs),
        "quantile_rel": of(m.quantile_rel),
        "allclose": m.allclose.iter().map(|a| json!({
            "rtol": f(a.tolerance.rtol),
            "atol": f(a.tolerance.atol),
            "default": a.tolerance.defaulted,
            "mismatches": a.mismatches,
            "worst": place_json(&a.worst, true),
        })).collect::<Vec<_>>(),
        "argmax": {
            "rows": m.argmax.rows,
            "agree": m.argmax.agree,
            "fraction": f(m.argmax.fraction()),
            "first_miss": m.argmax.first_miss.as_ref().map(|(row, a, b)| json!({
                "row": row, "reference": a, "candidate": b,
            })),
        },
        "bits": {
            "differing": m.bits_differing,
            "first": place_json(&m.first_bit_difference, false),
        },
        "rows": m.rows.as_ref().map(local_json),
        "tiles": m.tiles.as_ref().map(local_json),
        "nonfinite": {
            "reference": counts(&m.nonfinite.reference),
            "candidate": counts(&m.nonfinite.candidate),
            "mismatched": m.nonfinite.mismatched,
            "first_mismatch": place_json(&m.nonfinite.first_mismatch, false),
        },
    })
}

fn local_json(l: &Local) -> Value {
    let worst = |w: &Option<crate::prove::local::WorstGroup>| match w {
        None => Value::Null,
        Some(w) => {
            let mut v = json!({"value": f(w.value), "origin": w.origin});
            if let Some(p) = &w.at {
                v["at"] = place_json(&Some(p.clone()), false);
            }
            v
        }
    };
    let grouping = match l.grouping {
        Grouping::Rows { axis } => json!({"kind": "rows", "axis": axis}),
        Grouping::Tiles { h, w } => json!({"kind": "tiles", "tile": [h, w]}),
    };
    json!({
        "grouping": grouping,
        "groups": l.groups,
        "cosine": worst(&l.cosine),
        "max_abs": worst(&l.max_abs),
        "rel_l2": worst(&l.rel_l2),
        "failing": l.failing.iter().map(|(stat, bound, n)| json!({
            "stat": stat.name(), "bound": f(*bound), "groups": n,
        })).collect::<Vec<_>>(),
    })
}

/// The `sota.prove/v1` payload.
pub fn json(report: &Report) -> Value {
    let from = match &report.checks_from {
        ChecksFrom::Op(slug) => json!({"kind": "op", "op": slug}),
        ChecksFrom::Flag => json!({"kind": "flag"}),
        ChecksFrom::None => json!({"kind": "none"}),
    };
    let verdict = match report.verdict() {
        Verdict::Unjudged => "unjudged",
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
    };
    let tensors: Vec<Value> = report
        .pairs
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "dtype": p.dtype.name(),
                "reference_dtype": p.reference_dtype.name(),
                "other_dtype_checks": p.other_dtypes,
                "shape": p.shape,
                "layout": {"reference": layout(p.layouts.0), "candidate": layout(p.layouts.1)},
                "elements": p.metrics.elements,
                "finite_pairs": p.metrics.finite_pairs,
                "metrics": metrics_json(&p.metrics),
                "checks": p.checks.iter().map(|c| {
                    let mut check = serde_json::to_value(super::json::CheckJson::of(&c.check))
                        .unwrap_or(Value::Null);
                    if let Value::Object(o) = &mut check {
                        o.remove("metric");
                    }
                    json!({
                        "metric": c.check.metric().name(),
                        "params": check,
                        "value": of(c.value),
                        "bound": c.bound,
                        "pass": c.pass,
                        "note": c.note,
                    })
                }).collect::<Vec<_>>(),
                "pass": p.passed(),
            })
        })
        .collect();
    json!({
        "schema": PROVE_SCHEMA,
        "reference": {"path": report.reference.display().to_string(), "format": report.formats.0.name()},
        "candidate": {"path": report.candidate.display().to_string(), "format": report.formats.1.name()},
        "checks_from": from,
        "quantile": f(report.quantile),
        "verdict": verdict,
        "tensors": tensors,
        "only_in_reference": report.only_in_reference,
        "only_in_candidate": report.only_in_candidate,
    })
}

/// The `sota.proof/v1` record: the `sota.prove/v1` payload (checks,
/// metrics, verdict, dtypes, shapes) with the op, the date, the tool's
/// version and the blob ids of the op's files.
pub fn record_json(report: &Report, meta: &crate::prove::record::RecordMeta) -> Value {
    record_of_payload(json(report), meta)
}

/// A `sota.prove/v1` payload made a proof record: what the pytest plugin
/// kept from a `sota.prove` call and writes once the test has passed.
pub fn record_of_payload(mut v: Value, meta: &crate::prove::record::RecordMeta) -> Value {
    v["schema"] = json!(super::schema_id::SchemaId::Proof.id());
    v["op"] = json!(meta.op);
    v["date"] = json!(meta.date);
    v["tool"] = json!({"name": "sota", "version": env!("CARGO_PKG_VERSION")});
    v["files"] = meta
        .files
        .iter()
        .map(|(path, blob)| json!({"path": path, "blob": blob}))
        .collect();
    v
}

/// A record as committed: pretty JSON, one trailing newline.
pub fn record_text(report: &Report, meta: &crate::prove::record::RecordMeta) -> String {
    pretty_line(&record_json(report, meta))
}

/// Pretty JSON, one trailing newline.
pub fn pretty_line(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("a JSON value serializes");
    s.push('\n');
    s
}

/// An SVG histogram of |ref − cand| per tensor: one bar per power of two
/// (zero on the left), bar height linear in the count, the max-abs bound
/// (or the allclose atol) drawn as a red line.
pub fn svg(report: &Report) -> String {
    let mut body = String::new();
    let mut y0 = 10.0;
    for pair in &report.pairs {
        svg_panel(&mut body, pair, y0);
        y0 += SVG_PANEL;
    }
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{SVG_W}" height="{}" viewBox="0 0 {SVG_W} {}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
{body}</svg>
"#,
        y0 + 10.0,
        y0 + 10.0
    )
}

const SVG_W: f64 = 640.0;
const SVG_PANEL: f64 = 200.0;
const SVG_LEFT: f64 = 50.0;
const SVG_RIGHT: f64 = 20.0;

/// The bound a histogram draws: the max-abs check, else allclose's atol.
fn svg_bound(pair: &PairReport) -> Option<(&'static str, f64)> {
    let bound = pair.checks.iter().find_map(|c| match c.check {
        Check::MaxAbs { max } => Some(("max-abs", max)),
        _ => None,
    });
    bound.or_else(|| {
        pair.metrics
            .allclose
            .first()
            .map(|a| ("atol", a.tolerance.atol))
    })
}

/// One tensor's histogram panel, starting at `y0`.
fn svg_panel(body: &mut String, pair: &PairReport, y0: f64) {
    let (w, left, right) = (SVG_W, SVG_LEFT, SVG_RIGHT);
    let bins = pair.metrics.abs_histogram.binades();
    let bound = svg_bound(pair);
    let exps: Vec<i32> = bins
        .iter()
        .filter_map(|(e, _)| *e)
        .chain(bound.and_then(|(_, b)| (b > 0.0).then(|| b.log2().floor() as i32)))
        .collect();
    let (lo, hi) = match (exps.iter().min(), exps.iter().max()) {
        (Some(&lo), Some(&hi)) => (lo.min(hi), hi.min(1024)),
        _ => (0, 0),
    };
    let nbins = (hi - lo + 2) as f64; // + the zero bin
    let bw = (w - left - right) / nbins;
    let top = y0 + 24.0;
    let h = SVG_PANEL - 60.0;
    let peak = bins.iter().map(|(_, c)| *c).max().unwrap_or(1).max(1) as f64;
    let name = if pair.name.is_empty() {
        "tensor".to_owned()
    } else {
        xml(&pair.name)
    };
    let _ = writeln!(
        body,
        r#"<text x="{left}" y="{}" font-size="13" font-weight="bold">{name} — |reference − candidate|, {} finite pairs (bins: powers of two)</text>"#,
        y0 + 14.0,
        pair.metrics.finite_pairs
    );
    let _ = writeln!(
        body,
        r##"<line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="#444"/>"##,
        top + h,
        w - right,
        top + h
    );
    let x_of = |e: Option<i32>| left + bw * e.map_or(0.0, |e| (e - lo + 1) as f64);
    for (e, c) in &bins {
        let bh = h * (*c as f64) / peak;
        let _ = writeln!(
            body,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#4a7ab5"><title>{}: {c}</title></rect>"##,
            x_of(*e) + 1.0,
            top + h - bh,
            (bw - 2.0).max(1.0),
            bh,
            e.map_or("0".to_owned(), |e| format!("[2^{e}, 2^{})", e + 1))
        );
    }
    let step = ((nbins / 12.0).ceil() as i32).max(1);
    let label = |body: &mut String, x: f64, text: &str| {
        let _ = writeln!(
            body,
            r#"<text x="{x:.1}" y="{}" font-size="10" text-anchor="middle">{text}</text>"#,
            top + h + 14.0
        );
    };
    label(body, x_of(None) + bw / 2.0, "0");
    let mut e = lo;
    while e <= hi {
        label(body, x_of(Some(e)) + bw / 2.0, &format!("2^{e}"));
        e += step;
    }
    if let Some((what, b)) = bound {
        let x = if b > 0.0 {
            x_of(Some(lo)) + bw * (b.log2() - lo as f64)
        } else {
            x_of(None) + bw
        };
        let _ = writeln!(
            body,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{}" stroke="#c0392b" stroke-width="2" stroke-dasharray="5,3"/><text x="{:.1}" y="{}" font-size="11" fill="#c0392b">{what} {}</text>"##,
            top + h,
            x + 4.0,
            top + 10.0,
            num(b, 4)
        );
    }
}

/// Text for an SVG element: untrusted characters shown visibly (XML 1.0
/// cannot hold most controls at all, and bidi overrides would reorder the
/// label), then the markup characters escaped.
fn xml(s: &str) -> String {
    quote(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_honest() {
        assert_eq!(num(0.999999873, 9), "0.999999873");
        assert_eq!(num(1.0, 9), "1");
        assert_eq!(num(3.1e-7, 4), "3.1e-7");
        assert_eq!(num(0.00125, 4), "0.00125");
        assert_eq!(num(123456789.0, 4), "1.235e8");
        assert_eq!(num(f64::INFINITY, 4), "inf");
        assert_eq!(num(-2.5, 4), "-2.5");
        assert_eq!(quantile_label(0.99), "p99");
        assert_eq!(near_one(1.0 - 2f64.powi(-40)), "1 - 9.09e-13");
        assert_eq!(near_one(1.0), "1");
        assert_eq!(quantile_label(0.995), "q0.995");
    }
}
