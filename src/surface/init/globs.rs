//! Globs as tight as the tree allows: given the files an op (or the kernel
//! population) should match, write a short list of globs that matches
//! exactly those among today's files — a whole directory (`dir/`) when
//! nothing else lives there, an extension under a directory
//! (`dir/**/*.cu`) when that is exact, name prefixes (`dir/fattn*`) for
//! clusters of files, single paths otherwise.
//!
//! The tree of tracked files is built once; each cover only visits the
//! directories that hold its targets, so covering 50 ops over 100,000 files
//! costs little more than covering one.

use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Default)]
struct Node {
    dirs: BTreeMap<String, usize>,
    /// File names here and whether each is "don't care" (see [`Tree::insert`]).
    files: Vec<(String, bool)>,
    /// Files (not don't-care) in the whole subtree, by extension.
    exts: HashMap<String, usize>,
}

/// The tracked files as a directory tree.
pub struct Tree {
    nodes: Vec<Node>,
}

fn ext_of(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(d) if d > 0 => &name[d + 1..],
        _ => "",
    }
}

/// Escape glob metacharacters in a literal path piece.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// What a cover must not match besides other targets.
#[derive(Clone, Copy)]
pub struct Options<'p> {
    /// Allow `dir/` for a directory whose counted files are all targets (at least 2).
    pub whole_dirs: bool,
    /// Allow `dir/**/*.ext` (and `**/*.ext` at the root).
    pub ext_globs: bool,
    /// Which extensions count as files that must not be matched (the
    /// population counts every file; an op only source code).
    pub counts: &'p dyn Fn(&str) -> bool,
}

impl Default for Tree {
    fn default() -> Self {
        Tree {
            nodes: vec![Node::default()],
        }
    }
}

impl Tree {
    /// Add a path. A "don't care" path may be matched by a cover or not
    /// (tests and vendored files the population excludes anyway).
    pub fn insert(&mut self, path: &str, dont_care: bool) {
        if path.is_empty() {
            return;
        }
        let ext = ext_of(path);
        let mut at = 0;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            if !dont_care {
                match self.nodes[at].exts.get_mut(ext) {
                    Some(n) => *n += 1,
                    None => {
                        self.nodes[at].exts.insert(ext.to_owned(), 1);
                    }
                }
            }
            if parts.peek().is_none() {
                self.nodes[at].files.push((part.to_owned(), dont_care));
                return;
            }
            at = match self.nodes[at].dirs.get(part) {
                Some(&i) => i,
                None => {
                    let i = self.nodes.len();
                    self.nodes.push(Node::default());
                    self.nodes[at].dirs.insert(part.to_owned(), i);
                    i
                }
            };
        }
    }

    /// Globs matching every target and none of the counted, non-don't-care
    /// files that are not targets. Targets must have been inserted.
    pub fn cover(&self, targets: &[&str], opts: Options<'_>) -> Vec<String> {
        self.cover_beside(targets, &[], opts)
    }

    /// [`Tree::cover`], where the files in `free` (inserted as counted
    /// files, each once) are don't-care for this cover only: files the op
    /// already covers, which its globs may match again.
    pub fn cover_beside(&self, targets: &[&str], free: &[&str], opts: Options<'_>) -> Vec<String> {
        let t = self.index(targets, free);
        let mut out = Vec::new();
        self.walk(0, "", &[], &t, opts, &mut out);
        out
    }

    /// Where the targets (and this cover's don't-care files) sit in the tree.
    fn index<'a>(&self, targets: &[&'a str], free: &[&'a str]) -> Targets<'a> {
        let mut t = Targets::default();
        let is_target: HashSet<&str> = targets.iter().copied().collect();
        for path in free {
            if is_target.contains(path) || !self.holds_dirs_of(path) {
                continue;
            }
            let ext = ext_of(path);
            let mut at = 0;
            let mut parts = path.split('/').peekable();
            while let Some(part) = parts.next() {
                *t.free.entry((at, ext)).or_default() += 1;
                if parts.peek().is_none() {
                    t.free_names.entry(at).or_default().insert(part);
                    break;
                }
                at = self.nodes[at].dirs[part];
            }
        }
        for path in targets {
            let ext = ext_of(path);
            let mut at = 0;
            let mut parts = path.split('/').peekable();
            while let Some(part) = parts.next() {
                *t.exts.entry((at, ext)).or_default() += 1;
                if parts.peek().is_none() {
                    t.names.entry(at).or_default().insert(part);
                    break;
                }
                match self.nodes[at].dirs.get(part) {
                    Some(&i) => at = i,
                    None => break,
                }
            }
        }
        t
    }

    /// The population as rules: `dir/**/*.ext` (or `dir/*.ext`) wherever
    /// the targets are most of that directory's `.ext` files (at least
    /// [`RULE_MIN`], and at most one other file for each [`RULE_RATIO`]
    /// targets), the other files excluded by path, so a kernel added
    /// beside them tomorrow is in the population without an edit.
    /// Targets no rule takes are in `rest`, for [`Tree::cover`].
    /// `writable`: whether an excluded path can be written in a matrix (a
    /// rule that would have to exclude a name it cannot hold is not made).
    pub fn rules(&self, targets: &[&str], writable: &dyn Fn(&str) -> bool) -> Rules {
        let t = self.index(targets, &[]);
        let exts: std::collections::BTreeSet<&str> = targets.iter().map(|p| ext_of(p)).collect();
        let mut out = Rules::default();
        for ext in exts {
            self.rule_walk(0, "", ext, &t, writable, &mut out);
        }
        out.include.sort();
        out.exclude.sort();
        out
    }

    fn rule_walk(
        &self,
        at: usize,
        dir: &str,
        ext: &str,
        t: &Targets,
        writable: &dyn Fn(&str) -> bool,
        out: &mut Rules,
    ) {
        let node = &self.nodes[at];
        let base = match dir.is_empty() {
            true => String::new(),
            false => format!("{}/", escape(dir)),
        };
        let here = t.exts.get(&(at, ext)).copied().unwrap_or(0);
        let total = node.exts.get(ext).copied().unwrap_or(0);
        if !ext.is_empty() && ruled(here, total.saturating_sub(here)) {
            let mut others = Vec::new();
            self.others_below(at, dir, ext, t, &mut others);
            if others.iter().all(|p| writable(p)) {
                out.include.push(format!("{base}**/*.{}", escape(ext)));
                out.exclude.extend(others.iter().map(|p| escape(p)));
                return;
            }
        }
        let join = |name: &str| match dir.is_empty() {
            true => name.to_owned(),
            false => format!("{dir}/{name}"),
        };
        let direct: Vec<(&str, bool)> = node
            .files
            .iter()
            .filter(|(n, dc)| !dc && ext_of(n) == ext)
            .map(|(n, _)| {
                (
                    n.as_str(),
                    t.names.get(&at).is_some_and(|s| s.contains(n.as_str())),
                )
            })
            .collect();
        let hits = direct.iter().filter(|d| d.1).count();
        let misses: Vec<String> = direct.iter().filter(|d| !d.1).map(|d| join(d.0)).collect();
        if !ext.is_empty() && ruled(hits, misses.len()) && misses.iter().all(|p| writable(p)) {
            out.include.push(format!("{base}*.{}", escape(ext)));
            out.exclude.extend(misses.iter().map(|p| escape(p)));
        } else {
            out.rest
                .extend(direct.iter().filter(|d| d.1).map(|d| join(d.0)));
        }
        for (name, &child) in &node.dirs {
            if t.exts.contains_key(&(child, ext)) {
                self.rule_walk(child, &join(name), ext, t, writable, out);
            }
        }
    }

    /// The counted `.ext` files under a node that are not targets.
    fn others_below(&self, at: usize, dir: &str, ext: &str, t: &Targets, out: &mut Vec<String>) {
        let node = &self.nodes[at];
        let join = |name: &str| match dir.is_empty() {
            true => name.to_owned(),
            false => format!("{dir}/{name}"),
        };
        let names = t.names.get(&at);
        for (n, dc) in &node.files {
            if !dc && ext_of(n) == ext && !names.is_some_and(|s| s.contains(n.as_str())) {
                out.push(join(n));
            }
        }
        for (name, &child) in &node.dirs {
            if self.nodes[child].exts.get(ext).copied().unwrap_or(0) > 0 {
                self.others_below(child, &join(name), ext, t, out);
            }
        }
    }

    /// Whether every directory of `path` is in the tree.
    fn holds_dirs_of(&self, path: &str) -> bool {
        let mut at = 0;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                return !path.is_empty();
            }
            match self.nodes[at].dirs.get(part) {
                Some(&i) => at = i,
                None => return false,
            }
        }
        false
    }

    fn walk(
        &self,
        at: usize,
        dir: &str,
        handled: &[String],
        t: &Targets,
        opts: Options<'_>,
        out: &mut Vec<String>,
    ) {
        let node = &self.nodes[at];
        let tcount = |ext: &str| t.exts.get(&(at, ext)).copied().unwrap_or(0);
        let live: usize = node
            .exts
            .keys()
            .filter(|e| !handled.contains(e))
            .map(|e| tcount(e))
            .sum();
        if live == 0 {
            return;
        }
        let free = |ext: &str| t.free.get(&(at, ext)).copied().unwrap_or(0);
        let others = |ext: &str| -> usize {
            if (opts.counts)(ext) {
                node.exts
                    .get(ext)
                    .copied()
                    .unwrap_or(0)
                    .saturating_sub(tcount(ext))
                    .saturating_sub(free(ext))
            } else {
                0
            }
        };
        let all_others: usize = node.exts.keys().map(|e| others(e)).sum();
        if opts.whole_dirs && !dir.is_empty() && handled.is_empty() && all_others == 0 && live >= 2
        {
            out.push(format!("{}/", escape(dir)));
            return;
        }
        let mut handled = handled.to_vec();
        if opts.ext_globs {
            let mut exts: Vec<&String> = node.exts.keys().collect();
            exts.sort();
            for ext in exts {
                if ext.is_empty() || handled.contains(ext) || tcount(ext) < 2 || others(ext) > 0 {
                    continue;
                }
                // Only when the files reach into subdirectories (else
                // `dir/*.ext` below reads better).
                let deep = node
                    .dirs
                    .values()
                    .any(|&c| t.exts.contains_key(&(c, ext.as_str())));
                if !deep {
                    continue;
                }
                out.push(if dir.is_empty() {
                    format!("**/*.{}", escape(ext))
                } else {
                    format!("{}/**/*.{}", escape(dir), escape(ext))
                });
                handled.push(ext.clone());
            }
        }
        for (name, &child) in &node.dirs {
            let sub = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            self.walk(child, &sub, &handled, t, opts, out);
        }
        self.cover_files_here(at, dir, &handled, t, opts, out);
    }

    /// The targets directly in `at`: one glob per extension when nothing
    /// else counted lives here, else the tightest name patterns
    /// ([`cluster`]).
    fn cover_files_here(
        &self,
        at: usize,
        dir: &str,
        handled: &[String],
        t: &Targets,
        opts: Options<'_>,
        out: &mut Vec<String>,
    ) {
        let node = &self.nodes[at];
        let Some(names) = t.names.get(&at) else {
            return;
        };
        let base = if dir.is_empty() {
            String::new()
        } else {
            format!("{}/", escape(dir))
        };
        let free_here = t.free_names.get(&at);
        let mut files: Vec<(&str, bool)> = node
            .files
            .iter()
            .filter(|(n, dc)| {
                !dc && (opts.counts)(ext_of(n))
                    && !free_here.is_some_and(|f| f.contains(n.as_str()))
                    || names.contains(n.as_str())
            })
            .map(|(n, _)| (n.as_str(), names.contains(n.as_str())))
            .filter(|(n, target)| !(*target && handled.iter().any(|e| e == ext_of(n))))
            .collect();
        files.sort_unstable();
        let others: Vec<&str> = files.iter().filter(|f| !f.1).map(|f| f.0).collect();
        // Nothing else here: one glob per extension.
        let mut done: Vec<&str> = Vec::new();
        if others.is_empty() {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for (n, _) in &files {
                *counts.entry(ext_of(n)).or_default() += 1;
            }
            for (ext, n) in counts {
                if !ext.is_empty() && n >= 2 {
                    out.push(format!("{base}*.{}", escape(ext)));
                    done.push(ext);
                }
            }
        }
        let run: Vec<&str> = files
            .iter()
            .filter(|(n, target)| *target && !done.contains(&ext_of(n)))
            .map(|(n, _)| *n)
            .collect();
        if !run.is_empty() {
            cluster(&run, &others, &base, out);
        }
    }
}

/// The least number of targets a rule holds.
pub const RULE_MIN: usize = 3;
/// A rule may exclude one other file for this many targets.
pub const RULE_RATIO: usize = 4;

/// Whether `hits` targets beside `misses` other files make a rule.
fn ruled(hits: usize, misses: usize) -> bool {
    hits >= RULE_MIN && misses * RULE_RATIO <= hits
}

/// The population's rules (see [`Tree::rules`]).
#[derive(Debug, Default)]
pub struct Rules {
    pub include: Vec<String>,
    /// The files the rules match that are not targets, by path.
    pub exclude: Vec<String>,
    /// Targets no rule takes.
    pub rest: Vec<String>,
}

#[derive(Default)]
struct Targets<'a> {
    /// (node, ext) → targets in that subtree.
    exts: HashMap<(usize, &'a str), usize>,
    /// node → target file names directly in it.
    names: HashMap<usize, HashSet<&'a str>>,
    /// (node, ext) → don't-care files of this cover in that subtree.
    free: HashMap<(usize, &'a str), usize>,
    /// node → don't-care file names of this cover directly in it.
    free_names: HashMap<usize, HashSet<&'a str>>,
}

fn lcp<'a>(a: &'a str, b: &str) -> &'a str {
    let mut len = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(len) {
        len -= 1;
    }
    &a[..len]
}

/// Where a name may be cut for a prefix glob: after `-`, `_` or `.`, and
/// before an upper-case letter that follows a lower-case one.
fn boundaries(name: &str) -> Vec<usize> {
    let b = name.as_bytes();
    let mut out = Vec::new();
    for i in 1..b.len() {
        let cut = matches!(b[i - 1], b'-' | b'_' | b'.')
            || (b[i].is_ascii_uppercase() && b[i - 1].is_ascii_lowercase());
        if cut {
            out.push(i);
        }
    }
    out
}

/// Group a directory's target names by the shortest name prefix (cut at a
/// token boundary) that no other file there starts with; a group of two or
/// more becomes `prefix*`, a lone file its own path.
fn cluster(run: &[&str], others: &[&str], base: &str, out: &mut Vec<String>) {
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for n in run {
        let key = boundaries(n)
            .into_iter()
            .map(|i| &n[..i])
            .find(|p| p.len() >= 3 && !others.iter().any(|o| o.starts_with(p)))
            .unwrap_or(n);
        groups.entry(key).or_default().push(n);
    }
    // A shorter clean prefix that already holds a group absorbs longer ones.
    let keys: Vec<&str> = groups.keys().copied().collect();
    for k in &keys {
        if let Some(parent) = keys
            .iter()
            .find(|p| p.len() < k.len() && k.starts_with(**p) && groups[**p].len() > 1)
        {
            let moved = groups.remove(k).unwrap_or_default();
            groups.entry(parent).or_default().extend(moved);
        }
    }
    // Neighbouring groups whose common prefix is still clean merge
    // (`fattn-*` and `fattn.cu` → `fattn*`).
    let mut merged: Vec<(String, Vec<&str>)> = Vec::new();
    for (key, names) in groups {
        if let Some((pk, pn)) = merged.last_mut() {
            let common = lcp(pk, key);
            if common.len() >= 3 && !others.iter().any(|o| o.starts_with(common)) {
                *pk = common.to_owned();
                pn.extend(names);
                continue;
            }
        }
        merged.push((key.to_owned(), names));
    }
    for (key, names) in merged {
        if names.len() == 1 {
            out.push(format!("{base}{}", escape(names[0])));
        } else {
            out.push(format!("{base}{}*", escape(&key)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glob::FileGlob;

    #[derive(Clone, Copy, PartialEq)]
    enum L {
        T,
        O,
        Dc,
    }
    use L::*;

    fn check(paths: &[(&str, L)]) -> Vec<String> {
        let mut tree = Tree::default();
        for (p, l) in paths {
            tree.insert(p, *l == Dc);
        }
        let targets: Vec<&str> = paths.iter().filter(|p| p.1 == T).map(|p| p.0).collect();
        let all = |_: &str| true;
        let globs = tree.cover(
            &targets,
            Options {
                whole_dirs: true,
                ext_globs: true,
                counts: &all,
            },
        );
        for (p, l) in paths {
            let hit = globs.iter().any(|g| FileGlob::new(g).unwrap().is_match(p));
            match l {
                T => assert!(hit, "{p} not matched by {globs:?}"),
                O => assert!(!hit, "{p} wrongly matched by {globs:?}"),
                Dc => {}
            }
        }
        globs
    }

    #[test]
    fn homogeneous_directories_become_dir_globs() {
        let g = check(&[
            ("k/attn/a.cu", T),
            ("k/attn/b.cuh", T),
            ("k/gemm/g.cu", O),
            ("k/gemm/h.cu", O),
        ]);
        assert_eq!(g, ["k/attn/"]);
    }

    #[test]
    fn mixed_directories_become_name_prefixes() {
        let g = check(&[
            ("cuda/fattn-common.cuh", T),
            ("cuda/fattn-tile.cu", T),
            ("cuda/fattn.cu", T),
            ("cuda/mmq.cu", O),
            ("cuda/mmq.cuh", O),
            ("cuda/norm.cu", O),
            ("cuda/f16.cuh", O),
        ]);
        assert_eq!(g, ["cuda/fattn*"]);
        let g = check(&[
            ("cuda/mmq.cu", T),
            ("cuda/mmq.cuh", T),
            ("cuda/mmvq.cu", T),
            ("cuda/mmf.cu", O),
        ]);
        assert_eq!(g, ["cuda/mmq.*", "cuda/mmvq.cu"]);
        // Interleaved with other ops' files, still one prefix.
        let g = check(&[
            ("t/fattn-a.cu", T),
            ("t/fattn-b.cu", T),
            ("t/fattn.cu", O),
            ("t/mmq-a.cu", O),
            ("t/fattn-c.cu", T),
        ]);
        assert_eq!(g, ["t/fattn-*"]);
    }

    #[test]
    fn extension_globs_where_exact() {
        let g = check(&[
            ("a/x.cu", T),
            ("b/c/y.cu", T),
            ("b/z.cpp", O),
            ("tests/t.cu", Dc),
            ("README.md", O),
        ]);
        assert_eq!(g, ["**/*.cu"]);
    }

    #[test]
    fn files_the_op_already_covers_may_be_matched_again() {
        let mut tree = Tree::default();
        for p in [
            "a/b/x.cu",
            "a/b/c/y.cu",
            "a/b/z.cu",
            "a/w.cu",
            "a/README.md",
        ] {
            tree.insert(p, false);
        }
        let all = |_: &str| true;
        let opts = Options {
            whole_dirs: true,
            ext_globs: false,
            counts: &all,
        };
        let targets = ["a/b/x.cu", "a/b/c/y.cu"];
        assert_eq!(tree.cover(&targets, opts), ["a/b/c/y.cu", "a/b/x.cu"]);
        assert_eq!(tree.cover_beside(&targets, &["a/b/z.cu"], opts), ["a/b/"]);
        // Free files elsewhere do not widen the cover past other files.
        assert_eq!(
            tree.cover_beside(&targets, &["a/b/z.cu", "a/README.md"], opts),
            ["a/b/"]
        );
    }

    #[test]
    fn metacharacters_are_escaped() {
        let g = check(&[("k/a[1].cu", T), ("k/b.cu", O)]);
        assert_eq!(g, ["k/a\\[1\\].cu"]);
    }
}
