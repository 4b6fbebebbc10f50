//! `sota prove` as a library call: decide where the checks come from (the
//! op's `check` list in the matrix, or explicit specs), compare the two
//! tensors with `crate::prove`, and return the report (the front end
//! renders it, and writes the histogram SVG when asked).

use std::path::PathBuf;

use crate::context::Context;
use crate::matrix::Check;
use crate::outcome::{Failure, Outcome};
use crate::prove::memory::MemoryTensor;
use crate::prove::{self, spec, ChecksFrom, RawSpec, Report, Request, Verdict};

/// What to compare and how, as a front end received it.
#[derive(Clone, Debug, Default)]
pub struct ProveArgs {
    /// The op whose `check` list to apply.
    pub slug: Option<String>,
    pub reference: PathBuf,
    pub candidate: PathBuf,
    /// Only this tensor of `.safetensors` files.
    pub tensor: Option<String>,
    /// Check specs (`cosine>=0.999`, …) that replace the op's.
    pub checks: Vec<String>,
    /// Raw files: element type and shape, as written on the command line.
    pub dtype: Option<String>,
    pub shape: Option<String>,
    pub quantile: f64,
    /// Worker threads (0: every core).
    pub threads: usize,
}

/// The comparison and its verdict.
pub struct ProveReport {
    pub report: Report,
}

impl ProveReport {
    pub fn outcome(&self) -> Outcome {
        match self.report.verdict() {
            Verdict::Fail => Outcome::CheckFailed,
            Verdict::Pass | Verdict::Unjudged => Outcome::Done,
        }
    }
}

fn usage(msg: String) -> Failure {
    Failure::Usage(format!("sota prove: {msg}"))
}

/// The checks to judge and where they come from: `specs` (`--check`)
/// when given, else the `check` list of op `slug` in the context's matrix,
/// else none (metrics only).
pub fn resolve_checks(
    ctx: &Context,
    slug: Option<&str>,
    specs: &[String],
) -> Result<(Vec<Check>, ChecksFrom), Failure> {
    let mut checks: Vec<Check> = Vec::new();
    for s in specs {
        checks.extend(spec::parse_checks(s).map_err(|e| usage(format!("--check {e}")))?);
    }
    if !checks.is_empty() {
        return Ok((checks, ChecksFrom::Flag));
    }
    let Some(slug) = slug else {
        return Ok((checks, ChecksFrom::None));
    };
    let m = ctx.project_matrix("prove").map_err(|e| match e {
        Failure::NoMatrix { searched_from, .. } => usage(format!(
            "no sota.toml at or above {} to read op `{slug}`'s checks from; pass --matrix PATH, or give the checks with --check",
            searched_from.display()
        )),
        other => other,
    })?;
    let Some(op) = m.op(slug) else {
        let slugs: Vec<&str> = m.ops.iter().map(|o| o.slug.value.as_str()).collect();
        let hint = crate::did_you_mean::did_you_mean(slug, slugs.iter().copied())
            .first()
            .map(|d| format!("; did you mean `{d}`?"))
            .unwrap_or_default();
        return Err(usage(format!(
            "{} has no op `{slug}`{hint}",
            m.display_name()
        )));
    };
    if op.check.is_empty() {
        return Err(usage(format!(
            "op `{slug}` in {} has no `check` list; add one (e.g. check = [{{ metric = \"cosine\", min = 0.999 }}]) or pass --check",
            m.display_name()
        )));
    }
    let checks = op.check.iter().map(|c| c.value.clone()).collect();
    Ok((checks, ChecksFrom::Op(slug.to_owned())))
}

/// Compare `args.candidate` with `args.reference`.
pub fn run(ctx: &Context, args: &ProveArgs) -> Result<ProveReport, Failure> {
    let (checks, checks_from) = resolve_checks(ctx, args.slug.as_deref(), &args.checks)?;
    let raw = match (&args.dtype, &args.shape) {
        (Some(d), Some(s)) => {
            let (dtype, order) = spec::parse_dtype(d).map_err(|e| usage(format!("--dtype {e}")))?;
            let shape = spec::parse_shape(s).map_err(|e| usage(format!("--shape {e}")))?;
            Some(RawSpec {
                dtype,
                order,
                shape,
            })
        }
        _ => None,
    };
    let req = Request {
        reference: ctx.absolute(&args.reference),
        candidate: ctx.absolute(&args.candidate),
        tensor: args.tensor.clone(),
        raw,
        checks,
        checks_from,
        quantile: args.quantile,
        threads: args.threads,
    };
    let mut report = prove::run(&req).map_err(|e| usage(e.to_string()))?;
    // Shown as the user wrote them; opened from the context's directory.
    report.reference = args.reference.clone();
    report.candidate = args.candidate.clone();
    Ok(ProveReport { report })
}

/// Two tensors a caller holds in memory (`sota.prove` in Python), and how
/// to judge them.
pub struct MemoryArgs<'a> {
    pub slug: Option<String>,
    pub checks: Vec<String>,
    pub quantile: f64,
    pub threads: usize,
    pub reference: MemoryTensor<'a>,
    pub candidate: MemoryTensor<'a>,
    /// How the report names each side (there is no file path).
    pub labels: (String, String),
}

/// [`run`] for tensors in memory: the checks resolved the same way, the
/// same comparison; no file is read or written.
pub fn run_in_memory(ctx: &Context, args: &MemoryArgs) -> Result<ProveReport, Failure> {
    let (checks, checks_from) = resolve_checks(ctx, args.slug.as_deref(), &args.checks)?;
    let req = Request {
        reference: PathBuf::from(&args.labels.0),
        candidate: PathBuf::from(&args.labels.1),
        tensor: None,
        raw: None,
        checks,
        checks_from,
        quantile: args.quantile,
        threads: args.threads,
    };
    let report = prove::memory::run(&req, &args.reference, &args.candidate)
        .map_err(|e| usage(e.to_string()))?;
    Ok(ProveReport { report })
}
