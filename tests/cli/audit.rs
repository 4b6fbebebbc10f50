//! `sota audit` over real histories: counts, placeholders, merges, root
//! commits, shallow clones, and a repository with no commits.

use crate::harness::{Sota, SMALL};

fn history() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", SMALL)
        .file("kernels/attn/flash.cu", "0\n");
    p.commit("root commit touches a kernel");
    let write = |path: &str, text: &str| std::fs::write(p.path().join(path), text).unwrap();
    write("kernels/attn/flash.cu", "1\n");
    p.commit("Tune attention\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention)");
    write("kernels/attn/flash.cu", "2\n");
    p.commit("Tweak attention\n\nPrior-art: n/a");
    write("README.md", "docs\n");
    p.commit("Docs only");
    p.git(&["checkout", "-q", "-b", "side"]).success();
    std::fs::create_dir_all(p.path().join("kernels/gemm")).unwrap();
    write("kernels/gemm/w4_int4.cu", "side\n");
    p.commit("Add int4 gemm\n\nSigned-off-by: Ada <ada@example.org>\nPrior-art: Marlin (IST-DASLab/marlin); oracle cosine ≥ 0.995");
    p.git(&["checkout", "-q", "main"]).success();
    write("kernels/attn/flash.cu", "3\n");
    p.commit("Unstamped attention change");
    p.git(&["merge", "-q", "--no-ff", "side", "-m", "Merge side"])
        .success();
    p
}

#[test]
fn counts_match_the_history_and_merges_do_not_count() {
    let p = history();
    let v = p.run(&["audit", "--json"]).json();
    assert_eq!(v["schema"], "sota.audit/v1");
    assert_eq!(v["scanned"], 7, "all commits read, the merge included");
    let summary = &v["summary"];
    assert_eq!(
        (summary["commits"].as_u64(), summary["stamped"].as_u64()),
        (Some(5), Some(2)),
        "{v:#}"
    );
    assert_eq!(
        (summary["placeholder"].as_u64(), summary["missing"].as_u64()),
        (Some(1), Some(2))
    );
    let subjects: Vec<&str> = v["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    assert!(
        !subjects.contains(&"Merge side") && !subjects.contains(&"Docs only"),
        "{subjects:?}"
    );
    assert!(subjects.contains(&"root commit touches a kernel"));
    let placeholder = v["commits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["subject"] == "Tweak attention")
        .unwrap();
    assert_eq!(placeholder["stamp"], "placeholder");
    assert_eq!(placeholder["trailer"], "n/a");
    let per_op: Vec<(&str, u64)> = v["per_op"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["key"].as_str().unwrap(), t["commits"].as_u64().unwrap()))
        .collect();
    assert_eq!(per_op, [("fused-attention", 4), ("int4-gemm", 1)]);

    // An independent count over git log: commits whose file list hits kernels/.
    let log = p.git(&["log", "--no-renames", "--name-only", "--format=%x1e%H"]);
    let touching = log
        .stdout
        .split('\u{1e}')
        .filter(|r| {
            r.lines()
                .skip(1)
                .any(|l| l.starts_with("kernels/attn/") || l.starts_with("kernels/gemm/"))
        })
        .count();
    assert_eq!(touching, 5);

    let human = p.run(&["audit"]);
    human.success();
    assert!(
        human.stderr.is_empty(),
        "no progress bar when stderr is not a terminal: {}",
        human.stderr
    );
    assert!(human.stdout.contains("compliance 40%"), "{}", human.stdout);
    assert!(human
        .stdout
        .contains("most recent kernel commits without a valid trailer"));
}

#[test]
fn since_max_count_and_first_parent_narrow_the_walk() {
    let p = history();
    let first_parent = p.run(&["audit", "--first-parent", "--json"]).json();
    assert_eq!(
        first_parent["summary"]["commits"], 4,
        "the side branch's commit is not on the first-parent line"
    );
    let last_two = p.run(&["audit", "--max-count", "2", "--json"]).json();
    assert_eq!(last_two["scanned"], 2);
    let range = p.run(&["audit", "HEAD~1..HEAD", "--json"]).json();
    assert_eq!(range["range"], "HEAD~1..HEAD");
    let future = p.run(&["audit", "--since", "2030-01-01", "--json"]).json();
    assert_eq!(future["scanned"], 0);
}

#[test]
fn a_repository_with_no_commits_and_a_shallow_clone_work() {
    let empty = Sota::new().git_init().file("sota.toml", SMALL);
    let v = empty.run(&["audit", "--json"]);
    v.success();
    assert_eq!(v.json()["scanned"], 0);

    let full = history();
    let url = format!("file://{}", full.path().display());
    let shallow = Sota::new();
    shallow
        .git(&["clone", "-q", "--depth", "2", &url, "clone"])
        .success();
    let run = shallow.run_in(&shallow.path().join("clone"), &["audit"]);
    run.success();
    assert!(run.stdout.contains("history is cut"), "{}", run.stdout);
    let v = shallow
        .run_in(&shallow.path().join("clone"), &["audit", "--json"])
        .json();
    assert_eq!(v["shallow"], true);
}
