//! Commands as library calls: `Context + arguments → typed report`. Each
//! composes the repository side (`repo`) with a pure surface (`surface`);
//! the CLI and the MCP server only parse, call and print. No command prints,
//! reads the process state, or decides an exit code beyond its [`Outcome`].
//!
//! [`Outcome`]: crate::outcome::Outcome

pub mod audit;
pub mod coverage;
pub mod gate;
pub mod hook;
pub mod init;
pub mod lookup;
pub mod prove;
pub mod render;
pub mod report;
