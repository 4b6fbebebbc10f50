//! `sota prove` on hostile inputs (docs/SECURITY.md): tensor names from a
//! file's header are shown visibly in every format, a FIFO is refused at
//! once, headers and tensor counts are bounded, and a pair with nothing
//! finite to measure does not pass.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::Sota;
use crate::prove::{npy_f32, npy_raw, safetensors_raw, write};

/// A `.safetensors` file holding one f32 tensor per name.
fn named(names: &[&str], values: &[f32]) -> Vec<u8> {
    let mut header = String::from("{");
    let mut data = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let from = data.len();
        data.extend(values.iter().flat_map(|x| x.to_le_bytes()));
        if i > 0 {
            header.push(',');
        }
        header.push_str(&format!(
            "{}:{{\"dtype\":\"F32\",\"shape\":[{}],\"data_offsets\":[{from},{}]}}",
            serde_json::to_string(name).unwrap(),
            values.len(),
            data.len()
        ));
    }
    header.push('}');
    safetensors_raw(&header, &data)
}

const HOSTILE_TENSORS: &[&str] = &[
    "::error title=PWN::owned",
    "x\n::warning::y",
    "osc\u{1b}]0;pwned\u{7}",
    "bidi\u{202e}evil",
    "ls\u{2028}sep",
];

fn raw_char(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        c != '\n'
            && (c.is_control()
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
    })
}

#[test]
fn tensor_names_from_a_header_are_shown_visibly_in_every_format() {
    let s = Sota::new();
    write(&s, "a.safetensors", &named(HOSTILE_TENSORS, &[1.0, 2.0]));
    write(&s, "b.safetensors", &named(HOSTILE_TENSORS, &[1.0, 2.5]));
    let args = ["prove", "-r", "a.safetensors", "-c", "b.safetensors"];
    for extra in [
        &[][..],
        &["--check", "cosine>=0.9"],
        &["--histogram", "h.svg"],
    ] {
        let run = s.run(&[&args[..], extra].concat());
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            assert_eq!(raw_char(text), None, "{stream} of {extra:?}: {text:?}");
            for line in text.split(['\n', '\r']) {
                assert!(!line.trim_start().starts_with("::"), "{line:?}");
            }
        }
        assert!(
            run.stdout.contains("\"::error title=PWN::owned\""),
            "{run:?}"
        );
    }
    // The histogram is well-formed XML with the names escaped visibly.
    let svg = std::fs::read_to_string(s.path().join("h.svg")).unwrap();
    assert_eq!(raw_char(&svg), None, "{svg:?}");
    let parsed = Command::new("python3")
        .args([
            "-c",
            "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])",
        ])
        .arg(s.path().join("h.svg"))
        .status()
        .unwrap();
    assert!(parsed.success(), "not well-formed XML:\n{svg}");
    // A --tensor name that does not exist is shown as typed, visibly.
    let run = s.run(&[&args[..], &["--tensor", "\u{1b}[2J"]].concat());
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("\\033[2J"), "{run:?}");
    assert_eq!(raw_char(&run.stderr), None, "{:?}", run.stderr);
}

#[test]
fn a_fifo_as_a_tensor_or_a_matrix_is_refused_at_once() {
    let s = Sota::new();
    write(&s, "a.npy", &npy_f32(&[2], &[1.0, 2.0], false));
    assert!(Command::new("mkfifo")
        .arg(s.path().join("fifo"))
        .status()
        .unwrap()
        .success());
    let started = Instant::now();
    for args in [
        &[
            "prove",
            "-r",
            "a.npy",
            "-c",
            "fifo",
            "--check",
            "cosine>=0.9",
        ][..],
        &[
            "prove",
            "-r",
            "fifo",
            "-c",
            "a.npy",
            "--check",
            "cosine>=0.9",
        ],
        &[
            "--matrix", "fifo", "prove", "softmax", "-r", "a.npy", "-c", "a.npy",
        ],
    ] {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.contains("not a regular file"), "{run:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn an_npy_header_past_numpys_limit_is_refused_unparsed() {
    let s = Sota::new();
    let header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }}{}",
        " ".repeat(20_000)
    );
    // A v1 header holds at most 65,535 bytes: this one is over NumPy's
    // 10,000-byte limit and still well-formed.
    write(&s, "big.npy", &npy_raw(&header, &1f32.to_le_bytes()));
    write(&s, "a.npy", &npy_f32(&[1], &[1.0], false));
    let run = s.run(&["prove", "-r", "big.npy", "-c", "a.npy"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("NumPy's own limit of 10000"), "{run:?}");
}

#[test]
fn a_hundred_thousand_empty_tensors_compare_in_seconds() {
    let names: Vec<String> = (0..100_000).map(|i| format!("t{i:06}")).collect();
    let mut header = String::from("{");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            header.push(',');
        }
        header.push_str(&format!(
            "\"{n}\":{{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}}"
        ));
    }
    header.push('}');
    let s = Sota::new();
    write(&s, "a.safetensors", &safetensors_raw(&header, &[]));
    let started = Instant::now();
    let run = s.run(&["prove", "-r", "a.safetensors", "-c", "a.safetensors"]);
    let took = started.elapsed();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("t099999"), "every pair is reported");
    // Generous for a debug build on a busy machine (12 s here); a thread
    // and a histogram-table scan per tensor took 27 ms each, 45 minutes.
    assert!(took < Duration::from_secs(90), "{took:?}");
}

#[test]
fn a_pair_with_nothing_finite_to_measure_fails_every_numeric_check() {
    let s = Sota::new();
    let nan = npy_f32(&[3], &[f32::NAN; 3], false);
    write(&s, "a.npy", &nan);
    write(&s, "b.npy", &nan);
    for check in [
        "cosine>=0.999",
        "max-abs<=0.01",
        "max-rel<=0.01",
        "allclose",
    ] {
        let run = s.run(&["prove", "-r", "a.npy", "-c", "b.npy", "--check", check]);
        assert_eq!(run.code, 1, "{check}: {run:?}");
        assert!(run.stdout.contains("no finite pairs to measure"), "{run:?}");
    }
    // Bit-identity judges bytes: identical NaNs are what it expects.
    let run = s.run(&[
        "prove",
        "-r",
        "a.npy",
        "-c",
        "b.npy",
        "--check",
        "bit-identity",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}
