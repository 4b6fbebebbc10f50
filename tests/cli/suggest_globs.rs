//! `sota suggest --write` never writes a glob wider than its targets: after
//! the edit, a tracked file gains an op only if it was a target proposed for
//! that op. Checked with `sota <file>` lookups on every tracked file before
//! and after (the matrix's own matcher, not a second one), on targets that
//! fill a directory, a subtree and a whole top-level folder, each next to
//! unrelated tracked files.

use std::collections::{BTreeMap, BTreeSet};

use crate::harness::Sota;

const MATRIX: &str = "[project]\nname = \"demo\"\nreviewed = 2026-06-26\n";

const ATTN: &str = "__global__ void flash_attn_fwd() { /* online softmax */ }\n";
const OTHER: &str = "__global__ void other() {}\n";

/// A git repository with these files (and `sota.toml`), all staged.
fn repo(matrix: &str, files: &[(&str, &str)]) -> Sota {
    let mut p = Sota::new().git_init().file("sota.toml", matrix);
    for (path, text) in files {
        p = p.file(path, text);
    }
    p.git(&["add", "-A"]).success();
    p
}

/// The ops whose globs match `file`, by a `sota <file>` lookup.
fn ops_of(p: &Sota, file: &str) -> BTreeSet<String> {
    let run = p.run(&[file, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_default();
    if v["path"] != file {
        return BTreeSet::new();
    }
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

fn tracked(p: &Sota) -> Vec<String> {
    let run = p.git(&["ls-files"]);
    run.success();
    run.stdout
        .lines()
        .filter(|l| *l != "sota.toml")
        .map(str::to_owned)
        .collect()
}

/// Run `sota suggest ARGS --write` and check that no tracked file gained
/// an op it was not proposed for, and that every proposed file is now in
/// its op. Returns the globs written, by op.
#[track_caller]
fn write_and_check(p: &Sota, args: &[&str]) -> BTreeMap<String, Vec<String>> {
    let files = tracked(p);
    let before: BTreeMap<&str, BTreeSet<String>> =
        files.iter().map(|f| (f.as_str(), ops_of(p, f))).collect();
    let mut json_args = vec!["suggest"];
    json_args.extend_from_slice(args);
    json_args.push("--json");
    let run = p.run(&json_args);
    run.success();
    let v = run.json();
    let proposed: BTreeMap<String, String> = v["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["proposal"].is_null())
        .map(|s| {
            (
                s["file"].as_str().unwrap().to_owned(),
                s["proposal"]["op"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(!proposed.is_empty(), "nothing proposed: {}", run.stdout);
    let globs: BTreeMap<String, Vec<String>> = v["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["op"].as_str().unwrap().to_owned(),
                e["add_files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g.as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect();

    let mut write_args = vec!["suggest"];
    write_args.extend_from_slice(args);
    write_args.push("--write");
    p.run(&write_args).success();

    for f in &files {
        let after = ops_of(p, f);
        for gained in after.difference(&before[f.as_str()]) {
            assert_eq!(
                proposed.get(f),
                Some(gained),
                "{f} is now in `{gained}` although it was not proposed for it; globs written: {globs:?}"
            );
        }
    }
    for (f, op) in &proposed {
        assert!(
            ops_of(p, f).contains(op),
            "{f} proposed for `{op}` but not covered by it; globs written: {globs:?}"
        );
    }
    globs
}

/// The reported case: targets that fill a deep directory must not become
/// a glob over one of its ancestors.
#[test]
fn targets_filling_a_directory_get_that_directory_only() {
    let p = repo(
        MATRIX,
        &[
            ("third/src/ops/attn/flash_fwd.cu", ATTN),
            ("third/src/ops/attn/flash_bwd.cu", ATTN),
            ("third/src/ops/attn/flash_varlen.cu", ATTN),
            ("third/src/ops/add.cu", OTHER),
            ("third/src/ops/gemm/mmq.cu", OTHER),
            ("third/src/host.cpp", "void launch();\n"),
            ("third/README.md", "# third\n"),
            ("README.md", "# demo\n"),
            ("python/setup.py", "print()\n"),
        ],
    );
    let globs = write_and_check(
        &p,
        &[
            "third/src/ops/attn/flash_fwd.cu",
            "third/src/ops/attn/flash_bwd.cu",
            "third/src/ops/attn/flash_varlen.cu",
        ],
    );
    assert_eq!(
        globs.values().flatten().collect::<Vec<_>>(),
        ["third/src/ops/attn/"],
        "{globs:?}"
    );
}

/// Targets that fill a subtree, with a file the op already covers inside
/// it: the subtree's directory, not the folder above it.
#[test]
fn targets_filling_a_subtree_with_covered_files_get_the_subtree_only() {
    let matrix = format!(
        "{MATRIX}\n[[op]]\nslug = \"fused-attention\"\ntitle = \"Fused attention\"\n\
         files = [\"lib/attn/flash_common.cuh\"]\nsota = \"FlashAttention\"\n"
    );
    let p = repo(
        &matrix,
        &[
            (
                "lib/attn/flash_common.cuh",
                "__device__ float softmax_scale();\n",
            ),
            ("lib/attn/fwd/flash_fwd.cu", ATTN),
            ("lib/attn/fwd/flash_fwd_varlen.cu", ATTN),
            ("lib/attn/bwd/flash_bwd.cu", ATTN),
            ("lib/elementwise/add.cu", OTHER),
            ("lib/gemm/mmq.cu", OTHER),
            ("lib/CMakeLists.txt", "add_library(lib)\n"),
            ("README.md", "# demo\n"),
        ],
    );
    let globs = write_and_check(
        &p,
        &[
            "lib/attn/fwd/flash_fwd.cu",
            "lib/attn/fwd/flash_fwd_varlen.cu",
            "lib/attn/bwd/flash_bwd.cu",
        ],
    );
    assert_eq!(
        globs.values().flatten().collect::<Vec<_>>(),
        ["lib/attn/"],
        "{globs:?}"
    );
}

/// Targets that fill a whole top-level folder (which may be one glob) and
/// a directory deep inside another one (whose ancestors hold other code).
#[test]
fn targets_filling_a_top_level_folder_get_that_folder_and_no_other() {
    let p = repo(
        MATRIX,
        &[
            ("attn/flash_fwd.cu", ATTN),
            ("attn/flash_bwd.cu", ATTN),
            ("attn/varlen/flash_varlen.cu", ATTN),
            ("csrc/attn/flash_causal.cu", ATTN),
            ("csrc/attn/flash_prefill.cu", ATTN),
            ("csrc/elementwise/add.cu", OTHER),
            ("csrc/gemm/mmq.cu", OTHER),
            ("README.md", "# demo\n"),
            ("setup.py", "print()\n"),
        ],
    );
    let globs = write_and_check(
        &p,
        &[
            "attn/flash_fwd.cu",
            "attn/flash_bwd.cu",
            "attn/varlen/flash_varlen.cu",
            "csrc/attn/flash_causal.cu",
            "csrc/attn/flash_prefill.cu",
        ],
    );
    assert_eq!(
        globs.values().flatten().collect::<Vec<_>>(),
        ["attn/", "csrc/attn/"],
        "{globs:?}"
    );
}

/// A build file or a note beside the targets is a tracked file too: a
/// directory glob would send its edits to the op's prior art.
#[test]
fn a_build_file_beside_the_targets_keeps_the_glob_off_it() {
    let p = repo(
        MATRIX,
        &[
            ("k/attn/flash_fwd.cu", ATTN),
            ("k/attn/flash_bwd.cu", ATTN),
            ("k/attn/CMakeLists.txt", "add_library(attn)\n"),
            ("k/add.cu", OTHER),
        ],
    );
    write_and_check(&p, &["k/attn/flash_fwd.cu", "k/attn/flash_bwd.cu"]);
}

/// `--uncovered --write` on a tree with several ops' kernels: no file ends
/// up in an op it was not proposed for, so no file is in two ops.
#[test]
fn uncovered_write_puts_no_file_in_an_op_it_was_not_proposed_for() {
    let matrix = format!("{MATRIX}\n[kernels]\ninclude = [\"**/*.cu\"]\n");
    let p = repo(
        &matrix,
        &[
            ("top/src/conv/loaders/flash_fwd.cu", ATTN),
            ("top/src/conv/loaders/flash_bwd.cu", ATTN),
            (
                "top/src/norm/rms_norm.cu",
                "__global__ void rms_norm() { rsqrtf(1.f); }\n",
            ),
            (
                "top/src/norm/layer_norm.cu",
                "__global__ void layer_norm() { rsqrtf(1.f); }\n",
            ),
            ("top/src/elementwise/add.cu", OTHER),
            ("top/src/host.cpp", "void launch();\n"),
            ("README.md", "# demo\n"),
        ],
    );
    write_and_check(&p, &["--uncovered"]);
}
