//! The fast path against the slow one: on every document it accepts it
//! must build the very model the slow path builds, and it must accept the
//! matrices people write.

use std::path::Path;
use std::sync::Arc;

use super::super::parse::walk;
use super::super::Origin;

/// Both paths on `text`: `Some(true)` if the fast path took it (and agreed),
/// `Some(false)` if it left it to the slow path, which accepted it; `None`
/// if the slow path refused it (the fast path must then have refused too).
fn compare(text: &str) -> Option<bool> {
    let text = &Arc::new(text.to_owned());
    let file = Path::new("dir/sota.toml");
    let slow = walk(
        text,
        file,
        "sota.toml",
        Path::new("dir"),
        Origin::Project,
        false,
    );
    let fast = super::parse(text, file, "sota.toml", Path::new("dir"), false);
    // Cut before every header: the pieces must read as the whole does.
    let pieces = super::parse_cut(text, file, "sota.toml", Path::new("dir"), false, 1, None);
    same_as_slow(&pieces, &slow, text, "read in pieces");
    // Cut in two before each `[[op]]` header, the halves read on two
    // threads: they must read as the whole does.
    for at in op_headers(text) {
        let halves = super::parse_cut(
            text,
            file,
            "sota.toml",
            Path::new("dir"),
            false,
            super::CHUNK,
            Some(at + 1),
        );
        same_as_slow(&halves, &slow, text, &format!("cut at byte {}", at + 1));
    }
    match (fast, slow) {
        (Some(fast), Ok(slow)) => {
            assert_eq!(
                format!("{fast:#?}"),
                format!("{slow:#?}"),
                "the paths build different models for:\n{text}"
            );
            Some(true)
        }
        (Some(_), Err(e)) => {
            panic!("the fast path accepted what the slow path refuses ({e}):\n{text}")
        }
        (None, Ok(_)) => Some(false),
        (None, Err(_)) => None,
    }
}

/// Where some `[[op]]` header lines start (the byte before each): the
/// first, the middle and the last one.
fn op_headers(text: &str) -> Vec<usize> {
    let all: Vec<usize> = text.match_indices("\n[[op]]").map(|(at, _)| at).collect();
    let mut some: Vec<usize> = [0, all.len() / 2, all.len().saturating_sub(1)]
        .iter()
        .filter_map(|&i| all.get(i).copied())
        .collect();
    some.dedup();
    some
}

/// A fast-path reading that was accepted must be the slow path's model.
fn same_as_slow(
    fast: &Option<crate::matrix::Matrix>,
    slow: &Result<crate::matrix::Matrix, crate::matrix::LoadError>,
    text: &str,
    how: &str,
) {
    if let (Some(fast), Ok(slow)) = (fast, slow) {
        assert_eq!(
            format!("{fast:#?}"),
            format!("{slow:#?}"),
            "{how}, the fast path differs on:\n{text}"
        );
    }
    assert!(
        fast.is_none() || slow.is_ok(),
        "{how}, the fast path accepted what the slow path refuses:\n{text}"
    );
}

/// A matrix of every glob shape the bench generator writes, with checks,
/// anchors and ladders, like `bench/synth_mix.py` at `ops` ops.
fn synthetic(ops: usize) -> String {
    let areas = ["attention", "gemm", "moe", "quant", "norm"];
    let mut s = String::from(
        "# a synthetic matrix\n[project]\nname = \"synthetic-mix\"\nreviewed = 2026-01-01\nfresh-days = 120\nprovenance = 'docs/notes.md'\n\n[kernels]\ninclude = [\"csrc/**/*.cu\", \"csrc/**/*.cuh\"]\nexclude = [\"**/test_*\"]\n\n",
    );
    for i in 0..ops {
        let a = areas[i % areas.len()];
        let globs = [
            format!("csrc/{a}/mod{i}/"),
            format!("csrc/{a}/mod{i}/k0.cu"),
            format!("csrc/{a}/mod{i}/k*.cu"),
            format!("csrc/**/mod{i}/**"),
            format!("src/cpu/*/gemm/mod{i}_*.cpp"),
            format!("{{csrc/{a}/mod{i}/**,include/{a}/mod{i}/y*.cuh}}"),
            format!("csrc/{a}/mod{i}/k0.cu{{,h}}"),
            format!("{{csrc,include}}/{a}/mod{i}/{{k,y}}{{0,1{{,0}}}}.cu{{,h}}"),
            format!("tests/{a}/test_mod{i}_[0-9]*.py"),
            format!("python/pkg/{a}/mod{i}_?.py"),
        ];
        let files: Vec<String> = (0..3 + i % 7)
            .map(|k| format!("'{}'", globs[(i + k * 3) % globs.len()]))
            .collect();
        s += &format!(
            "[[op]]\nslug = \"op-{i}\"\ntitle = \"Synthetic operation {i}\"\nfiles = [{}]\nat = [\"csrc/{a}/mod{i}/k0.cu#kernel_{i}\", \"csrc/{a}/mod{i}/k1.cu:12\"]\nsota = \"Reference kernel {i}\"  # a comment\nlink = \"https://example.org/ref/{i}\"\nroute = \"{}\"\noracle = \"f32 reference (cosine ≥ 0.999)\"\n",
            files.join(", "),
            ["bind", "borrow", "stay-minimal"][i % 3],
        );
        if i % 4 == 0 {
            s += "check = [\n  { metric = \"cosine\", min = 0.999 },\n  { metric = \"max-abs\", max = 1e-3 },\n  { metric = \"allclose\", rtol = 1e-5 },\n  { metric = \"argmax\" },\n  { metric = \"bit-identity\" },\n]\nwitness = [\"tests/x.py#test_op\"]\npapers = [\"A paper (2024) arXiv:2401.00001\"]\nwhere = \"the kernels\"\nnote = '''a literal 'note' '''\n";
        }
        s += "\n";
        if i % 10 == 3 {
            s += &format!(
                "[[ladder]]\naxis = \"axis-{i}\"\nreached = \"R1\"\nwitness = \"op-{i}\"\nnext-note = \"next\"\n\n[[ladder.rung]]\nname = \"R1\"\nyear = 2022\nsummary = \"first\"\ncite = \"arXiv:2205.14135\"\nlink = \"https://example.org/r1\"\n\n[[ladder.rung]]\nname = \"R2\"\nyear = 2_023\nsummary = \"second\"\n\n"
            );
        }
    }
    s
}

fn realistic() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = vec![
        ("catalog".to_owned(), crate::catalog::TEXT.to_owned()),
        ("synthetic".to_owned(), synthetic(60)),
        // Past `PARALLEL_FROM`: read in two halves on two threads.
        ("large synthetic".to_owned(), synthetic(400)),
    ];
    for file in ["examples/fak/sota.toml", "sota.toml"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        texts.push((file.to_owned(), text));
    }
    texts
}

#[test]
fn the_fast_path_takes_the_matrices_people_write_and_agrees() {
    for (name, text) in realistic() {
        let text = Arc::new(text);
        let file = Path::new("dir/sota.toml");
        if let Err(e) = walk(
            &text,
            file,
            "sota.toml",
            Path::new("dir"),
            Origin::Project,
            false,
        ) {
            panic!("{name} is invalid: {e}");
        }
        assert_eq!(compare(&text), Some(true), "{name}: left to the slow path");
        // Either half may start at any `[[op]]` header.
        for at in op_headers(&text) {
            let cut = Some(at + 1);
            let halves = super::parse_cut(&text, file, "x", Path::new("dir"), false, 64, cut);
            assert!(halves.is_some(), "{name}: cut at byte {}, refused", at + 1);
        }
    }
    let large = synthetic(400);
    assert!(large.len() >= super::PARALLEL_FROM, "{}", large.len());
    assert!(super::op_header_after(&large, large.len() / 2).is_some());
}

#[test]
fn fast_and_slow_paths_agree_on_the_fuzz_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/matrix");
    let (mut fast, mut slow_only, mut invalid) = (0, 0, 0);
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        match compare(&text) {
            Some(true) => fast += 1,
            Some(false) => slow_only += 1,
            None => invalid += 1,
        }
    }
    assert!(fast > 0 && invalid > 0, "{fast} {slow_only} {invalid}");
}

use crate::test_rng::Rng;

/// Text that, inserted at a line start, keeps a valid matrix valid.
const BENIGN: &[&str] = &[
    "\n",
    "# a comment\n",
    "  ",
    "\n\n",
    "\r\n",
    "#\n",
    "\t",
    " # x\n",
];

/// Text that, inserted anywhere, makes a valid matrix unusual or invalid
/// in every way the fast path must notice.
const SNIPPETS: &[&str] = &[
    "\"",
    "'",
    "=",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    "#",
    "\n",
    " ",
    "\t",
    "\\",
    "\r",
    "\u{1b}",
    "\u{202e}",
    "é",
    "\u{7f}",
    "0",
    "-",
    "_",
    "\"\"",
    "''",
    "\"\"\"",
    "'''",
    "\\u001b",
    "\\n",
    "[[op]]\n",
    "[project]\n",
    "[kernels]\n",
    "[[ladder]]\n",
    "[[ladder.rung]]\n",
    "[op]\n",
    "[project.x]\n",
    "[[op.check]]\n",
    "slug = \"x\"\n",
    "slug = \"op-1\"\n",
    "name = \"y\"\n",
    "title = \"\"\n",
    "title = \"  \"\n",
    "files = []\n",
    "files = [\"\"]\n",
    "files = [\"a/../b\"]\n",
    "files = [\"{a\"]\n",
    "files = \"a\"\n",
    "at = [\"/abs\"]\n",
    "check = [{ metric = \"cosine\", min = 0.5 }]\n",
    "check = [{ metric = \"cosine\" }]\n",
    "check = [{ metric = \"argmax\", max = 1 }]\n",
    "check = [{ metric = \"cosine\", min = 2 }]\n",
    "check = [{ metric = \"max-abs\", max = inf }]\n",
    "check = [{ metric = \"x\" }]\n",
    "check = [{ metric = \"allclose\", rtol = -1 }]\n",
    "check = [{ metric = \"allclose\", atol = 0x10 }]\n",
    "a.b = 1\n",
    "x = 1\n",
    "reviewed = 2026-02-30\n",
    "reviewed = 2026-02-03T01:00:00\n",
    "reviewed = \"2026-01-01\"\n",
    "reviewed = \"2026-1-1\"\n",
    "year = 1800\n",
    "year = 2024\n",
    "year = 0b11111101000\n",
    "year = 99999999999999999999\n",
    "route = \"bind\"\n",
    "route = \"bnid\"\n",
    "link = \"ftp://x\"\n",
    "link = \"https://x.org\"\n",
    "witness = \"w\"\n",
    "witness = [\"w.py\"]\n",
    "reached = \"R1\"\n",
    "reached = \"R9\"\n",
    "axis = \"Axis\"\n",
    "rung = []\n",
    "fresh-days = 0\n",
    "fresh-days = 30\n",
    "root = \"/abs\"\n",
    "root = \"..\"\n",
    "papers = [1]\n",
    "note = true\n",
    "where = 1.5\n",
    "\"slug\" = \"q\"\n",
    "'title' = 't'\n",
    "include = [\"**\"]\n",
    "exclude = [\"x\"]\n",
    "= 1\n",
    "[]\n",
    "[[]]\n",
    "\u{feff}",
];

/// One random edit: an insertion, a deletion, a repeated or dropped line,
/// or two lines swapped.
fn perturb(text: &str, rng: &mut Rng) -> String {
    let boundary = |rng: &mut Rng, text: &str| {
        let mut at = rng.below(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match rng.below(8) {
        kind @ (6 | 7) => {
            // At a line start, where most insertions keep the document valid.
            let starts: Vec<usize> = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            let at = starts[rng.below(starts.len())];
            let snippet = if kind == 6 {
                BENIGN[rng.below(BENIGN.len())]
            } else {
                SNIPPETS[rng.below(SNIPPETS.len())]
            };
            format!("{}{snippet}{}", &text[..at], &text[at..])
        }
        0 | 1 => {
            let at = boundary(rng, text);
            let snippet = SNIPPETS[rng.below(SNIPPETS.len())];
            format!("{}{snippet}{}", &text[..at], &text[at..])
        }
        2 => {
            let at = boundary(rng, text);
            let mut end = (at + 1 + rng.below(8)).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            format!("{}{}", &text[..at], &text[end..])
        }
        kind => {
            let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
            if lines.is_empty() {
                return text.to_owned();
            }
            let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
            match kind {
                3 => lines.insert(j, lines[i]),
                4 => {
                    lines.remove(i);
                }
                _ => lines.swap(i, j),
            }
            lines.concat()
        }
    }
}

#[test]
fn fast_and_slow_paths_agree_on_perturbed_matrices() {
    let seeds: Vec<String> = vec![
        synthetic(6),
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/fak/sota.toml"),
        )
        .unwrap(),
        {
            let text = crate::catalog::TEXT;
            // Its first tables, cut before a header.
            let cut = text[..12_000].rfind("\n[[op]]").unwrap();
            text[..cut].to_owned()
        },
    ];
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut fast, mut slow_only, mut invalid) = (0, 0, 0);
    for round in 0..3000 {
        let mut text = seeds[round % seeds.len()].clone();
        for _ in 0..1 + rng.below(2) {
            text = perturb(&text, &mut rng);
        }
        match compare(&text) {
            Some(true) => fast += 1,
            Some(false) => slow_only += 1,
            None => invalid += 1,
        }
    }
    // The edits leave many documents valid (comments, blank lines, values
    // swapped for others) and break many: both sides must be exercised.
    assert!(fast > 500 && invalid > 1500, "{fast} {slow_only} {invalid}");
}

#[test]
fn undecoded_strings_and_keys_are_what_the_decoder_returns() {
    use toml_parser::decoder::Encoding;
    use toml_parser::{ParseError, Raw, Span};
    let mut rng = Rng(0xdec0_de00_0000_0001);
    let alphabet: Vec<char> = "ab-_ \t\"'\\\r\n\u{7f}\u{1}é#=.[]{}0".chars().collect();
    let mut raws: Vec<String> = ["\"\"", "''", "\"", "'", "\"a", "a\"", "'a'", "\"a\\\"", ""]
        .map(str::to_owned)
        .to_vec();
    for _ in 0..20_000 {
        let len = rng.below(6);
        let inner: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let quote = ["\"", "'", ""][rng.below(3)];
        raws.push(format!("{quote}{inner}{quote}"));
    }
    for raw in &raws {
        let span = Span::new_unchecked(0, raw.len());
        for encoding in [
            Some(Encoding::BasicString),
            Some(Encoding::LiteralString),
            None,
        ] {
            let source = Raw::new_unchecked(raw, encoding, span);
            if let Some(plain) = super::plain_string(raw, encoding) {
                let (mut out, mut errors) =
                    (std::borrow::Cow::Borrowed(""), Vec::<ParseError>::new());
                let _ = source.decode_scalar(&mut out, &mut errors);
                assert!(errors.is_empty(), "{raw:?} {encoding:?}");
                assert_eq!(out, plain, "{raw:?} {encoding:?}");
            }
            if let Some(plain) = super::plain_key(raw, encoding) {
                let (mut out, mut errors) =
                    (std::borrow::Cow::Borrowed(""), Vec::<ParseError>::new());
                source.decode_key(&mut out, &mut errors);
                assert!(errors.is_empty(), "{raw:?} {encoding:?}");
                assert_eq!(out, plain, "{raw:?} {encoding:?}");
            }
        }
    }
}
