//! Every command in every format, run in a repository whose tracked file
//! names (and tensor names) are hostile: nothing sota prints may carry a
//! raw control, bidi or line-separator character, and no line may start
//! with `::` unless it is an annotation sota meant to write
//! (docs/SECURITY.md, "Untrusted text").

use crate::harness::{Run, Sota};

/// File names git accepts that a terminal or a CI log would act on.
const HOSTILE: &[&str] = &[
    "x\n::error title=PWN::i",
    "osc\u{1b}]8;;http:\u{7}link\u{1b}]8;;\u{7}",
    "csi\u{1b}[2Jclear",
    "c1\u{9b}31mred",
    "bidi\u{202e}evil",
    "ls\u{2028}sep",
    "ps\u{2029}para",
    "nel\u{85}next",
    "cr\r::warning::y",
    "::notice::lead",
    "zw\u{200b}joiner",
    "del\u{7f}x",
];

const MATRIX: &str = r#"
[project]
name = "hostile"
reviewed = 2026-06-26

[kernels]
include = ["k/", "u/"]

[[op]]
slug = "attn"
title = "Attention"
files = ["k/"]
at = ["k/ok_attention.cu#flash_fwd"]
sota = "FlashAttention"
link = "https://github.com/Dao-AILab/flash-attention"
route = "borrow"
oracle = "naive softmax(QK^T)V in f64"
check = [{ metric = "cosine", min = 0.999 }]
"#;

fn write(p: &Sota, rel: &str, text: &[u8]) {
    let full = p.path().join(rel);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// A repository with hostile kernel names covered (`k/`) and uncovered
/// (`u/`), a commit touching them, and a staged change to each.
fn hostile_repo() -> Sota {
    let p = Sota::new().git_init().file("sota.toml", MATRIX);
    write(&p, "k/ok_attention.cu", b"__global__ void flash_fwd() {}\n");
    p.commit("initial\n\nPrior-art: FlashAttention (Dao-AILab/flash-attention)");
    for (i, name) in HOSTILE.iter().enumerate() {
        let body = format!("__global__ void softmax_attention_{i}() {{}}\n");
        write(&p, &format!("k/{name}_attention.cu"), body.as_bytes());
        write(
            &p,
            &format!("u/{name}_gemm.cu"),
            b"__global__ void gemm() {}\n",
        );
    }
    p.commit("hostile names");
    for (i, name) in HOSTILE.iter().enumerate() {
        let body = format!("__global__ void softmax_attention_{i}() {{ }}\n");
        write(&p, &format!("k/{name}_attention.cu"), body.as_bytes());
    }
    p.git(&["add", "-A"]).success();
    p
}

/// The first character a terminal or log viewer would act on, other than
/// the newline and tab sota writes, and the colours it never writes here
/// (NO_COLOR is set by the harness).
fn first_raw(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| {
        c != '\n'
            && c != '\t'
            && (c.is_control()
                || matches!(c,
                    '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
                    | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}'))
    })
}

/// Lines as the Actions runner reads them: split on LF and bare CR,
/// leading whitespace trimmed.
fn runner_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split(['\n', '\r']).map(str::trim_start)
}

#[track_caller]
fn clean(run: &Run, what: &str, annotations: bool) {
    assert!(
        run.code != 101 && !run.stderr.contains("panicked"),
        "{what} panicked: {run:?}"
    );
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if let Some((at, c)) = first_raw(text) {
            let from = text[..at].rfind('\n').map_or(0, |i| i + 1);
            panic!(
                "{what} {stream}: raw U+{:04X} in {:?}",
                c as u32,
                &text[from..(at + 40).min(text.len())]
            );
        }
        for line in runner_lines(text) {
            if !line.starts_with("::") {
                continue;
            }
            let meant = annotations
                && stream == "stdout"
                && [
                    "::error file=",
                    "::warning file=",
                    "::notice title=sota",
                    "::notice::",
                ]
                .iter()
                .any(|p| line.starts_with(p));
            assert!(meant, "{what} {stream}: a line sota did not mean: {line:?}");
        }
    }
}

#[test]
fn no_command_or_format_prints_a_hostile_name_raw() {
    let p = hostile_repo();
    let base = p.git(&["rev-list", "--max-parents=0", "HEAD"]).stdout;
    let range = format!("{}..HEAD", base.trim());
    let runs: &[(&[&str], bool)] = &[
        (&["list"], false),
        (&["k/"], false),
        (&["attn"], false),
        (&["coverage"], false),
        (&["coverage", "--json"], false),
        (&["coverage", "--format", "github"], true),
        (&["coverage", "--format", "sarif"], false),
        (&["gate"], false),
        (&["gate", "--json"], false),
        (&["gate", "--format", "github"], true),
        (&["gate", "--format", "short"], false),
        (&["gate", "--format", "sarif"], false),
        (&["gate", "--range", &range], false),
        (&["gate", "--range", &range, "--format", "github"], true),
        (&["audit"], false),
        (&["audit", "--json"], false),
        (&["audit", "--format", "github"], true),
        (&["suggest"], false),
        (&["suggest", "--json"], false),
        (&["init", "--dry-run"], false),
        (&["init", "--dry-run", "--json"], false),
        (&["milestones"], false),
    ];
    for (args, annotations) in runs {
        let run = p.run(args);
        clean(&run, &format!("sota {}", args.join(" ")), *annotations);
    }
    // The HTML page (written to a file) holds no raw character either.
    let page = p.path().join(".git/page.html");
    let run = p.run(&["report", "--html", page.to_str().unwrap()]);
    clean(&run, "sota report --html", false);
    let html = std::fs::read_to_string(&page).unwrap();
    if let Some((at, c)) = first_raw(&html) {
        panic!(
            "report --html: raw U+{:04X} near {:?}",
            c as u32,
            &html[at.saturating_sub(60)..at]
        );
    }
    // Each hostile file looked up by its own name.
    for name in HOSTILE {
        let file = format!("k/{name}_attention.cu");
        clean(&p.run(&[&file]), &format!("sota {file:?}"), false);
        clean(&p.run(&["suggest", &file]), "suggest FILE", false);
    }
}

#[test]
fn init_leaves_out_names_a_matrix_cannot_hold_and_its_draft_loads() {
    let p = Sota::new().git_init();
    write(&p, "k/ok_attention.cu", b"__global__ void flash_fwd() {}\n");
    for name in HOSTILE {
        let body = b"__global__ void softmax_attention() {}\n";
        write(&p, &format!("k/{name}_attention.cu"), body);
    }
    p.commit("hostile names");
    let run = p.run(&["init"]);
    run.success();
    clean(&run, "sota init", false);
    // The draft loads: init does not hand the team a file sota refuses.
    p.run(&["list"]).success();
    let json = p.run(&["init", "--dry-run", "--json", "--force"]).json();
    let left_out: Vec<&str> = json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["role"] == "unwritable-name")
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    let safe_names = ["::notice::lead"];
    let expected = HOSTILE.len() - safe_names.len();
    assert_eq!(left_out.len(), expected, "{left_out:?}");
}
