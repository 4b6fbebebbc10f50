//! The surfaces: each is a function of the loaded `Matrix` (and explicit
//! inputs) that returns a typed report. No printing, no clock, no process
//! working directory or environment.

pub mod audit;
pub mod coverage;
pub mod gate;
pub mod init;
pub mod lookup;
pub mod milestones;
pub mod proofs;
pub mod render;
pub mod render_catalog;
pub mod suggest;
pub mod trailer;
