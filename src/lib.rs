//! sota — the prior-art matrix as a tool.
//!
//! One maintained datum per repository, `sota.toml`, says for every
//! operation the kernels perform which files implement it, the production
//! reference to read first, the route (borrow / bind / stay-minimal) and the
//! oracle that proves an implementation correct. Every surface reads the one
//! [`Matrix`] loaded here.
//!
//! ```
//! let matrix = sota::Matrix::from_str(r#"
//! [project]
//! name = "demo"
//!
//! [[op]]
//! slug = "fused-attention"
//! title = "Fused attention"
//! sota = "FlashAttention"
//! files = ["kernels/attn/"]
//! "#, "sota.toml").unwrap();
//!
//! let mut index = sota::OpIndex::new(&matrix).unwrap();
//! let hits = index.matches("kernels/attn/flash.cu");
//! assert_eq!(matrix.ops[hits[0].op].slug.value, "fused-attention");
//! ```

#[cfg(test)]
mod architecture;
pub mod catalog;
pub mod command;
pub mod context;
mod did_you_mean;
pub mod dtype;
pub mod glob;
pub mod index;
pub mod lexical;
pub mod matrix;
pub mod outcome;
pub mod output;
pub mod prove;
pub mod quote;
pub mod read_only;
pub mod repo;
pub mod surface;
#[cfg(test)]
mod test_rng;

#[doc(hidden)]
pub mod fuzzing;

pub use context::{Context, Inputs};

/// This build's version (the CLI's `--version`, the Python package's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub use index::OpIndex;
pub use matrix::{LoadError, Matrix};
pub use outcome::{Failure, Outcome};
