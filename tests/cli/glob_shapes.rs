//! Every glob shape of the dialect through the real binary: the gate and
//! a file lookup agree with SPEC section 2 on a matrix that mixes them.

use crate::harness::Sota;

fn op(slug: &str, glob: &str) -> String {
    format!("[[op]]\nslug = \"{slug}\"\ntitle = \"t\"\nsota = \"s\"\nfiles = ['{glob}']\n\n")
}

fn matrix() -> String {
    let mut m = String::from("[project]\nname = \"shapes\"\n\n");
    for (slug, glob) in [
        ("brace-dirs", "{csrc/x/**,include/x/y*.cuh}"),
        ("mid-star", "csrc/**/attention/**"),
        ("star-dir", "src/cpu/*/gemm/*.cpp"),
        ("empty-alt", "k/x.cu{,h}"),
        ("class", "t/test_[0-9]*.py"),
        ("question", "t/v?.py"),
        ("nested", "{a,b/{c,d}}/*.cu"),
        ("dir", "docs/kern/"),
    ] {
        m.push_str(&op(slug, glob));
    }
    m
}

fn staged_slugs(paths: &[&str]) -> Vec<String> {
    let mut p = Sota::new()
        .git_init()
        .file("sota.toml", &matrix())
        .file("README.md", "x\n");
    p.commit("initial");
    for path in paths {
        p = p.file(path, "x\n");
        p.git(&["add", "--", path]).success();
    }
    let v = p.run(&["gate", "--json"]).json();
    v["touched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn each_shape_flags_its_own_files() {
    let slugs = staged_slugs(&[
        "include/x/y1.cuh",
        "csrc/a/attention/b/f.cu",
        "src/cpu/avx/gemm/g.cpp",
        "k/x.cuh",
        "t/test_7.py",
        "t/v2.py",
        "b/d/k.cu",
        "docs/kern/deep/page.md",
    ]);
    assert_eq!(
        slugs,
        [
            "brace-dirs",
            "class",
            "dir",
            "empty-alt",
            "mid-star",
            "nested",
            "question",
            "star-dir"
        ]
    );
}

#[test]
fn near_misses_flag_nothing() {
    let slugs = staged_slugs(&[
        "include/x/sub/y1.cuh",       // `*` stays in one segment
        "csrc/x",                     // `csrc/x/**` needs something under it
        "src/cpu/avx/sub/gemm/g.cpp", // `*` is one directory
        "k/x.cuhh",
        "t/test_a.py", // class [0-9]
        "t/v10.py",    // `?` is one character
        "b/k.cu",      // nested branch is `b/c` or `b/d`
        "docs/kern",   // a directory glob does not match the directory
    ]);
    assert!(slugs.is_empty(), "{slugs:?}");
}

#[test]
fn a_double_star_branch_of_a_brace_matches_any_file() {
    let p = Sota::new().file(
        "sota.toml",
        &op("anything", "{**,k/a}").replace("[[op]]", "[project]\nname = \"x\"\n\n[[op]]"),
    );
    let run = p.run(&["deep/er/a.cu/a"]);
    run.success();
    assert!(run.stdout.contains("anything"), "{run:?}");
}
