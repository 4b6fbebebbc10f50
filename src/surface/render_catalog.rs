//! Docs tables for the built-in catalog (`sota --catalog render`): the
//! catalog binds no files and reaches no rung, so instead of the project's
//! "path" and "rung today" columns it shows what a reader adopting it needs —
//! the slug to use in `sota.toml`, the suggested route, the machine check, and
//! every rung of every ladder with its source, and the day each op and
//! ladder was last checked against the field.

use crate::matrix::{Date, Located, Matrix, Rung};

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A `checked` date, or a dash.
fn checked(date: Option<&Located<Date>>) -> String {
    date.map_or_else(|| "—".to_owned(), |d| d.value.to_string())
}

/// One row per op: operation, slug, reference to read first (and the
/// references it names that were superseded), suggested route, oracle,
/// machine check, the day it was last checked.
pub fn ops_table(matrix: &Matrix) -> String {
    let mut s = String::from(
        "| Operation | Slug | Read first | Suggested route | Oracle | Check | Checked |\n|---|---|---|---|---|---|---|\n",
    );
    for op in &matrix.ops {
        let mut sota = match &op.link {
            Some(l) => format!("[{}]({})", cell(&op.sota), l.value),
            None => cell(&op.sota),
        };
        for sup in &op.superseded {
            sota.push_str(&format!(" (superseded: {} → {})", sup.link, sup.by));
        }
        let check = op
            .check
            .iter()
            .map(|c| c.value.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {} |\n",
            cell(&op.title),
            op.slug.value,
            sota,
            op.route.as_ref().map_or("undecided", |r| r.value.name()),
            op.oracle.as_deref().map_or_else(String::new, cell),
            if check.is_empty() {
                "—".to_owned()
            } else {
                cell(&check)
            },
            checked(op.checked.as_ref()),
        ));
    }
    s
}

/// One row per rung, ladders in catalog order, rungs lowest first; a rung
/// placed above a newer one says why; the ladder's `checked` date on its
/// first row.
pub fn ladders_table(matrix: &Matrix) -> String {
    let mut s = String::from(
        "| Axis | Rung | Milestone | Year | What changed | Source | Checked |\n|---|---|---|---|---|---|---|\n",
    );
    for ladder in &matrix.ladders {
        for (i, rung) in ladder.rungs.iter().enumerate() {
            let mut summary = cell(&rung.summary);
            if let Some(why) = &rung.order_note {
                summary.push_str(&format!(" (placed here: {})", cell(why)));
            }
            s.push_str(&format!(
                "| {} | L{} | {} | {} | {} | {} | {} |\n",
                ladder.axis.value,
                i + 1,
                cell(&rung.name),
                rung.year,
                summary,
                source(rung),
                match i {
                    0 => checked(ladder.checked.as_ref()),
                    _ => String::new(),
                },
            ));
        }
    }
    s
}

/// A rung's citation and link as Markdown links.
fn source(rung: &Rung) -> String {
    let mut parts = Vec::new();
    if let Some(cite) = &rung.cite {
        parts.push(cite_link(cite));
    }
    if let Some(link) = &rung.link {
        parts.push(format!("[code/page]({link})"));
    }
    parts.join(" · ")
}

/// `arXiv:ID` and `doi:…` as links to their canonical pages; other cites as text.
fn cite_link(cite: &str) -> String {
    if let Some(id) = cite.strip_prefix("arXiv:") {
        format!("[{cite}](https://arxiv.org/abs/{id})")
    } else if let Some(doi) = cite.strip_prefix("doi:") {
        format!("[{cite}](https://doi.org/{doi})")
    } else {
        cell(cite)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cites_become_canonical_links() {
        assert_eq!(
            cite_link("arXiv:2205.14135"),
            "[arXiv:2205.14135](https://arxiv.org/abs/2205.14135)"
        );
        assert_eq!(
            cite_link("doi:10.1145/2764454"),
            "[doi:10.1145/2764454](https://doi.org/10.1145/2764454)"
        );
        assert_eq!(cite_link("OSDI 2022"), "OSDI 2022");
    }

    #[test]
    fn every_op_and_rung_gets_a_row() {
        let m = Matrix::catalog();
        let ops = ops_table(&m);
        assert_eq!(ops.lines().count(), 2 + m.ops.len());
        assert!(ops.contains("| `awq-int4-gemm` |"), "{ops}");
        assert!(
            ops.contains(" | 2026-12-01 |\n"),
            "ops show their checked date: {ops}"
        );
        assert!(
            ops.contains("(superseded: https://github.com/ROCm/composable_kernel → "),
            "{ops}"
        );
        let rungs: usize = m.ladders.iter().map(|l| l.rungs.len()).sum();
        let ladders = ladders_table(&m);
        assert_eq!(ladders.lines().count(), 2 + rungs);
        assert!(
            ladders.contains("| attention | L1 | FlashAttention-1 | 2022 |"),
            "{ladders}"
        );
        assert!(
            ladders.contains("| 2026-12-02 |\n| attention | L2 |"),
            "{ladders}"
        );
        assert!(
            ladders.contains("(placed here: older than FlashAttention-3"),
            "{ladders}"
        );
    }
}
