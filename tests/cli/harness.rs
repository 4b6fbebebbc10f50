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

/// `strace`, to kill sota at an exact system call; `None` (and a loud
/// note) outside CI when it is missing, a failure in CI (.ci/run installs
/// it).
pub fn strace(test: &str) -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("strace"))
        .find(|p| p.is_file());
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("strace is required in CI (see .ci/run)");
        }
        eprintln!("\n!!! SKIPPED: strace not on PATH; {test} did NOT run !!!\n");
    }
    found
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

    /// The same directory, with one more environment variable (borrowing).
    pub fn clone_env(&self, key: &str, value: &str) -> SotaRef<'_> {
        SotaRef {
            base: self,
            extra: (key.into(), value.into()),
        }
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
        cmd.args(args);
        self.exec_in(cmd, cwd)
    }

    /// Run `git` in the current directory with the same isolated environment
    /// (and `sota` on PATH, for installed hooks).
    pub fn git(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new("git");
        cmd.args(args);
        self.exec_in(cmd, &self.cwd)
    }

    /// Run `sota ARGS` under `strace` (see [`strace`]), killed with SIGKILL
    /// at the entry of `syscall`; whether it died (exited unsuccessfully).
    pub fn killed_at(&self, strace: &Path, syscall: &str, args: &[&str]) -> bool {
        let mut cmd = Command::new(strace);
        cmd.args(["-f", "-o", "/dev/null", "-e"])
            .arg(format!("inject={syscall}:signal=SIGKILL"))
            .arg(env!("CARGO_BIN_EXE_sota"))
            .args(args);
        self.exec(cmd).code != 0
    }

    /// `git init` with a fixed branch name.
    pub fn git_init(self) -> Self {
        self.git(&["init", "-q", "-b", "main"]).success();
        self
    }

    /// Stage everything and commit with a message (hooks bypassed).
    pub fn commit(&self, message: &str) -> &Self {
        self.git(&["add", "-A"]).success();
        self.git(&["commit", "-q", "--no-verify", "-m", message])
            .success();
        self
    }

    fn exec_in(&self, cmd: Command, cwd: &Path) -> Run {
        self.exec_with(cmd, cwd, None)
    }

    /// Run any command in the current directory with the same isolated
    /// environment (and `sota` on PATH).
    pub fn exec(&self, cmd: Command) -> Run {
        self.exec_in(cmd, &self.cwd)
    }

    fn exec_with(&self, mut cmd: Command, cwd: &Path, extra: Option<&(String, String)>) -> Run {
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_sota"))
            .parent()
            .unwrap()
            .to_path_buf();
        let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )))
        .unwrap();
        cmd.current_dir(cwd)
            .env_remove("SOTA_MATRIX")
            .env_remove("SOTA_CATALOG")
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("SOTA_BIN")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_EDITOR")
            .env_remove("EDITOR")
            .env_remove("VISUAL")
            .env("PATH", path)
            .env("NO_COLOR", "1")
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Ada")
            .env("GIT_AUTHOR_EMAIL", "ada@example.org")
            .env("GIT_AUTHOR_DATE", "2026-06-01T12:00:00Z")
            .env("GIT_COMMITTER_NAME", "Ada")
            .env("GIT_COMMITTER_EMAIL", "ada@example.org")
            .env("GIT_COMMITTER_DATE", "2026-06-01T12:00:00Z");
        for (k, v) in self.env.iter().chain(extra) {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run command");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
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

/// A borrowed [`Sota`] with one extra environment variable.
pub struct SotaRef<'a> {
    base: &'a Sota,
    extra: (String, String),
}

impl SotaRef<'_> {
    pub fn run(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sota"));
        cmd.args(args);
        self.base.exec_with(cmd, &self.base.cwd, Some(&self.extra))
    }

    pub fn git(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new("git");
        cmd.args(args);
        self.base.exec_with(cmd, &self.base.cwd, Some(&self.extra))
    }
}
