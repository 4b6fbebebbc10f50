//! Issue 33, "week one in a team": what the gate, the audit and the report
//! say in the first days after adoption.

use crate::harness::{Sota, SMALL};

/// A repository with the small matrix committed and nothing staged.
fn repo() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", SMALL)
        .file("README.md", "demo\n")
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n")
        .file("kernels/gemm/w4a16_int4.cu", "// int4\n");
    p.commit("initial");
    p
}

fn stage(p: &Sota, path: &str, contents: &str) {
    let full = p.path().join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, contents).unwrap();
    p.git(&["add", "--", path]).success();
}

fn msg(p: &Sota, text: &str) -> String {
    let path = p.path().join("MSG");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn strict_placeholder_words_name_nothing_read_and_do_not_pass() {
    let p = repo();
    stage(&p, "kernels/attn/flash.cu", "// v2\n");
    for value in ["yes", "ok", "done", "true", "-", "see above", "OK, done."] {
        let m = msg(&p, &format!("Tune attention\n\nPrior-art: {value}\n"));
        let run = p.run(&["gate", "--strict", "--commit-msg", &m]);
        assert_eq!(run.code, 1, "`Prior-art: {value}` must not pass --strict");
        assert!(
            run.stdout.contains("is a placeholder and does not count"),
            "{value}: {}",
            run.stdout
        );
    }
    let real = msg(&p, "Tune attention\n\nPrior-art: FlashAttention-2\n");
    p.run(&["gate", "--strict", "--commit-msg", &real])
        .success();
}

#[test]
fn strict_needs_a_trailer_naming_each_touched_op_and_says_which_lacks_one() {
    let p = repo();
    stage(&p, "kernels/attn/flash.cu", "// v2\n");
    stage(&p, "kernels/gemm/w4a16_int4.cu", "// v2\n");
    let attn_only = msg(
        &p,
        "Tune attention and gemm\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention); oracle cosine ≥ 0.999\n",
    );
    // Advisory mode stays lenient: one real trailer silences the commit.
    let lenient = p.run(&["gate", "--commit-msg", &attn_only]);
    lenient.success();
    assert!(lenient.stdout.is_empty(), "{}", lenient.stdout);

    let strict = p.run(&["gate", "--strict", "--commit-msg", &attn_only]);
    assert_eq!(strict.code, 1, "{}", strict.stdout);
    assert!(
        strict.stdout.contains("touches int4-gemm"),
        "{}",
        strict.stdout
    );
    assert!(
        !strict.stdout.contains("touches fused-attention"),
        "the named op is not re-advised: {}",
        strict.stdout
    );
    assert!(
        strict
            .stdout
            .contains("no `Prior-art:` trailer names int4-gemm"),
        "{}",
        strict.stdout
    );
    assert!(strict.stderr.contains("int4-gemm"), "{}", strict.stderr);
    let v = p
        .run(&["gate", "--strict", "--json", "--commit-msg", &attn_only])
        .json();
    assert_eq!(v["unnamed"], serde_json::json!(["int4-gemm"]), "{v}");
    assert_eq!(v["advisories"].as_array().unwrap().len(), 1, "{v}");

    // Named by reference, by link or by slug: each passes.
    for second in [
        "Prior-art: Marlin (IST-DASLab/marlin)",
        "Prior-art: https://github.com/IST-DASLab/marlin",
        "Prior-art: int4-gemm: none found - novel layout; oracle f32 dequant",
    ] {
        let both = msg(
            &p,
            &format!("Tune both\n\nPrior-art: FlashAttention-2\n{second}\n"),
        );
        let run = p.run(&["gate", "--strict", "--commit-msg", &both]);
        assert_eq!(run.code, 0, "{second}: {}{}", run.stdout, run.stderr);
    }
}

#[test]
fn strict_range_flags_a_commit_whose_trailer_names_only_one_op() {
    let p = repo();
    let base = p.git(&["rev-parse", "HEAD"]).stdout.trim().to_owned();
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// a\n").unwrap();
    std::fs::write(p.path().join("kernels/gemm/w4a16_int4.cu"), "// b\n").unwrap();
    p.commit("Both kernels\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention)");
    let range = format!("{base}..HEAD");
    let lenient = p.run(&["gate", "--range", &range, "--json"]).json();
    assert_eq!(lenient["commits"].as_array().unwrap().len(), 0, "{lenient}");
    let strict = p.run(&["gate", "--range", &range, "--strict", "--json"]);
    assert_eq!(strict.code, 1);
    let v = strict.json();
    assert_eq!(
        v["commits"][0]["unnamed"],
        serde_json::json!(["int4-gemm"]),
        "{v}"
    );
    let human = p.run(&["gate", "--range", &range, "--strict"]);
    assert!(
        human.stdout.contains("no trailer names int4-gemm"),
        "{}",
        human.stdout
    );
}

#[test]
fn the_suggested_trailer_never_repeats_the_repository() {
    let matrix = r#"
[project]
name = "demo"

[[op]]
slug = "metal-attention"
title = "Metal fused attention"
files = ["kernels/*.metal"]
sota = "FlashAttention-2 tiling on Apple GPUs (philipturner/metal-flash-attention); MLX sdpa"
link = "https://github.com/philipturner/metal-flash-attention"
"#;
    let p = Sota::new()
        .file("sota.toml", matrix)
        .file("kernels/attn.metal", "kernel void attn() {}\n");
    let run = p.run(&["gate", "--paths", "kernels/attn.metal", "--format", "short"]);
    run.success();
    assert!(
        run.stdout.contains(
            "Prior-art: FlashAttention-2 tiling on Apple GPUs (philipturner/metal-flash-attention)\n"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout
            .matches("(philipturner/metal-flash-attention)")
            .count(),
        1,
        "{}",
        run.stdout
    );
}
