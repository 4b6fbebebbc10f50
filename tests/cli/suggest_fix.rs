//! Fixing a draft with the tool (issue 30, item 5): `sota suggest FILE --op
//! SLUG` moves a covered file to another op — a row of the matrix, a
//! catalog op brought in, or a custom op — rewriting each glob that held
//! it into the tightest globs for the rest; `--ladder AXIS` brings in a
//! catalog ladder. Every check reads the result back through `sota`
//! itself: lookups on every tracked file, `milestones`, and the file's
//! other bytes.

use std::collections::BTreeSet;

use crate::harness::Sota;

const MATRIX: &str = r#"# Our kernels, drafted by init.
[project]
name = "demo"
reviewed = 2026-06-26

[[op]]
slug = "fused-attention"   # attention
title = "Fused attention"
files = [
  "kernels/attn/",   # the attention tree
  "kernels/common.cuh",
]
sota = "FlashAttention"

[[op]]
slug = "normalization"
title = "RMSNorm"
files = ["kernels/**/*norm*.cu"]
sota = "FlashInfer norm kernels"
"#;

const FILES: &[&str] = &[
    "kernels/attn/fwd.cu",
    "kernels/attn/bwd.cu",
    "kernels/attn/swap_blocks.cu",
    "kernels/attn/paged/decode.cu",
    "kernels/attn/paged/layernorm.cu",
    "kernels/common.cuh",
    "kernels/rmsnorm.cu",
    "docs/notes.md",
];

fn repo() -> Sota {
    let mut p = Sota::new().git_init().file("sota.toml", MATRIX);
    for f in FILES {
        p = p.file(f, "__global__ void k() {}\n");
    }
    p.git(&["add", "-A"]).success();
    p
}

/// The ops whose globs match `file` (`sota <file> --json`).
fn ops_of(p: &Sota, file: &str) -> BTreeSet<String> {
    let v = p.run(&[file, "--json"]).json();
    v["ops"]
        .as_array()
        .map(|hits| {
            hits.iter()
                .filter(|h| h["matched_by"].is_string())
                .map(|h| h["op"]["slug"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn set(slugs: &[&str]) -> BTreeSet<String> {
    slugs.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_covered_file_moves_to_a_catalog_op_and_nothing_else_changes_op() {
    let p = repo();
    let before: Vec<BTreeSet<String>> = FILES.iter().map(|f| ops_of(&p, f)).collect();
    let run = p.run(&[
        "suggest",
        "kernels/attn/swap_blocks.cu",
        "--op",
        "kv-cache-offload",
        "--write",
    ]);
    run.success();
    assert!(
        run.stdout.contains("moves out of fused-attention"),
        "{}",
        run.stdout
    );
    for (f, was) in FILES.iter().zip(&before) {
        let now = ops_of(&p, f);
        if *f == "kernels/attn/swap_blocks.cu" {
            assert_eq!(now, set(&["kv-cache-offload"]), "{f}");
        } else {
            assert_eq!(&now, was, "{f} changed ops");
        }
    }
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    // The directory glob that held the moved file is gone; its comment,
    // the other glob and every other line stay.
    assert!(!text.contains("\"kernels/attn/\""), "{text}");
    for line in [
        "# Our kernels, drafted by init.",
        "slug = \"fused-attention\"   # attention",
        "  \"kernels/common.cuh\",",
        "files = [\"kernels/**/*norm*.cu\"]",
    ] {
        assert!(text.contains(line), "lost {line:?}:\n{text}");
    }
    assert!(text.contains("slug = \"kv-cache-offload\""), "{text}");
}

#[test]
fn a_file_moves_between_two_rows_of_the_matrix() {
    let p = repo();
    p.run(&[
        "suggest",
        "kernels/attn/paged/layernorm.cu",
        "--op",
        "normalization",
        "--write",
    ])
    .success();
    // It was in both; now only in the one asked for, and its neighbours
    // stay in attention.
    assert_eq!(
        ops_of(&p, "kernels/attn/paged/layernorm.cu"),
        set(&["normalization"])
    );
    assert_eq!(
        ops_of(&p, "kernels/attn/paged/decode.cu"),
        set(&["fused-attention"])
    );
    assert_eq!(ops_of(&p, "kernels/attn/fwd.cu"), set(&["fused-attention"]));
    assert_eq!(ops_of(&p, "kernels/rmsnorm.cu"), set(&["normalization"]));
}

#[test]
fn a_custom_op_needs_a_title_and_a_reference_then_is_written() {
    let p = repo();
    let run = p.run(&[
        "suggest",
        "kernels/attn/swap_blocks.cu",
        "--op",
        "block-swap",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--title") && run.stderr.contains("--sota"),
        "{}",
        run.stderr
    );
    let bad = p.run(&[
        "suggest",
        "kernels/attn/swap_blocks.cu",
        "--op",
        "Block_Swap",
        "--title",
        "t",
        "--sota",
        "s",
    ]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("kebab-case"), "{}", bad.stderr);
    p.run(&[
        "suggest",
        "kernels/attn/swap_blocks.cu",
        "--op",
        "block-swap",
        "--title",
        "Block swap between GPU and host",
        "--sota",
        "vLLM swap_blocks",
        "--link",
        "https://github.com/vllm-project/vllm",
        "--write",
    ])
    .success();
    assert_eq!(
        ops_of(&p, "kernels/attn/swap_blocks.cu"),
        set(&["block-swap"])
    );
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert!(
        text.contains("# A custom op, added by `sota suggest --op`"),
        "{text}"
    );
    let op = p.run(&["block-swap", "--json"]).json();
    assert_eq!(op["op"]["sota"], "vLLM swap_blocks", "{op}");
}

#[test]
fn a_catalog_ladder_is_brought_in_once() {
    let p = repo();
    let none = p.run(&["milestones", "attention"]);
    assert_ne!(none.code, 0, "{}", none.stdout);
    let run = p.run(&["suggest", "--ladder", "attention", "--write"]);
    run.success();
    assert!(
        run.stdout.contains("[[ladder]] axis = \"attention\""),
        "{}",
        run.stdout
    );
    let shown = p.run(&["milestones", "attention"]);
    shown.success();
    assert!(
        shown.stdout.contains("FlashAttention-2"),
        "{}",
        shown.stdout
    );
    let again = p.run(&["suggest", "--ladder", "attention"]);
    assert_eq!(again.code, 2);
    assert!(
        again.stderr.contains("already has a ladder"),
        "{}",
        again.stderr
    );
    let typo = p.run(&["suggest", "--ladder", "atention"]);
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("did you mean `attention`"),
        "{}",
        typo.stderr
    );
}

#[test]
fn the_proposed_move_is_shown_before_it_is_written() {
    let p = repo();
    let run = p.run(&[
        "suggest",
        "kernels/attn/swap_blocks.cu",
        "--op",
        "kv-cache-offload",
    ]);
    run.success();
    insta::assert_snapshot!(run.stdout);
    let json = p
        .run(&[
            "suggest",
            "kernels/attn/swap_blocks.cu",
            "--op",
            "kv-cache-offload",
            "--json",
        ])
        .json();
    let attention = json["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["op"] == "fused-attention")
        .expect("an edit of the attention row");
    assert_eq!(
        attention["remove_files"],
        serde_json::json!(["kernels/attn/"])
    );
    assert_eq!(json["suggestions"][0]["proposal"]["asked"], true);
    // Nothing was written.
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    assert_eq!(text, MATRIX);
}
