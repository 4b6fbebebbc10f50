//! Reports where people look: `--format github` annotations (line numbers,
//! the per-type cap, escaping), the Markdown job summary appended to
//! `$GITHUB_STEP_SUMMARY`, SARIF 2.1.0 validated against the official
//! schema, and the shallow-clone failure the GitHub Action relies on.

use crate::harness::Sota;

const MATRIX: &str = r#"[project]
name = "reports"
reviewed = 2026-06-26

[kernels]
include = ["kernels/**"]

[[op]]
slug = "fused-attention"
title = "Fused attention"
files = ["kernels/attn/"]
at = ["kernels/attn/flash.cu#flash_fwd"]
sota = "FlashAttention-2"
link = "https://github.com/Dao-AILab/flash-attention"
route = "stay-minimal"
oracle = "naive attention, cosine >= 0.999"

[[op]]
slug = "int4-gemm"
title = "INT4 GEMM"
files = ["kernels/gemm/*.cu"]
at = ["kernels/gemm/w4.cu"]
sota = "Marlin"
"#;

/// A repository whose scorecard has hard debt: `int4-gemm` lacks link,
/// route and oracle (matrix lines), and `uncovered` kernel files no op
/// covers.
fn repo(uncovered: &[&str]) -> Sota {
    let mut p = Sota::new()
        .git_init()
        .file("sota.toml", MATRIX)
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n")
        .file("kernels/gemm/w4.cu", "// w4\n");
    for name in uncovered {
        p = p.file(&format!("kernels/misc/{name}"), "// uncovered\n");
    }
    p.commit("initial");
    p
}

fn lines_starting<'a>(out: &'a str, prefix: &str) -> Vec<&'a str> {
    out.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn coverage_annotations_point_at_the_matrix_row_and_the_uncovered_file() {
    let p = repo(&["top_k.cu"]);
    let run = p.run(&["coverage", "--format", "github"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let errors = lines_starting(&run.stdout, "::error ");
    // int4-gemm's slug value (line, column 8): link, oracle, route.
    let slug_line = MATRIX
        .lines()
        .position(|l| l == "slug = \"int4-gemm\"")
        .unwrap()
        + 1;
    for kpi in ["has_link", "has_oracle", "has_route"] {
        let want = format!("::error file=sota.toml,line={slug_line},col=8,title=sota coverage%3A {kpi}::int4-gemm: ");
        assert!(
            errors.iter().any(|l| l.starts_with(&want)),
            "no {kpi} annotation on line {slug_line}:\n{}",
            run.stdout
        );
    }
    assert!(
        errors.iter().any(|l| l.starts_with(
            "::error file=kernels/misc/top_k.cu,title=sota coverage%3A tree_coverage::"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("::notice title=sota coverage::grade C · sota_debt 5 · hard 4\n"),
        "{}",
        run.stdout
    );
    // --check fails on hard debt in every format.
    assert_eq!(
        p.run(&["coverage", "--check", "--format", "github"]).code,
        1
    );
}

#[test]
fn at_most_ten_annotations_per_type_then_one_notice_with_the_rest() {
    let names: Vec<String> = (0..14).map(|i| format!("k{i:02}.cu")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let p = repo(&refs);
    let run = p.run(&["coverage", "--format", "github"]);
    let errors = lines_starting(&run.stdout, "::error ");
    assert_eq!(errors.len(), 10, "{}", run.stdout);
    // 14 uncovered + has_link + has_oracle + has_route = 17 hard items.
    let notices = lines_starting(&run.stdout, "::notice title=sota::");
    assert_eq!(
        notices,
        ["::notice title=sota::7 more error annotations not shown (GitHub shows 10 per type per step): run `sota coverage` (or `sota coverage --json`) for the full list"]
    );
}

#[test]
fn annotation_values_are_escaped_per_the_workflow_command_rules() {
    let p = repo(&["a,b:c%d\ne.cu"]);
    let run = p.run(&["coverage", "--format", "github"]);
    let line = lines_starting(&run.stdout, "::error file=\"kernels/misc/")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{}", run.stdout))
        .to_owned();
    // The newline is made visible by quoting (never a raw line break that
    // would end the command); `,` `:` `%` are percent-escaped.
    assert!(
        line.starts_with("::error file=\"kernels/misc/a%2Cb%3Ac%25d\\ne.cu\",title="),
        "{line}"
    );
    assert_eq!(
        run.stdout.lines().filter(|l| l.starts_with("e.cu")).count(),
        0
    );
}

#[test]
fn the_gate_annotates_the_first_changed_line() {
    let p = repo(&[]);
    let body: String = (1..=20).map(|i| format!("// line {i}\n")).collect();
    std::fs::write(p.path().join("kernels/attn/flash.cu"), &body).unwrap();
    p.commit("twenty lines");
    let changed = body.replace("// line 14\n", "// line 14, faster\n");
    std::fs::write(p.path().join("kernels/attn/flash.cu"), changed).unwrap();
    p.git(&["add", "-A"]).success();
    let run = p.run(&["gate", "--format", "github"]);
    assert!(
        run.stdout.starts_with(
            "::warning file=kernels/attn/flash.cu,line=14,title=PRIOR_ART fused-attention::"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn step_summary_is_appended_by_coverage_gate_and_audit() {
    let p = repo(&["top_k.cu"]);
    std::fs::write(p.path().join("kernels/gemm/w4.cu"), "// w4 v2\n").unwrap();
    p.commit("faster w4 | <b>bold</b>");
    let summary = p.path().join("summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let s = summary.to_str().unwrap();
    let cov = p
        .clone_env("GITHUB_STEP_SUMMARY", s)
        .run(&["coverage", "--today", "2026-07-01"]);
    assert_eq!(cov.code, 0, "{}", cov.stderr);
    let gate = p.clone_env("GITHUB_STEP_SUMMARY", s).run(&[
        "gate",
        "--range",
        "HEAD~1..HEAD",
        "--format",
        "github",
    ]);
    assert_eq!(gate.code, 0, "{}", gate.stderr);
    let audit = p.clone_env("GITHUB_STEP_SUMMARY", s).run(&["audit"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("# earlier step\n## sota coverage — reports\n"),
        "{md}"
    );
    assert!(
        md.contains("**Grade C** · sota_debt **4** · hard debt **4**"),
        "{md}"
    );
    assert!(
        md.contains("| ❌ | `has_link` | complete | hard | 1 | 1 of 2 ops |"),
        "{md}"
    );
    assert!(
        md.contains("| `tree_coverage` |  | kernels/misc/top\\_k.cu |"),
        "{md}"
    );
    assert!(md.contains("## sota gate — HEAD\\~1..HEAD"), "{md}");
    // The subject cannot open a column or inject HTML.
    assert!(md.contains("faster w4 \\| &lt;b&gt;bold&lt;/b&gt;"), "{md}");
    assert!(md.contains("## sota audit — reports"), "{md}");
    assert!(md.contains("**Compliance 0%**"), "{md}");
    assert!(md.contains("### By month"), "{md}");
    insta::assert_snapshot!("step_summary", md);
}

#[test]
fn a_shallow_clone_is_a_clear_failure_under_strict() {
    let p = repo(&[]);
    for i in 0..3 {
        std::fs::write(p.path().join("kernels/gemm/w4.cu"), format!("// v{i}\n")).unwrap();
        p.commit(&format!("w4 v{i}"));
    }
    let src = format!("file://{}", p.path().display());
    let clone = p.path().join("shallow");
    p.git(&["clone", "-q", "--depth", "1", &src, clone.to_str().unwrap()])
        .success();
    let run = p.run_in(
        &clone,
        &[
            "gate",
            "--range",
            "HEAD~2..HEAD",
            "--strict",
            "--format",
            "github",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("fetch-depth: 0"), "{}", run.stderr);
    // On the PR page too: an error annotation and the job summary.
    assert!(
        run.stdout
            .starts_with("::error title=sota gate::could not check: ")
            && run.stdout.contains("%0Afix: the clone is shallow")
            && run.stdout.contains("`fetch-depth: 0` in actions/checkout"),
        "{}",
        run.stdout
    );
    // As SARIF: a valid log whose invocation did not succeed, not an empty file.
    let run = p.run_in(
        &clone,
        &[
            "gate",
            "--range",
            "HEAD~2..HEAD",
            "--strict",
            "--format",
            "sarif",
        ],
    );
    assert_eq!(run.code, 2);
    let v = assert_valid_sarif(&run.stdout);
    assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], false);
    assert!(
        v["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("fetch-depth: 0")
    );
    let summary = p.path().join("shallow-summary.md");
    let s = summary.to_str().unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sota"));
    cmd.args(["gate", "--range", "HEAD~2..HEAD", "--strict"])
        .current_dir(&clone)
        .env("GITHUB_STEP_SUMMARY", s)
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS");
    assert_eq!(cmd.status().unwrap().code(), Some(2));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("❌ **Could not check**"), "{md}");
    assert!(md.contains("fetch-depth: 0"), "{md}");
}

#[test]
fn format_is_shared_and_checked_against_the_command() {
    let p = repo(&[]);
    let run = p.run(&["list", "--format", "github"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("has no --format github: use one of human, json"),
        "{}",
        run.stderr
    );
    let run = p.run(&["coverage", "--format", "short"]);
    assert_eq!(run.code, 2);
    let run = p.run(&["coverage", "--json", "--format", "github"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("keep one"), "{}", run.stderr);
    // --json and --format json are the same payload.
    let a = p.run(&["coverage", "--json"]).stdout;
    let b = p.run(&["coverage", "--format", "json"]).stdout;
    assert_eq!(a, b);
}

// ─── SARIF ──────────────────────────────────────────────────────────────────

fn sarif_validator() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../data/sarif/sarif-schema-2.1.0.json")).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF 2.1.0 schema compiles")
}

fn assert_valid_sarif(out: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&v)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{out}");
    v
}

#[test]
fn the_schema_check_rejects_a_broken_log() {
    let broken = serde_json::json!({ "version": "2.1.0", "runs": [{ "results": [] }] });
    assert!(!sarif_validator().is_valid(&broken), "tool is required");
}

#[test]
fn coverage_sarif_is_valid_with_rules_locations_and_stable_fingerprints() {
    let p = repo(&["a,b:c%d\ne.cu", "top_k.cu"]);
    let run = p.run(&["coverage", "--format", "sarif"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = assert_valid_sarif(&run.stdout);
    let run0 = &v["runs"][0];
    let rules: Vec<&str> = run0["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"tree_coverage") && rules.contains(&"has_link"));
    for r in run0["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(!r["help"]["text"].as_str().unwrap().is_empty());
    }
    let results = run0["results"].as_array().unwrap();
    let link = results
        .iter()
        .find(|r| r["ruleId"] == "has_link")
        .expect("has_link result");
    let region = &link["locations"][0]["physicalLocation"]["region"];
    assert!(region["startLine"].as_u64().unwrap() > 1 && region["startColumn"].as_u64().is_some());
    assert_eq!(
        link["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "sota.toml"
    );
    let odd = results
        .iter()
        .find(|r| r["message"]["text"].as_str().unwrap().contains("e.cu"))
        .unwrap();
    assert_eq!(
        odd["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "kernels/misc/a%2Cb%3Ac%25d%0Ae.cu"
    );
    // Move every row down three lines: the locations move, the fingerprints do not.
    let fps = |v: &serde_json::Value| -> Vec<String> {
        v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["partialFingerprints"]["sotaFinding/v1"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    std::fs::write(
        p.path().join("sota.toml"),
        format!("# a\n# b\n# c\n{MATRIX}"),
    )
    .unwrap();
    p.commit("comment");
    let moved = assert_valid_sarif(&p.run(&["coverage", "--format", "sarif"]).stdout);
    assert_eq!(fps(&v), fps(&moved));
    let line = |v: &serde_json::Value| {
        v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["ruleId"] == "has_link")
            .unwrap()["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(line(&moved), line(&v) + 3);
}

#[test]
fn gate_sarif_is_valid_for_a_change_and_a_range() {
    let p = repo(&[]);
    std::fs::write(p.path().join("kernels/gemm/w4.cu"), "// w4 v2\n").unwrap();
    p.commit("faster w4");
    let range = p.run(&["gate", "--range", "HEAD~1..HEAD", "--format", "sarif"]);
    let v = assert_valid_sarif(&range.stdout);
    assert_eq!(v["runs"][0]["results"].as_array().unwrap().len(), 1);
    assert_eq!(v["runs"][0]["results"][0]["ruleId"], "PRIOR_ART");
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// v3\n").unwrap();
    p.git(&["add", "-A"]).success();
    let change = p.run(&["gate", "--format", "sarif"]);
    let v = assert_valid_sarif(&change.stdout);
    assert_eq!(
        v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "kernels/attn/flash.cu"
    );
}
