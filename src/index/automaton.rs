//! All globs of a matrix compiled into one segment automaton: a trie over
//! path segments whose edges are literal names (one hash lookup), distinct
//! wildcard segment patterns (each tested at most once per segment), "any
//! one segment", and `**` (an epsilon edge into a node that loops on every
//! segment). A path is run one segment at a time over the *set* of live
//! nodes, an NFA simulation; [`Walker`] keeps the set for every directory
//! of the previous path, so a sorted listing pays per directory, and per
//! file only for the last segment.
//!
//! Wildcard edges out of a node are filed by the file extension every
//! match must have (`*.cu`, `op*_*.h`), so a name consults only the
//! patterns that can match its extension.

use rustc_hash::FxHashMap;

use crate::glob::pattern::SegPattern;
use crate::glob::syntax::{Seg, Tok};

pub type NodeId = u32;

#[derive(Default)]
struct Node {
    lits: FxHashMap<Box<[u8]>, NodeId>,
    /// Wildcard edges (pattern id, target) by required extension.
    by_ext: FxHashMap<Box<[u8]>, Vec<(u32, NodeId)>>,
    /// Wildcard edges with no fixed extension.
    pats: Vec<(u32, NodeId)>,
    /// `*` alone: any one segment.
    any_one: Option<NodeId>,
    /// `**`: epsilon edge to a looping node.
    any: Option<NodeId>,
    /// Whether every segment leads back here (the target of a `**`).
    looping: bool,
    /// Owners whose glob ends here.
    accept: Vec<u32>,
}

/// The compiled automaton.
#[derive(Default)]
pub struct Automaton {
    nodes: Vec<Node>,
    pats: Vec<SegPattern>,
    pat_ids: FxHashMap<Vec<Tok>, u32>,
    pat_edges: FxHashMap<(NodeId, u32), NodeId>,
}

impl Automaton {
    pub fn new() -> Automaton {
        Automaton {
            nodes: vec![Node::default()],
            ..Automaton::default()
        }
    }

    fn add_node(&mut self) -> NodeId {
        self.nodes.push(Node::default());
        (self.nodes.len() - 1) as NodeId
    }

    /// Add one plain alternative (segments from [`crate::glob::syntax`]),
    /// accepting for `owner`.
    pub fn insert(&mut self, segs: &[Seg], owner: u32) {
        let mut cur: NodeId = 0;
        for seg in segs {
            cur = match seg {
                Seg::Lit(name) => match self.nodes[cur as usize].lits.get(name.as_bytes()) {
                    Some(&t) => t,
                    None => {
                        let t = self.add_node();
                        self.nodes[cur as usize]
                            .lits
                            .insert(name.as_bytes().into(), t);
                        t
                    }
                },
                Seg::AnyOne => match self.nodes[cur as usize].any_one {
                    Some(t) => t,
                    None => {
                        let t = self.add_node();
                        self.nodes[cur as usize].any_one = Some(t);
                        t
                    }
                },
                Seg::Any => match self.nodes[cur as usize].any {
                    Some(t) => t,
                    None => {
                        let t = self.add_node();
                        self.nodes[t as usize].looping = true;
                        self.nodes[cur as usize].any = Some(t);
                        t
                    }
                },
                Seg::Pat(toks) => {
                    let pat = match self.pat_ids.get(toks) {
                        Some(&p) => p,
                        None => {
                            self.pats.push(SegPattern::new(toks.clone()));
                            let p = (self.pats.len() - 1) as u32;
                            self.pat_ids.insert(toks.clone(), p);
                            p
                        }
                    };
                    match self.pat_edges.get(&(cur, pat)) {
                        Some(&t) => t,
                        None => {
                            let t = self.add_node();
                            self.pat_edges.insert((cur, pat), t);
                            let node = &mut self.nodes[cur as usize];
                            match self.pats[pat as usize].extension() {
                                Some(ext) => {
                                    node.by_ext.entry(ext.into()).or_default().push((pat, t))
                                }
                                None => node.pats.push((pat, t)),
                            }
                            t
                        }
                    }
                }
            };
        }
        let accept = &mut self.nodes[cur as usize].accept;
        if accept.last() != Some(&owner) {
            accept.push(owner);
        }
    }

    /// The live set before any segment: the root and what `**` reaches.
    pub fn start(&self, out: &mut Vec<NodeId>) {
        out.clear();
        out.push(0);
        self.close(out);
    }

    /// Add the `**` targets of the nodes in `set`, then sort and dedup.
    fn close(&self, set: &mut Vec<NodeId>) {
        for i in 0..set.len() {
            if let Some(t) = self.nodes[set[i] as usize].any {
                set.push(t);
            }
        }
        set.sort_unstable();
        set.dedup();
    }

    /// The live set after one more segment.
    pub fn step(&self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        out.clear();
        memo.next(self.pats.len());
        let ext = extension(seg);
        for &n in from {
            let node = &self.nodes[n as usize];
            if node.looping {
                out.push(n);
            }
            if let Some(t) = node.any_one {
                out.push(t);
            }
            if !node.lits.is_empty() {
                if let Some(&t) = node.lits.get(seg) {
                    out.push(t);
                }
            }
            if let Some(ext) = ext {
                if !node.by_ext.is_empty() {
                    if let Some(edges) = node.by_ext.get(ext) {
                        self.follow(edges, seg, memo, out);
                    }
                }
            }
            self.follow(&node.pats, seg, memo, out);
        }
        self.close(out);
    }

    fn follow(&self, edges: &[(u32, NodeId)], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        for &(p, t) in edges {
            if memo.test(p, || self.pats[p as usize].is_match(seg)) {
                out.push(t);
            }
        }
    }

    /// Owners accepted by a live set (unsorted, may repeat).
    pub fn accepted<'a>(&'a self, set: &'a [NodeId]) -> impl Iterator<Item = u32> + 'a {
        set.iter()
            .flat_map(|&n| self.nodes[n as usize].accept.iter().copied())
    }
}

/// The text after the last `.` of a name, if it has one.
fn extension(seg: &[u8]) -> Option<&[u8]> {
    memchr::memrchr(b'.', seg).map(|i| &seg[i + 1..])
}

/// Each distinct pattern tested at most once per segment, across all live
/// nodes (generation-stamped, so nothing is cleared per segment).
#[derive(Default)]
pub struct Memo {
    generation: u32,
    stamp: Vec<u32>,
    value: Vec<bool>,
}

impl Memo {
    fn next(&mut self, pats: usize) {
        if self.stamp.len() < pats {
            self.stamp.resize(pats, 0);
            self.value.resize(pats, false);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
    }

    fn test(&mut self, p: u32, f: impl FnOnce() -> bool) -> bool {
        let i = p as usize;
        if self.stamp[i] != self.generation {
            self.stamp[i] = self.generation;
            self.value[i] = f();
        }
        self.value[i]
    }
}

/// Runs paths through an automaton, keeping the live set of each directory
/// of the previous path.
#[derive(Default)]
pub struct Walker {
    /// The previous path's directory, with its trailing `/`.
    dir: Vec<u8>,
    /// End offset (after the `/`) of each component of `dir`.
    ends: Vec<usize>,
    /// `sets[i]`: the live set after the first `i` components.
    sets: Vec<Vec<NodeId>>,
    memo: Memo,
    last: Vec<NodeId>,
}

impl Walker {
    /// The live set after a whole path (`/`-separated, no leading `/`).
    pub fn run<'w>(&'w mut self, auto: &Automaton, path: &[u8]) -> &'w [NodeId] {
        let split = memchr::memrchr(b'/', path).map_or(0, |i| i + 1);
        let (dir, name) = path.split_at(split);
        self.enter(auto, dir);
        let from = self.sets.last().expect("the start set");
        if from.is_empty() {
            self.last.clear();
        } else {
            auto.step(from, name, &mut self.memo, &mut self.last);
        }
        &self.last
    }

    /// Move the directory stack to `dir`, reusing the common components.
    fn enter(&mut self, auto: &Automaton, dir: &[u8]) {
        if self.sets.is_empty() {
            let mut start = Vec::new();
            auto.start(&mut start);
            self.sets.push(start);
        }
        let mut keep = 0;
        let mut begin = 0;
        for &end in &self.ends {
            if dir.len() < end || dir[begin..end] != self.dir[begin..end] {
                break;
            }
            keep += 1;
            begin = end;
        }
        self.ends.truncate(keep);
        self.sets.truncate(keep + 1);
        self.dir.truncate(begin);
        self.dir.extend_from_slice(&dir[begin..]);
        while begin < dir.len() {
            let end = memchr::memchr(b'/', &dir[begin..]).map_or(dir.len(), |i| begin + i + 1);
            let comp = &dir[begin..end - 1];
            let from = self.sets.last().expect("the start set");
            let mut next = Vec::new();
            if !from.is_empty() {
                auto.step(from, comp, &mut self.memo, &mut next);
            }
            self.sets.push(next);
            self.ends.push(end);
            begin = end;
        }
    }
}
