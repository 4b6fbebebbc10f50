//! What a tensor file's header says about one tensor — dtype, byte
//! order, shape, layout, where its bytes are — apart from the opener
//! (`tensor.rs`) and the header readers (`npy.rs`, `safetensors.rs`) that
//! produce it.

use super::dtype::{ByteOrder, DType};

/// Memory order of a tensor's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Row-major: the last index varies fastest.
    C,
    /// Column-major (`fortran_order: True`): the first index varies fastest.
    F,
}

/// Where one tensor lives in its file and how to read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMeta {
    /// The tensor's name in a `.safetensors` file; empty for `.npy` and raw.
    pub name: String,
    pub dtype: DType,
    pub order: ByteOrder,
    pub shape: Vec<usize>,
    pub layout: Layout,
    /// Byte offset of the data in the file.
    pub offset: usize,
    pub nbytes: usize,
}

/// The element count of a shape, or `None` on overflow.
pub fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}
