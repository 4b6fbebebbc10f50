//! The soft KPIs `overlap` and `broad_glob` (SPEC 3.4, issue 30 item 4):
//! a glob like the one `sota suggest --write` used to write (the whole
//! top folder, because the targets filled their directory) shows up in the
//! scorecard instead of hiding every other op's debt.

use crate::harness::Sota;

const DIRS: [&str; 10] = [
    "attn", "gemm", "norm", "rope", "softmax", "conv", "pool", "quant", "moe", "sampling",
];

/// Ten ops, one directory of two kernel files each; `conv` also carries
/// `extra` globs.
fn tree(extra: &str) -> Sota {
    let mut matrix = String::from(
        "[project]\nname = \"spread\"\nreviewed = 2026-06-26\n\n[kernels]\ninclude = [\"csrc/**/*.cu\"]\n",
    );
    let mut p = Sota::new().git_init();
    for d in DIRS {
        let files = if d == "conv" {
            format!("[\"csrc/{d}/\"{extra}]")
        } else {
            format!("[\"csrc/{d}/\"]")
        };
        matrix.push_str(&format!(
            "\n[[op]]\nslug = \"{d}\"\ntitle = \"{d}\"\nfiles = {files}\nat = [\"csrc/{d}/a.cu\"]\nsota = \"Ref {d}\"\nlink = \"https://example.org/{d}\"\nroute = \"stay-minimal\"\noracle = \"f64 reference\"\n"
        ));
        p = p
            .file(&format!("csrc/{d}/a.cu"), "// a\n")
            .file(&format!("csrc/{d}/b.cu"), "// b\n");
    }
    p = p.file("sota.toml", &matrix);
    p.commit("tree");
    p
}

/// The scorecard KPI `name` of a `sota coverage --json` payload.
pub(crate) fn kpi(v: &serde_json::Value, name: &str) -> serde_json::Value {
    v["kpis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {v}"))
        .clone()
}

#[test]
fn one_op_per_directory_has_no_overlap_and_no_broad_glob() {
    let p = tree("");
    let v = p
        .run(&["coverage", "--json", "--today", "2026-07-01"])
        .json();
    assert_eq!(kpi(&v, "overlap")["debt"], 0, "{v}");
    assert_eq!(kpi(&v, "broad_glob")["debt"], 0, "{v}");
    assert_eq!(v["sota_debt"], 0, "{v}");
}

#[test]
fn a_suggest_style_top_folder_glob_shows_as_broad_and_overlapping() {
    let p = tree(", \"csrc/\"");
    let run = p.run(&["coverage", "--json", "--today", "2026-07-01"]);
    run.success();
    let v = run.json();
    let overlap = kpi(&v, "overlap");
    assert_eq!(
        overlap["debt"], 18,
        "every file outside conv/ is in two ops: {v}"
    );
    let broad = kpi(&v, "broad_glob");
    assert_eq!(broad["debt"], 1, "{v}");
    assert_eq!(broad["items"][0]["owner"], "conv");
    assert_eq!(broad["items"][0]["subject"], "csrc/");
    assert_eq!(v["hard_debt"], 0, "soft debt: --check still passes");
    assert_eq!(v["sota_debt"], 19, "SPEC 3.4: sota_debt sums every debt");
    p.run(&["coverage", "--check", "--today", "2026-07-01"])
        .success();
    insta::assert_json_snapshot!("coverage_spread_json", v);
    let human = p.run(&["coverage", "--today", "2026-07-01"]).stdout;
    insta::assert_snapshot!("coverage_spread_human", human);
}

#[test]
fn a_glob_spread_over_many_directories_is_broad_even_without_overlap() {
    // One op `misc` whose glob reaches twelve directories no other op
    // covers, beside ops of one directory each.
    let mut matrix = String::from(
        "[project]\nname = \"wide\"\nreviewed = 2026-06-26\n\n[kernels]\ninclude = [\"k/**/*.cu\"]\n",
    );
    let mut p = Sota::new().git_init();
    for d in ["attn", "gemm", "norm"] {
        matrix.push_str(&format!(
            "\n[[op]]\nslug = \"{d}\"\ntitle = \"{d}\"\nfiles = [\"k/{d}/\"]\nsota = \"S\"\n"
        ));
        p = p.file(&format!("k/{d}/x.cu"), "//\n");
    }
    matrix.push_str(
        "\n[[op]]\nslug = \"misc\"\ntitle = \"misc\"\nfiles = [\"k/misc/**/*.cu\"]\nsota = \"S\"\n",
    );
    for i in 0..12 {
        p = p.file(&format!("k/misc/d{i}/x.cu"), "//\n");
    }
    p = p.file("sota.toml", &matrix);
    p.commit("tree");
    let v = p
        .run(&["coverage", "--json", "--today", "2026-07-01"])
        .json();
    assert_eq!(kpi(&v, "overlap")["debt"], 0, "{v}");
    let broad = kpi(&v, "broad_glob");
    assert_eq!(broad["debt"], 1, "{v}");
    assert_eq!(broad["items"][0]["subject"], "k/misc/**/*.cu");
    assert!(
        broad["items"][0]["why"]
            .as_str()
            .unwrap()
            .contains("spans 12 directories (a typical op here spans 1)"),
        "{v}"
    );
}
