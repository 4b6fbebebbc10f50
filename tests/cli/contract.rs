//! The output contract: every payload of every command, human and JSON,
//! pinned by a snapshot on one fixture repository; every JSON payload
//! carries a registered schema id, and no id names two shapes.

use std::collections::BTreeMap;

use sota::output::schema_id::SchemaId;
use strum::IntoEnumIterator;

use crate::harness::{Run, Sota};

const MATRIX: &str = r#"
[project]
name = "contract"
reviewed = 2026-06-26

[kernels]
include = ["kernels/**"]

[[op]]
slug = "fused-attention"
title = "Fused attention"
files = ["kernels/attn/"]
at = ["kernels/attn/flash.cu#flash_fwd"]
sota = "FlashAttention-2; FlashInfer"
link = "https://github.com/Dao-AILab/flash-attention"
route = "stay-minimal"
oracle = "naive attention, cosine ≥ 0.999"
check = [{ metric = "cosine", min = 0.999 }]
papers = ["FlashAttention-2 (Dao, 2023) arXiv:2307.08691"]

[[op]]
slug = "int4-gemm"
title = "INT4 GEMM"
files = ["kernels/gemm/*.cu"]
at = ["kernels/gemm/w4.cu"]
sota = "Marlin mixed-precision INT4 kernel"
link = "https://github.com/IST-DASLab/marlin"

[[ladder]]
axis = "attention"
reached = "FlashAttention-1"
witness = "fused-attention"

[[ladder.rung]]
name = "FlashAttention-1"
year = 2022
summary = "IO-aware tiling + online softmax"
cite = "arXiv:2205.14135"

[[ladder.rung]]
name = "FlashAttention-2"
year = 2023
summary = "better work partitioning"
cite = "arXiv:2307.08691"
"#;

fn fixture() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", MATRIX)
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n")
        .file("kernels/gemm/w4.cu", "__global__ void w4() {}\n")
        .file(
            "kernels/misc/top_k.cu",
            "__global__ void top_k() {} // not covered\n",
        )
        .file(
            "docs/kernels.md",
            "# Kernels\n\n<!-- sota:matrix -->\n<!-- /sota:matrix -->\n",
        );
    // Two raw f32 tensors for `sota prove` (not tracked: outputs of a run).
    let tensor = |values: [f32; 4]| {
        values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    std::fs::create_dir_all(p.path().join("out")).unwrap();
    std::fs::write(p.path().join("out/ref.f32"), tensor([1.0, 2.0, 3.0, 4.0])).unwrap();
    std::fs::write(p.path().join("out/cand.f32"), tensor([1.0, 2.0, 3.0, 4.5])).unwrap();
    std::fs::write(p.path().join(".gitignore"), "out/\n").unwrap();
    p.git(&["add", "-A"]).success();
    p.commit("initial");
    std::fs::write(
        p.path().join("kernels/gemm/w4.cu"),
        "__global__ void w4() {} // v2\n",
    )
    .unwrap();
    p.git(&["add", "-A"]).success();
    p.commit("faster w4");
    std::fs::write(
        p.path().join("kernels/attn/flash.cu"),
        "__global__ void flash_fwd() {} // v2\n",
    )
    .unwrap();
    p.git(&["add", "-A"]).success();
    p
}

/// Every command's run: (name, args, the schema its JSON must carry).
fn commands() -> Vec<(&'static str, Vec<&'static str>, SchemaId)> {
    vec![
        ("list", vec!["list"], SchemaId::List),
        ("op", vec!["fused-attention"], SchemaId::Op),
        ("file", vec!["kernels/gemm/w4.cu"], SchemaId::File),
        ("search", vec!["marlin"], SchemaId::Search),
        ("not_found", vec!["zzzz"], SchemaId::NotFound),
        ("milestones", vec!["milestones"], SchemaId::Milestones),
        ("ladder", vec!["milestones", "attention"], SchemaId::Ladder),
        (
            "unknown_axis",
            vec!["milestones", "atention"],
            SchemaId::UnknownAxis,
        ),
        ("gate", vec!["gate"], SchemaId::Gate),
        (
            "gate_range",
            vec!["gate", "--range", "HEAD~1..HEAD"],
            SchemaId::GateRange,
        ),
        (
            "gate_unchecked",
            vec!["gate", "--range", "nosuchref..HEAD"],
            SchemaId::GateUnchecked,
        ),
        (
            "coverage",
            vec!["coverage", "--today", "2026-07-01"],
            SchemaId::Coverage,
        ),
        ("audit", vec!["audit"], SchemaId::Audit),
        (
            "render",
            vec!["render", "docs/kernels.md", "--check"],
            SchemaId::Render,
        ),
        ("hooks", vec!["hook", "install"], SchemaId::Hooks),
        ("error", vec!["coverage", "--catalog"], SchemaId::Error),
        (
            "prove",
            vec![
                "prove",
                "fused-attention",
                "--reference",
                "out/ref.f32",
                "--candidate",
                "out/cand.f32",
                "--dtype",
                "f32",
                "--shape",
                "2,2",
            ],
            SchemaId::Prove,
        ),
        (
            "init",
            vec![
                "init",
                "--dry-run",
                "--force",
                "--name",
                "contract",
                "--today",
                "2026-07-01",
            ],
            SchemaId::Init,
        ),
        ("suggest", vec!["suggest", "--uncovered"], SchemaId::Suggest),
    ]
}

/// Human output with the temp directory replaced, stderr included.
fn human(p: &Sota, run: &Run) -> String {
    let tmp = p.path().to_string_lossy().into_owned();
    let canon = std::fs::canonicalize(p.path())
        .unwrap()
        .to_string_lossy()
        .into_owned();
    format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    )
    .replace(&canon, "[repo]")
    .replace(&tmp, "[repo]")
}

#[test]
fn every_payload_is_pinned_in_both_forms() {
    let mut ids: BTreeMap<&'static str, &'static str> = BTreeMap::new();
    for (name, args, schema) in commands() {
        // Fresh fixtures: `hook install` and `render` change the tree.
        let p = fixture();
        let run = p.run(&args);
        insta::assert_snapshot!(format!("contract_{name}"), human(&p, &run));

        let p = fixture();
        let mut json_args = args.clone();
        json_args.push("--json");
        let run = p.run(&json_args);
        let text = human(&p, &run);
        let value: serde_json::Value = serde_json::from_str(
            text.split("--- stdout\n")
                .nth(1)
                .unwrap()
                .split("--- stderr\n")
                .next()
                .unwrap(),
        )
        .unwrap_or_else(|e| panic!("{name}: --json is not JSON ({e}):\n{text}"));
        assert_eq!(
            value["schema"].as_str(),
            Some(schema.id()),
            "{name}: wrong schema id"
        );
        ids.insert(schema.id(), name);
        insta::assert_json_snapshot!(format!("contract_{name}_json"), value);
        assert_eq!(
            run.code,
            p.run(&args).code,
            "{name}: --json does not change the exit code"
        );
    }
    // The proof record is a file, not stdout: pinned with its date and
    // version (which move) masked.
    let p = fixture();
    let mut args = commands().into_iter().find(|c| c.0 == "prove").unwrap().1;
    args.push("--record");
    p.run(&args);
    let text = std::fs::read_to_string(p.path().join(".sota/proofs/fused-attention.json"))
        .expect("prove --record writes the record");
    let mut record: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(record["schema"].as_str(), Some(SchemaId::Proof.id()));
    record["date"] = "[date]".into();
    record["tool"]["version"] = "[version]".into();
    insta::assert_json_snapshot!("contract_proof_record", record);
    ids.insert(SchemaId::Proof.id(), "proof record");
    // Every registered payload but the gate's own alternative forms is
    // produced above, each under its own id.
    for id in SchemaId::iter() {
        assert!(
            ids.contains_key(id.id()),
            "{} has no pinned payload",
            id.id()
        );
    }
}

#[test]
fn the_schema_command_prints_the_matrix_json_schema() {
    let p = fixture();
    let run = p.run(&["schema"]).success().stdout.clone();
    let v: serde_json::Value = serde_json::from_str(&run).unwrap();
    insta::assert_json_snapshot!("contract_schema_json", v);
}

/// The foreign formats: SARIF 2.1.0 (its shape is OASIS's, so it carries
/// `$schema`/`version` instead of a sota id) and GitHub annotations, for
/// coverage and both gate modes.
#[test]
fn sarif_and_github_forms_are_pinned() {
    for (name, args) in [
        ("coverage", vec!["coverage", "--today", "2026-07-01"]),
        ("gate", vec!["gate"]),
        ("gate_range", vec!["gate", "--range", "HEAD~1..HEAD"]),
    ] {
        let p = fixture();
        let mut sarif = args.clone();
        sarif.extend(["--format", "sarif"]);
        let run = p.run(&sarif);
        let value: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{name}: SARIF is not JSON ({e}):\n{}", run.stdout));
        assert_eq!(value["version"], "2.1.0", "{name}");
        insta::assert_json_snapshot!(format!("contract_{name}_sarif"), value);
        let mut github = args.clone();
        github.extend(["--format", "github"]);
        let run = p.run(&github);
        insta::assert_snapshot!(format!("contract_{name}_github"), human(&p, &run));
    }
}
