//! The drafted `sota.toml` as text: the plan in the matrix format, with
//! comments that say what was inferred and what the team must decide.

use std::fmt::Write as _;

use super::detect::Role;
use super::{Plan, PlannedOp};

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
    for op in &plan.ops {
        op_row(&mut out, op);
    }
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
         # ops chosen by file-name, directory and content signals from the built-in catalog.\n\
         # Check each grouping, then decide every op's `route` (borrow | bind |\n\
         # stay-minimal) and `oracle`: until decided they count as debt in `sota coverage`.\n",
    );
    if !plan.unclassified.is_empty() {
        let _ = writeln!(
            out,
            "# {} kernel file{} had too little evidence for any op: left for the team\n\
             # (uncovered until placed; `sota suggest --uncovered`).",
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
            (Role::Vendored, _) => {
                "vendored copy (third_party/, vendor/, external/…): another project's code"
                    .to_owned()
            }
            (Role::Test, _) => "test".to_owned(),
            (Role::Bench, _) => "benchmark or baseline".to_owned(),
            (Role::Example, _) => "example".to_owned(),
            (Role::Docs, _) => "documentation".to_owned(),
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
    if op.weak > 0 {
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
