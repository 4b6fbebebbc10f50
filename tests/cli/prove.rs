//! `sota prove`: every metric against an independent NumPy computation
//! (prove_oracle.py, run on the real binary), lying headers, the op's
//! oracle from the matrix, exit codes, and the text, JSON and SVG outputs.

use std::path::Path;
use std::process::Command;

use crate::harness::Sota;

/// An `.npy` (v1.0) file of little-endian f32 values.
pub(crate) fn npy_f32(shape: &[usize], data: &[f32], fortran: bool) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let header = format!(
        "{{'descr': '<f4', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    npy_raw(
        &header,
        &data
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<_>>(),
    )
}

/// An `.npy` file with this exact header text and data.
pub(crate) fn npy_raw(header: &str, data: &[u8]) -> Vec<u8> {
    let mut h = header.to_owned();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend((h.len() as u16).to_le_bytes());
    v.extend(h.as_bytes());
    v.extend(data);
    v
}

/// A `.safetensors` file with this exact header text and data.
pub(crate) fn safetensors_raw(header: &str, data: &[u8]) -> Vec<u8> {
    let mut v = (header.len() as u64).to_le_bytes().to_vec();
    v.extend(header.as_bytes());
    v.extend(data);
    v
}

pub(crate) fn write(s: &Sota, rel: &str, bytes: &[u8]) {
    std::fs::write(s.path().join(rel), bytes).unwrap();
}

const MATRIX: &str = r#"
[project]
name = "demo"

[[op]]
slug = "softmax"
title = "Row softmax"
sota = "FlashAttention's online softmax"
oracle = "naive f64 softmax, cosine ≥ 0.999"
check = [
  { metric = "cosine", min = 0.999 },
  { metric = "max-abs", max = 0.01 },
  { metric = "argmax" },
  { metric = "allclose" },
]

[[op]]
slug = "rope"
title = "Rotary embedding"
sota = "vLLM rotary kernels"
"#;

/// The small fixed case behind the snapshots: one element off by 0.5.
fn fixed() -> Sota {
    let s = Sota::new().file("sota.toml", MATRIX);
    write(
        &s,
        "ref.npy",
        &npy_f32(&[2, 3], &[0.1, 0.7, 0.2, 0.3, 0.3, 0.4], false),
    );
    write(
        &s,
        "out.npy",
        &npy_f32(&[2, 3], &[0.1, 0.7, 0.2, 0.3, 0.8, 0.4], false),
    );
    write(
        &s,
        "good.npy",
        &npy_f32(&[2, 3], &[0.1, 0.7, 0.2, 0.3, 0.3, 0.4000001], false),
    );
    s
}

#[test]
fn numpy_oracle_agrees_on_every_dtype_shape_and_layout() {
    let numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !numpy {
        assert!(
            std::env::var_os("SOTA_REQUIRE_NUMPY").is_none(),
            "SOTA_REQUIRE_NUMPY is set but python3 cannot import numpy"
        );
        eprintln!(
            "\n\n!!! SKIPPED numpy_oracle_agrees_on_every_dtype_shape_and_layout: python3 with numpy \
             is not available (python3 -m pip install numpy); CI sets SOTA_REQUIRE_NUMPY=1 so it \
             cannot skip there !!!\n"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/prove_oracle.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_sota"))
        .arg(dir.path())
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "sota prove disagrees with numpy:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" 0 disagreements"), "{stdout}");
}

#[test]
fn the_ops_checks_judge_the_candidate_and_set_the_exit_code() {
    let s = fixed();
    let fail = s.run(&["prove", "softmax", "-r", "ref.npy", "-c", "out.npy"]);
    assert_eq!(fail.code, 1, "{}{}", fail.stdout, fail.stderr);
    insta::assert_snapshot!("prove_softmax_fail", fail.stdout);

    let pass = s.run(&["prove", "softmax", "-r", "ref.npy", "-c", "good.npy"]);
    assert_eq!(pass.code, 0, "{}{}", pass.stdout, pass.stderr);
    assert!(
        pass.stdout.contains("PASS: all 4 checks hold"),
        "{}",
        pass.stdout
    );
}

#[test]
fn json_payload_is_versioned_and_complete() {
    let s = fixed();
    let run = s.run(&[
        "prove", "softmax", "-r", "ref.npy", "-c", "out.npy", "--json",
    ]);
    assert_eq!(run.code, 1);
    let v = run.json();
    assert_eq!(v["schema"], "sota.prove/v1");
    assert_eq!(v["verdict"], "fail");
    insta::assert_snapshot!("prove_softmax_json", run.stdout);
}

#[test]
fn check_flag_overrides_the_op_and_works_without_a_matrix() {
    let s = fixed();
    std::fs::remove_file(s.path().join("sota.toml")).unwrap();
    let run = s.run(&[
        "prove",
        "-r",
        "ref.npy",
        "-c",
        "out.npy",
        "--check",
        "max-abs<=0.6; argmax>=0.5",
        "--check",
        "allclose:rtol=0,atol=0.5",
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("checks from --check"));
    assert!(run.stdout.contains("allclose(rtol=0, atol=0.5)"));
    let bits = s.run(&[
        "prove",
        "-r",
        "ref.npy",
        "-c",
        "ref.npy",
        "--check",
        "bit-identity",
    ]);
    assert_eq!(bits.code, 0, "{}", bits.stdout);
    let bits = s.run(&[
        "prove",
        "-r",
        "ref.npy",
        "-c",
        "good.npy",
        "--check",
        "bit-identity",
    ]);
    assert_eq!(bits.code, 1, "one element differs by one ulp");
    assert!(
        bits.stdout.contains("1 of 6 elements differ"),
        "{}",
        bits.stdout
    );
}

#[test]
fn no_checks_reports_metrics_and_exits_zero() {
    let s = fixed();
    let run = s.run(&["prove", "-r", "ref.npy", "-c", "out.npy"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("no checks given"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("max 0.5 at [1, 1] (ref 0.30000001, cand 0.80000001)"),
        "{}",
        run.stdout
    );
}

#[test]
fn nan_and_inf_must_sit_in_the_same_places() {
    let s = Sota::new();
    write(
        &s,
        "a.npy",
        &npy_f32(&[4], &[1.0, f32::NAN, f32::INFINITY, 2.0], false),
    );
    write(
        &s,
        "same.npy",
        &npy_f32(&[4], &[1.0, f32::NAN, f32::INFINITY, 2.0], false),
    );
    write(
        &s,
        "moved.npy",
        &npy_f32(&[4], &[1.0, f32::INFINITY, f32::NAN, 2.0], false),
    );
    let ok = s.run(&[
        "prove",
        "-r",
        "a.npy",
        "-c",
        "same.npy",
        "--check",
        "max-abs<=0",
    ]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert!(
        ok.stdout.contains("reference 1 NaN, 1 +Inf, 0 -Inf"),
        "{}",
        ok.stdout
    );
    let bad = s.run(&[
        "prove",
        "-r",
        "a.npy",
        "-c",
        "moved.npy",
        "--check",
        "max-abs<=0",
    ]);
    assert_eq!(bad.code, 1, "{}", bad.stdout);
    assert!(
        bad.stdout.contains("2 positions where NaN/Inf differ"),
        "{}",
        bad.stdout
    );
    assert!(
        bad.stdout.contains("first at [1] (ref nan, cand inf)"),
        "{}",
        bad.stdout
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let s = Sota::new();
    let n = 7 * 42_859;
    let mut x = 0x2545_f491_u32;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x as f32 / u32::MAX as f32) - 0.5
    };
    let a: Vec<f32> = (0..n).map(|_| rnd() * 8.0).collect();
    let b: Vec<f32> = a.iter().map(|v| v + rnd() * 1e-3).collect();
    write(&s, "a.npy", &npy_f32(&[7, n / 7], &a, false));
    write(&s, "b.npy", &npy_f32(&[7, n / 7], &b, false));
    let run = |t: &str| {
        let r = s.run(&[
            "prove",
            "-r",
            "a.npy",
            "-c",
            "b.npy",
            "--json",
            "--threads",
            t,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("7"));
}

#[test]
fn safetensors_pairs_common_names_and_tensor_selects_one() {
    let s = Sota::new();
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let a = safetensors_raw(
        r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"x":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}"#,
        &f32s(&[1.0, 2.0, 3.0]),
    );
    let b = safetensors_raw(
        r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}"#,
        &f32s(&[1.0, 2.5, 3.0]),
    );
    write(&s, "a.safetensors", &a);
    write(&s, "b.safetensors", &b);
    let run = s.run(&[
        "prove",
        "-r",
        "a.safetensors",
        "-c",
        "b.safetensors",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["tensors"].as_array().unwrap().len(), 1);
    assert_eq!(v["tensors"][0]["name"], "w");
    assert_eq!(v["only_in_reference"][0], "x");
    assert_eq!(v["only_in_candidate"][0], "y");
    let run = s.run(&[
        "prove",
        "-r",
        "a.safetensors",
        "-c",
        "b.safetensors",
        "--tensor",
        "z",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("has no tensor `z`"), "{}", run.stderr);
    assert!(run.stderr.contains("`w`, `x`"), "{}", run.stderr);
}

#[test]
fn mismatches_and_usage_errors_exit_2_with_the_fix() {
    let s = fixed();
    write(&s, "wide.npy", &npy_f32(&[3, 2], &[0.0; 6], false));
    write(
        &s,
        "i32.npy",
        &npy_raw(
            "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
            &[0; 24],
        ),
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["-r", "ref.npy", "-c", "wide.npy"],
            "shapes differ: reference [2, 3], candidate [3, 2]",
        ),
        (
            &["-r", "ref.npy", "-c", "i32.npy"],
            "dtypes differ: reference f32, candidate i32",
        ),
        (
            &["softmx", "-r", "ref.npy", "-c", "out.npy"],
            "did you mean `softmax`",
        ),
        (
            &["rope", "-r", "ref.npy", "-c", "out.npy"],
            "op `rope` in sota.toml has no `check` list",
        ),
        (
            &["-r", "ref.npy", "-c", "out.npy", "--check", "cosin>=0.9"],
            "cosine",
        ),
        (
            &["-r", "ref.npy", "-c", "missing.npy"],
            "missing.npy: cannot open",
        ),
        (
            &["-r", "sota.toml", "-c", "out.npy"],
            "for raw data pass --dtype and --shape",
        ),
        (
            &[
                "-r", "ref.npy", "-c", "out.npy", "--dtype", "f32", "--shape", "6",
            ],
            "--dtype and --shape are for raw files only",
        ),
        (
            &["-r", "ref.npy", "-c", "out.npy", "--quantile", "1.5"],
            "outside [0, 1]",
        ),
    ];
    for (args, needle) in cases {
        let mut full = vec!["prove"];
        full.extend_from_slice(args);
        let run = s.run(&full);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

#[test]
fn raw_files_need_sizes_that_add_up() {
    let s = Sota::new();
    write(&s, "a.bin", &[0u8; 24]);
    write(&s, "b.bin", &[0u8; 24]);
    let ok = s.run(&[
        "prove",
        "-r",
        "a.bin",
        "-c",
        "b.bin",
        "--dtype",
        "bf16",
        "--shape",
        "3x4",
        "--check",
        "bit-identity",
    ]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let bad = s.run(&[
        "prove", "-r", "a.bin", "-c", "b.bin", "--dtype", "f32", "--shape", "5,2",
    ]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("needs 40 bytes, the file has 24"),
        "{}",
        bad.stderr
    );
    let overflow = s.run(&[
        "prove",
        "-r",
        "a.bin",
        "-c",
        "b.bin",
        "--dtype",
        "f64",
        "--shape",
        "4294967296,4294967296",
    ]);
    assert_eq!(overflow.code, 2);
    assert!(overflow.stderr.contains("overflows"), "{}", overflow.stderr);
}

/// Run `sota prove -r a -c b` with the address space capped at 512 MiB, so
/// a header that tricked the reader into a huge allocation would fail loudly.
fn prove_capped(dir: &Path, a: &str, b: &str) -> (i32, String) {
    let out = Command::new("sh")
        .current_dir(dir)
        .args([
            "-c",
            "ulimit -v 524288 && exec \"$0\" prove -r \"$1\" -c \"$2\"",
        ])
        .arg(env!("CARGO_BIN_EXE_sota"))
        .args([a, b])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lying_headers_are_clear_errors_in_bounded_memory() {
    let s = Sota::new();
    let good = npy_f32(&[2], &[1.0, 2.0], false);
    write(&s, "good.npy", &good);
    let mut huge_v2 = b"\x93NUMPY\x02\x00".to_vec();
    huge_v2.extend(u32::MAX.to_le_bytes());
    huge_v2.extend(b"{'descr': '<f4'");
    let npys: Vec<(&str, Vec<u8>, &str)> = vec![
        ("short data", npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", &[0; 8]), "sizes do not add up"),
        ("extra data", npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "sizes do not add up"),
        ("shape overflow", npy_raw("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", &[0; 8]), "overflows"),
        ("dimension overflow", npy_raw("{'descr': '<f8', 'fortran_order': False, 'shape': (123456789012345678901234567890,), }", &[]), "overflows"),
        ("huge header length", huge_v2, "claims 4294967295 bytes"),
        ("truncated preamble", b"\x93NUMPY\x01".to_vec(), "cut short"),
        ("bad version", b"\x93NUMPY\x09\x00\x00\x00".to_vec(), "unsupported .npy format version"),
        ("not a dict", npy_raw("['descr', '<f4']", &[]), "malformed .npy header"),
        ("complex", npy_raw("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported dtype '<c8'"),
        ("object", npy_raw("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported dtype"),
        ("records", npy_raw("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }", &[0; 4]), "structured"),
        ("unterminated", npy_raw("{'descr': '<f4", &[]), "unterminated string"),
        ("bad magic name", b"NUMPY not really".to_vec(), "does not start with the .npy magic"),
    ];
    for (what, bytes, needle) in &npys {
        write(&s, "bad.npy", bytes);
        for (a, b) in [("bad.npy", "good.npy"), ("good.npy", "bad.npy")] {
            let (code, stderr) = prove_capped(s.path(), a, b);
            assert_eq!(code, 2, "{what}: {stderr}");
            assert!(stderr.contains(needle), "{what}: {stderr}");
            assert!(
                stderr.contains("bad.npy"),
                "{what}: names the file: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        }
    }

    let good = safetensors_raw(
        r#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
        &[0; 4],
    );
    write(&s, "good.safetensors", &good);
    let mut huge = u64::MAX.to_le_bytes().to_vec();
    huge.extend(b"{}");
    let mut past_end = 4096u64.to_le_bytes().to_vec();
    past_end.extend(b"{}");
    let sts: Vec<(&str, Vec<u8>, &str)> = vec![
        ("huge header length", huge, "more than the format's limit"),
        ("header past the end", past_end, "only 2 follow it"),
        ("tiny file", vec![1, 2, 3], "8-byte header length"),
        (
            "offset past the end",
            safetensors_raw(
                r#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4096]}}"#,
                &[0; 4],
            ),
            "run past the end",
        ),
        (
            "sizes do not add up",
            safetensors_raw(
                r#"{"t":{"dtype":"F32","shape":[3],"data_offsets":[0,4]}}"#,
                &[0; 4],
            ),
            "sizes do not add up",
        ),
        (
            "shape overflow",
            safetensors_raw(
                r#"{"t":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,4]}}"#,
                &[0; 4],
            ),
            "overflows",
        ),
        (
            "overlap",
            safetensors_raw(
                r#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"u":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}}"#,
                &[0; 6],
            ),
            "overlapping",
        ),
        (
            "hole",
            safetensors_raw(
                r#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
                &[0; 8],
            ),
            "a hole",
        ),
        (
            "trailing bytes",
            safetensors_raw(
                r#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
                &[0; 9],
            ),
            "holds 9 after the header",
        ),
        (
            "reversed offsets",
            safetensors_raw(
                r#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}"#,
                &[0; 4],
            ),
            "end before they begin",
        ),
        (
            "negative dim",
            safetensors_raw(
                r#"{"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}"#,
                &[0; 4],
            ),
            "non-negative integers",
        ),
        (
            "unknown dtype",
            safetensors_raw(
                r#"{"t":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}}"#,
                &[0; 8],
            ),
            "unsupported dtype `C64`",
        ),
        (
            "not json",
            safetensors_raw("{\"t\": [1,", &[]),
            "not a JSON object",
        ),
        (
            "not utf-8",
            safetensors_raw("{\"\u{7f}\u{ff}\": 1}", &[])
                .iter()
                .map(|&b| if b == 0xc3 { 0xff } else { b })
                .collect(),
            "not a JSON object",
        ),
    ];
    for (what, bytes, needle) in &sts {
        write(&s, "bad.safetensors", bytes);
        let (code, stderr) = prove_capped(s.path(), "bad.safetensors", "good.safetensors");
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(stderr.contains(needle), "{what}: {stderr}");
        assert!(stderr.contains("bad.safetensors"), "{what}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    }
}

#[test]
fn histogram_svg_is_written_atomically_with_the_bound() {
    let s = fixed();
    let run = s.run(&[
        "prove",
        "softmax",
        "-r",
        "ref.npy",
        "-c",
        "out.npy",
        "--histogram",
        "err.svg",
    ]);
    assert_eq!(run.code, 1);
    let svg = std::fs::read_to_string(s.path().join("err.svg")).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains("max-abs 0.01"), "the bound is drawn: {svg}");
    assert!(svg.contains("<rect x="), "bars are drawn");
    assert!(svg.contains(">0: 5<"), "five exact zeros: {svg}");
    let leftovers: Vec<_> = std::fs::read_dir(s.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn fortran_order_is_compared_in_logical_order() {
    let s = Sota::new();
    // Logical [[1, 2, 3], [4, 5, 6]] stored column-major is 1 4 2 5 3 6.
    write(
        &s,
        "c.npy",
        &npy_f32(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], false),
    );
    write(
        &s,
        "f.npy",
        &npy_f32(&[2, 3], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.5], true),
    );
    let run = s.run(&["prove", "-r", "c.npy", "-c", "f.npy", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    let m = &v["tensors"][0]["metrics"];
    assert_eq!(m["max_abs"]["value"], 0.5);
    assert_eq!(m["max_abs"]["index"], serde_json::json!([1, 2]));
    assert_eq!(
        m["bits"]["differing"], 1,
        "the layout itself is not a difference"
    );
    assert_eq!(v["tensors"][0]["layout"]["candidate"], "F");
}

/// Two 96 MiB tensors compared with two threads: the peak resident set
/// (VmHWM, sampled until the process exits) stays far below the 192 MiB
/// compared, because pages already read are released from the mapping.
#[cfg(target_os = "linux")]
#[test]
fn a_pair_larger_than_the_memory_budget_runs_in_bounded_memory() {
    use std::io::Write;
    let s = Sota::new();
    let rows = 96 * 1024 * 1024 / 4 / 4096;
    for (name, scale) in [("big_a.npy", 1.0f32), ("big_b.npy", 1.000_001)] {
        let header =
            format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, 4096), }}");
        let head = npy_raw(&header, &[]);
        let mut f = std::io::BufWriter::new(std::fs::File::create(s.path().join(name)).unwrap());
        f.write_all(&head).unwrap();
        let mut x = 0x9e37_79b9_u32;
        let mut row = Vec::with_capacity(4096 * 4);
        for _ in 0..rows {
            row.clear();
            for _ in 0..4096 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let v = (x as f32 / u32::MAX as f32 - 0.5) * scale;
                row.extend_from_slice(&v.to_le_bytes());
            }
            f.write_all(&row).unwrap();
        }
        f.flush().unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_sota"))
        .current_dir(s.path())
        .args([
            "prove",
            "-r",
            "big_a.npy",
            "-c",
            "big_b.npy",
            "--threads",
            "2",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let code = loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            if let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:")) {
                let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
                peak_kib = peak_kib.max(kib);
            }
        }
        if let Some(code) = child.try_wait().unwrap() {
            break code;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    assert!(code.success());
    assert!(peak_kib > 0, "VmHWM was sampled");
    assert!(
        peak_kib < 64 * 1024,
        "peak RSS {peak_kib} KiB comparing two 96 MiB tensors (budget 64 MiB)"
    );
}
