//! The validated, typed prior-art matrix. Holding a [`Matrix`] is proof that
//! the file it came from passed every load-time check.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::glob::FileGlob;

/// A value together with the byte range of the text it was read from, so
/// later checks (coverage, anchors) can point back at `sota.toml:line:col`.
#[derive(Clone, Debug, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub span: Range<usize>,
}

impl<T> Located<T> {
    pub fn new(value: T, span: Range<usize>) -> Self {
        Located { value, span }
    }
}

impl<T> std::ops::Deref for Located<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// Where a matrix came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// A project's `sota.toml`.
    Project,
    /// The catalog compiled into the binary.
    Catalog,
}

/// The loaded prior-art matrix.
#[derive(Clone, Debug)]
pub struct Matrix {
    pub origin: Origin,
    /// The matrix file (for the catalog, a pseudo path).
    pub file: PathBuf,
    /// The file as shown to the user (relative to the working directory
    /// when the caller resolved one).
    pub name: String,
    /// The file's text, kept so later surfaces can cite `file:line:col`.
    /// The `String` read from the file, moved in (an `Arc<str>` would
    /// copy it: 0.3 ms for a 400 KB matrix): byte for byte the file's
    /// content, which `cache::Cache` compares a fresh read against.
    pub text: Arc<String>,
    /// The directory all paths and globs are relative to.
    pub root: PathBuf,
    pub project: Project,
    pub kernels: Option<Kernels>,
    /// Ops in file order.
    pub ops: Vec<Op>,
    /// Ladders in file order.
    pub ladders: Vec<Ladder>,
    /// The team catalog merged over the built-in one, when one was
    /// (its rows carry it too, in [`Op::team`] and [`Ladder::team`]).
    pub team: Option<Arc<TeamSource>>,
}

impl Matrix {
    /// The op with this slug.
    pub fn op(&self, slug: &str) -> Option<&Op> {
        self.ops.iter().find(|op| op.slug.value == slug)
    }

    /// The ladder on this axis.
    pub fn ladder(&self, axis: &str) -> Option<&Ladder> {
        self.ladders.iter().find(|l| l.axis.value == axis)
    }

    /// Ops sorted by slug.
    pub fn ops_sorted(&self) -> Vec<&Op> {
        let mut ops: Vec<&Op> = self.ops.iter().collect();
        ops.sort_by(|a, b| a.slug.value.cmp(&b.slug.value));
        ops
    }

    /// Ladders whose `witness` is this op's slug.
    pub fn ladders_witnessed_by<'a>(&'a self, slug: &'a str) -> impl Iterator<Item = &'a Ladder> {
        self.ladders
            .iter()
            .filter(move |l| l.witness.as_ref().is_some_and(|w| w.value == slug))
    }

    /// The matrix file as shown to the user (relative to the working
    /// directory when inside it).
    pub fn display_name(&self) -> String {
        self.name.clone()
    }

    /// 1-based line and column of a span in the matrix file.
    pub fn line_col(&self, span: &Range<usize>) -> (usize, usize) {
        crate::matrix::diagnostic::line_col(&self.text, span.start)
    }
}

/// `[project]`.
#[derive(Clone, Debug)]
pub struct Project {
    pub name: String,
    pub reviewed: Option<Located<Date>>,
    pub provenance: Option<String>,
    pub fresh_days: u32,
    /// When the team adopted sota: the audit and the report read history
    /// from this date (else from the commit that added the matrix).
    pub adopted: Option<Located<Date>>,
    /// `catalog`: the team catalog file, relative to the matrix root
    /// (confined to the repository like the matrix).
    pub catalog: Option<Located<String>>,
}

/// The default staleness window for `reviewed`, in days.
pub const DEFAULT_FRESH_DAYS: u32 = 90;

/// `[kernels]`: the population of files the matrix must cover.
#[derive(Clone, Debug)]
pub struct Kernels {
    pub include: Vec<Located<FileGlob>>,
    pub exclude: Vec<Located<FileGlob>>,
}

/// One `[[op]]` row.
#[derive(Clone, Debug)]
pub struct Op {
    pub slug: Located<String>,
    pub title: String,
    pub files: Vec<Located<FileGlob>>,
    pub at: Vec<Located<Anchor>>,
    pub where_: Option<String>,
    pub sota: String,
    pub link: Option<Located<String>>,
    pub route: Option<Located<Route>>,
    pub oracle: Option<String>,
    pub check: Vec<Located<CheckEntry>>,
    pub witness: Vec<Located<Anchor>>,
    pub papers: Vec<String>,
    pub note: Option<String>,
    /// `checked`: when the row was last checked against the field
    /// (required in a catalog, optional in a project's matrix).
    pub checked: Option<Located<Date>>,
    /// `superseded`: references the row names that have a successor.
    pub superseded: Vec<Superseded>,
    /// The team catalog the row came from, when a team catalog answered
    /// (`None` for the built-in catalog and a project's matrix).
    pub team: Option<Arc<TeamSource>>,
}

/// One `superseded` entry: a reference (`link`) and the one that took its
/// place (`by`): a repository that moved, an archived project's successor,
/// a mirror's canonical home.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Superseded {
    pub link: String,
    pub by: String,
}

/// A team catalog merged over the built-in one: its name as shown to the
/// user and its text (so a row it answered can cite `file:line:col`).
#[derive(Clone, Debug)]
pub struct TeamSource {
    pub name: String,
    pub text: Arc<String>,
}

/// How the project relates to the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Route {
    Borrow,
    Bind,
    StayMinimal,
}

impl Route {
    /// Every route, in declaration order.
    pub const ALL: &[Route] = <Route as strum::VariantArray>::VARIANTS;

    /// The name as written in the matrix (the variant in kebab-case).
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn parse(text: &str) -> Option<Route> {
        Route::ALL.iter().copied().find(|r| r.name() == text)
    }

    /// What choosing this route commits the project to.
    pub fn meaning(self) -> &'static str {
        match self {
            Route::Borrow => {
                "adapt the reference technique into our own kernel — only after a witness for the current path exists"
            }
            Route::Bind => "use the production library or format directly instead of writing our own",
            Route::StayMinimal => {
                "keep our own small, exact implementation; its contract (e.g. bit-exactness) is the value, not raw speed"
            }
        }
    }
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A place in the tree: `path[:LINE][#symbol]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    pub path: String,
    pub line: Option<u32>,
    pub symbol: Option<String>,
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(symbol) = &self.symbol {
            write!(f, "#{symbol}")?;
        }
        Ok(())
    }
}

/// One machine-checkable oracle bound (SPEC section 7).
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    Cosine {
        min: f64,
    },
    MaxAbs {
        max: f64,
    },
    MaxRel {
        max: f64,
    },
    /// A tolerance left out takes the default for the candidate's dtype
    /// (`sota prove`: torch.testing's where it has one).
    Allclose {
        rtol: Option<f64>,
        atol: Option<f64>,
    },
    Argmax {
        min: f64,
    },
    BitIdentity,
    /// A bound on the worst row (along an axis) or the worst tile (over the
    /// last two axes): `row-cosine >= 0.999`, `tile-max-abs <= 1e-2`.
    Local {
        scope: Scope,
        stat: LocalStat,
        bound: f64,
    },
}

/// What a localized check groups elements into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every 1-D slice along one axis (by default the last: one row of the
    /// flattened leading axes).
    Row,
    /// Tiles over the last two axes (`--tile 16x16` by default).
    Tile,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Row => "row",
            Scope::Tile => "tile",
        }
    }
}

/// The statistic a localized check bounds, per row or tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocalStat {
    /// Cosine similarity of the group: the worst is the lowest.
    Cosine,
    /// Largest |ref − cand| in the group.
    MaxAbs,
    /// ‖ref − cand‖₂ / ‖ref‖₂ over the group.
    RelL2,
}

impl LocalStat {
    pub fn name(self) -> &'static str {
        match self {
            LocalStat::Cosine => "cosine",
            LocalStat::MaxAbs => "max-abs",
            LocalStat::RelL2 => "rel-l2",
        }
    }

    /// Whether the bound is a minimum (cosine) rather than a maximum.
    pub fn is_min(self) -> bool {
        self == LocalStat::Cosine
    }
}

/// The oracle metrics (SPEC section 7), named as written in `sota.toml`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr, strum::EnumString,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Metric {
    Cosine,
    MaxAbs,
    MaxRel,
    Allclose,
    Argmax,
    BitIdentity,
    RowCosine,
    RowMaxAbs,
    #[strum(serialize = "row-rel-l2")]
    RowRelL2,
    TileCosine,
    TileMaxAbs,
    #[strum(serialize = "tile-rel-l2")]
    TileRelL2,
}

impl Metric {
    /// The name as written in `sota.toml`.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Every metric name, in order.
    pub fn names() -> Vec<&'static str> {
        <Metric as strum::IntoEnumIterator>::iter()
            .map(Metric::name)
            .collect()
    }

    /// The keys a check of this metric takes besides `metric` (and
    /// `dtype`, which every check takes).
    pub fn parameters(self) -> &'static [&'static str] {
        match self {
            Metric::Cosine | Metric::Argmax | Metric::RowCosine | Metric::TileCosine => &["min"],
            Metric::Allclose => &["rtol", "atol"],
            Metric::BitIdentity => &[],
            _ => &["max"],
        }
    }

    /// The scope and statistic of a localized metric.
    pub fn local(self) -> Option<(Scope, LocalStat)> {
        Some(match self {
            Metric::RowCosine => (Scope::Row, LocalStat::Cosine),
            Metric::RowMaxAbs => (Scope::Row, LocalStat::MaxAbs),
            Metric::RowRelL2 => (Scope::Row, LocalStat::RelL2),
            Metric::TileCosine => (Scope::Tile, LocalStat::Cosine),
            Metric::TileMaxAbs => (Scope::Tile, LocalStat::MaxAbs),
            Metric::TileRelL2 => (Scope::Tile, LocalStat::RelL2),
            _ => return None,
        })
    }
}

impl Check {
    pub fn metric(&self) -> Metric {
        match self {
            Check::Cosine { .. } => Metric::Cosine,
            Check::MaxAbs { .. } => Metric::MaxAbs,
            Check::MaxRel { .. } => Metric::MaxRel,
            Check::Allclose { .. } => Metric::Allclose,
            Check::Argmax { .. } => Metric::Argmax,
            Check::BitIdentity => Metric::BitIdentity,
            Check::Local { scope, stat, .. } => <Metric as strum::IntoEnumIterator>::iter()
                .find(|m| m.local() == Some((*scope, *stat)))
                .expect("every scope and statistic has a metric"),
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Cosine { min } => write!(f, "cosine ≥ {min}"),
            Check::MaxAbs { max } => write!(f, "max-abs ≤ {max}"),
            Check::MaxRel { max } => write!(f, "max-rel ≤ {max}"),
            Check::Allclose { rtol, atol } => {
                let show =
                    |v: &Option<f64>| v.map_or("dtype default".to_owned(), |v| v.to_string());
                write!(f, "allclose(rtol={}, atol={})", show(rtol), show(atol))
            }
            Check::Argmax { min } => write!(f, "argmax agreement ≥ {min}"),
            Check::BitIdentity => f.write_str("bit-identity"),
            Check::Local { stat, bound, .. } => {
                let op = if stat.is_min() { "≥" } else { "≤" };
                write!(f, "{} {op} {bound}", self.metric().name())
            }
        }
    }
}

/// A check as the matrix holds it: the bound, and the candidate dtypes it
/// applies to (empty: every dtype). `sota prove` judges a pair by the
/// entries whose `dtype` list is empty or names the candidate's type.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckEntry {
    pub check: Check,
    pub dtypes: Vec<crate::dtype::DType>,
}

impl CheckEntry {
    /// A check for every dtype.
    pub fn any(check: Check) -> CheckEntry {
        CheckEntry {
            check,
            dtypes: Vec::new(),
        }
    }

    /// Whether this entry applies to a candidate of `dtype`.
    pub fn applies_to(&self, dtype: crate::dtype::DType) -> bool {
        self.dtypes.is_empty() || self.dtypes.contains(&dtype)
    }
}

impl std::ops::Deref for CheckEntry {
    type Target = Check;
    fn deref(&self) -> &Check {
        &self.check
    }
}

impl fmt::Display for CheckEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.dtypes.is_empty() {
            let names: Vec<&str> = self.dtypes.iter().map(|d| d.name()).collect();
            write!(f, "{}: ", names.join(","))?;
        }
        self.check.fmt(f)
    }
}

/// One `[[ladder]]`: a capability's dated SOTA arc.
#[derive(Clone, Debug)]
pub struct Ladder {
    pub axis: Located<String>,
    /// Index into `rungs` of the highest rung the project has reached.
    pub reached: Option<usize>,
    pub reached_span: Option<Range<usize>>,
    /// An op slug or a path in the tree that backs `reached`.
    pub witness: Option<Located<String>>,
    pub next_note: Option<String>,
    pub rungs: Vec<Rung>,
    /// `checked`: when the ladder was last checked against the field
    /// (required in a catalog, optional in a project's matrix).
    pub checked: Option<Located<Date>>,
    /// Catalog only (`ops`): the catalog ops whose rungs this ladder ranks;
    /// `sota init` drafts the ladder when the draft holds one of them.
    /// Always empty in a project's matrix.
    pub ops: Vec<Located<String>>,
    /// The team catalog the ladder came from (see [`Op::team`]).
    pub team: Option<Arc<TeamSource>>,
}

impl Ladder {
    /// The rung after the reached one (or the first, if none is reached).
    pub fn next(&self) -> Option<(usize, &Rung)> {
        let i = self.reached.map_or(0, |r| r + 1);
        self.rungs.get(i).map(|r| (i, r))
    }

    /// The reached rung with its index.
    pub fn reached_rung(&self) -> Option<(usize, &Rung)> {
        self.reached.map(|i| (i, &self.rungs[i]))
    }
}

/// One `[[ladder.rung]]`.
#[derive(Clone, Debug)]
pub struct Rung {
    pub name: String,
    pub year: u16,
    pub summary: String,
    pub cite: Option<String>,
    pub link: Option<String>,
    /// `order-note`: why this rung sits above a rung that appeared later
    /// (a catalog refuses an out-of-order rung without one).
    pub order_note: Option<String>,
}

/// A calendar date (TOML local date).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// Days since 1970-01-01 (proleptic Gregorian), for date arithmetic.
    pub fn days_since_epoch(self) -> i64 {
        // Howard Hinnant's days_from_civil.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let m = i64::from(self.month);
        let d = i64::from(self.day);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01 (inverse of `days_since_epoch`).
    pub fn from_days_since_epoch(days: i64) -> Date {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as u16;
        Date { year, month, day }
    }

    /// Parse `YYYY-MM-DD`, checking the calendar.
    /// `YYYY-MM`, for grouping by month.
    pub fn month_key(self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }

    pub fn parse(text: &str) -> Option<Date> {
        let bytes = text.as_bytes();
        let digits_at = [0, 1, 2, 3, 5, 6, 8, 9];
        if bytes.len() != 10
            || bytes[4] != b'-'
            || bytes[7] != b'-'
            || !digits_at.iter().all(|&i| bytes[i].is_ascii_digit())
        {
            return None;
        }
        let year: u16 = text[0..4].parse().ok()?;
        let month: u8 = text[5..7].parse().ok()?;
        let day: u8 = text[8..10].parse().ok()?;
        let date = Date { year, month, day };
        date.is_valid().then_some(date)
    }

    fn is_valid(self) -> bool {
        let leap = (self.year.is_multiple_of(4) && !self.year.is_multiple_of(100))
            || self.year.is_multiple_of(400);
        let days = match self.month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return false,
        };
        (1..=days).contains(&self.day)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_arithmetic_matches_the_calendar() {
        let d = |s| Date::parse(s).unwrap().days_since_epoch();
        assert_eq!(d("1970-01-01"), 0);
        assert_eq!(d("2026-06-26") - d("2026-03-28"), 90);
        assert_eq!(d("2024-03-01") - d("2024-02-28"), 2);
        assert_eq!(Date::parse("2023-02-29"), None);
        assert_eq!(Date::parse("2026-13-01"), None);
        assert_eq!(Date::parse("26-01-01"), None);
        for s in ["1970-01-01", "2000-02-29", "2026-11-30", "2100-03-01"] {
            let d = Date::parse(s).unwrap();
            assert_eq!(Date::from_days_since_epoch(d.days_since_epoch()), d);
        }
    }

    #[test]
    fn routes_round_trip_by_name() {
        for &r in Route::ALL {
            assert_eq!(Route::parse(r.name()), Some(r));
        }
        assert_eq!(Route::parse("borow"), None);
    }
}
