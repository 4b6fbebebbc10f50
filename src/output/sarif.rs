//! SARIF 2.1.0 (OASIS) for GitHub code scanning and any SARIF viewer: the
//! coverage KPIs and the gate's findings as results. Rule ids are the KPI
//! names and the gate's codes, each with its help text; every location
//! has a line and a column (line 1, column 1 for a finding about a whole
//! file); `partialFingerprints` hash what a finding is about (rule, op,
//! item), not where it sits, so a finding keeps its identity across runs
//! when lines move. The output is validated against the official schema
//! in `tests/cli/sarif.rs`.

use serde_json::{json, Value};

use super::coverage::{item_message, place};
use super::gate::short_hash;
use crate::command::coverage::RepoPaths;
use crate::surface::coverage::{Kpi, Report};
use crate::surface::gate::{Finding, GateReport};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The fingerprint's name (versioned: a new hash input is a new name).
const FINGERPRINT: &str = "sotaFinding/v1";

/// FNV-1a, 64 bits: stable across Rust releases and platforms (std's
/// hasher is not), and only ever an identity, never a security boundary.
fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A repository-relative path as a URI reference (RFC 3986: everything but
/// unreserved characters and `/` percent-encoded).
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn location(file: &str, line_col: Option<(usize, usize)>) -> Value {
    let (line, col) = line_col.unwrap_or((1, 1));
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(file), "uriBaseId": "%SRCROOT%" },
            "region": { "startLine": line, "startColumn": col }
        }
    })
}

fn rule(id: &str, name: &str, short: &str, help: &str, level: &str) -> Value {
    json!({
        "id": id,
        "name": name,
        "shortDescription": { "text": short },
        "fullDescription": { "text": help },
        "help": { "text": help },
        "defaultConfiguration": { "level": level }
    })
}

fn log(rules: Vec<Value>, results: Vec<Value>) -> Value {
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "sota",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "originalUriBaseIds": { "%SRCROOT%": { "description": { "text": "the repository top" } } },
            "results": results
        }]
    })
}

fn kpi_level(kpi: Kpi) -> &'static str {
    if kpi.hard() {
        "error"
    } else {
        "warning"
    }
}

fn kpi_name(kpi: Kpi) -> String {
    kpi.name()
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The coverage scorecard as a SARIF log: one rule per KPI, one result
/// per offending item.
pub fn coverage(report: &Report, paths: &RepoPaths) -> Value {
    let rules = Kpi::ALL
        .iter()
        .map(|k| {
            rule(
                k.name(),
                &kpi_name(*k),
                k.describe(),
                &format!(
                    "sota coverage KPI `{}` ({} group, {} debt): {}. Fix the row in the matrix (or the tree); `sota coverage` explains each item.",
                    k.name(),
                    k.group().name(),
                    if k.hard() { "hard: fails `sota coverage --check`" } else { "soft: lowers the grade" },
                    k.describe()
                ),
                kpi_level(*k),
            )
        })
        .collect();
    let mut results = Vec::new();
    for k in &report.kpis {
        let index = Kpi::ALL.iter().position(|x| *x == k.kpi).unwrap_or(0);
        for item in &k.items {
            let at = place(k.kpi, item, paths);
            results.push(json!({
                "ruleId": k.kpi.name(),
                "ruleIndex": index,
                "level": kpi_level(k.kpi),
                "message": { "text": item_message(item) },
                "locations": [location(&at.file, at.line_col)],
                "partialFingerprints": {
                    FINGERPRINT: fingerprint(&[
                        k.kpi.name(),
                        item.owner.as_deref().unwrap_or(""),
                        &item.subject,
                    ])
                }
            }));
        }
    }
    log(rules, results)
}

const PRIOR_ART: &str = "PRIOR_ART";
const PRIOR_ART_HELP: &str = "A change touches a file some op's `files` match, and no `Prior-art:` trailer records what was read first. Add the suggested trailer to the commit message (`Prior-art: <what you read>`, or `Prior-art: none found - <what is novel>; oracle <how it is checked>`).";

fn gate_rules() -> Vec<Value> {
    vec![rule(
        PRIOR_ART,
        "PriorArt",
        "a kernel change without a valid Prior-art: trailer",
        PRIOR_ART_HELP,
        "warning",
    )]
}

/// A gated change as a SARIF log: one result per op, on its first file
/// (at the first line the change touches, when known).
pub fn gate(
    report: &GateReport<'_>,
    prefix: &str,
    lines: &std::collections::BTreeMap<String, usize>,
) -> Value {
    let results = report
        .advisories()
        .iter()
        .map(|a| {
            let first = a.paths.first().map(String::as_str).unwrap_or("");
            json!({
                "ruleId": PRIOR_ART,
                "ruleIndex": 0,
                "level": "warning",
                "message": { "text": format!("{} touches {} — read {}; add to the commit message: {}", a.op.slug.value, a.paths.join(", "), a.op.sota, a.suggestion) },
                "locations": [location(&format!("{prefix}{first}"), lines.get(first).map(|l| (*l, 1)))],
                "partialFingerprints": { FINGERPRINT: fingerprint(&[PRIOR_ART, &a.op.slug.value, first]) }
            })
        })
        .collect();
    log(gate_rules(), results)
}

/// A gated range as a SARIF log: one result per commit, on its first
/// matched file.
pub fn range(findings: &[Finding<'_>], prefix: &str) -> Value {
    let results = findings
        .iter()
        .map(|f| {
            let file = f
                .touched
                .first()
                .and_then(|a| a.paths.first())
                .map(String::as_str)
                .unwrap_or("");
            let ops: Vec<&str> = f.touched.iter().map(|a| a.op.slug.value.as_str()).collect();
            json!({
                "ruleId": PRIOR_ART,
                "ruleIndex": 0,
                "level": "warning",
                "message": { "text": format!("commit {} ({}): {} · ops {}", short_hash(&f.commit.hash), f.commit.subject, super::stamp_phrase(&f.stamp), ops.join(", ")) },
                "locations": [location(&format!("{prefix}{file}"), None)],
                "partialFingerprints": { FINGERPRINT: fingerprint(&[PRIOR_ART, &f.commit.hash]) }
            })
        })
        .collect();
    log(gate_rules(), results)
}

/// A gate that could not check: no results, and an invocation that says
/// it did not succeed, with the reason and the fix (so an upload step gets
/// a valid log rather than an empty file).
pub fn unchecked(u: &crate::command::gate::Unchecked) -> Value {
    let mut text = format!("sota gate could not check: {}", u.reason);
    if let Some(fix) = &u.fix {
        text.push_str(&format!(" — fix: {fix}"));
    }
    let mut v = log(gate_rules(), Vec::new());
    v["runs"][0]["invocations"] = json!([{
        "executionSuccessful": false,
        "toolExecutionNotifications": [{
            "level": if u.enforced { "error" } else { "warning" },
            "message": { "text": text }
        }]
    }]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_stable_and_uris_encoded() {
        // Pinned: a changed hash would re-open every finding in code scanning.
        assert_eq!(fingerprint(&["a", "b"]), fingerprint(&["a", "b"]));
        assert_ne!(fingerprint(&["ab", ""]), fingerprint(&["a", "b"]));
        assert_eq!(fingerprint(&[]), "cbf29ce484222325");
        assert_eq!(uri("k/a b,c:%\n.cu"), "k/a%20b%2Cc%3A%25%0A.cu");
    }
}
