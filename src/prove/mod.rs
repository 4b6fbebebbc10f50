//! `sota prove`: compare a candidate tensor with a reference and judge the
//! op's oracle (SPEC 7). Formats (`.npy`, `.safetensors`, raw) are read
//! from memory maps; metrics are computed in one streaming, multi-threaded
//! pass with f64 accumulation whose result does not depend on the thread
//! count; checks become PASS/FAIL. No printing here: renderers live in
//! `output::prove`.

pub use crate::dtype;
pub mod histogram;
pub mod kernel;
pub mod local;
pub mod local_figures;
pub mod memory;
pub mod meta;
pub mod metrics;
pub mod npy;
pub mod record;
pub mod release;
pub mod safetensors;
pub mod spec;
pub mod tensor;
pub mod verdict;

use std::fmt;
use std::path::PathBuf;

use crate::matrix::{Check, CheckEntry, Scope};
use crate::quote::quote;

pub use dtype::{ByteOrder, DType};
pub use metrics::Metrics;
pub use tensor::{Format, Layout, RawSpec};
pub use verdict::CheckResult;

use tensor::{TensorFile, TensorMeta, TensorView};

/// The default quantile reported beside the median (Polygraphy's default).
pub const DEFAULT_QUANTILE: f64 = 0.99;

/// Where the checks came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChecksFrom {
    /// The `check` list of this op in the matrix.
    Op(String),
    /// `--check` on the command line.
    Flag,
    /// No checks: metrics only.
    None,
}

/// How to judge a comparison, whatever holds the tensors (files or
/// memory).
#[derive(Clone, Debug)]
pub struct Options {
    /// The checks, each for every candidate dtype or for some.
    pub checks: Vec<CheckEntry>,
    pub checks_from: ChecksFrom,
    /// The quantile of the error distribution to report (0..=1).
    pub quantile: f64,
    /// Worker threads; 0 means every available core.
    pub threads: usize,
    /// The axis rows run along, counted from the end when negative (-1:
    /// the last axis, i.e. rows of the flattened leading axes).
    pub axis: isize,
    /// Tiles of rows × columns over the last two axes; `None`:
    /// [`DEFAULT_TILE`] when a tile check asks for tiles, else no tiles.
    pub tile: Option<(usize, usize)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            checks: Vec::new(),
            checks_from: ChecksFrom::None,
            quantile: DEFAULT_QUANTILE,
            threads: 0,
            axis: -1,
            tile: None,
        }
    }
}

/// The tile a tile check measures when no size is given.
pub const DEFAULT_TILE: (usize, usize) = (16, 16);

/// What to compare and how to judge it.
#[derive(Clone, Debug)]
pub struct Request {
    pub reference: PathBuf,
    pub candidate: PathBuf,
    /// Compare only this tensor (by name, in `.safetensors` files).
    pub tensor: Option<String>,
    /// dtype and shape for files without a header.
    pub raw: Option<RawSpec>,
    pub options: Options,
}

/// One tensor held in memory (for front ends that have the tensors, not
/// files: the Python package). `data` holds exactly the elements, in
/// `layout` order.
#[derive(Clone, Debug)]
pub struct InMemory<'a> {
    pub dtype: DType,
    pub order: ByteOrder,
    pub shape: Vec<usize>,
    pub layout: Layout,
    pub data: &'a [u8],
}

/// Why a comparison could not be made (exit 2).
#[derive(Debug)]
pub enum ProveError {
    /// A file that cannot be read as a tensor file.
    Input { path: PathBuf, message: String },
    /// The two sides cannot be compared (shape, dtype, names).
    Mismatch(String),
    /// Arguments that do not make sense together.
    Usage(String),
}

impl fmt::Display for ProveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProveError::Input { path, message } => write!(f, "{}: {message}", path.display()),
            ProveError::Mismatch(m) | ProveError::Usage(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ProveError {}

/// One compared pair of tensors.
#[derive(Clone)]
pub struct PairReport {
    /// The tensor's name (empty for `.npy` and raw files).
    pub name: String,
    /// The candidate's element type (which sets default tolerances and
    /// picks the dtype-restricted checks).
    pub dtype: DType,
    /// The reference's element type (often wider: f32 against bf16).
    pub reference_dtype: DType,
    pub shape: Vec<usize>,
    pub layouts: (Layout, Layout),
    pub metrics: Metrics,
    pub checks: Vec<CheckResult>,
    /// Check entries left out because they name other candidate dtypes.
    pub other_dtypes: usize,
}

impl PairReport {
    /// Every check holds, and at least one applied (with checks given, a
    /// pair no check applies to has proved nothing).
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.pass) && !(self.checks.is_empty() && self.other_dtypes > 0)
    }
}

/// The whole comparison.
#[derive(Clone)]
pub struct Report {
    pub reference: PathBuf,
    pub candidate: PathBuf,
    pub formats: (Format, Format),
    pub checks_from: ChecksFrom,
    pub pairs: Vec<PairReport>,
    /// Tensors of one file that the other lacks (not compared).
    pub only_in_reference: Vec<String>,
    pub only_in_candidate: Vec<String>,
    pub quantile: f64,
}

/// The overall outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No checks were given: metrics only.
    Unjudged,
    Pass,
    Fail,
}

impl Report {
    pub fn verdict(&self) -> Verdict {
        if self.checks_from == ChecksFrom::None {
            Verdict::Unjudged
        } else if self.pairs.iter().all(PairReport::passed) {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    }
}

/// Compare the tensors `req` names and judge its checks.
pub fn run(req: &Request) -> Result<Report, ProveError> {
    validate(&req.options)?;
    let a = TensorFile::open(&req.reference, req.raw.as_ref())?;
    let b = TensorFile::open(&req.candidate, req.raw.as_ref())?;
    let (pairs, only_a, only_b) = pair_up(&a, &b, req.tensor.as_deref())?;
    for (ta, tb) in &pairs {
        compatible(ta, tb)?;
    }
    let mut out = Vec::new();
    for (ta, tb) in pairs {
        out.push(compare_pair(a.view(ta), b.view(tb), &req.options)?);
    }
    Ok(Report {
        reference: req.reference.clone(),
        candidate: req.candidate.clone(),
        formats: (a.format, b.format),
        checks_from: req.options.checks_from.clone(),
        pairs: out,
        only_in_reference: only_a,
        only_in_candidate: only_b,
        quantile: req.options.quantile,
    })
}

/// Compare two tensors held in memory and judge `options.checks`: the
/// same metrics, checks and report as [`run`] on files (the report's
/// paths read `<reference>` and `<candidate>`, its formats `memory`).
pub fn run_in_memory(
    reference: &InMemory,
    candidate: &InMemory,
    options: &Options,
) -> Result<Report, ProveError> {
    validate(options)?;
    let meta = |t: &InMemory, side: &str| -> Result<TensorMeta, ProveError> {
        let bad = |message: String| ProveError::Input {
            path: PathBuf::from(format!("<{side}>")),
            message,
        };
        let nbytes = tensor::element_count(&t.shape)
            .and_then(|n| n.checked_mul(t.dtype.size()))
            .ok_or_else(|| bad(format!("shape {:?} overflows", t.shape)))?;
        if nbytes != t.data.len() {
            return Err(bad(format!(
                "shape {:?} of {} needs {nbytes} bytes, the buffer holds {}",
                t.shape,
                t.dtype,
                t.data.len()
            )));
        }
        Ok(TensorMeta {
            name: String::new(),
            dtype: t.dtype,
            order: t.order,
            shape: t.shape.clone(),
            layout: t.layout,
            offset: 0,
            nbytes,
        })
    };
    let (ma, mb) = (meta(reference, "reference")?, meta(candidate, "candidate")?);
    compatible(&ma, &mb)?;
    let pair = compare_pair(
        TensorView::in_memory(&ma, reference.data),
        TensorView::in_memory(&mb, candidate.data),
        options,
    )?;
    Ok(Report {
        reference: PathBuf::from("<reference>"),
        candidate: PathBuf::from("<candidate>"),
        formats: (Format::Memory, Format::Memory),
        checks_from: options.checks_from.clone(),
        pairs: vec![pair],
        only_in_reference: Vec::new(),
        only_in_candidate: Vec::new(),
        quantile: options.quantile,
    })
}

fn validate(o: &Options) -> Result<(), ProveError> {
    if !(0.0..=1.0).contains(&o.quantile) {
        return Err(ProveError::Usage(format!(
            "--quantile {} is outside [0, 1]",
            o.quantile
        )));
    }
    if o.tile.is_some_and(|(h, w)| h == 0 || w == 0) {
        return Err(ProveError::Usage(
            "--tile needs two positive sizes, e.g. 16x16".into(),
        ));
    }
    Ok(())
}

/// The axis `axis` means for a tensor of `rank` axes (a scalar has one).
fn resolve_axis(axis: isize, shape: &[usize]) -> Result<usize, ProveError> {
    let rank = shape.len().max(1) as isize;
    let a = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&a) {
        return Err(ProveError::Usage(format!(
            "--axis {axis} is out of range for shape {shape:?} ({rank} axes: -{rank}..{})",
            rank - 1
        )));
    }
    Ok(a as usize)
}

/// Measure and judge one pair of tensors (shapes already checked equal).
fn compare_pair(a: TensorView, b: TensorView, o: &Options) -> Result<PairReport, ProveError> {
    let axis = resolve_axis(o.axis, &a.meta.shape)?;
    let threads = if o.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        o.threads
    };
    let dtype = b.meta.dtype;
    let checks: Vec<Check> = o
        .checks
        .iter()
        .filter(|c| c.applies_to(dtype))
        .map(|c| c.check.clone())
        .collect();
    let tols = verdict::tolerances(&checks, dtype);
    let mut metrics = metrics::compare(a, b, &tols, o.quantile, threads);
    let rows = verdict::local_bounds(&checks, Scope::Row);
    metrics.rows = Some(local::measure(
        a,
        b,
        local::Grouping::Rows { axis },
        &rows,
        threads,
    ));
    let tile_bounds = verdict::local_bounds(&checks, Scope::Tile);
    if let Some((h, w)) = o.tile.or((!tile_bounds.is_empty()).then_some(DEFAULT_TILE)) {
        let grouping = local::Grouping::Tiles { h, w };
        metrics.tiles = Some(local::measure(a, b, grouping, &tile_bounds, threads));
    }
    let judged = verdict::judge(&checks, &metrics, dtype);
    Ok(PairReport {
        name: a.meta.name.clone(),
        dtype,
        reference_dtype: a.meta.dtype,
        shape: a.meta.shape.clone(),
        layouts: (a.meta.layout, b.meta.layout),
        metrics,
        checks: judged,
        other_dtypes: o.checks.len() - checks.len(),
    })
}

type Pairs<'a> = (
    Vec<(&'a TensorMeta, &'a TensorMeta)>,
    Vec<String>,
    Vec<String>,
);

/// Which tensor of one file goes with which of the other.
fn pair_up<'a>(
    a: &'a TensorFile,
    b: &'a TensorFile,
    tensor: Option<&str>,
) -> Result<Pairs<'a>, ProveError> {
    let named = |f: &TensorFile| f.format == Format::Safetensors;
    let pick = |f: &'a TensorFile, name: &str| -> Result<&'a TensorMeta, ProveError> {
        if !named(f) {
            return Ok(&f.tensors[0]);
        }
        f.tensors.iter().find(|t| t.name == name).ok_or_else(|| {
            let names: Vec<&str> = f.tensors.iter().map(|t| t.name.as_str()).collect();
            let dym = crate::did_you_mean::phrase(name, names.iter().copied());
            ProveError::Usage(format!(
                "{} has no tensor {}; {}it holds: {}",
                f.path.display(),
                quote(&format!("`{name}`")),
                dym.map(|d| format!("{d} ")).unwrap_or_default(),
                list(&names)
            ))
        })
    };
    if let Some(name) = tensor {
        if !named(a) && !named(b) {
            return Err(ProveError::Usage(
                "--tensor selects a tensor in a .safetensors file; both files hold a single tensor"
                    .into(),
            ));
        }
        return Ok((vec![(pick(a, name)?, pick(b, name)?)], vec![], vec![]));
    }
    match (named(a), named(b)) {
        (true, true) => pair_by_name(a, b),
        (false, false) => Ok((vec![(&a.tensors[0], &b.tensors[0])], vec![], vec![])),
        (named_a, _) => {
            let f = if named_a { a } else { b };
            if f.tensors.len() != 1 {
                return Err(ProveError::Usage(format!(
                    "{} holds {} tensors ({}) and the other file one: choose with --tensor NAME",
                    f.path.display(),
                    f.tensors.len(),
                    list(
                        &f.tensors
                            .iter()
                            .map(|t| t.name.as_str())
                            .collect::<Vec<_>>()
                    )
                )));
            }
            Ok((vec![(&a.tensors[0], &b.tensors[0])], vec![], vec![]))
        }
    }
}

/// Two `.safetensors` files' tensors paired by name, and the names only
/// one side holds: one merge of the two lists, which the reader sorts by
/// name (a file may hold 100,000 tensors).
fn pair_by_name<'a>(a: &'a TensorFile, b: &'a TensorFile) -> Result<Pairs<'a>, ProveError> {
    use std::cmp::Ordering;
    let (mut xs, mut ys) = (a.tensors.iter().peekable(), b.tensors.iter().peekable());
    let (mut common, mut only_a, mut only_b) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        match (xs.peek(), ys.peek()) {
            (Some(x), Some(y)) => match x.name.cmp(&y.name) {
                Ordering::Less => only_a.push(xs.next().expect("peeked").name.clone()),
                Ordering::Greater => only_b.push(ys.next().expect("peeked").name.clone()),
                Ordering::Equal => {
                    common.push((xs.next().expect("peeked"), ys.next().expect("peeked")))
                }
            },
            (Some(_), None) => only_a.extend(xs.by_ref().map(|t| t.name.clone())),
            (None, Some(_)) => only_b.extend(ys.by_ref().map(|t| t.name.clone())),
            (None, None) => break,
        }
    }
    if common.is_empty() {
        let names = |f: &TensorFile| {
            list(
                &f.tensors
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>(),
            )
        };
        return Err(ProveError::Mismatch(format!(
            "the files have no tensor name in common: {} holds {}; {} holds {}",
            a.path.display(),
            names(a),
            b.path.display(),
            names(b)
        )));
    }
    Ok((common, only_a, only_b))
}

/// Tensor names (from a file's header: untrusted), each visibly quoted.
fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "no tensors".into();
    }
    let shown: Vec<String> = names
        .iter()
        .take(12)
        .map(|n| quote(&format!("`{n}`")).into_owned())
        .collect();
    let more = names.len().saturating_sub(12);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Shapes must match exactly (no broadcasting); dtypes too, but for two
/// float types (an f32 reference, a bf16 candidate), compared in f64.
fn compatible(a: &TensorMeta, b: &TensorMeta) -> Result<(), ProveError> {
    let label = if a.name.is_empty() {
        String::new()
    } else {
        format!("tensor `{}`: ", a.name)
    };
    if a.shape != b.shape {
        return Err(ProveError::Mismatch(format!(
            "{label}shapes differ: reference {:?}, candidate {:?} (sota prove does not broadcast; reshape one side)",
            a.shape, b.shape
        )));
    }
    if a.dtype != b.dtype && !(a.dtype.is_float() && b.dtype.is_float()) {
        return Err(ProveError::Mismatch(format!(
            "{label}dtypes differ: reference {}, candidate {} (two float types are compared in f64; integers and bool only with their own type: cast one side when saving)",
            a.dtype, b.dtype
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-memory entry point gives the same figures and verdicts as
    /// the files holding the same tensors (one implementation).
    #[test]
    fn in_memory_tensors_report_what_their_files_do() {
        let (rows, cols) = (33, 40);
        let a: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 37) % 101) as f32 / 7.0 - 5.0)
            .collect();
        let mut b = a.clone();
        b[5 * cols + 3] += 0.5;
        let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let (ba, bb) = (bytes(&a), bytes(&b));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.bin"), &ba).unwrap();
        std::fs::write(dir.path().join("b.bin"), &bb).unwrap();
        let checks =
            spec::parse_checks("cosine>=0.999; row-cosine>=0.9999; tile-rel-l2<=0.01").unwrap();
        let options = Options {
            checks,
            checks_from: ChecksFrom::Flag,
            tile: Some((8, 8)),
            ..Options::default()
        };
        let shape = vec![rows, cols];
        let files = run(&Request {
            reference: dir.path().join("a.bin"),
            candidate: dir.path().join("b.bin"),
            tensor: None,
            raw: Some(RawSpec {
                dtype: DType::F32,
                order: ByteOrder::Little,
                shape: shape.clone(),
            }),
            options: options.clone(),
        })
        .unwrap();
        let mem = |data| InMemory {
            dtype: DType::F32,
            order: ByteOrder::Little,
            shape: shape.clone(),
            layout: Layout::C,
            data,
        };
        let memory = run_in_memory(&mem(&ba), &mem(&bb), &options).unwrap();
        assert_eq!(memory.verdict(), Verdict::Fail);
        let json = |r: &Report| crate::output::prove::json(r)["tensors"].to_string();
        assert_eq!(json(&files), json(&memory));
        let short = run_in_memory(&mem(&ba[4..]), &mem(&bb), &options);
        assert!(matches!(short, Err(ProveError::Input { .. })));
    }
}
