//! `sota <slug|file|query>` against a small project matrix.

use crate::harness::{Sota, SMALL};

fn project() -> Sota {
    Sota::new()
        .file("sota.toml", SMALL)
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n")
        .file("kernels/gemm/w4a16_int4.cu", "")
        .file("kernels/common.cuh", "")
}

fn slugs(v: &serde_json::Value) -> Vec<String> {
    v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["op"]["slug"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_file_resolves_from_the_root_a_subdirectory_and_absolutely() {
    let p = project();
    let from_root = p.run(&["kernels/attn/flash.cu", "--json"]);
    from_root.success();
    assert_eq!(from_root.json()["path"], "kernels/attn/flash.cu");
    assert_eq!(slugs(&from_root.json()), ["fused-attention"]);

    let sub = p.cwd("kernels/attn");
    let from_sub = sub.run(&["flash.cu", "--json"]);
    from_sub.success();
    assert_eq!(from_sub.json()["path"], "kernels/attn/flash.cu");

    let abs = sub.path().join("kernels/gemm/w4a16_int4.cu");
    let from_abs = sub.run(&[abs.to_str().unwrap(), "--json"]);
    from_abs.success();
    assert_eq!(slugs(&from_abs.json()), ["int4-gemm"]);
}

#[test]
fn backslashes_and_line_columns_are_accepted() {
    let p = project().cwd("kernels");
    let run = p.run(&["gemm\\w4a16_int4.cu:42:7", "--json"]);
    run.success();
    assert_eq!(run.json()["path"], "kernels/gemm/w4a16_int4.cu");
    let run = p.run(&["..\\kernels\\common.cuh:3", "--json"]);
    run.success();
    assert_eq!(
        slugs(&run.json()),
        ["fused-attention", "int4-gemm"],
        "matrix order, each op once"
    );
}

#[test]
fn a_file_lookup_shows_each_op_with_the_glob_that_matched() {
    let run = project().run(&["kernels/common.cuh"]);
    run.success();
    insta::assert_snapshot!("lookup_shared_header", run.stdout);
}

#[test]
fn a_slug_shows_the_op_and_its_ladder() {
    let run = project().run(&["fused-attention"]);
    run.success();
    assert!(
        run.stdout
            .contains("ladder   attention (witnesses L1 FlashAttention-1)"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("stay-minimal — keep our own small, exact implementation"));
}

#[test]
fn undecided_fields_are_shown_as_debt_not_invented() {
    let run = project().run(&["kv-cache"]);
    run.success();
    assert!(run.stdout.contains("no link yet (debt)"), "{}", run.stdout);
    assert!(run.stdout.contains("undecided (debt)"));
    assert!(run.stdout.contains("none yet (debt)"));
    let v = project().run(&["kv-cache", "--json"]).json();
    assert!(v["op"]["link"].is_null() && v["op"]["route"].is_null() && v["op"]["oracle"].is_null());
    let list = project().run(&["list"]);
    assert!(list.stdout.contains("undecided"));
}

#[test]
fn search_ranks_by_field_and_a_single_hit_is_shown_in_full() {
    let p = project();
    let run = p.run(&["marlin", "--json"]);
    run.success();
    let v = run.json();
    assert_eq!(v["schema"], "sota.search/v1");
    assert_eq!(v["hits"][0]["op"]["slug"], "int4-gemm");
    let text = p.run(&["marlin"]);
    assert!(text.stdout.contains("best match for \"marlin\""));
    assert!(text.stdout.contains("int4-gemm — INT4 weight-only GEMM"));

    // Two hits, best first: a slug/title hit outranks a hit in `sota` alone.
    let two = p.run(&["attention", "--json"]).json();
    let ranked: Vec<&str> = two["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["op"]["slug"].as_str().unwrap())
        .collect();
    assert_eq!(ranked, ["fused-attention", "kv-cache"]);
}

#[test]
fn nothing_found_exits_1_with_suggestions_and_the_slug_list() {
    let run = project().run(&["fused-atention"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    insta::assert_snapshot!("lookup_not_found", run.stderr);

    let path = project().run(&["kernels/other/x.cu"]);
    assert_eq!(path.code, 1);
    assert!(
        path.stderr.contains("no op covers `kernels/other/x.cu`"),
        "{}",
        path.stderr
    );

    let json = project().run(&["zzz", "--json"]);
    assert_eq!(json.code, 1);
    let v = json.json();
    assert_eq!(v["schema"], "sota.not-found/v1");
    assert_eq!(v["slugs"].as_array().unwrap().len(), 3);
}

#[test]
fn bare_sota_lists_every_op_sorted() {
    let run = project().run(&[]);
    run.success();
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .skip(1)
        .take(3)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(rows, ["fused-attention", "int4-gemm", "kv-cache"]);
    assert_eq!(run.stdout, project().run(&["list"]).stdout);
    assert!(
        !run.stdout.contains('\u{1b}'),
        "no colour when not a terminal"
    );
}
