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
        ladder.stdout.contains("L4  FlashInfer (2024)"),
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
            "context-parallel"
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
