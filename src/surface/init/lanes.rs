//! Overlapping Aho-Corasick search of one prefix as four interleaved
//! lanes. A DFA search is a chain of dependent table loads, one per byte,
//! so a single walk waits on each load in turn; four walks over four
//! quarters of the prefix, stepped together, keep four loads in flight.
//! An Aho-Corasick state is the longest suffix of the bytes read that
//! begins some pattern, never longer than the longest pattern, so a lane
//! started that many bytes before its quarter is in the state a single
//! walk would be by the quarter's first byte: it reports only the matches
//! ending inside its quarter, and the lanes' matches, quarter by quarter,
//! are the single search's, in its order.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, Match, MatchKind, StartKind};

/// Walks stepped together: enough to hide a table load's latency, few
/// enough that the states stay in registers.
const LANES: usize = 4;

/// Below this many bytes per lane beyond the warm-up, one walk is as fast.
const MIN_LANE_BYTES: usize = 64;

/// The automaton and its longest pattern, which bounds a lane's warm-up.
pub struct Lanes {
    dfa: DFA,
    warm_up: usize,
}

/// Each lane's kept matches, reused from file to file.
#[derive(Default)]
pub struct LaneMatches([Vec<Match>; LANES]);

impl Lanes {
    /// A DFA of `patterns` (literals, none empty) reporting every match,
    /// overlaps too.
    pub fn new<I, P>(patterns: I) -> Lanes
    where
        I: IntoIterator<Item = P>,
        P: AsRef<[u8]>,
    {
        let dfa = aho_corasick::dfa::Builder::new()
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            .prefilter(false)
            .build(patterns)
            .expect("literal patterns, a few thousand at most");
        debug_assert!(
            dfa.min_pattern_len() > 0,
            "an empty pattern matches everywhere"
        );
        let warm_up = dfa.max_pattern_len().saturating_sub(1);
        Lanes { dfa, warm_up }
    }

    /// Every match in `haystack`, overlaps too, in the order the crate's
    /// overlapping search reports them (by end, then as the state lists
    /// them). `keep` sees each match as the lanes pass it; those it keeps
    /// are returned, the rest dropped.
    pub fn find_overlapping<'m>(
        &self,
        haystack: &[u8],
        found: &'m mut LaneMatches,
        mut keep: impl FnMut(&Match) -> bool,
    ) -> impl Iterator<Item = Match> + 'm {
        let lanes = &mut found.0;
        lanes.iter_mut().for_each(Vec::clear);
        let quarter = haystack.len() / LANES;
        if quarter < self.warm_up + MIN_LANE_BYTES {
            let mut state = self.start();
            for (at, &byte) in haystack.iter().enumerate() {
                state = self.step(state, byte, at, &mut lanes[0], &mut keep);
            }
        } else {
            self.interleaved(haystack, quarter, lanes, &mut keep);
        }
        lanes.iter().flatten().copied()
    }

    /// The four walks. Lane `k` reads from `k * quarter - warm_up` (lane
    /// 0 from the start) to the end of its quarter (the last lane to the
    /// end of the haystack) and keeps the matches ending in its quarter.
    fn interleaved(
        &self,
        haystack: &[u8],
        quarter: usize,
        lanes: &mut [Vec<Match>; LANES],
        keep: &mut impl FnMut(&Match) -> bool,
    ) {
        let own = |k: usize| k * quarter;
        let begin = |k: usize| own(k).saturating_sub(self.warm_up);
        let end = |k: usize| match k + 1 == LANES {
            true => haystack.len(),
            false => own(k + 1),
        };
        let mut state = [self.start(); LANES];
        // Lane 0 reads the fewest bytes: every lane has that many.
        let together = end(0) - begin(0);
        for i in 0..together {
            for k in 0..LANES {
                let at = begin(k) + i;
                state[k] = self.dfa.next_state(Anchored::No, state[k], haystack[at]);
                if self.dfa.is_special(state[k]) && at >= own(k) {
                    self.report(state[k], at, &mut lanes[k], keep);
                }
            }
        }
        for k in 1..LANES {
            let from = begin(k) + together;
            for (at, &byte) in haystack[..end(k)].iter().enumerate().skip(from) {
                state[k] = self.step(state[k], byte, at, &mut lanes[k], keep);
            }
        }
    }

    fn start(&self) -> StateID {
        self.dfa
            .start_state(Anchored::No)
            .expect("the DFA is built for unanchored searches")
    }

    /// One byte of one walk, reporting what ends at `at`.
    fn step(
        &self,
        state: StateID,
        byte: u8,
        at: usize,
        lane: &mut Vec<Match>,
        keep: &mut impl FnMut(&Match) -> bool,
    ) -> StateID {
        let next = self.dfa.next_state(Anchored::No, state, byte);
        if self.dfa.is_special(next) {
            self.report(next, at, lane, keep);
        }
        next
    }

    /// The matches of `state`, which the walk entered on the byte at `at`.
    fn report(
        &self,
        state: StateID,
        at: usize,
        lane: &mut Vec<Match>,
        keep: &mut impl FnMut(&Match) -> bool,
    ) {
        if !self.dfa.is_match(state) {
            return;
        }
        for i in 0..self.dfa.match_len(state) {
            let pattern = self.dfa.match_pattern(state, i);
            let len = self.dfa.pattern_len(pattern);
            let m = Match::new(pattern, at + 1 - len..at + 1);
            if keep(&m) {
                lane.push(m);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use aho_corasick::AhoCorasick;

    /// What the crate's own overlapping search reports.
    fn crate_search(patterns: &[&str], haystack: &[u8]) -> Vec<Match> {
        let ac = AhoCorasick::new(patterns).unwrap();
        ac.find_overlapping_iter(haystack).collect()
    }

    fn lane_search(patterns: &[&str], haystack: &[u8]) -> Vec<Match> {
        let lanes = Lanes::new(patterns);
        let mut found = LaneMatches::default();
        lanes
            .find_overlapping(haystack, &mut found, |_| true)
            .collect()
    }

    /// Matches that straddle the quarters' borders, overlap each other and
    /// share ends are reported once each, in the single search's order,
    /// whatever the haystack's length.
    #[test]
    fn lanes_report_what_one_search_reports_in_its_order() {
        let patterns = [
            "ab",
            "abab",
            "bab",
            "b",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "ba",
        ];
        let mut rng = Rng(41);
        for len in [0, 1, 5, 63, 64, 300, 513, 1000, 4096, 4097, 10_007] {
            let haystack: Vec<u8> = (0..len).map(|_| rng.pick(b"abc")).collect();
            let one = crate_search(&patterns, &haystack);
            let four = lane_search(&patterns, &haystack);
            assert_eq!(four, one, "haystack of {len} bytes");
        }
        // A long run of one byte: the longest pattern ends in every
        // quarter and across each border.
        let run = vec![b'a'; 5000];
        let one = crate_search(&patterns, &run);
        assert!(one.len() > 4000);
        assert_eq!(lane_search(&patterns, &run), one);
    }

    /// The matches `keep` drops are gone; the ones it keeps stay in order.
    #[test]
    fn keep_sees_every_match_and_filters_the_result() {
        let text = "softmax(x) and online_softmax(y); max(a, b) ".repeat(200);
        let patterns = ["softmax", "max", "online_softmax", "ax"];
        let lanes = Lanes::new(patterns);
        let mut found = LaneMatches::default();
        let mut seen = 0;
        let kept: Vec<Match> = lanes
            .find_overlapping(text.as_bytes(), &mut found, |m| {
                seen += 1;
                m.pattern().as_usize() != 1
            })
            .collect();
        let all = crate_search(&patterns, text.as_bytes());
        assert_eq!(seen, all.len());
        let expected: Vec<Match> = all
            .into_iter()
            .filter(|m| m.pattern().as_usize() != 1)
            .collect();
        assert_eq!(kept, expected);
    }
}
