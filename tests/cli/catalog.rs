//! With no sota.toml, lookups and milestones answer from the built-in
//! catalog and say so on stderr.

use crate::harness::Sota;

#[test]
fn without_a_matrix_the_catalog_answers_and_says_so() {
    let p = Sota::new();
    let run = p.run(&["list", "--json"]);
    run.success();
    assert!(
        run.stderr.contains("answering from the built-in catalog"),
        "{}",
        run.stderr
    );
    let v = run.json();
    assert_eq!(v["source"]["origin"], "catalog");
    assert!(v["ops"].as_array().unwrap().len() >= 40);

    let ladder = p.run(&["milestones", "attention"]);
    ladder.success();
    assert!(ladder.stderr.contains("built-in catalog"));
    assert!(
        ladder.stdout.contains("L4  FlashInfer (2023)"),
        "{}",
        ladder.stdout
    );
    assert!(
        !ladder.stdout.contains("=>") && !ladder.stdout.contains("->"),
        "the catalog has no position"
    );

    let search = p.run(&["marlin"]);
    search.success();
    assert!(search.stdout.contains("awq-int4-gemm"));

    // A catalog op shows its route as a suggestion, not as a decision.
    let op = p.run(&["dense-gemm"]);
    op.success();
    assert!(
        op.stdout
            .contains("route    bind (suggested) — use the production library"),
        "{}",
        op.stdout
    );
}

#[test]
fn the_catalog_flag_ignores_a_project_matrix_quietly() {
    let p = Sota::new().file("sota.toml", crate::harness::SMALL);
    let run = p.run(&["--catalog", "milestones", "--json"]);
    run.success();
    assert!(run.stderr.is_empty());
    let v = run.json();
    let axes: Vec<&str> = v["ladders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["axis"].as_str().unwrap())
        .collect();
    assert_eq!(
        axes,
        [
            "attention",
            "batching",
            "quantization",
            "kv-cache",
            "speculative-decoding",
            "gemm",
            "moe",
            "attention-heads",
            "linear-attention",
            "float-formats",
            "sampling",
            "kernel-dsl",
            "collectives",
            "context-parallel",
            "low-precision-attention",
            "weight-codebook-quant",
            "sparse-attention"
        ]
    );
    assert!(v["ladders"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["reached"].is_null()));
    insta::assert_snapshot!(
        "catalog_milestones",
        p.run(&["--catalog", "milestones"]).stdout
    );
}

#[test]
fn catalog_and_matrix_flags_conflict() {
    let run = Sota::new().run(&["--catalog", "--matrix", "x.toml"]);
    assert_eq!(run.code, 2);
}

#[test]
fn the_catalog_renders_its_own_tables_and_check_catches_drift() {
    let doc = "# Catalog\n\n<!-- sota:matrix -->\n<!-- /sota:matrix -->\n\n<!-- sota:milestones -->\n<!-- /sota:milestones -->\n";
    let p = Sota::new()
        .file("sota.toml", crate::harness::SMALL)
        .file("catalog.md", doc);
    let stale = p.run(&["--catalog", "render", "catalog.md", "--check"]);
    assert_eq!(stale.code, 1, "{stale:?}");

    p.run(&["--catalog", "render", "catalog.md"]).success();
    let after = std::fs::read_to_string(p.path().join("catalog.md")).unwrap();
    // The catalog's columns, not the project's: slug, suggested route, check.
    assert!(
        after.contains("| Operation | Slug | Read first | Suggested route | Oracle | Check |"),
        "{after}"
    );
    assert!(after.contains("| AWQ 4-bit GEMV/GEMM | `awq-int4-gemm` | [Marlin mixed-precision INT4 kernel (FP16×INT4); AutoAWQ kernels](https://github.com/IST-DASLab/marlin) | borrow |"), "{after}");
    // Every rung of every ladder, with its source as links.
    assert!(after.contains("| attention | L1 | FlashAttention-1 | 2022 | IO-aware tiling + online softmax; no N×N materialization | [arXiv:2205.14135](https://arxiv.org/abs/2205.14135) · [code/page](https://github.com/Dao-AILab/flash-attention) |"), "{after}");
    assert!(
        after.contains("| gemm | L2 | BLIS micro-kernel framework | 2012 |"),
        "{after}"
    );
    // Nothing of the project's matrix leaks in.
    assert!(!after.contains("kernels/attn/flash.cu"), "{after}");

    p.run(&["--catalog", "render", "catalog.md", "--check"])
        .success();
}

/// A catalog row whose reference has a successor says so, with both links,
/// and says when it was last checked and which catalog answered.
#[test]
fn a_superseded_reference_is_printed_with_its_successor() {
    let p = Sota::new();
    let human = p.run(&["rocm-kernels"]);
    human.success();
    insta::assert_snapshot!("catalog_superseded_human", human.stdout);
    let json = p.run(&["rocm-kernels", "--json"]);
    json.success();
    let v = json.json();
    assert_eq!(
        v["op"]["superseded"],
        serde_json::json!([{
            "link": "https://github.com/ROCm/composable_kernel",
            "by": "https://github.com/ROCm/rocm-libraries/tree/develop/projects/composablekernel"
        }])
    );
    assert_eq!(v["op"]["catalog"], "<built-in catalog>");
    insta::assert_json_snapshot!("catalog_superseded_json", v["op"]);
    for (slug, old) in [
        (
            "exl2-quant",
            "turboderp-org/exllamav2 → https://github.com/turboderp-org/exllamav3",
        ),
        (
            "arm-neon-sve",
            "ARM-software/kleidiai → https://gitlab.arm.com/kleidi/kleidiai",
        ),
    ] {
        let run = p.run(&[slug]);
        assert!(run.stdout.contains(old), "{slug}: {}", run.stdout);
    }
    // pplx-kernels → pplx-garden was not verified: no successor recorded.
    let a2a = p.run(&["collective-alltoall", "--json"]).json();
    assert_eq!(a2a["op"]["superseded"], serde_json::json!([]));
}
