//! Localized metrics: a kernel bug often lives in one row or one tile (a
//! row never written, one tile scaled wrong) and vanishes in a whole-tensor
//! cosine. This pass groups the elements — every 1-D slice along an axis
//! (rows), or tiles over the last two axes — and reports, per statistic
//! (cosine, max |a−b|, ‖a−b‖₂/‖a‖₂), the worst group and where it starts,
//! and how many groups fail each bound asked.
//!
//! Work is handed out in units of whole bands (a band: the rows of one
//! row-of-tiles, or one row), so each group is summed by one thread in
//! element order, and units are combined in order: the figures do not
//! depend on the thread count. Memory: one accumulator per tile of a band
//! per thread. Elements are read from the same mappings as the main pass,
//! gathered when the axis is not the last or a tensor is column-major.

use super::metrics::{par_blocks, Place, BLOCK, CHUNK};
use super::release::Releaser;
use super::tensor::{step, strides, unravel, Layout, TensorView};
use crate::matrix::LocalStat;

pub use super::local_figures::{Grouping, Local, WorstGroup};

/// Running sums of one group.
#[derive(Clone, Copy)]
struct Acc {
    ab: f64,
    aa: f64,
    bb: f64,
    dd: f64,
    n: u64,
    max_d: f64,
    max_idx: u64,
    max_a: f64,
    max_b: f64,
}

impl Acc {
    const EMPTY: Acc = Acc {
        ab: 0.0,
        aa: 0.0,
        bb: 0.0,
        dd: 0.0,
        n: 0,
        max_d: -1.0,
        max_idx: 0,
        max_a: 0.0,
        max_b: 0.0,
    };

    #[inline(always)]
    fn add(&mut self, va: &[f64], vb: &[f64], idx0: u64) {
        for (j, (&a, &b)) in va.iter().zip(vb).enumerate() {
            if !(a.is_finite() & b.is_finite()) {
                continue;
            }
            let d = a - b;
            self.ab += a * b;
            self.aa += a * a;
            self.bb += b * b;
            self.dd += d * d;
            self.n += 1;
            if d.abs() > self.max_d {
                self.max_d = d.abs();
                self.max_idx = idx0 + j as u64;
                self.max_a = a;
                self.max_b = b;
            }
        }
    }

    fn cosine(&self) -> Option<f64> {
        let c = if self.aa == 0.0 && self.bb == 0.0 {
            1.0
        } else if self.aa == 0.0 || self.bb == 0.0 {
            0.0
        } else {
            (self.ab / (self.aa.sqrt() * self.bb.sqrt())).clamp(-1.0, 1.0)
        };
        c.is_finite().then_some(c)
    }

    fn rel_l2(&self) -> Option<f64> {
        let r = if self.aa == 0.0 {
            if self.dd == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (self.dd / self.aa).sqrt()
        };
        (!r.is_nan()).then_some(r)
    }
}

/// What one unit of bands contributes: worst groups as (value, group id).
struct UnitOut {
    groups: u64,
    cosine: Option<(f64, u64)>,
    max_abs: Option<(f64, u64, u64, f64, f64)>,
    rel_l2: Option<(f64, u64)>,
    failing: Vec<u64>,
}

impl UnitOut {
    fn new(bounds: usize) -> UnitOut {
        UnitOut {
            groups: 0,
            cosine: None,
            max_abs: None,
            rel_l2: None,
            failing: vec![0; bounds],
        }
    }

    /// Fold `later` in: a tie keeps the earlier group.
    fn merge(&mut self, later: UnitOut) {
        self.groups += later.groups;
        if let Some(c) = later.cosine {
            if self.cosine.is_none_or(|s| c.0 < s.0) {
                self.cosine = Some(c);
            }
        }
        if let Some(m) = later.max_abs {
            if self.max_abs.is_none_or(|s| m.0 > s.0) {
                self.max_abs = Some(m);
            }
        }
        if let Some(r) = later.rel_l2 {
            if self.rel_l2.is_none_or(|s| r.0 > s.0) {
                self.rel_l2 = Some(r);
            }
        }
        for (f, l) in self.failing.iter_mut().zip(later.failing) {
            *f += l;
        }
    }
}

/// The two tensors walked in a permuted logical order: `shape` (the
/// original axes in `perm` order) with the grouped axis last.
struct Walk<'a> {
    a: TensorView<'a>,
    b: TensorView<'a>,
    shape: Vec<usize>,
    perm: Vec<usize>,
    strides_a: Vec<usize>,
    strides_b: Vec<usize>,
    linear: bool,
    /// Row length, rows per slab, band height, tile width.
    w: usize,
    h: usize,
    th: usize,
    tw: usize,
    bounds: &'a [(LocalStat, f64)],
}

impl Walk<'_> {
    /// Decode logical elements `s..s+k` of both tensors (in walk order).
    fn load(&self, s: usize, va: &mut [f64], vb: &mut [f64]) {
        let k = va.len();
        let (sa, sb) = (self.a.meta.dtype.size(), self.b.meta.dtype.size());
        let da = self.a.meta.dtype.decoder(self.a.meta.order);
        let db = self.b.meta.dtype.decoder(self.b.meta.order);
        if self.linear {
            da.decode_into(&self.a.data[s * sa..(s + k) * sa], va);
            db.decode_into(&self.b.data[s * sb..(s + k) * sb], vb);
            return;
        }
        let mut idx = unravel(s, &self.shape);
        let mut oa: usize = idx.iter().zip(&self.strides_a).map(|(i, s)| i * s).sum();
        let mut ob: usize = idx.iter().zip(&self.strides_b).map(|(i, s)| i * s).sum();
        for j in 0..k {
            va[j] = da.decode_one(&self.a.data[oa * sa..(oa + 1) * sa]);
            vb[j] = db.decode_one(&self.b.data[ob * sb..(ob + 1) * sb]);
            step(
                &mut idx,
                &self.shape,
                (&self.strides_a, &self.strides_b),
                (&mut oa, &mut ob),
            );
        }
    }

    fn bands_per_slab(&self) -> usize {
        self.h.div_ceil(self.th)
    }

    fn tiles_per_band(&self) -> usize {
        self.w.div_ceil(self.tw).max(1)
    }

    /// The index (original axes) of the logical walk position `i`.
    fn original(&self, i: u64) -> Vec<usize> {
        let walked = unravel(i as usize, &self.shape);
        let mut out = vec![0; walked.len()];
        for (k, &ax) in self.perm.iter().enumerate() {
            out[ax] = walked[k];
        }
        out
    }

    /// The walk position of the first element of group `g`.
    fn group_start(&self, g: u64) -> u64 {
        let tpb = self.tiles_per_band() as u64;
        let (band, t) = (g / tpb, g % tpb);
        let bps = self.bands_per_slab() as u64;
        let (slab, bi) = (band / bps, band % bps);
        (slab * self.h as u64 + bi * self.th as u64) * self.w as u64 + t * self.tw as u64
    }

    /// Every group of bands `first..end`.
    fn unit(&self, first: usize, end: usize, accs: &mut Vec<Acc>) -> UnitOut {
        let tpb = self.tiles_per_band();
        let bps = self.bands_per_slab();
        let mut out = UnitOut::new(self.bounds.len());
        let mut va = [0f64; CHUNK];
        let mut vb = [0f64; CHUNK];
        for band in first..end {
            accs.clear();
            accs.resize(tpb, Acc::EMPTY);
            let (slab, bi) = (band / bps, band % bps);
            let r0 = bi * self.th;
            for r in r0..(r0 + self.th).min(self.h) {
                let row0 = (slab * self.h + r) * self.w;
                let mut c = 0;
                while c < self.w {
                    let k = CHUNK.min(self.w - c);
                    self.load(row0 + c, &mut va[..k], &mut vb[..k]);
                    let mut j = 0;
                    while j < k {
                        let t = (c + j) / self.tw;
                        let end = k.min((t + 1) * self.tw - c);
                        accs[t].add(&va[j..end], &vb[j..end], (row0 + c + j) as u64);
                        j = end;
                    }
                    c += k;
                }
            }
            for (t, acc) in accs.iter().enumerate() {
                self.finish((band * tpb + t) as u64, acc, &mut out);
            }
        }
        out
    }

    /// Judge one finished group.
    fn finish(&self, g: u64, acc: &Acc, out: &mut UnitOut) {
        if acc.n == 0 {
            return;
        }
        out.groups += 1;
        let cos = acc.cosine();
        let rel = acc.rel_l2();
        if let Some(c) = cos {
            if out.cosine.is_none_or(|s| c < s.0) {
                out.cosine = Some((c, g));
            }
        }
        if out.max_abs.is_none_or(|s| acc.max_d > s.0) {
            out.max_abs = Some((acc.max_d, g, acc.max_idx, acc.max_a, acc.max_b));
        }
        if let Some(r) = rel {
            if out.rel_l2.is_none_or(|s| r > s.0) {
                out.rel_l2 = Some((r, g));
            }
        }
        for (n, &(stat, bound)) in out.failing.iter_mut().zip(self.bounds) {
            let fails = match stat {
                LocalStat::Cosine => cos.is_some_and(|c| c < bound),
                LocalStat::MaxAbs => acc.max_d > bound,
                LocalStat::RelL2 => rel.is_some_and(|r| r > bound),
            };
            *n += u64::from(fails);
        }
    }
}

fn row_major(v: &TensorView) -> bool {
    v.meta.layout == Layout::C || v.meta.shape.iter().filter(|&&d| d > 1).count() <= 1
}

/// Group the elements of `a` and `b` (same shape) by `grouping` and
/// measure every group; `bounds` are the thresholds to count failing
/// groups against.
pub fn measure(
    a: TensorView,
    b: TensorView,
    grouping: Grouping,
    bounds: &[(LocalStat, f64)],
    threads: usize,
) -> Local {
    let walk = Walk::new(a, b, grouping, bounds);
    let (th, w) = (walk.th, walk.w);
    let n = a.elements();
    let bands = if n == 0 || w == 0 || walk.h == 0 {
        0
    } else {
        n / (walk.h * w) * walk.bands_per_slab()
    };
    let per_unit = (BLOCK / (th * w).max(1)).max(1);
    let units = bands.div_ceil(per_unit);
    // Read in order over a file mapping: drop the pages behind, as the
    // main pass does (a unit's elements, but for a short last band of a
    // slab: then pages are dropped a little early, which costs a re-read
    // at most, never a wrong value).
    let release = walk.linear
        && a.file.is_some()
        && b.file.is_some()
        && a.data.len().max(b.data.len()) > super::metrics::RELEASE_ABOVE;
    let pages = Releaser::new(a, b, per_unit * th * w, n, release);
    let (outs, _) = par_blocks(
        units,
        1,
        threads,
        &pages,
        Vec::new,
        |u, accs: &mut Vec<Acc>| walk.unit(u * per_unit, ((u + 1) * per_unit).min(bands), accs),
    );
    let mut total = UnitOut::new(bounds.len());
    for o in outs {
        total.merge(o);
    }
    walk.report(grouping, total)
}

impl<'a> Walk<'a> {
    /// The walk of `grouping`: the grouped axis moved last (rows), and the
    /// band and tile sizes.
    fn new(
        a: TensorView<'a>,
        b: TensorView<'a>,
        grouping: Grouping,
        bounds: &'a [(LocalStat, f64)],
    ) -> Walk<'a> {
        let shape: Vec<usize> = if a.meta.shape.is_empty() {
            vec![1]
        } else {
            a.meta.shape.clone()
        };
        let rank = shape.len();
        let perm: Vec<usize> = match grouping {
            Grouping::Rows { axis } => (0..rank)
                .filter(|&i| i != axis)
                .chain(std::iter::once(axis))
                .collect(),
            Grouping::Tiles { .. } => (0..rank).collect(),
        };
        let permuted = |s: &[usize]| perm.iter().map(|&i| s[i]).collect::<Vec<_>>();
        let walk_shape = permuted(&shape);
        let w = walk_shape[rank - 1];
        let (h, th, tw) = match grouping {
            Grouping::Rows { .. } => (1, 1, w.max(1)),
            Grouping::Tiles { h: th, w: tw } => {
                let h = if rank >= 2 { walk_shape[rank - 2] } else { 1 };
                (h, th.max(1), tw.max(1))
            }
        };
        let identity = perm.iter().enumerate().all(|(k, &i)| k == i);
        Walk {
            a,
            b,
            strides_a: permuted(&strides(&shape, a.meta.layout)),
            strides_b: permuted(&strides(&shape, b.meta.layout)),
            shape: walk_shape,
            perm,
            linear: identity && row_major(&a) && row_major(&b),
            w,
            h,
            th,
            tw,
            bounds,
        }
    }

    /// The combined units as a [`Local`], positions in the original axes.
    fn report(&self, grouping: Grouping, total: UnitOut) -> Local {
        let group = |value: f64, g: u64, at: Option<Place>| WorstGroup {
            value,
            origin: self.original(self.group_start(g)),
            at,
        };
        Local {
            grouping,
            groups: total.groups,
            cosine: total.cosine.map(|(v, g)| group(v, g, None)),
            max_abs: total.max_abs.map(|(v, g, i, ra, cb)| {
                let place = Place {
                    value: v,
                    index: self.original(i),
                    reference: ra,
                    candidate: cb,
                };
                group(v, g, Some(place))
            }),
            rel_l2: total.rel_l2.map(|(v, g)| group(v, g, None)),
            failing: self
                .bounds
                .iter()
                .zip(total.failing)
                .map(|(&(s, b), n)| (s, b, n))
                .collect(),
        }
    }
}
