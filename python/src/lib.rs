//! `sota._native`: the `sota` library behind the Python package. Two calls,
//! each a thin front end over the same code the CLI runs:
//!
//! - `prove`: two tensors handed over as byte buffers (the buffer
//!   protocol, never copied) with their dtype, shape and memory order, the
//!   checks resolved as `sota prove` resolves them, compared by
//!   `sota::command::prove::run_in_memory` with the GIL released; answers
//!   the `sota.prove/v1` JSON payload and the human report.
//! - `lookup`: `sota <op|file|words> --json`'s payload.
//!
//! Like `src/cli`, this front end reads the process state (working
//! directory, `$SOTA_MATRIX`, the clock) into `sota::Inputs` once per call.

use std::path::PathBuf;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyLookupError, PyOSError, PyValueError};
use pyo3::prelude::*;

use sota::command::prove::{run_in_memory, MemoryArgs};
use sota::context::{Format, Inputs};
use sota::matrix::Date;
use sota::output::json;
use sota::prove::memory::MemoryTensor;
use sota::prove::{spec, ByteOrder, DType, Layout};

mod dlpack;
use sota::surface::lookup::Lookup;
use sota::{Context, Failure};

/// The context a call runs in: the caller's directory (or `cwd`), an
/// explicit matrix, else `$SOTA_MATRIX`, else the nearest `sota.toml`.
fn context(cwd: Option<PathBuf>, matrix: Option<PathBuf>, format: Format) -> PyResult<Context> {
    let cwd = match cwd {
        Some(c) => c,
        None => std::env::current_dir()
            .map_err(|e| PyValueError::new_err(format!("no working directory: {e}")))?,
    };
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut inputs = Inputs::new(cwd, Date::from_days_since_epoch((secs / 86_400) as i64));
    inputs.matrix_flag = matrix;
    inputs.matrix_env = std::env::var_os("SOTA_MATRIX")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    inputs.format = format;
    Ok(Context::resolve(inputs))
}

fn failure(f: Failure) -> PyErr {
    PyValueError::new_err(f.to_string())
}

/// What keeps a side's memory alive and unmoved for the whole call: held,
/// never read; dropping it releases the memory.
#[allow(dead_code)]
enum Owner<'py> {
    /// A buffer export (numpy and anything with the buffer protocol).
    Buffer(PyBuffer<u8>),
    /// A DLPack capsule, not consumed: its producer frees it with the
    /// capsule.
    Capsule(Bound<'py, PyAny>),
}

/// One side: where its elements are and how to read them.
struct Side<'py> {
    _owner: Owner<'py>,
    data: *const u8,
    len: usize,
    dtype: DType,
    order: ByteOrder,
    shape: Vec<usize>,
    layout: Layout,
}

impl<'py> Side<'py> {
    /// The Python layer hands over either a C-contiguous byte buffer of
    /// the elements in memory order with their dtype name (`f32`, `>f64`,
    /// `bf16`, …), shape and order, or (dtype `dlpack`) a DLPack capsule
    /// that numpy could not take (bfloat16, float8 from torch).
    fn new(
        obj: Bound<'py, PyAny>,
        dtype: String,
        shape: Vec<usize>,
        fortran: bool,
    ) -> PyResult<Side<'py>> {
        if dtype == "dlpack" {
            return dlpack::side(obj);
        }
        let buffer = PyBuffer::<u8>::get(&obj)?;
        if !buffer.is_c_contiguous() {
            return Err(PyValueError::new_err(
                "sota._native.prove takes contiguous byte buffers (sota.prove prepares them)",
            ));
        }
        let (dtype, order) =
            spec::parse_dtype(&dtype).map_err(|e| PyValueError::new_err(format!("dtype {e}")))?;
        Ok(Side {
            data: buffer.buf_ptr() as *const u8,
            len: buffer.len_bytes(),
            _owner: Owner::Buffer(buffer),
            dtype,
            order,
            shape,
            layout: if fortran { Layout::F } else { Layout::C },
        })
    }

    fn tensor(&self) -> MemoryTensor<'_> {
        // SAFETY: `_owner` (a buffer export, or the DLPack capsule) keeps
        // the memory alive and in place for as long as `self` lives; it is
        // only read. Another Python thread writing the array meanwhile
        // changes what is read, as a concurrent writer of a mapped file
        // would.
        let data = if self.len == 0 {
            &[][..]
        } else {
            unsafe { std::slice::from_raw_parts(self.data, self.len) }
        };
        MemoryTensor {
            data,
            dtype: self.dtype,
            order: self.order,
            shape: &self.shape,
            layout: self.layout,
        }
    }
}

/// Compare two in-memory tensors; `(payload_json, human_report, verdict,
/// record)`: `record` is the proof record written (root-relative), with
/// `record=True`.
#[pyfunction]
#[pyo3(signature = (reference, candidate, *, op=None, checks=Vec::new(), matrix=None, quantile=sota::prove::DEFAULT_QUANTILE, threads=0, labels=(String::from("reference"), String::from("candidate")), cwd=None, axis=-1, tile=None, record=false))]
#[allow(clippy::too_many_arguments)]
fn prove<'py>(
    py: Python<'py>,
    reference: (Bound<'py, PyAny>, String, Vec<usize>, bool),
    candidate: (Bound<'py, PyAny>, String, Vec<usize>, bool),
    op: Option<String>,
    checks: Vec<String>,
    matrix: Option<PathBuf>,
    quantile: f64,
    threads: usize,
    labels: (String, String),
    cwd: Option<PathBuf>,
    axis: isize,
    tile: Option<String>,
    record: bool,
) -> PyResult<(String, String, &'static str, Option<String>)> {
    let a = Side::new(reference.0, reference.1, reference.2, reference.3)?;
    let b = Side::new(candidate.0, candidate.1, candidate.2, candidate.3)?;
    let ctx = context(cwd, matrix, Format::Json)?;
    let args = MemoryArgs {
        slug: op,
        checks,
        quantile,
        threads,
        reference: a.tensor(),
        candidate: b.tensor(),
        labels,
        axis,
        tile,
        record,
    };
    let report = py.detach(|| run_in_memory(&ctx, &args)).map_err(failure)?;
    let written = match &report.record {
        Some(rec) => Some(write_text(
            rec,
            &sota::output::prove::record_text(&report.report, &rec.meta),
        )?),
        None => None,
    };
    let r = &report.report;
    let payload = sota::output::prove::json(r).to_string();
    let human = anstream::adapter::strip_str(&sota::output::prove::human(r)).to_string();
    let verdict = match r.verdict() {
        sota::prove::Verdict::Unjudged => "unjudged",
        sota::prove::Verdict::Pass => "pass",
        sota::prove::Verdict::Fail => "fail",
    };
    Ok((payload, human, verdict, written))
}

/// Write a proof record's text where the record goes (the one atomic
/// writer, as `sota prove --record`); its root-relative path.
fn write_text(rec: &sota::command::prove::ProofRecord, text: &str) -> PyResult<String> {
    sota::repo::write::atomic_in_new_dir(&rec.path, text.as_bytes()).map_err(|e| {
        PyOSError::new_err(format!("sota: cannot write {}: {e}", rec.rel.display()))
    })?;
    Ok(rec.rel.to_string_lossy().into_owned())
}

/// `sota <query> --json`: the payload for an op slug, a file path or
/// search words; a query that matches nothing raises `LookupError` whose
/// message is the not-found payload.
#[pyfunction]
#[pyo3(signature = (query, *, matrix=None, cwd=None))]
fn lookup(
    py: Python<'_>,
    query: String,
    matrix: Option<PathBuf>,
    cwd: Option<PathBuf>,
) -> PyResult<String> {
    let ctx = context(cwd, matrix, Format::Json)?;
    py.detach(|| {
        let report = sota::command::lookup::lookup(&ctx, &query, &[]).map_err(failure)?;
        let m = report.matrix;
        Ok(match &report.lookup {
            Lookup::Op(op) => json::to_string(&json::op(m, op)),
            Lookup::File { path, hits } => json::to_string(&json::file(m, path, hits)),
            Lookup::Search { query, hits } => json::to_string(&json::search(m, query, hits)),
            Lookup::NotFound(nf) => {
                return Err(PyLookupError::new_err(json::to_string(&json::not_found(
                    m, nf, None,
                ))))
            }
        })
    })
}

/// Write op `op`'s proof record from a `sota.prove` payload kept by the
/// pytest plugin (`--sota-record`), once the test it came from passed;
/// the record's root-relative path. The payload must be of the op's own
/// checks.
#[pyfunction]
#[pyo3(signature = (op, payload, *, matrix=None, cwd=None))]
fn write_record(
    py: Python<'_>,
    op: String,
    payload: String,
    matrix: Option<PathBuf>,
    cwd: Option<PathBuf>,
) -> PyResult<String> {
    let v: serde_json::Value = serde_json::from_str(&payload)
        .map_err(|e| PyValueError::new_err(format!("sota: not a sota.prove payload: {e}")))?;
    if v["checks_from"]["kind"] != "op" || v["checks_from"]["op"] != op.as_str() {
        return Err(PyValueError::new_err(format!(
            "sota: a proof record of `{op}` is of the op's own `check` list; this result was judged by other checks"
        )));
    }
    let ctx = context(cwd, matrix, Format::Json)?;
    let rec = py
        .detach(|| sota::command::prove::record(&ctx, &op))
        .map_err(failure)?;
    let text =
        sota::output::prove::pretty_line(&sota::output::prove::record_of_payload(v, &rec.meta));
    write_text(&rec, &text)
}

/// The `sota` library's version.
#[pyfunction]
fn version() -> &'static str {
    sota::VERSION
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(prove, m)?)?;
    m.add_function(wrap_pyfunction!(lookup, m)?)?;
    m.add_function(wrap_pyfunction!(write_record, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
