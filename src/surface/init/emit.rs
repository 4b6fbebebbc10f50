//! The drafted `sota.toml` as text: the plan in the matrix format, with
//! comments that say what was inferred and what the team must decide.

use std::fmt::Write as _;

use super::Plan;

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

/// The matrix text for a plan.
pub fn toml(plan: &Plan) -> String {
    let mut out = String::new();
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
        "# Ops come from the built-in catalog, chosen by file-name, directory and content\n\
         # signals. Check each grouping, then decide every op's `route` (borrow | bind |\n\
         # stay-minimal) and `oracle`: until decided they count as debt in `sota coverage`.\n",
    );
    if !plan.unclassified.is_empty() {
        let _ = writeln!(
            out,
            "# {} kernel file{} matched no op; uncovered until placed (`sota suggest --uncovered`).",
            plan.unclassified.len(),
            if plan.unclassified.len() == 1 { "" } else { "s" }
        );
    }
    out.push('\n');
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
        out.push('\n');
    }
    for op in &plan.ops {
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
        array(&mut out, "files", &op.files);
        array(&mut out, "at", &op.at);
        let _ = writeln!(out, "sota = {}", quote(&op.sota));
        if let Some(link) = &op.link {
            let _ = writeln!(out, "link = {}", quote(link));
        }
        match &op.suggested_route {
            Some(r) => {
                let _ = writeln!(out, "# route = {}   # the catalog suggests this; decide: borrow | bind | stay-minimal", quote(r));
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
        array(&mut out, "papers", &op.papers);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
