//! One index over every op's `files` globs: "which ops match this path" in
//! one pass, never a loop of per-op matchers — fast enough for a gate over a
//! dozen staged files and for a scorecard over a million tracked files,
//! whatever shapes the globs have.
//!
//! Every glob is parsed once ([`crate::glob::syntax`]), its braces expanded,
//! and each alternative inserted into one segment automaton
//! ([`automaton`]); a path then costs one step per directory it does not
//! share with the previous path, plus one for its file name. Semantics are
//! held to a deliberately naive matcher written from SPEC section 2 by a
//! randomized differential test (`tests.rs`).

mod automaton;
#[cfg(test)]
pub(crate) mod reference;
#[cfg(test)]
mod tests;

use std::collections::hash_map::Entry;
use std::marker::PhantomData;

use rustc_hash::FxHashMap;

use crate::glob::{FileGlob, GlobError};
use crate::matrix::Matrix;

use automaton::{Automaton, Frozen, Walker};

/// The compiled `files` globs of a matrix (or any list of globs: the
/// coverage scorecard indexes the `[kernels]` population the same way).
pub struct OpIndex<'m> {
    auto: Automaton<'m>,
    /// Owner of each glob, by insertion order (the glob ids).
    owners: Vec<(usize, usize)>,
    same: SameText,
    walker: Walker,
    hits: Vec<(usize, usize)>,
    _globs: PhantomData<&'m FileGlob>,
}

impl std::fmt::Debug for OpIndex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpIndex")
            .field("globs", &self.owners.len())
            .finish_non_exhaustive()
    }
}

/// Every op's `files` globs, owned by (op index, glob index in its `files`).
fn owned_globs(matrix: &Matrix) -> impl Iterator<Item = ((usize, usize), &FileGlob)> {
    matrix.ops.iter().enumerate().flat_map(|(op_i, op)| {
        op.files
            .iter()
            .enumerate()
            .map(move |(glob_i, g)| ((op_i, glob_i), &g.value))
    })
}

/// One op matched by a path, with the glob that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpMatch {
    /// Index into `matrix.ops`.
    pub op: usize,
    /// Index into that op's `files`.
    pub glob: usize,
}

impl<'m> OpIndex<'m> {
    /// Compile every op's `files`. Owners are (op index, glob index in that
    /// op's `files`). Globs were validated at load, so this does not fail
    /// for a loaded matrix; the `Result` stays for globs built by hand.
    pub fn new(matrix: &'m Matrix) -> Result<OpIndex<'m>, GlobError> {
        Ok(Self::from_globs(owned_globs(matrix)))
    }

    /// [`OpIndex::new`] for a lookup of a few paths: only the globs that
    /// may match one of them are compiled ([`automaton::may_reach`] rules
    /// out a glob whose literal start or end, or one of whose plain
    /// segments, the paths do not have), so a one-file lookup on a
    /// 1,000-op matrix compiles tens of globs, not six thousand. For these
    /// paths it matches exactly what the full index does; for any other
    /// path it may miss.
    pub fn for_paths(matrix: &'m Matrix, paths: &[&str]) -> OpIndex<'m> {
        Self::from_globs_for_paths(owned_globs(matrix), paths)
    }

    /// [`OpIndex::for_paths`] over any globs.
    pub fn from_globs_for_paths<I>(globs_in: I, paths: &[&str]) -> OpIndex<'m>
    where
        I: IntoIterator<Item = ((usize, usize), &'m FileGlob)>,
    {
        Self::from_globs(globs_in.into_iter().filter(|(_, glob)| {
            paths
                .iter()
                .any(|path| automaton::may_reach(glob.as_str(), path.as_bytes()))
        }))
    }

    /// Compile any globs, each with an owner id reported back on a match.
    pub fn from_globs<I>(globs_in: I) -> OpIndex<'m>
    where
        I: IntoIterator<Item = ((usize, usize), &'m FileGlob)>,
    {
        Self::build(globs_in, false)
    }

    /// [`OpIndex::from_globs`], compiling a text that repeats an earlier
    /// glob's once: for an index that will be compiled in full
    /// ([`OpIndex::into_shared`]). A lookup compiles only what its path
    /// reaches, so finding the repeats would cost it more than it saves.
    pub fn with_shared_texts<I>(globs_in: I) -> OpIndex<'m>
    where
        I: IntoIterator<Item = ((usize, usize), &'m FileGlob)>,
    {
        Self::build(globs_in, true)
    }

    fn build<I>(globs_in: I, share_texts: bool) -> OpIndex<'m>
    where
        I: IntoIterator<Item = ((usize, usize), &'m FileGlob)>,
    {
        let mut auto = Automaton::new();
        let mut owners = Vec::new();
        let mut same = SameText::default();
        let mut first: FxHashMap<&'m str, u32> = FxHashMap::default();
        for (owner, glob) in globs_in {
            let id = owners.len() as u32;
            owners.push(owner);
            same.push();
            if !share_texts {
                auto.add(glob.as_str(), id);
                continue;
            }
            match first.entry(glob.as_str()) {
                Entry::Occupied(e) => same.link(*e.get(), id),
                Entry::Vacant(e) => {
                    e.insert(id);
                    auto.add(glob.as_str(), id);
                }
            }
        }
        OpIndex {
            auto,
            owners,
            same,
            walker: Walker::default(),
            hits: Vec::new(),
            _globs: PhantomData,
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

    fn collect_hits(&mut self, path: &[u8]) {
        let set = self.walker.run(&mut self.auto, path);
        collect(&self.auto, set, &self.same, &self.owners, &mut self.hits);
    }

    /// Compile every glob now (the coverage scan of a large tree, which
    /// reaches most of them): matching then goes through a [`Matcher`]
    /// that compiles nothing.
    pub fn into_shared(mut self) -> SharedIndex<'m> {
        self.auto.compile_all();
        SharedIndex {
            auto: self.auto,
            owners: self.owners,
            same: self.same,
        }
    }

    /// Whether any op matches the path.
    pub fn is_match(&mut self, path: &str) -> bool {
        !self.matches(path).is_empty()
    }

    /// Number of globs indexed.
    pub fn len(&self) -> usize {
        self.owners.len()
    }

    pub fn is_empty(&self) -> bool {
        self.owners.is_empty()
    }
}

/// Globs with the same text as an earlier one are compiled once
/// ([`OpIndex::with_shared_texts`]): the automaton accepts for the first,
/// and each id links to the next glob of that text (a matrix names
/// `csrc/attention/**` under several ops, or twice under one).
#[derive(Default)]
struct SameText {
    /// Per glob id: the next id with the same text, or [`NO_ID`].
    next: Vec<u32>,
    /// Per glob id that the automaton accepts for: the last id of its
    /// chain (so the chain keeps insertion order).
    last: Vec<u32>,
}

const NO_ID: u32 = u32::MAX;

impl SameText {
    fn push(&mut self) {
        let id = self.next.len() as u32;
        self.next.push(NO_ID);
        self.last.push(id);
    }

    /// `id` has the text of the earlier `first`.
    fn link(&mut self, first: u32, id: u32) {
        let tail = self.last[first as usize];
        self.next[tail as usize] = id;
        self.last[first as usize] = id;
    }

    /// `id` and every later glob of the same text.
    fn each(&self, id: u32, mut f: impl FnMut(u32)) {
        let mut at = id;
        while at != NO_ID {
            f(at);
            at = self.next[at as usize];
        }
    }
}

/// The owners a live set accepts, sorted and deduplicated, into `hits`.
fn collect(
    auto: &Automaton<'_>,
    set: &[automaton::NodeId],
    same: &SameText,
    owners: &[(usize, usize)],
    hits: &mut Vec<(usize, usize)>,
) {
    hits.clear();
    for o in auto.accepted(set) {
        same.each(o, |id| hits.push(owners[id as usize]));
    }
    if hits.len() > 1 {
        hits.sort_unstable();
        hits.dedup();
    }
}

/// An [`OpIndex`] compiled in full ([`OpIndex::into_shared`]), read-only:
/// matching goes through a [`Matcher`].
pub struct SharedIndex<'m> {
    auto: Automaton<'m>,
    owners: Vec<(usize, usize)>,
    same: SameText,
}

impl<'m> SharedIndex<'m> {
    /// The owner given for the glob with this id ([`Matcher::each_hit`]);
    /// ids run from 0 to [`SharedIndex::len`], in the order given.
    pub fn owner(&self, id: u32) -> (usize, usize) {
        self.owners[id as usize]
    }

    /// Number of globs indexed.
    pub fn len(&self) -> usize {
        self.owners.len()
    }

    pub fn is_empty(&self) -> bool {
        self.owners.is_empty()
    }

    /// A matcher over this index (its own directory cache and
    /// buffers).
    pub fn matcher(&self) -> Matcher<'_, 'm> {
        Matcher {
            auto: self.auto.frozen(),
            owners: &self.owners,
            same: &self.same,
            walker: Walker::default(),
            hits: Vec::new(),
        }
    }
}

/// Matches paths against a [`SharedIndex`]; fastest over sorted paths.
pub struct Matcher<'s, 'm> {
    auto: Frozen<'s, 'm>,
    owners: &'s [(usize, usize)],
    same: &'s SameText,
    walker: Walker,
    hits: Vec<(usize, usize)>,
}

impl Matcher<'_, '_> {
    /// The id ([`SharedIndex::owner`]) of every glob that matches the
    /// path, in no order and possibly repeated: for callers that only
    /// mark what matched (the coverage scan), without the sort
    /// [`Matcher::all_hits`] pays.
    pub fn each_hit(&mut self, path: &[u8], mut f: impl FnMut(u32)) {
        let set = self.walker.run(&mut self.auto, path);
        for o in self.auto.automaton().accepted(set) {
            self.same.each(o, &mut f);
        }
    }

    /// As [`OpIndex::all_hits`].
    pub fn all_hits(&mut self, path: &[u8]) -> &[(usize, usize)] {
        let set = self.walker.run(&mut self.auto, path);
        collect(
            self.auto.automaton(),
            set,
            self.same,
            self.owners,
            &mut self.hits,
        );
        &self.hits
    }
}

/// Matching belongs to this layer, so a single glob's match is defined
/// here, beside the automaton it uses (the glob layer only parses).
impl FileGlob {
    /// Match one root-relative path. For many paths and many globs use
    /// [`OpIndex`], which compiles everything into one automaton.
    pub fn is_match(&self, path: &str) -> bool {
        let mut index = OpIndex::from_globs([((0, 0), self)]);
        !index.all_hits(path.as_bytes()).is_empty()
    }
}
