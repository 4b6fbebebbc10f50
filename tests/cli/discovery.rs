//! Finding the matrix: --matrix, $SOTA_MATRIX, the nearest sota.toml, and
//! paths inside it relative to its directory (or `[project] root`).

use crate::harness::{Sota, SMALL};

#[test]
fn the_nearest_sota_toml_above_the_cwd_is_used() {
    let p = Sota::new().file("sota.toml", SMALL).cwd("deep/down/here");
    let run = p.run(&["list", "--json"]);
    run.success();
    assert_eq!(run.json()["source"]["project"], "demo");
    assert!(run.stderr.is_empty(), "no catalog notice: {}", run.stderr);
}

#[test]
fn sota_matrix_env_and_flag_take_precedence_in_that_order() {
    let other = SMALL.replace("name = \"demo\"", "name = \"other\"");
    let third = SMALL.replace("name = \"demo\"", "name = \"third\"");
    let p = Sota::new()
        .file("sota.toml", SMALL)
        .file("cfg/other.toml", &other)
        .file("cfg/third.toml", &third)
        .env("SOTA_MATRIX", "cfg/other.toml");
    assert_eq!(p.run(&["--json"]).json()["source"]["project"], "other");
    let flag = p.run(&["--matrix", "cfg/third.toml", "--json"]);
    assert_eq!(flag.json()["source"]["project"], "third");
}

#[test]
fn a_missing_explicit_matrix_is_a_configuration_error() {
    let run = Sota::new().run(&["--matrix", "nope.toml", "list"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot read the matrix"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("nope.toml"));
    assert!(!run.stderr.contains("panicked"));

    let env = Sota::new()
        .env("SOTA_MATRIX", "missing.toml")
        .run(&["list"]);
    assert_eq!(env.code, 2);
    assert!(env.stderr.contains("missing.toml"), "{}", env.stderr);
}

#[test]
fn globs_are_relative_to_the_matrix_directory_or_its_root() {
    // The matrix lives in tools/sota/ and moves the root two levels up
    // (inside the repository: a root outside it is refused, see security.rs).
    let moved = SMALL.replace(
        "reviewed = 2026-06-26",
        "reviewed = 2026-06-26\nroot = \"../..\"",
    );
    let p = Sota::new()
        .git_init()
        .file("tools/sota/sota.toml", &moved)
        .file("kernels/attn/flash.cu", "")
        .cwd("kernels");
    let run = p.run(&[
        "--matrix",
        "../tools/sota/sota.toml",
        "attn/flash.cu",
        "--json",
    ]);
    run.success();
    assert_eq!(run.json()["path"], "kernels/attn/flash.cu");

    let bad_root = SMALL.replace("reviewed = 2026-06-26", "root = \"no/such/dir\"");
    let run = Sota::new().file("sota.toml", &bad_root).run(&["list"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("sota::bad-root"), "{}", run.stderr);
}

#[test]
fn schema_prints_a_json_schema_even_beside_a_broken_matrix() {
    let run = Sota::new().file("sota.toml", "not toml [").run(&["schema"]);
    run.success();
    let v = run.json();
    assert_eq!(v["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(v["properties"]["op"]["type"], "array");
}
