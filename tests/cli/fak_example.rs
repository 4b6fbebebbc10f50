//! The seed's matrix, shipped as `examples/fak/sota.toml`, read through the
//! real binary: every row, every ladder, the seed's ladder output.

use crate::harness::{repo_root, Sota};

const FAK: &str = "examples/fak/sota.toml";

fn fak(args: &[&str]) -> crate::harness::Run {
    let mut all = vec!["--matrix", FAK];
    all.extend_from_slice(args);
    Sota::new().run_in(&repo_root(), &all)
}

const OP_FIELDS: &[&str] = &[
    "slug",
    "title",
    "files",
    "at",
    "where",
    "sota",
    "link",
    "route",
    "route_meaning",
    "oracle",
    "check",
    "witness",
    "papers",
    "note",
    "ladders",
    "defined_at",
    "checked",
    "superseded",
    "catalog",
];

#[test]
fn list_json_has_the_seed_13_rows_with_every_field() {
    let run = fak(&["list", "--json"]);
    run.success();
    let v = run.json();
    assert_eq!(v["schema"], "sota.list/v1");
    assert_eq!(v["source"]["project"], "fak");
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 13);
    let slugs: Vec<&str> = ops.iter().map(|o| o["slug"].as_str().unwrap()).collect();
    let mut sorted = slugs.clone();
    sorted.sort_unstable();
    assert_eq!(slugs, sorted, "list is sorted by slug");
    for op in ops {
        let obj = op.as_object().unwrap();
        for field in OP_FIELDS {
            assert!(obj.contains_key(*field), "{} lacks {field}", op["slug"]);
        }
        assert_eq!(obj.len(), OP_FIELDS.len(), "unexpected fields in {op}");
        // The seed decided every row: link, route and oracle are all present.
        for decided in ["link", "route", "oracle"] {
            assert!(op[decided].is_string(), "{} has no {decided}", op["slug"]);
        }
        assert!(!op["files"].as_array().unwrap().is_empty());
    }
    insta::assert_snapshot!("fak_list", fak(&["list"]).stdout);
}

/// A concrete path that a glob matches (stars filled in).
fn path_for(glob: &str) -> String {
    let mut p = glob.replace("**", "deep").replace('*', "x");
    if p.ends_with('/') {
        p.push_str("kernel.metal");
    }
    p
}

#[test]
fn every_row_resolves_by_slug_and_by_one_of_its_files() {
    let list = fak(&["list", "--json"]).json();
    for op in list["ops"].as_array().unwrap() {
        let slug = op["slug"].as_str().unwrap();
        let by_slug = fak(&[slug, "--json"]);
        by_slug.success();
        assert_eq!(by_slug.json()["op"]["slug"], slug);

        for glob in op["files"].as_array().unwrap() {
            let path = path_for(glob.as_str().unwrap());
            let by_file = fak(&[&path, "--json"]);
            by_file.success();
            let v = by_file.json();
            assert_eq!(v["schema"], "sota.file/v1", "{path}");
            let hits: Vec<&str> = v["ops"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["op"]["slug"].as_str().unwrap())
                .collect();
            assert!(
                hits.contains(&slug),
                "{path} should resolve to {slug}, got {hits:?}"
            );
        }
    }
}

#[test]
fn a_shared_kernel_file_names_every_op_it_implements() {
    let run = fak(&["internal/compute/cuda_kernels.cu:812:3"]);
    run.success();
    insta::assert_snapshot!("fak_cuda_kernels_file", run.stdout);
}

#[test]
fn one_op_in_full_points_at_its_ladder() {
    let run = fak(&["awq-int4-gemm"]);
    run.success();
    insta::assert_snapshot!("fak_awq_op", run.stdout);
    let v = fak(&["awq-int4-gemm", "--json"]).json();
    insta::assert_json_snapshot!("fak_awq_op_json", v);
}

#[test]
fn milestones_show_five_axes_with_the_seed_positions() {
    let run = fak(&["milestones", "--json"]);
    run.success();
    let v = run.json();
    assert_eq!(v["schema"], "sota.milestones/v1");
    let rows: Vec<(String, String, String)> = v["ladders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let name = |k: &str| {
                l[k]["name"]
                    .as_str()
                    .unwrap_or("not implemented")
                    .to_owned()
            };
            (
                l["axis"].as_str().unwrap().to_owned(),
                name("reached"),
                name("next"),
            )
        })
        .collect();
    let expect = [
        ("attention", "FlashAttention-1", "FlashAttention-2"),
        (
            "batching",
            "Dynamic, padding-aware batching",
            "Continuous / in-flight batching (Orca)",
        ),
        (
            "quantization",
            "INT4 PTQ (AWQ / GPTQ / gguf k-quants)",
            "Fused INT4 Marlin kernel",
        ),
        (
            "kv-cache",
            "PagedAttention + RadixAttention prefix reuse",
            "KV quantization / host offload",
        ),
        (
            "speculative-decoding",
            "not implemented",
            "Draft-model speculative decoding",
        ),
    ];
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    assert_eq!(got, expect);
    insta::assert_snapshot!("fak_milestones", fak(&["milestones"]).stdout);
}

#[test]
fn milestones_attention_prints_the_seed_ladder_exactly() {
    let run = fak(&["milestones", "attention"]);
    run.success();
    let rungs: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(
        rungs,
        [
            "  => L1  FlashAttention-1 (2022)   IO-aware tiling + online softmax; no N×N materialization",
            "  -> L2  FlashAttention-2 (2023)   better warp partitioning — ~2× FA-1",
            "     L3  FlashAttention-3 (2024)   Hopper warp-specialization + FP8",
            "     L4  FlashInfer (2024)         paged / variable-length + block-sparse",
        ]
    );
    insta::assert_snapshot!("fak_milestones_attention", run.stdout);
    let v = fak(&["milestones", "attention", "--json"]).json();
    insta::assert_json_snapshot!("fak_milestones_attention_json", v);
}

#[test]
fn an_unknown_axis_lists_the_axes_and_exits_1() {
    let run = fak(&["milestones", "atention"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("did you mean `attention`?"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("axes: attention, batching, quantization, kv-cache, speculative-decoding"),
        "{}",
        run.stderr
    );
    let json = fak(&["milestones", "nope", "--json"]);
    assert_eq!(json.code, 1);
    assert_eq!(json.json()["axes"].as_array().unwrap().len(), 5);
}
