//! `sota init` and `sota suggest` through the real binary on temp git
//! repositories: the draft loads and scores, init refuses to overwrite,
//! `--force`, `--dry-run`, and `suggest --write` keeping comments.

use crate::coverage_spread::kpi;
use crate::harness::Sota;

/// A small kernel repository of several styles, staged in git.
fn kernels() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("README.md", "# demo\n")
        .file("kernels/attn/flash_fwd.cu", "__global__ void flash_fwd() {}\n")
        .file("kernels/attn/flash_bwd.cu", "__global__ void flash_bwd() {}\n")
        .file("kernels/attn/flash_common.cuh", "__device__ float a() { return 0.f; }\n__device__ float b() { return 1.f; }\n__device__ float c() { return 2.f; }\n")
        .file("kernels/gemm/mmq.cu", "__global__ void mmq() {}\n")
        .file("kernels/gemm/mmvq.cu", "__global__ void mmvq() {}\n")
        .file("kernels/gemm/gemm_host.cpp", "void launch();\n")
        .file("kernels/rms_norm.cu", "__global__ void rms_norm() {}\n")
        .file("kernels/weird_thing.cu", "__global__ void weird() {}\n")
        .file("python/ops/softmax.py", "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x):\n    pid = tl.program_id(0)\n")
        .file("python/ops/helpers.py", "import torch\n")
        .file("cpu/quants_avx2.c", "#include <immintrin.h>\nvoid q() { __m256 x = _mm256_setzero_ps(); }\n")
        .file("cpu/main.c", "int main() { return 0; }\n")
        .file("shaders/add.comp", "#version 450\nvoid main() {}\n")
        .file("shaders/softmax.comp", "#version 450\nvoid main() {}\n")
        .file("tests/test_attn.cu", "__global__ void t() {}\n");
    p.git(&["add", "-A"]).success();
    p
}

const TODAY: &str = "2026-11-30";

#[test]
fn init_writes_a_matrix_that_loads_and_scores() {
    let p = kernels();
    let run = p.run(&["init", "--today", TODAY, "--name", "demo"]);
    run.success();
    insta::assert_snapshot!("init_human", run.stdout);
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    insta::assert_snapshot!("init_toml", text);
    // The draft loads (lookups read it) and the scorecard runs on it.
    p.run(&["list"]).success();
    let cov = p.run(&["coverage", "--today", TODAY, "--json"]);
    cov.success();
    let json = cov.json();
    let uncovered: Vec<&str> = json["population"]["uncovered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(uncovered, ["kernels/weird_thing.cu"], "{}", cov.stdout);
    let population = json["population"]["kernel_files"].as_array().unwrap();
    assert!(population.iter().any(|v| v == "cpu/quants_avx2.c"));
    assert!(population.iter().any(|v| v == "python/ops/softmax.py"));
    assert!(!population
        .iter()
        .any(|v| v == "cpu/main.c" || v == "tests/test_attn.cu"));
    // Undecided routes and oracles are debt, not invented answers.
    assert!(!text.contains("\nroute ="), "{text}");
    assert!(!text.contains("\noracle ="), "{text}");
    let route_debt = json["kpis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "has_route")
        .unwrap()["debt"]
        .as_u64()
        .unwrap();
    assert!(route_debt >= 4, "{}", cov.stdout);
}

#[test]
fn init_refuses_to_overwrite_without_force() {
    let p = kernels().file("sota.toml", "# mine\n[project]\nname = \"mine\"\n");
    let run = p.run(&["init", "--today", TODAY]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("already exists"), "{}", run.stderr);
    assert!(run.stderr.contains("sota init --force"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(p.path().join("sota.toml")).unwrap(),
        "# mine\n[project]\nname = \"mine\"\n"
    );
    p.run(&["init", "--today", TODAY, "--force"]).success();
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert!(text.contains("slug = \"fused-attention\""), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(p.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".sota-"))
        .collect();
    assert!(leftovers.is_empty(), "temp files left behind");
}

#[test]
fn dry_run_prints_the_draft_and_writes_nothing() {
    let p = kernels();
    let dry = p.run(&["init", "--today", TODAY, "--name", "demo", "--dry-run"]);
    dry.success();
    assert!(!p.path().join("sota.toml").exists());
    assert!(
        dry.stderr.contains("dry run, nothing written"),
        "{}",
        dry.stderr
    );
    p.run(&["init", "--today", TODAY, "--name", "demo"])
        .success();
    let written = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert_eq!(dry.stdout, written);
}

#[test]
fn init_json_dry_run() {
    let p = kernels();
    let run = p.run(&[
        "init",
        "--today",
        TODAY,
        "--name",
        "demo",
        "--dry-run",
        "--json",
    ]);
    run.success();
    let json = run.json();
    assert_eq!(json["schema"], "sota.init/v1");
    assert_eq!(json["written"], false);
    insta::assert_json_snapshot!("init_json", json);
}

#[test]
fn init_outside_git_walks_the_tree() {
    let p = Sota::new()
        .file("k/attention.metal", "kernel void attn() {}\n")
        .file("k/notes.md", "notes\n");
    p.run(&["init", "--today", TODAY]).success();
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert!(text.contains("k/attention.metal"), "{text}");
    p.run(&["coverage", "--today", TODAY]).success();
}

/// A hand-written matrix with comments, covering part of the tree.
const COMMENTED: &str = r#"# Our kernel map. Keep this comment.
[project]
name = "demo"        # trailing comment
reviewed = 2026-06-26

[kernels]
include = ["kernels/**/*.cu", "kernels/**/*.cuh"]

# Attention first.
[[op]]
slug = "fused-attention"   # the hot path
title = "Fused attention"
files = [
  "kernels/attn/flash_fwd.cu",   # forward
  "kernels/attn/flash_common.cuh",
]
sota = "FlashAttention"
link = "https://github.com/Dao-AILab/flash-attention"

[[op]]
slug = "quantized-device-gemm"
title = "Quantized GEMM"
files = ["kernels/gemm/mmq.cu"]   # MMQ only so far
sota = "llama.cpp MMQ"

# end
"#;

fn suggest_project() -> Sota {
    let p = kernels().file("sota.toml", COMMENTED);
    p.git(&["add", "-A"]).success();
    p
}

#[test]
fn suggest_uncovered_lists_and_proposes() {
    let p = suggest_project();
    let run = p.run(&["suggest", "--uncovered"]);
    run.success();
    insta::assert_snapshot!("suggest_human", run.stdout);
    let json = p.run(&["suggest", "--uncovered", "--json"]);
    json.success();
    let v = json.json();
    assert_eq!(v["schema"], "sota.suggest/v1");
    insta::assert_json_snapshot!("suggest_json", v);
    let by_file = |f: &str| {
        v["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["file"] == f)
            .cloned()
            .unwrap_or_else(|| panic!("{f} not listed"))
    };
    assert_eq!(
        by_file("kernels/attn/flash_bwd.cu")["proposal"]["op"],
        "fused-attention"
    );
    assert_eq!(
        by_file("kernels/attn/flash_bwd.cu")["proposal"]["existing_row"],
        true
    );
    assert_eq!(
        by_file("kernels/gemm/mmvq.cu")["proposal"]["op"],
        "quantized-device-gemm"
    );
    assert_eq!(
        by_file("kernels/rms_norm.cu")["proposal"]["op"],
        "normalization"
    );
    assert_eq!(
        by_file("kernels/rms_norm.cu")["proposal"]["existing_row"],
        false
    );
    assert!(by_file("kernels/weird_thing.cu")["proposal"].is_null());
}

#[test]
fn suggest_write_keeps_comments_byte_for_byte() {
    let p = suggest_project();
    // Only files that existing rows take: the edit is appends only.
    p.run(&[
        "suggest",
        "kernels/attn/flash_bwd.cu",
        "kernels/gemm/mmvq.cu",
        "--write",
    ])
    .success();
    let after = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    let expected = COMMENTED
        .replace(
            "  \"kernels/attn/flash_common.cuh\",\n",
            "  \"kernels/attn/flash_common.cuh\",\n  \"kernels/attn/flash_bwd.cu\",\n",
        )
        .replace(
            "files = [\"kernels/gemm/mmq.cu\"]",
            "files = [\"kernels/gemm/mmq.cu\", \"kernels/gemm/mmvq.cu\"]",
        );
    assert_eq!(after, expected);
    // Now covered: nothing left to propose for them.
    let again = p.run(&["suggest", "kernels/attn/flash_bwd.cu", "--json"]);
    again.success();
    assert_eq!(
        again.json()["suggestions"][0]["covered_by"][0],
        "fused-attention"
    );
    // A new row from the catalog keeps the rest too, and loads.
    p.run(&["suggest", "kernels/rms_norm.cu", "--write"])
        .success();
    let third = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert!(
        third.starts_with(&expected.replace("\n# end\n", "")),
        "{third}"
    );
    assert!(third.ends_with("\n# end\n"), "{third}");
    assert!(third.contains("slug = \"normalization\""), "{third}");
    p.run(&["coverage", "--today", TODAY]).success();
}

#[test]
fn a_missing_matrix_points_at_sota_init() {
    let p = Sota::new().git_init();
    for cmd in [
        &["coverage"][..],
        &["suggest", "--uncovered"][..],
        &["audit"][..],
    ] {
        let run = p.run(cmd);
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains("run `sota init`"), "{}", run.stderr);
        assert!(!run.stderr.contains("examples/fak"), "{}", run.stderr);
    }
    // Lookups answer from the catalog and say how to get a matrix.
    let list = p.run(&["list"]);
    list.success();
    assert!(
        list.stderr.contains("`sota init` drafts one"),
        "{}",
        list.stderr
    );
}

/// The names in the repository's top directory that a write left behind.
fn leftovers(p: &Sota) -> Vec<String> {
    std::fs::read_dir(p.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".sota-") || n.ends_with(".tmp"))
        .collect()
}

/// `kill -9` while `sota init` writes: no half-written `sota.toml`, no
/// temporary file for `git add -A`, and the next `sota init` just works;
/// with `--force` the old matrix survives byte for byte.
#[cfg(target_os = "linux")]
#[test]
fn an_init_killed_mid_write_leaves_no_partial_matrix() {
    let Some(strace) = crate::harness::strace("the kill -9 init test") else {
        return;
    };
    let p = kernels();
    for syscall in ["write", "fsync", "linkat"] {
        assert!(
            p.killed_at(&strace, syscall, &["init", "--today", TODAY]),
            "{syscall}: init was killed"
        );
        assert!(
            !p.path().join("sota.toml").exists(),
            "killed at {syscall}: a partial sota.toml exists"
        );
        assert_eq!(leftovers(&p), Vec::<String>::new(), "killed at {syscall}");
    }
    p.run(&["init", "--today", TODAY]).success();
    p.run(&["list"]).success();

    let mine = "# mine\n[project]\nname = \"mine\"\n";
    std::fs::write(p.path().join("sota.toml"), mine).unwrap();
    for syscall in ["write", "fsync", "linkat"] {
        assert!(
            p.killed_at(&strace, syscall, &["init", "--force", "--today", TODAY]),
            "{syscall}: init --force was killed"
        );
        assert_eq!(
            std::fs::read_to_string(p.path().join("sota.toml")).unwrap(),
            mine,
            "killed at {syscall}: the old matrix changed"
        );
        assert_eq!(leftovers(&p), Vec::<String>::new(), "killed at {syscall}");
    }
}

/// A new matrix gets the mode any new file gets under the user's umask
/// (not a temporary file's private 0600); `--force` and `suggest --write`
/// rewrite the file in place: its mode and a symlink to it stay.
#[cfg(unix)]
#[test]
fn written_matrices_keep_the_users_modes_and_links() {
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let sota = env!("CARGO_BIN_EXE_sota");
    for (umask, expected) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let p = kernels();
        let mut cmd = std::process::Command::new("sh");
        cmd.args([
            "-c",
            &format!("umask {umask}; exec \"$0\" init --today {TODAY}"),
            sota,
        ]);
        p.exec(cmd).success();
        assert_eq!(mode(&p.path().join("sota.toml")), expected, "umask {umask}");
    }

    let p = suggest_project();
    let real = p.path().join("config/matrix.toml");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::rename(p.path().join("sota.toml"), &real).unwrap();
    std::os::unix::fs::symlink("config/matrix.toml", p.path().join("sota.toml")).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    p.run(&["suggest", "kernels/gemm/mmvq.cu", "--write"])
        .success();
    let link = p.path().join("sota.toml");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .contains("kernels/gemm/mmvq.cu"));
    assert_eq!(mode(&real), 0o640);
    p.run(&["init", "--force", "--today", TODAY]).success();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .contains("slug = \"fused-attention\""));
    assert_eq!(mode(&real), 0o640);
}

/// The draft on disk gives back the population init reported: a glue
/// directory (`bindings/`) that also keeps kernels below it is excluded
/// file by file, never whole (it once hid every kernel under it).
#[test]
fn the_written_draft_covers_the_population_init_reports() {
    let p = Sota::new()
        .git_init()
        .file(
            "pkg/bindings/torch_ops.cu",
            "__global__ void bind_glue() {}\n",
        )
        .file(
            "pkg/bindings/cuda/kernels/topk.cu",
            "__global__ void topk_kernel() {}\n",
        )
        .file(
            "pkg/bindings/cuda/kernels/rms_norm.cu",
            "__global__ void rms_norm_kernel() {}\n",
        )
        .file("pkg/attn/flash_fwd.cu", "__global__ void flash_fwd() {}\n")
        .file("pkg/tests/test_topk.cu", "__global__ void t() {}\n");
    p.git(&["add", "-A"]).success();
    let dry = p.run(&["init", "--dry-run", "--json", "--today", TODAY]);
    dry.success();
    let mut reported: Vec<String> = dry.json()["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["path"].as_str().unwrap().to_owned())
        .collect();
    reported.sort();
    assert!(
        reported.contains(&"pkg/bindings/cuda/kernels/topk.cu".to_owned()),
        "{reported:?}"
    );
    p.run(&["init", "--today", TODAY]).success();
    let cov = p.run(&["coverage", "--today", TODAY, "--json"]);
    cov.success();
    let mut on_disk: Vec<String> = cov.json()["population"]["kernel_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, reported, "{}", cov.stdout);
}

/// Each drafted op's globs cover its own kernel files and no other op's,
/// whatever the kernels' extension: `.cu.in` templates (XNNPACK's, a JIT
/// library's) once drew `**/*.in` for every op that had two, so each
/// template was in every op, the scorecard showed overlap on a fresh
/// draft and the gate named two references for one file.
#[test]
fn templates_of_two_ops_get_globs_that_keep_them_apart() {
    let mut p = Sota::new().git_init();
    for (dir, name) in [
        ("softmax", "softmax_fwd"),
        ("softmax", "softmax_bwd"),
        ("gemm", "gemm_tile"),
        ("gemm", "gemm_splitk"),
    ] {
        p = p.file(
            &format!("src/ops/{dir}/{name}.cu.in"),
            &format!("__global__ void {name}(float* x) {{ x[threadIdx.x] = 0; }}\n"),
        );
    }
    p.git(&["add", "-A"]).success();
    p.run(&["init", "--today", TODAY]).success();
    let cov = p.run(&["coverage", "--today", TODAY, "--json"]);
    let json = cov.json();
    let overlap = kpi(&json, "overlap");
    let uncovered = kpi(&json, "tree_coverage");
    assert_eq!(overlap["debt"], 0, "{overlap}");
    assert_eq!(uncovered["debt"], 0, "{uncovered}");
    for (file, op, other) in [
        ("src/ops/gemm/gemm_tile.cu.in", "dense-gemm", "softmax"),
        ("src/ops/softmax/softmax_bwd.cu.in", "softmax", "dense-gemm"),
    ] {
        let lookup = p.run(&[file]);
        lookup.success();
        assert!(
            lookup.stdout.contains("covered by 1 op"),
            "{}",
            lookup.stdout
        );
        assert!(lookup.stdout.contains(op), "{}", lookup.stdout);
        assert!(!lookup.stdout.contains(other), "{}", lookup.stdout);
    }
}
