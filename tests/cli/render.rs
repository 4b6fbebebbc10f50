//! `sota render`: only the marked regions change, --check catches drift,
//! marker mistakes name their line.

use crate::harness::{Sota, SMALL};

const DOC: &str = "# Kernels\r\n\r\nHand-written intro with trailing spaces   \r\n\r\n<!-- sota:matrix -->\r\nstale table\r\n<!-- /sota:matrix -->\r\n\r\nMiddle text.\r\n<!-- sota:milestones -->\r\n<!-- /sota:milestones -->\r\nNo newline at the end";

#[test]
fn render_rewrites_only_the_marked_regions_byte_for_byte() {
    let p = Sota::new()
        .file("sota.toml", SMALL)
        .file("docs/kernels.md", DOC);
    let check = p.run(&["render", "docs/kernels.md", "--check"]);
    assert_eq!(check.code, 1, "stale before rendering");
    assert!(check.stdout.contains("-stale table"), "{}", check.stdout);
    assert!(check.stderr.contains("is stale"));
    assert_eq!(
        std::fs::read_to_string(p.path().join("docs/kernels.md")).unwrap(),
        DOC,
        "--check writes nothing"
    );

    let run = p.run(&["render", "docs/kernels.md"]);
    run.success();
    let after = std::fs::read_to_string(p.path().join("docs/kernels.md")).unwrap();
    assert!(after.starts_with("# Kernels\r\n\r\nHand-written intro with trailing spaces   \r\n\r\n<!-- sota:matrix -->\r\n| Operation |"));
    assert!(after.contains(
        "<!-- /sota:matrix -->\r\n\r\nMiddle text.\r\n<!-- sota:milestones -->\r\n| Axis |"
    ));
    assert!(after.ends_with("<!-- /sota:milestones -->\r\nNo newline at the end"));
    assert!(after.contains("| Fused attention (MHA/GQA) | `kernels/attn/flash.cu#flash_fwd` | [FlashAttention; FlashInfer](https://github.com/Dao-AILab/flash-attention) | stay-minimal |"), "{after}");
    assert!(
        after.contains("| attention | L1 FlashAttention-1 (2022) | L2 FlashAttention-2 (2023) |"),
        "{after}"
    );
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "line endings kept: CRLF throughout"
    );

    let again = p.run(&["render", "docs/kernels.md", "--check"]);
    assert_eq!(again.code, 0, "{again:?}");
    insta::assert_snapshot!("render_small", after.replace('\r', "␍"));
}

#[test]
fn marker_mistakes_are_errors_that_name_the_line() {
    let p = Sota::new()
        .file("sota.toml", SMALL)
        .file("a.md", "x\n<!-- sota:matrix -->\ny\n")
        .file("b.md", "<!-- sota:matrix -->\n<!-- /sota:matrix -->\n<!-- sota:matrix -->\n<!-- /sota:matrix -->\n");
    let a = p.run(&["render", "a.md"]);
    assert_eq!(a.code, 2);
    assert!(
        a.stderr.contains("a.md:2:") && a.stderr.contains("never closed"),
        "{}",
        a.stderr
    );
    let b = p.run(&["render", "b.md"]);
    assert_eq!(b.code, 2);
    assert!(
        b.stderr.contains("b.md:3:") && b.stderr.contains("second time"),
        "{}",
        b.stderr
    );
    assert_eq!(
        std::fs::read_to_string(p.path().join("a.md")).unwrap(),
        "x\n<!-- sota:matrix -->\ny\n"
    );
}

/// Issue 15: a render keeps the file's mode, writes through a symlink,
/// leaves code fences alone and refuses lone-CR files.
#[cfg(unix)]
#[test]
fn render_keeps_mode_and_symlinks_and_skips_code_fences() {
    use std::os::unix::fs::PermissionsExt;
    let doc = "```md\n<!-- sota:matrix -->\nexample\n<!-- /sota:matrix -->\n```\n<!-- sota:matrix -->\nold\n<!-- /sota:matrix -->\n";
    let p = Sota::new()
        .file("sota.toml", SMALL)
        .file("shared/real.md", doc);
    let real = p.path().join("shared/real.md");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o664)).unwrap();
    std::os::unix::fs::symlink("shared/real.md", p.path().join("doc.md")).unwrap();
    p.run(&["render", "doc.md"]).success();
    assert!(std::fs::symlink_metadata(p.path().join("doc.md"))
        .unwrap()
        .file_type()
        .is_symlink());
    let after = std::fs::read_to_string(&real).unwrap();
    assert!(after.starts_with("```md\n<!-- sota:matrix -->\nexample\n<!-- /sota:matrix -->\n```\n<!-- sota:matrix -->\n| Operation |"), "{after}");
    let mode = std::fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o664);
    p.run(&["render", "doc.md", "--check"]).success();

    std::fs::write(
        p.path().join("mac.md"),
        "intro\r<!-- sota:matrix -->\rold\r<!-- /sota:matrix -->\r",
    )
    .unwrap();
    let mac = p.run(&["render", "mac.md"]);
    assert_eq!(mac.code, 2, "{mac:?}");
    assert!(mac.stderr.contains("carriage return"), "{}", mac.stderr);
}

/// `kill -9` in the middle of a render's write leaves the old file and no
/// temporary file for `git add -A` to pick up. strace delivers SIGKILL
/// exactly when the written data is being synced (`fsync`), and again when
/// it is about to get its temporary name (`linkat`): before the fix a
/// complete `.sota-*.tmp` copy was left behind at the first point.
#[cfg(target_os = "linux")]
#[test]
fn a_render_killed_mid_write_leaves_no_temporary_file() {
    let Some(strace) = crate::harness::strace("the kill -9 render test") else {
        return;
    };
    let doc = "<!-- sota:matrix -->\nold\n<!-- /sota:matrix -->\n";
    let p = Sota::new().file("sota.toml", SMALL).file("doc.md", doc);
    for syscall in ["fsync", "linkat"] {
        assert!(
            p.killed_at(&strace, syscall, &["render", "doc.md"]),
            "{syscall}: the render was killed"
        );
        let names: Vec<String> = std::fs::read_dir(p.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names.iter().any(|n| n.ends_with(".tmp")),
            "killed at {syscall}: {names:?}"
        );
        assert_eq!(
            std::fs::read_to_string(p.path().join("doc.md")).unwrap(),
            doc
        );
    }
}
