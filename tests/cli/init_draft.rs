//! What `sota init` drafts beyond the ops (issue 30, item 5): each op's
//! `check` list from the catalog, so `sota prove SLUG` judges a candidate
//! right after `init`, and the catalog ladders whose `ops` name a drafted op,
//! so `sota milestones` has something to say about a fresh draft.

use crate::harness::Sota;
use crate::prove_local::{failed_metrics, prove_json, write_attention_tensors};

const TODAY: &str = "2026-12-02";

/// A repository with an attention kernel, a norm and some host code.
fn attention_repo() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("README.md", "# attn\n")
        .file(
            "kernels/attn/flash_fwd.cu",
            "__global__ void flash_fwd() {}\n",
        )
        .file(
            "kernels/attn/flash_bwd.cu",
            "__global__ void flash_bwd() {}\n",
        )
        .file("kernels/rms_norm.cu", "__global__ void rms_norm() {}\n")
        .file("src/main.cpp", "int main() { return 0; }\n");
    p.git(&["add", "-A"]).success();
    p
}

fn init(p: &Sota) -> String {
    p.run(&["init", "--today", TODAY, "--name", "attn"])
        .success();
    std::fs::read_to_string(p.path().join("sota.toml")).unwrap()
}

#[test]
fn prove_runs_on_a_fresh_draft_and_fails_the_planted_attention_bugs() {
    let p = attention_repo();
    let text = init(&p);
    // The check list is a key of the op, not a comment; the oracle stays a
    // suggestion for the team (missing = debt).
    assert!(text.contains("\ncheck = [\n"), "{text}");
    assert!(!text.contains("\noracle ="), "{text}");
    write_attention_tensors(&p);

    let (code, good) = prove_json(&p, "good.npy");
    assert_eq!(code, 0, "a correct f32 kernel passes: {good:#}");
    assert_eq!(
        good["checks_from"],
        serde_json::json!({"kind": "op", "op": "fused-attention"})
    );

    // Last query row of every head never written: the whole-tensor cosine
    // lets it through, the drafted row check does not.
    let (code, bug) = prove_json(&p, "row_bug.npy");
    assert_eq!(code, 1, "{bug:#}");
    assert!(bug["tensors"][0]["metrics"]["cosine"].as_f64().unwrap() > 0.999);
    assert!(
        failed_metrics(&bug).contains(&"row-cosine".to_owned()),
        "{bug:#}"
    );

    // One 16-row tile scaled by 1.5: only the f32 tile bound catches it.
    let (code, bug) = prove_json(&p, "tile_bug.npy");
    assert_eq!(code, 1, "{bug:#}");
    assert_eq!(failed_metrics(&bug), ["tile-rel-l2"]);

    // bf16 candidates are judged by the bf16 entry the draft carries.
    let (code, good) = prove_json(&p, "good_bf16.safetensors");
    assert_eq!(code, 0, "{good:#}");
    let (code, bug) = prove_json(&p, "tile_bug_bf16.safetensors");
    assert_eq!(code, 1, "{bug:#}");
    assert_eq!(failed_metrics(&bug), ["tile-rel-l2"]);
}

#[test]
fn a_fresh_draft_has_the_ladders_its_ops_rank() {
    let p = attention_repo();
    let text = init(&p);
    assert!(
        text.contains("# From the catalog, for this draft's `fused-attention`.\n"),
        "{text}"
    );
    // Nothing claimed: the team sets `reached` and its witness.
    assert!(!text.contains("\nreached ="), "{text}");

    let run = p.run(&["milestones"]);
    run.success();
    assert!(!run.stdout.contains("no ladders"), "{}", run.stdout);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("attention ") && l.contains("L1 FlashAttention-1 (2022)")),
        "{}",
        run.stdout
    );
    let run = p.run(&["milestones", "attention", "--json"]);
    run.success();
    let rungs = run.json()["rungs"].as_array().unwrap().len();
    assert_eq!(rungs, 6, "{}", run.stdout);

    // The draft loads and scores with no debt from its ladders.
    let cov = p.run(&["coverage", "--today", TODAY, "--json"]);
    cov.success();
    let kpi = |name: &str| {
        cov.json()["kpis"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == name)
            .unwrap()["debt"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(kpi("ladder_witness"), 0);
    // Each drafted check list is proven by nothing yet: soft debt, one per op.
    let ops = text.matches("\n[[op]]\n").count();
    assert_eq!(kpi("proven") as usize, ops);

    // The plan says which op brought each ladder in.
    let run = p.run(&[
        "init",
        "--today",
        TODAY,
        "--name",
        "attn",
        "--dry-run",
        "--json",
    ]);
    run.success();
    let ladders = run.json()["ladders"].clone();
    assert_eq!(
        ladders[0],
        serde_json::json!({"axis": "attention", "brought_by": ["fused-attention"]})
    );
    let axes: Vec<&str> = ladders
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["axis"].as_str().unwrap())
        .collect();
    assert_eq!(axes, ["attention", "attention-heads"]);
}

#[test]
fn no_ladder_is_drafted_for_ops_no_ladder_ranks() {
    let p = Sota::new()
        .git_init()
        .file("kernels/rms_norm.cu", "__global__ void rms_norm() {}\n");
    p.git(&["add", "-A"]).success();
    let text = init(&p);
    assert!(text.contains("slug = \"normalization\""), "{text}");
    assert!(!text.contains("[[ladder]]"), "{text}");
    let run = p.run(&["milestones"]);
    assert!(
        run.stdout.contains("no ladders in the matrix yet"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_draft_is_the_same_every_time() {
    let p = attention_repo();
    let args = ["init", "--today", TODAY, "--name", "attn", "--dry-run"];
    let first = p.run(&args);
    first.success();
    for _ in 0..3 {
        assert_eq!(p.run(&args).stdout, first.stdout);
    }
}

#[test]
fn init_help_says_what_the_draft_holds() {
    let run = Sota::new().run(&["init", "--help"]);
    run.success();
    let text = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("with the catalog's `check` list, so `sota prove OP` runs on the draft"),
        "{text}"
    );
    assert!(
        text.contains("the catalog ladders that rank those ops, no rung claimed"),
        "{text}"
    );
}

#[test]
fn unplaced_kernels_sharing_a_name_are_drafted_as_one_family_for_the_team() {
    let p = Sota::new()
        .git_init()
        .file("attn/flash_fwd.cu", "__global__ void flash_fwd() {}\n")
        .file("attn/flash_seal.cu", "__global__ void seal() {}\n")
        .file("kernels/kelp_grow.cu", "__global__ void grow() {}\n")
        .file("kernels/kelp_sway.cu", "__global__ void sway() {}\n")
        .file("kernels/walrus.cu", "__global__ void walrus() {}\n")
        .file("kernels/seal_dive.cu", "__global__ void dive() {}\n")
        .file("kernels/seal_bark.cu", "__global__ void bark() {}\n");
    p.git(&["add", "-A"]).success();
    let run = p.run(&["init", "--today", TODAY, "--name", "sea"]);
    run.success();
    assert!(
        run.stdout
            .contains("2 files in 1 family of this tree's own")
            && run.stdout.contains("x-kelp (2)"),
        "{}",
        run.stdout
    );
    let text = std::fs::read_to_string(p.path().join("sota.toml")).unwrap();
    // One custom op for the two kelp files, said to be a proposal, with no
    // reference invented: link, route and oracle are left as debt.
    let family = &text[text.find("slug = \"x-kelp\"").expect(&text)..];
    let family = &family[..family.find("\n\n").unwrap()];
    assert!(family.contains("files = [\"kernels/kelp_*\"]"), "{family}");
    assert!(!family.contains("link ="), "{family}");
    assert!(text.contains("# Families of this tree's own"), "{text}");
    // A file alone keeps no family; `seal` is also the name of a file an op
    // took (`attn/flash_seal.cu` is attention's), so the two `seal_` files
    // are no family either.
    let json = p
        .run(&["init", "--dry-run", "--json", "--today", TODAY])
        .json();
    let op_of = |path: &str| entry(&json["kernels"], "path", path)["op"].clone();
    assert_eq!(op_of("kernels/kelp_sway.cu"), "x-kelp");
    let family_json = entry(&json["ops"], "slug", "x-kelp");
    assert_eq!(family_json["family"], "kelp", "{family_json}");
    assert_eq!(family_json["check_entries"], 0, "{family_json}");
    assert_eq!(op_of("attn/flash_seal.cu"), "fused-attention");
    assert!(op_of("kernels/walrus.cu").is_null());
    assert!(op_of("kernels/seal_dive.cu").is_null());
    assert_eq!(
        json["unclassified"],
        serde_json::json!([
            "kernels/seal_bark.cu",
            "kernels/seal_dive.cu",
            "kernels/walrus.cu"
        ])
    );
    // The draft loads, a lookup of a family file answers with the family,
    // and the scorecard counts its missing link as hard debt.
    let lookup = p.run(&["kernels/kelp_grow.cu", "--json"]);
    lookup.success();
    assert!(lookup.stdout.contains("\"x-kelp\""), "{}", lookup.stdout);
    let cov = p.run(&["coverage", "--json", "--today", TODAY]).json();
    let has_link = entry(&cov["kpis"], "name", "has_link");
    assert_eq!(has_link["items"][0]["owner"], "x-kelp", "{has_link}");
}

/// The element of a JSON array whose `key` is `value`.
#[track_caller]
fn entry<'a>(array: &'a serde_json::Value, key: &str, value: &str) -> &'a serde_json::Value {
    array
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e[key] == value)
        .unwrap_or_else(|| panic!("no {key} = {value} in {array}"))
}
