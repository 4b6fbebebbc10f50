//! The index against the reference matcher written from SPEC section 2:
//! fixed cases for the shapes people write, then a seeded random
//! differential run over every dialect feature.

use super::reference;
use super::*;

const TOML: &str = r#"
[project]
name = "t"

[[op]]
slug = "gemm"
title = "GEMM"
sota = "CUTLASS"
files = ["src/gemm/*.cu", "src/**/common.cuh"]

[[op]]
slug = "attn"
title = "Attention"
sota = "FlashAttention"
files = ["src/attn/", "src/**/common.cuh", "**/*.flash"]
"#;

#[test]
fn one_pass_returns_every_matching_op_once_in_matrix_order() {
    let m = Matrix::from_str(TOML, "sota.toml").unwrap();
    let mut idx = OpIndex::new(&m).unwrap();
    assert_eq!(idx.len(), 5);
    assert_eq!(
        idx.matches("src/gemm/k.cu"),
        vec![OpMatch { op: 0, glob: 0 }]
    );
    assert_eq!(
        idx.matches("src/x/common.cuh"),
        vec![OpMatch { op: 0, glob: 1 }, OpMatch { op: 1, glob: 1 }]
    );
    assert_eq!(
        idx.matches("src/attn/deep/fa.cu"),
        vec![OpMatch { op: 1, glob: 0 }]
    );
    assert_eq!(idx.matches("a/b/c.flash"), vec![OpMatch { op: 1, glob: 2 }]);
    assert!(idx.matches("src/gemm/sub/k.cu").is_empty());
    assert!(!idx.is_match("README.md"));
}

fn globs(texts: &[String]) -> Vec<FileGlob> {
    texts.iter().map(|t| FileGlob::new(t).unwrap()).collect()
}

/// Compare one index over all `texts` with the reference, path by path,
/// with the paths in the given order and then reversed (the per-directory
/// cache must not leak between paths). Returns the number of matches.
fn assert_agrees(texts: &[String], paths: &[String]) -> usize {
    let compiled = globs(texts);
    let expect: Vec<Vec<(usize, usize)>> = paths
        .iter()
        .map(|path| {
            texts
                .iter()
                .enumerate()
                .filter(|(_, g)| reference::matches(g, path))
                .map(|(i, _)| (i, 0))
                .collect()
        })
        .collect();
    let order: Vec<usize> = (0..paths.len()).chain((0..paths.len()).rev()).collect();
    let owned = || compiled.iter().enumerate().map(|(i, g)| ((i, 0), g));
    let each_path = |idx: &mut OpIndex<'_>, how: &str| {
        for &i in &order {
            let got = idx.all_hits(paths[i].as_bytes());
            disagree(texts, &paths[i], got, &expect[i], how);
        }
    };
    // Compiled lazily as paths reach the globs ...
    each_path(&mut OpIndex::from_globs(owned()), "lazy");
    // ... built for one path from only the globs that may reach it (a
    // lookup) ...
    for (path, expect) in paths.iter().zip(&expect) {
        let mut idx = OpIndex::from_globs_for_paths(owned(), &[path.as_str()]);
        disagree(
            texts,
            path,
            idx.all_hits(path.as_bytes()),
            expect,
            "one-path",
        );
    }
    // ... and compiled in full up front, shared read-only (coverage).
    let shared = OpIndex::with_shared_texts(owned()).into_shared();
    let mut matcher = shared.matcher();
    for &i in &order {
        let got = matcher.all_hits(paths[i].as_bytes());
        disagree(texts, &paths[i], got, &expect[i], "shared");
    }
    expect.iter().map(Vec::len).sum()
}

/// Panic with the globs only one side matched, if the sides differ.
fn disagree(
    texts: &[String],
    path: &str,
    got: &[(usize, usize)],
    expect: &[(usize, usize)],
    how: &str,
) {
    if got == expect {
        return;
    }
    let only = |a: &[(usize, usize)], b: &[(usize, usize)]| -> Vec<&str> {
        a.iter()
            .filter(|x| !b.contains(x))
            .map(|&(i, _)| texts[i].as_str())
            .collect()
    };
    panic!(
        "path {path:?}: the {how} index alone matches {:?}, the reference alone {:?}",
        only(got, expect),
        only(expect, got)
    );
}

#[test]
fn the_shapes_people_write_agree_with_the_reference() {
    let dirs = ["", "a/", "a/b/", "src/x.y/"];
    let tails = [
        "*.cu",
        "*",
        "k.cu",
        "k?.cu",
        "[ab].cu",
        "[!a]*.cu",
        "{k,l}.cu",
        "**",
        "**/*.cu",
        "*/k.cu",
        "k\\*.cu",
        "x.cu{,h}",
        "*.tar.gz",
        "{a/k.cu,b.cu}",
        "*k*",
        ".cu",
        "k*.cu",
        "*k",
        "**/k*.cu",
        "**/*",
        "**/k.cu",
        "**/{k,l}.cu",
        "k*c*u",
        "**/**/*.cu",
        "**/b/*.cu",
        "{**,k/a}",
        "{a/**,b/*.cu}",
        "**/b/**",
        "{,a/}k.cu",
        "{a,{b,c/d}}/",
        "a/",
        "a/{,b}",
        "a/{b/,c}",
        "{,a/}",
    ];
    let mut texts = Vec::new();
    for d in dirs {
        for t in tails {
            texts.push(format!("{d}{t}"));
        }
    }
    let names = [
        "k.cu", "l.cu", "a.cu", "b.cu", "ka.cu", "k*.cu", "x.cu", "x.cuh", "f.tar.gz", ".cu", "kk",
        "m.rs", "k.cu.bak", "k", "kcu", "a", "b",
    ];
    let mut paths = Vec::new();
    for d in [
        "",
        "a/",
        "a/b/",
        "a/b/c/",
        "src/x.y/",
        "src/x.y/a/",
        "z/",
        "k/",
        "a/k/",
        "b/",
        "c/d/",
    ] {
        for n in names {
            paths.push(format!("{d}{n}"));
        }
    }
    paths.sort();
    let matched = assert_agrees(&texts, &paths);
    assert!(matched > 1000, "{matched}");
}

#[test]
fn alternation_is_textual_so_a_double_star_branch_matches_everything() {
    let g = FileGlob::new("{**,k/a}").unwrap();
    for p in ["a.cu/a", "a/b", "k/a", "x"] {
        assert!(g.is_match(p), "{p}");
    }
    let g = FileGlob::new("x.cu{,h}").unwrap();
    assert!(g.is_match("x.cu") && g.is_match("x.cuh") && !g.is_match("x.cuhh"));
    let g = FileGlob::new("{csrc/x/**,include/x/y*.cuh}").unwrap();
    assert!(g.is_match("csrc/x/a/b.cu") && g.is_match("include/x/yz.cuh"));
    assert!(!g.is_match("csrc/x") && !g.is_match("include/x/sub/y.cuh"));
}

#[test]
fn the_largest_accepted_brace_expansion_compiles_and_matches_exactly() {
    // 16 × 16 × 16 = 4,096 alternatives, the most a glob may expand to.
    let hex = "{0,1,2,3,4,5,6,7,8,9,a,b,c,d,e,f}";
    let text = format!("k/{hex}{hex}/{hex}*.cu");
    assert_eq!(
        crate::glob::syntax::alternatives(&text).unwrap(),
        crate::glob::syntax::MAX_ALTERNATIVES
    );
    let g = FileGlob::new(&text).unwrap();
    let mut idx = OpIndex::from_globs([((0, 0), &g)]);
    for (path, hit) in [
        ("k/00/0.cu", true),
        ("k/af/f_gemm.cu", true),
        ("k/ff/9x.cu", true),
        ("k/0g/0.cu", false),
        ("k/a/f/0.cu", false),
        ("k/af/z.cu", false),
    ] {
        assert_eq!(!idx.all_hits(path.as_bytes()).is_empty(), hit, "{path}");
        assert_eq!(g.is_match(path), hit, "{path}");
    }
    // One more alternative is refused, naming the limit.
    let err = FileGlob::new(&format!("{text}{{,h}}")).unwrap_err();
    assert!(err.to_string().contains("4096"), "{err}");
}

use crate::test_rng::Rng;
const LETTERS: [char; 5] = ['a', 'b', 'k', '.', 'é'];

fn random_glob(rng: &mut Rng, depth: usize) -> String {
    let mut g = String::new();
    for _ in 0..1 + rng.below(4) {
        match rng.below(16) {
            0..=3 => g.push(rng.pick(&LETTERS)),
            4 => g.push('/'),
            5 => g.push_str("**/"),
            6 => g.push_str("/**"),
            7 | 8 => g.push('*'),
            9 => g.push('?'),
            10 => {
                g.push('[');
                if rng.below(2) == 0 {
                    g.push(rng.pick(&['!', '^']));
                }
                if rng.below(4) == 0 {
                    g.push('-');
                }
                for _ in 0..1 + rng.below(2) {
                    let a = rng.pick(&['a', 'b', 'k', '.', '/']);
                    g.push(a);
                    if rng.below(3) == 0 {
                        let b = rng.pick(&['a', 'b', 'k', 'z']);
                        if b >= a {
                            g.push('-');
                            g.push(b);
                        }
                    }
                }
                g.push(']');
            }
            11 => {
                g.push('\\');
                g.push(rng.pick(&['*', '?', '[', ']', '{', '}', ',', '\\', '!', '-']));
            }
            12 | 13 if depth < 3 => {
                g.push('{');
                for i in 0..1 + rng.below(3) {
                    if i > 0 {
                        g.push(',');
                    }
                    if rng.below(4) > 0 {
                        g.push_str(&random_glob(rng, depth + 1));
                    }
                }
                g.push('}');
            }
            14 => g.push(','),
            _ => g.push_str("a.cu"),
        }
    }
    g
}

fn random_path(rng: &mut Rng) -> String {
    let segs: Vec<String> = (0..1 + rng.below(4))
        .map(|_| match rng.below(4) {
            0 => rng
                .pick(&["a", "b", "k", "a.cu", "*", "{", ",", "-"])
                .to_owned(),
            _ => (0..1 + rng.below(3)).map(|_| rng.pick(&LETTERS)).collect(),
        })
        .collect();
    segs.join("/")
}

/// Random globs over every dialect feature and random paths over a small
/// alphabet (so matches are frequent), the index against the reference.
/// Each batch compiles 60 globs into one automaton and runs 120 paths
/// sorted, then shuffled, each order forwards and backwards.
#[test]
fn random_globs_and_paths_agree_with_the_reference() {
    let mut rng = Rng(0x5074_u64);
    let (mut pairs, mut matched) = (0usize, 0usize);
    for _ in 0..60 {
        let mut texts: Vec<String> = Vec::new();
        while texts.len() < 60 {
            // Some globs repeat an earlier one's text (compiled once,
            // reported for each).
            if !texts.is_empty() && rng.below(10) == 0 {
                let again = texts[rng.below(texts.len())].clone();
                texts.push(again);
                continue;
            }
            let mut g = random_glob(&mut rng, 0);
            if rng.below(8) == 0 {
                g.push('/');
            }
            if FileGlob::new(&g).is_ok() {
                texts.push(g);
            }
        }
        let mut paths: Vec<String> = (0..120).map(|_| random_path(&mut rng)).collect();
        if rng.below(2) == 0 {
            paths.sort();
        }
        matched += assert_agrees(&texts, &paths);
        pairs += texts.len() * paths.len();
    }
    assert!(pairs >= 400_000, "{pairs}");
    // Matches must be frequent, or agreement says little.
    assert!(matched * 20 > pairs, "only {matched} matches in {pairs}");
}

/// What a one-path index leaves out: only globs whose literal directory
/// the path is not in (a brace group judged by its branches), whose
/// literal end it lacks, or one of whose plain segments it lacks.
#[test]
fn a_one_path_index_leaves_out_only_globs_whose_literal_parts_the_path_lacks() {
    use super::automaton::may_reach;
    let cases = [
        ("csrc/x/**", "csrc/x/k.cu", true),
        ("csrc/x/**", "csrc/x", true),
        ("csrc/x/**", "csrc/xy/k.cu", false),
        ("csrc/x/y*.cuh", "include/x/y1.cuh", false),
        ("{csrc/x/**,include/x/y*.cuh}", "include/x/y1.cuh", true),
        ("{csrc/x/**,include/x/y*.cuh}", "lib/x/y1.cuh", false),
        ("{csrc,include}/attn/*.cu", "include/attn/a.cu", true),
        ("{csrc,include}/attn/*.cu", "src/attn/a.cu", false),
        ("**/k.cu", "any/where/k.cu", true),
        ("src/cpu/*/gemm/*.cpp", "src/cpu/avx2/gemm/a.cpp", true),
        ("src/cpu/*/gemm/*.cpp", "src/gpu/avx2/gemm/a.cpp", false),
        // A class or an escape: the branches are not split, the glob kept.
        ("{csrc/[ab]/**,x}", "lib/a", true),
        ("kernels/a\\*b.cu", "kernels/a*b.cu", true),
        ("kernels/a\\*b.cu", "other/a*b.cu", false),
        // The literal end: after the last wildcard, less a leading `/`.
        ("**/mod7_*.py", "csrc/mod7_a.cu", false),
        ("**/k/a.cu", "k/a.cu", true),
        ("**/k/a.cu", "x/j/a.cu", false),
        ("src/[ab]", "src/a", true),
        ("src/x.cu{,h}", "src/x.cuh", true),
        ("src/dir/", "src/dir/a.py", true),
        // Plain segments past a wildcard: each must be a path segment.
        ("csrc/**/mod0/**", "csrc/comm/mod87/impl/v4/i0.cu", false),
        ("csrc/**/mod87/**", "csrc/comm/mod87/impl/v4/i0.cu", true),
        ("**/attn/**/k.cu", "x/attn2/k.cu", false),
        ("**/attn/**/k.cu", "x/attn/y/k.cu", true),
        ("{x/**/mod1,y}/z/*.cu", "x/a/mod1/z/k.cu", true),
        ("{x/**/mod1,y}/z/*.cu", "x/a/mod1/w/k.cu", false),
        // The last segment's literal start: the file name's.
        (
            "src/cpu/*/gemm/mod0_*.cpp",
            "src/cpu/mod799/gemm/mod799_5.cpp",
            false,
        ),
        (
            "src/cpu/*/gemm/mod799_*.cpp",
            "src/cpu/mod799/gemm/mod799_5.cpp",
            true,
        ),
        ("**/k?.cu", "a/k1.cu", true),
        ("**/k?.cu", "a/j1.cu", false),
        ("{a/k,b}*.cu", "a/k1.cu", true),
        ("a/{k,j/l}*.cu", "a/j/l1.cu", true),
        ("a/**", "a/b/c", true),
        ("a/b/", "a/b/c.cu", true),
        // Inside a group a segment is one branch's, not required.
        ("**/{mod1,mod2}/*.cu", "a/mod2/k.cu", true),
        ("**/{a/mod1,b}/*.cu", "b/k.cu", true),
    ];
    for (glob, path, expect) in cases {
        assert_eq!(may_reach(glob, path.as_bytes()), expect, "{glob} / {path}");
        if !expect {
            assert!(!reference::matches(glob, path), "{glob} / {path}");
        }
    }
}
