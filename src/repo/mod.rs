//! The repository side: running git, reading its index file, the sorted
//! path list, installing hooks, and writing files atomically. Only this
//! module spawns processes or writes to disk.

pub mod confine;
pub mod confined;
pub mod git;
pub mod hooks;
pub mod index_file;
pub mod objects;
pub mod paths;
pub mod tracked;
pub mod write;
