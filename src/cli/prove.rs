//! `sota prove`: the clap arguments, resolving where the checks come from
//! (the op's `check` list in the matrix, or `--check`), running the
//! comparison and printing it; exit 1 when a check fails, 2 when the
//! comparison cannot be made.

use std::path::{Path, PathBuf};

use sota::matrix::{self, Check, Matrix};
use sota::output::prove as render;
use sota::prove::{self, spec, ChecksFrom, RawSpec, Request, Verdict};

use super::{err, out, Failure, Outcome};

pub(crate) const AFTER_HELP: &str = "\
Check SPEC (repeat --check, or separate with `;`):
  cosine>=0.999                 cosine similarity at least 0.999
  max-abs<=1e-3  max-rel<=1e-2  largest absolute / relative error at most
  allclose                      |ref - cand| <= atol + rtol*|ref| everywhere, torch.testing's
                                defaults for the dtype (f16 1e-3/1e-5, bf16 1.6e-2/1e-5,
                                f32 1.3e-6/1e-5, f64 1e-7/1e-7, others 0/0)
  allclose:rtol=1e-5,atol=1e-8  explicit tolerances (one may be left out)
  argmax  argmax>=0.99          fraction of rows whose argmax over the last axis agrees
  bit-identity                  every element's bytes equal

NaN and Inf must sit at the same places in both tensors, or every check but
bit-identity fails. Median and quantiles are exact to a relative 2^-8.

Examples:
  sota prove fused-attention --reference ref.npy --candidate out.npy
  sota prove --reference a.safetensors --candidate b.safetensors --check 'cosine>=0.999;allclose'
  sota prove --reference a.bin --candidate b.bin --dtype bf16 --shape 32,4096 --check argmax
  sota prove awq-int4-gemm -r ref.npy -c out.npy --histogram err.svg --json";

#[derive(clap::Args, Debug)]
pub(crate) struct ProveArgs {
    /// The op whose `check` list to apply (from the matrix)
    slug: Option<String>,
    /// The reference tensor file (.npy, .safetensors, or raw with --dtype/--shape)
    #[arg(long, short = 'r', value_name = "FILE")]
    reference: PathBuf,
    /// The candidate tensor file
    #[arg(long, short = 'c', value_name = "FILE")]
    candidate: PathBuf,
    /// Compare only this tensor of .safetensors files (default: every name both hold)
    #[arg(long, value_name = "NAME")]
    tensor: Option<String>,
    /// Checks to apply instead of the op's (see below); repeatable
    #[arg(long = "check", value_name = "SPEC")]
    checks: Vec<String>,
    /// Element type of raw files: f64 f32 f16 bf16 f8_e4m3 f8_e5m2 i8..i64 u8..u64 bool (prefix `>` for big-endian)
    #[arg(long, value_name = "DTYPE", requires = "shape")]
    dtype: Option<String>,
    /// Shape of raw files, e.g. 32,4096
    #[arg(long, value_name = "DIMS", requires = "dtype")]
    shape: Option<String>,
    /// The error quantile to report beside the median
    #[arg(long, value_name = "Q", default_value_t = prove::DEFAULT_QUANTILE)]
    quantile: f64,
    /// Write an SVG histogram of the absolute error to this file
    #[arg(long, value_name = "FILE.svg")]
    histogram: Option<PathBuf>,
    /// Worker threads (default: every core); results do not depend on it
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
}

pub(super) fn run(
    matrix_flag: Option<&Path>,
    json: bool,
    args: &ProveArgs,
) -> Result<Outcome, Failure> {
    let refuse = |msg: &str| {
        err(&format!("sota prove: {msg}"));
        Ok(Outcome::Refused)
    };
    let mut checks: Vec<Check> = Vec::new();
    for s in &args.checks {
        match spec::parse_checks(s) {
            Ok(c) => checks.extend(c),
            Err(e) => return refuse(&format!("--check {e}")),
        }
    }
    let checks_from = if !checks.is_empty() {
        ChecksFrom::Flag
    } else if let Some(slug) = &args.slug {
        let cwd = std::env::current_dir()?;
        let env = std::env::var_os("SOTA_MATRIX").map(PathBuf::from);
        let found = matrix::discover(&cwd, matrix_flag, env.as_deref());
        let Some(path) = found.path() else {
            return refuse(&format!(
                "no sota.toml at or above {} to read op `{slug}`'s checks from; pass --matrix PATH, or give the checks with --check",
                cwd.display()
            ));
        };
        let m = Matrix::load(path).map_err(Failure::Matrix)?;
        let Some(op) = m.op(slug) else {
            let slugs: Vec<&str> = m.ops.iter().map(|o| o.slug.value.as_str()).collect();
            let dym = sota::surface::lookup::did_you_mean(slug, slugs.iter().copied());
            let hint = dym
                .first()
                .map(|d| format!("; did you mean `{d}`?"))
                .unwrap_or_default();
            return refuse(&format!("{} has no op `{slug}`{hint}", m.display_name()));
        };
        if op.check.is_empty() {
            return refuse(&format!(
                "op `{slug}` in {} has no `check` list; add one (e.g. check = [{{ metric = \"cosine\", min = 0.999 }}]) or pass --check",
                m.display_name()
            ));
        }
        checks = op.check.iter().map(|c| c.value.clone()).collect();
        ChecksFrom::Op(slug.clone())
    } else {
        ChecksFrom::None
    };
    let raw = match (&args.dtype, &args.shape) {
        (Some(d), Some(s)) => {
            let (dtype, order) = match spec::parse_dtype(d) {
                Ok(x) => x,
                Err(e) => return refuse(&format!("--dtype {e}")),
            };
            let shape = match spec::parse_shape(s) {
                Ok(x) => x,
                Err(e) => return refuse(&format!("--shape {e}")),
            };
            Some(RawSpec {
                dtype,
                order,
                shape,
            })
        }
        _ => None,
    };
    let req = Request {
        reference: args.reference.clone(),
        candidate: args.candidate.clone(),
        tensor: args.tensor.clone(),
        raw,
        checks,
        checks_from,
        quantile: args.quantile,
        threads: args.threads,
    };
    let report = match prove::run(&req) {
        Ok(r) => r,
        Err(e) => return refuse(&e.to_string()),
    };
    if let Some(path) = &args.histogram {
        if let Err(e) = sota::repo::write::atomic(path, render::svg(&report).as_bytes(), None) {
            return refuse(&format!("cannot write {}: {e}", path.display()));
        }
    }
    if json {
        out(&sota::output::json::to_string(&render::json(&report)))?;
    } else {
        out(&render::human(&report))?;
    }
    Ok(match report.verdict() {
        Verdict::Fail => Outcome::NothingFound,
        Verdict::Pass | Verdict::Unjudged => Outcome::Done,
    })
}
