//! Issue 15: a user's blocking hook stays blocking under real hook
//! managers (Husky v9, lefthook, the pre-commit framework), no user file is
//! lost, advisory hooks never block, suggestions never reach history, and
//! renders leave no side effects. Every case runs real `git commit`s.
//!
//! Husky and lefthook come from npm: point `SOTA_TEST_NODE_MODULES` at a
//! `node_modules` holding both (`.ci/run` does). Without it, or without
//! `pre-commit` on PATH, those tests skip loudly; under `$CI` they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

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

fn head_body(p: &Sota) -> String {
    p.git(&["log", "-1", "--format=%B"]).stdout
}

#[cfg(unix)]
fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A tool a test needs, or `None` after a loud message (a failure in CI).
fn needed(what: &str, found: Option<PathBuf>) -> Option<PathBuf> {
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("{what} is required in CI (see .ci/run)");
        }
        eprintln!("\n!!! SKIPPED: {what} not available; this test did NOT run !!!\n");
    }
    found
}

fn node_tool(name: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("SOTA_TEST_NODE_MODULES")?);
    let bin = dir.join(".bin").join(name);
    bin.exists().then_some(bin)
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A commit that must be refused by the user's hook, saying `says`.
#[track_caller]
fn assert_blocked(p: &Sota, says: &str) {
    touch_kernel(p, &format!("// {says} {}\n", head_subject(p).len()));
    let run = p.git(&["commit", "-m", "must be blocked"]);
    assert_ne!(run.code, 0, "the user's hook must block: {run:?}");
    assert!(run.stderr.contains(says), "{}", run.stderr);
    assert_ne!(head_subject(p), "must be blocked");
}

#[cfg(unix)]
#[test]
fn husky_v9_blocking_hook_blocks_before_and_after_install_and_uninstall() {
    let Some(husky) = needed("husky (npm)", node_tool("husky")) else {
        return;
    };
    let p = repo();
    p.exec(Command::new(&husky)).success();
    assert_eq!(
        p.git(&["config", "core.hooksPath"]).stdout.trim(),
        ".husky/_"
    );
    std::fs::write(
        p.path().join(".husky/pre-commit"),
        "echo 'husky user hook says no' >&2\nexit 1\n",
    )
    .unwrap();
    let stub = p.path().join(".husky/_/pre-commit");
    let before = std::fs::read(&stub).unwrap();
    assert_blocked(&p, "husky user hook says no");

    let install = p.run(&["hook", "install"]);
    install.success();
    assert!(
        install.stdout.contains(".husky/_/pre-commit"),
        "{}",
        install.stdout
    );
    assert_blocked(&p, "husky user hook says no");

    // With the user's hook passing, sota's advisory shows once.
    std::fs::write(p.path().join(".husky/pre-commit"), "exit 0\n").unwrap();
    touch_kernel(&p, "// passes\n");
    let ok = p.git(&["commit", "-m", "passes"]);
    ok.success();
    assert_eq!(
        ok.stderr.matches("PRIOR_ART: kernels").count(),
        1,
        "{}",
        ok.stderr
    );

    p.run(&["hook", "uninstall"]).success();
    assert_eq!(
        std::fs::read(&stub).unwrap(),
        before,
        "Husky's stub restored byte for byte"
    );
    std::fs::write(
        p.path().join(".husky/pre-commit"),
        "echo 'husky user hook says no' >&2\nexit 1\n",
    )
    .unwrap();
    assert_blocked(&p, "husky user hook says no");
}

#[cfg(unix)]
#[test]
fn lefthook_blocking_command_blocks_before_and_after_install() {
    let Some(lefthook) = needed("lefthook (npm)", node_tool("lefthook")) else {
        return;
    };
    let bin = lefthook.parent().unwrap().to_path_buf();
    let sota_dir = Path::new(env!("CARGO_BIN_EXE_sota")).parent().unwrap();
    let path = std::env::join_paths(
        [sota_dir.to_path_buf(), bin]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let p = repo().env("PATH", path.to_str().unwrap()).file(
        "lefthook.yml",
        "pre-commit:\n  commands:\n    block:\n      run: echo 'lefthook says no' >&2; exit 1\n",
    );
    p.commit("lefthook config");
    let mut cmd = Command::new(&lefthook);
    cmd.arg("install");
    p.exec(cmd).success();
    assert_blocked(&p, "lefthook says no");
    p.run(&["hook", "install"]).success();
    assert_blocked(&p, "lefthook says no");
    p.run(&["hook", "uninstall"]).success();
    assert_blocked(&p, "lefthook says no");
}

#[cfg(unix)]
#[test]
fn pre_commit_framework_hook_blocks_before_and_after_install() {
    let Some(pre_commit) = needed("pre-commit (pip)", on_path("pre-commit")) else {
        return;
    };
    let p = repo().file(
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n  - id: says-no\n    name: pre-commit framework says no\n    entry: \"false\"\n    language: system\n    always_run: true\n    pass_filenames: false\n",
    );
    p.commit("pre-commit config");
    let mut cmd = Command::new(&pre_commit);
    cmd.arg("install");
    p.exec(cmd).success();
    let hook = p.path().join(".git/hooks/pre-commit");
    let before = std::fs::read(&hook).unwrap();
    assert_blocked(&p, "pre-commit framework says no");
    p.run(&["hook", "install"]).success();
    assert_blocked(&p, "pre-commit framework says no");
    p.run(&["hook", "uninstall"]).success();
    assert_eq!(std::fs::read(&hook).unwrap(), before);
    assert_blocked(&p, "pre-commit framework says no");
}

#[cfg(unix)]
#[test]
fn hooks_that_dispatch_on_their_own_name_keep_working_without_dirname() {
    let p = repo();
    let hooks = p.path().join(".git/hooks");
    // A regular-file dispatcher: sota's lines go in, $0 stays the same.
    write_script(
        &hooks.join("pre-commit"),
        "#!/bin/sh\ncase \"${0##*/}\" in pre-commit) echo 'dispatcher says no' >&2; exit 1 ;; esac\n",
    );
    p.run(&["hook", "install"]).success();
    assert_blocked(&p, "dispatcher says no");

    // No dirname (nor anything but git, grep and sota) on PATH.
    let bin = p.path().join(".git/minimal-bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["git", "grep"] {
        std::os::unix::fs::symlink(on_path(tool).unwrap(), bin.join(tool)).unwrap();
    }
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sota"), bin.join("sota")).unwrap();
    touch_kernel(&p, "// minimal path\n");
    let run = p
        .clone_env("PATH", bin.to_str().unwrap())
        .git(&["commit", "-m", "minimal path"]);
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("dispatcher says no"), "{}", run.stderr);
    assert!(!run.stderr.contains("not found"), "{}", run.stderr);

    // A symlinked dispatcher is never edited: refused, nothing installed.
    p.run(&["hook", "uninstall"]).success();
    let target = p.path().join("dispatch.sh");
    write_script(
        &target,
        "#!/bin/sh\ncase \"${0##*/}\" in pre-commit) echo 'linked dispatcher says no' >&2; exit 1 ;; esac\n",
    );
    std::fs::remove_file(hooks.join("pre-commit")).unwrap();
    std::os::unix::fs::symlink(&target, hooks.join("pre-commit")).unwrap();
    p.commit("dispatcher");
    assert_blocked(&p, "linked dispatcher says no");
    let install = p.run(&["hook", "install"]);
    assert_ne!(install.code, 0);
    assert!(
        install.stdout.contains("is a symbolic link"),
        "{}",
        install.stdout
    );
    assert!(
        install.stdout.contains("nothing was installed"),
        "{}",
        install.stdout
    );
    assert!(!hooks.join("commit-msg").exists());
    assert_blocked(&p, "linked dispatcher says no");
}

#[cfg(unix)]
#[test]
fn no_user_file_is_lost_whatever_it_says_or_is() {
    use std::os::unix::fs::PermissionsExt;
    let p = repo();
    let hooks = p.path().join(".git/hooks");
    // Mentions the legacy marker (as a hand merge would): still the user's.
    let mine = "#!/bin/sh\n# sota-hook v1 merged by hand\necho 'mine ran' >&2\nexit 1\n";
    write_script(&hooks.join("pre-commit"), mine);
    std::fs::set_permissions(
        hooks.join("pre-commit"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    p.run(&["hook", "install"]).success();
    let edited = std::fs::read_to_string(hooks.join("pre-commit")).unwrap();
    assert!(
        edited.starts_with("#!/bin/sh\n# >>> sota-hook v2 pre-commit"),
        "{edited}"
    );
    assert!(edited.ends_with(&mine["#!/bin/sh\n".len()..]), "{edited}");
    assert_blocked(&p, "mine ran");
    p.run(&["hook", "uninstall"]).success();
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        mine
    );
    let mode = std::fs::metadata(hooks.join("pre-commit"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o750);

    // A dangling symlink: install refuses it (and writes nothing at all);
    // uninstall leaves it exactly as it was.
    std::os::unix::fs::symlink("/nonexistent/hook", hooks.join("commit-msg")).unwrap();
    let install = p.run(&["hook", "install"]);
    assert_ne!(install.code, 0);
    assert!(install.stdout.contains("withheld"), "{}", install.stdout);
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        mine
    );
    assert!(!hooks.join("prepare-commit-msg").exists());
    p.run(&["hook", "uninstall"]).success();
    assert_eq!(
        std::fs::read_link(hooks.join("commit-msg")).unwrap(),
        Path::new("/nonexistent/hook")
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        mine
    );
}

#[cfg(unix)]
#[test]
fn advisory_hooks_never_block() {
    let p = repo();
    p.run(&["hook", "install"]).success();
    touch_kernel(&p, "// full stderr\n");
    let mut full = Command::new("sh");
    full.args(["-c", "git commit -m 'stderr full' 2>/dev/full"]);
    p.exec(full).success();
    assert_eq!(head_subject(&p), "stderr full");

    touch_kernel(&p, "// broken sota\n");
    let run = p
        .clone_env("SOTA_BIN", "/bin/false")
        .git(&["commit", "-m", "broken sota"]);
    run.success();
    assert!(
        run.stderr.contains("the PRIOR_ART gate failed (exit 1)"),
        "{}",
        run.stderr
    );
    assert_eq!(head_subject(&p), "broken sota");
}

#[cfg(unix)]
#[test]
fn strict_no_chain_beside_a_hook_installs_nothing() {
    let p = repo();
    let hooks = p.path().join(".git/hooks");
    write_script(&hooks.join("commit-msg"), "#!/bin/sh\nexit 0\n");
    let install = p.run(&["hook", "install", "--strict", "--no-chain"]);
    assert_ne!(install.code, 0);
    assert!(
        install.stdout.contains("nothing was installed"),
        "{}",
        install.stdout
    );
    assert!(!hooks.join("pre-commit").exists() && !hooks.join("prepare-commit-msg").exists());
    touch_kernel(&p, "// trailer\n");
    p.git(&["commit", "-m", "ok\n\nPrior-art: FlashAttention"])
        .success();
}

/// Commit with an "editor" that keeps a copy of the template it saw.
#[cfg(unix)]
fn commit_in_editor(p: &Sota, args: &[&str]) -> String {
    let editor = p.path().join(".git/editor.sh");
    let copy = p.path().join(".git/template-seen");
    let _ = std::fs::remove_file(&copy);
    write_script(
        &editor,
        &format!("#!/bin/sh\ncp \"$1\" '{}'\n", copy.display()),
    );
    p.clone_env("GIT_EDITOR", editor.to_str().unwrap())
        .git(args)
        .success();
    std::fs::read_to_string(&copy).unwrap_or_default()
}

#[cfg(unix)]
#[test]
fn suggestions_never_reach_history() {
    let p = repo();
    p.run(&["hook", "install"]).success();
    touch_kernel(&p, "// v2\n");
    p.git(&["commit", "-m", "Tune attention"]).success();

    for args in [
        &["commit", "--amend", "--no-edit"][..],
        &["commit", "-C", "HEAD", "--allow-empty"],
    ] {
        touch_kernel(&p, &format!("// {}\n", args.join(" ")));
        p.git(args).success();
        assert!(
            !head_body(&p).contains("PRIOR_ART"),
            "{args:?}: {}",
            head_body(&p)
        );
    }

    // scissors: the block goes below the cut line, which git cuts.
    p.git(&["config", "commit.cleanup", "scissors"]).success();
    touch_kernel(&p, "// scissors\n");
    let seen = commit_in_editor(&p, &["commit", "--amend"]);
    assert!(seen.contains("PRIOR_ART: this commit touches"), "{seen}");
    assert!(!head_body(&p).contains("PRIOR_ART"), "{}", head_body(&p));
    p.git(&["config", "--unset", "commit.cleanup"]).success();

    // Cleanup modes that keep comments: nothing is added at all.
    for mode in ["verbatim", "whitespace"] {
        p.git(&["config", "commit.cleanup", mode]).success();
        touch_kernel(&p, &format!("// {mode}\n"));
        let seen = commit_in_editor(&p, &["commit", "--amend"]);
        assert!(!seen.contains("PRIOR_ART"), "{mode}: {seen}");
        assert!(
            !head_body(&p).contains("PRIOR_ART"),
            "{mode}: {}",
            head_body(&p)
        );
    }
    p.git(&["config", "--unset", "commit.cleanup"]).success();

    // commentChar=auto, amending a message with a line starting `#`: git
    // comments with `;`, and so does sota.
    p.git(&["config", "core.commentChar", "auto"]).success();
    touch_kernel(&p, "// auto\n");
    p.git(&["commit", "-m", "Tune\n\n#42 fixed", "--cleanup=verbatim"])
        .success();
    touch_kernel(&p, "// auto 2\n");
    let seen = commit_in_editor(&p, &["commit", "--amend"]);
    assert!(seen.contains("\n; Prior-art: FlashAttention"), "{seen}");
    let body = head_body(&p);
    assert!(!body.contains("PRIOR_ART"), "{body}");
    assert!(body.contains("#42 fixed"), "{body}");
}

#[cfg(unix)]
#[test]
fn hooks_land_in_a_repository_whose_path_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let p = Sota::new();
    let dir = p.path().join(std::ffi::OsStr::from_bytes(b"repo-\xff"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut init = Command::new("git");
    init.args(["init", "-q"]).arg(&dir);
    p.exec(init).success();
    p.run_in(&dir, &["hook", "install"]).success();
    assert!(dir.join(".git/hooks/commit-msg").is_file());
    let entries: Vec<_> = std::fs::read_dir(p.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries.len(), 1, "no lossy-named twin: {entries:?}");
}

#[test]
fn the_gate_in_a_bare_repository_has_nothing_to_check() {
    let p = repo();
    let mut clone = Command::new("git");
    clone.args(["clone", "-q", "--bare", ".", "bare.git"]);
    p.exec(clone).success();
    let bare = p.path().join("bare.git");
    std::fs::write(bare.join("sota.toml"), SMALL).unwrap();
    let run = p.run_in(&bare, &["gate"]);
    run.success();
    assert!(!run.stderr.contains("PRIOR_ART: kernels"), "{}", run.stderr);
    assert!(run.stderr.contains("bare repository"), "{}", run.stderr);
    let strict = p.run_in(&bare, &["gate", "--strict"]);
    assert_eq!(strict.code, 2, "{strict:?}");
}
