//! The coverage scorecard (SPEC 3.4): every kernel file covered, every row
//! pointing at real code with a link, a route and an oracle, ladders backed
//! by the tree, the review fresh — folded into one `sota_debt` integer.
//!
//! Pure apart from reading the files the matrix names (existence, symbols):
//! the tracked-file list and today's date are passed in.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use crate::index::{OpIndex, SharedIndex};
use crate::matrix::{Anchor, Date, Located, Matrix, Route};
use crate::prove::record::RecordSummary;
use crate::repo::paths::PathList;
use crate::surface::proofs::{self, ProofState};

/// File extensions that make up the population without `[kernels]`.
pub const DEFAULT_KERNEL_EXTENSIONS: &[&str] =
    &["cu", "cuh", "metal", "hip", "cl", "comp", "wgsl", "ptx"];

/// How far (in lines) a symbol may move from its `:LINE` before the anchor
/// has drifted.
pub const DRIFT_WINDOW: u32 = 10;

/// KPI groups.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr, strum::VariantArray,
)]
#[strum(serialize_all = "snake_case")]
pub enum Group {
    Complete,
    Honest,
    Proven,
    Fresh,
}

impl Group {
    /// Every group, in scorecard order.
    pub const ALL: &[Group] = <Group as strum::VariantArray>::VARIANTS;

    /// The name in every output format.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The KPIs, in report order. Names are stable and used verbatim in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Kpi {
    AtExists,
    HasLink,
    HasOracle,
    HasRoute,
    TreeCoverage,
    LadderWitness,
    DeadGlobs,
    BorrowWitness,
    AnchorDrift,
    Overlap,
    BroadGlob,
    Proven,
    Freshness,
}

impl Kpi {
    /// Every KPI, in scorecard order (declaration order).
    pub const ALL: &[Kpi] = <Kpi as strum::VariantArray>::VARIANTS;

    /// The stable name in every output format: the variant in snake_case.
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn group(self) -> Group {
        match self {
            Kpi::AtExists | Kpi::HasLink | Kpi::HasOracle | Kpi::HasRoute => Group::Complete,
            Kpi::TreeCoverage
            | Kpi::LadderWitness
            | Kpi::DeadGlobs
            | Kpi::BorrowWitness
            | Kpi::AnchorDrift
            | Kpi::Overlap
            | Kpi::BroadGlob => Group::Honest,
            Kpi::Proven => Group::Proven,
            Kpi::Freshness => Group::Fresh,
        }
    }

    /// Hard debt fails `--check`; soft debt only lowers the grade.
    pub fn hard(self) -> bool {
        matches!(
            self,
            Kpi::AtExists
                | Kpi::HasLink
                | Kpi::HasOracle
                | Kpi::HasRoute
                | Kpi::TreeCoverage
                | Kpi::LadderWitness
        )
    }

    /// What the KPI holds the matrix to.
    pub fn describe(self) -> &'static str {
        match self {
            Kpi::AtExists => "every `at` entry exists, and its #symbol occurs in the file",
            Kpi::HasLink => "every op has an http(s) link to read",
            Kpi::HasOracle => "every op names the oracle that proves it correct",
            Kpi::HasRoute => "every op has a route: borrow, bind or stay-minimal",
            Kpi::TreeCoverage => "every kernel file is matched by some op's `files`",
            Kpi::LadderWitness => "every reached rung is backed by the tree",
            Kpi::DeadGlobs => "every op glob matches some tracked file",
            Kpi::BorrowWitness => "every borrow op has an existing witness",
            Kpi::AnchorDrift => "every `:LINE#symbol` anchor is within ±10 lines of its symbol",
            Kpi::Overlap => "every kernel file is covered by one op, not two",
            Kpi::BroadGlob => {
                "no glob covers most of the population or many ops' worth of directories"
            }
            Kpi::Freshness => "`reviewed` is within `fresh-days` of today",
            Kpi::Proven => {
                "every op with a `check` list has a passing proof record of its current files"
            }
        }
    }
}

/// One offending item.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Item {
    /// The op or ladder it belongs to, if any.
    pub owner: Option<String>,
    /// The path, glob or anchor in question.
    pub subject: String,
    /// What is wrong, and what is true now (a fixed text is not copied
    /// per item: a scorecard can list 10,000 uncovered files).
    pub why: std::borrow::Cow<'static, str>,
    /// `file:line:col` in the matrix, when it points at a matrix value.
    pub at: Option<String>,
}

impl Item {
    /// The matrix line and column of `at` (`name:LINE:COL`, read from the
    /// right, so a name holding `:` is fine).
    pub fn line_col(&self) -> Option<(usize, usize)> {
        let mut parts = self.at.as_deref()?.rsplitn(3, ':');
        let col = parts.next()?.parse().ok()?;
        let line = parts.next()?.parse().ok()?;
        parts.next()?;
        Some((line, col))
    }
}

/// One KPI's result.
#[derive(Clone, Debug)]
pub struct KpiResult {
    pub kpi: Kpi,
    pub debt: usize,
    pub detail: String,
    pub items: Vec<Item>,
}

/// Where the population came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Population {
    /// `[kernels]` include minus exclude.
    Kernels,
    /// No `[kernels]`: files with [`DEFAULT_KERNEL_EXTENSIONS`].
    DefaultExtensions,
}

/// Where the tracked-file list came from.
pub use crate::repo::tracked::TrackedFrom as Tracked;

/// The whole scorecard.
#[derive(Clone, Debug)]
pub struct Report {
    pub today: Date,
    pub population: Population,
    pub tracked_from: Tracked,
    pub tracked_files: usize,
    /// Kernel files (population), sorted: a subset of the tracked files
    /// that shares their buffer.
    pub kernel_files: PathList,
    /// Kernel files no op covers, sorted (sharing the same buffer).
    pub uncovered: PathList,
    pub kpis: Vec<KpiResult>,
    pub sota_debt: usize,
    pub hard_debt: usize,
    /// Per op with a `check` list (op index, in matrix order): its proof
    /// state (`.sota/proofs/SLUG.json` against its files now).
    pub proofs: Vec<(usize, ProofState)>,
}

impl Report {
    /// A (0), B (≤2), C (≤5), D (≤10), F.
    pub fn grade(&self) -> char {
        grade(self.sota_debt)
    }

    pub fn debt_of(&self, group: Group) -> usize {
        self.kpis
            .iter()
            .filter(|k| k.kpi.group() == group)
            .map(|k| k.debt)
            .sum()
    }
}

pub fn grade(debt: usize) -> char {
    match debt {
        0 => 'A',
        1..=2 => 'B',
        3..=5 => 'C',
        6..=10 => 'D',
        _ => 'F',
    }
}

/// Everything the scorecard needs besides the matrix.
pub struct Input<'a> {
    /// Tracked paths, root-relative, `/`-separated, sorted.
    pub tracked: &'a PathList,
    pub tracked_from: Tracked,
    pub today: Date,
    /// Where the blob ids of proved ops' files come from (`proven`).
    pub blob_ids: BlobIds<'a>,
}

/// Tracked positions (ascending) → the index's blob id of each (`None`
/// inside: not known); `None`: the index cannot be read here.
pub type IndexBlobIds<'a> = &'a dyn Fn(&[u32]) -> Option<Vec<Option<String>>>;

/// Where `proven` reads the blob ids of an op's files.
#[derive(Clone, Copy)]
pub enum BlobIds<'a> {
    /// Not wanted: only the population is asked for (`suggest`); the
    /// proof states are not computed.
    Skip,
    /// git's index, as `git add` recorded each file — the tracked files'
    /// state the rest of the scorecard reads — through the closure
    /// (`tracked` positions, ascending → their ids, `None` when the index
    /// cannot be read here); a file it cannot give is hashed.
    Index(IndexBlobIds<'a>),
    /// Hash the work tree (`git hash-object`): no index.
    WorkTree,
}

/// Compute the scorecard: the anchor checks first, then the tree scan
/// over every tracked path with the globs compiled in full once.
pub fn score(matrix: &Matrix, input: &Input<'_>) -> Report {
    let lines = crate::matrix::LineIndex::new(&matrix.text);
    score_with(matrix, input, &lines, |wants_files| {
        scan_tree(
            matrix,
            &scan_index(matrix).into_shared(),
            input.tracked,
            wants_files,
        )
    })
}

/// `file:line:col` of a span of the matrix, for an item's `at`.
type Loc<'a> = &'a dyn Fn(&std::ops::Range<usize>) -> Option<String>;

/// The scorecard, with the tree scan handed in as a closure (called once,
/// after the anchor checks, with the ops whose files it must list).
fn score_with(
    matrix: &Matrix,
    input: &Input<'_>,
    lines: &crate::matrix::LineIndex<'_>,
    scan: impl FnOnce(&[bool]) -> Scan,
) -> Report {
    let loc = |span: &std::ops::Range<usize>| {
        let (l, c) = lines.line_col(span.start);
        Some(format!("{}:{l}:{c}", matrix.display_name()))
    };
    let loc: Loc<'_> = &loc;
    let files = FileCache::new(&matrix.root, input.tracked);

    // ── complete ────────────────────────────────────────────────────────
    let (at_items, drift_items) = anchor_items(matrix, &files, loc);
    let [link_items, oracle_items, route_items] = missing_items(matrix, loc);

    // ── honest: population, coverage, dead globs, overlap, broad globs ─
    let population = population_kind(matrix);
    let records = match input.blob_ids {
        BlobIds::Skip => vec![None; matrix.ops.len()],
        _ => proof_records(matrix, &files),
    };
    let wants_files: Vec<bool> = records
        .iter()
        .map(|r| r.as_ref().is_some_and(|r| r.verdict == "pass"))
        .collect();
    let scan = scan(&wants_files);
    let [coverage_items, dead_items, overlap, broad] = scan_items(matrix, &scan, loc);

    // ── honest: witnesses ───────────────────────────────────────────────
    let ladder_items = ladder_items(matrix, &files, loc);
    let borrow_items = borrow_items(matrix, &files, loc);

    // ── fresh ───────────────────────────────────────────────────────────
    let fresh_items = fresh_items(matrix, input.today, loc);
    let proofs = match input.blob_ids {
        BlobIds::Skip => Vec::new(),
        ids => proof_states(matrix, records, &scan, input.tracked, ids),
    };
    let proof_items = proof_items(matrix, &proofs, loc);

    let mut kpis = kpi_results(
        matrix,
        scan.kernel_files.len(),
        [
            at_items,
            link_items,
            oracle_items,
            route_items,
            coverage_items,
            ladder_items,
            dead_items,
            borrow_items,
            drift_items,
            overlap,
            broad,
            proof_items,
            fresh_items,
        ],
    );
    for k in &mut kpis {
        k.items.sort();
    }
    let sota_debt = kpis.iter().map(|k| k.debt).sum();
    let hard_debt = kpis.iter().filter(|k| k.kpi.hard()).map(|k| k.debt).sum();
    Report {
        today: input.today,
        population,
        tracked_from: input.tracked_from,
        tracked_files: input.tracked.len(),
        kernel_files: scan.kernel_files,
        uncovered: scan.uncovered,
        kpis,
        sota_debt,
        hard_debt,
        proofs,
    }
}

/// What the tree scan says: `tree_coverage`, `dead_globs`, `overlap` and
/// `broad_glob`.
fn scan_items(matrix: &Matrix, scan: &Scan, loc: Loc<'_>) -> [Vec<Item>; 4] {
    let coverage_items: Vec<Item> = scan
        .uncovered
        .lossy()
        .map(|p| Item {
            owner: None,
            subject: p.into_owned(),
            why: "no op's `files` match this kernel file".into(),
            at: None,
        })
        .collect();
    [
        coverage_items,
        dead_glob_items(matrix, &scan.glob_hit, loc),
        overlap_items(matrix, scan),
        broad_glob_items(matrix, scan, loc),
    ]
}

/// `at_exists` and `anchor_drift`: each `at` entry checked against the tree.
fn anchor_items(matrix: &Matrix, files: &FileCache<'_>, loc: Loc<'_>) -> (Vec<Item>, Vec<Item>) {
    let mut at_items = Vec::new();
    let mut drift_items = Vec::new();
    for op in &matrix.ops {
        let slug = &op.slug.value;
        if op.at.is_empty() {
            at_items.push(Item {
                owner: Some(slug.clone()),
                subject: "at".into(),
                why: "no `at` entries: say where the project performs this op".into(),
                at: loc(&op.slug.span),
            });
        }
        for a in &op.at {
            if let Some(why) = files.anchor_problem(&a.value) {
                at_items.push(Item {
                    owner: Some(slug.clone()),
                    subject: a.value.to_string(),
                    why: why.into(),
                    at: loc(&a.span),
                });
            }
            if let (Some(line), Some(symbol)) = (a.value.line, &a.value.symbol) {
                if let Some(why) = files.drift(&a.value.path, line, symbol) {
                    drift_items.push(Item {
                        owner: Some(slug.clone()),
                        subject: a.value.to_string(),
                        why: why.into(),
                        at: loc(&a.span),
                    });
                }
            }
        }
    }
    (at_items, drift_items)
}

/// `has_link`, `has_oracle`, `has_route`: the ops that leave each out.
fn missing_items(matrix: &Matrix, loc: Loc<'_>) -> [Vec<Item>; 3] {
    let missing =
        |what: &str, pick: &dyn Fn(&crate::matrix::Op) -> bool, why: &'static str| -> Vec<Item> {
            matrix
                .ops
                .iter()
                .filter(|op| !pick(op))
                .map(|op| Item {
                    owner: Some(op.slug.value.clone()),
                    subject: what.to_owned(),
                    why: why.into(),
                    at: loc(&op.slug.span),
                })
                .collect()
        };
    let link_items = missing(
        "link",
        &|op| op.link.is_some(),
        "no link: add `link = \"https://…\"` to the reference to read",
    );
    let oracle_items = missing(
        "oracle",
        &|op| op.oracle.is_some(),
        "no oracle: a kernel with no oracle is not done",
    );
    let route_items = missing(
        "route",
        &|op| op.route.is_some(),
        "no route: decide borrow, bind or stay-minimal",
    );

    [link_items, oracle_items, route_items]
}

/// `dead_globs`: op globs that matched no tracked file.
fn dead_glob_items(matrix: &Matrix, glob_hit: &[Vec<bool>], loc: Loc<'_>) -> Vec<Item> {
    let mut dead_items = Vec::new();
    for (op_i, op) in matrix.ops.iter().enumerate() {
        for (g_i, glob) in op.files.iter().enumerate() {
            if !glob_hit[op_i][g_i] {
                dead_items.push(Item {
                    owner: Some(op.slug.value.clone()),
                    subject: glob.value.as_str().to_owned(),
                    why: "matches no tracked file".into(),
                    at: loc(&glob.span),
                });
            }
        }
    }

    dead_items
}

/// `overlap`: kernel files two or more ops cover (the gate then asks for
/// each op's reference on every edit).
fn overlap_items(matrix: &Matrix, scan: &Scan) -> Vec<Item> {
    scan.overlaps
        .iter()
        .map(|(path, ops)| {
            let mut slugs: Vec<&str> = ops
                .iter()
                .map(|&o| matrix.ops[o].slug.value.as_str())
                .collect();
            slugs.sort_unstable();
            Item {
                owner: None,
                subject: path.clone(),
                why: format!(
                    "covered by {} ops ({}): keep it in the one whose code it is, and narrow the other globs",
                    slugs.len(),
                    slugs.join(", ")
                )
                .into(),
                at: None,
            }
        })
        .collect()
}

/// `broad_glob`: an op glob that covers far more than one op's code —
/// more than half the population with files another op also covers, or
/// kernel files in [`BROAD_DIRS`] or more directories and
/// [`BROAD_FACTOR`] times the median op's (SPEC 3.4; docs/coverage.md).
fn broad_glob_items(matrix: &Matrix, scan: &Scan, loc: Loc<'_>) -> Vec<Item> {
    if matrix.ops.len() < 2 {
        return Vec::new();
    }
    let population = scan.kernel_files.len();
    let mut shared = vec![false; matrix.ops.len()];
    for (_, ops) in &scan.overlaps {
        for &o in ops {
            shared[o] = true;
        }
    }
    let mut spans: Vec<usize> = scan
        .glob_spread
        .iter()
        .map(|globs| {
            let mut dirs: Vec<u32> = globs.iter().flat_map(|g| g.1.iter().copied()).collect();
            dirs.sort_unstable();
            dirs.dedup();
            dirs.len()
        })
        .filter(|&n| n > 0)
        .collect();
    spans.sort_unstable();
    let median = spans.get(spans.len() / 2).copied().unwrap_or(1).max(1);
    let wide_at = BROAD_DIRS.max(BROAD_FACTOR * median);
    let mut items = Vec::new();
    for (op_i, op) in matrix.ops.iter().enumerate() {
        for (glob, (files, dirs)) in op.files.iter().zip(&scan.glob_spread[op_i]) {
            let files = *files as usize;
            let most = population >= BROAD_MIN_POPULATION && files * 2 > population && shared[op_i];
            let wide = dirs.len() >= wide_at;
            if !most && !wide {
                continue;
            }
            let mut why = Vec::new();
            if most {
                why.push(format!(
                    "matches {files} of {population} kernel files, more than half, and its op shares files with another op"
                ));
            }
            if wide {
                why.push(format!(
                    "spans {} directories (a typical op here spans {median})",
                    dirs.len()
                ));
            }
            items.push(Item {
                owner: Some(op.slug.value.clone()),
                subject: glob.value.as_str().to_owned(),
                why: format!(
                    "{}: it covers other ops' code; narrow it to this op's files",
                    why.join("; ")
                )
                .into(),
                at: loc(&glob.span),
            });
        }
    }
    items
}

/// `ladder_witness`: reached rungs whose witness the tree does not back.
fn ladder_items(matrix: &Matrix, files: &FileCache<'_>, loc: Loc<'_>) -> Vec<Item> {
    let mut ladder_items = Vec::new();
    // One map for every ladder: `matrix.op` per ladder scans the ops, and
    // ladders grow with ops (L × N string comparisons on a large matrix).
    let op_by_slug: rustc_hash::FxHashMap<&str, &crate::matrix::Op> = matrix
        .ops
        .iter()
        .map(|op| (op.slug.value.as_str(), op))
        .collect();
    for ladder in &matrix.ladders {
        let (Some(reached), Some(witness)) = (ladder.reached, &ladder.witness) else {
            continue;
        };
        let rung = &ladder.rungs[reached].name;
        let why = match op_by_slug.get(witness.value.as_str()).copied() {
            Some(op) if op.at.is_empty() => {
                Some(format!("witness op `{}` has no `at` paths", op.slug.value))
            }
            Some(op) => {
                let gone: Vec<String> = op
                    .at
                    .iter()
                    .filter(|a| !files.exists(&a.value.path))
                    .map(|a| a.value.path.clone())
                    .collect();
                (!gone.is_empty()).then(|| {
                    format!(
                        "witness op `{}` points at missing {}",
                        op.slug.value,
                        gone.join(", ")
                    )
                })
            }
            None if files.exists(&witness.value) => None,
            None => Some(format!(
                "`{}` is neither an op slug nor a path in the tree",
                witness.value
            )),
        };
        if let Some(why) = why {
            ladder_items.push(Item {
                owner: Some(ladder.axis.value.clone()),
                subject: format!("reached = \"{rung}\""),
                why: format!("{why}; the rung is not backed").into(),
                at: loc(&witness.span),
            });
        }
    }
    ladder_items
}

/// `borrow_witness`: borrow ops with no existing witness.
fn borrow_items(matrix: &Matrix, files: &FileCache<'_>, loc: Loc<'_>) -> Vec<Item> {
    let mut borrow_items = Vec::new();
    for op in matrix
        .ops
        .iter()
        .filter(|op| op.route.as_ref().is_some_and(|r| r.value == Route::Borrow))
    {
        if !op
            .witness
            .iter()
            .any(|w| files.anchor_problem(&w.value).is_none())
        {
            let why = if op.witness.is_empty() {
                "borrow with no witness: borrow only after a witness (a test holding the oracle) exists".to_owned()
            } else {
                let listed: Vec<String> = op.witness.iter().map(|w| w.value.to_string()).collect();
                format!("no witness exists yet ({})", listed.join(", "))
            };
            borrow_items.push(Item {
                owner: Some(op.slug.value.clone()),
                subject: "witness".into(),
                why: why.into(),
                at: op.route.as_ref().and_then(|r| loc(&r.span)),
            });
        }
    }

    borrow_items
}

/// `freshness`: the review date against today.
fn fresh_items(matrix: &Matrix, today: Date, loc: Loc<'_>) -> Vec<Item> {
    let mut fresh_items = Vec::new();
    let fresh_days = matrix.project.fresh_days;
    match &matrix.project.reviewed {
        None => fresh_items.push(Item {
            owner: None,
            subject: "reviewed".into(),
            why: format!("no `reviewed` date: add `reviewed = {}` to [project] once the rows are checked against the field", today).into(),
            at: None,
        }),
        Some(Located { value: reviewed, span }) => {
            let age = today.days_since_epoch() - reviewed.days_since_epoch();
            if age > i64::from(fresh_days) {
                fresh_items.push(Item {
                    owner: None,
                    subject: format!("reviewed = {reviewed}"),
                    why: format!("{age} days old (fresh-days = {fresh_days}): re-check the rows against the field").into(),
                    at: loc(span),
                });
            }
        }
    }

    fresh_items
}

/// Per op: its proof record, read only for ops with a `check` list.
fn proof_records(matrix: &Matrix, files: &FileCache<'_>) -> Vec<Option<RecordSummary>> {
    matrix
        .ops
        .iter()
        .map(|op| {
            (!op.check.is_empty())
                .then(|| proofs::read_record(&files.files, &op.slug.value))
                .flatten()
        })
        .collect()
}

/// Per op with a `check` list: its record against its files now (hashed
/// only for ops with a passing record; the scan listed those).
fn proof_states(
    matrix: &Matrix,
    records: Vec<Option<RecordSummary>>,
    scan: &Scan,
    tracked: &PathList,
    ids: BlobIds<'_>,
) -> Vec<(usize, ProofState)> {
    let blob_of = file_blob_ids(matrix, scan, tracked, ids);
    let id_of = |t: u32| match blob_of.binary_search_by_key(&t, |(p, _)| *p) {
        Ok(at) => blob_of[at].1.as_str(),
        Err(_) => "",
    };
    records
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !matrix.ops[*i].check.is_empty())
        .map(|(i, record)| {
            let files: &[u32] = match (&record, scan.op_files.get(i)) {
                (Some(r), Some(files)) if r.verdict == "pass" => files,
                _ => &[],
            };
            // Borrowed unless a name is not UTF-8.
            let paths: Vec<std::borrow::Cow<'_, str>> = files
                .iter()
                .map(|&t| String::from_utf8_lossy(tracked.get(t as usize)))
                .collect();
            let now: Vec<(&str, &str)> = paths
                .iter()
                .zip(files)
                .map(|(p, &t)| (p.as_ref(), id_of(t)))
                .collect();
            (i, proofs::state(record, &now))
        })
        .collect()
}

/// The blob id of every file a proved op covers, by tracked position: the
/// index's where it gives one, else the work tree's (hashed).
fn file_blob_ids(
    matrix: &Matrix,
    scan: &Scan,
    tracked: &PathList,
    ids: BlobIds<'_>,
) -> Vec<(u32, String)> {
    let mut wanted: Vec<u32> = scan.op_files.iter().flatten().copied().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let from_index = match ids {
        BlobIds::Index(read) if !wanted.is_empty() => read(&wanted),
        _ => None,
    };
    let from_index = from_index.unwrap_or_else(|| vec![None; wanted.len()]);
    wanted
        .iter()
        .zip(from_index)
        .map(|(&t, id)| {
            let id = id.unwrap_or_else(|| {
                let rel = String::from_utf8_lossy(tracked.get(t as usize)).into_owned();
                crate::repo::objects::worktree_blob_id(&matrix.root.join(rel))
            });
            (t, id)
        })
        .collect()
}

/// `proven`: each op with a `check` list whose proof is missing, failing
/// or stale.
fn proof_items(matrix: &Matrix, states: &[(usize, ProofState)], loc: Loc<'_>) -> Vec<Item> {
    states
        .iter()
        .filter(|(_, s)| !matches!(s, ProofState::Proven { .. }))
        .map(|(i, s)| {
            let op = &matrix.ops[*i];
            Item {
                owner: Some(op.slug.value.clone()),
                subject: proofs::record_git_path(&op.slug.value),
                why: format!("{}: {}", s.name(), s.explain(&op.slug.value)).into(),
                at: op.check.first().and_then(|c| loc(&c.span)),
            }
        })
        .collect()
}

/// Every KPI's result, in [`Kpi::ALL`] order, from its items.
fn kpi_results(matrix: &Matrix, kernel_files: usize, items: [Vec<Item>; 13]) -> Vec<KpiResult> {
    let fresh_days = matrix.project.fresh_days;
    let n_ops = matrix.ops.len();
    let n_at: usize = matrix.ops.iter().map(|o| o.at.len().max(1)).sum();
    let n_globs: usize = matrix.ops.iter().map(|o| o.files.len()).sum();
    let n_borrow = matrix
        .ops
        .iter()
        .filter(|o| o.route.as_ref().is_some_and(|r| r.value == Route::Borrow))
        .count();
    let n_reached = matrix
        .ladders
        .iter()
        .filter(|l| l.reached.is_some())
        .count();
    let n_anchors: usize = matrix
        .ops
        .iter()
        .flat_map(|o| &o.at)
        .filter(|a| a.value.line.is_some() && a.value.symbol.is_some())
        .count();
    let per_file = format!("of {kernel_files} kernel files");
    let per_glob = format!("of {n_globs} globs");
    let per_op = format!("of {n_ops} ops");
    let of = [
        format!("of {n_at} `at` entries"),
        per_op.clone(),
        per_op.clone(),
        per_op,
        per_file.clone(),
        format!("of {n_reached} reached rungs"),
        per_glob.clone(),
        format!("of {n_borrow} borrow ops"),
        format!("of {n_anchors} :LINE#symbol anchors"),
        per_file,
        per_glob,
        format!(
            "of {} ops with a `check` list",
            matrix.ops.iter().filter(|o| !o.check.is_empty()).count()
        ),
        match &matrix.project.reviewed {
            Some(r) => format!(
                "of 1 review date (reviewed {}, fresh-days {fresh_days})",
                r.value
            ),
            None => "of 1 review date (none recorded)".to_owned(),
        },
    ];
    Kpi::ALL
        .iter()
        .zip(items)
        .zip(of)
        .map(|((&kpi, items), of)| result(kpi, items, of))
        .collect()
}

fn result(kpi: Kpi, items: Vec<Item>, of: String) -> KpiResult {
    let debt = items.len();
    KpiResult {
        kpi,
        debt,
        detail: format!("{debt} {of}"),
        items,
    }
}

/// What one pass over the tracked files finds.
struct Scan {
    /// Per op, per glob: matched some tracked file.
    glob_hit: Vec<Vec<bool>>,
    /// Both in byte order, as the tracked files are.
    kernel_files: PathList,
    uncovered: PathList,
    /// Per op, per glob: the kernel files it matches, and the distinct
    /// directories they sit in (ids, sorted).
    glob_spread: Vec<Vec<(u32, Vec<u32>)>>,
    /// Kernel files two or more ops cover, with those ops (indices).
    overlaps: Vec<(String, Vec<usize>)>,
    /// Per op the scan was asked to list: the tracked indices of every
    /// file its globs match (kernel or not), for its proof state.
    op_files: Vec<Vec<u32>>,
}

/// `broad_glob` (SPEC 3.4), "most of the population": a glob matching more
/// than half the kernel files, some of which another op also covers, in a
/// population of at least this many files (below it, one op owning most of
/// a small tree is normal).
pub const BROAD_MIN_POPULATION: usize = 10;

/// `broad_glob`, "many ops' worth of directories": a glob whose kernel
/// files sit in at least this many directories …
pub const BROAD_DIRS: usize = 8;

/// … and in at least this many times as many directories as the median
/// op's files do (an op's code lives in a few directories; a glob spread
/// four times wider than a typical op covers a subtree of several ops).
pub const BROAD_FACTOR: usize = 4;

/// Kernel files as the op globs see them, gathered during the scan.
struct KernelHits<'t> {
    /// Per glob id: kernel files matched.
    files: Vec<u32>,
    /// Per glob id: directory ids of those files (consecutive duplicates
    /// dropped; sorted and deduplicated at the end).
    dirs: Vec<Vec<u32>>,
    /// Tracked index of each kernel file in two or more ops, and the ops.
    overlaps: Vec<(usize, Vec<usize>)>,
    dir_ids: rustc_hash::FxHashMap<&'t [u8], u32>,
    /// Per op: whether to list its files (any file, not only kernel
    /// files), and the tracked indices listed.
    wants_files: Vec<bool>,
    op_files: Vec<Vec<u32>>,
}

impl<'t> KernelHits<'t> {
    fn new(globs: usize, wants_files: &[bool]) -> Self {
        KernelHits {
            files: vec![0; globs],
            dirs: vec![Vec::new(); globs],
            overlaps: Vec::new(),
            dir_ids: rustc_hash::FxHashMap::default(),
            wants_files: wants_files.to_vec(),
            // Empty unless some op asked: the scan then skips the step.
            op_files: if wants_files.contains(&true) {
                vec![Vec::new(); wants_files.len()]
            } else {
                Vec::new()
            },
        }
    }

    /// Any tracked file (index `i`) some op glob matched: listed for the
    /// ops that asked.
    fn note_op_file(&mut self, i: usize, ids: &[u32], op_of: &[usize]) {
        for &id in ids {
            let op = op_of[id as usize];
            if self.wants_files.get(op) == Some(&true)
                && self.op_files[op].last() != Some(&(i as u32))
            {
                self.op_files[op].push(i as u32);
            }
        }
    }

    /// One kernel file (tracked index `i`) and the op glob ids it matched.
    fn add(&mut self, i: usize, path: &'t [u8], ids: &[u32], op_of: &[usize]) {
        let dir = &path[..path.iter().rposition(|&b| b == b'/').unwrap_or(0)];
        let next = self.dir_ids.len() as u32;
        let d = *self.dir_ids.entry(dir).or_insert(next);
        let mut ops: Vec<usize> = Vec::new();
        for &id in ids {
            let id = id as usize;
            self.files[id] += 1;
            if self.dirs[id].last() != Some(&d) {
                self.dirs[id].push(d);
            }
            if !ops.contains(&op_of[id]) {
                ops.push(op_of[id]);
            }
        }
        if ops.len() > 1 {
            ops.sort_unstable();
            self.overlaps.push((i, ops));
        }
    }
}

/// What the scan found for one path ([`scan_paths`]).
const NOT_KERNEL: u8 = 0;
const COVERED: u8 = 1;
const UNCOVERED: u8 = 2;

/// What a glob of the scan index is for ([`scan_paths`]).
const OP_GLOB: u8 = 0;
const INCLUDE_GLOB: u8 = 1;
const EXCLUDE_GLOB: u8 = 2;

/// Match every tracked path against the op index and the population,
/// with one [`crate::index::Matcher`] over the fully compiled index.
fn scan_tree(
    matrix: &Matrix,
    index: &SharedIndex<'_>,
    tracked: &PathList,
    wants_files: &[bool],
) -> Scan {
    let n = tracked.len();
    let roles: Vec<u8> = (0..index.len() as u32)
        .map(|id| match index.owner(id).0 {
            INCLUDE => INCLUDE_GLOB,
            EXCLUDE => EXCLUDE_GLOB,
            _ => OP_GLOB,
        })
        .collect();
    let op_of: Vec<usize> = (0..index.len() as u32)
        .map(|id| index.owner(id).0)
        .collect();
    let mut kinds = vec![NOT_KERNEL; n];
    let mut hit = vec![false; index.len()];
    let mut hits = KernelHits::new(index.len(), wants_files);
    let by_extension = matrix.kernels.is_none();
    scan_paths(
        &mut index.matcher(),
        (&roles, &op_of),
        by_extension,
        tracked,
        &mut kinds,
        &mut hit,
        &mut hits,
    );
    let mut glob_spread: Vec<Vec<(u32, Vec<u32>)>> = matrix
        .ops
        .iter()
        .map(|op| vec![(0, Vec::new()); op.files.len()])
        .collect();
    let mut glob_hit: Vec<Vec<bool>> = matrix
        .ops
        .iter()
        .map(|op| vec![false; op.files.len()])
        .collect();
    for (id, &role) in roles.iter().enumerate() {
        if role == OP_GLOB && hit[id] {
            let (op, glob) = index.owner(id as u32);
            glob_hit[op][glob] = true;
            let mut dirs = std::mem::take(&mut hits.dirs[id]);
            dirs.sort_unstable();
            dirs.dedup();
            glob_spread[op][glob] = (hits.files[id], dirs);
        }
    }
    let overlaps = hits
        .overlaps
        .iter()
        .map(|(i, ops)| {
            (
                String::from_utf8_lossy(tracked.get(*i)).into_owned(),
                ops.clone(),
            )
        })
        .collect();
    let count = |kind: &dyn Fn(u8) -> bool| kinds.iter().filter(|&&k| kind(k)).count();
    let kernel_files = tracked.subset(
        (0..n).filter(|&i| kinds[i] != NOT_KERNEL),
        count(&|k| k != NOT_KERNEL),
    );
    let uncovered = tracked.subset(
        (0..n).filter(|&i| kinds[i] == UNCOVERED),
        count(&|k| k == UNCOVERED),
    );
    Scan {
        glob_hit,
        kernel_files,
        uncovered,
        glob_spread,
        overlaps,
        op_files: hits.op_files,
    }
}

/// Owner ids of the `[kernels]` globs in the combined index (op owners are
/// op indices, all smaller).
const INCLUDE: usize = usize::MAX - 1;
const EXCLUDE: usize = usize::MAX;

/// One index answers both questions per path: which op globs match, and
/// whether the path is in the `[kernels]` population.
fn scan_index(matrix: &Matrix) -> OpIndex<'_> {
    let ops = matrix.ops.iter().enumerate().flat_map(|(op_i, op)| {
        op.files
            .iter()
            .enumerate()
            .map(move |(glob_i, g)| ((op_i, glob_i), &g.value))
    });
    let kernels = matrix.kernels.iter().flat_map(|k| {
        let inc = k
            .include
            .iter()
            .enumerate()
            .map(|(i, g)| ((INCLUDE, i), &g.value));
        let exc = k
            .exclude
            .iter()
            .enumerate()
            .map(|(i, g)| ((EXCLUDE, i), &g.value));
        inc.chain(exc)
    });
    OpIndex::with_shared_texts(ops.chain(kernels))
}

/// Match every path, one per entry of `kinds`: whether each is a kernel
/// file and covered (`kinds`), and which globs matched some path (`hit`,
/// by glob id; `roles` says what each glob is for).
fn scan_paths<'t>(
    matcher: &mut crate::index::Matcher<'_, '_>,
    (roles, op_of): (&[u8], &[usize]),
    by_extension: bool,
    tracked: &'t PathList,
    kinds: &mut [u8],
    hit: &mut [bool],
    hits: &mut KernelHits<'t>,
) {
    let mut ids: Vec<u32> = Vec::new();
    for (i, kind) in kinds.iter_mut().enumerate() {
        let path = tracked.get(i);
        let (mut included, mut excluded) = (false, false);
        ids.clear();
        matcher.each_hit(path, |id| match roles[id as usize] {
            INCLUDE_GLOB => included = true,
            EXCLUDE_GLOB => excluded = true,
            _ => {
                hit[id as usize] = true;
                ids.push(id);
            }
        });
        let covered = !ids.is_empty();
        if covered && !hits.op_files.is_empty() {
            hits.note_op_file(i, &ids, op_of);
        }
        let kernel = if by_extension {
            has_kernel_extension(path)
        } else {
            included && !excluded
        };
        if kernel {
            *kind = if covered { COVERED } else { UNCOVERED };
            if covered {
                hits.add(i, path, &ids, op_of);
            }
        }
    }
}

fn has_kernel_extension(path: &[u8]) -> bool {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    match name.iter().rposition(|&b| b == b'.') {
        Some(dot) if dot > 0 => DEFAULT_KERNEL_EXTENSIONS
            .iter()
            .any(|e| e.as_bytes() == &name[dot + 1..]),
        _ => false,
    }
}

fn population_kind(matrix: &Matrix) -> Population {
    if matrix.kernels.is_some() {
        Population::Kernels
    } else {
        Population::DefaultExtensions
    }
}

/// Existence and symbol checks against the tree, each file read once.
/// Only regular files that resolve inside the root are looked at: an
/// anchor through `..` or a symlink says nothing about the rest of the
/// filesystem, and a FIFO or device is never read (SECURITY.md).
struct FileCache<'a> {
    root: std::path::PathBuf,
    files: crate::repo::confined::Confined,
    tracked: &'a PathList,
    /// What is at each path, looked up once (an anchor's existence, its
    /// symbol and its drift ask about the same file), with the text of a
    /// regular file once something needed it.
    found: std::cell::RefCell<HashMap<String, Found>>,
}

/// What [`FileCache`] found at a path.
#[derive(Clone)]
enum Found {
    Missing,
    /// A directory, FIFO, device or unreadable file: it exists, no text.
    Other,
    /// A regular file whose text nothing has asked for yet.
    Unread,
    /// A regular file and its text (`None`: it could not be read).
    Read(Option<std::rc::Rc<String>>),
}

impl<'a> FileCache<'a> {
    fn new(root: &Path, tracked: &'a PathList) -> Self {
        FileCache {
            root: root.to_path_buf(),
            files: crate::repo::confined::Confined::new(root),
            tracked,
            found: Default::default(),
        }
    }

    /// On disk, or in the index (a sparse checkout leaves tracked files off
    /// disk): a file, or a directory some tracked path lies under.
    fn exists(&self, path: &str) -> bool {
        let trimmed = path.trim_end_matches('/');
        if !matches!(self.find(trimmed, false), Found::Missing) {
            return true;
        }
        self.tracked.contains_file_or_dir(trimmed.as_bytes())
    }

    /// What is at `path` inside the root ([`crate::repo::confined::Confined::open`]),
    /// looked up once; a regular file's text is read when `text` asks for
    /// it (one open for the lookup and the read).
    fn find(&self, path: &str, text: bool) -> Found {
        use crate::repo::confined::Opened;
        let known = self.found.borrow().get(path).cloned();
        match known {
            Some(Found::Unread) if text => {}
            Some(found) => return found,
            None => {}
        }
        let found = match self.files.open(path) {
            Opened::Missing => Found::Missing,
            Opened::Other { .. } => Found::Other,
            Opened::File(file, len) if text => Found::Read(read_small(file, len).ok().map(|b| {
                std::rc::Rc::new(
                    String::from_utf8(b)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                )
            })),
            Opened::File(..) => Found::Unread,
        };
        self.found
            .borrow_mut()
            .insert(path.to_owned(), found.clone());
        found
    }

    /// A regular file's text (`None`: missing, not a regular file, or
    /// unreadable).
    fn text(&self, path: &str) -> Option<std::rc::Rc<String>> {
        match self.find(path, true) {
            Found::Read(text) => text,
            _ => None,
        }
    }

    /// Why an anchor does not hold, or `None` when it does. A `#symbol`
    /// anchor needs a regular file sota reads: one it will not read (a
    /// symlink that dangles or leads outside the root, a directory, a FIFO
    /// or device, an unreadable file) is missing, with the reason, never
    /// passed unchecked. Only a tracked file absent from disk (a sparse
    /// checkout) passes without its text.
    fn anchor_problem(&self, a: &Anchor) -> Option<String> {
        let Some(symbol) = a.symbol.as_ref() else {
            return (!self.exists(&a.path)).then(|| format!("{} does not exist", a.path));
        };
        let path = &a.path;
        let unchecked = format!("its symbol `{symbol}` cannot be checked");
        match self.find(path, true) {
            Found::Read(Some(text)) => symbol_lines(&text, symbol)
                .is_empty()
                .then(|| format!("symbol `{symbol}` does not occur in {path}")),
            Found::Read(None) => Some(format!("{path} cannot be read: {unchecked}")),
            Found::Other => Some(format!(
                "{path} is not a regular file (a directory, FIFO or device): {unchecked}"
            )),
            Found::Missing if self.on_disk(path) => Some(format!(
                "{path} is not read: it leads outside the root or nowhere (a symlink that dangles or escapes, or a path through `..`); {unchecked}"
            )),
            Found::Missing | Found::Unread if self.exists(path) => None,
            Found::Missing | Found::Unread => Some(format!("{path} does not exist")),
        }
    }

    /// Whether something is at `path` on disk, not followed (a dangling or
    /// escaping symlink is on disk; a sparse checkout's file is not).
    fn on_disk(&self, path: &str) -> bool {
        std::fs::symlink_metadata(self.root.join(path)).is_ok()
    }

    /// Why `path:LINE#symbol` has drifted, or `None`.
    fn drift(&self, path: &str, line: u32, symbol: &str) -> Option<String> {
        let text = self.text(path)?;
        let lines = symbol_lines(&text, symbol);
        if lines.is_empty() {
            return Some(format!("`{symbol}` is gone from {path}"));
        }
        if lines.iter().any(|&l| l.abs_diff(line) <= DRIFT_WINDOW) {
            return None;
        }
        let nearest = lines
            .iter()
            .min_by_key(|&&l| l.abs_diff(line))
            .copied()
            .unwrap_or(0);
        Some(format!("`{symbol}` is now at line {nearest}, not near {line}: update the anchor to {path}:{nearest}#{symbol}"))
    }
}

/// A file's bytes, given the size its lookup saw: no size probe (`std::fs::
/// read` stats the file again) and, when the file still has that size, no
/// second `read` to see the end (a thousand anchors are a thousand files,
/// and each system call costs microseconds in a virtual machine). A file
/// that grew since is read to its end; one that shrank, to its end too.
fn read_small(mut file: std::fs::File, len: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let want = match usize::try_from(len) {
        Ok(n) if n > 0 && n <= 16 << 20 => n,
        // Empty by its size (or large): read it as it comes.
        _ => {
            let mut out = Vec::new();
            file.read_to_end(&mut out)?;
            return Ok(out);
        }
    };
    let mut out = vec![0; want + 1];
    let mut filled = 0;
    while filled < want {
        match file.read(&mut out[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if filled > want {
        // It grew: take the rest as it comes.
        out.truncate(filled);
        file.read_to_end(&mut out)?;
    } else {
        out.truncate(filled);
    }
    Ok(out)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// 1-based lines where `symbol` occurs as a whole identifier.
pub fn symbol_lines(text: &str, symbol: &str) -> Vec<u32> {
    let bytes = text.as_bytes();
    let mut out = BTreeSet::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find(symbol) {
        let start = from + pos;
        let end = start + symbol.len();
        let before_ok =
            start == 0 || !is_ident(bytes[start - 1]) || !is_ident(symbol.as_bytes()[0]);
        let after_ok = end >= bytes.len()
            || !is_ident(bytes[end])
            || !is_ident(*symbol.as_bytes().last().unwrap_or(&b' '));
        if before_ok && after_ok {
            let line = bytes[..start].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            out.insert(line);
        }
        from = start + symbol.len().max(1);
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_match_whole_identifiers_only() {
        let text =
            "fn k_awq_gemv() {}\nfn k_awq_gemv_v2() {}\n// calls k_awq_gemv\nmy_k_awq_gemv();\n";
        assert_eq!(symbol_lines(text, "k_awq_gemv"), vec![1, 3]);
        assert_eq!(symbol_lines("Foo::bar();\n", "Foo::bar"), vec![1]);
        assert!(symbol_lines("abc", "b").is_empty());
    }

    #[test]
    fn a_large_tree_scores_as_each_path_alone() {
        // Many paths, deep `**` trees first and flat ones last, so the
        // matcher's directory cache is reused and dropped often; every path
        // judged on its own by the reference matcher must agree with the scan.
        let matrix = Matrix::from_str(
            r#"
[project]
name = "threads"

[kernels]
include = ["csrc/**/*.cu", "{csrc,include}/**/*.cuh", "src/*/gemm/*.cpp"]
exclude = ["**/test_*"]

[[op]]
slug = "attention"
title = "Attention"
sota = "A reference"
files = ["csrc/**/attention/**", "{csrc/x/**,include/x/y*.cuh}"]

[[op]]
slug = "gemm"
title = "GEMM"
sota = "A reference"
files = ["src/*/gemm/*.cpp", "csrc/gemm/k[0-4].cu{,h}", "csrc/gemm/k?7.cu"]

[[op]]
slug = "gone"
title = "Gone"
sota = "A reference"
files = ["csrc/nowhere/*.cu", "{**,z}/test_*.cuh"]
"#,
            "sota.toml",
        )
        .unwrap();
        let mut rng = crate::test_rng::Rng(0x5ca7_7e4d);
        let dirs = [
            "csrc",
            "include",
            "src",
            "x",
            "attention",
            "gemm",
            "cpu",
            "a",
        ];
        let names = [
            "k1.cu",
            "k17.cu",
            "k9.cuh",
            "y2.cuh",
            "test_k.cuh",
            "m.cpp",
            "r.md",
        ];
        let mut paths = Vec::new();
        for i in 0..60_000 {
            let depth = if i < 30_000 {
                1 + rng.below(6)
            } else {
                1 + rng.below(2)
            };
            let mut p = String::new();
            for _ in 0..depth {
                match rng.below(3) {
                    0 => p.push_str(&format!("d{}", rng.below(40))),
                    _ => p.push_str(rng.pick(&dirs)),
                }
                p.push('/');
            }
            p.push_str(rng.pick(&names));
            paths.push(p.into_bytes());
        }
        let tracked = PathList::from_paths(paths);
        assert!(tracked.len() > 20_000, "{} distinct paths", tracked.len());
        let report = score(
            &matrix,
            &Input {
                tracked: &tracked,
                tracked_from: Tracked::GitIndex,
                today: Date::parse("2026-12-01").unwrap(),
                blob_ids: BlobIds::WorkTree,
            },
        );

        use crate::index::reference::matches;
        let kernels = matrix.kernels.as_ref().unwrap();
        let any = |globs: &[crate::matrix::Located<crate::glob::FileGlob>], p: &str| {
            globs.iter().any(|g| matches(g.value.as_str(), p))
        };
        let (mut kernel_files, mut uncovered) = (Vec::new(), Vec::new());
        let mut hit = std::collections::BTreeSet::new();
        for p in tracked.iter().map(|p| std::str::from_utf8(p).unwrap()) {
            for op in &matrix.ops {
                for g in op.files.iter().filter(|g| matches(g.value.as_str(), p)) {
                    hit.insert(g.value.as_str());
                }
            }
            if any(&kernels.include, p) && !any(&kernels.exclude, p) {
                kernel_files.push(p.to_owned());
                if !matrix.ops.iter().any(|op| any(&op.files, p)) {
                    uncovered.push(p.to_owned());
                }
            }
        }
        assert_eq!(
            report.kernel_files.lossy().collect::<Vec<_>>(),
            kernel_files
        );
        assert_eq!(report.uncovered.lossy().collect::<Vec<_>>(), uncovered);
        assert!(!uncovered.is_empty() && uncovered.len() < kernel_files.len());
        let dead: Vec<&str> = matrix
            .ops
            .iter()
            .flat_map(|op| &op.files)
            .map(|g| g.value.as_str())
            .filter(|g| !hit.contains(g))
            .collect();
        let kpi = report
            .kpis
            .iter()
            .find(|k| k.kpi == Kpi::DeadGlobs)
            .unwrap();
        let reported: Vec<&str> = kpi.items.iter().map(|i| i.subject.as_str()).collect();
        assert_eq!(reported, dead);
        assert_eq!(dead, ["csrc/nowhere/*.cu"]);
    }

    #[test]
    fn an_anchor_file_is_read_whole_whatever_its_size_did_since_the_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.cu");
        let text = b"__global__ void k_gemm() {}\n".repeat(700);
        std::fs::write(&path, &text).unwrap();
        let n = text.len() as u64;
        // The size the lookup saw; then grown, shrunk, or reported as 0.
        for seen in [n, n - 100, 1, 0, n + 100, n * 3] {
            let file = std::fs::File::open(&path).unwrap();
            assert_eq!(read_small(file, seen).unwrap(), text, "size seen {seen}");
        }
        std::fs::write(&path, b"").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        assert!(read_small(file, 0).unwrap().is_empty());
    }

    #[test]
    fn grades_follow_the_debt() {
        assert_eq!(
            [0, 1, 2, 3, 5, 6, 10, 11].map(grade),
            ['A', 'B', 'B', 'C', 'C', 'D', 'D', 'F']
        );
    }

    #[test]
    fn kpi_names_are_unique_and_groups_match_the_spec() {
        let names: BTreeSet<&str> = Kpi::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), Kpi::ALL.len());
        let hard: Vec<&str> = Kpi::ALL
            .iter()
            .filter(|k| k.hard())
            .map(|k| k.name())
            .collect();
        assert_eq!(
            hard,
            [
                "at_exists",
                "has_link",
                "has_oracle",
                "has_route",
                "tree_coverage",
                "ladder_witness"
            ]
        );
        // SPEC 3.4's groups, in its order.
        let groups: Vec<(&str, &str)> = Kpi::ALL
            .iter()
            .map(|k| (k.name(), k.group().name()))
            .filter(|(_, g)| *g == "proven" || *g == "fresh")
            .collect();
        assert_eq!(groups, [("proven", "proven"), ("freshness", "fresh")]);
    }
}
