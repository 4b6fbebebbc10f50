//! `sota prove` as a library call: decide where the checks come from (the
//! op's `check` list in the matrix, or explicit specs), compare the two
//! tensors with `crate::prove`, and return the report — with, for
//! `--record`, the proof record to write (the front end renders the
//! report, the histogram SVG and the record, and writes them).

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
    /// Write a proof record for the op (`.sota/proofs/SLUG.json`).
    pub record: bool,
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
            record: false,
        }
    }
}

/// The comparison and its verdict.
pub struct ProveReport {
    pub report: Report,
    /// The proof record to write (`--record`).
    pub record: Option<ProofRecord>,
}

/// A proof record to write: where, and what it says besides the report.
#[derive(Clone, Debug)]
pub struct ProofRecord {
    /// Root-relative, as shown.
    pub rel: PathBuf,
    /// Where to write it.
    pub path: PathBuf,
    pub meta: crate::prove::record::RecordMeta,
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
    let record = record_for(ctx, args.record, args.slug.as_deref(), &args.checks)?;
    let mut report = prove::run(&req).map_err(|e| usage(e.to_string()))?;
    // Shown as the user wrote them; opened from the context's directory.
    report.reference = args.reference.clone();
    report.candidate = args.candidate.clone();
    Ok(ProveReport { report, record })
}

/// The proof record to write when asked: of an op, judged by the op's own
/// checks (a record of other checks would prove something else).
fn record_for(
    ctx: &Context,
    wanted: bool,
    slug: Option<&str>,
    checks: &[String],
) -> Result<Option<ProofRecord>, Failure> {
    match (wanted, slug) {
        (false, _) => Ok(None),
        (true, None) => Err(usage(
            "--record writes the proof of an op: name it (sota prove SLUG --record …)".into(),
        )),
        (true, Some(_)) if !checks.is_empty() => Err(usage(
            "--record proves the op's own `check` list: drop --check, or put those checks in the op's `check` list".into(),
        )),
        (true, Some(slug)) => record(ctx, slug).map(Some),
    }
}

pub use crate::surface::proofs::{record_path, ProofState};

/// The proof state of op `slug`, as the scorecard's `proven` KPI judges
/// it: its record (`--record`) against the blob ids git's index holds for
/// the files its globs match ([`crate::surface::proofs`]).
pub fn proof_state(ctx: &Context, slug: &str) -> Result<ProofState, Failure> {
    let cov = crate::command::coverage::run(ctx, false)?;
    let op = cov.matrix.ops.iter().position(|o| o.slug.value == slug);
    Ok(cov
        .report
        .proofs
        .iter()
        .find(|(i, _)| Some(*i) == op)
        .map_or(ProofState::Missing, |(_, s)| s.clone()))
}

/// The proof record of `slug` to write (the CLI's `--record`): today's
/// date, the tool version and the git blob id of every tracked file the
/// op's globs match; the front end renders and writes it.
pub fn record(ctx: &Context, slug: &str) -> Result<ProofRecord, Failure> {
    let m = ctx.project_matrix("prove")?;
    let root = ctx.root(m);
    let rel = record_path(slug);
    stays_inside(&root, &rel)?;
    let files = op_blobs(ctx, m, &root, slug)?;
    Ok(ProofRecord {
        path: root.join(&rel),
        rel,
        meta: crate::prove::record::RecordMeta {
            op: slug.to_owned(),
            date: ctx.today().to_string(),
            files,
        },
    })
}

/// Refuse a record whose directory (`.sota`, `.sota/proofs`) exists and
/// leads outside the root — a link committed by a hostile repository
/// would have the record, and the directories before it, written
/// anywhere (the rule `init --force` follows; docs/SECURITY.md).
fn stays_inside(root: &std::path::Path, rel: &std::path::Path) -> Result<(), Failure> {
    let canon_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut dir = std::path::PathBuf::new();
    for part in rel.parent().into_iter().flat_map(|p| p.components()) {
        dir.push(part);
        let at = root.join(&dir);
        let linked = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        let inside = std::fs::canonicalize(&at).map(|c| c.starts_with(&canon_root));
        if linked || matches!(inside, Ok(false)) {
            return Err(Failure::Usage(format!(
                "sota prove: refusing to write the proof record {}: {} is a link (or leads outside the repository); nothing was written",
                rel.display(),
                dir.display()
            )));
        }
        if inside.is_err() {
            break; // not there yet: created inside, as a directory
        }
    }
    Ok(())
}

/// The tracked files `slug`'s globs match, with the git blob id of each
/// as it is in the work tree (`git hash-object`), sorted by path.
fn op_blobs(
    ctx: &Context,
    m: &crate::matrix::Matrix,
    root: &std::path::Path,
    slug: &str,
) -> Result<Vec<(String, String)>, Failure> {
    let Some(index) = m.ops.iter().position(|o| o.slug.value == slug) else {
        return Ok(Vec::new());
    };
    let (tracked, _) = crate::repo::tracked::list(root, ctx.inputs.git_env_overrides)?;
    let mut ops = crate::index::OpIndex::new(m).map_err(|e| usage(e.to_string()))?;
    let paths: Vec<String> = tracked
        .iter()
        .filter(|path| ops.matches_bytes(path).iter().any(|h| h.op == index))
        .map(|path| String::from_utf8_lossy(path).into_owned())
        .collect();
    Ok(crate::surface::proofs::worktree_blobs(
        root,
        paths.iter().map(String::as_str),
    ))
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

/// Two tensors a caller holds in memory (`sota.prove` in Python), and how
/// to judge them.
pub struct MemoryArgs<'a> {
    pub slug: Option<String>,
    pub checks: Vec<String>,
    pub quantile: f64,
    pub threads: usize,
    pub reference: crate::prove::memory::MemoryTensor<'a>,
    pub candidate: crate::prove::memory::MemoryTensor<'a>,
    /// How the report names each side (there is no file path).
    pub labels: (String, String),
    /// The axis rows run along (negative: from the end).
    pub axis: isize,
    /// Tiles over the last two axes, as written (`16x16`).
    pub tile: Option<String>,
    /// Return the op's proof record to write (the pytest plugin's
    /// `--sota-record`).
    pub record: bool,
}

/// [`run`] for tensors in memory: the checks resolved the same way
/// ([`options`]), the same comparison, the same record; no tensor file is
/// read, and the front end writes the record.
pub fn run_in_memory(ctx: &Context, args: &MemoryArgs) -> Result<ProveReport, Failure> {
    let options = options(
        ctx,
        &ProveArgs {
            slug: args.slug.clone(),
            checks: args.checks.clone(),
            quantile: args.quantile,
            threads: args.threads,
            axis: args.axis,
            tile: args.tile.clone(),
            ..ProveArgs::default()
        },
    )?;
    let record = record_for(ctx, args.record, args.slug.as_deref(), &args.checks)?;
    let labels = (args.labels.0.as_str(), args.labels.1.as_str());
    let report = crate::prove::memory::run(labels, &args.reference, &args.candidate, &options)
        .map_err(|e| usage(e.to_string()))?;
    Ok(ProveReport { report, record })
}
