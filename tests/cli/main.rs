//! Integration tests: the real `sota` binary against real files in temp
//! directories. One test target, so the suite links once.

mod harness;

mod audit;
mod catalog;
mod contract;
mod coverage;
mod coverage_spread;
mod discovery;
mod fak_example;
mod fuzz_replay;
mod gate;
mod glob_shapes;
mod hook_safety;
mod hooks;
mod hostile_names;
mod index_file;
mod init;
mod init_assign;
mod init_draft;
mod init_onramp;
mod limits;
mod lookup;
mod malformed;
mod mcp;
mod mcp_security;
mod proof_state;
mod prove;
mod prove_hostile;
pub(crate) mod prove_local;
mod render;
mod report_html;
mod reports;
mod robustness;
mod security;
mod suggest_fix;
mod suggest_globs;
mod team_catalog;
mod usability;
mod week_one;
