//! ARCHITECTURE.md's invariants, checked against the source: who may read
//! the process state, write files, spawn processes, parse TOML, print, or
//! know JSON and clap. Each rule scans `src/` (test modules excluded).

#![cfg(test)]

use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, with its non-test text.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|p| !p.ends_with("architecture.rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            // Test modules sit at the end of a file, after `#[cfg(test)]`.
            let code = match text.find("#[cfg(test)]\nmod tests") {
                Some(i) => text[..i].to_owned(),
                None => text,
            };
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, code)
        })
        .collect()
}

/// Files outside `allowed` (path prefixes) that contain any of `needles`.
fn offenders(needles: &[&str], allowed: &[&str]) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(path, _)| !allowed.iter().any(|a| path.starts_with(a)))
        .flat_map(|(path, code)| {
            needles
                .iter()
                .filter(|n| code.contains(**n))
                .map(|n| format!("{path}: {n}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn only_the_cli_reads_the_process_state() {
    let found = offenders(
        &[
            "env::current_dir",
            "env::var",
            "env::args",
            "SystemTime::now",
            "is_terminal",
        ],
        &["src/cli/", "src/main.rs"],
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn only_the_cli_prints_and_knows_clap() {
    let found = offenders(
        &[
            "println!",
            "print!(",
            "eprintln!",
            "eprint!(",
            "io::stdout",
            "io::stderr",
            "use clap",
            "clap::",
            "anstream::",
            "std::process::exit",
        ],
        &["src/cli/", "src/main.rs"],
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn only_the_write_module_writes_files() {
    let found = offenders(
        &[
            "fs::write",
            "File::create",
            "OpenOptions",
            "fs::rename",
            "fs::remove_file",
            "fs::remove_dir",
            "fs::create_dir",
            "set_permissions",
            "persist(",
        ],
        &["src/repo/write.rs", "src/read_only.rs"],
    );
    assert!(found.is_empty(), "{found:#?}");
    // The read-only opener may build `OpenOptions`, never to write.
    let opener = sources()
        .into_iter()
        .find(|(path, _)| path == "src/read_only.rs")
        .expect("src/read_only.rs");
    for needle in [
        ".write(",
        ".append(",
        ".create(",
        ".create_new(",
        ".truncate(",
    ] {
        assert!(!opener.1.contains(needle), "src/read_only.rs: {needle}");
    }
}

#[test]
fn only_git_rs_spawns_processes() {
    let found = offenders(&["Command::new", "process::Command"], &["src/repo/git.rs"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn only_the_matrix_module_parses_toml() {
    // signals.rs parses its own compiled-in table (src/surface/init/signals.toml),
    // never a matrix.
    let found = offenders(
        &["toml::", "toml_parser::", "DeTable"],
        &["src/matrix/", "src/surface/init/signals.rs"],
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn only_the_output_layer_knows_json() {
    // The MCP server speaks JSON-RPC, so it holds `serde_json::Value`s; the
    // payloads it sends are still built by `output` (it converts them, it
    // does not shape them). A `.safetensors` header is JSON input: its
    // reader parses it (untrusted, bounded), it never prints JSON.
    let found = offenders(
        &["serde_json"],
        &[
            "src/output/",
            "src/matrix/schema.rs",
            "src/mcp/",
            "src/prove/safetensors.rs",
        ],
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn surfaces_and_commands_decide_no_exit_codes() {
    let found = offenders(
        &["ExitCode", "exit_code("],
        &["src/cli/", "src/main.rs", "src/outcome.rs"],
    );
    assert!(found.is_empty(), "{found:#?}");
}
