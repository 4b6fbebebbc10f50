//! `sota prove` as a library call: decide where the checks come from (the
//! op's `check` list in the matrix, or explicit specs), compare the two
//! tensors with `crate::prove`, and write the histogram if asked.

use std::path::PathBuf;

use crate::context::Context;
use crate::matrix::CheckEntry;
use crate::outcome::{Failure, Outcome};
use crate::prove::{self, spec, ChecksFrom, Options, RawSpec, Report, Request, Verdict};

/// What to compare and how, as a front end received it.
#[derive(Clone, Debug)]
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
    /// The axis rows run along (negative: from the end).
    pub axis: isize,
    /// Tiles over the last two axes, as written (`16x16`).
    pub tile: Option<String>,
    /// Write an SVG histogram of the absolute error here.
    pub histogram: Option<PathBuf>,
}

impl Default for ProveArgs {
    fn default() -> Self {
        ProveArgs {
            slug: None,
            reference: PathBuf::new(),
            candidate: PathBuf::new(),
            tensor: None,
            checks: Vec::new(),
            dtype: None,
            shape: None,
            quantile: prove::DEFAULT_QUANTILE,
            threads: 0,
            axis: -1,
            tile: None,
            histogram: None,
        }
    }
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

/// Compare `args.candidate` with `args.reference`.
pub fn run(ctx: &Context, args: &ProveArgs) -> Result<ProveReport, Failure> {
    let req = Request {
        reference: ctx.absolute(&args.reference),
        candidate: ctx.absolute(&args.candidate),
        tensor: args.tensor.clone(),
        raw: raw_spec(args)?,
        options: options(ctx, args)?,
    };
    let mut report = prove::run(&req).map_err(|e| usage(e.to_string()))?;
    // Shown as the user wrote them; opened from the context's directory.
    report.reference = args.reference.clone();
    report.candidate = args.candidate.clone();
    if let Some(path) = &args.histogram {
        let svg = crate::output::prove::svg(&report);
        crate::repo::write::atomic(&ctx.absolute(path), svg.as_bytes(), None)
            .map_err(|e| usage(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(ProveReport { report })
}

/// How to judge: the checks (from `--check`, else the op's), the
/// quantile, threads, axis and tile.
pub fn options(ctx: &Context, args: &ProveArgs) -> Result<Options, Failure> {
    let mut checks: Vec<CheckEntry> = Vec::new();
    for s in &args.checks {
        checks.extend(spec::parse_checks(s).map_err(|e| usage(format!("--check {e}")))?);
    }
    let checks_from = if !checks.is_empty() {
        ChecksFrom::Flag
    } else if let Some(slug) = &args.slug {
        checks = op_checks(ctx, slug)?;
        ChecksFrom::Op(slug.clone())
    } else {
        ChecksFrom::None
    };
    let tile = match &args.tile {
        Some(t) => Some(spec::parse_tile(t).map_err(|e| usage(format!("--tile {e}")))?),
        None => None,
    };
    Ok(Options {
        checks,
        checks_from,
        quantile: args.quantile,
        threads: args.threads,
        axis: args.axis,
        tile,
    })
}

/// The `check` list of op `slug` in the project's matrix.
pub fn op_checks(ctx: &Context, slug: &str) -> Result<Vec<CheckEntry>, Failure> {
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
    Ok(op.check.iter().map(|c| c.value.clone()).collect())
}

fn raw_spec(args: &ProveArgs) -> Result<Option<RawSpec>, Failure> {
    let (Some(d), Some(s)) = (&args.dtype, &args.shape) else {
        return Ok(None);
    };
    let (dtype, order) = spec::parse_dtype(d).map_err(|e| usage(format!("--dtype {e}")))?;
    let shape = spec::parse_shape(s).map_err(|e| usage(format!("--shape {e}")))?;
    Ok(Some(RawSpec {
        dtype,
        order,
        shape,
    }))
}
