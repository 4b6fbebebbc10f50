//! `sota prove`: compare a candidate tensor with a reference and judge the
//! op's oracle (SPEC 7). Formats (`.npy`, `.safetensors`, raw) are read
//! from memory maps; metrics are computed in one streaming, multi-threaded
//! pass with f64 accumulation whose result does not depend on the thread
//! count; checks become PASS/FAIL. No printing here: renderers live in
//! `output::prove`.

pub mod dtype;
pub mod histogram;
pub mod kernel;
pub mod memory;
pub mod meta;
pub mod metrics;
pub mod npy;
pub mod release;
pub mod safetensors;
pub mod spec;
pub mod tensor;
pub mod verdict;

use std::fmt;
use std::path::PathBuf;

use crate::matrix::Check;
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

/// What to compare and how to judge it.
#[derive(Clone, Debug)]
pub struct Request {
    pub reference: PathBuf,
    pub candidate: PathBuf,
    /// Compare only this tensor (by name, in `.safetensors` files).
    pub tensor: Option<String>,
    /// dtype and shape for files without a header.
    pub raw: Option<RawSpec>,
    pub checks: Vec<Check>,
    pub checks_from: ChecksFrom,
    /// The quantile of the error distribution to report (0..=1).
    pub quantile: f64,
    /// Worker threads; 0 means every available core.
    pub threads: usize,
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
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub layouts: (Layout, Layout),
    pub metrics: Metrics,
    pub checks: Vec<CheckResult>,
}

impl PairReport {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.pass)
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
    check_quantile(req.quantile)?;
    let a = TensorFile::open(&req.reference, req.raw.as_ref())?;
    let b = TensorFile::open(&req.candidate, req.raw.as_ref())?;
    let (pairs, only_a, only_b) = pair_up(&a, &b, req.tensor.as_deref())?;
    for (ta, tb) in &pairs {
        compatible(ta, tb)?;
    }
    let threads = threads(req.threads);
    let out = pairs
        .into_iter()
        .map(|(ta, tb)| compare_pair(a.view(ta), b.view(tb), req, threads))
        .collect();
    Ok(Report {
        reference: req.reference.clone(),
        candidate: req.candidate.clone(),
        formats: (a.format, b.format),
        checks_from: req.checks_from.clone(),
        pairs: out,
        only_in_reference: only_a,
        only_in_candidate: only_b,
        quantile: req.quantile,
    })
}

fn check_quantile(q: f64) -> Result<(), ProveError> {
    if (0.0..=1.0).contains(&q) {
        Ok(())
    } else {
        Err(ProveError::Usage(format!(
            "--quantile {q} is outside [0, 1]"
        )))
    }
}

/// Worker threads for a request's `threads` (0: every available core).
fn threads(asked: usize) -> usize {
    if asked == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        asked
    }
}

/// Measure one pair of tensors and judge the checks on it: the one
/// comparison behind [`run`] (files) and [`memory::run`] (a caller's
/// buffers).
fn compare_pair(a: TensorView, b: TensorView, req: &Request, threads: usize) -> PairReport {
    let (ta, tb) = (a.meta, b.meta);
    let tols = verdict::tolerances(&req.checks, ta.dtype);
    let metrics = metrics::compare(a, b, &tols, req.quantile, threads);
    let checks = verdict::judge(&req.checks, &metrics, ta.dtype);
    PairReport {
        name: ta.name.clone(),
        dtype: ta.dtype,
        shape: ta.shape.clone(),
        layouts: (ta.layout, tb.layout),
        metrics,
        checks,
    }
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

/// Shapes and dtypes must match exactly (no broadcasting, no casting).
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
    if a.dtype != b.dtype {
        return Err(ProveError::Mismatch(format!(
            "{label}dtypes differ: reference {}, candidate {} (compare like with like: cast one side when saving)",
            a.dtype, b.dtype
        )));
    }
    Ok(())
}
