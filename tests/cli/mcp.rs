//! `sota mcp`: the real binary as an MCP server, driven by rmcp's client
//! over stdio (and by raw JSON lines where a real client would never send
//! what is tested), on temp git repositories. Every tool's structured
//! output is compared with the CLI's `--json` for the same question.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use crate::harness::{Sota, SMALL};

type Client = RunningService<RoleClient, ()>;

/// A committed repository with the small matrix and a kernel file.
fn project() -> Sota {
    let s = Sota::new()
        .git_init()
        .file("sota.toml", SMALL)
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n")
        .file("kernels/gemm/w4a16_int4.cu", "// int4\n")
        .file("src/main.rs", "fn main() {}\n");
    s.commit("init");
    s
}

pub(crate) fn server_command(dir: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sota"));
    cmd.arg("mcp")
        .current_dir(dir)
        .env_remove("SOTA_MATRIX")
        .env_remove("SOTA_CATALOG")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env("HOME", dir);
    cmd
}

pub(crate) async fn connect(dir: &Path) -> Client {
    let (transport, _stderr) = TokioChildProcess::builder(server_command(dir))
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn sota mcp");
    ().serve(transport).await.expect("initialize")
}

pub(crate) async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

pub(crate) fn structured(r: &CallToolResult) -> &Value {
    r.structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("no structured content: {r:?}"))
}

pub(crate) fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

pub(crate) fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn tools_and_resources_are_listed_read_only_with_schemas() {
    let s = project();
    rt().block_on(async {
        let c = connect(s.path()).await;
        let info = c.peer_info().expect("server info");
        assert_eq!(info.server_info.as_ref().unwrap().name, "sota");
        assert!(info
            .instructions
            .as_deref()
            .unwrap()
            .contains("ops_for_paths"));
        let tools = c.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "lookup",
                "ops_for_paths",
                "milestones",
                "coverage",
                "suggest",
                "catalog_search",
                "prove"
            ]
        );
        for t in &tools {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            assert!(t.annotations.as_ref().unwrap().read_only_hint == Some(true));
            assert!(t.description.as_ref().unwrap().len() > 80, "{}", t.name);
        }
        let paths = tools.iter().find(|t| t.name == "ops_for_paths").unwrap();
        assert_eq!(paths.input_schema["required"], json!(["paths"]));
        assert_eq!(
            paths.input_schema["properties"]["paths"]["type"], "array",
            "{:?}",
            paths.input_schema
        );
        assert!(paths
            .description
            .as_ref()
            .unwrap()
            .starts_with("Before editing"));
        let resources = c.list_all_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "sota://matrix",
                "sota://matrix/table",
                "sota://milestones/table"
            ]
        );
        c.cancel().await.unwrap();
    });
}

#[test]
fn every_tool_answers_what_the_cli_answers_with_json() {
    let s = project();
    let tensor = |v: [f32; 4]| crate::prove::npy_f32(&[2, 2], &v, false);
    std::fs::write(s.path().join("ref.npy"), tensor([1.0, 2.0, 3.0, 4.0])).unwrap();
    std::fs::write(s.path().join("out.npy"), tensor([1.0, 2.0, 3.0, 4.5])).unwrap();
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "lookup",
            json!({"query": "fused-attention"}),
            vec!["fused-attention"],
        ),
        (
            "lookup",
            json!({"query": "kernels/attn/flash.cu:12"}),
            vec!["kernels/attn/flash.cu:12"],
        ),
        (
            "lookup",
            json!({"query": "marlin int4"}),
            vec!["marlin", "int4"],
        ),
        (
            "lookup",
            json!({"query": "fused-atention"}),
            vec!["fused-atention"],
        ),
        (
            "ops_for_paths",
            json!({"paths": ["kernels/attn/flash.cu", "kernels/gemm/w4a16_int4.cu"]}),
            vec![
                "gate",
                "--paths",
                "kernels/attn/flash.cu",
                "kernels/gemm/w4a16_int4.cu",
            ],
        ),
        // No op covers it: the catalog's best match, as `sota suggest`.
        (
            "ops_for_paths",
            json!({"paths": ["src/main.rs"]}),
            vec!["suggest", "src/main.rs"],
        ),
        (
            "suggest",
            json!({"paths": ["kernels/gemm/w4a16_int4.cu", "kernels/attn/flash.cu"]}),
            vec![
                "suggest",
                "kernels/gemm/w4a16_int4.cu",
                "kernels/attn/flash.cu",
            ],
        ),
        ("suggest", json!({}), vec!["suggest", "--uncovered"]),
        ("milestones", json!({}), vec!["milestones"]),
        (
            "milestones",
            json!({"axis": "attention"}),
            vec!["milestones", "attention"],
        ),
        (
            "milestones",
            json!({"axis": "atention"}),
            vec!["milestones", "atention"],
        ),
        ("coverage", json!({}), vec!["coverage"]),
        (
            "catalog_search",
            json!({"query": "paged attention"}),
            vec!["--catalog", "paged", "attention"],
        ),
        ("catalog_search", json!({}), vec!["--catalog", "list"]),
        (
            "prove",
            json!({"reference": "ref.npy", "candidate": "out.npy",
                   "checks": ["cosine>=0.99; row-max-abs<=0.1"], "tile": "2x2"}),
            vec![
                "prove",
                "-r",
                "ref.npy",
                "-c",
                "out.npy",
                "--check",
                "cosine>=0.99; row-max-abs<=0.1",
                "--tile",
                "2x2",
            ],
        ),
    ];
    rt().block_on(async {
        let c = connect(s.path()).await;
        for (tool, args, cli) in &cases {
            let got = call(&c, tool, args.clone()).await;
            assert_eq!(got.is_error, Some(false), "{tool} {args}: {got:?}");
            let mut argv = cli.clone();
            argv.push("--json");
            let want = s.run(&argv).json();
            assert_eq!(structured(&got), &want, "{tool} {args} vs sota {cli:?}");
            let t = text(&got);
            assert!(!t.trim().is_empty() && !t.contains('\x1b'), "{tool}: {t:?}");
        }
        let paths = call(
            &c,
            "ops_for_paths",
            json!({"paths": ["kernels/attn/flash.cu"]}),
        )
        .await;
        assert!(
            text(&paths).contains("Prior-art: FlashAttention"),
            "{}",
            text(&paths)
        );
        assert!(structured(&paths)["advisories"][0]["suggested_trailer"]
            .as_str()
            .is_some_and(|t| t.starts_with("Prior-art: ")));
        let miss = call(&c, "lookup", json!({"query": "fused-atention"})).await;
        assert_eq!(
            structured(&miss)["did_you_mean"],
            json!(["fused-attention"])
        );
        c.cancel().await.unwrap();
    });
}

#[test]
fn resources_serve_the_matrix_and_its_tables() {
    let s = project();
    rt().block_on(async {
        let c = connect(s.path()).await;
        let read = |uri: &str| c.read_resource(ReadResourceRequestParams::new(uri.to_owned()));
        let file = read("sota://matrix").await.unwrap();
        let text = serde_json::to_value(&file.contents[0]).unwrap();
        assert_eq!(text["text"], SMALL);
        let table = read("sota://matrix/table").await.unwrap();
        let table = serde_json::to_value(&table.contents[0]).unwrap();
        assert_eq!(table["mimeType"], "text/markdown");
        assert!(table["text"]
            .as_str()
            .unwrap()
            .contains("| Fused attention (MHA/GQA) |"));
        let err = read("sota://nope").await.unwrap_err();
        assert!(err.to_string().contains("sota://matrix"), "{err}");
        c.cancel().await.unwrap();
    });
}

#[test]
fn paths_outside_the_root_are_refused_and_nothing_is_read() {
    let s = project().file("../outside/secret.cu", "// secret\n");
    let outside = s.path().parent().unwrap().join("outside/secret.cu");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, s.path().join("kernels/attn/evil.cu")).unwrap();
        std::os::unix::fs::symlink(outside.parent().unwrap(), s.path().join("kernels/up")).unwrap();
    }
    let attempts = [
        "../../etc/passwd".to_owned(),
        "/etc/passwd".to_owned(),
        outside.to_string_lossy().into_owned(),
        "kernels/../../outside/secret.cu".to_owned(),
        #[cfg(unix)]
        "kernels/attn/evil.cu".to_owned(),
        #[cfg(unix)]
        "kernels/up/secret.cu:3".to_owned(),
    ];
    rt().block_on(async {
        let c = connect(s.path()).await;
        for p in &attempts {
            for (tool, args) in [
                (
                    "ops_for_paths",
                    json!({"paths": ["kernels/attn/flash.cu", p]}),
                ),
                ("lookup", json!({"query": p})),
                ("suggest", json!({"paths": ["kernels/attn/flash.cu", p]})),
            ] {
                let r = call(&c, tool, args).await;
                assert_eq!(r.is_error, Some(true), "{tool} {p}: {r:?}");
                let v = structured(&r);
                assert_eq!(v["schema"], "sota.error/v1");
                assert!(
                    v["message"]
                        .as_str()
                        .unwrap()
                        .contains("outside the repository root"),
                    "{v}"
                );
                assert!(!text(&r).contains("// secret"));
            }
        }
        // Inside paths still work after the refusals.
        let ok = call(
            &c,
            "ops_for_paths",
            json!({"paths": ["kernels/attn/flash.cu"]}),
        )
        .await;
        assert_eq!(structured(&ok)["touched"], json!(["fused-attention"]));
        c.cancel().await.unwrap();
    });
}

#[test]
fn an_edited_matrix_is_read_again_and_a_broken_one_is_a_tool_error() {
    let s = project();
    rt().block_on(async {
        let c = connect(s.path()).await;
        let before = call(&c, "lookup", json!({"query": "kv-cache"})).await;
        assert_eq!(structured(&before)["op"]["title"], "Paged KV cache");

        // Same length, same second: the server compares bytes, not mtimes.
        let same_len = SMALL.replace("Paged KV cache", "Paged KV CACHE");
        std::fs::write(s.path().join("sota.toml"), &same_len).unwrap();
        let upper = call(&c, "lookup", json!({"query": "kv-cache"})).await;
        assert_eq!(structured(&upper)["op"]["title"], "Paged KV CACHE");

        let edited = SMALL.replace("Paged KV cache", "Paged KV cache v2");
        std::fs::write(s.path().join("sota.toml"), &edited).unwrap();
        let after = call(&c, "lookup", json!({"query": "kv-cache"})).await;
        assert_eq!(structured(&after)["op"]["title"], "Paged KV cache v2");

        let broken = edited.replace("route = \"borrow\"", "route = \"borow\"");
        std::fs::write(s.path().join("sota.toml"), &broken).unwrap();
        for (tool, args) in [
            ("lookup", json!({"query": "kv-cache"})),
            ("milestones", json!({})),
            ("coverage", json!({})),
        ] {
            let r = call(&c, tool, args).await;
            assert_eq!(r.is_error, Some(true), "{tool}: {r:?}");
            let v = structured(&r);
            assert_eq!(v["schema"], "sota.error/v1", "{tool}");
            assert_eq!(v["kind"], "matrix-invalid");
            let problem = &v["problems"][0];
            assert!(
                problem["location"]
                    .as_str()
                    .unwrap()
                    .starts_with("sota.toml:"),
                "{v}"
            );
            assert!(text(&r).contains("borow"), "{tool}: {}", text(&r));
        }
        let gate = call(
            &c,
            "ops_for_paths",
            json!({"paths": ["kernels/attn/flash.cu"]}),
        )
        .await;
        assert_eq!(gate.is_error, Some(true));
        assert_eq!(structured(&gate)["schema"], "sota.error/v1");
        assert!(!structured(&gate)["problems"].as_array().unwrap().is_empty());
        // The CLI says the same about the same file.
        let cli = s.run(&["kv-cache", "--json"]);
        assert_eq!(cli.code, 2);
        let r = call(&c, "lookup", json!({"query": "kv-cache"})).await;
        assert_eq!(structured(&r), &cli.json());
        // The raw file is still readable, to fix it.
        let file = c
            .read_resource(ReadResourceRequestParams::new("sota://matrix"))
            .await
            .unwrap();
        assert!(serde_json::to_value(&file.contents[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .contains("borow"));

        std::fs::write(s.path().join("sota.toml"), SMALL).unwrap();
        let fixed = call(&c, "lookup", json!({"query": "kv-cache"})).await;
        assert_eq!(fixed.is_error, Some(false));
        c.cancel().await.unwrap();
    });
}

/// `sota mcp` in `dir` with piped stdin and stdout, for raw JSON lines.
pub(crate) fn raw_server(dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sota"));
    cmd.arg("mcp")
        .current_dir(dir)
        .env_remove("SOTA_MATRIX")
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    cmd
}

/// Raw JSON lines: what a real client would never send.
struct Raw {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Raw {
    fn start(dir: &Path) -> Raw {
        let mut child = raw_server(dir).stderr(Stdio::piped()).spawn().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Raw { child, out }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn line(&mut self, msg: Value) {
        self.send(format!("{msg}\n").as_bytes());
    }

    fn reply(&mut self) -> Value {
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    fn initialize(&mut self) {
        self.line(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        );
        let init = self.reply();
        assert_eq!(init["result"]["serverInfo"]["name"], "sota", "{init}");
        self.line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }
}

#[test]
fn garbage_unknown_methods_bad_arguments_and_huge_lines_get_errors_and_serving_goes_on() {
    let s = project();
    let mut raw = Raw::start(s.path());
    // Garbage before initialize: a parse error, then the session starts.
    raw.send(b"this is not json\n");
    let e = raw.reply();
    assert_eq!(e["error"]["code"], -32700, "{e}");
    assert_eq!(e["id"], Value::Null);
    raw.initialize();

    raw.send(b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \n");
    assert_eq!(raw.reply()["error"]["code"], -32700);
    raw.line(json!({"id": 3, "hello": "world"}));
    let e = raw.reply();
    assert_eq!(
        (e["id"].clone(), e["error"]["code"].clone()),
        (json!(3), json!(-32600))
    );
    raw.line(json!({"jsonrpc": "2.0", "id": 4, "method": "sota/format-disk"}));
    let e = raw.reply();
    assert_eq!(
        (e["id"].clone(), e["error"]["code"].clone()),
        (json!(4), json!(-32601))
    );
    raw.line(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "ops_for_paths", "arguments": {"paths": "kernels/attn/flash.cu"}}}));
    let e = raw.reply();
    assert_eq!(e["error"]["code"], -32602, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expected a sequence"),
        "{e}"
    );
    raw.line(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "rm_rf", "arguments": {}}}));
    assert_eq!(raw.reply()["error"]["code"], -32602);
    // Two MiB on one line: refused unread, and the stream recovers.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"ops_for_paths\",\"arguments\":{{\"paths\":[\"{}\"]}}}}}}\n",
        "a".repeat(2 << 20)
    );
    raw.send(huge.as_bytes());
    let e = raw.reply();
    assert_eq!(e["error"]["code"], -32600, "{e}");
    assert!(e["error"]["message"]
        .as_str()
        .unwrap()
        .contains("too large"));

    raw.line(json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "lookup", "arguments": {"query": "fused-attention"}}}));
    let ok = raw.reply();
    assert_eq!(ok["id"], 8);
    assert_eq!(
        ok["result"]["structuredContent"]["op"]["slug"], "fused-attention",
        "{ok}"
    );

    // EOF: a clean exit, and nothing but protocol lines were written.
    drop(raw.child.stdin.take());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut raw.out, &mut rest).unwrap();
    assert_eq!(rest, "");
    let out = raw.child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "stderr without --verbose: {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn verbose_logs_go_to_stderr_only() {
    let s = project();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sota"))
        .args(["mcp", "--verbose"])
        .current_dir(s.path())
        .env_remove("SOTA_MATRIX")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("sota mcp:"));
}

/// The official Python SDK (`pip install mcp`) as the client: on a temp
/// project and on this repository itself (its own sota.toml). Skipped, loudly,
/// only outside CI when the module is missing; in CI it must run.
#[test]
fn the_official_python_sdk_client_agrees_with_the_cli() {
    let script = crate::harness::repo_root().join("tests/mcp_client.py");
    let has_mcp = std::process::Command::new("python3")
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    if !has_mcp {
        assert!(
            !ci,
            "CI must run the Python MCP client: `python3 -m pip install mcp` (.ci/run does)"
        );
        eprintln!(
            "\n*** SKIPPED the_official_python_sdk_client_agrees_with_the_cli: the Python `mcp` module is missing (python3 -m pip install mcp) ***\n"
        );
        return;
    }
    let temp = project();
    for dir in [temp.path().to_path_buf(), crate::harness::repo_root()] {
        let out = std::process::Command::new("python3")
            .arg(&script)
            .arg(env!("CARGO_BIN_EXE_sota"))
            .arg(&dir)
            .env_remove("CI")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(" passed, 0 failed"),
            "mcp_client.py on {}:\n{stdout}\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Mutated requests (truncated, bytes flipped, spliced), deterministic: the
/// server never dies, never writes anything but JSON lines, and still
/// answers a valid request afterwards.
#[test]
fn mutated_requests_never_break_the_session() {
    let s = project();
    let mut raw = Raw::start(s.path());
    raw.initialize();
    let valid = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "ops_for_paths", "arguments": {"paths": ["kernels/attn/flash.cu"]}}})
    .to_string()
    .into_bytes();
    let mut seed: u64 = 0x5eed;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut batch = Vec::new();
    for i in 0..300 {
        let mut m = valid.clone();
        match i % 3 {
            0 => m.truncate(next(m.len())),
            1 => {
                for _ in 0..1 + next(4) {
                    let at = next(m.len());
                    let pool = b"{}[]\",:0a\\\x00\xff";
                    m[at] = pool[next(pool.len())];
                }
            }
            _ => {
                let cut = next(m.len());
                m.splice(cut..cut, valid[..next(valid.len())].iter().copied());
            }
        }
        m.retain(|b| *b != b'\n');
        batch.extend_from_slice(&m);
        batch.push(b'\n');
    }
    raw.send(&batch);
    raw.line(
        json!({"jsonrpc": "2.0", "id": "last", "method": "tools/call",
        "params": {"name": "lookup", "arguments": {"query": "int4-gemm"}}}),
    );
    drop(raw.child.stdin.take());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut raw.out, &mut rest).unwrap();
    let replies: Vec<Value> = rest
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:?}")))
        .collect();
    let last = replies
        .iter()
        .find(|r| r["id"] == "last")
        .expect("the valid request after the mutants is answered");
    assert_eq!(
        last["result"]["structuredContent"]["op"]["slug"],
        "int4-gemm"
    );
    assert!(replies.iter().all(|r| r["jsonrpc"] == "2.0"));
    let out = raw.child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// An agent about to create a kernel file: the op whose globs would cover
/// it, else the catalog's best match with its evidence — with or without a
/// sota.toml.
#[test]
fn ops_for_paths_answers_for_files_not_created_yet() {
    let s = project();
    rt().block_on(async {
        let c = connect(s.path()).await;
        // Not on disk, but inside `kernels/attn/`: the op's glob covers it.
        let r = call(&c, "ops_for_paths", json!({"paths": ["kernels/attn/paged_decode.cu"]})).await;
        assert_eq!(structured(&r)["schema"], "sota.gate/v1");
        assert_eq!(structured(&r)["touched"], json!(["fused-attention"]));
        // Not covered by any op: the catalog's best match and its evidence.
        let r = call(&c, "ops_for_paths", json!({"paths": ["csrc/paged_attention.h"]})).await;
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let v = structured(&r);
        assert_eq!(v["schema"], "sota.suggest/v1", "{v}");
        let s0 = &v["suggestions"][0];
        assert_eq!(s0["exists"], false, "{v}");
        assert_eq!(s0["proposal"]["op"], "decode-attention", "{v}");
        assert!(!s0["proposal"]["evidence"].as_array().unwrap().is_empty(), "{v}");
        assert!(text(&r).starts_with("No op in the matrix covers these paths yet"), "{}", text(&r));
        // Mixed: the gate's payload, and a pointer for the uncovered one.
        let r = call(
            &c,
            "ops_for_paths",
            json!({"paths": ["kernels/attn/flash.cu", "csrc/paged_attention.h"]}),
        )
        .await;
        assert_eq!(structured(&r)["schema"], "sota.gate/v1");
        assert!(
            text(&r).contains("csrc/paged_attention.h is covered by no op yet; the catalog's best match is `decode-attention`"),
            "{}",
            text(&r)
        );
        c.cancel().await.unwrap();
    });
    // No sota.toml at all: still the catalog's best match.
    let bare = Sota::new().git_init().file("README.md", "# x\n");
    bare.commit("init");
    rt().block_on(async {
        let c = connect(bare.path()).await;
        let r = call(
            &c,
            "ops_for_paths",
            json!({"paths": ["csrc/paged_attention.h"]}),
        )
        .await;
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let v = structured(&r);
        assert_eq!(
            v["suggestions"][0]["proposal"]["op"], "decode-attention",
            "{v}"
        );
        assert!(
            text(&r).starts_with("No sota.toml here yet"),
            "{}",
            text(&r)
        );
        let r = call(&c, "suggest", json!({"paths": ["csrc/paged_attention.h"]})).await;
        assert_eq!(
            structured(&r)["suggestions"][0]["proposal"]["op"],
            "decode-attention"
        );
        assert_eq!(structured(&r)["written"], false);
        c.cancel().await.unwrap();
    });
    assert!(
        !bare.path().join("sota.toml").exists(),
        "the suggest tool never writes"
    );
}

/// The suggest tool writes nothing and an agent cannot pass it a CLI flag:
/// its text names the command that writes the same edit, and that command,
/// run as named, covers the file.
#[test]
fn the_suggest_tool_names_the_command_that_writes_its_edit() {
    let s = project();
    let path = "csrc/paged_attention.cu";
    std::fs::create_dir_all(s.path().join("csrc")).unwrap();
    std::fs::write(
        s.path().join(path),
        "__global__ void paged_attention_decode(float* out, const float* k_cache) {}\n",
    )
    .unwrap();
    s.git(&["add", "-A"]).success();
    rt().block_on(async {
        let c = connect(s.path()).await;
        let r = call(&c, "suggest", json!({"paths": [path]})).await;
        let t = text(&r);
        assert!(!t.contains("apply with --write"), "{t}");
        assert!(
            t.contains("this tool writes nothing: edit by hand, or run `sota suggest --write` with the same paths"),
            "{t}"
        );
        let r = call(&c, "suggest", json!({})).await;
        assert!(
            text(&r).contains("run `sota suggest --uncovered --write`"),
            "{}",
            text(&r)
        );
        c.cancel().await.unwrap();
    });
    let before = s.run(&["suggest", path, "--json"]).json();
    let op = before["suggestions"][0]["proposal"]["op"].clone();
    assert!(op.is_string(), "{before}");
    s.run(&["suggest", "--write", path]).success();
    let after = s.run(&["suggest", path, "--json"]).json();
    assert_eq!(
        after["suggestions"][0]["covered_by"],
        json!([op]),
        "{after}"
    );
    s.run(&["suggest", "--uncovered", "--write"]).success();
    let left = s.run(&["suggest", "--uncovered", "--json"]).json();
    assert_eq!(left["edits"], json!([]), "{left}");
    // No sota.toml yet: `sota suggest --write` would refuse; init drafts one.
    let bare = Sota::new()
        .git_init()
        .file(path, "__global__ void paged_attention_decode() {}\n");
    bare.commit("init");
    rt().block_on(async {
        let c = connect(bare.path()).await;
        let r = call(&c, "suggest", json!({"paths": [path]})).await;
        let t = text(&r);
        assert!(
            t.contains("there is no sota.toml yet: `sota init` drafts one"),
            "{t}"
        );
        assert!(!t.contains("sota suggest --write"), "{t}");
        c.cancel().await.unwrap();
    });
    assert!(!bare
        .run(&["suggest", "--write", path])
        .stdout
        .contains("wrote"));
}
