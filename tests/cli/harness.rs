//! A small fluent harness: write files into a temp dir, run `sota` there
//! with an environment isolated from the host, read what it printed.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Sota {
    dir: tempfile::TempDir,
    cwd: PathBuf,
    env: Vec<(String, String)>,
}

#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    #[track_caller]
    pub fn success(&self) -> &Self {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// The repository root (for the shipped example).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

impl Sota {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let cwd = dir.path().to_path_buf();
        Sota {
            dir,
            cwd,
            env: Vec::new(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Write a file (parents created) relative to the temp dir.
    pub fn file(self, rel: &str, contents: &str) -> Self {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
        self
    }

    /// Run from this subdirectory of the temp dir (created if needed).
    pub fn cwd(mut self, rel: &str) -> Self {
        self.cwd = self.dir.path().join(rel);
        std::fs::create_dir_all(&self.cwd).unwrap();
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.cwd, args)
    }

    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sota"));
        cmd.args(args)
            .current_dir(cwd)
            .env_remove("SOTA_MATRIX")
            .env_remove("CLICOLOR_FORCE")
            .env("NO_COLOR", "1")
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run sota");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
        }
    }
}

/// A small matrix for lookup tests, with a kernels tree beside it.
pub const SMALL: &str = r#"
[project]
name = "demo"
reviewed = 2026-06-26

[[op]]
slug = "fused-attention"
title = "Fused attention (MHA/GQA)"
files = ["kernels/attn/", "kernels/common.cuh"]
at = ["kernels/attn/flash.cu#flash_fwd"]
sota = "FlashAttention; FlashInfer"
link = "https://github.com/Dao-AILab/flash-attention"
route = "stay-minimal"
oracle = "naive f32 attention (cosine ≥ 0.999)"
check = [{ metric = "cosine", min = 0.999 }]
papers = ["FlashAttention (Dao et al., 2022) arXiv:2205.14135"]

[[op]]
slug = "int4-gemm"
title = "INT4 weight-only GEMM"
files = ["kernels/gemm/*int4*.cu", "kernels/common.cuh"]
at = ["kernels/gemm/w4a16_int4.cu"]
sota = "Marlin mixed-precision INT4 kernel"
link = "https://github.com/IST-DASLab/marlin"
route = "borrow"
note = "borrow the fused dequant-MMA after the witness exists"

[[op]]
slug = "kv-cache"
title = "Paged KV cache"
files = ["runtime/kv/**/*.rs"]
sota = "vLLM PagedAttention"

[[ladder]]
axis = "attention"
reached = "FlashAttention-1"
witness = "fused-attention"

[[ladder.rung]]
name = "FlashAttention-1"
year = 2022
summary = "IO-aware tiling + online softmax"

[[ladder.rung]]
name = "FlashAttention-2"
year = 2023
summary = "better work partitioning"
"#;
