//! One index over every op's `files` globs: "which ops match this path" in
//! one pass, never a loop of per-op matchers — fast enough for a gate over a
//! dozen staged files and for a scorecard over 100,000 tracked files.
//!
//! Globs are anchored at the root, so each splits into a literal directory
//! `D` (everything up to the last `/` before the first metacharacter) and a
//! tail `T`. The index files each glob under the cheapest exact strategy,
//! in the spirit of globset's own (literal, extension, prefix, regex):
//!
//! - `T` a single path segment (no `/`, no `**`): the glob matches exactly
//!   the paths whose directory is `D` and whose file name matches `T`.
//!   Filed under `D`; `T` is a literal name, a `*.ext` suffix, or else a
//!   globset matcher on the file name (one per distinct tail, built lazily).
//! - `T` is `**` (a trailing `/` in sota's dialect): every path under `D`.
//! - anything else: bucketed by `D`, each bucket one globset `GlobSet`
//!   compiled lazily, the first time a path under `D` is looked up.
//!
//! A path consults its own directory and its ancestors (one hash lookup per
//! path component, cached while consecutive paths share a directory, as a
//! sorted index listing does). Built on demand: slug lookups never pay for
//! it. The wildcard semantics stay globset's; a differential test holds the
//! whole index to per-glob globset matchers.

use std::collections::HashMap;

use globset::{Candidate, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::glob::FileGlob;
use crate::matrix::Matrix;

/// The compiled `files` globs of a matrix (or any list of globs: the
/// coverage scorecard indexes the `[kernels]` population the same way).
pub struct OpIndex<'m> {
    /// Single-segment tails, by exact directory (index into `tail_lists`).
    tails: HashMap<&'m str, usize>,
    /// `D/**/T` tails (T one segment), by directory prefix `D`.
    under_tails: HashMap<&'m str, usize>,
    tail_lists: Vec<Vec<TailGroup<'m>>>,
    /// Distinct non-trivial tails and their lazily built matchers.
    tail_matchers: Vec<(&'m str, Option<GlobMatcher>)>,
    /// `D/**` globs, by directory prefix.
    under: HashMap<&'m str, Vec<(usize, usize)>>,
    /// Everything else, by literal directory prefix.
    buckets: HashMap<&'m str, Bucket<'m>>,
    globs: usize,
    /// The directory of the previous lookup and its precomputed plan.
    plan_dir: Option<Vec<u8>>,
    plan_tails: Option<usize>,
    plan_under: Vec<(usize, usize)>,
    plan_under_tails: Vec<usize>,
    plan_buckets: Vec<&'m str>,
    scratch: Vec<usize>,
    hits: Vec<(usize, usize)>,
}

struct Bucket<'m> {
    /// (op index, glob index in that op's `files`), in matrix order.
    owners: Vec<(usize, usize)>,
    globs: Vec<&'m FileGlob>,
    set: Option<GlobSet>,
}

#[derive(Clone, Copy)]
enum Tail<'m> {
    /// The file name equals this.
    Literal(&'m str),
    /// `A*B`: the file name starts with A and ends with B, not overlapping
    /// (`*.cu`, `awq*.go`, `flash_*.cu`).
    Affix(&'m str, &'m str),
    /// Index into `tail_matchers`.
    Matcher(usize),
}

struct TailEntry<'m> {
    owner: (usize, usize),
    tail: Tail<'m>,
}

/// Tails sharing a suffix every match must end with: one `ends_with`
/// rules out the whole group (twenty `**/op*_*.h` globs cost one check on a
/// `.cu` file).
struct TailGroup<'m> {
    suffix: &'m str,
    entries: Vec<TailEntry<'m>>,
}

impl<'m> Tail<'m> {
    /// A suffix every file name this tail matches ends with.
    fn required_suffix(self) -> &'m str {
        match self {
            Tail::Literal(l) => l,
            Tail::Affix(_, b) => b,
            Tail::Matcher(_) => "",
        }
    }
}

fn push_tail<'m>(groups: &mut Vec<TailGroup<'m>>, entry: TailEntry<'m>) {
    let suffix = entry.tail.required_suffix();
    match groups.iter_mut().find(|g| g.suffix == suffix) {
        Some(g) => g.entries.push(entry),
        None => groups.push(TailGroup {
            suffix,
            entries: vec![entry],
        }),
    }
}

/// One op matched by a path, with the glob that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpMatch {
    /// Index into `matrix.ops`.
    pub op: usize,
    /// Index into that op's `files`.
    pub glob: usize,
}

const META: [char; 5] = ['*', '?', '[', '{', '\\'];

/// The literal directory prefix of a (globset-syntax) glob: everything up
/// to the last `/` before the first metacharacter.
fn literal_dir(glob: &str) -> &str {
    let meta = glob.find(META).unwrap_or(glob.len());
    match glob[..meta].rfind('/') {
        Some(i) => &glob[..=i],
        None => "",
    }
}

enum Strategy<'m> {
    /// `D` + one segment.
    Tail(Tail<'m>),
    /// `D` + `**`.
    Under,
    /// `D` + `**/` + one segment.
    UnderTail(Tail<'m>),
    Bucket,
}

fn segment<'m>(
    tail: &'m str,
    matchers: &mut Vec<(&'m str, Option<GlobMatcher>)>,
) -> Option<Tail<'m>> {
    if tail.is_empty() || tail.contains('/') || tail.contains("**") || tail.contains('\\') {
        return None;
    }
    if !tail.contains(META) {
        return Some(Tail::Literal(tail));
    }
    if let Some((a, b)) = tail.split_once('*') {
        if !a.contains(META) && !b.contains(META) {
            return Some(Tail::Affix(a, b));
        }
    }
    let i = match matchers.iter().position(|(t, _)| *t == tail) {
        Some(i) => i,
        None => {
            matchers.push((tail, None));
            matchers.len() - 1
        }
    };
    Some(Tail::Matcher(i))
}

fn classify<'m>(tail: &'m str, matchers: &mut Vec<(&'m str, Option<GlobMatcher>)>) -> Strategy<'m> {
    if tail == "**" {
        return Strategy::Under;
    }
    if let Some(rest) = tail.strip_prefix("**/") {
        return match segment(rest, matchers) {
            Some(t) => Strategy::UnderTail(t),
            None => Strategy::Bucket,
        };
    }
    match segment(tail, matchers) {
        Some(t) => Strategy::Tail(t),
        None => Strategy::Bucket,
    }
}

impl<'m> OpIndex<'m> {
    /// Index every op's `files` (nothing is compiled yet). Owners are
    /// (op index, glob index in that op's `files`).
    pub fn new(matrix: &'m Matrix) -> Result<OpIndex<'m>, globset::Error> {
        Ok(Self::from_globs(matrix.ops.iter().enumerate().flat_map(
            |(op_i, op)| {
                op.files
                    .iter()
                    .enumerate()
                    .map(move |(glob_i, g)| ((op_i, glob_i), &g.value))
            },
        )))
    }

    /// Index any globs, each with an owner id reported back on a match.
    pub fn from_globs<I>(globs_in: I) -> OpIndex<'m>
    where
        I: IntoIterator<Item = ((usize, usize), &'m FileGlob)>,
    {
        let mut tails: HashMap<&'m str, usize> = HashMap::new();
        let mut under_tails: HashMap<&'m str, usize> = HashMap::new();
        let mut tail_lists: Vec<Vec<TailGroup<'m>>> = Vec::new();
        let list_for = |map: &mut HashMap<&'m str, usize>,
                        dir: &'m str,
                        lists: &mut Vec<Vec<TailGroup<'m>>>| {
            *map.entry(dir).or_insert_with(|| {
                lists.push(Vec::new());
                lists.len() - 1
            })
        };
        let mut tail_matchers = Vec::new();
        let mut under: HashMap<&'m str, Vec<(usize, usize)>> = HashMap::new();
        let mut buckets: HashMap<&'m str, Bucket<'m>> = HashMap::new();
        let mut globs = 0;
        for (owner, glob) in globs_in {
            let text = glob.translated();
            let dir = literal_dir(text);
            match classify(&text[dir.len()..], &mut tail_matchers) {
                Strategy::Tail(tail) => {
                    let i = list_for(&mut tails, dir, &mut tail_lists);
                    push_tail(&mut tail_lists[i], TailEntry { owner, tail });
                }
                Strategy::UnderTail(tail) => {
                    let i = list_for(&mut under_tails, dir, &mut tail_lists);
                    push_tail(&mut tail_lists[i], TailEntry { owner, tail });
                }
                Strategy::Under => under.entry(dir).or_default().push(owner),
                Strategy::Bucket => {
                    let b = buckets.entry(dir).or_insert_with(|| Bucket {
                        owners: Vec::new(),
                        globs: Vec::new(),
                        set: None,
                    });
                    b.owners.push(owner);
                    b.globs.push(glob);
                }
            }
            globs += 1;
        }
        OpIndex {
            tails,
            under_tails,
            tail_lists,
            tail_matchers,
            under,
            buckets,
            globs,
            plan_dir: None,
            plan_tails: None,
            plan_under: Vec::new(),
            plan_under_tails: Vec::new(),
            plan_buckets: Vec::new(),
            scratch: Vec::new(),
            hits: Vec::new(),
        }
    }

    /// The ops whose `files` match a root-relative `/`-separated path, in
    /// matrix order, each once, with the first glob of that op that matched.
    pub fn matches(&mut self, path: &str) -> Vec<OpMatch> {
        self.matches_bytes(path.as_bytes())
    }

    /// As [`OpIndex::matches`], for a path given as raw bytes (non-UTF-8
    /// names included, as git prints them).
    pub fn matches_bytes(&mut self, path: &[u8]) -> Vec<OpMatch> {
        self.collect_hits(path);
        let mut out: Vec<OpMatch> = Vec::with_capacity(self.hits.len());
        for &(op, glob) in &self.hits {
            if out.last().is_none_or(|m| m.op != op) {
                out.push(OpMatch { op, glob });
            }
        }
        out
    }

    /// Every (op, glob) pair whose glob matches the path, sorted — not just
    /// the first glob per op (for dead-glob accounting).
    pub fn all_hits(&mut self, path: &[u8]) -> &[(usize, usize)] {
        self.collect_hits(path);
        &self.hits
    }

    /// Precompute what a directory consults: `D/**` owners and buckets of
    /// every ancestor (the directory itself included).
    fn plan(&mut self, dir: &[u8]) {
        if self.plan_dir.as_deref() == Some(dir) {
            return;
        }
        self.plan_under.clear();
        self.plan_under_tails.clear();
        self.plan_buckets.clear();
        self.plan_tails = std::str::from_utf8(dir)
            .ok()
            .and_then(|d| self.tails.get(d))
            .copied();
        let ends = std::iter::once(0).chain(
            dir.iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'/')
                .map(|(i, _)| i + 1),
        );
        for end in ends {
            let Ok(prefix) = std::str::from_utf8(&dir[..end]) else {
                break;
            };
            if let Some(owners) = self.under.get(prefix) {
                self.plan_under.extend_from_slice(owners);
            }
            if let Some(&i) = self.under_tails.get(prefix) {
                self.plan_under_tails.push(i);
            }
            if let Some((key, _)) = self.buckets.get_key_value(prefix) {
                self.plan_buckets.push(key);
            }
        }
        self.plan_dir = Some(dir.to_vec());
    }

    fn collect_hits(&mut self, path: &[u8]) {
        self.hits.clear();
        let split = path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
        let (dir, name) = path.split_at(split);
        self.plan(dir);
        self.hits.extend_from_slice(&self.plan_under);

        if let Some(i) = self.plan_tails {
            tail_hits(
                &self.tail_lists[i],
                name,
                &mut self.tail_matchers,
                &mut self.hits,
            );
        }
        for &i in &self.plan_under_tails {
            tail_hits(
                &self.tail_lists[i],
                name,
                &mut self.tail_matchers,
                &mut self.hits,
            );
        }

        if !self.plan_buckets.is_empty() {
            let os_path = bytes_to_path(path);
            let candidate = Candidate::new(&os_path);
            for key in &self.plan_buckets {
                let bucket = self.buckets.get_mut(key).expect("planned bucket exists");
                let set = bucket.set.get_or_insert_with(|| {
                    let mut builder = GlobSetBuilder::new();
                    for g in &bucket.globs {
                        builder.add(g.globset_glob());
                    }
                    // Every glob was validated at load; a set of valid globs builds.
                    builder.build().unwrap_or_else(|_| GlobSet::empty())
                });
                set.matches_candidate_into(&candidate, &mut self.scratch);
                self.hits
                    .extend(self.scratch.iter().map(|&i| bucket.owners[i]));
            }
        }
        self.hits.sort_unstable();
    }

    /// Whether any op matches the path.
    pub fn is_match(&mut self, path: &str) -> bool {
        !self.matches(path).is_empty()
    }

    /// Number of globs indexed.
    pub fn len(&self) -> usize {
        self.globs
    }

    pub fn is_empty(&self) -> bool {
        self.globs == 0
    }
}

/// Owners of the tails that the file name matches, pushed onto `hits`.
fn tail_hits<'m>(
    groups: &[TailGroup<'m>],
    name: &[u8],
    matchers: &mut [(&'m str, Option<GlobMatcher>)],
    hits: &mut Vec<(usize, usize)>,
) {
    for e in groups
        .iter()
        .filter(|g| ends_with(name, g.suffix.as_bytes()))
        .flat_map(|g| &g.entries)
    {
        let hit = match e.tail {
            Tail::Literal(l) => name == l.as_bytes(),
            Tail::Affix(a, b) => {
                name.len() >= a.len() + b.len()
                    && name.starts_with(a.as_bytes())
                    && name.ends_with(b.as_bytes())
            }
            Tail::Matcher(i) => {
                let slot = &mut matchers[i];
                let m = slot.1.get_or_insert_with(|| {
                    crate::glob::build_for_index(slot.0)
                        .map(|g| g.compile_matcher())
                        .unwrap_or_else(|_| never_matcher())
                });
                m.is_match_candidate(&Candidate::new(&bytes_to_path(name)))
            }
        };
        if hit {
            hits.push(e.owner);
        }
    }
}

/// `name.ends_with(suffix)`, rejecting on the last byte first: most
/// suffixes tested against a file name differ there (`.cu` / `.cuh` / `.h`),
/// and this runs for every tracked path.
#[inline]
fn ends_with(name: &[u8], suffix: &[u8]) -> bool {
    match (name.last(), suffix.last()) {
        (_, None) => true,
        (Some(a), Some(b)) if a == b => name.ends_with(suffix),
        _ => false,
    }
}

fn never_matcher() -> GlobMatcher {
    globset::Glob::new("\u{0}never\u{0}")
        .expect("a literal glob")
        .compile_matcher()
}

fn bytes_to_path(bytes: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = r#"
[project]
name = "t"

[[op]]
slug = "gemm"
title = "GEMM"
sota = "CUTLASS"
files = ["src/gemm/*.cu", "src/**/common.cuh"]

[[op]]
slug = "attn"
title = "Attention"
sota = "FlashAttention"
files = ["src/attn/", "src/**/common.cuh", "**/*.flash"]
"#;

    #[test]
    fn one_pass_returns_every_matching_op_once_in_matrix_order() {
        let m = Matrix::from_str(TOML, "sota.toml").unwrap();
        let mut idx = OpIndex::new(&m).unwrap();
        assert_eq!(idx.len(), 5);
        assert_eq!(
            idx.matches("src/gemm/k.cu"),
            vec![OpMatch { op: 0, glob: 0 }]
        );
        assert_eq!(
            idx.matches("src/x/common.cuh"),
            vec![OpMatch { op: 0, glob: 1 }, OpMatch { op: 1, glob: 1 }]
        );
        assert_eq!(
            idx.matches("src/attn/deep/fa.cu"),
            vec![OpMatch { op: 1, glob: 0 }]
        );
        assert_eq!(idx.matches("a/b/c.flash"), vec![OpMatch { op: 1, glob: 2 }]);
        assert!(idx.matches("src/gemm/sub/k.cu").is_empty());
        assert!(!idx.is_match("README.md"));
    }

    #[test]
    fn literal_prefixes_stop_at_the_first_metacharacter() {
        assert_eq!(literal_dir("src/mod1/*.cu"), "src/mod1/");
        assert_eq!(literal_dir("src/attn/**"), "src/attn/");
        assert_eq!(literal_dir("kernels/common.cuh"), "kernels/");
        assert_eq!(literal_dir("**/*.cu"), "");
        assert_eq!(literal_dir("{a,b}/x.cu"), "");
        assert_eq!(literal_dir("src/a[bc]/x"), "src/");
        assert_eq!(literal_dir("top.cu"), "");
    }

    /// The index must agree with globset glob by glob, whatever strategy
    /// each glob is filed under.
    #[test]
    fn the_index_agrees_with_per_glob_globset_matchers() {
        let dirs = ["", "a/", "a/b/", "src/x.y/"];
        let tails = [
            "*.cu",
            "*",
            "k.cu",
            "k?.cu",
            "[ab].cu",
            "[!a]*.cu",
            "{k,l}.cu",
            "**",
            "**/*.cu",
            "*/k.cu",
            "k\\*.cu",
            "x.cu{,h}",
            "*.tar.gz",
            "{a/k.cu,b.cu}",
            "*k*",
            ".cu",
            "k*.cu",
            "*k",
            "**/k*.cu",
            "**/*",
            "**/k.cu",
            "**/{k,l}.cu",
            "k*c*u",
            "**/**/*.cu",
            "**/b/*.cu",
        ];
        let mut globs = Vec::new();
        for d in dirs {
            for t in tails {
                globs.push(format!("{d}{t}"));
            }
        }
        let mut toml = String::from("[project]\nname = \"t\"\n");
        for (i, g) in globs.iter().enumerate() {
            toml.push_str(&format!(
                "[[op]]\nslug = \"op-{i}\"\ntitle = \"t\"\nsota = \"s\"\nfiles = ['{g}']\n"
            ));
        }
        let m = Matrix::from_str(&toml, "sota.toml").unwrap();
        let matchers: Vec<GlobMatcher> = m
            .ops
            .iter()
            .map(|op| op.files[0].value.globset_glob().compile_matcher())
            .collect();
        let names = [
            "k.cu", "l.cu", "a.cu", "b.cu", "ka.cu", "k*.cu", "x.cu", "x.cuh", "f.tar.gz", ".cu",
            "kk", "m.rs", "k.cu.bak", "k", "kcu",
        ];
        let mut paths = Vec::new();
        for d in ["", "a/", "a/b/", "a/b/c/", "src/x.y/", "src/x.y/a/", "z/"] {
            for n in names {
                paths.push(format!("{d}{n}"));
            }
        }
        paths.sort();
        let mut idx = OpIndex::new(&m).unwrap();
        for path in &paths {
            let expect: Vec<(usize, usize)> = matchers
                .iter()
                .enumerate()
                .filter(|(_, mt)| mt.is_match(path))
                .map(|(i, _)| (i, 0))
                .collect();
            assert_eq!(idx.all_hits(path.as_bytes()), expect.as_slice(), "{path}");
        }
    }
}
