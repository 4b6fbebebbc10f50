//! A team's own catalog, read beside the built-in one: found by
//! `--team-catalog`, `$SOTA_CATALOG` or `[project] catalog` (confined to
//! the repository like the matrix), loaded with the catalog's checks, its
//! rows winning over built-in ones with the same slug, and every answer
//! saying which catalog gave it — through the CLI and the MCP server.

use std::process::Stdio;

use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::json;

use crate::harness::Sota;
use crate::mcp::{call, rt, structured, text};

/// A team catalog: one row replacing the built-in `fused-attention`, one
/// row of its own, one ladder of its own.
const TEAM: &str = r#"[project]
name = "acme kernels team"

[[op]]
slug = "fused-attention"
checked = 2026-11-20
title = "Fused attention (acme)"
sota = "acme-attn, our in-house FA-3 fork"
link = "https://git.acme.example/kernels/acme-attn"
route = "bind"
oracle = "naive softmax(QKᵀ/√d)V in f32 (cosine ≥ 0.999)"
check = [{ metric = "cosine", min = 0.999 }]

[[op]]
slug = "acme-fused-moe"
checked = 2026-11-20
title = "Acme fused MoE block"
sota = "acme-moe"
link = "https://git.acme.example/kernels/acme-moe"
route = "borrow"
oracle = "per-expert f32 loop"

[[ladder]]
axis = "acme-serving"
checked = 2026-11-20

[[ladder.rung]]
name = "Batch 1"
year = 2024
summary = "one request at a time"

[[ladder.rung]]
name = "Continuous"
year = 2025
summary = "iteration-level scheduling"
"#;

fn repo() -> Sota {
    Sota::new().git_init().file("team/catalog.toml", TEAM)
}

#[test]
fn the_flag_merges_a_team_catalog_and_says_which_catalog_answered() {
    let p = repo();
    let args = ["--team-catalog", "team/catalog.toml"];
    let run = p.run(&[&args[..], &["fused-attention"]].concat());
    run.success();
    assert!(
        run.stdout.contains("acme-attn, our in-house FA-3 fork"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("catalog  team catalog team/catalog.toml"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .contains("answering from the built-in catalog and the team catalog team/catalog.toml"),
        "{}",
        run.stderr
    );
    let v = p
        .run(&[&args[..], &["fused-attention", "--json"]].concat())
        .json();
    assert_eq!(v["op"]["catalog"], "team/catalog.toml");
    assert_eq!(v["op"]["defined_at"], "team/catalog.toml:5:8");
    assert_eq!(v["op"]["checked"], "2026-11-20");
    // The rest of the built-in catalog still answers, and says so.
    let gemm = p
        .run(&[&args[..], &["dense-gemm", "--json"]].concat())
        .json();
    assert_eq!(gemm["op"]["catalog"], "<built-in catalog>");
    // The team's own rows and ladders join the list and the milestones.
    let list = p.run(&[&args[..], &["list", "--json"]].concat()).json();
    let ops = list["ops"].as_array().unwrap();
    let slugs: Vec<&str> = ops.iter().map(|o| o["slug"].as_str().unwrap()).collect();
    assert!(slugs.contains(&"acme-fused-moe"), "{slugs:?}");
    assert_eq!(
        slugs.iter().filter(|s| **s == "fused-attention").count(),
        1,
        "the team row replaces the built-in one"
    );
    let ladder = p.run(&[&args[..], &["milestones", "acme-serving"]].concat());
    ladder.success();
    assert!(
        ladder.stdout.contains("L2  Continuous (2025)"),
        "{}",
        ladder.stdout
    );
    // `--catalog` reads it too, beside a project's matrix.
    let p = p.file("sota.toml", crate::harness::SMALL);
    let asked = p.run(&[&args[..], &["--catalog", "acme-fused-moe", "--json"]].concat());
    asked.success();
    assert_eq!(asked.json()["op"]["catalog"], "team/catalog.toml");
}

#[test]
fn the_environment_names_one_and_the_flag_wins() {
    let other = TEAM.replace("acme-attn, our in-house FA-3 fork", "from the environment");
    let p = repo()
        .file("env/catalog.toml", &other)
        .env("SOTA_CATALOG", "env/catalog.toml");
    let v = p.run(&["fused-attention", "--json"]).json();
    assert_eq!(v["op"]["sota"], "from the environment");
    assert_eq!(v["op"]["catalog"], "env/catalog.toml");
    let flag = p
        .run(&[
            "--team-catalog",
            "team/catalog.toml",
            "fused-attention",
            "--json",
        ])
        .json();
    assert_eq!(flag["op"]["catalog"], "team/catalog.toml");
}

#[test]
fn a_team_catalog_gets_the_catalogs_checks_with_located_errors() {
    // A project binding, a row without `checked`, a control character.
    let bad = TEAM
        .replacen("checked = 2026-11-20\n", "", 1)
        .replace(
            "route = \"borrow\"",
            "route = \"borrow\"\nfiles = [\"x.cu\"]",
        )
        .replace("acme-moe\"\nlink", "acme-moe\u{202e}\"\nlink");
    let p = Sota::new().file("team.toml", &bad);
    let run = p.run(&["--team-catalog", "team.toml", "list"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    for want in [
        "team.toml:4:1",
        "missing `checked` in [[op]] `fused-attention`",
        "the catalog cannot bind `files`",
        "sota::control-char",
    ] {
        assert!(run.stderr.contains(want), "{want}: {}", run.stderr);
    }
    let missing = p.run(&["--team-catalog", "nope.toml", "list"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("nope.toml"), "{}", missing.stderr);
}

/// A team ladder's `ops` name ops of the merged catalog (the built-in one's
/// or the team's own); a name that is neither is a located problem, with
/// the nearest slug, never a ladder `init` could silently never draft.
#[test]
fn a_team_ladder_naming_no_op_is_a_located_error() {
    let ok = TEAM.replace(
        "axis = \"acme-serving\"\nchecked = 2026-11-20\n",
        "axis = \"acme-serving\"\nchecked = 2026-11-20\nops = [\"acme-fused-moe\", \"decode-attention\"]\n",
    );
    let p = Sota::new().file("team.toml", &ok);
    p.run(&["--team-catalog", "team.toml", "list"]).success();

    let bad = ok.replace("\"decode-attention\"]", "\"decode-atention\"]");
    let p = Sota::new().file("team.toml", &bad);
    let run = p.run(&["--team-catalog", "team.toml", "list"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let line = bad
        .lines()
        .position(|l| l.starts_with("ops = "))
        .expect("the ops line")
        + 1;
    for want in [
        format!("team.toml:{line}:"),
        "sota::unknown-ladder-op".to_owned(),
        "`decode-atention`".to_owned(),
        "did you mean `decode-attention`?".to_owned(),
    ] {
        assert!(run.stderr.contains(&want), "{want}: {}", run.stderr);
    }
}

/// `[project] catalog`: read by the commands that load the project's
/// matrix (suggest here), with the team's text in the rows it proposes.
#[test]
fn the_matrix_key_feeds_suggest() {
    let p = repo()
        .file(
            "sota.toml",
            "[project]\nname = \"demo\"\ncatalog = \"team/catalog.toml\"\n\n[kernels]\ninclude = [\"kernels/**\"]\n",
        )
        .file(
            "kernels/attn/flash_fwd.cu",
            "__global__ void flash_attn_fwd() { float m = -INFINITY; /* online softmax */ }\n",
        );
    p.git(&["add", "-A"]).success();
    let run = p.run(&["suggest", "kernels/attn/flash_fwd.cu", "--json"]);
    run.success();
    let v = run.json();
    assert_eq!(
        v["suggestions"][0]["proposal"]["op"], "fused-attention",
        "{v}"
    );
    assert_eq!(
        v["suggestions"][0]["proposal"]["title"],
        "Fused attention (acme)"
    );
    let row = v["edits"][0]["text"].as_str().unwrap();
    assert!(
        row.contains("sota = \"acme-attn, our in-house FA-3 fork\"\nlink = \"https://git.acme.example/kernels/acme-attn\""),
        "{row}"
    );
}

/// The key's path obeys the matrix's confinement: a symlink leading out of
/// the repository is refused (unless `--allow-outside-repo`), and a FIFO is
/// refused without blocking.
#[test]
fn the_matrix_key_is_confined_to_the_repository() {
    let outside = Sota::new().file("catalog.toml", TEAM);
    let p = Sota::new()
        .git_init()
        .file(
            "sota.toml",
            "[project]\nname = \"demo\"\ncatalog = \"team.toml\"\n\n[kernels]\ninclude = [\"kernels/**\"]\n",
        )
        .file("kernels/attn/flash_fwd.cu", "__global__ void flash_attn_fwd() {}\n");
    p.git(&["add", "-A"]).success();
    std::os::unix::fs::symlink(
        outside.path().join("catalog.toml"),
        p.path().join("team.toml"),
    )
    .unwrap();
    let run = p.run(&["suggest", "kernels/attn/flash_fwd.cu"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("outside"), "{}", run.stderr);
    let allowed = p.run(&[
        "--allow-outside-repo",
        "suggest",
        "kernels/attn/flash_fwd.cu",
        "--json",
    ]);
    allowed.success();

    std::fs::remove_file(p.path().join("team.toml")).unwrap();
    let fifo = p.path().join("team.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let started = std::time::Instant::now();
    let run = p.run(&["suggest", "kernels/attn/flash_fwd.cu"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("team.toml"), "{}", run.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "blocked on a FIFO"
    );
}

#[test]
fn the_mcp_server_reads_it_and_says_which_catalog_answered() {
    let p = repo();
    rt().block_on(async {
        let mut cmd = crate::mcp::server_command(p.path());
        cmd.args(["--team-catalog", "team/catalog.toml"]);
        let (transport, _stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn sota mcp");
        let c = ().serve(transport).await.expect("initialize");
        let r = call(&c, "lookup", json!({ "query": "fused-attention" })).await;
        assert_eq!(structured(&r)["op"]["catalog"], "team/catalog.toml");
        assert!(
            text(&r).contains("team catalog team/catalog.toml"),
            "{}",
            text(&r)
        );
        let r = call(&c, "catalog_search", json!({ "query": "acme moe" })).await;
        let hits = structured(&r).to_string();
        assert!(hits.contains("acme-fused-moe"), "{hits}");
        c.cancel().await.unwrap();
    });
}

#[test]
fn init_drafts_from_the_team_catalog() {
    let p = repo().file(
        "kernels/attn/flash_fwd.cu",
        "__global__ void flash_attn_fwd() { float m = -INFINITY; /* online softmax */ }\n",
    );
    p.git(&["add", "-A"]).success();
    let run = p.run(&[
        "--team-catalog",
        "team/catalog.toml",
        "init",
        "--dry-run",
        "--today",
        "2026-12-02",
    ]);
    run.success();
    assert!(
        run.stdout
            .contains("sota = \"acme-attn, our in-house FA-3 fork\""),
        "{}",
        run.stdout
    );
}
