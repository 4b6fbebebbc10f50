//! Malformed matrices: each defect is exit 2 with `file:line:col`, the
//! offending text, the stable code and a fix; several defects are all
//! reported at once; nothing panics.

use crate::harness::Sota;

const BASE: &str = "[project]\nname = \"t\"\n\n[[op]]\nslug = \"a\"\ntitle = \"A\"\nsota = \"S\"\n";

const LADDER: &str = "\n[[ladder]]\naxis = \"attention\"\n\n[[ladder.rung]]\nname = \"FA-1\"\nyear = 2022\nsummary = \"s\"\n";

struct Case {
    name: &'static str,
    toml: String,
    code: &'static str,
    at: &'static str,
    says: &'static str,
}

fn case(
    name: &'static str,
    toml: String,
    code: &'static str,
    at: &'static str,
    says: &'static str,
) -> Case {
    Case {
        name,
        toml,
        code,
        at,
        says,
    }
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "unknown key",
            format!("{BASE}lnik = \"https://x.org\"\n"),
            "unknown-key",
            "8:1",
            "did you mean `link`?",
        ),
        case(
            "missing field",
            BASE.replace("sota = \"S\"\n", ""),
            "missing-field",
            "4:1",
            "missing required field `sota`",
        ),
        case(
            "duplicate slug",
            format!("{BASE}\n[[op]]\nslug = \"a\"\ntitle = \"B\"\nsota = \"T\"\n"),
            "duplicate-slug",
            "10:8",
            "first defined here",
        ),
        case(
            "duplicate axis",
            format!("{BASE}{LADDER}{LADDER}"),
            "duplicate-axis",
            "18:8",
            "first defined here",
        ),
        case(
            "invalid glob",
            format!("{BASE}files = [\"src/[a-\"]\n"),
            "invalid-glob",
            "8:10",
            "src/[a-",
        ),
        case(
            "leading slash glob",
            format!("{BASE}files = [\"/src/*.cu\"]\n"),
            "invalid-glob",
            "8:10",
            "write `src/*.cu`",
        ),
        case(
            "unknown route",
            format!("{BASE}route = \"borow\"\n"),
            "unknown-route",
            "8:9",
            "did you mean `borrow`?",
        ),
        case(
            "slug not kebab-case",
            BASE.replace("slug = \"a\"", "slug = \"Fused_Attn\""),
            "slug-not-kebab",
            "5:8",
            "`fused-attn`",
        ),
        case(
            "reached names no rung",
            format!("{BASE}{LADDER}").replace(
                "axis = \"attention\"",
                "axis = \"attention\"\nreached = \"FA-9\"\nwitness = \"a\"",
            ),
            "unknown-rung",
            "11:11",
            "rungs: FA-1",
        ),
        case(
            "reached without witness",
            format!("{BASE}{LADDER}").replace(
                "axis = \"attention\"",
                "axis = \"attention\"\nreached = \"FA-1\"",
            ),
            "reached-without-witness",
            "11:11",
            "add `witness",
        ),
        case(
            "witness without reached",
            format!("{BASE}{LADDER}").replace(
                "axis = \"attention\"",
                "axis = \"attention\"\nwitness = \"a\"",
            ),
            "witness-without-reached",
            "11:11",
            "set `reached",
        ),
        case(
            "a string that is not a date",
            BASE.replace("name = \"t\"", "name = \"t\"\nreviewed = \"26 June 2026\""),
            "bad-date",
            "3:12",
            "write a date as YYYY-MM-DD",
        ),
        case(
            "impossible date",
            BASE.replace("name = \"t\"", "name = \"t\"\nreviewed = 2026-02-30"),
            "bad-date",
            "3:12",
            "day",
        ),
        case(
            "non-http link",
            format!("{BASE}link = \"github.com/NVIDIA/cutlass\"\n"),
            "bad-link",
            "8:8",
            "http",
        ),
        case(
            "wrong type",
            BASE.replace("title = \"A\"", "title = 3"),
            "wrong-type",
            "6:9",
            "must be a string",
        ),
        case(
            "toml syntax",
            BASE.replace("title = \"A\"", "title = \"A"),
            "toml-syntax",
            "6:11",
            "invalid TOML",
        ),
        case(
            "unknown metric",
            format!("{BASE}check = [{{ metric = \"cosin\", min = 0.9 }}]\n"),
            "bad-check",
            "8:21",
            "did you mean `cosine`",
        ),
        case(
            "empty ladder",
            format!("{BASE}\n[[ladder]]\naxis = \"attention\"\n"),
            "empty-ladder",
            "9:1",
            "[[ladder.rung]]",
        ),
        case(
            "absolute at",
            format!("{BASE}at = [\"/abs/x.go\"]\n"),
            "bad-at",
            "8:7",
            "leading `/`",
        ),
    ]
}

#[test]
fn each_defect_is_exit_2_with_its_code_place_and_fix() {
    for c in cases() {
        let run = Sota::new().file("sota.toml", &c.toml).run(&["list"]);
        let ctx = format!(
            "case `{}`:\n{}\n--- stderr:\n{}",
            c.name, c.toml, run.stderr
        );
        assert_eq!(run.code, 2, "{ctx}");
        assert!(run.stdout.is_empty(), "{ctx}");
        assert!(!run.stderr.contains("panicked"), "{ctx}");
        assert!(run.stderr.contains(&format!("sota::{}", c.code)), "{ctx}");
        assert!(run.stderr.contains(&format!("sota.toml:{}", c.at)), "{ctx}");
        assert!(run.stderr.contains(c.says), "{ctx}");
        assert!(run.stderr.contains("help:"), "a fix is offered: {ctx}");
        assert!(
            run.stderr.contains("1 problem"),
            "exactly one problem: {ctx}"
        );
    }
}

#[test]
fn three_defects_are_all_reported_in_file_order() {
    let toml = "[project]\nname = \"t\"\n\n[[op]]\nslug = \"a\"\ntitle = \"A\"\nsota = \"S\"\nroute = \"copy\"\nfiles = [\"/k/*.cu\"]\nlink = \"www.example.org\"\n";
    let run = Sota::new().file("sota.toml", toml).run(&["milestones"]);
    assert_eq!(run.code, 2);
    let route = run.stderr.find("sota.toml:8:9").expect("route reported");
    let glob = run.stderr.find("sota.toml:9:10").expect("glob reported");
    let link = run.stderr.find("sota.toml:10:8").expect("link reported");
    assert!(route < glob && glob < link, "file order");
    assert!(run.stderr.contains("sota.toml has 3 problems"));
    insta::assert_snapshot!("three_defects", run.stderr);
}

#[test]
fn the_library_returns_every_problem_without_printing() {
    let toml = "[project]\nnme = \"t\"\n\n[[op]]\nslug = \"x\"\n";
    let err = sota::Matrix::from_str(toml, "sota.toml").unwrap_err();
    let sota::LoadError::Invalid(invalid) = err else {
        panic!("not a validation error")
    };
    let codes: Vec<&str> = invalid.problems.iter().map(|p| p.code.name()).collect();
    // In file order: [project] lacks `name` (its header), `nme` is unknown,
    // and the op lacks `title` and `sota`.
    assert_eq!(
        codes,
        [
            "missing-field",
            "unknown-key",
            "missing-field",
            "missing-field"
        ]
    );
    assert_eq!(
        invalid.one_line_summaries()[1],
        "sota.toml:2:1: unknown-key: unknown key `nme` in [project]"
    );
}

#[test]
fn garbage_and_non_utf8_input_never_panic() {
    for bytes in [
        &b"\xff\xfe[project]"[..],
        b"[[op]]\n[[op]]\n",
        b"op = 3\nladder = \"x\"\n",
        b"",
        b"[project]\nname=\"x\"\n[[ladder]]\naxis=\"a\"\n[[ladder.rung]]\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sota.toml"), bytes).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sota"))
            .arg("list")
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bytes:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
