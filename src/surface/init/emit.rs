//! The drafted `sota.toml` as text: the plan in the matrix format, with
//! comments that say what was inferred and what the team must decide.

use std::fmt::Write as _;

use super::detect::Role;
use super::{Plan, PlannedLadder, PlannedOp};
use crate::matrix::{Check, CheckEntry};

/// A TOML basic string.
pub fn quote(s: &str) -> String {
    toml_edit::Value::from(s).to_string().trim().to_owned()
}

fn array(out: &mut String, key: &str, items: &[String]) {
    match items.len() {
        0 => {}
        1 => {
            let _ = writeln!(out, "{key} = [{}]", quote(&items[0]));
        }
        _ => {
            let _ = writeln!(out, "{key} = [");
            for i in items {
                let _ = writeln!(out, "  {},", quote(i));
            }
            let _ = writeln!(out, "]");
        }
    }
}

/// How many left-out files the draft names per reason.
const LEFT_OUT_CAP: usize = 8;

/// The matrix text for a plan.
pub fn toml(plan: &Plan) -> String {
    let mut out = String::new();
    header(&mut out, plan);
    let _ = writeln!(out, "[project]");
    let _ = writeln!(out, "name = {}", quote(&plan.name));
    let _ = writeln!(out, "reviewed = {}", plan.today);
    out.push('\n');
    if !plan.include.is_empty() {
        let kinds: Vec<String> = plan
            .kinds
            .iter()
            .map(|(k, n)| format!("{} {n}", k.name()))
            .collect();
        let _ = writeln!(out, "[kernels]  # {}", kinds.join(", "));
        array(&mut out, "include", &plan.include);
        array(&mut out, "exclude", &plan.exclude);
        left_out(&mut out, plan);
        out.push('\n');
    }
    let mut families = false;
    for op in &plan.ops {
        if op.family.is_some() && !families {
            families = true;
            out.push_str(FAMILIES_HEADING);
        }
        op_row(&mut out, op);
    }
    ladders(&mut out, &plan.ladders);
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn header(out: &mut String, plan: &Plan) {
    let _ = writeln!(
        out,
        "# Drafted by `sota init` on {} from {} tracked files: {} kernel files, {} in {} ops.",
        plan.today,
        plan.tracked_files,
        plan.kernels.len(),
        plan.covered(),
        plan.ops.len()
    );
    out.push_str(
        "# Kernel files are found by content (kernel markers, intrinsics, DSL decorators),\n\
         # ops chosen by what the code computes, then name, directory and content signals.\n\
         # Check each grouping, then decide every op's `route` (borrow | bind |\n\
         # stay-minimal) and `oracle`: until decided they count as debt in `sota coverage`.\n",
    );
    if plan.ops.iter().any(|o| !o.check.is_empty()) {
        out.push_str(
            "# Each `check` list is the catalog's, so `sota prove SLUG` runs on the draft.\n",
        );
    }
    if !plan.ladders.is_empty() {
        out.push_str(
            "# The ladders at the end are the catalog's for these ops, no rung claimed.\n",
        );
    }
    if let Some(n) = plan.examples_ship {
        let _ = writeln!(
            out,
            "# A collection of samples: its {n} example kernel sources outnumber the kernels\n\
             # elsewhere tenfold (or are its only ones), so its examples/ and samples/ (and\n\
             # its benchmarks/) are counted as its kernels."
        );
    }
    if !plan.unclassified.is_empty() {
        let _ = writeln!(
            out,
            "# {} kernel file{} had too little evidence for any op: left for the team\n\
             # (uncovered until placed: `sota suggest FILE --op SLUG`).",
            plan.unclassified.len(),
            if plan.unclassified.len() == 1 {
                ""
            } else {
                "s"
            }
        );
    }
    out.push('\n');
}

/// Written once, before the first family of the tree's own.
const FAMILIES_HEADING: &str = "\
# Families of this tree's own: kernel files no catalog op took, grouped by a
# word their names share that no placed file's name has (ports of one
# computation to several instruction sets that only a backend op took: by the
# word their names lead with). Each op is a
# proposal: rename it, say what to read first (`sota`), add `link`, route
# and oracle — or move its files (`sota suggest FILE --op SLUG --write`).

";

/// Comments naming the kernel-looking files left out of the population,
/// by reason, so a reader can put one back.
fn left_out(out: &mut String, plan: &Plan) {
    let mut by_reason: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    // A name the matrix cannot hold is not written, not even in a comment.
    for s in plan
        .skipped
        .iter()
        .filter(|s| s.role != Role::UnwritableName)
    {
        let reason = match (s.role, s.reason) {
            (Role::Infrastructure, Some(why)) => format!("infrastructure ({why}), not an op"),
            (Role::Vendored, Some(why)) => format!("vendored copy ({why}): another project's code"),
            (Role::Vendored, None) => {
                "vendored copy (third_party/, vendor/, external/…): another project's code"
                    .to_owned()
            }
            (Role::Test, _) => "test".to_owned(),
            (Role::Bench, _) => "benchmark or baseline".to_owned(),
            (Role::Example, _) => "example".to_owned(),
            (Role::Docs, _) => "documentation".to_owned(),
            (Role::Retired, _) => "retired code (kept for reference, not built)".to_owned(),
            (Role::HostCode, Some(why)) => format!("host code: {why}"),
            (Role::HostCode, None) => {
                "host code: a GPU source with no device code that includes no kernel".to_owned()
            }
            (role, _) => role.name().to_owned(),
        };
        by_reason.entry(reason).or_default().push(&s.path);
    }
    if by_reason.is_empty() {
        return;
    }
    let _ = writeln!(out, "# Left out of the population:");
    for (reason, files) in by_reason {
        let _ = writeln!(out, "#   {reason} ({}):", files.len());
        for f in files.iter().take(LEFT_OUT_CAP) {
            let _ = writeln!(out, "#     {f}");
        }
        if files.len() > LEFT_OUT_CAP {
            let _ = writeln!(out, "#     … and {} more", files.len() - LEFT_OUT_CAP);
        }
    }
}

fn op_row(out: &mut String, op: &PlannedOp) {
    let _ = writeln!(out, "[[op]]");
    let _ = writeln!(out, "slug = {}", quote(&op.slug));
    let _ = writeln!(out, "title = {}", quote(&op.title));
    let evidence: Vec<String> = op
        .signals
        .iter()
        .map(|(s, n)| format!("{s} ×{n}"))
        .collect();
    let _ = writeln!(
        out,
        "# {} file{}: {}",
        op.file_count,
        if op.file_count == 1 { "" } else { "s" },
        evidence.join(", ")
    );
    // A family's files are all weak by construction: the heading says so.
    if op.weak > 0 && op.family.is_none() {
        let _ = writeln!(
            out,
            "# weak evidence for {} of them (no name, content or computation signal: a directory, a backend default, a building block alone or this repository's own op): check them",
            op.weak
        );
    }
    array(out, "files", &op.files);
    array(out, "at", &op.at);
    if let Some(own) = &op.self_reference {
        let _ = writeln!(
            out,
            "# The catalog's reference, {own}, is this repository: the next one is named instead."
        );
    }
    let _ = writeln!(out, "sota = {}", quote(&op.sota));
    if let Some(link) = &op.link {
        let _ = writeln!(out, "link = {}", quote(link));
    }
    decisions(out, op);
    checks(out, op);
    array(out, "papers", &op.papers);
    out.push('\n');
}

/// The route and oracle, suggested in comments: the team decides.
fn decisions(out: &mut String, op: &PlannedOp) {
    match &op.suggested_route {
        Some(r) => {
            let _ = writeln!(
                out,
                "# route = {}   # the catalog suggests this; decide: borrow | bind | stay-minimal",
                quote(r)
            );
        }
        None => {
            let _ = writeln!(out, "# route: decide borrow | bind | stay-minimal");
        }
    }
    match &op.suggested_oracle {
        Some(o) => {
            let _ = writeln!(
                out,
                "# oracle = {}   # the catalog's; adopt or write yours",
                quote(o)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "# oracle: decide what proves an implementation correct"
            );
        }
    }
}

/// The catalog's `check` list as the op's own: `sota prove SLUG` judges a
/// candidate with it from the first run.
fn checks(out: &mut String, op: &PlannedOp) {
    if op.check.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "# check: the catalog's, so `sota prove {}` runs now; tighten or replace it",
        op.slug
    );
    match op.check.as_slice() {
        [one] => {
            let _ = writeln!(out, "check = [{}]", check_item(one));
        }
        many => {
            let _ = writeln!(out, "check = [");
            for c in many {
                let _ = writeln!(out, "  {},", check_item(c));
            }
            let _ = writeln!(out, "]");
        }
    }
}

/// One `check` entry as an inline table, keys as `sota schema` names them.
fn check_item(entry: &CheckEntry) -> String {
    let mut fields = vec![format!("metric = {}", quote(entry.check.metric().name()))];
    let mut bound = |key: &str, x: f64| fields.push(format!("{key} = {}", number(x)));
    match entry.check {
        Check::Cosine { min } | Check::Argmax { min } => bound("min", min),
        Check::MaxAbs { max } | Check::MaxRel { max } => bound("max", max),
        Check::Allclose { rtol, atol } => {
            if let Some(r) = rtol {
                bound("rtol", r);
            }
            if let Some(a) = atol {
                bound("atol", a);
            }
        }
        Check::BitIdentity => {}
        Check::Local { stat, bound: b, .. } if stat.is_min() => bound("min", b),
        Check::Local { bound: b, .. } => bound("max", b),
    }
    let names: Vec<String> = entry.dtypes.iter().map(|d| quote(d.name())).collect();
    match names.as_slice() {
        [] => {}
        [one] => fields.push(format!("dtype = {one}")),
        many => fields.push(format!("dtype = [{}]", many.join(", "))),
    }
    format!("{{ {} }}", fields.join(", "))
}

/// A TOML float as the catalog writes it: `1e-5` rather than `0.00001`
/// for small bounds (Rust's shortest round-trip digits either way).
fn number(x: f64) -> String {
    match x != 0.0 && x.abs() < 1e-2 {
        true => format!("{x:e}"),
        false => toml_edit::Value::from(x).to_string().trim().to_owned(),
    }
}

/// The catalog ladders the draft's ops bring in, each as `sota suggest
/// --ladder` writes it, with a comment saying which op brought it.
fn ladders(out: &mut String, ladders: &[PlannedLadder]) {
    if ladders.is_empty() {
        return;
    }
    let mut tables = toml_edit::ArrayOfTables::new();
    for planned in ladders {
        let mut t = crate::surface::suggest::ladder_table(&planned.ladder);
        let by: Vec<String> = planned
            .brought_by
            .iter()
            .map(|s| format!("`{s}`"))
            .collect();
        t.decor_mut().set_prefix(format!(
            "\n# From the catalog, for this draft's {}.\n\
             # No rung is claimed: set `reached` and its `witness` (an op slug or a path)\n\
             # once the tree backs a rung.\n",
            by.join(", ")
        ));
        tables.push(t);
    }
    let mut doc = toml_edit::DocumentMut::new();
    doc.insert("ladder", toml_edit::Item::ArrayOfTables(tables));
    // The op rows end in a blank line already.
    out.push_str(doc.to_string().trim_start_matches('\n'));
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use crate::matrix::Matrix;

    /// Every catalog op's check list, as the draft writes it, loads back
    /// as the same checks (metric, bounds, dtypes).
    #[test]
    fn drafted_check_lists_load_back_as_the_catalogs() {
        let catalog = Matrix::catalog();
        let mut text = String::from("[project]\nname = \"x\"\n");
        let mut with_checks = 0;
        for op in catalog.ops.iter().filter(|o| !o.check.is_empty()) {
            with_checks += 1;
            let items: Vec<String> = op
                .check
                .iter()
                .map(|c| super::check_item(&c.value))
                .collect();
            text.push_str(&format!(
                "\n[[op]]\nslug = \"{}\"\ntitle = \"t\"\nsota = \"s\"\ncheck = [{}]\n",
                op.slug.value,
                items.join(", ")
            ));
        }
        assert!(with_checks > 40, "{with_checks}");
        let drafted = Matrix::from_str(&text, "sota.toml").expect("the drafted checks load");
        for op in catalog.ops.iter().filter(|o| !o.check.is_empty()) {
            let back: Vec<_> = drafted
                .op(&op.slug.value)
                .unwrap()
                .check
                .iter()
                .map(|c| &c.value)
                .collect();
            let want: Vec<_> = op.check.iter().map(|c| &c.value).collect();
            assert_eq!(back, want, "{}", op.slug.value);
        }
    }

    #[test]
    fn small_bounds_read_as_the_catalog_writes_them() {
        assert_eq!(super::number(1e-3), "1e-3");
        assert_eq!(super::number(1.5e-5), "1.5e-5");
        assert_eq!(super::number(0.999), "0.999");
        assert_eq!(super::number(0.0), "0.0");
        assert_eq!(super::number(1.0), "1.0");
    }
}
