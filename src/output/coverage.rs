//! Renderings of the coverage scorecard: a human summary (long item lists
//! capped) and the full, deterministic JSON payload.

use std::fmt::Write as _;

use serde::Serialize;

use super::github::{self, Annotation, Level};
use super::json::SourceJson;
use super::markdown;
use super::{cell, paint, role};
use crate::command::coverage::RepoPaths;
use crate::matrix::Matrix;
use crate::quote::quote;
use crate::surface::coverage::{
    Group, Item, Kpi, Population, Report, Tracked, DEFAULT_KERNEL_EXTENSIONS,
};

/// How many items per KPI the human form shows.
pub const ITEM_CAP: usize = 10;

fn population_phrase(report: &Report) -> String {
    let source = match report.tracked_from {
        Tracked::GitIndex => "tracked files (git index)",
        Tracked::Walk => "files (no git repository: walked, ignore files honoured)",
    };
    match report.population {
        Population::Kernels => format!(
            "[kernels] include minus exclude: {} kernel files of {} {source}",
            report.kernel_files.len(),
            report.tracked_files
        ),
        Population::DefaultExtensions => format!(
            "no [kernels] table, so the default kernel extensions ({}): {} kernel files of {} {source}",
            DEFAULT_KERNEL_EXTENSIONS.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" "),
            report.kernel_files.len(),
            report.tracked_files
        ),
    }
}

fn item_line(item: &Item) -> String {
    let mut s = String::new();
    if let Some(owner) = &item.owner {
        let _ = write!(s, "{}: ", paint(role::SLUG, &quote(owner)));
    }
    let _ = write!(s, "{} — {}", quote(&item.subject), quote(&item.why));
    if let Some(at) = &item.at {
        let _ = write!(s, "  {}", paint(role::DIM, &quote(at)));
    }
    s
}

pub fn human(matrix: &Matrix, report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} — {} ({}), {}",
        paint(role::HEADING, "sota coverage"),
        matrix.project.name,
        matrix.display_name(),
        report.today
    );
    let _ = writeln!(out, "population: {}\n", population_phrase(report));
    let grade = report.grade();
    let grade_style = if grade == 'A' {
        role::REACHED
    } else if report.hard_debt > 0 {
        role::DEBT
    } else {
        role::NEXT
    };
    let _ = writeln!(
        out,
        "  grade {} · sota_debt {} · hard {} · {}\n",
        paint(grade_style, &grade.to_string()),
        report.sota_debt,
        report.hard_debt,
        Group::ALL
            .iter()
            .map(|g| format!("{} {}", g.name(), report.debt_of(*g)))
            .collect::<Vec<_>>()
            .join(" · ")
    );
    for &group in Group::ALL {
        let _ = writeln!(out, "  {}", paint(role::HEADING, group.name()));
        for k in report.kpis.iter().filter(|k| k.kpi.group() == group) {
            let (mark, style) = if k.debt == 0 {
                ("✓", role::REACHED)
            } else {
                ("✗", role::DEBT)
            };
            let _ = writeln!(
                out,
                "    {} {} {:>4}  {}  {}",
                paint(style, mark),
                cell(role::PLAIN, k.kpi.name(), 14),
                k.debt,
                cell(role::DIM, if k.kpi.hard() { "hard" } else { "soft" }, 4),
                k.detail
            );
            for item in k.items.iter().take(ITEM_CAP) {
                let _ = writeln!(out, "        {}", item_line(item));
            }
            if k.items.len() > ITEM_CAP {
                let _ = writeln!(
                    out,
                    "        … and {} more (`--json` lists all)",
                    k.items.len() - ITEM_CAP
                );
            }
        }
    }
    if report.hard_debt > 0 {
        let _ = writeln!(
            out,
            "\n{}",
            paint(role::DIM, "Hard debt fails `sota coverage --check`; fix the rows above in sota.toml (or the tree).")
        );
    }
    out
}

#[derive(Serialize)]
pub struct ItemJson<'a> {
    pub owner: Option<&'a str>,
    pub subject: &'a str,
    pub why: &'a str,
    pub at: Option<&'a str>,
}

#[derive(Serialize)]
pub struct KpiJson<'a> {
    pub name: &'static str,
    pub group: &'static str,
    pub hard: bool,
    pub description: &'static str,
    pub debt: usize,
    pub detail: &'a str,
    pub items: Vec<ItemJson<'a>>,
}

#[derive(Serialize)]
pub struct PopulationJson<'a> {
    /// "kernels" or "default-extensions".
    pub source: &'static str,
    /// The extensions used when `source` is "default-extensions".
    pub extensions: Option<&'static [&'static str]>,
    /// "git-index" or "walk".
    pub tracked_from: &'static str,
    pub tracked_files: usize,
    pub kernel_files: Texts<'a>,
    pub uncovered: Texts<'a>,
}

/// Paths as a JSON array of strings (invalid UTF-8 replaced).
pub struct Texts<'a>(pub &'a crate::repo::paths::PathList);

impl Serialize for Texts<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.lossy())
    }
}

#[derive(Serialize)]
pub struct DebtByGroup {
    pub complete: usize,
    pub honest: usize,
    pub proven: usize,
    pub fresh: usize,
}

#[derive(Serialize)]
pub struct CoverageJson<'a> {
    pub schema: crate::output::schema_id::SchemaId,
    pub source: SourceJson,
    /// The date freshness was judged against (`--today`, or the clock).
    pub today: String,
    pub sota_debt: usize,
    pub hard_debt: usize,
    pub grade: String,
    pub debt_by_group: DebtByGroup,
    pub population: PopulationJson<'a>,
    pub kpis: Vec<KpiJson<'a>>,
}

pub fn json<'a>(matrix: &Matrix, report: &'a Report) -> CoverageJson<'a> {
    CoverageJson {
        schema: crate::output::schema_id::SchemaId::Coverage,
        source: SourceJson::of(matrix),
        today: report.today.to_string(),
        sota_debt: report.sota_debt,
        hard_debt: report.hard_debt,
        grade: report.grade().to_string(),
        debt_by_group: DebtByGroup {
            complete: report.debt_of(Group::Complete),
            honest: report.debt_of(Group::Honest),
            proven: report.debt_of(Group::Proven),
            fresh: report.debt_of(Group::Fresh),
        },
        population: PopulationJson {
            source: match report.population {
                Population::Kernels => "kernels",
                Population::DefaultExtensions => "default-extensions",
            },
            extensions: (report.population == Population::DefaultExtensions)
                .then_some(DEFAULT_KERNEL_EXTENSIONS),
            tracked_from: match report.tracked_from {
                Tracked::GitIndex => "git-index",
                Tracked::Walk => "walk",
            },
            tracked_files: report.tracked_files,
            kernel_files: Texts(&report.kernel_files),
            uncovered: Texts(&report.uncovered),
        },
        kpis: report
            .kpis
            .iter()
            .map(|k| KpiJson {
                name: k.kpi.name(),
                group: k.kpi.group().name(),
                hard: k.kpi.hard(),
                description: k.kpi.describe(),
                debt: k.debt,
                detail: &k.detail,
                items: k
                    .items
                    .iter()
                    .map(|i| ItemJson {
                        owner: i.owner.as_deref(),
                        subject: &i.subject,
                        why: &i.why,
                        at: i.at.as_deref(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Where a coverage item points: the matrix line of its row, or the kernel
/// file an uncovered item names.
pub struct Place {
    pub file: String,
    pub line_col: Option<(usize, usize)>,
}

/// The place of `item` under `kpi`.
pub fn place(kpi: Kpi, item: &Item, paths: &RepoPaths) -> Place {
    if kpi == Kpi::TreeCoverage {
        return Place {
            file: format!("{}{}", paths.root_prefix, item.subject),
            line_col: None,
        };
    }
    Place {
        file: paths.matrix_file.clone(),
        line_col: item.line_col(),
    }
}

/// The one-line message of an item.
pub fn item_message(item: &Item) -> String {
    let subject = quote(&item.subject);
    match &item.owner {
        Some(owner) => format!("{}: {subject} — {}", quote(owner), item.why),
        None => format!("{subject} — {}", item.why),
    }
}

/// GitHub Actions annotations: one per offending item (hard KPIs as
/// errors, soft as warnings), on the `sota.toml` line of its row or on the
/// uncovered kernel file; at most [`github::CAP`] per type.
pub fn github(report: &Report, paths: &RepoPaths) -> String {
    let mut annotations = Vec::new();
    for k in &report.kpis {
        for item in &k.items {
            let at = place(k.kpi, item, paths);
            annotations.push(Annotation {
                level: if k.kpi.hard() {
                    Level::Error
                } else {
                    Level::Warning
                },
                file: quote(&at.file).into_owned(),
                line: at.line_col.map(|(l, _)| l),
                col: at.line_col.map(|(_, c)| c),
                title: format!("sota coverage: {}", k.kpi.name()),
                message: format!("{}\n({})", item_message(item), k.kpi.describe()),
            });
        }
    }
    let mut out = github::render(
        &annotations,
        "run `sota coverage` (or `sota coverage --json`) for the full list",
    );
    out.push_str(&format!(
        "::notice title=sota coverage::{}\n",
        github::data(&format!(
            "grade {} · sota_debt {} · hard {}",
            report.grade(),
            report.sota_debt,
            report.hard_debt
        ))
    ));
    out
}

/// The job summary: grade and debt, the KPI table, the offending rows.
pub fn summary(matrix: &Matrix, report: &Report) -> String {
    let mut out = format!(
        "## sota coverage — {}\n\n**Grade {}** · sota_debt **{}** · hard debt **{}** · as of {}\n\n",
        markdown::cell(&matrix.project.name),
        report.grade(),
        report.sota_debt,
        report.hard_debt,
        report.today
    );
    let rows: Vec<Vec<String>> = report
        .kpis
        .iter()
        .map(|k| {
            vec![
                if k.debt == 0 { "✅" } else { "❌" }.to_owned(),
                format!("`{}`", k.kpi.name()),
                k.kpi.group().name().to_owned(),
                if k.kpi.hard() { "hard" } else { "soft" }.to_owned(),
                k.debt.to_string(),
                markdown::cell(&k.detail),
            ]
        })
        .collect();
    out.push_str(&markdown::table(
        &["", "KPI", "group", "kind", "debt", "detail"],
        &rows,
    ));
    let items: Vec<(Kpi, &Item)> = report
        .kpis
        .iter()
        .flat_map(|k| k.items.iter().map(move |i| (k.kpi, i)))
        .collect();
    if !items.is_empty() {
        out.push_str("\n### Offending rows\n\n");
        let rows: Vec<Vec<String>> = items
            .iter()
            .take(markdown::ROW_CAP)
            .map(|(kpi, i)| {
                vec![
                    format!("`{}`", kpi.name()),
                    i.owner.as_deref().map(markdown::cell).unwrap_or_default(),
                    markdown::cell(&i.subject),
                    markdown::cell(&i.why),
                    i.at.as_deref().map(markdown::cell).unwrap_or_default(),
                ]
            })
            .collect();
        out.push_str(&markdown::table(
            &["KPI", "op / ladder", "item", "why", "where"],
            &rows,
        ));
        if items.len() > markdown::ROW_CAP {
            out.push_str(&format!(
                "\n… and {} more: run `sota coverage --json` for the full list.\n",
                items.len() - markdown::ROW_CAP
            ));
        }
    }
    out.push('\n');
    out
}
