//! Reading a DLPack capsule (`obj.__dlpack__()`, the legacy `dltensor`
//! form) in place: what numpy's `from_dlpack` cannot hold (bfloat16 and
//! float8 tensors from torch) still reaches the comparison without a copy.
//! The capsule is not consumed (not renamed `used_dltensor`): the producer
//! frees the tensor when the capsule goes, after this call.
//! Layout: https://github.com/dmlc/dlpack/blob/main/include/dlpack/dlpack.h

use std::ffi::c_void;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use sota::prove::{ByteOrder, DType, Layout};

use super::{Owner, Side};

#[repr(C)]
struct Device {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
struct DataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct Tensor {
    data: *mut c_void,
    device: Device,
    ndim: i32,
    dtype: DataType,
    shape: *const i64,
    strides: *const i64,
    byte_offset: u64,
}

const CPU: i32 = 1;

fn dtype(t: &DataType) -> Option<DType> {
    if t.lanes != 1 {
        return None;
    }
    Some(match (t.code, t.bits) {
        (0, 8) => DType::I8,
        (0, 16) => DType::I16,
        (0, 32) => DType::I32,
        (0, 64) => DType::I64,
        (1, 8) => DType::U8,
        (1, 16) => DType::U16,
        (1, 32) => DType::U32,
        (1, 64) => DType::U64,
        (2, 16) => DType::F16,
        (2, 32) => DType::F32,
        (2, 64) => DType::F64,
        (4, 16) => DType::BF16,
        (6, 8) => DType::Bool,
        (10, 8) => DType::F8E4M3,
        (12, 8) => DType::F8E5M2,
        _ => return None,
    })
}

fn bad(msg: String) -> PyErr {
    PyValueError::new_err(format!("sota.prove: {msg}"))
}

/// Row-major or column-major, from DLPack's element strides (axes of
/// length 1 have no say); `None` for any other layout.
fn layout(shape: &[usize], strides: Option<&[i64]>) -> Option<Layout> {
    let Some(strides) = strides else {
        return Some(Layout::C);
    };
    let fits = |order: Vec<usize>| {
        let mut expect = 1i64;
        order.into_iter().all(|i| {
            let ok = shape[i] == 1 || strides[i] == expect;
            expect = expect.saturating_mul(shape[i] as i64);
            ok
        })
    };
    if fits((0..shape.len()).rev().collect()) {
        Some(Layout::C)
    } else if fits((0..shape.len()).collect()) {
        Some(Layout::F)
    } else {
        None
    }
}

/// The side a `dltensor` capsule describes.
pub(crate) fn side(capsule: Bound<'_, PyAny>) -> PyResult<Side<'_>> {
    // SAFETY: a `dltensor` capsule's pointer is a DLManagedTensor, whose
    // first member is the DLTensor; it stays valid while the capsule lives
    // (held in the returned side) and is only read.
    let t = unsafe {
        let p = pyo3::ffi::PyCapsule_GetPointer(capsule.as_ptr(), c"dltensor".as_ptr());
        if p.is_null() {
            return Err(PyErr::fetch(capsule.py()));
        }
        &*(p as *const Tensor)
    };
    if t.device.device_type != CPU {
        return Err(bad(format!(
            "the tensor is on DLPack device type {} (id {}); sota reads host memory: move it with .cpu()",
            t.device.device_type, t.device.device_id
        )));
    }
    let dt = dtype(&t.dtype).ok_or_else(|| {
        bad(format!(
            "DLPack dtype code {} with {} bits × {} lanes is not one sota compares",
            t.dtype.code, t.dtype.bits, t.dtype.lanes
        ))
    })?;
    let ndim = usize::try_from(t.ndim).map_err(|_| bad("negative DLPack ndim".into()))?;
    let raw = |p: *const i64| {
        (!p.is_null() && ndim > 0).then(|| unsafe { std::slice::from_raw_parts(p, ndim) })
    };
    let shape: Vec<usize> = match raw(t.shape) {
        Some(s) => s
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| bad(format!("DLPack shape {s:?}"))))
            .collect::<PyResult<_>>()?,
        None => Vec::new(),
    };
    let layout = layout(&shape, raw(t.strides)).ok_or_else(|| {
        bad("a strided DLPack tensor (neither C nor Fortran order): make it contiguous (.contiguous()) first".into())
    })?;
    let n: usize = shape.iter().product();
    let len = n * dt.size();
    let data = if len == 0 {
        std::ptr::null()
    } else {
        (t.data as *const u8).wrapping_add(t.byte_offset as usize)
    };
    Ok(Side {
        _owner: Owner::Capsule(capsule),
        data,
        len,
        dtype: dt,
        order: if cfg!(target_endian = "big") {
            ByteOrder::Big
        } else {
            ByteOrder::Little
        },
        shape,
        layout,
    })
}
