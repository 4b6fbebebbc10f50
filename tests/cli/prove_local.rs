//! `sota prove`'s localized metrics (the worst row and tile), mixed
//! dtypes (a low-precision candidate against an f32 reference) and checks
//! restricted to a candidate dtype — and the two planted attention bugs
//! that a whole-tensor cosine lets through but the catalog's default
//! checks for attention must fail.

use crate::harness::Sota;
use crate::prove::{npy_f32, npy_raw, safetensors_raw, write};

/// xorshift32 in [-0.5, 0.5).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> f32 {
        let x = &mut self.0;
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        (*x as f32 / u32::MAX as f32) - 0.5
    }
}

const H: usize = 4;
const Q: usize = 1024;
const K: usize = 128;
const D: usize = 64;

/// softmax(QKᵀ/√d)V for every head: in f64 (the reference) or in f32
/// arithmetic (a correct kernel's output, off by rounding only).
fn attention(q: &[f32], k: &[f32], v: &[f32], wide: bool) -> Vec<f32> {
    let mut out = vec![0f32; H * Q * D];
    let scale = 1.0 / (D as f64).sqrt();
    for h in 0..H {
        for i in 0..Q {
            let qi = &q[(h * Q + i) * D..][..D];
            let mut s = vec![0f64; K];
            for (j, sj) in s.iter_mut().enumerate() {
                let kj = &k[(h * K + j) * D..][..D];
                *sj = if wide {
                    qi.iter()
                        .zip(kj)
                        .map(|(a, b)| *a as f64 * *b as f64)
                        .sum::<f64>()
                        * scale
                } else {
                    (qi.iter().zip(kj).map(|(a, b)| a * b).sum::<f32>() * scale as f32) as f64
                };
            }
            let m = s.iter().cloned().fold(f64::MIN, f64::max);
            let p: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
            let z: f64 = p.iter().sum();
            for d in 0..D {
                let o = if wide {
                    (0..K)
                        .map(|j| p[j] / z * v[(h * K + j) * D + d] as f64)
                        .sum::<f64>() as f32
                } else {
                    (0..K)
                        .map(|j| (p[j] / z) as f32 * v[(h * K + j) * D + d])
                        .sum::<f32>()
                };
                out[(h * Q + i) * D + d] = o;
            }
        }
    }
    out
}

/// Round to bfloat16 (nearest, ties to even), as its raw bits.
fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

fn bf16_safetensors(shape: &[usize], data: &[f32]) -> Vec<u8> {
    let bytes: Vec<u8> = data
        .iter()
        .flat_map(|x| bf16_bits(*x).to_le_bytes())
        .collect();
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let header = format!(
        r#"{{"out":{{"dtype":"BF16","shape":[{}],"data_offsets":[0,{}]}}}}"#,
        dims.join(","),
        bytes.len()
    );
    safetensors_raw(&header, &bytes)
}

/// The catalog's check list for `fused-attention`, as TOML (the defaults a
/// drafted matrix takes from the catalog).
fn catalog_checks(s: &Sota) -> String {
    let run = s.run(&["--catalog", "fused-attention", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let checks = run.json()["op"]["check"].as_array().unwrap().clone();
    assert!(checks.len() > 1, "the catalog holds localized checks");
    let items: Vec<String> = checks
        .iter()
        .map(|c| {
            let fields: Vec<String> = c
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            format!("  {{ {} }},", fields.join(", "))
        })
        .collect();
    format!("check = [\n{}\n]", items.join("\n"))
}

fn attention_repo() -> Sota {
    let s = Sota::new();
    let matrix = format!(
        "[project]\nname = \"demo\"\n\n[[op]]\nslug = \"fused-attention\"\ntitle = \"Attention\"\nsota = \"FlashAttention\"\n{}\n",
        catalog_checks(&s)
    );
    write(&s, "sota.toml", matrix.as_bytes());
    write_attention_tensors(&s);
    s
}

/// One attention output (1 × 4 heads × 1,024 queries × 64) as `ref.npy`
/// (f64 arithmetic) and candidates: `good.npy` (f32 arithmetic),
/// `row_bug.npy` (the last query row of every head never written),
/// `tile_bug.npy` (one 16-row tile of one head scaled by 1.5), and bf16
/// `good_bf16.safetensors` / `tile_bug_bf16.safetensors`.
pub(crate) fn write_attention_tensors(s: &Sota) {
    let mut rng = Rng(0x5eed_a77e);
    let mut rand = |n: usize| (0..n).map(|_| rng.next() * 4.0).collect::<Vec<f32>>();
    let (q, k, v) = (rand(H * Q * D), rand(H * K * D), rand(H * K * D));
    let reference = attention(&q, &k, &v, true);
    let good = attention(&q, &k, &v, false);
    let shape = [1, H, Q, D];
    write(s, "ref.npy", &npy_f32(&shape, &reference, false));
    write(s, "good.npy", &npy_f32(&shape, &good, false));
    // Bug 1: the last query row of every head is never written.
    let mut row_bug = good.clone();
    for h in 0..H {
        row_bug[(h * Q + Q - 1) * D..][..D].fill(0.0);
    }
    write(s, "row_bug.npy", &npy_f32(&shape, &row_bug, false));
    // Bug 2: one 16-row tile of one head scaled by 1.5.
    let mut tile_bug = good.clone();
    for x in &mut tile_bug[(2 * Q + 512) * D..][..16 * D] {
        *x *= 1.5;
    }
    write(s, "tile_bug.npy", &npy_f32(&shape, &tile_bug, false));
    write(s, "good_bf16.safetensors", &bf16_safetensors(&shape, &good));
    write(
        s,
        "tile_bug_bf16.safetensors",
        &bf16_safetensors(&shape, &tile_bug),
    );
}

pub(crate) fn prove_json(s: &Sota, candidate: &str) -> (i32, serde_json::Value) {
    let run = s.run(&[
        "prove",
        "fused-attention",
        "-r",
        "ref.npy",
        "-c",
        candidate,
        "--json",
    ]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    (run.code, run.json())
}

pub(crate) fn failed_metrics(v: &serde_json::Value) -> Vec<String> {
    v["tensors"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["pass"] == false)
        .map(|c| c["metric"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn planted_attention_bugs_pass_a_cosine_but_fail_the_catalog_defaults() {
    let s = attention_repo();
    let (code, good) = prove_json(&s, "good.npy");
    assert_eq!(code, 0, "a correct f32 kernel passes: {good:#}");

    let (code, bug) = prove_json(&s, "row_bug.npy");
    let cosine = bug["tensors"][0]["metrics"]["cosine"].as_f64().unwrap();
    eprintln!("last query row never written: cosine {cosine}");
    assert!(
        cosine > 0.999,
        "the whole-tensor cosine lets it through: {cosine}"
    );
    assert_eq!(code, 1);
    assert!(failed_metrics(&bug).contains(&"row-cosine".to_owned()));
    let rows = &bug["tensors"][0]["metrics"]["rows"];
    assert_eq!(rows["cosine"]["value"].as_f64(), Some(0.0));
    assert_eq!(
        rows["cosine"]["origin"],
        serde_json::json!([0, 0, Q - 1, 0])
    );
    assert_eq!(rows["failing"][0]["groups"], H, "one row per head fails");

    let (code, bug) = prove_json(&s, "tile_bug.npy");
    let cosine = bug["tensors"][0]["metrics"]["cosine"].as_f64().unwrap();
    eprintln!("one 16-row tile scaled by 1.5: cosine {cosine}");
    assert!(
        cosine > 0.999,
        "the whole-tensor cosine lets it through: {cosine}"
    );
    assert_eq!(code, 1);
    assert_eq!(failed_metrics(&bug), ["tile-rel-l2"]);
    let tiles = &bug["tensors"][0]["metrics"]["tiles"];
    assert_eq!(tiles["grouping"]["tile"], serde_json::json!([16, 16]));
    assert_eq!(tiles["rel_l2"]["origin"], serde_json::json!([0, 2, 512, 0]));
    let worst = tiles["rel_l2"]["value"].as_f64().unwrap();
    assert!((worst - 0.5).abs() < 1e-3, "{worst}");
    assert_eq!(
        tiles["failing"][0]["groups"],
        D / 16,
        "the tiles of those 16 rows"
    );
}

#[test]
fn a_bf16_candidate_against_an_f32_reference_takes_the_bf16_checks() {
    let s = attention_repo();
    let (code, good) = prove_json(&s, "good_bf16.safetensors");
    assert_eq!(code, 0, "bf16 rounding is within the bf16 bounds: {good:#}");
    let t = &good["tensors"][0];
    assert_eq!(t["dtype"], "bf16");
    assert_eq!(t["reference_dtype"], "f32");
    // The f32 bound (1e-3) is left out; the bf16 one (3e-2) judges.
    let bounds: Vec<&str> = t["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["bound"].as_str().unwrap())
        .collect();
    assert_eq!(bounds, ["≥ 0.999", "≥ 0.999", "≤ 0.03"]);
    assert_eq!(t["other_dtype_checks"], 3);
    let worst = t["metrics"]["tiles"]["rel_l2"]["value"].as_f64().unwrap();
    assert!(worst > 1e-3 && worst < 3e-2, "bf16 rounding: {worst}");
    // The allclose default is the candidate's dtype's (torch.testing's bf16).
    assert_eq!(t["metrics"]["allclose"][0]["rtol"], 0.016);

    let (code, bug) = prove_json(&s, "tile_bug_bf16.safetensors");
    assert_eq!(code, 1);
    assert_eq!(failed_metrics(&bug), ["tile-rel-l2"]);
}

#[test]
fn localized_figures_render_and_do_not_depend_on_threads() {
    let s = Sota::new();
    let mut rng = Rng(7);
    let n = 3 * 40 * 70;
    let a: Vec<f32> = (0..n).map(|_| rng.next()).collect();
    let mut b: Vec<f32> = a.iter().map(|x| x + rng.next() * 1e-4).collect();
    b[2 * 2800 + 17 * 70 + 9] += 0.25;
    write(&s, "a.npy", &npy_f32(&[3, 40, 70], &a, false));
    write(&s, "b.npy", &npy_f32(&[3, 40, 70], &b, false));
    let run = |threads: &str, extra: &[&str]| {
        let mut args = vec!["prove", "-r", "a.npy", "-c", "b.npy", "--threads", threads];
        args.extend_from_slice(extra);
        s.run(&args)
    };
    let checks = [
        "--check",
        "row-cosine>=0.99; tile-max-abs<=0.01; tile-rel-l2<=0.5",
        "--tile",
        "8x32",
    ];
    let human = run("1", &checks);
    assert_eq!(human.code, 1, "{}", human.stderr);
    insta::assert_snapshot!("prove_local_human", human.stdout);
    for extra in [&checks[..], &["--axis", "0", "--tile", "16x16"][..]] {
        let mut with_json = extra.to_vec();
        with_json.push("--json");
        let one = run("1", &with_json).stdout;
        assert_eq!(one, run("2", &with_json).stdout);
        assert_eq!(one, run("5", &with_json).stdout);
    }
    let along0 = run("2", &["--axis", "0", "--json"]).json();
    let rows = &along0["tensors"][0]["metrics"]["rows"];
    assert_eq!(rows["grouping"]["axis"], 0);
    assert_eq!(rows["groups"], 40 * 70);
    assert_eq!(rows["max_abs"]["origin"], serde_json::json!([0, 17, 9]));
    let bad = run("1", &["--axis", "3"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("--axis 3 is out of range"),
        "{}",
        bad.stderr
    );
    let bad = run("1", &["--tile", "0x4"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("ROWSxCOLS"), "{}", bad.stderr);
}

#[test]
fn checks_restricted_to_a_dtype_judge_only_that_dtype() {
    let s = Sota::new();
    let matrix = r#"
[project]
name = "demo"

[[op]]
slug = "gemm"
title = "GEMM"
sota = "cuBLAS"
check = [
  { metric = "cosine", min = 0.99 },
  { metric = "max-abs", max = 0.0, dtype = "bf16" },
]

[[op]]
slug = "only-bf16"
title = "Only bf16"
sota = "x"
check = [{ metric = "cosine", min = 0.99, dtype = ["bf16", "f16"] }]
"#;
    write(&s, "sota.toml", matrix.as_bytes());
    write(&s, "a.npy", &npy_f32(&[4], &[1.0, 2.0, 3.0, 4.0], false));
    write(&s, "b.npy", &npy_f32(&[4], &[1.0, 2.0, 3.0, 4.001], false));
    let run = s.run(&["prove", "gemm", "-r", "a.npy", "-c", "b.npy"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("1 check for other candidate dtypes left out"),
        "{}",
        run.stdout
    );
    let run = s.run(&["prove", "only-bf16", "-r", "a.npy", "-c", "b.npy"]);
    assert_eq!(
        run.code, 1,
        "nothing applied, nothing proved: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains("no check applies to a f32 candidate"),
        "{}",
        run.stdout
    );
    // The same restriction on the command line.
    let run = s.run(&[
        "prove",
        "-r",
        "a.npy",
        "-c",
        "b.npy",
        "--check",
        "bf16: max-abs<=0; cosine>=0.99",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    // A misspelt dtype is a load error with the place and the fix.
    write(
        &s,
        "sota.toml",
        matrix
            .replace("dtype = \"bf16\"", "dtype = \"bf61\"")
            .as_bytes(),
    );
    let run = s.run(&["prove", "gemm", "-r", "a.npy", "-c", "b.npy"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unknown dtype `bf61`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("bf16"), "{}", run.stderr);
}

#[test]
fn an_f16_candidate_is_compared_with_an_f32_reference_in_f64() {
    let s = Sota::new();
    let a = [0.1f32, 0.7, -2.5, 1e-3];
    // f16 bits of the nearest values: 0.1 → 0x2e66, 0.7 → 0x399a,
    // -2.5 → 0xc100, 1e-3 → 0x1419.
    let f16: Vec<u8> = [0x2e66u16, 0x399a, 0xc100, 0x1419]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    write(&s, "a.npy", &npy_f32(&[4], &a, false));
    write(
        &s,
        "b.npy",
        &npy_raw(
            "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
            &f16,
        ),
    );
    let run = s.run(&[
        "prove", "-r", "a.npy", "-c", "b.npy", "--check", "allclose", "--json",
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let t = &run.json()["tensors"][0];
    assert_eq!(t["dtype"], "f16");
    assert_eq!(t["reference_dtype"], "f32");
    assert_eq!(t["checks"][0]["params"]["rtol"], 0.001, "f16's default");
    // With f32's tolerances the same pair fails: the dtype decides.
    let run = s.run(&[
        "prove",
        "-r",
        "a.npy",
        "-c",
        "b.npy",
        "--check",
        "allclose:rtol=1.3e-6,atol=1e-5",
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("f16 (reference f32) [4]"),
        "{}",
        run.stdout
    );
}

#[test]
fn record_writes_the_proof_of_an_op_with_its_files_blob_ids() {
    let s = Sota::new().git_init();
    let matrix = r#"
[project]
name = "demo"

[[op]]
slug = "softmax"
title = "Row softmax"
sota = "x"
files = ["kernels/softmax*.cu"]
check = [{ metric = "cosine", min = 0.999 }, { metric = "row-cosine", min = 0.99 }]
"#;
    write(&s, "sota.toml", matrix.as_bytes());
    std::fs::create_dir_all(s.path().join("kernels")).unwrap();
    write(&s, "kernels/softmax.cu", b"__global__ void softmax() {}\n");
    write(&s, "kernels/gemm.cu", b"__global__ void gemm() {}\n");
    write(&s, "a.npy", &npy_f32(&[2, 2], &[1.0, 2.0, 3.0, 4.0], false));
    write(
        &s,
        "b.npy",
        &npy_f32(&[2, 2], &[1.0, 2.0, 3.0, 4.0001], false),
    );
    s.git(&["add", "."]);
    let run = s.run(&["prove", "softmax", "-r", "a.npy", "-c", "b.npy", "--record"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(".sota/proofs/softmax.json"),
        "{}",
        run.stderr
    );
    let text = std::fs::read_to_string(s.path().join(".sota/proofs/softmax.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], "sota.proof/v1");
    assert_eq!(v["op"], "softmax");
    assert_eq!(v["verdict"], "pass");
    assert_eq!(v["tool"]["name"], "sota");
    let date = v["date"].as_str().unwrap();
    assert!(date.len() == 10 && date.as_bytes()[4] == b'-', "{date}");
    assert_eq!(v["tensors"][0]["shape"], serde_json::json!([2, 2]));
    assert_eq!(v["tensors"][0]["checks"].as_array().unwrap().len(), 2);
    // The op's files only, with git's own blob id.
    let blob = s.git(&["hash-object", "kernels/softmax.cu"]).stdout;
    assert_eq!(
        v["files"],
        serde_json::json!([{"path": "kernels/softmax.cu", "blob": blob.trim()}])
    );
    // A failed proof is recorded too (the verdict says so), and --record
    // needs an op.
    write(
        &s,
        "b.npy",
        &npy_f32(&[2, 2], &[1.0, 2.0, 3.0, -4.0], false),
    );
    let run = s.run(&["prove", "softmax", "-r", "a.npy", "-c", "b.npy", "--record"]);
    assert_eq!(run.code, 1);
    let text = std::fs::read_to_string(s.path().join(".sota/proofs/softmax.json")).unwrap();
    assert!(text.contains("\"verdict\": \"fail\""), "{text}");
    let run = s.run(&[
        "prove",
        "-r",
        "a.npy",
        "-c",
        "b.npy",
        "--check",
        "cosine>=0.9",
        "--record",
    ]);
    assert_eq!(run.code, 2);
}

#[test]
fn a_record_goes_stale_when_the_ops_files_change() {
    use sota::command::prove::{proof_state, ProofState};
    let s = Sota::new().git_init();
    let matrix = r#"
[project]
name = "demo"

[[op]]
slug = "softmax"
title = "Row softmax"
sota = "x"
files = ["kernels/softmax*.cu"]
check = [{ metric = "cosine", min = 0.999 }]
"#;
    write(&s, "sota.toml", matrix.as_bytes());
    std::fs::create_dir_all(s.path().join("kernels")).unwrap();
    write(&s, "kernels/softmax.cu", b"__global__ void softmax() {}\n");
    write(&s, "a.npy", &npy_f32(&[4], &[1.0, 2.0, 3.0, 4.0], false));
    s.git(&["add", "."]);
    let state = || {
        let ctx = sota::Context::resolve(sota::Inputs::new(
            s.path(),
            sota::matrix::Date::parse("2026-12-02").unwrap(),
        ));
        proof_state(&ctx, "softmax").unwrap()
    };
    assert_eq!(state(), ProofState::Missing);
    let prove = || s.run(&["prove", "softmax", "-r", "a.npy", "-c", "a.npy", "--record"]);
    assert_eq!(prove().code, 0);
    assert!(
        matches!(state(), ProofState::Proven { .. }),
        "{:?}",
        state()
    );
    write(
        &s,
        "kernels/softmax.cu",
        b"__global__ void softmax() { /* faster */ }\n",
    );
    write(&s, "kernels/softmax_v2.cu", b"__global__ void v2() {}\n");
    s.git(&["add", "."]);
    match state() {
        ProofState::Stale { files, date } => {
            assert_eq!(files, ["kernels/softmax.cu", "kernels/softmax_v2.cu"]);
            assert_eq!(date.len(), 10);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(prove().code, 0);
    assert!(matches!(state(), ProofState::Proven { .. }));
    write(&s, ".sota/proofs/softmax.json", b"{ not a record");
    assert_eq!(state(), ProofState::Missing);
}
