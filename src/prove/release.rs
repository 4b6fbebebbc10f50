//! Keeping resident memory bounded while the two file mappings are read:
//! which pages to drop from the process's mappings (`MADV_DONTNEED`; the
//! page cache keeps them), and when. Work is handed out in runs of blocks,
//! in order. Once every run below some point has finished, no thread can
//! map a page there again (a fault maps at most its 2 MiB-aligned
//! neighbourhood: fault-around or a PMD-mapped large folio), so everything
//! up to that point minus [`MARGIN`] is dropped in one call per file. That
//! costs one call (and at most one TLB shootdown) per run instead of one
//! per block, and never unmaps pages a thread is still reading. A run that
//! finishes far ahead of the oldest unfinished one (a stalled thread) drops
//! its own pages at once, so memory stays bounded however late a thread
//! is; pages mapped again around it are swept when the low-water mark
//! passes.

use std::ops::Range;
use std::sync::Mutex;

use super::tensor::TensorView;

/// How far below the oldest unfinished run a fault may still map pages.
pub const MARGIN: usize = 2 << 20;

/// Runs a finished run may be ahead of the oldest unfinished one before it
/// drops its own pages instead of waiting.
const LAG: usize = 2;

/// The pages of two tensors' mappings, dropped as runs finish.
pub struct Releaser<'a> {
    views: [TensorView<'a>; 2],
    /// Elements per run; `n` elements in all.
    run: usize,
    n: usize,
    enabled: bool,
    state: Mutex<State>,
}

struct State {
    done: Vec<bool>,
    /// Every run below this one has finished.
    low: usize,
    /// Byte offset (in each file) up to which pages were dropped.
    dropped: [usize; 2],
}

impl<'a> Releaser<'a> {
    /// `run` elements per run of `n`; `enabled` false makes every call a
    /// no-op (small or gathered tensors).
    pub fn new(a: TensorView<'a>, b: TensorView<'a>, run: usize, n: usize, enabled: bool) -> Self {
        let runs = if enabled { n.div_ceil(run.max(1)) } else { 0 };
        Releaser {
            views: [a, b],
            run: run.max(1),
            n,
            enabled,
            state: Mutex::new(State {
                done: vec![false; runs],
                low: 0,
                dropped: [a.meta.offset, b.meta.offset],
            }),
        }
    }

    /// Byte range in `v`'s file of elements `s..e`.
    fn bytes(v: &TensorView, s: usize, e: usize) -> Range<usize> {
        let sz = v.meta.dtype.size();
        v.meta.offset + s * sz..v.meta.offset + e * sz
    }

    fn elements(&self, r: usize) -> (usize, usize) {
        let s = (r * self.run).min(self.n);
        (s, (s + self.run).min(self.n))
    }

    /// Run `r` has been read.
    pub fn finished(&self, r: usize) {
        if !self.enabled {
            return;
        }
        let mut drops: [Option<Range<usize>>; 2] = [None, None];
        {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if r >= st.done.len() {
                return;
            }
            st.done[r] = true;
            let old = st.low;
            while st.low < st.done.len() && st.done[st.low] {
                st.low += 1;
            }
            if st.low > old {
                let (low_elem, _) = self.elements(st.low);
                for (i, v) in self.views.iter().enumerate() {
                    let end = if st.low == st.done.len() {
                        v.file.map_or(0, |f| f.bytes().len())
                    } else {
                        Self::bytes(v, low_elem, low_elem)
                            .start
                            .saturating_sub(MARGIN)
                    };
                    if end > st.dropped[i] {
                        drops[i] = Some(st.dropped[i]..end);
                        st.dropped[i] = end;
                    }
                }
            } else if r >= st.low + LAG {
                let (s, e) = self.elements(r);
                for (i, v) in self.views.iter().enumerate() {
                    drops[i] = Some(Self::bytes(v, s, e));
                }
            }
        }
        for (v, range) in self.views.iter().zip(drops) {
            if let (Some(range), Some(file)) = (range, v.file) {
                file.release(range);
            }
        }
    }
}
