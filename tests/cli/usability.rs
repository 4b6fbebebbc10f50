//! Defects a new user hit, each replayed through the real binary: the
//! pre-commit framework's argument order, a strict gate that could not
//! check, `./` globs, render without markers, mistyped subcommands, quoted
//! dates, output on a narrow terminal, the suggested trailer, completions
//! and the man page.

use std::path::PathBuf;
use std::process::Command;

use crate::harness::Sota;

const MATRIX: &str = r#"
[project]
name = "t"

[[op]]
slug = "fused-attention"
title = "Fused attention with a title long enough to need cutting on a narrow terminal"
files = ["kernels/attn/"]
sota = "Apex / FasterTransformer fused attention kernels, and a long tail of prose that runs well past eighty columns; FlashAttention-2"
link = "https://github.com/Dao-AILab/flash-attention"
route = "borrow"
oracle = "naive attention, cosine ≥ 0.999"
"#;

fn repo() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", MATRIX)
        .file("kernels/attn/flash.cu", "// v1\n");
    p.git(&["add", "-A"]).success();
    p.commit("initial");
    p
}

/// The Python interpreter that has `pre_commit`, found with the real
/// environment (the harness replaces HOME, which pyenv shims need).
fn python_with_pre_commit() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", "import sys, pre_commit; print(sys.executable)"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

#[test]
fn the_pre_commit_framework_runs_both_hooks_with_strict_args() {
    let Some(python) = python_with_pre_commit() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install pre-commit (python3 -m pip install pre-commit)"
        );
        eprintln!("SKIPPED: pre-commit is not installed (pip install pre-commit)");
        return;
    };
    let p = repo().file(
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n\
         \x20 - id: sota-gate\n    name: gate\n    entry: sota gate --paths\n    language: system\n    args: [--strict]\n    pass_filenames: true\n    stages: [pre-commit]\n\
         \x20 - id: sota-gate-commit-msg\n    name: gate msg\n    entry: sota gate --commit-msg\n    language: system\n    args: [--strict]\n    stages: [commit-msg]\n",
    );
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// v2\n").unwrap();
    p.git(&["add", "-A"]).success();
    let pre_commit = |args: &[&str]| {
        let mut cmd = Command::new(&python);
        cmd.args(["-m", "pre_commit"]).args(args);
        p.exec(cmd)
    };
    // pre-commit stage: `sota gate --paths --strict kernels/attn/flash.cu`
    let run = pre_commit(&["run", "sota-gate", "--files", "kernels/attn/flash.cu"]);
    assert_ne!(run.code, 0, "--strict blocks: {run:?}");
    assert!(run.stdout.contains("PRIOR_ART"), "{run:?}");
    assert!(!run.stdout.contains("a value is required"), "{run:?}");

    // commit-msg stage: `sota gate --commit-msg --strict .git/COMMIT_EDITMSG`
    std::fs::write(
        p.path().join("msg"),
        "fix\n\nPrior-art: FlashAttention-2; oracle cosine ≥ 0.999\n",
    )
    .unwrap();
    let run = pre_commit(&[
        "run",
        "sota-gate-commit-msg",
        "--hook-stage",
        "commit-msg",
        "--commit-msg-filename",
        "msg",
    ]);
    assert_eq!(run.code, 0, "a real trailer passes: {run:?}");
    std::fs::write(p.path().join("msg"), "fix\n\nPrior-art: n/a\n").unwrap();
    let run = pre_commit(&[
        "run",
        "sota-gate-commit-msg",
        "--hook-stage",
        "commit-msg",
        "--commit-msg-filename",
        "msg",
    ]);
    assert_ne!(run.code, 0, "a placeholder blocks under --strict: {run:?}");
    assert!(run.stdout.contains("placeholder"), "{run:?}");
}

#[test]
fn trailing_file_arguments_work_in_any_order() {
    let p = repo();
    let run = p.run(&["gate", "--paths", "--strict", "kernels/attn/flash.cu"]);
    assert_eq!(run.code, 1, "{run:?}");
    let run = p.run(&["gate", "--strict", "kernels/attn/flash.cu"]);
    assert_eq!(run.code, 1, "bare files mean --paths: {run:?}");
    std::fs::write(p.path().join("msg"), "x\n\nPrior-art: FlashAttention-2\n").unwrap();
    let run = p.run(&["gate", "--commit-msg", "--strict", "msg"]);
    assert_eq!(run.code, 0, "{run:?}");
    let run = p.run(&["gate", "--commit-msg"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("needs the message file"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_strict_gate_that_could_not_check_fails_with_the_fix() {
    let p = repo();
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// v2\n").unwrap();
    p.git(&["commit", "-qam", "v2"]).success();

    let run = p.run(&["gate", "--range", "nosuchref..HEAD", "--strict"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("could not check"), "{}", run.stderr);
    assert!(run.stderr.contains("bad revision"), "{}", run.stderr);
    // Without --strict, outside CI: a warning, and the commit goes through.
    let run = p.run(&["gate", "--range", "nosuchref..HEAD"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("PRIOR_ART gate skipped"),
        "{}",
        run.stderr
    );

    // A depth-1 clone cannot see HEAD~3: the fix names fetch-depth.
    let clone = Sota::new();
    let src = format!("file://{}", p.path().display());
    let dst = clone.path().join("c");
    clone
        .git(&["clone", "-q", "--depth", "1", &src, dst.to_str().unwrap()])
        .success();
    let run = clone.run_in(&dst, &["gate", "--range", "HEAD~3..HEAD", "--strict"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("fetch-depth: 0"), "{}", run.stderr);
}

#[test]
fn a_dot_slash_glob_is_refused_at_load_with_the_fix() {
    let p = Sota::new().file(
        "sota.toml",
        "[project]\nname = \"t\"\n\n[[op]]\nslug = \"a\"\ntitle = \"A\"\nsota = \"S\"\nfiles = [\"./kernels/*.cu\"]\n",
    );
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("invalid-glob"), "{}", run.stderr);
    assert!(run.stderr.contains("sota.toml:8:"), "{}", run.stderr);
    assert!(
        run.stderr.contains("write `kernels/*.cu`"),
        "{}",
        run.stderr
    );
}

#[test]
fn render_without_a_region_is_an_error_naming_the_markers() {
    let p = repo().file("plain.md", "# Nothing to render here\n").file(
        "typo.md",
        "# Kernels\n\n<!-- sota:matrx -->\n<!-- /sota:matrx -->\n",
    );
    for check in [false, true] {
        let mut args = vec!["render", "plain.md"];
        if check {
            args.push("--check");
        }
        let run = p.run(&args);
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains("no region to render"), "{}", run.stderr);
        assert!(
            run.stderr.contains("<!-- sota:matrix -->"),
            "{}",
            run.stderr
        );

        args[1] = "typo.md";
        let run = p.run(&args);
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains("typo.md:3:"), "{}", run.stderr);
        assert!(
            run.stderr.contains("did you mean `<!-- sota:matrix -->`?"),
            "{}",
            run.stderr
        );
    }
    assert_eq!(
        std::fs::read_to_string(p.path().join("typo.md")).unwrap(),
        "# Kernels\n\n<!-- sota:matrx -->\n<!-- /sota:matrx -->\n",
        "nothing written"
    );
}

#[test]
fn mistyped_subcommands_get_a_hint_and_completions_exist() {
    let p = repo();
    let run = p.run(&["covrage"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("did you mean the command `sota coverage`?"),
        "{}",
        run.stderr
    );
    let run = p.run(&["hooks", "install"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("`sota hook install`"), "{}", run.stderr);
    let json = p.run(&["covrage", "--json"]).json();
    assert_eq!(json["did_you_mean_command"], "sota coverage");

    let run = p.run(&["completions", "bash"]);
    run.success();
    assert!(run.stdout.contains("_sota()"), "{}", run.stdout);
    assert!(run.stdout.contains("coverage"), "subcommands are completed");
    let run = p.run(&["man"]);
    run.success();
    assert!(
        run.stdout.starts_with(".ie") || run.stdout.contains(".TH sota"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_quoted_iso_date_loads_as_the_schema_says() {
    let p = Sota::new().file(
        "sota.toml",
        "[project]\nname = \"t\"\nreviewed = \"2026-11-30\"\n",
    );
    p.run(&["list"]).success();
    let schema: serde_json::Value = serde_json::from_str(&p.run(&["schema"]).stdout).unwrap();
    assert_eq!(
        schema.pointer("/properties/project/properties/reviewed/type"),
        Some(&serde_json::json!("string"))
    );
    let p = Sota::new().file(
        "sota.toml",
        "[project]\nname = \"t\"\nreviewed = \"30/11/2026\"\n",
    );
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("bad-date"), "{}", run.stderr);
}

/// Run `sota ARGS` on a pseudo-terminal of `cols` columns; what it printed.
fn on_terminal(p: &Sota, cols: u16, args: &str) -> String {
    let bin = env!("CARGO_BIN_EXE_sota");
    let script = format!("stty cols {cols} rows 40; {bin} {args}");
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &script, "/dev/null"]);
    let run = p.exec(cmd);
    run.stdout.replace('\r', "")
}

#[test]
fn output_fits_an_80_column_terminal_and_pipes_stay_whole() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` (util-linux) to make a terminal");
        return;
    }
    let p = repo();
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// v2\n").unwrap();
    p.git(&["add", "-A"]).success();
    for args in [
        "list",
        "fused-attention",
        "gate",
        "coverage --today 2026-07-01",
    ] {
        let shown = on_terminal(&p, 80, args);
        assert!(!shown.trim().is_empty(), "{args}: printed nothing");
        for line in shown.lines() {
            let cols = sota::output::wrap::columns(line);
            assert!(cols <= 80, "{args}: {cols} columns: {line:?}\n{shown}");
        }
    }
    // Piped: never cut or wrapped.
    let piped = p.run(&["list"]).stdout;
    assert!(piped.lines().any(|l| l.len() > 80), "{piped}");
    assert!(piped.contains("FlashAttention-2"), "{piped}");
}

#[test]
fn strict_blocking_says_so_and_names_no_verify() {
    let p = repo();
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// v2\n").unwrap();
    p.git(&["add", "-A"]).success();
    let run = p.run(&["gate", "--strict"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("commit blocked"), "{}", run.stderr);
    assert!(
        run.stderr.contains("git commit --no-verify"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_suggested_trailer_pairs_a_link_only_with_its_own_reference() {
    let p = repo();
    let run = p.run(&[
        "gate",
        "--paths",
        "kernels/attn/flash.cu",
        "--format",
        "short",
    ]);
    run.success();
    assert!(
        run.stdout
            .contains("Prior-art: FlashAttention-2 (Dao-AILab/flash-attention)"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("Apex / FasterTransformer fused attention kernels, and a long tail of prose that runs well past eighty columns (Dao-AILab"), "{}", run.stdout);
}

#[test]
fn catalog_is_refused_where_a_tree_is_checked_and_json_errors_are_json() {
    let p = repo();
    for cmd in [&["coverage"][..], &["audit"], &["gate", "--range", "HEAD"]] {
        let mut args = cmd.to_vec();
        args.push("--catalog");
        let run = p.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.contains("--catalog"), "{}", run.stderr);
    }
    let p = Sota::new()
        .git_init()
        .file("sota.toml", "[project]\nname = 3\n");
    let run = p.run(&["list", "--json"]);
    assert_eq!(run.code, 2);
    let v = run.json();
    assert_eq!(v["schema"], "sota.error/v1");
    assert_eq!(v["kind"], "matrix-invalid");
    assert_eq!(v["problems"][0]["location"], "sota.toml:2:8");
    let p = Sota::new().git_init();
    let run = p.run(&["coverage"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("sota init"), "{}", run.stderr);
}
