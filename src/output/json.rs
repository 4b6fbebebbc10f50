//! Machine output: dedicated, versioned JSON types. Every payload carries a
//! `schema` field naming its shape and version; fields are never renamed
//! within a version.

use serde::Serialize;

use crate::matrix::{Check, LineIndex, Matrix, Op, Origin};
use crate::surface::lookup::{FileHit, NotFound, SearchHit};
use crate::surface::milestones::{LadderView, Mark, RungView};

pub use super::schema_id::SchemaId;

/// Where the answer came from.
#[derive(Serialize)]
pub struct SourceJson {
    pub origin: Origin,
    /// The matrix file, or null for the catalog.
    pub matrix: Option<String>,
    pub project: String,
}

impl SourceJson {
    pub fn of(matrix: &Matrix) -> Self {
        SourceJson {
            origin: matrix.origin,
            matrix: (matrix.origin == Origin::Project).then(|| matrix.display_name()),
            project: matrix.project.name.clone(),
        }
    }
}

#[derive(Serialize)]
pub struct CheckJson {
    pub metric: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtol: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atol: Option<f64>,
    /// The candidate dtypes the check applies to (absent: every dtype).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dtype: Vec<&'static str>,
}

impl CheckJson {
    /// A matrix check entry, with its dtype restriction.
    pub fn of_entry(entry: &crate::matrix::CheckEntry) -> Self {
        let mut j = CheckJson::of(&entry.check);
        j.dtype = entry.dtypes.iter().map(|d| d.name()).collect();
        j
    }

    pub fn of(check: &Check) -> Self {
        let mut j = CheckJson {
            metric: check.metric().name(),
            min: None,
            max: None,
            rtol: None,
            atol: None,
            dtype: Vec::new(),
        };
        match *check {
            Check::Cosine { min } | Check::Argmax { min } => j.min = Some(min),
            Check::MaxAbs { max } | Check::MaxRel { max } => j.max = Some(max),
            Check::Allclose { rtol, atol } => {
                j.rtol = rtol;
                j.atol = atol;
            }
            Check::BitIdentity => {}
            Check::Local { stat, bound, .. } if stat.is_min() => j.min = Some(bound),
            Check::Local { bound, .. } => j.max = Some(bound),
        }
        j
    }
}

/// One op, every field present (null or empty when absent).
#[derive(Serialize)]
pub struct OpJson {
    pub slug: String,
    pub title: String,
    pub files: Vec<String>,
    pub at: Vec<String>,
    #[serde(rename = "where")]
    pub where_: Option<String>,
    pub sota: String,
    pub link: Option<String>,
    pub route: Option<&'static str>,
    pub route_meaning: Option<&'static str>,
    pub oracle: Option<String>,
    pub check: Vec<CheckJson>,
    pub witness: Vec<String>,
    pub papers: Vec<String>,
    pub note: Option<String>,
    /// Axes of the ladders this op witnesses.
    pub ladders: Vec<String>,
    /// `file:line:col` of the op's slug in the matrix (or in the team
    /// catalog that answered).
    pub defined_at: String,
    /// When the row was last checked against the field (`YYYY-MM-DD`).
    pub checked: Option<String>,
    /// References the row names that have a successor.
    pub superseded: Vec<SupersededJson>,
    /// Which catalog answered: `<built-in catalog>` or the team catalog's
    /// file; null when a project's matrix answered.
    pub catalog: Option<String>,
}

#[derive(Serialize)]
pub struct SupersededJson {
    pub link: String,
    pub by: String,
}

impl OpJson {
    /// `lines` indexes `matrix.text` (built once per payload: one
    /// `file:line:col` per op must not rescan the file).
    pub fn of(matrix: &Matrix, lines: &LineIndex<'_>, op: &Op) -> Self {
        let (file, (line, col)) = match &op.team {
            Some(team) => (
                team.name.clone(),
                crate::matrix::line_col(&team.text, op.slug.span.start),
            ),
            None => (matrix.display_name(), lines.line_col(op.slug.span.start)),
        };
        OpJson {
            slug: op.slug.value.clone(),
            title: op.title.clone(),
            files: op
                .files
                .iter()
                .map(|g| g.value.as_str().to_owned())
                .collect(),
            at: op.at.iter().map(|a| a.value.to_string()).collect(),
            where_: op.where_.clone(),
            sota: op.sota.clone(),
            link: op.link.as_ref().map(|l| l.value.clone()),
            route: op.route.as_ref().map(|r| r.value.name()),
            route_meaning: op.route.as_ref().map(|r| r.value.meaning()),
            oracle: op.oracle.clone(),
            check: op
                .check
                .iter()
                .map(|c| CheckJson::of_entry(&c.value))
                .collect(),
            witness: op.witness.iter().map(|a| a.value.to_string()).collect(),
            papers: op.papers.clone(),
            note: op.note.clone(),
            ladders: matrix
                .ladders_witnessed_by(&op.slug.value)
                .map(|l| l.axis.value.clone())
                .collect(),
            defined_at: format!("{file}:{line}:{col}"),
            checked: op.checked.as_ref().map(|d| d.value.to_string()),
            superseded: op
                .superseded
                .iter()
                .map(|s| SupersededJson {
                    link: s.link.clone(),
                    by: s.by.clone(),
                })
                .collect(),
            catalog: (matrix.origin == Origin::Catalog).then(|| match &op.team {
                Some(team) => team.name.clone(),
                None => crate::catalog::PSEUDO_PATH.to_owned(),
            }),
        }
    }
}

#[derive(Serialize)]
pub struct ListJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub ops: Vec<OpJson>,
}

pub fn list(matrix: &Matrix) -> ListJson {
    let lines = LineIndex::new(&matrix.text);
    ListJson {
        schema: SchemaId::List,
        source: SourceJson::of(matrix),
        ops: matrix
            .ops_sorted()
            .into_iter()
            .map(|op| OpJson::of(matrix, &lines, op))
            .collect(),
    }
}

#[derive(Serialize)]
pub struct OpReportJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub op: OpJson,
}

pub fn op(matrix: &Matrix, op: &Op) -> OpReportJson {
    let lines = LineIndex::new(&matrix.text);
    OpReportJson {
        schema: SchemaId::Op,
        source: SourceJson::of(matrix),
        op: OpJson::of(matrix, &lines, op),
    }
}

#[derive(Serialize)]
pub struct FileHitJson {
    pub matched_by: String,
    pub op: OpJson,
}

#[derive(Serialize)]
pub struct FileJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    /// The root-relative path that was matched.
    pub path: String,
    pub ops: Vec<FileHitJson>,
}

pub fn file(matrix: &Matrix, path: &str, hits: &[FileHit<'_>]) -> FileJson {
    let lines = LineIndex::new(&matrix.text);
    FileJson {
        schema: SchemaId::File,
        source: SourceJson::of(matrix),
        path: path.to_owned(),
        ops: hits
            .iter()
            .map(|h| FileHitJson {
                matched_by: h.glob.to_owned(),
                op: OpJson::of(matrix, &lines, h.op),
            })
            .collect(),
    }
}

#[derive(Serialize)]
pub struct SearchHitJson {
    pub score: u32,
    pub op: OpJson,
}

#[derive(Serialize)]
pub struct SearchJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub query: String,
    pub hits: Vec<SearchHitJson>,
}

pub fn search(matrix: &Matrix, query: &str, hits: &[SearchHit<'_>]) -> SearchJson {
    let lines = LineIndex::new(&matrix.text);
    SearchJson {
        schema: SchemaId::Search,
        source: SourceJson::of(matrix),
        query: query.to_owned(),
        hits: hits
            .iter()
            .map(|h| SearchHitJson {
                score: h.score,
                op: OpJson::of(matrix, &lines, h.op),
            })
            .collect(),
    }
}

#[derive(Serialize)]
pub struct NotFoundJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub query: String,
    pub path: Option<String>,
    pub did_you_mean: Vec<String>,
    /// The subcommand the words look like (`coverage` for `covrage`).
    pub did_you_mean_command: Option<String>,
    pub slugs: Vec<String>,
}

pub fn not_found(matrix: &Matrix, nf: &NotFound<'_>, command_hint: Option<&str>) -> NotFoundJson {
    NotFoundJson {
        schema: SchemaId::NotFound,
        source: SourceJson::of(matrix),
        query: nf.query.clone(),
        path: nf.path.clone(),
        did_you_mean: nf.did_you_mean.iter().map(|s| s.to_string()).collect(),
        did_you_mean_command: command_hint.map(|c| format!("sota {c}")),
        slugs: nf.slugs.iter().map(|s| s.to_string()).collect(),
    }
}

#[derive(Serialize)]
pub struct RungJson {
    pub level: usize,
    pub name: String,
    pub year: u16,
    pub summary: String,
    pub cite: Option<String>,
    pub link: Option<String>,
    /// "reached", "next", or null.
    pub mark: Option<&'static str>,
}

impl RungJson {
    fn of(r: &RungView<'_>) -> Self {
        RungJson {
            level: r.level,
            name: r.rung.name.clone(),
            year: r.rung.year,
            summary: r.rung.summary.clone(),
            cite: r.rung.cite.clone(),
            link: r.rung.link.clone(),
            mark: match r.mark {
                Mark::Reached => Some("reached"),
                Mark::Next => Some("next"),
                Mark::None => None,
            },
        }
    }
}

#[derive(Serialize)]
pub struct RungRefJson {
    pub level: usize,
    pub name: String,
    pub year: u16,
}

fn rung_ref(r: &Option<RungView<'_>>) -> Option<RungRefJson> {
    r.as_ref().map(|r| RungRefJson {
        level: r.level,
        name: r.rung.name.clone(),
        year: r.rung.year,
    })
}

#[derive(Serialize)]
pub struct LadderSummaryJson {
    pub axis: String,
    /// The reached rung, or null when the project does not implement the axis.
    pub reached: Option<RungRefJson>,
    pub witness: Option<String>,
    pub next: Option<RungRefJson>,
    pub next_note: Option<String>,
    pub rungs: usize,
}

impl LadderSummaryJson {
    fn of(v: &LadderView<'_>) -> Self {
        LadderSummaryJson {
            axis: v.axis().to_owned(),
            reached: rung_ref(&v.reached),
            witness: v.ladder.witness.as_ref().map(|w| w.value.clone()),
            next: rung_ref(&v.next),
            next_note: v.ladder.next_note.clone(),
            rungs: v.rungs.len(),
        }
    }
}

#[derive(Serialize)]
pub struct MilestonesJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub ladders: Vec<LadderSummaryJson>,
}

pub fn milestones(matrix: &Matrix, views: &[LadderView<'_>]) -> MilestonesJson {
    MilestonesJson {
        schema: SchemaId::Milestones,
        source: SourceJson::of(matrix),
        ladders: views.iter().map(LadderSummaryJson::of).collect(),
    }
}

#[derive(Serialize)]
pub struct LadderJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub axis: String,
    pub reached: Option<RungRefJson>,
    pub witness: Option<String>,
    pub next: Option<RungRefJson>,
    pub next_note: Option<String>,
    pub rungs: Vec<RungJson>,
}

pub fn ladder(matrix: &Matrix, view: &LadderView<'_>) -> LadderJson {
    LadderJson {
        schema: SchemaId::Ladder,
        source: SourceJson::of(matrix),
        axis: view.axis().to_owned(),
        reached: rung_ref(&view.reached),
        witness: view.ladder.witness.as_ref().map(|w| w.value.clone()),
        next: rung_ref(&view.next),
        next_note: view.ladder.next_note.clone(),
        rungs: view.rungs.iter().map(RungJson::of).collect(),
    }
}

/// Pretty JSON with a trailing newline. Strings keep their exact value,
/// but every character a terminal or log viewer would act on is written as
/// a `\uXXXX` escape ([`VisibleEscapes`]): serde_json escapes only C0
/// controls, so a bidi override, U+2028 or a C1 control in a file name
/// would otherwise reach whoever reads the JSON on a screen.
pub fn to_string<T: Serialize>(value: &T) -> String {
    let mut bytes = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, VisibleEscapes::default());
    value.serialize(&mut ser).expect("report types serialize");
    let mut s = String::from_utf8(bytes).expect("serde_json writes UTF-8");
    s.push('\n');
    s
}

/// serde_json's pretty formatter, escaping [`crate::quote`]'s
/// unsafe characters that serde_json itself leaves raw.
#[derive(Default)]
struct VisibleEscapes(serde_json::ser::PrettyFormatter<'static>);

impl serde_json::ser::Formatter for VisibleEscapes {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        // serde_json has escaped C0 controls itself: none reach a fragment.
        while let Some((at, c)) = crate::quote::first_unsafe_at(rest, |_| false) {
            writer.write_all(&rest.as_bytes()[..at])?;
            write!(writer, "\\u{:04x}", c as u32)?;
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[derive(Serialize)]
pub struct UnknownAxisJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub axis: String,
    pub did_you_mean: Vec<String>,
    pub axes: Vec<String>,
}

pub fn unknown_axis(
    matrix: &Matrix,
    axis: &str,
    did_you_mean: &[&str],
    axes: &[&str],
) -> UnknownAxisJson {
    UnknownAxisJson {
        schema: SchemaId::UnknownAxis,
        source: SourceJson::of(matrix),
        axis: axis.to_owned(),
        did_you_mean: did_you_mean.iter().map(|s| s.to_string()).collect(),
        axes: axes.iter().map(|s| s.to_string()).collect(),
    }
}

/// `sota render`.
#[derive(Serialize)]
pub struct RenderJson {
    pub schema: SchemaId,
    pub source: SourceJson,
    pub file: String,
    pub check: bool,
    /// Whether the file was rewritten.
    pub wrote: bool,
    /// Whether the file matches the matrix (after the write, when one was made).
    pub up_to_date: bool,
    pub changes: Vec<RenderChangeJson>,
}

#[derive(Serialize)]
pub struct RenderChangeJson {
    pub region: crate::surface::render::Region,
    /// 1-based line of the opening marker.
    pub line: usize,
    pub old: String,
    pub new: String,
}

pub fn render(report: &crate::command::render::RenderReport<'_>) -> RenderJson {
    RenderJson {
        schema: SchemaId::Render,
        source: SourceJson::of(report.matrix),
        file: report.shown.clone(),
        check: report.check,
        wrote: report.wrote,
        up_to_date: report.changes.is_empty() || report.wrote,
        changes: report
            .changes
            .iter()
            .map(|c| RenderChangeJson {
                region: c.region,
                line: c.line,
                old: c.old.clone(),
                new: c.new.clone(),
            })
            .collect(),
    }
}

/// `sota hook install | uninstall`.
#[derive(Serialize)]
pub struct HooksJson {
    pub schema: SchemaId,
    /// "install" or "uninstall".
    pub command: &'static str,
    pub hooks: Vec<HookJson>,
}

#[derive(Serialize)]
pub struct HookJson {
    pub hook: &'static str,
    pub path: String,
    pub action: &'static str,
    /// Why a hook was refused.
    pub reason: Option<String>,
}

pub fn hooks(report: &crate::command::hook::HookReport) -> HooksJson {
    use crate::command::hook::HookCommand;
    HooksJson {
        schema: SchemaId::Hooks,
        command: match report.command {
            HookCommand::Install(_) => "install",
            HookCommand::Uninstall => "uninstall",
        },
        hooks: report
            .results
            .iter()
            .map(|r| HookJson {
                hook: r.hook.name(),
                path: r.path.to_string_lossy().into_owned(),
                action: (&r.action).into(),
                reason: match &r.action {
                    crate::repo::hooks::Action::Refused(why) => Some(why.clone()),
                    _ => None,
                },
            })
            .collect(),
    }
}

/// A failed run (exit 2), for `--json` callers.
#[derive(Serialize)]
pub struct ErrorJson {
    pub schema: SchemaId,
    /// A stable kind: `matrix-invalid`, `no-matrix`, `usage`, `git`, …
    pub kind: &'static str,
    pub message: String,
    pub hint: Option<String>,
    /// The matrix's located problems, when it did not load.
    pub problems: Vec<ProblemJson>,
}

#[derive(Serialize)]
pub struct ProblemJson {
    pub code: &'static str,
    /// `file:line:col`.
    pub location: String,
    pub message: String,
    pub help: Option<String>,
}

/// A load error's located problems (none for an unreadable file).
pub fn problems(e: &crate::matrix::LoadError) -> Vec<ProblemJson> {
    match e {
        crate::matrix::LoadError::Invalid(invalid) => {
            let lines = crate::matrix::LineIndex::new(&invalid.text);
            invalid
                .problems
                .iter()
                .map(|p| {
                    let (line, col) = lines.line_col(p.span.start);
                    ProblemJson {
                        code: p.code.name(),
                        location: format!("{}:{line}:{col}", invalid.name),
                        message: p.message.clone(),
                        help: p.help.clone(),
                    }
                })
                .collect()
        }
        crate::matrix::LoadError::Io { .. } | crate::matrix::LoadError::Outside { .. } => {
            Vec::new()
        }
    }
}

pub fn error(failure: &crate::outcome::Failure) -> ErrorJson {
    let problems = match failure {
        crate::outcome::Failure::Matrix(e) => problems(e),
        _ => Vec::new(),
    };
    ErrorJson {
        schema: SchemaId::Error,
        kind: failure.kind(),
        message: failure.to_string(),
        hint: failure.hint(),
        problems,
    }
}
