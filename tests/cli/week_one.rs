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

/// Stage everything and commit as of `when` (author and committer date).
fn dated_commit(p: &Sota, when: &str, message: &str) {
    p.git(&["add", "-A"]).success();
    p.clone_env("GIT_COMMITTER_DATE", when)
        .git(&["commit", "-q", "--no-verify", "--date", when, "-m", message])
        .success();
}

/// Two kernel commits before the matrix existed, the matrix added under
/// another name and then renamed, then two kernel commits after: one
/// stamped (February), one not (April), nothing in March.
fn adopted_late() -> (Sota, String) {
    let p = Sota::new()
        .git_init()
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n");
    dated_commit(&p, "2025-01-15T10:00:00Z", "first kernel");
    put(&p, "kernels/attn/flash.cu", "// 2\n");
    dated_commit(&p, "2025-03-10T10:00:00Z", "tune kernel");
    put(&p, "prior-art.toml", SMALL);
    dated_commit(&p, "2025-12-01T10:00:00Z", "adopt sota");
    let added = p.git(&["rev-parse", "HEAD"]).stdout.trim().to_owned();
    p.git(&["mv", "prior-art.toml", "sota.toml"]).success();
    dated_commit(&p, "2026-01-05T10:00:00Z", "rename the matrix");
    put(&p, "kernels/attn/flash.cu", "// 3\n");
    dated_commit(
        &p,
        "2026-02-03T10:00:00Z",
        "faster attention\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention)",
    );
    put(&p, "kernels/attn/flash.cu", "// 4\n");
    dated_commit(&p, "2026-04-20T10:00:00Z", "unstamped attention change");
    (p, added)
}

#[test]
fn audit_counts_history_since_adoption_and_says_so() {
    let (p, added) = adopted_late();
    let v = p.run(&["audit", "--json"]).json();
    assert_eq!(v["summary"]["commits"], 2, "{v}");
    assert_eq!(v["summary"]["stamped"], 1, "{v}");
    assert_eq!(v["start"]["kind"], "matrix-added", "{v}");
    assert_eq!(
        v["start"]["date"], "2025-12-01",
        "renames are followed: {v}"
    );
    assert_eq!(v["start"]["commit"], added.as_str(), "{v}");

    let human = p.run(&["audit"]);
    human.success();
    let header: Vec<&str> = human.stdout.lines().take(2).collect();
    assert!(
        header[1].starts_with("history since adoption on 2025-12-01, when ")
            && header[1].contains("added sota.toml; `--all` reads everything"),
        "{header:?}"
    );

    let all = p.run(&["audit", "--all", "--json"]).json();
    assert_eq!(all["summary"]["commits"], 4, "{all}");
    assert_eq!(all["start"]["kind"], "all");
    assert!(p
        .run(&["audit", "--all"])
        .stdout
        .contains("all history (--all)"));

    // A date the team records wins over the commit.
    let with_date = SMALL.replace(
        "reviewed = 2026-06-26",
        "reviewed = 2026-06-26\nadopted = 2026-03-01",
    );
    put(&p, "sota.toml", &with_date);
    let v = p.run(&["audit", "--json"]).json();
    assert_eq!(v["summary"]["commits"], 1, "{v}");
    assert_eq!(v["start"]["kind"], "adopted");
    assert_eq!(v["start"]["date"], "2026-03-01");
    assert!(p
        .run(&["audit"])
        .stdout
        .contains("history since adoption on 2026-03-01 (`[project] adopted`)"));
    // An explicit --since is taken as given.
    let v = p.run(&["audit", "--since", "2025-01-01", "--json"]).json();
    assert_eq!(v["summary"]["commits"], 4, "{v}");
    assert_eq!(v["start"]["kind"], "since");
}

#[test]
fn adopted_is_a_checked_matrix_key_in_the_schema() {
    let p = Sota::new().file(
        "sota.toml",
        "[project]\nname = \"x\"\nadopted = \"next week\"\n",
    );
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("sota.toml:3:"), "{}", run.stderr);
    assert!(run.stderr.contains("adopted"), "{}", run.stderr);
    let schema = p.run(&["schema"]).json();
    assert_eq!(
        schema["properties"]["project"]["properties"]["adopted"]["format"],
        "date"
    );
}

#[test]
fn the_report_counts_from_adoption_and_draws_month_gaps_as_gaps() {
    let (p, _) = adopted_late();
    p.run(&["report", "--html", "r.html"]).success();
    let html = std::fs::read_to_string(p.path().join("r.html")).unwrap();
    assert!(
        html.contains("Counted: history since adoption on 2025-12-01"),
        "the page says where history starts"
    );
    assert!(html.contains("of 2 kernel commits"), "only after adoption");
    assert_eq!(html.matches("<g class=\"bar\">").count(), 2);
    assert!(
        html.contains("<g class=\"gap\"><title>2026-03: no kernel commits</title>"),
        "March is a gap, not a joined bar"
    );
    assert_eq!(html.matches("<g class=\"gap\">").count(), 1);
}

#[test]
fn report_today_reproduces_a_past_report() {
    let (p, _) = adopted_late();
    p.run(&["report", "--html", "r.html", "--today", "2026-03-01"])
        .success();
    let html = std::fs::read_to_string(p.path().join("r.html")).unwrap();
    assert!(html.contains("as of 2026-03-01"), "the date used is shown");
    assert!(
        html.contains("of 1 kernel commits"),
        "commits after the date are left out"
    );
    let again = {
        p.run(&["report", "--html", "r2.html", "--today", "2026-03-01"])
            .success();
        std::fs::read_to_string(p.path().join("r2.html")).unwrap()
    };
    assert_eq!(html, again, "byte-identical for the same date");
    let bad = p.run(&["report", "--html", "r.html", "--today", "March"]);
    assert_eq!(bad.code, 2);
}

/// Write a file in the work tree (parents created).
fn put(p: &Sota, rel: &str, text: &str) {
    let full = p.path().join(rel);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

#[test]
fn readme_figures_are_rendered_and_checked_by_the_tool() {
    let readme = std::fs::read_to_string(crate::harness::repo_root().join("README.md")).unwrap();
    let p = Sota::new().file("README.md", &readme);
    let run = p.run(&["--catalog", "render", "README.md", "--check"]);
    assert_eq!(run.code, 0, "README.md is current: {run:?}");
    assert!(readme.contains("<!-- sota:counts -->\nThe built-in catalog holds **"));
    assert!(readme.contains("<!-- sota:mcp-tools -->\nThe MCP server's "));
    assert!(readme.contains("`ops_for_paths`"));

    // A stale figure is caught, and rendering puts the tool's back.
    let start = readme.find("The built-in catalog holds **").unwrap();
    let line_end = start + readme[start..].find('\n').unwrap();
    let stale = format!(
        "{}The built-in catalog holds **13** ML-kernel operations and **5** milestone ladders.{}",
        &readme[..start],
        &readme[line_end..]
    );
    let p = Sota::new().file("README.md", &stale);
    let check = p.run(&["--catalog", "render", "README.md", "--check"]);
    assert_eq!(check.code, 1, "{check:?}");
    assert!(
        format!("{}{}", check.stdout, check.stderr).contains("counts"),
        "{check:?}"
    );
    p.run(&["--catalog", "render", "README.md"]).success();
    assert_eq!(
        std::fs::read_to_string(p.path().join("README.md")).unwrap(),
        readme
    );
}
