//! `sota mcp` under hostile input (docs/SECURITY.md): the resource obeys the
//! same confinement as every CLI read and tool, and no request is ever
//! dropped, however the client pipelines them or however long they are.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{Sota, SMALL};

/// A raw JSON-lines client whose replies arrive on a channel, so a server
/// that never answers fails the test instead of hanging it.
struct Client {
    child: Child,
    replies: Receiver<Value>,
}

impl Client {
    fn start(dir: &Path, envs: &[(&str, &str)]) -> Client {
        let mut cmd = crate::mcp::raw_server(dir);
        cmd.stderr(Stdio::null());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn sota mcp");
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { return };
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut c = Client { child, replies };
        c.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"}}}),
        );
        let init = c
            .reply(Duration::from_secs(20))
            .expect("initialize answered");
        assert_eq!(init["result"]["serverInfo"]["name"], "sota", "{init}");
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(format!("{msg}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn reply(&self, within: Duration) -> Option<Value> {
        self.replies.recv_timeout(within).ok()
    }

    fn read_matrix(&mut self, id: u64) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
            "params": {"uri": "sota://matrix"}}),
        );
        let r = self
            .reply(Duration::from_secs(20))
            .unwrap_or_else(|| panic!("resources/read {id} was never answered"));
        assert_eq!(r["id"], id, "{r}");
        r
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn project() -> Sota {
    let s = Sota::new()
        .git_init()
        .file("sota.toml", SMALL)
        .file("kernels/attn/flash.cu", "__global__ void flash_fwd() {}\n");
    s.commit("init");
    s
}

fn swap_for_symlink(s: &Sota, target: &Path) {
    let path = s.path().join("sota.toml");
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(target, &path).unwrap();
}

fn refused_without(r: &Value, secret: &str) {
    let text = r.to_string();
    assert!(
        !text.contains(secret),
        "the resource leaked the file: {text}"
    );
    assert!(r.get("error").is_some(), "not refused: {text}");
    assert!(text.contains("outside the repository"), "{text}");
}

#[test]
fn the_matrix_resource_never_serves_a_file_outside_the_repository() {
    let s = project();
    let outside = tempfile::tempdir().unwrap();
    let secret_file = outside.path().join("secret.toml");
    std::fs::write(&secret_file, "TOKEN = \"hunter2-file\"\n").unwrap();
    let mut c = Client::start(s.path(), &[("FAKE_API_TOKEN", "hunter2-env")]);

    // Served while it is the repository's own file.
    let ok = c.read_matrix(1);
    assert!(
        ok["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("[[op]]"),
        "{ok}"
    );
    // Swapped mid-session for a link to a file elsewhere, then to the
    // server's own environment.
    swap_for_symlink(&s, &secret_file);
    refused_without(&c.read_matrix(2), "hunter2-file");
    swap_for_symlink(&s, Path::new("/proc/self/environ"));
    refused_without(&c.read_matrix(3), "hunter2-env");
    // The tools refuse it too: one rule for every front end.
    c.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "lookup", "arguments": {"query": "fused-attention"}}}));
    let tool = c.reply(Duration::from_secs(20)).unwrap();
    assert!(!tool.to_string().contains("hunter2"), "{tool}");
    for (id, name) in [(5, "suggest"), (6, "ops_for_paths")] {
        c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": {"paths": ["kernels/attn/flash.cu"]}}}));
        let tool = c.reply(Duration::from_secs(20)).unwrap();
        assert!(!tool.to_string().contains("hunter2"), "{name}: {tool}");
        assert_eq!(tool["result"]["isError"], true, "{name}: {tool}");
    }
}

fn catalog_served(r: &Value) -> bool {
    r["result"]["contents"][0]["text"]
        .as_str()
        .is_some_and(|t| t.contains("sota built-in catalog"))
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn a_fifo_or_device_matrix_is_refused_at_once_not_waited_on() {
    let s = project();
    let path = s.path().join("sota.toml");
    let mut c = Client::start(s.path(), &[]);
    std::fs::remove_file(&path).unwrap();
    mkfifo(&path);
    let started = Instant::now();
    // Not a matrix (discovery takes regular files only): the catalog
    // answers, at once.
    let r = c.read_matrix(1);
    assert!(catalog_served(&r), "{r}");
    // A device behind a link inside the repository is no better.
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let r = c.read_matrix(2);
    assert!(catalog_served(&r), "{r}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // Named explicitly, a FIFO is refused at once, not waited on.
    std::fs::remove_file(&path).unwrap();
    mkfifo(&path);
    for args in [
        &["--matrix", "sota.toml", "list"][..],
        &["--matrix", "/dev/zero", "list"],
    ] {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.contains("not a regular file"), "{run:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// Send every request before reading any answer; every id must come back.
fn burst(c: &mut Client, requests: Vec<Value>, within: Duration) {
    let want: std::collections::BTreeSet<u64> =
        requests.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let mut stdin = c.child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        for r in &requests {
            bytes.extend_from_slice(format!("{r}\n").as_bytes());
        }
        // Odd-sized writes, so lines are split at every kind of place.
        for chunk in bytes.chunks(7919) {
            stdin.write_all(chunk).unwrap();
            stdin.flush().unwrap();
        }
        stdin
    });
    let deadline = Instant::now() + within;
    let mut got = std::collections::BTreeSet::new();
    while got.len() < want.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(r) = c.reply(left) else { break };
        assert!(r.get("result").is_some(), "an error answer: {r}");
        got.insert(r["id"].as_u64().unwrap());
    }
    c.child.stdin = Some(writer.join().unwrap());
    let lost: Vec<_> = want.difference(&got).collect();
    assert!(
        lost.is_empty(),
        "{} of {} requests never answered: {lost:?}",
        lost.len(),
        want.len()
    );
}

#[test]
fn a_pipelined_burst_of_a_thousand_lookups_is_answered_in_full() {
    let s = project();
    let mut c = Client::start(s.path(), &[]);
    let requests = (1..=1000)
        .map(|id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "lookup", "arguments": {"query": "fused-attention"}}})
        })
        .collect();
    burst(&mut c, requests, Duration::from_secs(120));
}

/// The suggest tool under the same pipelining: every request answered,
/// arguments hostile or not (a path outside, a non-array, an unknown key).
#[test]
fn a_pipelined_burst_of_suggest_calls_is_answered_in_full() {
    let s = project();
    let mut c = Client::start(s.path(), &[]);
    let args = [
        json!({"paths": ["kernels/attn/flash.cu"]}),
        json!({"paths": ["csrc/paged_attention.h"]}),
        json!({}),
        json!({"paths": ["../../etc/passwd"]}),
    ];
    let requests = (1..=200)
        .map(|id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "suggest", "arguments": args[id % args.len()]}})
        })
        .collect();
    burst(&mut c, requests, Duration::from_secs(120));
    // Malformed arguments are protocol errors, answered, not dropped.
    for (id, bad) in [
        (1001, json!({"paths": "kernels/attn/flash.cu"})),
        (1002, json!({"path": []})),
    ] {
        c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "suggest", "arguments": bad}}));
        let r = c.reply(Duration::from_secs(20)).expect("answered");
        assert_eq!(r["id"], id, "{r}");
        assert!(r.get("error").is_some(), "{r}");
    }
}

#[test]
fn thirty_requests_of_nearly_a_megabyte_each_are_answered() {
    let s = project();
    let mut c = Client::start(s.path(), &[]);
    // ~1 MB a line, under the 1 MiB cap.
    let paths: Vec<String> = (0..14_000)
        .map(|i| format!("kernels/attn/deep/tree/file_{i:06}_{}.cu", "x".repeat(30)))
        .collect();
    let requests: Vec<Value> = (1..=30)
        .map(|id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "ops_for_paths", "arguments": {"paths": paths}}})
        })
        .collect();
    let size = requests[0].to_string().len();
    assert!((900_000..1 << 20).contains(&size), "{size} bytes a line");
    burst(&mut c, requests, Duration::from_secs(240));
}

fn npy_1x4(values: [f32; 4]) -> Vec<u8> {
    crate::prove::npy_f32(&[1, 4], &values, false)
}

fn prove_call(c: &mut Client, id: u64, reference: &str, candidate: &str) -> Value {
    c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "prove", "arguments": {
            "reference": reference, "candidate": candidate, "checks": ["cosine>=0.999"]}}}));
    let r = c
        .reply(Duration::from_secs(20))
        .unwrap_or_else(|| panic!("prove {id} was never answered"));
    assert_eq!(r["id"], id, "{r}");
    r
}

#[test]
fn the_prove_tool_reads_tensors_only_inside_the_repository_and_never_waits() {
    let s = project();
    let inside = npy_1x4([1.0, 2.0, 3.0, 4.0]);
    std::fs::write(s.path().join("ref.npy"), &inside).unwrap();
    std::fs::write(s.path().join("out.npy"), &inside).unwrap();
    let outside = tempfile::tempdir().unwrap();
    // A tensor outside whose bytes would be echoed back (a value, an index).
    let secret = outside.path().join("secret.npy");
    std::fs::write(&secret, npy_1x4([31337.0, 2.0, 3.0, 4.0])).unwrap();
    std::os::unix::fs::symlink(&secret, s.path().join("link.npy")).unwrap();
    std::os::unix::fs::symlink(outside.path(), s.path().join("up")).unwrap();
    mkfifo(&s.path().join("fifo.npy"));
    let mut c = Client::start(s.path(), &[]);

    let ok = prove_call(&mut c, 1, "ref.npy", "out.npy");
    let v = &ok["result"]["structuredContent"];
    assert_eq!(v["schema"], "sota.prove/v1", "{ok}");
    assert_eq!(v["verdict"], "pass", "{ok}");

    let secret_path = secret.to_string_lossy().into_owned();
    let hostile = [
        "../../etc/passwd",
        "/etc/passwd",
        secret_path.as_str(),
        "kernels/../../secret.npy",
        "link.npy",
        "up/secret.npy",
    ];
    for (id, p) in (10..).zip(hostile) {
        for (reference, candidate) in [("ref.npy", p), (p, "out.npy")] {
            let r = prove_call(&mut c, id, reference, candidate);
            let text = r.to_string();
            assert!(!text.contains("31337"), "{p}: leaked {text}");
            assert_eq!(r["result"]["isError"], true, "{p}: {text}");
            assert_eq!(r["result"]["structuredContent"]["schema"], "sota.error/v1");
            assert!(text.contains("outside the repository root"), "{p}: {text}");
        }
    }
    // A FIFO inside is refused at once, not waited on.
    let started = Instant::now();
    let r = prove_call(&mut c, 40, "ref.npy", "fifo.npy");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r.to_string().contains("not a regular file"), "{r}");
    // Unknown arguments (a histogram would write a file) are refused.
    c.send(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "prove", "arguments": {
            "reference": "ref.npy", "candidate": "out.npy", "histogram": "x.svg"}}}));
    let r = c.reply(Duration::from_secs(20)).unwrap();
    assert!(r.get("error").is_some(), "{r}");
    assert!(!s.path().join("x.svg").exists());
    // Still serving.
    let ok = prove_call(&mut c, 42, "ref.npy", "out.npy");
    assert_eq!(ok["result"]["structuredContent"]["verdict"], "pass", "{ok}");
}
