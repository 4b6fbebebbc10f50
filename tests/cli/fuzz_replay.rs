//! Every input the fuzzers keep — the corpora in `fuzz/corpus/<target>/`
//! and the crashes found in `fuzz/artifacts/<target>/` — replayed through
//! the same entry points the harnesses call (`sota::fuzzing`, and the MCP
//! transport compiled in as the binary compiles it), so CI holds every
//! fixed crash fixed without a fuzzer (docs/FUZZING.md).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use crate::harness::repo_root;

pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

#[path = "../../src/mcp/transport.rs"]
#[allow(dead_code)]
mod transport;

/// The MCP transport over `data` as stdin, to EOF.
fn mcp(data: &[u8]) {
    use rmcp::transport::Transport;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let log: Log = Arc::new(|_| {});
        let mut t = transport::LineTransport::new(data, tokio::io::sink(), log);
        while t.receive().await.is_some() {}
    });
}

/// A harness's entry point.
type Entry = fn(&[u8]);

const TARGETS: [(&str, Entry); 10] = [
    ("matrix", sota::fuzzing::matrix),
    ("diagnostic", sota::fuzzing::diagnostic),
    ("trailer", sota::fuzzing::trailer),
    ("git_log", sota::fuzzing::git_log),
    ("index_file", sota::fuzzing::index_file),
    ("glob", sota::fuzzing::glob),
    ("mcp", mcp),
    ("npy", sota::fuzzing::npy),
    ("safetensors", sota::fuzzing::safetensors),
    ("prove_spec", sota::fuzzing::prove_spec),
];

fn inputs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_kept_fuzz_input_runs_without_a_panic() {
    let fuzz = repo_root().join("fuzz");
    let mut failed = Vec::new();
    let mut replayed = 0;
    for (target, run) in TARGETS {
        let corpus = inputs(&fuzz.join("corpus").join(target));
        assert!(!corpus.is_empty(), "fuzz/corpus/{target} has no inputs");
        for path in corpus
            .iter()
            .chain(&inputs(&fuzz.join("artifacts").join(target)))
        {
            let data = std::fs::read(path).unwrap();
            replayed += 1;
            if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
                failed.push(path.display().to_string());
            }
        }
    }
    assert!(failed.is_empty(), "panicked on: {failed:#?}");
    assert!(replayed >= TARGETS.len());
}

/// The tensor-header seeds (fuzz/seeds/prove.py) are what they say: the
/// valid headers of every dtype, order and version parse, and the lying
/// ones (`seed-lie-*`) are refused, so the fuzzers start from both sides.
#[test]
fn tensor_header_seeds_parse_or_are_refused_as_named() {
    let corpus = repo_root().join("fuzz").join("corpus");
    type Parse = fn(&[u8]) -> bool;
    let parsers: [(&str, Parse); 2] = [
        ("npy", |d| sota::prove::npy::parse(d).is_ok()),
        ("safetensors", |d| {
            sota::prove::safetensors::parse(d).is_ok()
        }),
    ];
    for (target, parses) in parsers {
        let mut seen = (0, 0);
        for path in inputs(&corpus.join(target)) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("seed-") {
                continue;
            }
            let lie = name.starts_with("seed-lie-");
            let ok = parses(&std::fs::read(&path).unwrap());
            assert_eq!(ok, !lie, "{target}/{name}: parsed = {ok}");
            if lie {
                seen.1 += 1
            } else {
                seen.0 += 1
            }
        }
        assert!(seen.0 >= 10 && seen.1 >= 5, "{target}: seeds {seen:?}");
    }
}
