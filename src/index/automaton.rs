//! All globs of a matrix compiled into one segment automaton: a trie over
//! path segments whose edges are literal names (one hash lookup), distinct
//! wildcard segment patterns (each tested at most once per segment), "any
//! one segment", and `**` (an epsilon edge into a node that loops on every
//! segment). A path is run one segment at a time over the *set* of live
//! nodes, an NFA simulation; [`Walker`] keeps the set for every directory
//! of the previous path, so a sorted listing pays per directory, and per
//! file only for the last segment.
//!
//! Compiled lazily: a glob waits under its first literal segment until a
//! path steps through that name, then under the next one, and so on; a
//! wildcard remainder is parsed and inserted when its node first becomes
//! live. A lookup or a gate compiles the globs of the directories it
//! touches, not all of them; a glob opening with a brace group is split
//! into its branches first, so `{csrc/x/**,include/x/y*.cuh}` waits under
//! `csrc` and `include` like any other.
//!
//! Wildcard edges out of a node are filed by the literal prefix or the
//! file extension every match must have (`mod7_*.py`, `*.cu`), so a name
//! consults only the patterns that can match it.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use crate::glob::pattern::SegPattern;
use crate::glob::syntax::{self, Seg, Tok};

pub type NodeId = u32;

type Edges = Vec<(u32, NodeId)>;

/// Globs waiting under a literal name: (owner, the text after its `/`, or
/// `None` when the glob ends with that name).
type Waiting<'m> = Vec<(u32, Option<Cow<'m, str>>)>;

/// Wildcard edges by literal prefix, for one prefix length.
type PrefixMap = (usize, FxHashMap<Box<[u8]>, Edges>);

/// No node, no wildcard table, no accept list.
const NONE: u32 = u32::MAX;

/// Every segment leads back here (the target of a `**`).
const LOOPING: u8 = 1;
/// Some literal edge leaves this node ([`Automaton::lits`]).
const HAS_LITS: u8 = 2;
/// Globs wait here whose next segment is not a literal name
/// ([`Automaton::pending`]).
const PENDING: u8 = 4;
/// Globs wait here under a literal next segment
/// ([`Automaton::pending_lits`]).
const PENDING_LITS: u8 = 8;

/// One automaton state: 20 bytes. What most nodes lack (literal edges,
/// wildcard edges, waiting globs) lives in tables of the [`Automaton`]
/// keyed by node, so a trie of 17,000 nodes is 340 KB, not 3.7 MB of
/// mostly empty hash maps.
#[derive(Clone, Copy)]
struct Node {
    /// `*` alone: any one segment.
    any_one: NodeId,
    /// `**`: epsilon edge to a looping node.
    any: NodeId,
    /// Index into [`Automaton::wilds`].
    wild: u32,
    /// Head of this node's accept list in [`Automaton::accepts`].
    accept: u32,
    flags: u8,
}

impl Default for Node {
    fn default() -> Node {
        Node {
            any_one: NONE,
            any: NONE,
            wild: NONE,
            accept: NONE,
            flags: 0,
        }
    }
}

impl Node {
    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// The key of a literal edge: its source node and interned name.
fn lit_key(node: NodeId, name: u32) -> u64 {
    (u64::from(node) << 32) | u64::from(name)
}

/// Wildcard edges of one node, filed for lookup by name.
#[derive(Default)]
struct Wild {
    /// By literal prefix, one map per prefix length.
    by_prefix: Vec<PrefixMap>,
    /// By required extension (no useful prefix).
    by_ext: FxHashMap<Box<[u8]>, Edges>,
    /// Neither.
    plain: Edges,
}

impl Wild {
    fn add(&mut self, pat: &SegPattern, edge: (u32, NodeId)) {
        let prefix = pat.prefix();
        let ext = pat.extension();
        if prefix.len() >= 2 || (!prefix.is_empty() && ext.is_none()) {
            let len = prefix.len();
            let i = match self.by_prefix.iter().position(|(l, _)| *l == len) {
                Some(i) => i,
                None => {
                    self.by_prefix.push((len, FxHashMap::default()));
                    self.by_prefix.len() - 1
                }
            };
            self.by_prefix[i]
                .1
                .entry(prefix.into())
                .or_default()
                .push(edge);
        } else if let Some(ext) = ext {
            self.by_ext.entry(ext.into()).or_default().push(edge);
        } else {
            self.plain.push(edge);
        }
    }

    /// The edges whose pattern could match `seg`.
    fn candidates<'a>(&'a self, seg: &'a [u8]) -> impl Iterator<Item = &'a (u32, NodeId)> + 'a {
        let by_prefix = self
            .by_prefix
            .iter()
            .filter(move |(len, _)| seg.len() >= *len)
            .filter_map(move |(len, map)| map.get(&seg[..*len]))
            .flatten();
        let by_ext = if self.by_ext.is_empty() {
            None
        } else {
            extension(seg).and_then(|e| self.by_ext.get(e))
        };
        by_prefix
            .chain(by_ext.into_iter().flatten())
            .chain(&self.plain)
    }
}

/// The compiled automaton.
pub struct Automaton<'m> {
    nodes: Vec<Node>,
    /// Literal edges, all nodes in one table: ([`lit_key`]) → child.
    lits: FxHashMap<u64, NodeId>,
    /// The names of literal edges, interned (a path segment is looked up
    /// once per step, then each live node by integer key).
    names: FxHashMap<Box<[u8]>, u32>,
    /// Wildcard edges of the nodes that have some.
    wilds: Vec<Wild>,
    /// Accept lists, linked: (owner, next entry or [`NONE`]).
    accepts: Vec<(u32, u32)>,
    /// Globs waiting at a node whose next segment is not a literal name:
    /// (owner, the rest of the glob text), inserted when the node first
    /// becomes live.
    pending: FxHashMap<NodeId, Vec<(u32, Cow<'m, str>)>>,
    /// Globs waiting at a node under a literal next segment: by that name,
    /// (owner, the text after its `/`, or `None` when the glob ends with
    /// it).
    pending_lits: FxHashMap<NodeId, FxHashMap<Cow<'m, str>, Waiting<'m>>>,
    pats: Vec<SegPattern>,
    pat_ids: FxHashMap<Vec<Tok>, u32>,
    pat_edges: FxHashMap<(NodeId, u32), NodeId>,
}

impl<'m> Automaton<'m> {
    pub fn new() -> Automaton<'m> {
        Automaton {
            nodes: vec![Node::default()],
            lits: FxHashMap::default(),
            names: FxHashMap::default(),
            wilds: Vec::new(),
            accepts: Vec::new(),
            pending: FxHashMap::default(),
            pending_lits: FxHashMap::default(),
            pats: Vec::new(),
            pat_ids: FxHashMap::default(),
            pat_edges: FxHashMap::default(),
        }
    }

    fn add_node(&mut self) -> NodeId {
        self.nodes.push(Node::default());
        (self.nodes.len() - 1) as NodeId
    }

    fn lit_child(&mut self, cur: NodeId, name: &[u8]) -> NodeId {
        let id = match self.names.get(name) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.insert(name.into(), id);
                id
            }
        };
        let key = lit_key(cur, id);
        match self.lits.get(&key) {
            Some(&t) => t,
            None => {
                let t = self.add_node();
                self.lits.insert(key, t);
                self.nodes[cur as usize].flags |= HAS_LITS;
                t
            }
        }
    }

    /// Accept for `owner` at `node` (once, for consecutive repeats).
    fn accept(&mut self, node: NodeId, owner: u32) {
        let head = self.nodes[node as usize].accept;
        if head != NONE && self.accepts[head as usize].0 == owner {
            return;
        }
        self.accepts.push((owner, head));
        self.nodes[node as usize].accept = (self.accepts.len() - 1) as u32;
    }

    /// Add a validated glob, accepting for `owner`. Nothing is parsed yet:
    /// the glob waits under its first segment.
    pub fn add(&mut self, text: &'m str, owner: u32) {
        self.add_at(0, Cow::Borrowed(text), owner);
    }

    /// Add glob text relative to `node` (below a directory unless `node`
    /// is the root). A literal first segment files the rest under that
    /// name, expanded when a path first steps through it; anything else
    /// waits in the node's `pending` list until the node becomes live.
    fn add_at(&mut self, node: NodeId, text: Cow<'m, str>, owner: u32) {
        if text.is_empty() {
            // Below a directory, nothing left means the glob ended in `/`.
            let segs = if node == 0 {
                vec![Seg::Lit(String::new())]
            } else {
                vec![Seg::AnyOne, Seg::Any]
            };
            self.insert(node, &segs, owner);
            return;
        }
        let end = memchr::memchr(b'/', text.as_bytes()).unwrap_or(text.len());
        if text.as_bytes()[..end]
            .iter()
            .any(|&b| b == b'}' || syntax::META.contains(&char::from(b)))
        {
            self.pending.entry(node).or_default().push((owner, text));
            self.nodes[node as usize].flags |= PENDING;
            return;
        }
        let (name, rest) = match text {
            Cow::Borrowed(t) => (
                Cow::Borrowed(&t[..end]),
                t.get(end + 1..).map(Cow::Borrowed),
            ),
            Cow::Owned(t) => (
                Cow::Owned(t[..end].to_owned()),
                t.get(end + 1..).map(|r| Cow::Owned(r.to_owned())),
            ),
        };
        self.pending_lits
            .entry(node)
            .or_default()
            .entry(name)
            .or_default()
            .push((owner, rest));
        self.nodes[node as usize].flags |= PENDING_LITS;
    }

    /// Expand what waits under the literal name `seg` at `node`.
    fn expand_lit(&mut self, node: NodeId, seg: &[u8]) {
        let Ok(name) = std::str::from_utf8(seg) else {
            return;
        };
        let Some(by_name) = self.pending_lits.get_mut(&node) else {
            return;
        };
        let Some(waiting) = by_name.remove(name) else {
            return;
        };
        if by_name.is_empty() {
            self.pending_lits.remove(&node);
            self.nodes[node as usize].flags &= !PENDING_LITS;
        }
        let child = self.lit_child(node, seg);
        for (owner, rest) in waiting {
            match rest {
                Some(rest) => self.add_at(child, rest, owner),
                None => self.accept(child, owner),
            }
        }
    }

    /// Insert the pending globs of a node. A glob with a brace group is
    /// split into the group's branches, each deferred again under its own
    /// literal prefix; a glob without braces is split into segments and
    /// inserted (one with a class or an escape is parsed and expanded).
    fn materialize(&mut self, node: NodeId) {
        while let Some((owner, rest)) = self.pending.get_mut(&node).and_then(Vec::pop) {
            if !rest.bytes().any(|b| matches!(b, b'[' | b'\\')) {
                // No classes or escapes (most globs): every character is a
                // token, so braces expand as text, a group at a time, each
                // branch deferred again under its own literal prefix
                // (`{csrc/x/**,include/x/y*.cuh}` waits under `csrc` and
                // `include` like any other glob); without braces the text
                // splits into segments directly, no parse tree.
                match split_first_group(&rest) {
                    Some(branches) => {
                        for b in branches {
                            self.add_at(node, Cow::Owned(b), owner);
                        }
                    }
                    None => self.insert(node, &syntax::plain_segments(&rest), owner),
                }
                continue;
            }
            // Validated at load; a failure would be a bug, and then the
            // glob matches nothing rather than panic.
            let Ok(items) = syntax::parse(&rest) else {
                continue;
            };
            for alt in syntax::expand(&items).unwrap_or_default() {
                if alt.is_empty() && node != 0 {
                    // `dir/{,x}`: the empty branch leaves `dir/`, a
                    // trailing `/`.
                    self.insert(node, &[Seg::AnyOne, Seg::Any], owner);
                } else {
                    self.insert(node, &syntax::segments(&alt), owner);
                }
            }
        }
        // Inserting never adds to this node's own list (a brace branch
        // with a wildcard first segment does, and the loop takes it).
        self.pending.remove(&node);
        self.nodes[node as usize].flags &= !PENDING;
    }

    /// Insert one plain alternative from `cur`.
    fn insert(&mut self, mut cur: NodeId, segs: &[Seg], owner: u32) {
        for seg in segs {
            cur = match seg {
                Seg::Lit(name) => self.lit_child(cur, name.as_bytes()),
                Seg::AnyOne => match self.nodes[cur as usize].any_one {
                    NONE => {
                        let t = self.add_node();
                        self.nodes[cur as usize].any_one = t;
                        t
                    }
                    t => t,
                },
                Seg::Any => match self.nodes[cur as usize].any {
                    NONE => {
                        let t = self.add_node();
                        self.nodes[t as usize].flags |= LOOPING;
                        self.nodes[cur as usize].any = t;
                        t
                    }
                    t => t,
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
                            let mut w = self.nodes[cur as usize].wild;
                            if w == NONE {
                                w = self.wilds.len() as u32;
                                self.wilds.push(Wild::default());
                                self.nodes[cur as usize].wild = w;
                            }
                            self.wilds[w as usize].add(&self.pats[pat as usize], (pat, t));
                            t
                        }
                    }
                }
            };
        }
        self.accept(cur, owner);
    }

    /// Compile everything that still waits (every pending glob, every
    /// literal name), so the automaton can be shared read-only
    /// ([`Frozen`]) by walkers that each hold their own [`Walker`]. Edges
    /// only lead to nodes created after their source (a `**` node's loop
    /// aside), so one pass in creation order reaches every node, and a
    /// node is done once its own lists are empty.
    pub fn compile_all(&mut self) {
        // About three nodes and literal edges per glob: grow the tables
        // once, not by doubling and copying.
        let globs = self.pending.values().map(Vec::len).sum::<usize>()
            + self
                .pending_lits
                .values()
                .flat_map(|m| m.values())
                .map(Vec::len)
                .sum::<usize>();
        self.nodes.reserve(3 * globs);
        self.lits.reserve(3 * globs);
        let mut i = 0;
        while i < self.nodes.len() {
            let n = i as NodeId;
            if self.nodes[i].has(PENDING) {
                self.materialize(n);
            }
            if self.nodes[i].has(PENDING_LITS) {
                // Every name waiting here at once (a path would expand one
                // at a time, [`Automaton::expand_lit`]): the children are
                // other nodes, so nothing is added to this list meanwhile.
                self.nodes[i].flags &= !PENDING_LITS;
                for (name, waiting) in self.pending_lits.remove(&n).unwrap_or_default() {
                    let child = self.lit_child(n, name.as_bytes());
                    for (owner, rest) in waiting {
                        match rest {
                            Some(rest) => self.add_at(child, rest, owner),
                            None => self.accept(child, owner),
                        }
                    }
                }
            }
            if !self.nodes[i].has(PENDING | PENDING_LITS) {
                i += 1;
            }
        }
    }

    /// The live set before any segment: the root and what `**` reaches.
    pub fn start(&mut self, out: &mut Vec<NodeId>) {
        out.clear();
        out.push(0);
        self.close(out);
    }

    /// Make the nodes of `set` complete (pending globs inserted), add the
    /// `**` targets, then sort and dedup.
    fn close(&mut self, set: &mut Vec<NodeId>) {
        for &n in set.iter() {
            if self.nodes[n as usize].has(PENDING) {
                self.materialize(n);
            }
        }
        self.close_eps(set);
    }

    /// Add the `**` targets of a set of complete nodes, then sort and
    /// dedup. A `**` target is a fresh node, never pending, and never has
    /// a `**` edge itself (they collapse).
    fn close_eps(&self, set: &mut Vec<NodeId>) {
        for i in 0..set.len() {
            let t = self.nodes[set[i] as usize].any;
            if t != NONE {
                set.push(t);
            }
        }
        set.sort_unstable();
        set.dedup();
    }

    /// The live set after one more segment.
    pub fn step(&mut self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        for &n in from {
            if self.nodes[n as usize].has(PENDING_LITS) {
                self.expand_lit(n, seg);
            }
        }
        self.advance(from, seg, memo, out);
        self.close(out);
    }

    /// The nodes one segment reaches from complete nodes (before the `**`
    /// closure).
    fn advance(&self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        out.clear();
        memo.next(self.pats.len());
        // The segment's name id, looked up once, when a live node has
        // literal edges (`None` inside: no literal edge has this name).
        let mut name: Option<Option<u32>> = None;
        for &n in from {
            let node = &self.nodes[n as usize];
            if node.has(LOOPING) {
                out.push(n);
            }
            if node.any_one != NONE {
                out.push(node.any_one);
            }
            if node.has(HAS_LITS) {
                if let Some(id) = *name.get_or_insert_with(|| self.names.get(seg).copied()) {
                    if let Some(&t) = self.lits.get(&lit_key(n, id)) {
                        out.push(t);
                    }
                }
            }
            if node.wild != NONE {
                for &(p, t) in self.wilds[node.wild as usize].candidates(seg) {
                    if memo.test(p, || self.pats[p as usize].is_match(seg)) {
                        out.push(t);
                    }
                }
            }
        }
    }

    /// Owners accepted by a live set (unsorted, may repeat).
    pub fn accepted<'a>(&'a self, set: &'a [NodeId]) -> impl Iterator<Item = u32> + 'a {
        let (nodes, accepts) = (&self.nodes, &self.accepts);
        set.iter().flat_map(move |&n| {
            let mut at = nodes[n as usize].accept;
            std::iter::from_fn(move || {
                let &(owner, next) = accepts.get(at as usize)?;
                at = next;
                Some(owner)
            })
        })
    }
}

/// What a [`Walker`] runs paths over: the lazy [`Automaton`] (compiling
/// what a path reaches as it goes), or a [`Frozen`] one compiled in full.
pub trait Step {
    /// The live set before any segment.
    fn start(&mut self, out: &mut Vec<NodeId>);
    /// The live set after one more segment.
    fn step(&mut self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>);
    /// [`Step::step`] for a path's last segment: the set only feeds
    /// [`Automaton::accepted`], so it may be unsorted and hold repeats.
    fn last_step(&mut self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        self.step(from, seg, memo, out);
    }
}

impl Step for Automaton<'_> {
    fn start(&mut self, out: &mut Vec<NodeId>) {
        Automaton::start(self, out);
    }

    fn step(&mut self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        Automaton::step(self, from, seg, memo, out);
    }
}

/// A fully compiled automaton ([`Automaton::compile_all`]), read-only.
#[derive(Clone, Copy)]
pub struct Frozen<'a, 'm>(&'a Automaton<'m>);

impl<'m> Automaton<'m> {
    /// This automaton, read-only, once [`Automaton::compile_all`] has
    /// left nothing waiting (a frozen step never compiles).
    pub fn frozen(&self) -> Frozen<'_, 'm> {
        debug_assert!(self.pending.is_empty() && self.pending_lits.is_empty());
        Frozen(self)
    }
}

impl<'m> Frozen<'_, 'm> {
    pub fn automaton(&self) -> &Automaton<'m> {
        self.0
    }
}

impl Step for Frozen<'_, '_> {
    fn start(&mut self, out: &mut Vec<NodeId>) {
        out.clear();
        out.push(0);
        self.0.close_eps(out);
    }

    fn step(&mut self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        self.0.advance(from, seg, memo, out);
        self.0.close_eps(out);
    }

    fn last_step(&mut self, from: &[NodeId], seg: &[u8], memo: &mut Memo, out: &mut Vec<NodeId>) {
        self.0.advance(from, seg, memo, out);
        // The `**` targets, without the sort and dedup a set that is
        // stepped again needs.
        for i in 0..out.len() {
            let t = self.0.nodes[out[i] as usize].any;
            if t != NONE {
                out.push(t);
            }
        }
    }
}

/// Whether glob `text` may match `path`, judged from its literal parts:
/// its literal end ([`literal_end_holds`]), its literal start (the
/// segments before its first wildcard are plain names, each of which must
/// be the path's segment at the same place, so a path outside that
/// directory, and not the directory itself, never matches; a brace group
/// there is judged by its branches' own literal starts,
/// `{csrc/x/**,include/x/y*.cuh}`), its last segment's literal start
/// ([`last_segment_start_holds`]: `src/cpu/*/gemm/mod7_*.cpp` needs a
/// file name starting `mod7_`), and its plain segments past a wildcard
/// ([`plain_segments_hold`]: `csrc/**/mod7/**` needs a `mod7` segment).
/// `true` means only "cannot be ruled out": the automaton decides. Each
/// test stops at the first byte that rules the glob out, so most globs
/// cost a few bytes.
pub fn may_reach(text: &str, path: &[u8]) -> bool {
    let t = text.as_bytes();
    // Without a class or an escape, every `{`, `}` and `/` is what it
    // looks like; with one, only the literal start and end are judged
    // (the rest needs the full parser).
    let simple = memchr::memchr2(b'[', b'\\', t).is_none();
    literal_end_holds(t, path)
        && literal_start_holds(t, path, simple)
        && (!simple || (last_segment_start_holds(t, path) && plain_segments_hold(t, path)))
}

/// Whether the path's last segment starts with the literal start of the
/// glob's last segment (the text after its last `/`, up to its first `*`
/// or `?`). Judged only when that segment has no brace, so the `/` before
/// it is outside any group and every expansion ends with it, matched
/// against the path's last segment; not for a glob ending in `/` (a
/// directory). For a glob with no class or escape.
fn last_segment_start_holds(glob: &[u8], path: &[u8]) -> bool {
    let last = &glob[memchr::memrchr(b'/', glob).map_or(0, |i| i + 1)..];
    if memchr::memchr2(b'{', b'}', last).is_some() {
        return true;
    }
    let start = &last[..memchr::memchr2(b'*', b'?', last).unwrap_or(last.len())];
    let path_last = &path[memchr::memrchr(b'/', path).map_or(0, |i| i + 1)..];
    path_last.starts_with(start)
}

/// Whether `path` is under the glob's literal start, or a brace group
/// there has a branch whose literal start it is under (judged only for a
/// `simple` glob, one with no class or escape).
fn literal_start_holds(t: &[u8], path: &[u8], simple: bool) -> bool {
    if let Some(verdict) = literal_start(t, &[], path, 0) {
        return verdict;
    }
    // A group opens after a literal start the path shares (`at` bytes).
    // Its bounds are plain text only without classes and escapes.
    if !simple {
        return true;
    }
    let Some((at, close)) = first_group(t) else {
        return true;
    };
    let tail = &t[close + 1..];
    group_branches(t, at, close)
        .any(|branch| literal_start(&t[branch], tail, path, at).unwrap_or(true))
}

/// Whether `path` ends with the glob's literal end: the bytes after its
/// last wildcard, class, group or escape, less a leading `/` (a `**`
/// before it may match no segment at all). A glob ending in `/` (a
/// directory: everything under it) has none.
///
/// Compared from the end, in step with the path, so a glob is ruled out at
/// the first byte that differs (for most, the last or the one before).
fn literal_end_holds(glob: &[u8], path: &[u8]) -> bool {
    if glob.last() == Some(&b'/') {
        return true;
    }
    let ends_end = |b: u8| ends_literal(b) || b == b']';
    let mut p = path.len();
    for (g, &b) in glob.iter().enumerate().rev() {
        if ends_end(b) {
            return true;
        }
        if p == 0 || path[p - 1] != b {
            // The literal end's first byte, when a `/`, is not required.
            return b == b'/' && g > 0 && ends_end(glob[g - 1]);
        }
        p -= 1;
    }
    true
}

/// Whether each of the glob's plain segments is a segment of `path`. A
/// plain segment is delimited by `/` (or an end) outside any brace group
/// and holds no wildcard or group: in every expansion of the braces it is
/// a whole glob segment that is neither `*`-like nor `**`, so it matches
/// exactly one path segment, itself. For a glob with no class or escape
/// (their brackets and backslashes need the full parser).
fn plain_segments_hold(glob: &[u8], path: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut start = 0;
    let mut plain = true;
    for (i, &b) in glob.iter().chain(b"/").enumerate() {
        match b {
            b'{' => {
                depth += 1;
                plain = false;
            }
            // The segment holding a `}` holds its `{`: not plain already.
            b'}' => depth = depth.saturating_sub(1),
            b'*' | b'?' => plain = false,
            b'/' if depth == 0 => {
                let segment = &glob[start..i];
                if plain && !segment.is_empty() && !path.split(|&c| c == b'/').any(|s| s == segment)
                {
                    return false;
                }
                start = i + 1;
                plain = true;
            }
            _ => {}
        }
    }
    true
}

/// Glob bytes that end a literal start.
fn ends_literal(b: u8) -> bool {
    matches!(b, b'*' | b'?' | b'[' | b'{' | b'}' | b'\\')
}

/// [`may_reach`] for the glob bytes `head` then `tail` against
/// `path[from..]`: `None` when a brace group opens before anything is
/// decided. Let D be the glob's literal start up to its last `/`: the path
/// must be D or lie under it. (Two slices, so a group's branch and the
/// text after the group are judged without joining them.)
fn literal_start(head: &[u8], tail: &[u8], path: &[u8], from: usize) -> Option<bool> {
    let len = head.len() + tail.len();
    let byte = |k: usize| {
        if k < head.len() {
            head[k]
        } else {
            tail[k - head.len()]
        }
    };
    let mut i = from;
    for k in 0..len {
        let g = byte(k);
        if g == b'{' {
            return None;
        }
        if ends_literal(g) {
            return Some(true);
        }
        if path.get(i) == Some(&g) {
            i += 1;
            continue;
        }
        // D reaches this byte if a `/` is still to come before a
        // wildcard; then the path, which differs or ends here, is not
        // under D (it is D itself only if it ends at D's `/`).
        let more_dirs = (k + 1..len)
            .map(byte)
            .take_while(|&b| !ends_literal(b))
            .any(|b| b == b'/');
        return Some(if i < path.len() {
            g != b'/' && !more_dirs
        } else {
            !more_dirs
        });
    }
    Some(true)
}

/// The first brace group of `text`: where it opens and where it closes.
/// For text with no class or escape (those need the full parser to tell a
/// brace from a literal one).
fn first_group(text: &[u8]) -> Option<(usize, usize)> {
    let open = memchr::memchr(b'{', text)?;
    let mut depth = 0usize;
    for (i, &b) in text.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((open, i));
                }
            }
            _ => {}
        }
    }
    None
}

/// The branches (byte ranges) of the group [`first_group`] found at
/// `open..=close`: the text between its own commas, nested groups whole.
fn group_branches(
    text: &[u8],
    open: usize,
    close: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut depth = 0usize;
    let mut start = open + 1;
    (open + 1..=close).filter_map(move |i| match text[i] {
        b'{' => {
            depth += 1;
            None
        }
        b'}' if depth > 0 => {
            depth -= 1;
            None
        }
        b',' | b'}' if depth == 0 => {
            let branch = start..i;
            start = i + 1;
            Some(branch)
        }
        _ => None,
    })
}

/// `x{a,b}rest` → `xarest`, `xbrest`: the branches of the text's first
/// brace group ([`first_group`]), for text with no class or escape (the
/// caller uses the full parser for those). `None` without a group.
fn split_first_group(text: &str) -> Option<Vec<String>> {
    let (open, close) = first_group(text.as_bytes())?;
    let (head, tail) = (&text[..open], &text[close + 1..]);
    Some(
        group_branches(text.as_bytes(), open, close)
            .map(|branch| {
                let branch = &text[branch];
                let mut alt = String::with_capacity(head.len() + branch.len() + tail.len());
                alt.push_str(head);
                alt.push_str(branch);
                alt.push_str(tail);
                alt
            })
            .collect(),
    )
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
    /// `sets[i]`: the live set after the first `i` components, for `i`
    /// below `depth`; the vectors past it are kept for reuse, so moving
    /// between directories allocates nothing once the deepest was seen.
    sets: Vec<Vec<NodeId>>,
    depth: usize,
    memo: Memo,
    last: Vec<NodeId>,
}

impl Walker {
    /// The live set after a whole path (`/`-separated, no leading `/`),
    /// for [`Automaton::accepted`]: not sorted, and it may repeat a node
    /// ([`Step::last_step`]).
    pub fn run<'w, S: Step>(&'w mut self, auto: &mut S, path: &[u8]) -> &'w [NodeId] {
        let split = memchr::memrchr(b'/', path).map_or(0, |i| i + 1);
        let (dir, name) = path.split_at(split);
        self.enter(auto, dir);
        let from = &self.sets[self.depth - 1];
        if from.is_empty() {
            self.last.clear();
        } else {
            auto.last_step(from, name, &mut self.memo, &mut self.last);
        }
        &self.last
    }

    /// Move the directory stack to `dir`, reusing the common components.
    fn enter<S: Step>(&mut self, auto: &mut S, dir: &[u8]) {
        if self.depth == 0 {
            let mut start = Vec::new();
            auto.start(&mut start);
            self.sets.push(start);
            self.depth = 1;
        }
        if dir.len() == self.dir.len() && memchr::arch::all::is_equal(dir, &self.dir) {
            // The previous path's directory (most paths of a sorted
            // listing): every set is still live.
            return;
        }
        let mut keep = 0;
        let mut begin = 0;
        for &end in &self.ends {
            if dir.len() < end
                || !memchr::arch::all::is_equal(&dir[begin..end], &self.dir[begin..end])
            {
                break;
            }
            keep += 1;
            begin = end;
        }
        self.ends.truncate(keep);
        self.depth = keep + 1;
        self.dir.truncate(begin);
        self.dir.extend_from_slice(&dir[begin..]);
        while begin < dir.len() {
            let end = memchr::memchr(b'/', &dir[begin..]).map_or(dir.len(), |i| begin + i + 1);
            let comp = &dir[begin..end - 1];
            if self.sets.len() == self.depth {
                self.sets.push(Vec::new());
            }
            let (done, rest) = self.sets.split_at_mut(self.depth);
            let (from, next) = (&done[self.depth - 1], &mut rest[0]);
            next.clear();
            if !from.is_empty() {
                auto.step(from, comp, &mut self.memo, next);
            }
            self.depth += 1;
            self.ends.push(end);
            begin = end;
        }
    }
}
