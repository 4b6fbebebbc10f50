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
