//! Globs as tight as the tree allows: given the files an op (or the kernel
//! population) should match, write a short list of globs that matches
//! exactly those among today's files — a whole directory (`dir/`) when
//! nothing else lives there, an extension under a directory
//! (`dir/**/*.cu`) when that is exact, name prefixes (`dir/fattn*`) for
//! clusters of files, single paths otherwise.
//!
//! The tree of tracked files is built once, each directory's files sorted
//! by name and numbered; a cover marks its targets by number (one byte per
//! file and node) and only visits the directories that hold them, and no
//! cover hashes or sorts a directory's names again.

use std::collections::{BTreeMap, HashMap, HashSet};

/// An extension's number in its tree: numbers follow the extensions'
/// names in order, so sorting by number sorts by name.
type ExtId = usize;

#[derive(Default)]
struct Node {
    dirs: BTreeMap<String, usize>,
    /// The files here, sorted by name.
    files: Vec<File>,
    /// Files (not don't-care) in the whole subtree, by extension, sorted.
    exts: Vec<(ExtId, usize)>,
}

/// A file of the tree: its name in its directory, numbered across the tree.
struct File {
    name: String,
    ext: ExtId,
    /// Whether it is "don't care" (see [`Tree::from_paths`]).
    dont_care: bool,
    id: usize,
}

/// The tracked files as a directory tree.
pub struct Tree {
    nodes: Vec<Node>,
    /// How many files the tree holds (numbered `0..files`).
    files: usize,
    /// The extensions by number, and their numbers.
    exts: Vec<String>,
    ext_ids: HashMap<String, ExtId>,
}

fn ext_of(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(d) if d > 0 => &name[d + 1..],
        _ => "",
    }
}

/// The count for `ext` in a sorted (extension, count) list.
fn count_of(counts: &[(ExtId, usize)], ext: ExtId) -> usize {
    counts
        .binary_search_by_key(&ext, |c| c.0)
        .map_or(0, |i| counts[i].1)
}

/// Add one to `ext`'s count, keeping the list sorted.
fn bump(counts: &mut Vec<(ExtId, usize)>, ext: ExtId) {
    match counts.binary_search_by_key(&ext, |c| c.0) {
        Ok(i) => counts[i].1 += 1,
        Err(i) => counts.insert(i, (ext, 1)),
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

impl Tree {
    /// The tree of these paths. A "don't care" path may be matched by a
    /// cover or not (tests and vendored files the population excludes
    /// anyway).
    pub fn from_paths<'a>(paths: impl IntoIterator<Item = (&'a str, bool)>) -> Tree {
        let paths: Vec<(&str, bool)> = paths.into_iter().filter(|p| !p.0.is_empty()).collect();
        let names: std::collections::BTreeSet<&str> = paths.iter().map(|p| ext_of(p.0)).collect();
        let exts: Vec<String> = names.into_iter().map(str::to_owned).collect();
        let mut tree = Tree {
            nodes: vec![Node::default()],
            files: 0,
            ext_ids: exts
                .iter()
                .enumerate()
                .map(|(i, e)| (e.clone(), i))
                .collect(),
            exts,
        };
        for (path, dont_care) in paths {
            tree.insert(path, dont_care);
        }
        for node in &mut tree.nodes {
            node.files.sort_unstable_by(|a, b| a.name.cmp(&b.name));
            for f in &mut node.files {
                f.id = tree.files;
                tree.files += 1;
            }
        }
        tree
    }

    fn insert(&mut self, path: &str, dont_care: bool) {
        let ext = self.ext_ids[ext_of(path)];
        let mut at = 0;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            if !dont_care {
                bump(&mut self.nodes[at].exts, ext);
            }
            if parts.peek().is_none() {
                self.nodes[at].files.push(File {
                    name: part.to_owned(),
                    ext,
                    dont_care,
                    id: 0,
                });
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
    /// files that are not targets. Targets must be among the paths the
    /// tree was made from, not as don't-care files, each once.
    pub fn cover(&self, targets: &[&str], opts: Options<'_>) -> Vec<String> {
        self.cover_beside(targets, &[], opts)
    }

    /// [`Tree::cover`], where the files in `free` (among the tree's paths,
    /// as counted files, each once) are don't-care for this cover only: files the op
    /// already covers, which its globs may match again.
    pub fn cover_beside(&self, targets: &[&str], free: &[&str], opts: Options<'_>) -> Vec<String> {
        let t = self.index(targets, free);
        let counted: Vec<bool> = self.exts.iter().map(|e| (opts.counts)(e)).collect();
        let cover = Cover {
            t: &t,
            opts,
            counted: &counted,
        };
        let mut out = Vec::new();
        self.walk(0, "", &[], &cover, &mut out);
        out
    }

    /// Where the targets (and this cover's don't-care files) sit in the tree.
    fn index(&self, targets: &[&str], free: &[&str]) -> Targets {
        let mut t = Targets {
            exts: vec![Vec::new(); self.nodes.len()],
            free: vec![Vec::new(); self.nodes.len()],
            target: vec![false; self.files],
            free_file: vec![false; self.files],
            holds_targets: vec![false; self.nodes.len()],
        };
        let is_target: HashSet<&str> = targets.iter().copied().collect();
        for path in free {
            if is_target.contains(path) || !self.holds_dirs_of(path) {
                continue;
            }
            // An extension no tracked file has is counted nowhere.
            let Some(&ext) = self.ext_ids.get(ext_of(path)) else {
                continue;
            };
            let mut at = 0;
            let mut parts = path.split('/').peekable();
            while let Some(part) = parts.next() {
                bump(&mut t.free[at], ext);
                if parts.peek().is_none() {
                    if let Some(id) = self.file_id(at, part) {
                        t.free_file[id] = true;
                    }
                    break;
                }
                at = self.nodes[at].dirs[part];
            }
        }
        for path in targets {
            let Some(&ext) = self.ext_ids.get(ext_of(path)) else {
                continue;
            };
            let mut at = 0;
            let mut parts = path.split('/').peekable();
            while let Some(part) = parts.next() {
                bump(&mut t.exts[at], ext);
                if parts.peek().is_none() {
                    if let Some(id) = self.file_id(at, part) {
                        t.target[id] = true;
                        t.holds_targets[at] = true;
                    }
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

    /// The number of the file `name` in directory `at`.
    fn file_id(&self, at: usize, name: &str) -> Option<usize> {
        let files = &self.nodes[at].files;
        let i = files.binary_search_by(|f| f.name.as_str().cmp(name)).ok()?;
        Some(files[i].id)
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
        let exts: std::collections::BTreeSet<ExtId> = targets
            .iter()
            .filter_map(|p| self.ext_ids.get(ext_of(p)).copied())
            .collect();
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
        ext: ExtId,
        t: &Targets,
        writable: &dyn Fn(&str) -> bool,
        out: &mut Rules,
    ) {
        let node = &self.nodes[at];
        let base = match dir.is_empty() {
            true => String::new(),
            false => format!("{}/", escape(dir)),
        };
        let name = &self.exts[ext];
        let here = count_of(&t.exts[at], ext);
        let total = count_of(&node.exts, ext);
        if !name.is_empty() && ruled(here, total.saturating_sub(here)) {
            let mut others = Vec::new();
            self.others_below(at, dir, ext, t, &mut others);
            if others.iter().all(|p| writable(p)) {
                out.include.push(format!("{base}**/*.{}", escape(name)));
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
            .filter(|f| !f.dont_care && f.ext == ext)
            .map(|f| (f.name.as_str(), t.target[f.id]))
            .collect();
        let hits = direct.iter().filter(|d| d.1).count();
        let misses: Vec<String> = direct.iter().filter(|d| !d.1).map(|d| join(d.0)).collect();
        if !name.is_empty() && ruled(hits, misses.len()) && misses.iter().all(|p| writable(p)) {
            out.include.push(format!("{base}*.{}", escape(name)));
            out.exclude.extend(misses.iter().map(|p| escape(p)));
        } else {
            out.rest
                .extend(direct.iter().filter(|d| d.1).map(|d| join(d.0)));
        }
        for (name, &child) in &node.dirs {
            if count_of(&t.exts[child], ext) > 0 {
                self.rule_walk(child, &join(name), ext, t, writable, out);
            }
        }
    }

    /// The counted `.ext` files under a node that are not targets.
    fn others_below(&self, at: usize, dir: &str, ext: ExtId, t: &Targets, out: &mut Vec<String>) {
        let node = &self.nodes[at];
        let join = |name: &str| match dir.is_empty() {
            true => name.to_owned(),
            false => format!("{dir}/{name}"),
        };
        for f in &node.files {
            if !f.dont_care && f.ext == ext && !t.target[f.id] {
                out.push(join(&f.name));
            }
        }
        for (name, &child) in &node.dirs {
            if count_of(&self.nodes[child].exts, ext) > 0 {
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

    fn walk(&self, at: usize, dir: &str, handled: &[ExtId], c: &Cover, out: &mut Vec<String>) {
        let node = &self.nodes[at];
        let targets = &c.t.exts[at];
        let live: usize = targets
            .iter()
            .filter(|e| !handled.contains(&e.0))
            .map(|e| e.1)
            .sum();
        if live == 0 {
            return;
        }
        let free = &c.t.free[at];
        // The counted files of `ext` here that are neither targets nor free.
        let others = |ext: ExtId, total: usize| -> usize {
            match c.counted[ext] {
                true => total
                    .saturating_sub(count_of(targets, ext))
                    .saturating_sub(count_of(free, ext)),
                false => 0,
            }
        };
        let all_others: usize = node.exts.iter().map(|&(e, n)| others(e, n)).sum();
        if c.opts.whole_dirs
            && !dir.is_empty()
            && handled.is_empty()
            && all_others == 0
            && live >= 2
        {
            out.push(format!("{}/", escape(dir)));
            return;
        }
        let mut handled = handled.to_vec();
        if c.opts.ext_globs {
            for &(ext, total) in &node.exts {
                let name = &self.exts[ext];
                if name.is_empty()
                    || handled.contains(&ext)
                    || count_of(targets, ext) < 2
                    || others(ext, total) > 0
                {
                    continue;
                }
                // Only when the files reach into subdirectories (else
                // `dir/*.ext` below reads better).
                let deep = node
                    .dirs
                    .values()
                    .any(|&child| count_of(&c.t.exts[child], ext) > 0);
                if !deep {
                    continue;
                }
                out.push(if dir.is_empty() {
                    format!("**/*.{}", escape(name))
                } else {
                    format!("{}/**/*.{}", escape(dir), escape(name))
                });
                handled.push(ext);
            }
        }
        for (name, &child) in &node.dirs {
            if c.t.exts[child].is_empty() {
                continue;
            }
            let sub = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            self.walk(child, &sub, &handled, c, out);
        }
        self.cover_files_here(at, dir, &handled, c, out);
    }

    /// The targets directly in `at`: one glob per extension when nothing
    /// else counted lives here, else the tightest name patterns
    /// ([`cluster`]).
    fn cover_files_here(
        &self,
        at: usize,
        dir: &str,
        handled: &[ExtId],
        c: &Cover,
        out: &mut Vec<String>,
    ) {
        if !c.t.holds_targets[at] {
            return;
        }
        let base = if dir.is_empty() {
            String::new()
        } else {
            format!("{}/", escape(dir))
        };
        // (name, extension, target), sorted by name as the files are.
        let files: Vec<(&str, ExtId, bool)> = self.nodes[at]
            .files
            .iter()
            .filter_map(|f| {
                let counted = !f.dont_care && !c.t.free_file[f.id] && c.counted[f.ext];
                match c.t.target[f.id] {
                    true if handled.contains(&f.ext) => None,
                    true => Some((f.name.as_str(), f.ext, true)),
                    false => counted.then_some((f.name.as_str(), f.ext, false)),
                }
            })
            .collect();
        let others: Vec<&str> = files.iter().filter(|f| !f.2).map(|f| f.0).collect();
        // Nothing else here: one glob per extension.
        let mut done: Vec<ExtId> = Vec::new();
        if others.is_empty() {
            let mut counts: BTreeMap<ExtId, usize> = BTreeMap::new();
            for f in &files {
                *counts.entry(f.1).or_default() += 1;
            }
            for (ext, n) in counts {
                let name = &self.exts[ext];
                if !name.is_empty() && n >= 2 {
                    out.push(format!("{base}*.{}", escape(name)));
                    done.push(ext);
                }
            }
        }
        let run: Vec<&str> = files
            .iter()
            .filter(|f| f.2 && !done.contains(&f.1))
            .map(|f| f.0)
            .collect();
        if !run.is_empty() {
            cluster(&run, &others, &base, out);
        }
    }
}

/// One cover's state: where its targets are, its options, and which
/// extensions (by number) count.
struct Cover<'a> {
    t: &'a Targets,
    opts: Options<'a>,
    counted: &'a [bool],
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

/// Where one cover's targets and don't-care files sit, by node and by
/// file number.
struct Targets {
    /// By node: targets in its subtree, by extension, sorted.
    exts: Vec<Vec<(ExtId, usize)>>,
    /// By file number: whether it is a target.
    target: Vec<bool>,
    /// By node: whether targets sit directly in it.
    holds_targets: Vec<bool>,
    /// By node: this cover's don't-care files in its subtree, by extension.
    free: Vec<Vec<(ExtId, usize)>>,
    /// By file number: whether it is a don't-care file of this cover.
    free_file: Vec<bool>,
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
        let tree = Tree::from_paths(paths.iter().map(|(p, l)| (*p, *l == Dc)));
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
        let tree = Tree::from_paths(
            [
                "a/b/x.cu",
                "a/b/c/y.cu",
                "a/b/z.cu",
                "a/w.cu",
                "a/README.md",
            ]
            .map(|p| (p, false)),
        );
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
