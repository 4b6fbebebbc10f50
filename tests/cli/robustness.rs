//! Untrusted input never panics: thousands of mutated matrices through the
//! loader, mutated index files through the index reader, mutated commit
//! messages through the trailer parser. A small deterministic mutator (no
//! dependency); cargo-fuzz targets can replace it later.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[&[u8]] = &[
    b"[",
    b"]",
    b"[[",
    b"]]",
    b"\"",
    b"'",
    b"=",
    b"\n",
    b"#",
    b"{",
    b"}",
    b",",
    b"\\",
    b"*",
    b"**",
    b"/",
    b":",
    b"\xff",
    b"\x00",
    b"2026-02-30",
    b"1e999",
    b"-0",
    b"[[op]]",
    b"[[ladder.rung]]",
    b"reached",
    b"\xe2\x80",
];

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(4) {
            0 if !v.is_empty() => {
                let end = (at + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            1 => {
                let piece = INTERESTING[rng.below(INTERESTING.len())];
                v.splice(at..at, piece.iter().copied());
            }
            2 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            _ => {
                // Duplicate a slice (repeated tables, keys).
                let start = rng.below(v.len() + 1);
                let end = (start + rng.below(64)).min(v.len());
                let copy = v[start..end].to_vec();
                v.splice(at..at, copy);
            }
        }
    }
    v
}

#[test]
fn mutated_matrices_load_or_fail_cleanly() {
    let seeds = [
        std::fs::read(crate::harness::repo_root().join("examples/fak/sota.toml")).unwrap(),
        crate::harness::SMALL.as_bytes().to_vec(),
    ];
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for i in 0..1500 {
        let input = mutate(&mut rng, &seeds[i % seeds.len()]);
        let text = String::from_utf8_lossy(&input);
        if let Err(sota::LoadError::Invalid(invalid)) = sota::Matrix::from_str(&text, "sota.toml") {
            assert!(!invalid.problems.is_empty());
            for line in invalid.one_line_summaries() {
                assert!(line.starts_with("sota.toml:"), "{line}");
            }
            // Rendering the diagnostics must not panic either (every 10th
            // input: rendering is the slow part in a debug build).
            for d in invalid.diagnostics().filter(|_| i % 10 == 0) {
                let mut s = String::new();
                let _ = miette::GraphicalReportHandler::new_themed(
                    miette::GraphicalTheme::unicode_nocolor(),
                )
                .render_report(&mut s, &d);
            }
        }
    }
}

#[test]
fn mutated_index_files_are_read_or_declined() {
    let p = crate::harness::Sota::new()
        .git_init()
        .file("a.cu", "1")
        .file("k/b.cu", "2")
        .file("k/long/path/name/c.cuh", "3");
    p.git(&["add", "-A"]).success();
    let index = std::fs::read(p.path().join(".git/index")).unwrap();
    p.git(&["update-index", "--index-version", "4"]).success();
    let index_v4 = std::fs::read(p.path().join(".git/index")).unwrap();
    let mut rng = Rng(42);
    for i in 0..4000 {
        let seed = if i % 2 == 0 { &index } else { &index_v4 };
        let input = mutate(&mut rng, seed);
        let _ = sota::repo::index_file::read_paths(&input, 20, b"");
        let _ = sota::repo::index_file::read_paths(&input, 32, b"k/");
    }
}

#[test]
fn mutated_commit_messages_parse() {
    let seed = b"Tune attention\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention);\n  oracle cosine >= 0.999\nSigned-off-by: A <a@b>\n# comment\n";
    let mut rng = Rng(7);
    for _ in 0..4000 {
        let input = mutate(&mut rng, seed);
        let text = String::from_utf8_lossy(&input);
        let _ = sota::surface::trailer::stamp(&text, "#");
        let _ = sota::surface::trailer::stamp(&text, ";");
    }
}
