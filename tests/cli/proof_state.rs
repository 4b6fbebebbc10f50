//! Proofs the scorecard sees (issue 31, item 4): a proof record written by
//! `sota prove SLUG --record` is read by `coverage` (the `proven` KPI:
//! missing, failing, stale with the files that changed, proven), by the
//! gate (a commit that changes a proved file without a new proof is told
//! so, even when a trailer silences the prior-art advisory), by `report
//! --html` (a proof column) and by `audit` (which kernel commits a proof
//! record followed; a commit deleting the record is no proof).

use crate::harness::Sota;
use crate::prove::{npy_f32, write};

const MATRIX: &str = r#"
[project]
name = "demo"
reviewed = 2026-12-01

[[op]]
slug = "softmax"
title = "Row softmax"
sota = "Online softmax (Milakov & Gimelshein)"
link = "https://arxiv.org/abs/1805.02867"
oracle = "torch.softmax in f64"
route = "stay-minimal"
files = ["kernels/softmax*.cu"]
at = ["kernels/softmax.cu"]
check = [{ metric = "cosine", min = 0.999 }]

[[op]]
slug = "gemm"
title = "GEMM"
sota = "CUTLASS"
link = "https://github.com/NVIDIA/cutlass"
oracle = "torch.matmul"
route = "bind"
files = ["kernels/gemm.cu"]
at = ["kernels/gemm.cu"]
"#;

/// A repository with the matrix, two kernels and two tensors, committed.
fn repo() -> Sota {
    let s = Sota::new().git_init();
    write(&s, "sota.toml", MATRIX.as_bytes());
    std::fs::create_dir_all(s.path().join("kernels")).unwrap();
    write(&s, "kernels/softmax.cu", b"__global__ void softmax() {}\n");
    write(&s, "kernels/gemm.cu", b"__global__ void gemm() {}\n");
    write(&s, "ref.npy", &npy_f32(&[4], &[1.0, 2.0, 3.0, 4.0], false));
    write(
        &s,
        "bad.npy",
        &npy_f32(&[4], &[4.0, -3.0, 2.0, -1.0], false),
    );
    s.commit("kernels");
    s
}

fn prove(s: &Sota, cand: &str) -> i32 {
    s.run(&["prove", "softmax", "-r", "ref.npy", "-c", cand, "--record"])
        .code
}

/// The `proven` KPI of `coverage --json`: its debt and item reasons.
fn proven_kpi(s: &Sota) -> (u64, Vec<String>) {
    let run = s.run(&["coverage", "--json", "--today", "2026-12-02"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let kpi = v["kpis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "proven")
        .expect("a proven KPI")
        .clone();
    assert_eq!(kpi["group"], "proven");
    assert_eq!(kpi["hard"], false, "a missing proof must not fail --check");
    let whys = kpi["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{}: {}",
                i["owner"].as_str().unwrap(),
                i["why"].as_str().unwrap()
            )
        })
        .collect();
    (kpi["debt"].as_u64().unwrap(), whys)
}

#[test]
fn the_scorecard_sees_missing_failing_stale_and_proven_proofs() {
    let s = repo();
    // Only `softmax` has a `check` list: `gemm` is has_oracle's business.
    let (debt, whys) = proven_kpi(&s);
    assert_eq!(debt, 1, "{whys:?}");
    assert!(whys[0].starts_with("softmax: missing"), "{whys:?}");
    assert!(whys[0].contains("sota prove softmax"), "{whys:?}");

    assert_eq!(prove(&s, "bad.npy"), 1, "the planted wrong answer fails");
    let (_, whys) = proven_kpi(&s);
    assert!(whys[0].starts_with("softmax: failing"), "{whys:?}");

    assert_eq!(prove(&s, "ref.npy"), 0);
    assert_eq!(proven_kpi(&s), (0, vec![]));
    // `coverage --check` does not fail on it either way.
    assert_eq!(s.run(&["coverage", "--check"]).code, 0);

    // The kernel changes after the proof: the scorecard judges what git's
    // index holds (as for the population), so an unstaged edit is not
    // yet a change; staged, it makes the proof stale, naming the file.
    let v2: &[u8] = b"__global__ void softmax() { /* v2 */ }\n";
    write(&s, "kernels/softmax.cu", v2);
    assert_eq!(proven_kpi(&s), (0, vec![]));
    s.git(&["add", "kernels/softmax.cu"]).success();
    let (debt, whys) = proven_kpi(&s);
    assert_eq!(debt, 1);
    assert!(
        whys[0].starts_with("softmax: stale: kernels/softmax.cu changed since the proof of"),
        "{whys:?}"
    );
    // Proved again: the record holds the staged bytes.
    assert_eq!(prove(&s, "ref.npy"), 0);
    assert_eq!(proven_kpi(&s), (0, vec![]));
    // A new file of the op, tracked, also makes the proof stale.
    write(&s, "kernels/softmax_v3.cu", b"__global__ void v3() {}\n");
    s.git(&["add", "kernels/softmax_v3.cu"]).success();
    let (_, whys) = proven_kpi(&s);
    assert!(whys[0].contains("softmax_v3.cu"), "{whys:?}");
    // An edit to another op's file leaves this proof alone.
    assert_eq!(prove(&s, "ref.npy"), 0);
    let gemm_v2: &[u8] = b"__global__ void gemm() { /* v2 */ }\n";
    write(&s, "kernels/gemm.cu", gemm_v2);
    s.git(&["add", "kernels/gemm.cu"]).success();
    assert_eq!(proven_kpi(&s), (0, vec![]));
    // Outside git (no index), the work tree's bytes are hashed.
    std::fs::remove_dir_all(s.path().join(".git")).unwrap();
    assert_eq!(proven_kpi(&s), (0, vec![]));
    let v9: &[u8] = b"__global__ void softmax() { /* v9 */ }\n";
    write(&s, "kernels/softmax.cu", v9);
    let (_, whys) = proven_kpi(&s);
    assert!(whys[0].starts_with("softmax: stale"), "{whys:?}");
}

#[test]
fn a_record_that_is_no_record_or_leads_outside_counts_as_missing() {
    let s = repo();
    std::fs::create_dir_all(s.path().join(".sota/proofs")).unwrap();
    write(&s, ".sota/proofs/softmax.json", b"{\"verdict\": \"pass\"}");
    let (_, whys) = proven_kpi(&s);
    assert!(whys[0].starts_with("softmax: missing"), "{whys:?}");
    #[cfg(unix)]
    {
        // A passing record outside the repository, linked in, is not read.
        assert_eq!(prove(&s, "ref.npy"), 0);
        let outside = tempfile::tempdir().unwrap();
        let rec = s.path().join(".sota/proofs/softmax.json");
        std::fs::rename(&rec, outside.path().join("softmax.json")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("softmax.json"), &rec).unwrap();
        let (_, whys) = proven_kpi(&s);
        assert!(whys[0].starts_with("softmax: missing"), "{whys:?}");
    }
}

#[test]
fn the_gate_tells_a_commit_that_changes_a_proved_kernel_without_a_new_proof() {
    let s = repo();
    assert_eq!(prove(&s, "ref.npy"), 0);
    s.commit("proof");

    // Changed and staged without a new proof: stale, in every format.
    write(
        &s,
        "kernels/softmax.cu",
        b"__global__ void softmax() { /* v2 */ }\n",
    );
    s.git(&["add", "kernels/softmax.cu"]).success();
    let human = s.run(&["gate"]);
    assert_eq!(human.code, 0, "advisory");
    assert!(
        human
            .stdout
            .contains("proof    stale — kernels/softmax.cu changed since the proof of"),
        "{}",
        human.stdout
    );
    let short = s.run(&["gate", "--format", "short"]);
    assert!(short.stdout.contains("· proof stale ·"), "{}", short.stdout);
    let json: serde_json::Value = serde_json::from_str(&s.run(&["gate", "--json"]).stdout).unwrap();
    assert_eq!(json["proofs"][0]["op"], "softmax");
    assert_eq!(json["proofs"][0]["state"], "stale");
    assert_eq!(json["proofs"][0]["files"][0], "kernels/softmax.cu");

    // A trailer silences the prior-art advisory, not the proof.
    let msg = s.path().join("msg");
    std::fs::write(
        &msg,
        "faster softmax\n\nPrior-art: online softmax (arXiv:1805.02867)\n",
    )
    .unwrap();
    let silenced = s.run(&["gate", "--commit-msg", msg.to_str().unwrap()]);
    assert_eq!(silenced.code, 0);
    assert!(
        !silenced.stdout.contains("PRIOR_ART:"),
        "{}",
        silenced.stdout
    );
    assert!(
        silenced
            .stdout
            .contains("PROOF: softmax stale — kernels/softmax.cu changed"),
        "{}",
        silenced.stdout
    );

    // Proved again and staged with the record: the proof holds.
    assert_eq!(prove(&s, "ref.npy"), 0);
    s.git(&["add", "-A"]).success();
    let json: serde_json::Value = serde_json::from_str(&s.run(&["gate", "--json"]).stdout).unwrap();
    assert_eq!(json["proofs"][0]["state"], "proven", "{json}");
    let silenced = s.run(&["gate", "--commit-msg", msg.to_str().unwrap()]);
    assert_eq!(silenced.stdout, "", "nothing to tell");

    // Staged content is what counts, not the work tree: stage the proved
    // version, then edit the work tree again.
    write(
        &s,
        "kernels/softmax.cu",
        b"__global__ void softmax() { /* v3 */ }\n",
    );
    let json: serde_json::Value = serde_json::from_str(&s.run(&["gate", "--json"]).stdout).unwrap();
    assert_eq!(json["proofs"][0]["state"], "proven", "{json}");

    // An op without checks has no proof line; an op with checks and no
    // record is told it is missing.
    s.git(&["checkout", "--", "kernels/softmax.cu"]).success();
    s.commit("proved v2");
    write(
        &s,
        "kernels/gemm.cu",
        b"__global__ void gemm() { /* v2 */ }\n",
    );
    s.git(&["add", "-A"]).success();
    let human = s.run(&["gate"]);
    assert!(!human.stdout.contains("proof "), "{}", human.stdout);
    std::fs::remove_file(s.path().join(".sota/proofs/softmax.json")).unwrap();
    write(
        &s,
        "kernels/softmax.cu",
        b"__global__ void softmax() { /* v4 */ }\n",
    );
    s.git(&["add", "-A"]).success();
    let human = s.run(&["gate"]);
    assert!(
        human
            .stdout
            .contains("proof    missing — no proof record of its checks"),
        "{}",
        human.stdout
    );
}

#[test]
fn the_report_shows_each_ops_proof_and_the_audit_which_commits_a_proof_followed() {
    let s = repo();
    // c1 (kernels), then c2: a kernel change with its proof; c3: a kernel
    // change, proved in c4; c5: a kernel change and the record deleted.
    write(
        &s,
        "kernels/softmax.cu",
        b"__global__ void softmax() { /* v2 */ }\n",
    );
    assert_eq!(prove(&s, "ref.npy"), 0);
    s.commit("v2 with its proof");
    write(
        &s,
        "kernels/softmax.cu",
        b"__global__ void softmax() { /* v3 */ }\n",
    );
    s.commit("v3");
    assert_eq!(prove(&s, "ref.npy"), 0);
    s.commit("prove v3");
    write(
        &s,
        "kernels/softmax.cu",
        b"__global__ void softmax() { /* v4 */ }\n",
    );
    std::fs::remove_file(s.path().join(".sota/proofs/softmax.json")).unwrap();
    s.commit("v4, record dropped");

    let run = s.run(&["audit", "--all", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let by_subject = |subject: &str| {
        v["commits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["subject"] == subject)
            .unwrap_or_else(|| panic!("{subject} in {v}"))["proofs"]
            .clone()
    };
    let v4 = by_subject("v4, record dropped");
    assert_eq!(v4[0]["op"], "softmax");
    assert!(
        v4[0]["proved_in"].is_null(),
        "deleting the record is no proof: {v4}"
    );
    let log = s.git(&["log", "--format=%H %s"]).stdout;
    let hash = |subject: &str| {
        log.lines()
            .find_map(|l| l.strip_suffix(&format!(" {subject}")))
            .unwrap()
            .to_owned()
    };
    // A proof in the same commit counts; a later one too.
    assert_eq!(
        by_subject("v2 with its proof")[0]["proved_in"],
        hash("v2 with its proof")
    );
    assert_eq!(by_subject("v3")[0]["proved_in"], hash("prove v3"));
    assert!(
        !v["commits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["subject"] == "prove v3"),
        "a record-only commit touches no kernel"
    );
    // c1 touched both ops: only softmax has checks.
    let c1 = by_subject("kernels");
    assert_eq!(c1.as_array().unwrap().len(), 1);
    assert_eq!(v["proofs"]["changes"], 4);
    assert_eq!(v["proofs"]["followed_by_proof"], 3);
    let human = s.run(&["audit", "--all"]).stdout;
    assert!(
        human.contains("proofs: 3 of 4 kernel changes to ops with a `check` list were followed by a proof record"),
        "{human}"
    );

    // The page: softmax's proof is missing (the record is gone); gemm
    // has no checks.
    let page = s.path().join("report.html");
    assert_eq!(
        s.run(&[
            "report",
            "--html",
            page.to_str().unwrap(),
            "--today",
            "2026-12-02"
        ])
        .code,
        0
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<th scope=\"col\">proof</th>"), "{html}");
    let row = |slug: &str| {
        let at = html.find(&format!("<code>{slug}</code>")).unwrap();
        html[at..at + html[at..].find("</tr>").unwrap()].to_owned()
    };
    assert!(
        row("softmax").contains("<span class=\"bad\">missing</span>"),
        "{}",
        row("softmax")
    );
    assert!(
        row("gemm").contains("<em>no checks</em>"),
        "{}",
        row("gemm")
    );
    // Proved again (uncommitted): the page says proven, with the date.
    assert_eq!(prove(&s, "ref.npy"), 0);
    s.run(&[
        "report",
        "--html",
        page.to_str().unwrap(),
        "--today",
        "2026-12-02",
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html.find("<code>softmax</code>").unwrap();
    assert!(html[at..].contains("<span class=\"ok\">proven</span>"));
}

#[test]
fn a_record_is_of_the_ops_own_checks_and_never_written_through_a_link_out() {
    let s = repo();
    let own = s.run(&[
        "prove",
        "softmax",
        "-r",
        "ref.npy",
        "-c",
        "ref.npy",
        "--check",
        "cosine>=0.5",
        "--record",
    ]);
    assert_eq!(own.code, 2);
    assert!(
        own.stderr.contains("the op's own `check` list"),
        "{}",
        own.stderr
    );
    assert!(!s.path().join(".sota").exists());
    #[cfg(unix)]
    {
        // A hostile repository commits `.sota` as a link out of it.
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), s.path().join(".sota")).unwrap();
        let run = s.run(&[
            "prove", "softmax", "-r", "ref.npy", "-c", "ref.npy", "--record",
        ]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("refusing to write the proof record"),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
