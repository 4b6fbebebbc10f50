//! `sota hook install` and real `git commit` runs through the installed hooks.

use std::path::Path;

use crate::harness::{Sota, SMALL};

fn repo() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", SMALL)
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n");
    p.commit("initial");
    p
}

fn touch_kernel(p: &Sota, text: &str) {
    std::fs::write(p.path().join("kernels/attn/flash.cu"), text).unwrap();
    p.git(&["add", "-A"]).success();
}

fn head_subject(p: &Sota) -> String {
    p.git(&["log", "-1", "--format=%s"])
        .stdout
        .trim()
        .to_owned()
}

#[test]
fn commit_with_m_shows_the_advisory_and_a_trailer_silences_it() {
    let p = repo();
    p.run(&["hook", "install"]).success();

    touch_kernel(&p, "// v2\n");
    let plain = p.git(&["commit", "-m", "Tune attention"]);
    plain.success();
    assert!(
        plain
            .stderr
            .contains("PRIOR_ART: kernels/attn/flash.cu touches fused-attention"),
        "{plain:?}"
    );
    assert_eq!(
        plain.stderr.matches("PRIOR_ART:").count(),
        1,
        "printed once, not by every hook: {}",
        plain.stderr
    );

    touch_kernel(&p, "// v3\n");
    let stamped = p.git(&[
        "commit",
        "-m",
        "Tune attention\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention)",
    ]);
    stamped.success();
    assert!(!stamped.stderr.contains("PRIOR_ART"), "{}", stamped.stderr);

    touch_kernel(&p, "// v4\n");
    let na = p.git(&["commit", "-m", "Tune attention\n\nPrior-art: n/a"]);
    na.success();
    assert!(na.stderr.contains("PRIOR_ART"), "{}", na.stderr);
    assert!(na.stderr.contains("is a placeholder"), "{}", na.stderr);
    assert_eq!(
        head_subject(&p),
        "Tune attention",
        "advisory: the commit went through"
    );
}

#[cfg(unix)]
fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(unix)]
#[test]
fn the_editor_sees_the_suggested_trailer_as_a_comment() {
    let p = repo();
    p.run(&["hook", "install"]).success();
    // An "editor" that saves a copy of the template, then writes a subject
    // and uncomments the suggested trailer.
    // Kept inside .git so `git add -A` does not stage it (its text mentions
    // Prior-art:, which would silence the gate by itself).
    let editor = p.path().join(".git/editor.sh");
    let copy = p.path().join(".git/template-seen");
    write_script(
        &editor,
        &format!(
            "#!/bin/sh\ncp \"$1\" '{}'\nsed -i -e '1s/^$/Tune attention/' -e 's/^# Prior-art: /Prior-art: /' \"$1\"\n",
            copy.display()
        ),
    );
    touch_kernel(&p, "// v2\n");
    let run = p
        .clone_env("GIT_EDITOR", editor.to_str().unwrap())
        .git(&["commit"]);
    run.success();
    let template = std::fs::read_to_string(&copy).unwrap();
    assert!(
        template.contains(
            "# Prior-art: FlashAttention (Dao-AILab/flash-attention); oracle cosine ≥ 0.999"
        ),
        "{template}"
    );
    assert!(
        !run.stderr.contains("PRIOR_ART:"),
        "the uncommented trailer silenced it: {}",
        run.stderr
    );
    let body = p.git(&["log", "-1", "--format=%B"]).stdout;
    assert!(
        body.contains("Prior-art: FlashAttention (Dao-AILab/flash-attention)"),
        "{body}"
    );
}

#[cfg(unix)]
#[test]
fn a_users_existing_hook_still_runs_first_and_can_block_and_uninstall_restores_it() {
    let p = repo();
    let hooks = p.path().join(".git/hooks");
    let mine = "#!/bin/sh\necho 'my hook ran' >&2\nif [ -f BLOCK ]; then echo 'blocked by my hook' >&2; exit 3; fi\n";
    write_script(&hooks.join("pre-commit"), mine);
    let before = std::fs::read(hooks.join("pre-commit")).unwrap();

    let install = p.run(&["hook", "install"]);
    install.success();
    assert!(
        install
            .stdout
            .contains("sota's lines added at the top of your hook"),
        "{}",
        install.stdout
    );
    let again = p.run(&["hook", "install"]);
    assert_eq!(
        again.stdout.matches("unchanged").count(),
        3,
        "idempotent: {}",
        again.stdout
    );

    touch_kernel(&p, "// v2\n");
    let run = p.git(&["commit", "-m", "ok"]);
    run.success();
    assert!(run.stderr.contains("my hook ran"));

    std::fs::write(p.path().join("BLOCK"), "").unwrap();
    touch_kernel(&p, "// v3\n");
    let blocked = p.git(&["commit", "-m", "blocked"]);
    assert_ne!(
        blocked.code, 0,
        "the chained hook's failure blocks the commit"
    );
    assert!(blocked.stderr.contains("blocked by my hook"));
    assert_eq!(head_subject(&p), "ok");

    let un = p.run(&["hook", "uninstall"]);
    un.success();
    assert_eq!(
        std::fs::read(hooks.join("pre-commit")).unwrap(),
        before,
        "restored byte for byte"
    );
    assert!(!hooks.join("commit-msg").exists() && !hooks.join("prepare-commit-msg").exists());
    assert!(!hooks.join("pre-commit.sota-chained").exists());
}

#[test]
fn strict_hooks_block_and_a_broken_matrix_never_does() {
    let p = repo();
    p.run(&["hook", "install", "--strict"]).success();
    touch_kernel(&p, "// v2\n");
    let blocked = p.git(&["commit", "-m", "no trailer"]);
    assert_ne!(blocked.code, 0);
    assert!(blocked.stderr.contains("PRIOR_ART"));
    assert_eq!(head_subject(&p), "initial");

    let ok = p.git(&["commit", "-m", "with trailer\n\nPrior-art: FlashAttention"]);
    ok.success();

    // A strict hook that cannot check (broken matrix) blocks, saying why;
    // an advisory hook lets the same commit through.
    std::fs::write(p.path().join("sota.toml"), "[project\n").unwrap();
    touch_kernel(&p, "// v3\n");
    let broken = p.git(&["commit", "-m", "matrix broken"]);
    assert_ne!(broken.code, 0);
    assert!(
        broken
            .stderr
            .contains("could not check: sota.toml has 1 problem"),
        "{}",
        broken.stderr
    );
    p.run(&["hook", "install"]).success();
    let advisory = p.git(&["commit", "-m", "matrix broken"]);
    advisory.success();
    assert!(
        advisory.stderr.contains("PRIOR_ART gate skipped"),
        "{}",
        advisory.stderr
    );
}

#[test]
fn hooks_go_where_git_looks_for_them() {
    let p = repo();
    p.git(&["config", "core.hooksPath", "ci-hooks"]).success();
    p.run(&["hook", "install"]).success();
    assert!(p.path().join("ci-hooks/commit-msg").exists());
    assert!(!p.path().join(".git/hooks/commit-msg").exists());
    touch_kernel(&p, "// v2\n");
    let run = p.git(&["commit", "-m", "x"]);
    assert!(run.stderr.contains("PRIOR_ART"), "{}", run.stderr);
}

#[test]
fn a_missing_sota_at_commit_time_lets_the_commit_through_with_one_line() {
    let p = repo();
    p.run(&["hook", "install"]).success();
    touch_kernel(&p, "// v2\n");
    let run = p
        .clone_env("SOTA_BIN", "sota-not-installed-anywhere")
        .git(&["commit", "-m", "x"]);
    run.success();
    assert_eq!(
        run.stderr.matches("sota: not found on PATH").count(),
        1,
        "one line per commit: {}",
        run.stderr
    );
    assert_eq!(head_subject(&p), "x");
}

#[test]
fn hook_outside_a_repository_is_a_configuration_error() {
    let run = Sota::new().run(&["hook", "install"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not inside a git repository"));
}

#[test]
fn commit_dash_a_follows_gits_temporary_index() {
    // `git commit -a` stages into a temporary index (GIT_INDEX_FILE) that
    // only the hooks see; the unstaged kernel edit must still be found.
    let p = repo();
    p.run(&["hook", "install"]).success();
    std::fs::write(
        p.path().join("kernels/attn/flash.cu"),
        "// edited, not staged\n",
    )
    .unwrap();
    let run = p.git(&["commit", "-a", "-m", "all at once"]);
    run.success();
    assert!(
        run.stderr
            .contains("PRIOR_ART: kernels/attn/flash.cu touches fused-attention"),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_prior_art_line_counts_as_staged_not_as_in_the_work_tree() {
    // The hooks judge the staged content: what `git commit -a` stages
    // into its temporary index, or what `git add` staged before the work
    // tree changed again.
    let p = repo();
    p.run(&["hook", "install"]).success();
    let kernel = p.path().join("kernels/attn/flash.cu");
    let silenced = |run: &crate::harness::Run| {
        run.success();
        !run.stderr.contains("PRIOR_ART")
    };

    std::fs::write(&kernel, "// Prior-art: FlashAttention-2\n// v2\n").unwrap();
    let all = p.git(&["commit", "-a", "-m", "with -a"]);
    assert!(silenced(&all), "{}", all.stderr);

    // Staged with the line, then the line removed from the work tree only.
    std::fs::write(&kernel, "// Prior-art: FlashAttention-3\n// v3\n").unwrap();
    p.git(&["add", "-A"]).success();
    std::fs::write(&kernel, "// v3\n").unwrap();
    let staged = p.git(&["commit", "-m", "staged line"]);
    assert!(silenced(&staged), "{}", staged.stderr);

    // The reverse: the line only in the work tree.
    std::fs::write(&kernel, "// v4\n").unwrap();
    p.git(&["add", "-A"]).success();
    std::fs::write(&kernel, "// Prior-art: FlashAttention-3\n// v4\n").unwrap();
    let unstaged = p.git(&["commit", "-m", "unstaged line"]);
    assert!(!silenced(&unstaged), "{}", unstaged.stderr);
}

#[test]
fn worktrees_share_the_repositorys_hooks() {
    let p = repo();
    p.git(&["worktree", "add", "-q", "wt", "-b", "side"])
        .success();
    let wt = p.path().join("wt");
    let install = p.run_in(&wt, &["hook", "install"]);
    install.success();
    assert!(
        p.path().join(".git/hooks/commit-msg").exists(),
        "{}",
        install.stdout
    );
}
