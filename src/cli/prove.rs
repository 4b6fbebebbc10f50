//! `sota prove`: the clap arguments and their help; the work is
//! `sota::command::prove` (exit 1 when a check fails, 2 when the
//! comparison cannot be made).

use std::path::PathBuf;

use sota::prove;

pub const AFTER_HELP: &str = "\
Check SPEC (repeat --check, or separate with `;`):
  cosine>=0.999                 cosine similarity at least 0.999
  max-abs<=1e-3  max-rel<=1e-2  largest absolute / relative error at most
  allclose                      |ref - cand| <= atol + rtol*|ref| everywhere, the defaults of the
                                candidate's dtype (torch.testing's: f16 1e-3/1e-5, bf16 1.6e-2/1e-5,
                                f32 1.3e-6/1e-5, f64 1e-7/1e-7; f8_e4m3 2^-3/2^-9, f8_e5m2 2^-2/2^-16;
                                integers 0/0)
  allclose:rtol=1e-5,atol=1e-8  explicit tolerances (one may be left out)
  argmax  argmax>=0.99          fraction of rows whose argmax over the last axis agrees
  bit-identity                  every element's bytes equal
  row-cosine>=0.999             the worst row along --axis (default: the last axis)
  tile-rel-l2<=0.03             the worst --tile (default 16x16) by |ref - cand|_2 / |ref|_2;
                                also row-max-abs, row-rel-l2, tile-cosine, tile-max-abs
  bf16,f16: tile-rel-l2<=0.03   a check only for candidates of these dtypes

A float candidate may differ in dtype from a float reference (bf16 against
f32): both are read exactly as f64. NaN and Inf must sit at the same places
in both tensors, or every check but bit-identity fails; a pair with no
finite element to measure (all NaN/Inf, or empty) fails them too. Median
and quantiles are exact to a relative 2^-8. Only regular files are read (a
FIFO or device is refused).

Examples:
  sota prove fused-attention --reference ref.npy --candidate out.npy
  sota prove --reference a.safetensors --candidate b.safetensors --check 'cosine>=0.999;allclose'
  sota prove -r ref.npy -c out.npy --check 'row-cosine>=0.999; tile-rel-l2<=1e-3' --tile 64x64
  sota prove --reference a.bin --candidate b.bin --dtype bf16 --shape 32,4096 --check argmax
  sota prove awq-int4-gemm -r ref.npy -c out.npy --histogram err.svg --json
  sota prove fused-attention -r ref.npy -c out.npy --record   # writes .sota/proofs/fused-attention.json";

#[derive(clap::Args, Debug)]
pub struct ProveArgs {
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
    /// The axis rows run along for row-* metrics (negative counts from the end)
    #[arg(long, value_name = "N", default_value_t = -1, allow_negative_numbers = true)]
    axis: isize,
    /// Tiles over the last two axes for tile-* metrics, ROWSxCOLS (default 16x16 when a tile check asks)
    #[arg(long, value_name = "RxC")]
    tile: Option<String>,
    /// Write the op's proof record, .sota/proofs/SLUG.json (meant to be committed)
    #[arg(long, requires = "slug")]
    record: bool,
    /// Worker threads (default: every core); results do not depend on it
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
}

impl ProveArgs {
    /// Where to write the SVG histogram of the absolute error (the CLI
    /// renders and writes it; the library call only returns the report).
    pub(crate) fn histogram(&self) -> Option<&std::path::Path> {
        self.histogram.as_deref()
    }

    /// The library's arguments.
    pub(crate) fn to_command(&self) -> sota::command::prove::ProveArgs {
        sota::command::prove::ProveArgs {
            slug: self.slug.clone(),
            reference: self.reference.clone(),
            candidate: self.candidate.clone(),
            tensor: self.tensor.clone(),
            checks: self.checks.clone(),
            dtype: self.dtype.clone(),
            shape: self.shape.clone(),
            quantile: self.quantile,
            threads: self.threads,
            axis: self.axis,
            tile: self.tile.clone(),
            record: self.record,
        }
    }
}

/// `sota prove`: compare, write the histogram when asked (rendered by
/// `output::prove`), print the report.
pub fn run(ctx: &sota::Context, args: &ProveArgs) -> Result<sota::Outcome, sota::Failure> {
    let report = sota::command::prove::run(ctx, &args.to_command())?;
    if let Some(path) = args.histogram() {
        let svg = sota::output::prove::svg(&report.report);
        sota::repo::write::atomic(&ctx.absolute(path), svg.as_bytes(), None).map_err(|e| {
            sota::Failure::Usage(format!("sota prove: cannot write {}: {e}", path.display()))
        })?;
    }
    if let Some(rec) = &report.record {
        let text = sota::output::prove::record_text(&report.report, &rec.meta);
        let fail = |e: std::io::Error| {
            sota::Failure::Usage(format!(
                "sota prove: cannot write {}: {e}",
                rec.rel.display()
            ))
        };
        sota::repo::write::atomic_in_new_dir(&rec.path, text.as_bytes()).map_err(fail)?;
    }
    super::print::prove(ctx, &report)?;
    Ok(report.outcome())
}
