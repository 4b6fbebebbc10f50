//! Tensor files opened for comparison: the file memory-mapped once (never
//! copied), its format detected (`.npy` by magic, `.safetensors` by
//! extension, raw bytes with an explicit dtype and shape), and a
//! [`TensorView`] per tensor: the bytes of its data plus dtype, byte
//! order, shape and memory layout.

#![allow(unsafe_code)] // each block below carries its `SAFETY:` note

use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::dtype::{ByteOrder, DType};
use super::{npy, safetensors, ProveError};
pub use crate::prove::meta::{element_count, Layout, TensorMeta};

/// A dtype and shape for files that carry no header.
#[derive(Clone, Debug, PartialEq)]
pub struct RawSpec {
    pub dtype: DType,
    pub order: ByteOrder,
    pub shape: Vec<usize>,
}

/// The file formats `sota prove` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Npy,
    Safetensors,
    Raw,
    /// Tensors handed over in memory (the Python package's buffers,
    /// [`super::run_in_memory`]).
    Memory,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Npy => "npy",
            Format::Safetensors => "safetensors",
            Format::Raw => "raw",
            Format::Memory => "memory",
        }
    }
}

/// An opened tensor file: its mapping and the tensors it holds.
pub struct TensorFile {
    pub path: PathBuf,
    pub format: Format,
    map: Option<Mmap>,
    pub tensors: Vec<TensorMeta>,
}

impl TensorFile {
    /// Open and map `path`, detect its format and read its header.
    pub fn open(path: &Path, raw: Option<&RawSpec>) -> Result<TensorFile, ProveError> {
        let bad = |message: String| ProveError::Input {
            path: path.to_path_buf(),
            message,
        };
        // A regular file only: a FIFO or device would block or never end.
        let file = crate::read_only::open_regular(path).map_err(|e| {
            bad(match e.kind() {
                std::io::ErrorKind::InvalidInput => "is not a regular file (a directory, FIFO, socket or device); sota reads tensors only from regular files".into(),
                _ => format!("cannot open: {e}"),
            })
        })?;
        let meta = file
            .metadata()
            .map_err(|e| bad(format!("cannot stat: {e}")))?;
        let map = if meta.len() == 0 {
            None
        } else {
            // SAFETY: the mapping is read-only and only ever read, never
            // written through. It is not immune to the file changing under
            // it: another process rewriting the file changes the figures,
            // and one *truncating* it makes the next read of a page past the
            // new end raise SIGBUS, which kills sota (no memory is corrupted;
            // the run dies without a report). ripgrep accepts and documents
            // the same risk (BurntSushi/ripgrep#581); docs/prove.md tells the
            // user not to rewrite tensors while a proof reads them.
            Some(unsafe { Mmap::map(&file) }.map_err(|e| bad(format!("cannot map: {e}")))?)
        };
        let bytes: &[u8] = map.as_deref().unwrap_or(&[]);
        let is_st = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("safetensors"));
        let (format, tensors) = if npy::sniff(bytes) {
            (Format::Npy, vec![npy::parse(bytes).map_err(bad)?])
        } else if is_st {
            (Format::Safetensors, safetensors::parse(bytes).map_err(bad)?)
        } else if let Some(raw) = raw {
            (Format::Raw, vec![raw_meta(raw, bytes.len()).map_err(bad)?])
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
        {
            return Err(bad(
                "is named .npy but does not start with the .npy magic \\x93NUMPY".into(),
            ));
        } else {
            return Err(bad(
                "is neither .npy (by its magic bytes) nor .safetensors (by its extension); for raw data pass --dtype and --shape".into(),
            ));
        };
        if format != Format::Raw && raw.is_some() {
            return Err(bad(format!(
                "is a .{} file, which says its own dtype and shape; --dtype and --shape are for raw files only",
                format.name()
            )));
        }
        #[cfg(unix)]
        if let Some(m) = &map {
            // A hint for read-ahead; failing to give it changes nothing.
            let _ = m.advise(memmap2::Advice::Sequential);
        }
        Ok(TensorFile {
            path: path.to_path_buf(),
            format,
            map,
            tensors,
        })
    }

    /// The owner [`TensorView::file`] names for tensors a caller holds in
    /// memory: no file, nothing mapped, so nothing is ever released.
    pub fn in_memory(label: PathBuf) -> TensorFile {
        TensorFile {
            path: label,
            format: Format::Memory,
            map: None,
            tensors: Vec::new(),
        }
    }

    /// The whole mapped file.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// A view of one of this file's tensors.
    pub fn view<'a>(&'a self, meta: &'a TensorMeta) -> TensorView<'a> {
        TensorView {
            meta,
            data: &self.bytes()[meta.offset..meta.offset + meta.nbytes],
            file: Some(self),
        }
    }

    /// Drop the pages of `range` (byte offsets into the file) from this
    /// process's mapping, once they have been read, so resident memory stays
    /// bounded however large the file; the page cache keeps them.
    pub fn release(&self, range: std::ops::Range<usize>) {
        #[cfg(unix)]
        if let Some(m) = &self.map {
            if range.end > range.start && range.end <= m.len() {
                // SAFETY: the mapping is a read-only file mapping no one
                // writes through: after MADV_DONTNEED the next read of these
                // pages faults the file's contents back in (the same bytes,
                // unless another process rewrote the file — see `open`).
                unsafe {
                    let _ = m.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        range.start,
                        range.end - range.start,
                    );
                }
            }
        }
        #[cfg(not(unix))]
        let _ = range;
    }
}

/// Advance a row-major multi-index `idx` over `shape` by one element,
/// moving the two tensors' element offsets by their strides (an odometer:
/// an axis that wraps resets to 0 and carries into the one before it).
#[inline]
pub fn step(
    idx: &mut [usize],
    shape: &[usize],
    (strides_a, strides_b): (&[usize], &[usize]),
    (oa, ob): (&mut usize, &mut usize),
) {
    for ax in (0..idx.len()).rev() {
        idx[ax] += 1;
        *oa += strides_a[ax];
        *ob += strides_b[ax];
        if idx[ax] < shape[ax] {
            break;
        }
        *oa -= strides_a[ax] * idx[ax];
        *ob -= strides_b[ax] * idx[ax];
        idx[ax] = 0;
    }
}

/// One tensor's data and description.
#[derive(Clone, Copy)]
pub struct TensorView<'a> {
    pub meta: &'a TensorMeta,
    pub data: &'a [u8],
    /// The mapped file the data lies in (pages already read are dropped
    /// from it); `None` for a tensor in memory.
    pub file: Option<&'a TensorFile>,
}

impl<'a> TensorView<'a> {
    /// A view of a tensor held in memory: `data` holds exactly the
    /// elements `meta` describes (`meta.offset` is ignored).
    pub fn in_memory(meta: &'a TensorMeta, data: &'a [u8]) -> TensorView<'a> {
        TensorView {
            meta,
            data,
            file: None,
        }
    }

    pub fn elements(&self) -> usize {
        self.meta.nbytes / self.meta.dtype.size().max(1)
    }

    /// Element strides (in elements) of each axis, for this layout.
    pub fn strides(&self) -> Vec<usize> {
        strides(&self.meta.shape, self.meta.layout)
    }
}

/// Element strides of `shape` in `layout`.
pub fn strides(shape: &[usize], layout: Layout) -> Vec<usize> {
    let mut s = vec![0; shape.len()];
    let mut acc = 1usize;
    match layout {
        Layout::C => {
            for i in (0..shape.len()).rev() {
                s[i] = acc;
                acc = acc.saturating_mul(shape[i]);
            }
        }
        Layout::F => {
            for i in 0..shape.len() {
                s[i] = acc;
                acc = acc.saturating_mul(shape[i]);
            }
        }
    }
    s
}

/// The multi-dimensional index of logical (row-major) position `i`.
pub fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        let d = shape[k].max(1);
        idx[k] = i % d;
        i /= d;
    }
    idx
}
/// A raw file's one tensor: the dtype and shape given, which must account
/// for every one of the file's `len` bytes.
fn raw_meta(raw: &RawSpec, len: usize) -> Result<TensorMeta, String> {
    let count = element_count(&raw.shape)
        .and_then(|c| c.checked_mul(raw.dtype.size()))
        .ok_or_else(|| format!("--shape {:?} overflows", raw.shape))?;
    if count != len {
        return Err(format!(
            "sizes do not add up: --shape {:?} of {} needs {count} bytes, the file has {}",
            raw.shape, raw.dtype, len
        ));
    }
    let t = TensorMeta {
        name: String::new(),
        dtype: raw.dtype,
        order: raw.order,
        shape: raw.shape.clone(),
        layout: Layout::C,
        offset: 0,
        nbytes: count,
    };
    Ok(t)
}
