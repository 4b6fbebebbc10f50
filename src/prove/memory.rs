//! `sota prove` on tensors a caller already holds in memory (the Python
//! package's `sota.prove`, fed by the buffer protocol or DLPack): the same
//! per-pair comparison and judgement as files get, with the caller's
//! bytes in place of a mapping. Nothing is copied.

use super::dtype::{ByteOrder, DType};
use super::tensor::{element_count, Layout, TensorMeta};
use super::{ProveError, Report};

/// One tensor in the caller's memory.
#[derive(Clone, Copy, Debug)]
pub struct MemoryTensor<'a> {
    /// The elements, in `layout` order, `dtype.size()` bytes each.
    pub data: &'a [u8],
    pub dtype: DType,
    pub order: ByteOrder,
    pub shape: &'a [usize],
    pub layout: Layout,
}

impl MemoryTensor<'_> {
    fn meta(&self, side: &str) -> Result<TensorMeta, ProveError> {
        let nbytes = element_count(self.shape)
            .and_then(|n| n.checked_mul(self.dtype.size()))
            .ok_or_else(|| {
                ProveError::Usage(format!("the {side}'s shape {:?} overflows", self.shape))
            })?;
        if nbytes != self.data.len() {
            return Err(ProveError::Usage(format!(
                "the {side}'s buffer holds {} bytes; shape {:?} of {} needs {nbytes}",
                self.data.len(),
                self.shape,
                self.dtype
            )));
        }
        Ok(TensorMeta {
            name: String::new(),
            dtype: self.dtype,
            order: self.order,
            shape: self.shape.to_vec(),
            layout: self.layout,
            offset: 0,
            nbytes,
        })
    }
}

/// Compare `candidate` with `reference` and judge `options.checks`, with
/// the one in-memory comparison ([`super::run_in_memory`]: the same code as
/// files get). `labels` name the two sides in the report; the buffers are
/// checked against their shapes first, with messages that say which side.
pub fn run<'a>(
    labels: (&str, &str),
    reference: &MemoryTensor<'a>,
    candidate: &MemoryTensor<'a>,
    options: &super::Options,
) -> Result<Report, ProveError> {
    reference.meta("reference")?;
    candidate.meta("candidate")?;
    let held = |t: &MemoryTensor<'a>| super::InMemory {
        dtype: t.dtype,
        order: t.order,
        shape: t.shape.to_vec(),
        layout: t.layout,
        data: t.data,
    };
    let mut report = super::run_in_memory(&held(reference), &held(candidate), options)?;
    report.reference = labels.0.into();
    report.candidate = labels.1.into();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::matrix::{Check, CheckEntry};
    use crate::prove::{ChecksFrom, Format, Options, Request};

    fn request(reference: PathBuf, candidate: PathBuf, checks: Vec<Check>) -> Request {
        Request {
            reference,
            candidate,
            tensor: None,
            raw: None,
            options: Options {
                checks: checks.into_iter().map(CheckEntry::any).collect(),
                checks_from: ChecksFrom::Flag,
                threads: 3,
                ..Options::default()
            },
        }
    }

    fn npy(shape: &[usize], data: &[u8], fortran: bool) -> Vec<u8> {
        let dims: Vec<String> = shape.iter().map(|d| format!("{d},")).collect();
        let header = format!(
            "{{'descr': '<f4', 'fortran_order': {}, 'shape': ({}), }}",
            if fortran { "True" } else { "False" },
            dims.join(" ")
        );
        let mut h = header.into_bytes();
        while (10 + h.len() + 1) % 64 != 0 {
            h.push(b' ');
        }
        h.push(b'\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((h.len() as u16).to_le_bytes());
        out.extend(h);
        out.extend(data);
        out
    }

    /// The payload `sota.prove` returns is the one `sota prove` prints for
    /// the same data in files, but for the sides' names and formats.
    #[test]
    fn memory_and_files_give_the_same_metrics_and_verdicts() {
        let shape = [3usize, 70_000];
        let n = shape[0] * shape[1];
        let a: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 / 250.0 - 2.0)
            .collect();
        let mut b = a.clone();
        b[n - 5] += 0.5;
        b[17] = -b[17];
        let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let (ba, bb) = (bytes(&a), bytes(&b));
        let checks = vec![
            Check::Cosine { min: 0.9999 },
            Check::Allclose {
                rtol: None,
                atol: None,
            },
            Check::Argmax { min: 1.0 },
        ];
        let dir = tempfile::tempdir().unwrap();
        let (ra, rb) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
        std::fs::write(&ra, npy(&shape, &ba, false)).unwrap();
        std::fs::write(&rb, npy(&shape, &bb, false)).unwrap();
        let files = crate::prove::run(&request(ra, rb, checks.clone())).unwrap();
        let side = |data: &'static [u8]| MemoryTensor {
            data,
            dtype: DType::F32,
            order: ByteOrder::Little,
            shape: &[3, 70_000],
            layout: Layout::C,
        };
        let (ba, bb): (&'static [u8], &'static [u8]) = (ba.leak(), bb.leak());
        let req = request("ref".into(), "cand".into(), checks);
        let mem = run(("ref", "cand"), &side(ba), &side(bb), &req.options).unwrap();
        assert_eq!(mem.formats, (Format::Memory, Format::Memory));
        let strip = |mut v: serde_json::Value| {
            for k in ["reference", "candidate"] {
                v.as_object_mut().unwrap().remove(k);
            }
            v
        };
        let (jf, jm) = (
            crate::output::prove::json(&files),
            crate::output::prove::json(&mem),
        );
        assert_eq!(jm["verdict"], "fail");
        assert_eq!(strip(jf), strip(jm));
    }

    #[test]
    fn a_buffer_that_does_not_fit_its_shape_is_refused() {
        let data = [0u8; 12];
        let t = MemoryTensor {
            data: &data,
            dtype: DType::F32,
            order: ByteOrder::Little,
            shape: &[4],
            layout: Layout::C,
        };
        let req = request("r".into(), "c".into(), vec![]);
        let Err(e) = run(("r", "c"), &t, &t, &req.options) else {
            panic!("a 12-byte buffer passed as 4 f32")
        };
        let e = e.to_string();
        assert!(
            e.contains("holds 12 bytes; shape [4] of f32 needs 16"),
            "{e}"
        );
    }
}
