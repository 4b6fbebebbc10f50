//! `sota gate` against real git repositories: staged paths, silencing,
//! placeholders, modes, formats, and never standing in the way.

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

#[test]
fn a_staged_kernel_file_names_its_reference_route_oracle_and_trailer() {
    let p = repo();
    stage(
        &p,
        "kernels/attn/flash.cu",
        "__global__ void flash_fwd() { /* v2 */ }\n",
    );
    stage(&p, "README.md", "more\n");
    let run = p.run(&["gate"]);
    run.success();
    insta::assert_snapshot!("gate_human", run.stdout);
    let short = p.run(&["gate", "--format", "short"]);
    assert_eq!(short.stdout.lines().count(), 1);
    assert!(short
        .stdout
        .starts_with("PRIOR_ART fused-attention: kernels/attn/flash.cu → read FlashAttention"));
}

#[test]
fn nothing_staged_that_matters_is_silent() {
    let p = repo();
    stage(&p, "README.md", "docs only\n");
    let run = p.run(&["gate"]);
    run.success();
    assert!(run.stdout.is_empty() && run.stderr.is_empty(), "{run:?}");
}

#[test]
fn one_advisory_per_op_deduplicated_and_sorted() {
    let p = repo().file("kernels/common.cuh", "");
    p.git(&["add", "kernels/common.cuh"]).success();
    stage(&p, "kernels/gemm/w4a16_int4.cu", "// changed\n");
    let v = p.run(&["gate", "--json"]).json();
    let slugs: Vec<&str> = v["advisories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["slug"].as_str().unwrap())
        .collect();
    assert_eq!(slugs, ["fused-attention", "int4-gemm"]);
    assert_eq!(
        v["advisories"][1]["paths"],
        serde_json::json!(["kernels/common.cuh", "kernels/gemm/w4a16_int4.cu"])
    );
}

#[test]
fn renames_count_old_and_new_paths_and_deletions_count() {
    let p = repo();
    p.git(&["mv", "kernels/gemm/w4a16_int4.cu", "moved.cu"])
        .success();
    let v = p.run(&["gate", "--json"]).json();
    assert_eq!(
        v["touched"],
        serde_json::json!(["int4-gemm"]),
        "the old path of a rename matches"
    );

    let p = repo();
    p.git(&["rm", "-q", "kernels/attn/flash.cu"]).success();
    let v = p.run(&["gate", "--json"]).json();
    assert_eq!(
        v["touched"],
        serde_json::json!(["fused-attention"]),
        "a deletion counts"
    );
}

#[test]
fn odd_file_names_survive() {
    let p = repo();
    for name in [
        "kernels/attn/with space.cu",
        "kernels/attn/new\nline.cu",
        "kernels/attn/ünï.cu",
    ] {
        stage(&p, name, "x\n");
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let raw = std::ffi::OsStr::from_bytes(b"kernels/attn/bad\xff.cu");
        std::fs::write(p.path().join(raw), "x").unwrap();
        p.git(&["add", "-A"]).success();
    }
    let v = p.run(&["gate", "--json"]).json();
    let paths: Vec<&str> = v["advisories"][0]["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(paths.contains(&"kernels/attn/with space.cu"), "{paths:?}");
    assert!(paths.contains(&"kernels/attn/new\nline.cu"), "{paths:?}");
    assert!(paths.contains(&"kernels/attn/ünï.cu"), "{paths:?}");
    #[cfg(unix)]
    assert!(
        paths.iter().any(|p| p.starts_with("kernels/attn/bad")),
        "{paths:?}"
    );
}

#[test]
fn an_added_prior_art_line_silences_but_a_removed_one_does_not() {
    let p = repo();
    stage(&p, "kernels/attn/flash.cu", "// PRIOR-ART: FlashAttention-2 (Dao-AILab/flash-attention)\n__global__ void flash_fwd() {}\n");
    let run = p.run(&["gate", "--json"]);
    let v = run.json();
    assert_eq!(v["silenced"]["by"], "staged-line");
    assert!(v["advisories"].as_array().unwrap().is_empty());
    assert!(p.run(&["gate"]).stdout.is_empty());
    p.commit("with note");

    // Removing that line is not adding one.
    stage(
        &p,
        "kernels/attn/flash.cu",
        "__global__ void flash_fwd() {}\n",
    );
    assert!(p.run(&["gate", "--json"]).json()["silenced"].is_null());
}

/// Whether the gate, reading the staged change both ways, is silenced by
/// an added line: `--json` takes the paths from git and searches the
/// staged blobs itself (asking for git's patch only when a blob mentions
/// `Prior-art:`); `--format github` always reads git's patch.
fn silenced_both_ways(p: &Sota) -> (bool, bool) {
    let v = p.run(&["gate", "--json"]).json();
    assert!(!v["touched"].as_array().unwrap().is_empty(), "{v}");
    let by_paths = v["silenced"]["by"] == "staged-line";
    let gh = p.run(&["gate", "--format", "github"]);
    gh.success();
    (by_paths, !gh.stdout.contains("::warning "))
}

#[test]
fn reading_the_staged_blobs_agrees_with_git_patch() {
    const KERNEL: &str = "kernels/attn/flash.cu";
    type Setup = fn(&Sota);
    let cases: Vec<(&str, Setup, bool)> = vec![
        ("a plain edit", |p| stage(p, KERNEL, "// v2\n"), false),
        (
            "an added line",
            |p| stage(p, KERNEL, "// prior-art: FA2\nx\n"),
            true,
        ),
        (
            "an added line in another file",
            |p| {
                stage(p, KERNEL, "// v2\n");
                stage(
                    p,
                    "NOTES.md",
                    "Prior-Art: FA2 (Dao-AILab/flash-attention)\n",
                );
            },
            true,
        ),
        (
            "a kept line, another edited",
            |p| {
                stage(p, KERNEL, "// Prior-art: FA2\nold\n");
                p.commit("noted");
                stage(p, KERNEL, "// Prior-art: FA2\nnew\n");
            },
            false,
        ),
        (
            "a line moved (git's patch adds it again)",
            |p| {
                stage(p, KERNEL, "// Prior-art: FA2\na\nb\n");
                p.commit("noted");
                stage(p, KERNEL, "a\nb\n// Prior-art: FA2\n");
            },
            true,
        ),
        (
            "a binary file",
            |p| {
                stage(p, KERNEL, "// v2\n");
                stage(p, "blob.bin", "\0\0Prior-art: FA2\n");
            },
            false,
        ),
        (
            "a file git diffs as binary (-diff)",
            |p| {
                stage(p, ".gitattributes", "*.txt -diff\n");
                p.commit("attributes");
                stage(p, KERNEL, "// v2\n");
                stage(p, "notes.txt", "Prior-art: FA2\n");
            },
            false,
        ),
        (
            "a deleted file that mentioned it",
            |p| {
                stage(p, "notes.md", "Prior-art: FA2\n");
                p.commit("notes");
                stage(p, KERNEL, "// v2\n");
                p.git(&["rm", "-q", "notes.md"]).success();
            },
            false,
        ),
        (
            "a new empty file",
            |p| {
                stage(p, KERNEL, "// v2\n");
                stage(p, "empty.md", "");
            },
            false,
        ),
        (
            "a mention staged, the work tree cleaned since",
            |p| {
                stage(p, KERNEL, "// Prior-art: FA2\n");
                std::fs::write(p.path().join(KERNEL), "// v2\n").unwrap();
            },
            true,
        ),
        (
            "staged clean, a mention added to the work tree since",
            |p| {
                stage(p, KERNEL, "// v2\n");
                std::fs::write(p.path().join(KERNEL), "// Prior-art: FA2\n").unwrap();
            },
            false,
        ),
        (
            "staged blobs packed, the work tree as staged",
            |p| {
                stage(p, KERNEL, "// v2\n");
                stage(p, "NOTES.md", "Prior-art: FA2\n");
                p.git(&["repack", "-a", "-d", "-q"]).success();
                p.git(&["prune-packed"]).success();
            },
            true,
        ),
        (
            "staged blobs packed, no mention",
            |p| {
                stage(p, KERNEL, "// v2\n");
                p.git(&["repack", "-a", "-d", "-q"]).success();
                p.git(&["prune-packed"]).success();
            },
            false,
        ),
        (
            "staged blobs packed, a mention",
            |p| {
                stage(p, KERNEL, "// Prior-art: FA2\n");
                p.git(&["repack", "-a", "-d", "-q"]).success();
                p.git(&["prune-packed"]).success();
            },
            true,
        ),
    ];
    for (name, setup, expected) in cases {
        let p = repo();
        setup(&p);
        assert_eq!(silenced_both_ways(&p), (expected, expected), "{name}");
    }

    #[cfg(unix)]
    {
        // A symlink's blob is its target, and its patch shows it.
        let p = repo();
        stage(&p, KERNEL, "// v2\n");
        std::os::unix::fs::symlink("Prior-art:FA2", p.path().join("link")).unwrap();
        p.git(&["add", "link"]).success();
        assert_eq!(silenced_both_ways(&p), (true, true), "a symlink");

        // A mode change alone adds no line.
        let p = repo();
        stage(&p, "run.sh", "# Prior-art: FA2\n");
        p.commit("script");
        stage(&p, KERNEL, "// v2\n");
        p.git(&["update-index", "--chmod=+x", "run.sh"]).success();
        assert_eq!(silenced_both_ways(&p), (false, false), "a mode change");
    }
}

#[test]
fn a_submodule_is_one_line_whatever_diff_submodule_says() {
    // With `diff.submodule=diff` git would print the submodule's own
    // changes as added lines; the gate reads a submodule as the one
    // `Subproject commit` line either way.
    let p = repo();
    let inner = p.path().join("kernels/attn/inner");
    std::fs::create_dir_all(&inner).unwrap();
    let in_inner = |args: &[&str]| p.git(&[&["-C", inner.to_str().unwrap()], args].concat());
    in_inner(&["init", "-q", "-b", "main"]).success();
    std::fs::write(inner.join("k.cu"), "// v1\n").unwrap();
    in_inner(&["add", "-A"]).success();
    in_inner(&["commit", "-q", "--no-verify", "-m", "v1"]).success();
    p.git(&["add", "kernels/attn/inner"]).success();
    p.git(&["commit", "-q", "--no-verify", "-m", "inner"])
        .success();

    std::fs::write(inner.join("k.cu"), "// Prior-art: inner\n// v2\n").unwrap();
    in_inner(&["commit", "-q", "--no-verify", "-am", "v2"]).success();
    p.git(&["add", "kernels/attn/inner"]).success();
    p.git(&["config", "diff.submodule", "diff"]).success();
    let shown = p.git(&["diff", "--cached"]);
    assert!(
        shown.stdout.contains("+// Prior-art: inner"),
        "{}",
        shown.stdout
    );
    assert_eq!(silenced_both_ways(&p), (false, false));
}

#[test]
fn a_linked_worktree_reads_its_staged_blobs_from_the_shared_store() {
    let p = repo();
    let outside = tempfile::tempdir().unwrap();
    let wt = outside.path().join("wt");
    p.git(&["worktree", "add", "-q", wt.to_str().unwrap()])
        .success();
    std::fs::write(wt.join("kernels/attn/flash.cu"), "// v3\n").unwrap();
    let wt_dir = wt.to_str().unwrap();
    let in_wt = |args: &[&str]| p.git(&[&["-C", wt_dir], args].concat());
    in_wt(&["add", "-A"]).success();
    let v = p.run_in(&wt, &["gate", "--json"]).json();
    assert_eq!(v["touched"], serde_json::json!(["fused-attention"]));
    assert!(v["silenced"].is_null(), "{v}");

    std::fs::write(wt.join("kernels/attn/flash.cu"), "// Prior-art: FA2\n").unwrap();
    in_wt(&["add", "-A"]).success();
    let v = p.run_in(&wt, &["gate", "--json"]).json();
    assert_eq!(v["silenced"]["by"], "staged-line", "{v}");
}

fn msg(p: &Sota, text: &str) -> String {
    let path = p.path().join("MSG");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn the_commit_message_trailer_silences_and_placeholders_are_called_out() {
    let p = repo();
    stage(&p, "kernels/attn/flash.cu", "// v2\n");

    let ok = msg(&p, "Tune attention\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention); oracle cosine ≥ 0.999\n");
    let run = p.run(&["gate", "--commit-msg", &ok]);
    run.success();
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    let na = msg(&p, "Tune attention\n\nPrior-art: n/a\n");
    let run = p.run(&["gate", "--commit-msg", &na]);
    run.success();
    assert!(run
        .stdout
        .contains("PRIOR_ART: kernels/attn/flash.cu touches fused-attention"));
    assert!(
        run.stdout
            .contains("`Prior-art: n/a` (message line 3) is a placeholder and does not count"),
        "{}",
        run.stdout
    );

    let none_found = msg(
        &p,
        "Tune\n\nPrior-art: none found - novel tiling; oracle cpuref cosine ≥ 0.999\n",
    );
    assert!(p
        .run(&["gate", "--commit-msg", &none_found])
        .stdout
        .is_empty());

    let commented = msg(&p, "Tune\n\n# Prior-art: FlashAttention\n");
    assert!(
        !p.run(&["gate", "--commit-msg", &commented])
            .stdout
            .is_empty(),
        "comment lines do not count"
    );
}

#[test]
fn json_says_whether_gits_own_trailer_parser_sees_the_trailer() {
    let p = repo();
    stage(&p, "kernels/attn/flash.cu", "// v2\n");
    let cases = [
        ("Tune\n\nPrior-art: FlashAttention\n", true),
        (
            "Tune\n\nSigned-off-by: Ada <ada@example.org>\nPrior-art: FlashAttention\n",
            true,
        ),
        // Not in the last paragraph: git ignores it, sota (lenient) accepts it.
        (
            "Tune\n\nPrior-art: FlashAttention\n\nMore explanation after it.\n",
            false,
        ),
    ];
    for (text, git_sees) in cases {
        let file = msg(&p, text);
        let v = p.run(&["gate", "--commit-msg", &file, "--json"]).json();
        assert_eq!(v["silenced"]["by"], "trailer", "{text:?}");
        assert_eq!(v["git_sees_trailer"], git_sees, "{text:?}");
        // Hold the flag to git itself.
        let parsed = p.git(&["interpret-trailers", "--parse", &file]);
        assert_eq!(
            parsed.stdout.to_lowercase().contains("prior-art:"),
            git_sees,
            "{text:?}"
        );
    }
}

#[test]
fn explicit_paths_need_no_git() {
    let p = Sota::new().file("sota.toml", SMALL).cwd("kernels");
    let v = p
        .run(&["gate", "--paths", "attn/flash.cu", "../README.md", "--json"])
        .json();
    assert_eq!(v["mode"], "paths");
    assert_eq!(v["touched"], serde_json::json!(["fused-attention"]));
}

#[test]
fn the_gate_never_blocks_unless_strict() {
    let p = repo();
    stage(&p, "kernels/attn/flash.cu", "// v2\n");
    assert_eq!(p.run(&["gate"]).code, 0);
    let strict = p.run(&["gate", "--strict"]);
    assert_eq!(strict.code, 1);
    assert!(strict.stdout.contains("PRIOR_ART"));

    // A broken matrix: one warning line and exit 0 in a hook; under
    // --strict the gate could not check, which fails loudly (exit 2) with
    // the located problem and the fix.
    std::fs::write(p.path().join("sota.toml"), "[project]\nname = 3\n").unwrap();
    let run = p.run(&["gate"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("sota.toml has 1 problem"),
        "{}",
        run.stderr
    );
    let run = p.run(&["gate", "--strict"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("could not check: sota.toml has 1 problem"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("sota.toml:2:8"),
        "the problem is located: {}",
        run.stderr
    );
    // In CI the same holds without --strict.
    let run = p.clone_env("CI", "true").run(&["gate"]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn no_matrix_or_no_git_lets_everything_through() {
    let p = Sota::new().git_init().file("k.cu", "");
    p.git(&["add", "-A"]).success();
    let run = p.run(&["gate", "--strict"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", ""),
        "no sota.toml: silent"
    );

    let p = repo().env("PATH", "/nonexistent");
    let run = p.run(&["gate"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains("git is not installed"),
        "{}",
        run.stderr
    );
    let run = p.run(&["gate", "--strict"]);
    assert_eq!(run.code, 2, "--strict: could not check");
    assert!(
        run.stderr.contains("git is not installed"),
        "{}",
        run.stderr
    );

    let p = Sota::new().file("sota.toml", SMALL);
    let run = p.run(&["gate"]);
    assert_eq!(run.code, 0, "not a repository");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

#[test]
fn github_format_is_a_workflow_annotation_per_op() {
    let p = repo();
    stage(&p, "kernels/attn/flash.cu", "// v2\n");
    let run = p.run(&["gate", "--format", "github"]);
    run.success();
    insta::assert_snapshot!("gate_github", run.stdout);
    for line in run.stdout.lines() {
        assert!(line.starts_with("::warning file="), "{line}");
        let (props, message) = line["::warning ".len()..].split_once("::").unwrap();
        assert!(
            props.split(',').all(|kv| ["file=", "line=", "title="]
                .iter()
                .any(|k| kv.starts_with(k))),
            "{props}"
        );
        // A one-line file changed at line 1.
        assert!(props.contains(",line=1,"), "{props}");
        assert!(!message.contains('\n'));
    }
}

#[test]
fn short_lines_stay_within_240_characters() {
    let long = SMALL.replace(
        "sota = \"FlashAttention; FlashInfer\"",
        &format!("sota = \"{}\"", "FlashAttention ".repeat(30)),
    );
    let p = Sota::new()
        .git_init()
        .file("sota.toml", &long)
        .file("kernels/attn/a.cu", "");
    p.git(&["add", "-A"]).success();
    let run = p.run(&["gate", "--format", "short"]);
    let line = run.stdout.lines().next().unwrap();
    assert!(
        line.chars().count() <= 240,
        "{} chars: {line}",
        line.chars().count()
    );
    assert!(
        line.contains("Prior-art: FlashAttention"),
        "the trailer suggestion survives: {line}"
    );
}

#[test]
fn range_names_exactly_the_commits_without_a_valid_trailer() {
    let p = repo();
    let base = p.git(&["rev-parse", "HEAD"]).stdout.trim().to_owned();
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// a\n").unwrap();
    p.commit("Stamped attention change\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention)");
    std::fs::write(p.path().join("kernels/gemm/w4a16_int4.cu"), "// b\n").unwrap();
    p.commit("Placeholder gemm change\n\nPrior-art: TBD");
    std::fs::write(p.path().join("README.md"), "docs\n").unwrap();
    p.commit("Docs only");
    std::fs::write(p.path().join("kernels/attn/flash.cu"), "// c\n").unwrap();
    p.commit("Unstamped attention change");
    let range = format!("{base}..HEAD");

    let v = p.run(&["gate", "--range", &range, "--json"]).json();
    assert_eq!(v["schema"], "sota.gate-range/v1");
    let named: Vec<(&str, &str)> = v["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["subject"].as_str().unwrap(), c["stamp"].as_str().unwrap()))
        .collect();
    assert_eq!(
        named,
        [
            ("Unstamped attention change", "missing"),
            ("Placeholder gemm change", "placeholder")
        ]
    );
    let human = p.run(&["gate", "--range", &range]);
    human.success();
    assert!(human.stdout.contains("2 commits in"), "{}", human.stdout);
    assert_eq!(p.run(&["gate", "--range", &range, "--strict"]).code, 1);
    let gh = p.run(&["gate", "--range", &range, "--format", "github"]);
    assert_eq!(gh.stdout.lines().count(), 2);
}

#[test]
fn a_repository_with_no_commits_and_a_detached_head_work() {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", SMALL)
        .file("kernels/attn/flash.cu", "x\n");
    p.git(&["add", "-A"]).success();
    let run = p.run(&["gate", "--json"]);
    run.success();
    assert_eq!(
        run.json()["touched"],
        serde_json::json!(["fused-attention"]),
        "unborn HEAD: the index against the empty tree"
    );

    let p = repo();
    let head = p.git(&["rev-parse", "HEAD"]).stdout.trim().to_owned();
    p.git(&["checkout", "-q", "--detach", &head]).success();
    stage(&p, "kernels/attn/flash.cu", "// detached\n");
    assert_eq!(
        p.run(&["gate", "--json"]).json()["touched"],
        serde_json::json!(["fused-attention"])
    );
}

#[test]
fn a_tracked_symlink_is_gated_under_its_own_path_as_lookups_see_it() {
    // warp-ctc keeps `src/ctc_entrypoint.cu -> ctc_entrypoint.cpp`: the
    // matrix names the `.cu` link; its target is in no op.
    let p = repo().file("src/impl/flash_impl.cpp", "// body\n");
    std::os::unix::fs::symlink(
        "../../src/impl/flash_impl.cpp",
        p.path().join("kernels/attn/paged.cu"),
    )
    .unwrap();
    p.git(&[
        "add",
        "--",
        "kernels/attn/paged.cu",
        "src/impl/flash_impl.cpp",
    ])
    .success();
    let lookup = p.run(&["kernels/attn/paged.cu"]);
    lookup.success();
    assert!(
        lookup.stdout.contains("covered by 1 op"),
        "{}",
        lookup.stdout
    );
    let gated = p.run(&["gate", "kernels/attn/paged.cu", "--json"]).json();
    assert_eq!(gated["touched"], serde_json::json!(["fused-attention"]));
    // A symlinked directory on the way is followed; the link's target is
    // gated only as itself.
    std::os::unix::fs::symlink("kernels/attn", p.path().join("attn-link")).unwrap();
    let via_dir = p.run(&["gate", "attn-link/flash.cu", "--json"]).json();
    assert_eq!(via_dir["touched"], serde_json::json!(["fused-attention"]));
    let target = p.run(&["gate", "src/impl/flash_impl.cpp", "--json"]).json();
    assert_eq!(target["touched"], serde_json::json!([]));
}
