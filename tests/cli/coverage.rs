//! `sota coverage` against real repositories: each KPI made to fail in
//! turn, the population sources, determinism and `--check`.

use crate::harness::Sota;

/// A clean project: every KPI at zero debt on 2026-07-01.
const CLEAN: &str = r#"
[project]
name = "clean"
reviewed = 2026-06-26

[kernels]
include = ["kernels/**/*.cu"]
exclude = ["kernels/**/*_test.cu"]

[[op]]
slug = "fused-attention"
title = "Fused attention"
files = ["kernels/attn/"]
at = ["kernels/attn/flash.cu:2#flash_fwd"]
sota = "FlashAttention"
link = "https://github.com/Dao-AILab/flash-attention"
route = "borrow"
oracle = "naive attention (cosine ≥ 0.999)"
witness = ["tests/attn_test.py#test_cosine"]

[[op]]
slug = "int4-gemm"
title = "INT4 GEMM"
files = ["kernels/gemm/*.cu"]
at = ["kernels/gemm"]
sota = "Marlin"
link = "https://github.com/IST-DASLab/marlin"
route = "bind"
oracle = "f32 dequant reference"

[[ladder]]
axis = "attention"
reached = "FlashAttention-1"
witness = "fused-attention"

[[ladder.rung]]
name = "FlashAttention-1"
year = 2022
summary = "IO-aware tiling"
"#;

fn project(matrix: &str) -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", matrix)
        .file(
            "kernels/attn/flash.cu",
            "// flash\n__global__ void flash_fwd() {}\n",
        )
        .file(
            "kernels/attn/flash_test.cu",
            "// excluded from the population\n",
        )
        .file("kernels/gemm/w4.cu", "// gemm\n")
        .file("tests/attn_test.py", "def test_cosine():\n    pass\n");
    p.git(&["add", "-A"]).success();
    p
}

fn cov(p: &Sota) -> serde_json::Value {
    p.run(&["coverage", "--json", "--today", "2026-07-01"])
        .json()
}

fn debts(v: &serde_json::Value) -> Vec<(String, u64)> {
    v["kpis"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["debt"].as_u64().unwrap() > 0)
        .map(|k| {
            (
                k["name"].as_str().unwrap().to_owned(),
                k["debt"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_clean_matrix_has_no_debt_and_grade_a() {
    let p = project(CLEAN);
    let v = cov(&p);
    assert_eq!(v["schema"], "sota.coverage/v1");
    assert_eq!(debts(&v), Vec::<(String, u64)>::new(), "{v:#}");
    assert_eq!(
        (v["sota_debt"].as_u64(), v["grade"].as_str()),
        (Some(0), Some("A"))
    );
    assert_eq!(v["today"], "2026-07-01");
    assert_eq!(v["population"]["source"], "kernels");
    assert_eq!(v["population"]["tracked_from"], "git-index");
    assert_eq!(
        v["population"]["kernel_files"],
        serde_json::json!(["kernels/attn/flash.cu", "kernels/gemm/w4.cu"])
    );
    let kpis: Vec<&str> = v["kpis"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        kpis,
        [
            "at_exists",
            "has_link",
            "has_oracle",
            "has_route",
            "tree_coverage",
            "ladder_witness",
            "dead_globs",
            "borrow_witness",
            "anchor_drift",
            "overlap",
            "broad_glob",
            "freshness",
            "proven"
        ]
    );
    assert_eq!(
        p.run(&["coverage", "--check", "--today", "2026-07-01"])
            .code,
        0
    );
    insta::assert_snapshot!(
        "coverage_clean",
        p.run(&["coverage", "--today", "2026-07-01"]).stdout
    );
}

/// (KPI, matrix, an extra tracked file, what the item says).
type Case = (
    &'static str,
    String,
    Option<(&'static str, &'static str)>,
    &'static str,
);

/// Each defect, made in turn, shows up as exactly its KPI.
#[test]
fn each_kpi_fails_alone() {
    let cases: Vec<Case> = vec![
        (
            "at_exists",
            CLEAN.replace("at = [\"kernels/gemm\"]", "at = [\"kernels/gone.cu\"]"),
            None,
            "kernels/gone.cu does not exist",
        ),
        (
            "at_exists",
            CLEAN.replace(
                "#flash_fwd\"]",
                "#flash_fwd\", \"kernels/attn/flash.cu#nope\"]",
            ),
            None,
            "symbol `nope` does not occur",
        ),
        (
            "has_link",
            CLEAN.replace("link = \"https://github.com/IST-DASLab/marlin\"\n", ""),
            None,
            "no link",
        ),
        (
            "has_oracle",
            CLEAN.replace("oracle = \"f32 dequant reference\"\n", ""),
            None,
            "no oracle",
        ),
        (
            "has_route",
            CLEAN.replace("route = \"bind\"\n", ""),
            None,
            "no route",
        ),
        (
            "tree_coverage",
            CLEAN.to_string(),
            Some(("kernels/metal/new.cu", "// uncovered\n")),
            "kernels/metal/new.cu",
        ),
        (
            "ladder_witness",
            CLEAN.replace(
                "witness = \"fused-attention\"",
                "witness = \"src/nowhere.cu\"",
            ),
            None,
            "neither an op slug nor a path",
        ),
        (
            "dead_globs",
            CLEAN.replace(
                "files = [\"kernels/gemm/*.cu\"]",
                "files = [\"kernels/gemm/*.cu\", \"kernels/old/*.cu\"]",
            ),
            None,
            "matches no tracked file",
        ),
        (
            "borrow_witness",
            CLEAN.replace(
                "witness = [\"tests/attn_test.py#test_cosine\"]",
                "witness = [\"tests/missing_test.py\"]",
            ),
            None,
            "no witness exists yet",
        ),
        (
            "anchor_drift",
            CLEAN.replace("flash.cu:2#flash_fwd", "flash.cu:40#flash_fwd"),
            None,
            "now at line 2",
        ),
        (
            "freshness",
            CLEAN.replace("reviewed = 2026-06-26", "reviewed = 2026-01-02"),
            None,
            "180 days old",
        ),
    ];
    for (kpi, matrix, extra, says) in cases {
        let mut p = project(&matrix);
        if let Some((path, text)) = extra {
            p = p.file(path, text);
            p.git(&["add", "-A"]).success();
        }
        let v = cov(&p);
        assert_eq!(debts(&v), vec![(kpi.to_owned(), 1)], "{kpi}: {v:#}");
        let k = v["kpis"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == kpi)
            .unwrap();
        assert!(
            k["items"][0]["why"].as_str().unwrap().contains(says)
                || k["items"][0]["subject"].as_str().unwrap().contains(says),
            "{kpi}: {k:#}"
        );
        let hard = k["hard"].as_bool().unwrap();
        let check = p.run(&["coverage", "--check", "--today", "2026-07-01"]);
        assert_eq!(
            check.code,
            if hard { 1 } else { 0 },
            "{kpi}: --check exit code"
        );
    }
}

#[test]
fn freshness_counts_exactly_fresh_days_as_fresh() {
    let p = project(CLEAN);
    // reviewed 2026-06-26 + 90 days = 2026-09-24.
    let on_the_day = p
        .run(&["coverage", "--json", "--today", "2026-09-24"])
        .json();
    assert_eq!(debts(&on_the_day), Vec::<(String, u64)>::new());
    let day_after = p
        .run(&["coverage", "--json", "--today", "2026-09-25"])
        .json();
    assert_eq!(debts(&day_after), vec![("freshness".to_owned(), 1)]);
}

#[test]
fn json_is_byte_identical_across_runs_and_human_caps_long_lists() {
    let mut p = project(CLEAN);
    for i in 0..15 {
        p = p.file(&format!("kernels/new/k{i:02}.cu"), "//\n");
    }
    p.git(&["add", "-A"]).success();
    let a = p.run(&["coverage", "--json", "--today", "2026-07-01"]);
    let b = p.run(&["coverage", "--json", "--today", "2026-07-01"]);
    assert_eq!(a.stdout, b.stdout);
    let v = a.json();
    assert_eq!(v["population"]["uncovered"].as_array().unwrap().len(), 15);
    let human = p.run(&["coverage", "--today", "2026-07-01"]).stdout;
    assert!(
        human.contains("… and 5 more (`--json` lists all)"),
        "{human}"
    );
}

#[test]
fn without_kernels_the_default_extensions_are_used_and_said() {
    let no_kernels = CLEAN.replace(
        "[kernels]\ninclude = [\"kernels/**/*.cu\"]\nexclude = [\"kernels/**/*_test.cu\"]\n",
        "",
    );
    let p = project(&no_kernels)
        .file("shaders/blur.metal", "//\n")
        .file("notes.txt", "");
    p.git(&["add", "-A"]).success();
    let v = cov(&p);
    assert_eq!(v["population"]["source"], "default-extensions");
    assert_eq!(
        v["population"]["uncovered"],
        serde_json::json!(["shaders/blur.metal"])
    );
    let human = p.run(&["coverage", "--today", "2026-07-01"]).stdout;
    assert!(human.contains("no [kernels] table, so the default kernel extensions (.cu .cuh .metal .hip .cl .comp .wgsl .ptx)"), "{human}");
}

#[test]
fn untracked_files_do_not_count_but_a_repo_with_no_commits_works() {
    let p = project(CLEAN).file("kernels/scratch/untracked.cu", "//\n");
    let v = cov(&p);
    assert!(
        debts(&v).is_empty(),
        "untracked files are not in the population: {v:#}"
    );
    assert!(
        p.git(&["rev-parse", "--verify", "HEAD"]).code != 0,
        "no commits yet"
    );
}

#[test]
fn a_directory_outside_git_is_walked_honouring_ignore_files() {
    let p = Sota::new()
        .file("sota.toml", CLEAN)
        .file(
            "kernels/attn/flash.cu",
            "// flash\n__global__ void flash_fwd() {}\n",
        )
        .file("kernels/gemm/w4.cu", "//\n")
        .file("tests/attn_test.py", "def test_cosine():\n    pass\n")
        .file(".gitignore", "build/\n")
        .file("build/kernels/gen.cu", "//\n")
        .file("kernels/build/x.cu", "//\n");
    let v = cov(&p);
    assert_eq!(v["population"]["tracked_from"], "walk");
    assert_eq!(v["population"]["uncovered"], serde_json::json!([]), "{v:#}");
    assert_eq!(v["population"]["kernel_files"].as_array().unwrap().len(), 2);
}

#[test]
fn sparse_checkouts_and_submodules_count_what_the_index_holds() {
    let p = project(CLEAN);
    p.commit("initial");
    // Sparse checkout: kernels/gemm leaves the disk but stays in the index.
    p.git(&[
        "sparse-checkout",
        "set",
        "--no-cone",
        "/*",
        "!/kernels/gemm/",
    ])
    .success();
    assert!(!p.path().join("kernels/gemm/w4.cu").exists());
    let v = cov(&p);
    assert!(debts(&v).is_empty(), "{v:#}");
    assert!(v["population"]["kernel_files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "kernels/gemm/w4.cu"));

    // A submodule is one tracked path (a gitlink), not a directory walk.
    let sub = Sota::new().git_init().file("lib.cu", "//\n");
    sub.commit("sub");
    let url = sub.path().to_string_lossy().into_owned();
    let added = p.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &url,
        "kernels/vendor",
    ]);
    added.success();
    let v = cov(&p);
    let kernel_files = v["population"]["kernel_files"].as_array().unwrap();
    assert!(
        !kernel_files
            .iter()
            .any(|f| f.as_str().unwrap().starts_with("kernels/vendor/")),
        "{v:#}"
    );
}

#[test]
fn no_matrix_is_a_configuration_error() {
    let run = Sota::new().run(&["coverage"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no sota.toml"), "{}", run.stderr);
}
