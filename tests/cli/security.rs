//! The repository sota runs in is untrusted input (docs/SECURITY.md):
//! crafted commit messages, file names and matrices, replayed against the
//! real binary — through a pipe, on a pty, and in `--format github`.

use std::process::Command;

use crate::harness::{Run, Sota};

const MATRIX: &str = r#"
[project]
name = "demo"
reviewed = 2026-06-26

[[op]]
slug = "attn"
title = "Attention"
files = ["k/"]
sota = "FlashAttention"
"#;

/// A repository with the matrix committed and one kernel file.
fn repo() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", MATRIX)
        .file("k/base.cu", "0\n");
    p.commit("initial\n\nPrior-art: FlashAttention (Dao-AILab/flash-attention)");
    p
}

/// Commit everything with exactly these message bytes (no cleanup).
fn commit_raw(p: &Sota, message: &str) {
    let file = p.path().join(".git/RAW_MSG");
    std::fs::write(&file, message).unwrap();
    p.git(&["add", "-A"]).success();
    p.git(&[
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty-message",
        "--cleanup=verbatim",
        "-F",
        file.to_str().unwrap(),
    ])
    .success();
}

fn touch(p: &Sota, rel: &str, text: &str) {
    let full = p.path().join(rel);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

fn head(p: &Sota, rev: &str) -> String {
    p.git(&["rev-parse", rev]).stdout.trim().to_owned()
}

fn audit_hashes(run: &Run) -> Vec<String> {
    run.json()["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["hash"].as_str().unwrap().to_owned())
        .collect()
}

#[track_caller]
fn no_panic(run: &Run, what: &str) {
    assert!(
        run.code != 101 && !run.stderr.contains("panicked"),
        "{what} panicked (exit {}):\n{}",
        run.code,
        run.stderr
    );
}

/// Lines as the GitHub Actions runner sees them: it splits on LF and on a
/// bare CR, and trims leading whitespace before looking for `::`.
fn runner_lines(text: &str) -> Vec<&str> {
    text.split(['\n', '\r']).map(str::trim_start).collect()
}

#[track_caller]
fn no_workflow_command(text: &str, what: &str) {
    for line in runner_lines(text) {
        assert!(
            !line.starts_with("::"),
            "{what}: a line the runner reads as a workflow command: {line:?}\n{text}"
        );
    }
}

#[track_caller]
fn only_sota_annotations(text: &str, what: &str) {
    for line in runner_lines(text) {
        assert!(
            line.is_empty() || line.starts_with("::warning file="),
            "{what}: a line sota did not mean to write: {line:?}\n{text}"
        );
    }
}

#[track_caller]
fn no_escape(text: &str, what: &str) {
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{9b}'),
        "{what}: a raw escape sequence reaches the output:\n{text:?}"
    );
}

// ─── 1. git log parsing ────────────────────────────────────────────────────

#[test]
fn a_record_separator_in_a_message_cannot_hide_a_kernel_commit() {
    let p = repo();
    let base = head(&p, "HEAD");
    touch(&p, "k/a.cu", "1\n");
    commit_raw(&p, "tune\x1eattention\n");
    let hidden = head(&p, "HEAD");
    let audit = p.run(&["audit", "--json"]);
    audit.success();
    assert!(
        audit_hashes(&audit).contains(&hidden),
        "the commit is missing from the audit: {}",
        audit.stdout
    );
    let range = format!("{base}..HEAD");
    let gate = p.run(&["gate", "--strict", "--range", &range]);
    assert_eq!(
        gate.code, 1,
        "the unstamped commit must fail --strict\n{gate:?}"
    );
}

#[test]
fn a_message_cannot_forge_a_commit_record() {
    let p = repo();
    touch(&p, "k/a.cu", "1\n");
    let fake = "f".repeat(40);
    commit_raw(
        &p,
        &format!("innocent\x1e{fake}\x1f2020-01-01\x1fforged\n\nPrior-art: forged\x1f\x1f"),
    );
    let real = head(&p, "HEAD");
    let v = p.run(&["audit", "--json"]);
    v.success();
    let hashes = audit_hashes(&v);
    assert!(!hashes.contains(&fake), "forged commit: {}", v.stdout);
    assert!(hashes.contains(&real), "real commit lost: {}", v.stdout);
    assert_eq!(hashes.len(), 2, "{}", v.stdout);
    let json = v.json();
    let forged = json["commits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["hash"] == real.as_str())
        .unwrap();
    assert_eq!(
        forged["date"], "2026-06-01",
        "the date is git's, not the message's"
    );
    assert!(forged["subject"]
        .as_str()
        .unwrap()
        .starts_with("innocent\u{1e}"));
}

#[test]
fn file_names_cannot_forge_a_commit_record() {
    // With `-z`, file names follow the message NUL-separated; a name shaped
    // like a record (hash, date, message …) must stay a name.
    let p = repo();
    let fake = "e".repeat(40);
    let name = format!("a\x1e{fake}\x1f2020-01-01\x1fforged\x1f\x1f");
    touch(&p, &name, "x\n");
    touch(&p, &fake, "x\n");
    touch(&p, "2020-01-01", "x\n");
    touch(&p, "k/b.cu", "1\n");
    commit_raw(&p, "names\n");
    let v = p.run(&["audit", "--json"]);
    v.success();
    let hashes = audit_hashes(&v);
    assert!(!hashes.contains(&fake), "forged commit: {}", v.stdout);
    assert_eq!(hashes, vec![head(&p, "HEAD"), head(&p, "HEAD~1")]);
}

#[test]
fn a_nul_in_a_crafted_commit_object_cannot_forge_a_record() {
    // git refuses NUL in messages, but `hash-object --literally` writes any
    // object; git's formatter stops at the NUL.
    let p = repo();
    touch(&p, "k/a.cu", "1\n");
    p.git(&["add", "-A"]).success();
    let tree = p.git(&["write-tree"]).stdout.trim().to_owned();
    let parent = head(&p, "HEAD");
    let fake = "d".repeat(40);
    let object = format!(
        "tree {tree}\nparent {parent}\nauthor A <a@b> 1780315200 +0000\ncommitter A <a@b> 1780315200 +0000\n\nsubject\0\0{fake}\x002020-01-01\0\0forged\0k/a.cu\0"
    );
    let file = p.path().join(".git/OBJ");
    std::fs::write(&file, object).unwrap();
    let id = p.git(&[
        "hash-object",
        "--literally",
        "-t",
        "commit",
        "-w",
        file.to_str().unwrap(),
    ]);
    let id = id.stdout.trim();
    p.git(&["update-ref", "refs/heads/main", id]).success();
    let v = p.run(&["audit", "--json"]);
    v.success();
    let hashes = audit_hashes(&v);
    assert!(!hashes.contains(&fake), "forged commit: {}", v.stdout);
    assert_eq!(hashes.len(), 2, "{}", v.stdout);
}

#[test]
fn separators_next_to_multibyte_text_do_not_panic_any_output() {
    let p = repo();
    let base = head(&p, "HEAD");
    touch(&p, "k/a.cu", "1\n");
    // Before the fix, the 'hash' field became "ééééé…" and was cut at byte 10.
    commit_raw(&p, "x\x1eaéééééééééé\x1f2020-01-01\x1fforged\x1f\x1f");
    let range = format!("{base}..HEAD");
    for format in ["human", "short", "github", "json"] {
        let run = p.run(&["gate", "--range", &range, "--format", format]);
        no_panic(&run, &format!("gate --range --format {format}"));
        assert!(
            run.stdout.contains("PRIOR_ART") || format == "json",
            "{run:?}"
        );
    }
    for args in [&["audit"][..], &["audit", "--json"][..]] {
        let run = p.run(args);
        no_panic(&run, &args.join(" "));
        run.success();
    }
}

#[test]
fn separator_bytes_in_harmless_messages_do_not_drop_commits() {
    let p = repo();
    touch(&p, "k/a.cu", "1\n");
    commit_raw(&p, "first\x1f part\n");
    touch(&p, "k/a.cu", "2\n");
    commit_raw(
        &p,
        "second \x1e\x1d part\n\nPrior-art: FlashAttention (Dao-AILab/flash-attention)\n",
    );
    let v = p.run(&["audit", "--json"]).json();
    assert_eq!(v["scanned"], 3, "{v:#}");
    assert_eq!(v["summary"]["commits"], 3, "{v:#}");
    assert_eq!(v["summary"]["stamped"], 2, "{v:#}");
}

// ─── 2. GitHub workflow-command injection ─────────────────────────────────

const CR_SUBJECT: &str = "fix\r::error title=Build failed::injected\r::add-mask::x\n";

#[test]
fn a_bare_cr_in_a_subject_cannot_inject_workflow_commands() {
    let p = repo();
    let base = head(&p, "HEAD");
    touch(&p, "k/a.cu", "1\n");
    commit_raw(&p, CR_SUBJECT);
    let range = format!("{base}..HEAD");
    for format in ["human", "short"] {
        let run = p.run(&["gate", "--range", &range, "--format", format]);
        assert!(run.stdout.contains("fix\\r::error"), "{run:?}");
        no_workflow_command(&run.stdout, &format!("gate --range --format {format}"));
        no_workflow_command(&run.stderr, "gate stderr");
    }
    let gh = p.run(&["gate", "--range", &range, "--format", "github"]);
    assert!(gh.stdout.starts_with("::warning file=k/a.cu"), "{gh:?}");
    only_sota_annotations(&gh.stdout, "gate --range --format github");
    let audit = p.run(&["audit"]);
    assert!(audit.stdout.contains("fix\\r::error"), "{audit:?}");
    no_workflow_command(&audit.stdout, "audit");
}

#[test]
fn a_kernel_file_name_cannot_start_a_workflow_command_line() {
    let p = repo();
    touch(&p, "::warning::top-level.cu", "x\n");
    touch(&p, "k/a\n::error::x.cu", "x\n");
    p.commit("files");
    let cov = p.run(&["coverage"]);
    assert!(
        cov.stdout.contains("\"::warning::top-level.cu\""),
        "{cov:?}"
    );
    no_workflow_command(&cov.stdout, "coverage");
    touch(&p, "k/a\n::error::x.cu", "y\n");
    p.git(&["add", "-A"]).success();
    for format in ["human", "short"] {
        let run = p.run(&["gate", "--format", format]);
        assert!(run.stdout.contains("k/a\\n::error::x.cu"), "{run:?}");
        no_workflow_command(&run.stdout, &format!("gate --format {format}"));
    }
    let gh = p.run(&["gate", "--format", "github"]);
    only_sota_annotations(&gh.stdout, "gate --format github");
    let lookup = p.run(&["k/a\n::error::x.cu"]);
    no_workflow_command(&lookup.stdout, "lookup");
}

#[test]
fn matrix_strings_cannot_start_a_workflow_command_line() {
    let p = Sota::new().git_init().file(
        "sota.toml",
        &MATRIX.replace(
            "sota = \"FlashAttention\"",
            "sota = \"FlashAttention\"\npapers = [\"one\", \"::error::from-the-matrix\"]",
        ),
    );
    let run = p.run(&["attn"]);
    run.success();
    assert!(run.stdout.contains("::error::from-the-matrix"), "{run:?}");
    no_workflow_command(&run.stdout, "sota attn");
}

#[test]
fn a_newline_in_a_matrix_string_is_refused_with_its_place() {
    let p = Sota::new().git_init().file(
        "sota.toml",
        &MATRIX.replace(
            "title = \"Attention\"",
            "title = \"Attention\\n::error::from-the-matrix\"",
        ),
    );
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("sota.toml:8:"), "{}", run.stderr);
    assert!(run.stderr.contains("control-char"), "{}", run.stderr);
    no_workflow_command(&run.stderr, "load error");
}

// ─── 3. terminal escape sequences ─────────────────────────────────────────

const OSC_NAME: &str = "k/\u{1b}]0;pwned\u{7}x.cu";
const OSC_QUOTED: &str = "\"k/\\033]0;pwned\\ax.cu\"";

/// Run sota on a pseudo-terminal (`script`), returning what the terminal got.
fn on_pty(p: &Sota, args: &[&str]) -> String {
    let bin = env!("CARGO_BIN_EXE_sota");
    let mut line = shell_quote(bin);
    for a in args {
        line.push(' ');
        line.push_str(&shell_quote(a));
    }
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(p.path())
        .env("HOME", p.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("NO_COLOR")
        .env_remove("SOTA_MATRIX")
        .output()
        .expect("script(1) runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Our own sequences are colours (SGR, `ESC [ … m`) and the progress bar's
/// erase-line (`ESC [ 2 K`); anything else is not ours.
fn foreign_escapes(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['\u{1b}', '\u{7}', '\u{9b}']) {
        let tail = &rest[i..];
        let sgr = tail.starts_with("\u{1b}[")
            && tail[2..]
                .find(|c: char| !(c.is_ascii_digit() || c == ';'))
                .is_some_and(|j| tail[2 + j..].starts_with(['m', 'K']));
        if !sgr {
            found.push(tail.chars().take(12).collect());
        }
        rest = &tail[tail.chars().next().unwrap().len_utf8()..];
    }
    found
}

fn osc_repo() -> (Sota, String) {
    let p = repo();
    let base = head(&p, "HEAD");
    touch(&p, OSC_NAME, "1\n");
    commit_raw(
        &p,
        "tune \u{1b}]0;pwned\u{7}\u{1b}[2Jsubject \u{202e}desrever\n",
    );
    (p, base)
}

#[test]
fn escape_sequences_from_commits_are_quoted_through_a_pipe() {
    let (p, base) = osc_repo();
    let range = format!("{base}..HEAD");
    for format in ["human", "short", "github"] {
        let run = p.run(&["gate", "--range", &range, "--format", format]);
        no_escape(&run.stdout, &format!("gate --range --format {format}"));
        assert!(
            run.stdout.contains("tune \\033]0;pwned\\a\\033[2Jsubject"),
            "{format}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("\\342\\200\\256desrever"),
            "{format}: {}",
            run.stdout
        );
    }
    let audit = p.run(&["audit"]);
    no_escape(&audit.stdout, "audit");
    assert!(
        audit.stdout.contains("tune \\033]0;pwned\\a"),
        "{}",
        audit.stdout
    );
    // JSON keeps the exact text (serde_json escapes control characters).
    let v = p.run(&["audit", "--json"]);
    assert!(v.stdout.contains("\\u001b]0;pwned\\u0007"), "{}", v.stdout);
    assert_eq!(
        v.json()["commits"][0]["paths"][0].as_str(),
        Some(OSC_NAME),
        "exact path in JSON"
    );
}

#[test]
fn escape_sequences_in_file_names_are_quoted_through_a_pipe() {
    let (p, _) = osc_repo();
    let lookup = p.run(&[OSC_NAME]);
    no_escape(&lookup.stdout, "lookup");
    assert!(lookup.stdout.contains(OSC_QUOTED), "{lookup:?}");
    for format in ["human", "short", "github"] {
        let run = p.run(&["gate", "--paths", OSC_NAME, "--format", format]);
        no_escape(&run.stdout, &format!("gate --paths --format {format}"));
        assert!(
            run.stdout.contains(OSC_QUOTED) || run.stdout.contains("k/\\033]0;pwned\\ax.cu"),
            "{format}: {run:?}"
        );
        assert!(!run.stdout.contains("k/x.cu"), "silently renamed: {run:?}");
    }
    // coverage: an uncovered kernel file with an escape in its name.
    touch(&p, "\u{1b}[31mred.cu", "x\n");
    touch(&p, "c1\u{9b}31mred.cu", "x\n");
    p.commit("more");
    let cov = p.run(&["coverage"]);
    no_escape(&cov.stdout, "coverage");
    assert!(cov.stdout.contains("\"\\033[31mred.cu\""), "{cov:?}");
    assert!(cov.stdout.contains("\"c1\\302\\23331mred.cu\""), "{cov:?}");
    let json = p.run(&["coverage", "--json"]);
    assert!(json.stdout.contains("\\u001b[31mred.cu"), "{}", json.stdout);
}

#[test]
fn escape_sequences_are_quoted_on_a_terminal_too() {
    let (p, base) = osc_repo();
    let range = format!("{base}..HEAD");
    for args in [
        vec!["gate", "--range", &range],
        vec!["gate", "--range", &range, "--format", "github"],
        vec!["gate", "--range", &range, "--format", "short"],
        vec!["audit"],
        vec!["coverage"],
        vec![OSC_NAME],
        vec!["gate", "--paths", OSC_NAME],
    ] {
        let tty = on_pty(&p, &args);
        assert!(
            tty.contains("pwned") || args[0] == "coverage",
            "{args:?} printed nothing:\n{tty}"
        );
        let foreign = foreign_escapes(&tty);
        assert!(foreign.is_empty(), "{args:?}: {foreign:?}\n{tty:?}");
    }
    let tty = on_pty(&p, &[OSC_NAME]);
    assert!(tty.contains("k/\\033]0;pwned\\ax.cu"), "{tty:?}");
}

#[test]
fn an_escape_in_a_matrix_string_is_refused_and_not_echoed() {
    let p = Sota::new().git_init().file(
        "sota.toml",
        &MATRIX.replace(
            "title = \"Attention\"",
            "title = \"Attention\\u001b]0;pwned\\u0007\"",
        ),
    );
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("control-char"), "{}", run.stderr);
    no_escape(&run.stderr, "load error");
    no_escape(&run.stdout, "load error stdout");
    let tty = on_pty(&p, &["list"]);
    assert!(foreign_escapes(&tty).is_empty(), "{tty:?}");
    assert!(tty.contains("control-char"), "{tty}");
}

#[test]
fn a_raw_escape_in_a_matrix_comment_is_shown_visibly_in_the_snippet() {
    let p = Sota::new().git_init().file(
        "sota.toml",
        &format!("# \u{1b}]0;pwned\u{7}\u{9b}2J comment\n{MATRIX}"),
    );
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2, "{run:?}");
    no_escape(&run.stderr, "snippet through a pipe");
    assert!(
        run.stderr.contains("pwned"),
        "the snippet still shows the line: {}",
        run.stderr
    );
    let tty = on_pty(&p, &["list"]);
    assert!(foreign_escapes(&tty).is_empty(), "{tty:?}");
    assert!(tty.contains("pwned"), "{tty}");
}

// ─── 4. the matrix reads outside the repository ───────────────────────────

fn outside_file(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret"), text).unwrap();
    dir
}

#[test]
fn a_symlinked_matrix_outside_the_repository_is_refused() {
    let secret = outside_file("FAKE_SECRET_TOKEN=hunter2\n");
    let p = Sota::new()
        .env("FAKE_SECRET_TOKEN", "hunter2")
        .git_init()
        .file("k/a.cu", "x\n");
    std::os::unix::fs::symlink(secret.path().join("secret"), p.path().join("sota.toml")).unwrap();
    p.commit("symlink");
    for args in [
        &["list"][..],
        &["coverage"][..],
        &["audit"][..],
        &["gate", "--paths", "k/a.cu"][..],
    ] {
        let run = p.run(args);
        assert!(
            !run.stderr.contains("hunter2") && !run.stdout.contains("hunter2"),
            "{args:?} leaked the file: {run:?}"
        );
        assert!(
            run.stderr.contains("outside the repository"),
            "{args:?}: {run:?}"
        );
        if args[0] != "gate" {
            assert_eq!(run.code, 2, "{args:?}: {run:?}");
        }
    }
    // /proc/self/environ itself, with a secret in the environment.
    std::fs::remove_file(p.path().join("sota.toml")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", p.path().join("sota.toml")).unwrap();
    let run = p.run(&["list"]);
    assert!(!run.stderr.contains("hunter2"), "{run:?}");
    assert_eq!(run.code, 2, "{run:?}");
    // The explicit opt-out reads it (and reports its problems).
    std::fs::remove_file(p.path().join("sota.toml")).unwrap();
    std::fs::write(secret.path().join("secret"), MATRIX).unwrap();
    std::os::unix::fs::symlink(secret.path().join("secret"), p.path().join("sota.toml")).unwrap();
    p.run(&["--allow-outside-repo", "list"]).success();
}

#[test]
fn a_symlink_inside_the_repository_is_fine() {
    let p = Sota::new()
        .git_init()
        .file("config/matrix.toml", MATRIX)
        .file("k/a.cu", "x\n");
    std::os::unix::fs::symlink("config/matrix.toml", p.path().join("sota.toml")).unwrap();
    p.run(&["list"]).success();
}

#[test]
fn a_root_outside_the_repository_is_refused() {
    let p = Sota::new().git_init().cwd("sub/dir").file(
        "sub/dir/sota.toml",
        &MATRIX.replace(
            "name = \"demo\"",
            "name = \"demo\"\nroot = \"../../../../../../..\"",
        ),
    );
    for args in [&["coverage"][..], &["list"][..], &["audit"][..]] {
        let run = p.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(
            run.stderr.contains("outside the repository"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("--allow-outside-repo"),
            "{}",
            run.stderr
        );
        assert!(!run.stdout.contains("passwd"), "{run:?}");
    }
    let gate = p.run(&["gate", "--paths", "k/a.cu"]);
    assert!(gate.stderr.contains("outside the repository"), "{gate:?}");
    // A root inside the repository is fine.
    let p = Sota::new().git_init().cwd("sub/dir").file(
        "sub/dir/sota.toml",
        &MATRIX.replace("name = \"demo\"", "name = \"demo\"\nroot = \"../..\""),
    );
    p.run(&["coverage"]).success();
}

#[test]
fn a_root_through_a_symlink_is_judged_by_where_it_leads() {
    let p = Sota::new().git_init().file(
        "sota.toml",
        &MATRIX.replace("name = \"demo\"", "name = \"demo\"\nroot = \"up\""),
    );
    std::os::unix::fs::symlink("/", p.path().join("up")).unwrap();
    let run = p.run(&["coverage"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("outside the repository"),
        "{}",
        run.stderr
    );
    let opted = p.run(&["--allow-outside-repo", "list"]);
    opted.success();
}

#[test]
fn an_explicit_matrix_flag_is_trusted_but_its_root_is_confined() {
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("m.toml"), MATRIX).unwrap();
    let p = Sota::new().git_init().file("k/a.cu", "x\n");
    let m = elsewhere.path().join("m.toml");
    p.run(&["--matrix", m.to_str().unwrap(), "list"]).success();
    // $SOTA_MATRIX is the user's choice too.
    let via_env = Sota::new()
        .env("SOTA_MATRIX", m.to_str().unwrap())
        .git_init();
    via_env.run(&["list"]).success();
    std::fs::write(
        &m,
        MATRIX.replace("name = \"demo\"", "name = \"demo\"\nroot = \"..\""),
    )
    .unwrap();
    let run = p.run(&["--matrix", m.to_str().unwrap(), "list"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("outside the repository"),
        "{}",
        run.stderr
    );
    p.run(&[
        "--matrix",
        m.to_str().unwrap(),
        "--allow-outside-repo",
        "list",
    ])
    .success();
}

// ─── 5. git option injection ──────────────────────────────────────────────

#[test]
fn a_range_is_never_read_as_a_git_option() {
    let p = repo();
    let target = p.path().join("pwned.txt");
    let opt = format!("--output={}", target.display());
    let gate = p.run(&["gate", &format!("--range={opt}")]);
    assert!(!target.exists(), "git wrote {}: {gate:?}", target.display());
    assert!(gate.stderr.contains("not a revision"), "{gate:?}");
    let strict = p.run(&["gate", "--strict", &format!("--range={opt}")]);
    assert!(!target.exists());
    assert_ne!(
        strict.code, 0,
        "--strict must not pass a refused range: {strict:?}"
    );
    let audit = p.run(&["audit", "--", &opt]);
    assert!(
        !target.exists(),
        "git wrote {}: {audit:?}",
        target.display()
    );
    assert_eq!(audit.code, 2, "{audit:?}");
    assert!(audit.stderr.contains("not a revision"), "{audit:?}");
    // Other options git would honour.
    for evil in ["--all", "-p", "--exec=touch pwned.txt"] {
        let run = p.run(&["audit", "--", evil]);
        assert_eq!(run.code, 2, "{evil}: {run:?}");
    }
    // A real range still works.
    p.run(&["audit", "HEAD"]).success();
    p.run(&["audit", "--", "HEAD~0"]).success();
}

#[test]
fn anchors_cannot_read_files_outside_the_root() {
    // `at` paths are root-relative, but `..` and symlinks could lead the
    // scorecard to read (and report on) any file, or hang on a FIFO.
    let secret = outside_file("root:x:0:0\n");
    let link = secret.path().to_str().unwrap().to_owned();
    let dotdot = format!("{}{link}/secret#root", "../".repeat(12));
    let at = format!("at = [\"up/secret#root\", \"{dotdot}\", \"fifo#x\"]");
    let p = Sota::new().git_init().file(
        "sota.toml",
        &MATRIX.replace(
            "sota = \"FlashAttention\"",
            &format!("sota = \"FlashAttention\"\n{at}"),
        ),
    );
    std::os::unix::fs::symlink(&link, p.path().join("up")).unwrap();
    assert!(Command::new("mkfifo")
        .arg(p.path().join("fifo"))
        .status()
        .unwrap()
        .success());
    let out = Command::new("timeout")
        .args(["10", env!("CARGO_BIN_EXE_sota"), "coverage", "--json"])
        .current_dir(p.path())
        .env("HOME", p.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(124), "coverage hung reading a FIFO");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items: Vec<String> = v["kpis"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["name"] == "at_exists")
        .flat_map(|k| k["items"].as_array().unwrap().clone())
        .map(|i| {
            i["subject"].as_str().unwrap_or("").to_owned() + " " + i["why"].as_str().unwrap_or("")
        })
        .collect();
    assert!(
        items.iter().filter(|i| i.contains("secret")).count() == 2,
        "both anchors outside the root must count as broken: {items:#?}"
    );
}

#[test]
fn a_stale_markdown_region_cannot_inject_through_the_render_diff() {
    // `sota render FILE --check` in CI prints the file's old region lines.
    let p = Sota::new().git_init().file("sota.toml", MATRIX).file(
        "docs/k.md",
        "# Kernels\n\n<!-- sota:matrix -->\nold\r::error title=x::from-markdown \u{1b}]0;pwned\u{7}\n<!-- /sota:matrix -->\n",
    );
    let run = p.run(&["render", "docs/k.md", "--check"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("from-markdown"), "{run:?}");
    no_workflow_command(&run.stdout, "render --check");
    no_escape(&run.stdout, "render --check");
}

#[test]
fn github_annotations_escape_properties_and_data() {
    // `,` and `:` end a property, `%` starts an escape, `::` a command.
    let p = repo();
    let name = "k/a,b:c%0A::error::x.cu";
    touch(&p, name, "1\n");
    p.git(&["add", "-A"]).success();
    let gh = p.run(&["gate", "--format", "github"]);
    only_sota_annotations(&gh.stdout, "gate --format github");
    assert!(
        gh.stdout
            .contains("file=k/a%2Cb%3Ac%250A%3A%3Aerror%3A%3Ax.cu,"),
        "{gh:?}"
    );
    assert_eq!(gh.stdout.lines().count(), 1, "{gh:?}");
}

#[test]
fn init_force_never_writes_through_a_sota_toml_link_outside_the_repository() {
    let outside = outside_file("precious = true\n");
    let target = outside.path().join("secret");
    let p = Sota::new()
        .git_init()
        .file("k/attn.cu", "__global__ void flash_fwd() {}\n");
    std::os::unix::fs::symlink(&target, p.path().join("sota.toml")).unwrap();
    p.commit("a link");
    let run = p.run(&["init", "--force"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("refusing to write the matrix")
            && run.stderr.contains("outside the repository"),
        "{run:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "precious = true\n"
    );
    assert!(std::fs::symlink_metadata(p.path().join("sota.toml"))
        .unwrap()
        .file_type()
        .is_symlink());
    // A link that stays inside is written through, as a user sees it.
    std::fs::remove_file(p.path().join("sota.toml")).unwrap();
    std::fs::write(p.path().join("matrix.toml"), "old\n").unwrap();
    std::os::unix::fs::symlink("matrix.toml", p.path().join("sota.toml")).unwrap();
    p.run(&["init", "--force"]).success();
    let written = std::fs::read_to_string(p.path().join("matrix.toml")).unwrap();
    assert!(written.contains("[[op]]"), "{written}");
}

#[test]
fn a_symbol_anchor_sota_will_not_read_is_missing_with_its_reason() {
    // Tracked symlinks: dangling, leading outside, to a device; and a
    // directory. None has a readable text, so no `#symbol` can pass.
    let secret = outside_file("flash_fwd\n");
    let at = r#"at = ["dangling.cu#flash_fwd", "out.cu#flash_fwd", "dev.cu#flash_fwd", "fifo.cu#flash_fwd", "k#flash_fwd", "k/base.cu#base"]"#;
    let p = Sota::new().git_init().file(
        "sota.toml",
        &MATRIX.replace(
            "sota = \"FlashAttention\"",
            &format!("sota = \"FlashAttention\"\n{at}"),
        ),
    );
    touch(&p, "k/base.cu", "void base() {}\n");
    std::os::unix::fs::symlink("nowhere.cu", p.path().join("dangling.cu")).unwrap();
    std::os::unix::fs::symlink(secret.path().join("secret"), p.path().join("out.cu")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", p.path().join("dev.cu")).unwrap();
    p.commit("links");
    let fifo = p.path().join("fifo.cu");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let v = p.run(&["coverage", "--json"]).json();
    let broken: Vec<String> = v["kpis"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["name"] == "at_exists")
        .flat_map(|k| k["items"].as_array().unwrap().clone())
        .map(|i| i["why"].as_str().unwrap_or("").to_owned())
        .collect();
    for (anchor, reason) in [
        ("dangling.cu", "leads outside the root or nowhere"),
        ("out.cu", "leads outside the root or nowhere"),
        ("dev.cu", "leads outside the root or nowhere"),
        ("fifo.cu", "not a regular file"),
        ("k ", "not a regular file"),
    ] {
        assert!(
            broken
                .iter()
                .any(|w| w.starts_with(anchor.trim()) && w.contains(reason)),
            "{anchor}: {broken:#?}"
        );
    }
    assert_eq!(broken.len(), 5, "the readable anchor holds: {broken:#?}");
}

#[test]
fn an_advisory_gate_exits_zero_even_when_its_output_cannot_be_written() {
    let p = repo();
    touch(&p, "k/new.cu", "1\n");
    p.git(&["add", "-A"]).success();
    let full = || {
        std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sota"))
            .args(args)
            .current_dir(p.path())
            .env("HOME", p.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("SOTA_MATRIX")
            .stdout(full())
            .output()
            .unwrap()
    };
    let advisory = run(&["gate"]);
    assert_eq!(advisory.status.code(), Some(0), "{advisory:?}");
    assert!(!advisory.stderr.is_empty(), "it says why nothing showed");
    let strict = run(&["gate", "--strict"]);
    assert_eq!(strict.status.code(), Some(2), "{strict:?}");
}

#[test]
fn a_commit_with_no_author_date_is_counted_not_fatal_on_a_long_history() {
    let p = repo();
    touch(&p, "k/base.cu", "undated\n");
    p.git(&["add", "-A"]).success();
    let tree = p.git(&["write-tree"]).stdout.trim().to_owned();
    let parent = head(&p, "HEAD");
    let object = format!(
        "tree {tree}\nparent {parent}\nauthor A U <a@x>\ncommitter C <c@x> 1700000000 +0000\n\nno date\n\nPrior-art: FlashAttention\n"
    );
    let raw = p.path().join(".git/RAW_COMMIT");
    std::fs::write(&raw, object).unwrap();
    let undated = p
        .git(&[
            "hash-object",
            "-t",
            "commit",
            "-w",
            "--literally",
            raw.to_str().unwrap(),
        ])
        .stdout
        .trim()
        .to_owned();
    p.git(&["reset", "-q", "--hard", &undated]).success();
    // Long enough that git is still writing when sota stops reading.
    for i in 1..=300 {
        touch(&p, "k/base.cu", &format!("{i}\n"));
        p.git(&[
            "commit",
            "-q",
            "-am",
            &format!("c{i}\n\nPrior-art: FlashAttention"),
        ])
        .success();
    }
    // --all: its committer date (2023) is older than the matrix's first
    // commit, so the default, history since adoption, would leave it out.
    let run = p.run(&["audit", "--all", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    let commits = v["commits"].as_array().unwrap();
    assert!(
        commits
            .iter()
            .any(|c| c["hash"] == undated.as_str() && c["date"] == "unknown"),
        "the undated commit is listed, with its date unknown"
    );
}
