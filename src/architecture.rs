//! ARCHITECTURE.md's invariants, checked against the source: who may read
//! the process state, write files, spawn processes, parse TOML, print, or
//! know JSON and clap. Each rule scans `src/` (test modules excluded).

#![cfg(test)]

use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/` that is compiled outside tests, with its
/// code: comments and `#[cfg(test)]` items removed wherever they sit, and
/// files that only tests compile (`#![cfg(test)]`, or declared by a
/// `#[cfg(test)] mod name;`) left out.
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
    let texts: Vec<(String, String)> = files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, text)
        })
        .collect();
    let test_only: Vec<String> = texts
        .iter()
        .flat_map(|(path, text)| test_module_files(path, text))
        .collect();
    texts
        .into_iter()
        .filter(|(path, text)| !text.contains("#![cfg(test)]") && !test_only.contains(path))
        .map(|(path, text)| (path, without_tests(&without_comments(&text))))
        .collect()
}

/// The files of the modules a file declares as `#[cfg(test)] mod name;`.
fn test_module_files(path: &str, text: &str) -> Vec<String> {
    let dir = match path.rsplit_once('/') {
        Some((dir, file)) if file == "mod.rs" || file == "lib.rs" => dir.to_owned(),
        Some((dir, file)) => format!("{dir}/{}", file.trim_end_matches(".rs")),
        None => String::new(),
    };
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        rest = &rest[at + "#[cfg(test)]".len()..];
        let item = rest.trim_start();
        if let Some(name) = item.strip_prefix("mod ").and_then(|m| m.split_once(';')) {
            let name = name.0.trim();
            if !name.contains('{') {
                found.push(format!("{dir}/{name}.rs"));
                found.push(format!("{dir}/{name}/mod.rs"));
            }
        }
    }
    found
}

/// The code alone: comments removed, and the insides of string and
/// character literals blanked (so `"https://"` is no comment and `'{'` no
/// brace).
fn without_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            out.push(' ');
            i += end;
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].chars().take_while(|c| *c == '#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let end = rest[body..]
                .find(&close)
                .map_or(rest.len(), |e| body + e + close.len());
            out.push_str("\"\"");
            i += end;
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() {
                match rest.as_bytes()[j] {
                    b'\\' => j += 2,
                    b'"' => break,
                    _ => j += 1,
                }
            }
            let end = (j + 1).min(rest.len());
            out.push_str("\"\"");
            i += end;
        } else if let Some(escaped) = rest.strip_prefix("'\\") {
            // Past the escaped character (`'\''` too), to the closing quote.
            let after = escaped.get(1..).unwrap_or("");
            let end = after.find('\'').map_or(rest.len(), |e| e + 4);
            out.push_str("' '");
            i += end;
        } else if rest.len() >= 3
            && rest.as_bytes()[0] == b'\''
            && rest[1..].chars().nth(1) == Some('\'')
        {
            let end = 1 + rest[1..].chars().next().unwrap().len_utf8() + 1;
            out.push_str("' '");
            i += end;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The code with every `#[cfg(test)]` item removed: up to its `;`, or to
/// the brace that closes its body.
fn without_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut depth = 0usize;
        let mut end = item.len();
        let mut opened = false;
        for (j, c) in item.char_indices().skip("#[cfg(test)]".len()) {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if opened && depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if !opened => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
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
    // Two writers of TOML may use `toml_edit`: `init`'s drafter quotes
    // string values with it, and `suggest` edits a matrix with it (keeping
    // every other byte of the file). Neither reads anything from TOML: what
    // they write comes from the loaded model.
    let found = offenders(
        &["toml::", "toml_parser::", "toml_edit", "DeTable"],
        &[
            "src/matrix/",
            "src/surface/init/signals.rs",
            "src/surface/init/emit.rs",
            "src/surface/suggest.rs",
        ],
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn only_the_output_layer_knows_json() {
    // The MCP server speaks JSON-RPC, so it holds `serde_json::Value`s; the
    // payloads it sends are still built by `output` (it converts them, it
    // does not shape them). A `.safetensors` header is JSON input: its
    // reader parses it (untrusted, bounded), it never prints JSON. A proof
    // record is read back by `prove/record.rs` (output writes it).
    let found = offenders(
        &["serde_json"],
        &[
            "src/output/",
            "src/matrix/schema.rs",
            "src/mcp/",
            "src/prove/safetensors.rs",
            "src/prove/record.rs",
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

// ---------------------------------------------------------------------------
// Layers: every module sits on one layer; a `crate::`/`super::` reference
// may point down or sideways, never up, and no two modules may reach each
// other (a cycle), whether across units or between the files of one unit.

/// The layers, lowest first. A module's layer is that of the longest prefix
/// listed here; a module no prefix names fails the test, so a new module
/// has to be placed.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "leaf utilities",
        &[
            "read_only",
            "did_you_mean",
            "quote",
            "lexical",
            "dtype",
            "test_rng",
        ],
    ),
    ("glob", &["glob"]),
    ("matrix", &["matrix", "catalog"]),
    ("repo / index / prove", &["repo", "index", "prove"]),
    ("context", &["context", "outcome"]),
    ("surface", &["surface"]),
    ("command", &["command"]),
    ("output", &["output"]),
    ("front ends", &["cli", "mcp", "fuzzing"]),
];

/// The module path of a source file: `src/matrix/parse.rs` → `matrix::parse`,
/// `src/matrix/mod.rs` → `matrix`, `src/lib.rs` → ``.
fn module_of(path: &str) -> String {
    let rel = path.trim_start_matches("src/").trim_end_matches(".rs");
    let rel = rel.strip_suffix("/mod").unwrap_or(rel);
    match rel {
        "lib" | "main" => String::new(),
        _ => rel.replace('/', "::"),
    }
}

fn layer_of(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap_or("");
    LAYERS
        .iter()
        .position(|(_, prefixes)| prefixes.contains(&top))
}

/// The unit a module belongs to: its top-level module.
fn unit_of(module: &str) -> &str {
    module.split("::").next().unwrap_or("")
}

/// The paths a `use` tree or a path expression names, starting after the
/// `crate::` or `super::` that introduced it: `{a::B, c::{d, e}}` → `a::B`,
/// `c::d`, `c::e`.
fn expand_paths(text: &str, prefix: &str, out: &mut Vec<String>) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut segment = String::new();
    let mut path = prefix.to_owned();
    let push = |path: &mut String, segment: &mut String| {
        if !segment.is_empty() {
            if !path.is_empty() {
                path.push_str("::");
            }
            path.push_str(segment);
            segment.clear();
        }
    };
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_ascii_alphanumeric() || c == '_' {
            segment.push(c);
            i += 1;
        } else if text[i..].starts_with("::") {
            push(&mut path, &mut segment);
            i += 2;
            if bytes.get(i) == Some(&b'{') {
                i += 1;
                // A group: comma-separated subtrees up to the matching `}`.
                loop {
                    while bytes
                        .get(i)
                        .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
                    {
                        i += 1;
                    }
                    if i >= bytes.len() {
                        return i;
                    }
                    if bytes[i] == b'}' {
                        return i + 1;
                    }
                    i += expand_paths(&text[i..], &path, out);
                }
            }
        } else {
            break;
        }
    }
    push(&mut path, &mut segment);
    out.push(path);
    // A subtree inside a group ends at `,` or `}`; skip an `as name`.
    while i < bytes.len() && !matches!(bytes[i], b',' | b'}' | b';' | b'\n') {
        i += 1;
    }
    i
}

/// Every module a file's code refers to, resolved against the known modules
/// (the longest known prefix of each path).
fn references(
    module: &str,
    code: &str,
    known: &std::collections::BTreeSet<String>,
    reexports: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    let parent = match module.rsplit_once("::") {
        Some((parent, _)) => parent.to_owned(),
        None => String::new(),
    };
    let mut paths = Vec::new();
    for (needle, base) in [("crate::", String::new()), ("super::", parent)] {
        let mut from = 0;
        while let Some(at) = code[from..].find(needle) {
            let start = from + at;
            let before = code[..start].chars().next_back();
            from = start + needle.len();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue; // `super::super::`, `$crate::`: read by the first match
            }
            let mut base = base.clone();
            let mut rest = &code[from..];
            while let Some(more) = rest.strip_prefix("super::") {
                base = base
                    .rsplit_once("::")
                    .map_or(String::new(), |(p, _)| p.to_owned());
                rest = more;
            }
            // Reuse the group parser: it expects to start on a segment.
            let rest = if let Some(group) = rest.strip_prefix('{') {
                format!("self::{{{group}")
            } else {
                rest.to_owned()
            };
            expand_paths(&rest, &base, &mut paths);
        }
    }
    let mut modules: Vec<String> = paths
        .into_iter()
        .filter_map(|path| {
            let path = path.replace("::self", "").replace("self::", "");
            resolve(&path, known, reexports)
        })
        .filter(|target| target != module && !target.is_empty())
        .collect();
    modules.sort();
    modules.dedup();
    modules
}

/// The module a path names: an item a parent re-exports (`crate::Matrix`,
/// `matrix::Confined`) resolves to the module that defines it; otherwise the
/// longest known module prefix.
fn resolve(
    path: &str,
    known: &std::collections::BTreeSet<String>,
    reexports: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    if let Some(target) = reexports.get(path) {
        return Some(target.clone());
    }
    let mut candidate = path;
    loop {
        if known.contains(candidate) {
            return Some(candidate.to_owned());
        }
        candidate = candidate.rsplit_once("::")?.0;
    }
}

/// `pub use` lines: `matrix::Matrix` → `matrix::model` when `matrix/mod.rs`
/// says `pub use model::Matrix`.
fn reexports_of(
    module: &str,
    code: &str,
    known: &std::collections::BTreeSet<String>,
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("pub use ") {
        from += at + "pub use ".len();
        let rest = &code[from..];
        let (base, rest) = match rest.strip_prefix("crate::") {
            Some(rest) => (String::new(), rest),
            None => (
                module.to_owned(),
                rest.strip_prefix("self::").unwrap_or(rest),
            ),
        };
        let rest = if let Some(group) = rest.strip_prefix('{') {
            format!("self::{{{group}")
        } else {
            rest.to_owned()
        };
        let mut paths = Vec::new();
        expand_paths(&rest, &base, &mut paths);
        for path in paths {
            let path = path.replace("::self", "").replace("self::", "");
            let item = path.rsplit("::").next().unwrap_or("").to_owned();
            let mut candidate = path.as_str();
            let target = loop {
                if known.contains(candidate) {
                    break Some(candidate.to_owned());
                }
                match candidate.rsplit_once("::") {
                    Some((p, _)) => candidate = p,
                    None => break None,
                }
            };
            if let Some(target) = target {
                let key = if module.is_empty() {
                    item
                } else {
                    format!("{module}::{item}")
                };
                found.push((key, target));
            }
        }
    }
    found
}

/// The import graph, as (from, to) module pairs, and the list of modules.
fn import_graph() -> (Vec<String>, Vec<(String, String)>) {
    let sources = sources();
    let known: std::collections::BTreeSet<String> =
        sources.iter().map(|(path, _)| module_of(path)).collect();
    let reexports: std::collections::BTreeMap<String, String> = sources
        .iter()
        .flat_map(|(path, code)| reexports_of(&module_of(path), code, &known))
        .collect();
    let mut edges = Vec::new();
    for (path, code) in &sources {
        let from = module_of(path);
        for to in references(&from, code, &known, &reexports) {
            edges.push((from.clone(), to));
        }
    }
    (known.into_iter().collect(), edges)
}

/// Edges that point to a higher layer.
fn upward_imports(edges: &[(String, String)]) -> Vec<String> {
    edges
        .iter()
        .filter(|(from, to)| match (layer_of(from), layer_of(to)) {
            (Some(a), Some(b)) => b > a,
            _ => false,
        })
        .map(|(from, to)| {
            format!(
                "{from} -> {to} (layer {} -> {})",
                LAYERS[layer_of(from).unwrap()].0,
                LAYERS[layer_of(to).unwrap()].0
            )
        })
        .collect()
}

/// Strongly connected components of more than one node, in the graph given.
fn cycles(nodes: &[String], edges: &[(String, String)]) -> Vec<Vec<String>> {
    use std::collections::BTreeMap;
    let index: BTreeMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut next = vec![Vec::new(); nodes.len()];
    for (from, to) in edges {
        if let (Some(&a), Some(&b)) = (index.get(from.as_str()), index.get(to.as_str())) {
            next[a].push(b);
        }
    }
    // Tarjan, iteratively small enough to recurse: the graph has ~100 nodes.
    struct State {
        counter: usize,
        low: Vec<usize>,
        order: Vec<Option<usize>>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        found: Vec<Vec<usize>>,
    }
    fn visit(v: usize, next: &[Vec<usize>], s: &mut State) {
        s.order[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &next[v] {
            match s.order[w] {
                None => {
                    visit(w, next, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(o) if s.on_stack[w] => s.low[v] = s.low[v].min(o),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.order[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let n = nodes.len();
    let mut s = State {
        counter: 0,
        low: vec![0; n],
        order: vec![None; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        found: Vec::new(),
    };
    for v in 0..n {
        if s.order[v].is_none() {
            visit(v, &next, &mut s);
        }
    }
    s.found
        .into_iter()
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|i| nodes[i].clone()).collect();
            names.sort();
            names
        })
        .collect()
}

#[test]
fn every_module_has_a_layer() {
    let (nodes, _) = import_graph();
    let unplaced: Vec<&String> = nodes
        .iter()
        .filter(|m| !m.is_empty() && m.as_str() != "architecture" && layer_of(m).is_none())
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules with no layer in LAYERS: {unplaced:?}"
    );
}

#[test]
fn no_import_points_up_a_layer() {
    let (_, edges) = import_graph();
    let up = upward_imports(&edges);
    assert!(
        up.is_empty(),
        "{} upward imports:\n{}",
        up.len(),
        up.join("\n")
    );
}

#[test]
fn no_two_units_depend_on_each_other() {
    let (_, edges) = import_graph();
    let unit_edges: Vec<(String, String)> = edges
        .iter()
        .map(|(a, b)| (unit_of(a).to_owned(), unit_of(b).to_owned()))
        .filter(|(a, b)| a != b)
        .collect();
    let mut units: Vec<String> = unit_edges
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    units.sort();
    units.dedup();
    let found = cycles(&units, &unit_edges);
    assert!(found.is_empty(), "import cycles between units: {found:?}");
}

#[test]
fn no_two_files_of_a_unit_depend_on_each_other() {
    // A unit's `mod.rs` declares and re-exports its children, so edges to
    // and from it are left out; between any other two files, none may close
    // a cycle.
    let sources = sources();
    let (nodes, edges) = import_graph();
    let roots: Vec<String> = sources
        .iter()
        .filter(|(path, _)| path.ends_with("/mod.rs"))
        .map(|(path, _)| module_of(path))
        .collect();
    let edges: Vec<(String, String)> = edges
        .into_iter()
        .filter(|(a, b)| !roots.contains(a) && !roots.contains(b))
        .collect();
    let found = cycles(&nodes, &edges);
    assert!(found.is_empty(), "import cycles between files: {found:?}");
}

// The scanner itself: what it cuts and what it reads.

#[test]
fn a_test_module_is_cut_wherever_it_sits() {
    let code = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn t() { let _ = '{'; }\n}\nfn b() { crate::x::y(); }\n";
    let kept = without_tests(&without_comments(code));
    assert!(
        kept.contains("fn a()") && kept.contains("crate::x::y"),
        "{kept}"
    );
    assert!(!kept.contains("fn t()"), "{kept}");
    let declared = "#[cfg(test)]\nmod tests;\nuse crate::glob::FileGlob;\n";
    assert!(without_tests(declared).contains("crate::glob"));
    assert_eq!(
        test_module_files("src/index/mod.rs", declared),
        ["src/index/tests.rs", "src/index/tests/mod.rs"]
    );
}

#[test]
fn comments_and_strings_name_no_module() {
    let code = "// crate::output::x\nlet s = \"crate::cli\"; /* crate::mcp */ let u = \"https://a\"; crate::glob::f();";
    let kept = without_comments(code);
    assert!(!kept.contains("output") && !kept.contains("cli") && !kept.contains("mcp"));
    assert!(kept.contains("crate::glob::f"), "{kept}");
}

#[test]
fn use_trees_and_super_paths_resolve_to_modules() {
    let known: std::collections::BTreeSet<String> = [
        "glob",
        "glob::syntax",
        "matrix",
        "matrix::model",
        "repo",
        "repo::git",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let reexports = [("matrix::Matrix".to_owned(), "matrix::model".to_owned())]
        .into_iter()
        .collect();
    let code = "use crate::{glob::syntax::{Seg, Tok}, matrix::Matrix};\nuse super::git::Git;";
    assert_eq!(
        references("repo::objects", code, &known, &reexports),
        ["glob::syntax", "matrix::model", "repo::git"]
    );
}

#[test]
fn an_upward_import_and_a_cycle_are_found() {
    let edges = vec![
        ("glob".to_owned(), "index".to_owned()),
        ("index".to_owned(), "glob".to_owned()),
    ];
    assert_eq!(upward_imports(&edges).len(), 1);
    let nodes = vec!["glob".to_owned(), "index".to_owned()];
    assert_eq!(cycles(&nodes, &edges), [["glob", "index"]]);
}
