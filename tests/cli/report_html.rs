//! `sota report --html`: the page is self-contained (no scripts, fonts or
//! network), written through the real binary, and drawn by a real headless
//! Chromium (Debian's `chromium`): no console errors, the ladder rungs and
//! the compliance chart in the rendered DOM, a screenshot kept under
//! `target/report-html/` for a person to look at.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::Sota;

const MATRIX: &str = r#"[project]
name = "report <demo>"
reviewed = 2026-06-26

[kernels]
include = ["kernels/**"]

[[op]]
slug = "fused-attention"
title = "Fused attention"
files = ["kernels/attn/"]
at = ["kernels/attn/flash.cu#flash_fwd"]
sota = "FlashAttention-2 <script>alert(1)</script>"
link = "https://github.com/Dao-AILab/flash-attention"
route = "stay-minimal"
oracle = "naive attention, cosine >= 0.999"

[[op]]
slug = "int4-gemm"
title = "INT4 GEMM"
files = ["kernels/gemm/*.cu"]
at = ["kernels/gemm/w4.cu"]
sota = "Marlin"

[[ladder]]
axis = "attention"
reached = "FlashAttention-1"
witness = "fused-attention"

[[ladder.rung]]
name = "FlashAttention-1"
year = 2022
summary = "IO-aware tiling + online softmax"

[[ladder.rung]]
name = "FlashAttention-2"
year = 2023
summary = "better work partitioning"

[[ladder.rung]]
name = "FlashAttention-3"
year = 2024
summary = "asynchrony and FP8 on Hopper"
"#;

fn repo() -> Sota {
    let p = Sota::new()
        .git_init()
        .file("sota.toml", MATRIX)
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n")
        .file("kernels/gemm/w4.cu", "// w4\n");
    p.commit("initial");
    std::fs::write(p.path().join("kernels/gemm/w4.cu"), "// w4 v2\n").unwrap();
    p.commit("faster w4\n\nPrior-art: Marlin (IST-DASLab/marlin)");
    p
}

fn write_page(p: &Sota) -> (PathBuf, String) {
    let run = p.run(&["report", "--html", "out/report.html"]);
    // The directory does not exist yet: a clear error, exit 2.
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("cannot write out/report.html"),
        "{run:?}"
    );
    let run = p.run(&["report", "--html", "report.html"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "wrote report.html\n");
    let path = p.path().join("report.html");
    let html = std::fs::read_to_string(&path).unwrap();
    (path, html)
}

#[test]
fn the_page_is_self_contained_and_escapes_matrix_text() {
    let p = repo();
    let (_, html) = write_page(&p);
    assert!(html.starts_with("<!doctype html>"));
    for banned in [
        "<script",
        "<link",
        "@import",
        "src=\"http",
        "url(",
        "@font-face",
    ] {
        assert!(!html.contains(banned), "{banned} in the page");
    }
    assert!(html.contains("FlashAttention-2 &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("<title>sota report — report &lt;demo&gt;</title>"));
    // Real table markup and labelled drawings.
    assert!(html.contains("<th scope=\"col\">op</th>"));
    assert_eq!(html.matches("<svg class=\"rungs\"").count(), 1);
    assert!(html.contains("reached L1 FlashAttention-1; next L2 FlashAttention-2"));
    assert_eq!(html.matches("class=\"rung rung-").count(), 3);
    assert!(html.contains("<svg class=\"chart\""));
    assert!(html.contains("class=\"grade grade-"));
    // 2 kernel commits in 2026-06, one stamped.
    assert!(html.contains(
        "<th scope=\"row\">2026-06</th><td class=\"num\">2</td><td class=\"num\">1</td>"
    ));
}

/// Debian's Chromium, if installed.
fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

fn headless(profile: &Path) -> Command {
    let mut cmd = Command::new(chromium().unwrap());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .env("HOME", profile);
    cmd
}

#[test]
fn a_real_browser_draws_the_page_without_console_errors() {
    if chromium().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install chromium (.ci/run: apt-get install -y chromium)"
        );
        eprintln!("SKIPPED: chromium is not installed (apt-get install -y chromium)");
        return;
    }
    let p = repo();
    let (path, _) = write_page(&p);
    let url = format!("file://{}", path.display());

    // The DOM as the browser built it, and its console on stderr.
    let profile = tempfile::tempdir().unwrap();
    let out = headless(profile.path())
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom"])
        .arg(&url)
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium failed: {log}");
    let console: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(console.is_empty(), "console output: {console:#?}");
    assert!(dom.contains("<svg class=\"rungs\""), "{dom}");
    assert_eq!(dom.matches("class=\"rung rung-reached\"").count(), 1);
    assert_eq!(dom.matches("class=\"rung rung-next\"").count(), 1);
    assert!(dom.contains("<svg class=\"chart\""));
    assert!(dom.contains("<g class=\"bar\">"));

    // A phone-sized screenshot and a desktop one, kept for people to see.
    let keep = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/report-html");
    std::fs::create_dir_all(&keep).unwrap();
    std::fs::copy(&path, keep.join("report.html")).unwrap();
    for (name, size) in [("desktop.png", "1200,1600"), ("phone.png", "390,1800")] {
        let shot = keep.join(name);
        let _ = std::fs::remove_file(&shot);
        let profile = tempfile::tempdir().unwrap();
        let out = headless(profile.path())
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("--window-size={size}"))
            .arg("--hide-scrollbars")
            .arg(&url)
            .output()
            .expect("run chromium");
        assert!(
            shot.metadata().is_ok_and(|m| m.len() > 10_000),
            "no screenshot {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A real-size matrix: forty ops with the long references, unbroken links
/// and long oracles real matrices carry.
fn real_size_matrix() -> String {
    let mut m = String::from("[project]\nname = \"real size\"\nreviewed = 2026-06-26\n");
    for i in 0..40 {
        m.push_str(&format!(
            r#"
[[op]]
slug = "paged-attention-decode-split-k-fp8-kv-cache-{i}"
title = "Paged attention decode with split-K over an FP8 KV cache, variant {i}"
files = ["kernels/op{i}/"]
sota = "FlashInfer batch decode with paged KV and cascade inference; vLLM PagedAttention v2 (vllm-project/vllm) csrc/attention/paged_attention_v2_kernel.cu; FlashAttention-3 FP8 (Dao-AILab/flash-attention)"
link = "https://github.com/flashinfer-ai/flashinfer/blob/main/include/flashinfer/attention/decode_kernel_with_paged_kv_cache_and_split_k_{i}.cuh"
route = "borrow"
oracle = "naive_f32_attention_over_every_batch_head_and_query_position_against_torch.nn.functional.scaled_dot_product_attention (cosine >= 0.999, max-abs <= 1e-3)"
"#
        ));
    }
    m
}

#[test]
fn the_matrix_table_fits_1280_pixels_on_a_real_size_matrix() {
    if chromium().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install chromium (.ci/run: apt-get install -y chromium)"
        );
        eprintln!("SKIPPED: chromium is not installed (apt-get install -y chromium)");
        return;
    }
    let p = Sota::new()
        .git_init()
        .file("sota.toml", &real_size_matrix());
    p.commit("initial");
    p.run(&["report", "--html", "report.html"]).success();
    // The page has no scripts; a copy with one measuring probe appended
    // asks the browser where the matrix table ends at 1280 px.
    let page = std::fs::read_to_string(p.path().join("report.html")).unwrap();
    let probe = r#"<script>
const t = [...document.querySelectorAll('table')].find(t => t.caption && t.caption.textContent.startsWith('Every op'));
const w = t.parentElement;
document.body.setAttribute('data-fit', [Math.ceil(t.getBoundingClientRect().right), document.documentElement.clientWidth, w.scrollWidth, w.clientWidth].join(' '));
</script></body>"#;
    let probed = p.path().join("probed.html");
    std::fs::write(&probed, page.replace("</body>", probe)).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = headless(profile.path())
        .args(["--window-size=1280,900", "--dump-dom"])
        .arg(format!("file://{}", probed.display()))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let fit: Vec<i64> = dom
        .split("data-fit=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("no measurement in the DOM: {dom}"))
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    let [right, viewport, scroll, client] = fit[..] else {
        panic!("{fit:?}")
    };
    assert!(
        right <= viewport,
        "the matrix table ends at {right} px, past the {viewport} px viewport"
    );
    assert!(
        scroll <= client,
        "the matrix table scrolls: {scroll} px of content in a {client} px box (the oracle column hidden)"
    );
}
