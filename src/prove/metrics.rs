//! The streaming comparison: one pass over both tensors, in fixed blocks of
//! [`BLOCK`] elements (logical row-major order) pulled by all worker
//! threads, each block decoded [`CHUNK`] elements at a time into f64
//! buffers that stay in the L1 cache. An all-finite chunk takes the fused
//! pass of [`super::kernel`] (every sum, maximum and count in one
//! vectorized loop; positions looked up only for new records) and its
//! histogram buckets are counted in one scalar loop; a chunk holding a NaN
//! or an infinity takes the element-by-element path. Per block it keeps
//! f64 sums, maxima with their first position, counts and argmax partials;
//! blocks are then combined in block order (sums pairwise), so every figure
//! is the same whatever the thread count. Error histograms (for median and
//! quantiles) are per thread and merge exactly. Threads take runs of
//! consecutive blocks (2 MiB of each tensor) in order. Nothing is allocated
//! in proportion to the tensors but a small record per block: the data
//! stays in the file mappings, and pages already read are dropped from
//! them ([`super::release`]).

#![allow(unsafe_code)] // each block below carries its `SAFETY:` note

use std::sync::atomic::{AtomicUsize, Ordering};

use super::dtype::DType;
use super::histogram::{Histogram, Tally};
use super::kernel::{self, ChunkStats};
use super::release::Releaser;
use super::tensor::{step, strides, unravel, Layout, TensorView};

/// Elements per block: the unit of work and of summation.
pub const BLOCK: usize = 1 << 16;
/// Elements decoded at a time: 256 keeps a chunk's decoded values and
/// buckets (6 KiB) in the L1 cache beside the two histogram tallies, which
/// the increments after each chunk hit at random (1,024 took about 20%
/// more CPU on the bench pair, 128 about 14% more: docs/BENCHMARKS.md,
/// seventh round).
pub const CHUNK: usize = 256;
/// Mappings larger than this drop the pages already read.
pub(super) const RELEASE_ABOVE: usize = 64 << 20;
/// Bytes of each tensor per run of blocks handed to a thread (a multiple
/// of the block for every element size, and one PMD: 2 MiB).
const RUN_BYTES: usize = 2 << 20;
const NONE: u64 = u64::MAX;

/// An allclose tolerance to count violations of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
    /// Whether these are torch.testing's defaults for the dtype.
    pub defaulted: bool,
}

pub use super::local_figures::Place;

/// NaN / +Inf / −Inf counts of one tensor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NonFiniteCounts {
    pub nan: u64,
    pub pos_inf: u64,
    pub neg_inf: u64,
}

impl NonFiniteCounts {
    pub fn total(&self) -> u64 {
        self.nan + self.pos_inf + self.neg_inf
    }
}

/// Non-finite values: where they are and whether they agree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NonFinite {
    pub reference: NonFiniteCounts,
    pub candidate: NonFiniteCounts,
    /// Positions where the two differ in kind (finite, NaN, +Inf, −Inf) and
    /// at least one is not finite.
    pub mismatched: u64,
    pub first_mismatch: Option<Place>,
}

/// Allclose violations for one tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct Allclose {
    pub tolerance: Tolerance,
    /// Finite pairs with |ref − cand| > atol + rtol·|ref|.
    pub mismatches: u64,
    /// The violation with the largest |ref − cand| / (atol + rtol·|ref|).
    pub worst: Option<Place>,
}

/// Argmax agreement over the last axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Argmax {
    pub rows: u64,
    pub agree: u64,
    /// The first disagreeing row: its index (all axes but the last) and the
    /// argmax of each tensor.
    pub first_miss: Option<(Vec<usize>, u64, u64)>,
}

impl Argmax {
    /// Fraction of rows that agree (1 for no rows).
    pub fn fraction(&self) -> f64 {
        if self.rows == 0 {
            1.0
        } else {
            self.agree as f64 / self.rows as f64
        }
    }
}

/// Everything measured about one pair of tensors.
#[derive(Clone, Debug)]
pub struct Metrics {
    pub elements: u64,
    /// Positions where both values are finite: the population of every
    /// error statistic.
    pub finite_pairs: u64,
    /// Σab / (√Σa² · √Σb²) over finite pairs; 1 when both are all zero, 0
    /// when exactly one is.
    pub cosine: Option<f64>,
    pub max_abs: Option<Place>,
    /// |ref − cand| / |ref| (0 when both are 0, ∞ when only ref is 0).
    pub max_rel: Option<Place>,
    pub mean_abs: Option<f64>,
    pub mean_rel: Option<f64>,
    pub median_abs: Option<f64>,
    pub median_rel: Option<f64>,
    pub quantile: f64,
    pub quantile_abs: Option<f64>,
    pub quantile_rel: Option<f64>,
    pub allclose: Vec<Allclose>,
    pub argmax: Argmax,
    /// Elements whose bytes differ, and the first of them.
    pub bits_differing: u64,
    pub first_bit_difference: Option<Place>,
    pub nonfinite: NonFinite,
    /// |ref − cand| over finite pairs.
    pub abs_histogram: Histogram,
    /// The worst rows along the chosen axis ([`super::local`]).
    pub rows: Option<super::local_figures::Local>,
    /// The worst tiles, when tiles were asked for.
    pub tiles: Option<super::local_figures::Local>,
}

#[derive(Clone, Copy, Default)]
struct Sums {
    ab: f64,
    aa: f64,
    bb: f64,
    abs: f64,
    rel: f64,
}

impl Sums {
    fn add(self, o: Sums) -> Sums {
        Sums {
            ab: self.ab + o.ab,
            aa: self.aa + o.aa,
            bb: self.bb + o.bb,
            abs: self.abs + o.abs,
            rel: self.rel + o.rel,
        }
    }
}

/// Pairwise summation over blocks, in block order.
fn pairwise(s: &[Sums]) -> Sums {
    match s.len() {
        0 => Sums::default(),
        1 => s[0],
        n => pairwise(&s[..n / 2]).add(pairwise(&s[n / 2..])),
    }
}

#[derive(Clone, Copy)]
struct Worst {
    value: f64,
    idx: u64,
    a: f64,
    b: f64,
}

impl Worst {
    const EMPTY: Worst = Worst {
        value: -1.0,
        idx: NONE,
        a: 0.0,
        b: 0.0,
    };

    /// Keep the larger; on ties the earlier (self comes first).
    fn merge(self, later: Worst) -> Worst {
        if later.value > self.value {
            later
        } else {
            self
        }
    }
}

#[derive(Clone, Copy)]
struct First {
    idx: u64,
    a: f64,
    b: f64,
}

impl First {
    const EMPTY: First = First {
        idx: NONE,
        a: 0.0,
        b: 0.0,
    };
    fn merge(self, later: First) -> First {
        if self.idx == NONE {
            later
        } else {
            self
        }
    }
}

/// Running argmax of one row segment (NumPy semantics: first maximum, and
/// the first NaN wins).
#[derive(Clone, Copy)]
struct Arg {
    val: f64,
    col: u64,
}

impl Arg {
    fn merge(self, later: Arg) -> Arg {
        if self.val.is_nan() {
            self
        } else if later.val.is_nan() || later.val > self.val {
            later
        } else {
            self
        }
    }

    /// The argmax of a row segment starting at column `col0`; `finite`
    /// promises there is no NaN, which allows a vectorizable max first.
    #[inline(always)]
    fn of(v: &[f64], col0: u64, finite: bool) -> Arg {
        if finite {
            let (at, val) = kernel::argmax_finite(v);
            return Arg {
                val,
                col: col0 + at as u64,
            };
        }
        let mut best = Arg {
            val: v[0],
            col: col0,
        };
        if best.val.is_nan() {
            return best;
        }
        for (j, &x) in v.iter().enumerate().skip(1) {
            if x.is_nan() {
                return Arg {
                    val: x,
                    col: col0 + j as u64,
                };
            }
            if x > best.val {
                best = Arg {
                    val: x,
                    col: col0 + j as u64,
                };
            }
        }
        best
    }
}

#[derive(Clone, Copy)]
struct RowPart {
    row: u64,
    a: Arg,
    b: Arg,
}

#[derive(Clone, Copy)]
struct CloseAcc {
    mismatches: u64,
    worst: Worst,
}

/// What one block contributes.
#[derive(Clone)]
struct Partial {
    sums: Sums,
    finite: u64,
    max_abs: Worst,
    max_rel: Worst,
    mag_a: f64,
    mag_b: f64,
    close: Vec<CloseAcc>,
    bits: u64,
    first_bits: First,
    nf_a: [u64; 3],
    nf_b: [u64; 3],
    nf_mismatch: u64,
    first_nf: First,
    rows: u64,
    agree: u64,
    first_miss: Option<(u64, u64, u64)>,
    /// Rows this block holds only part of, in order (at most two).
    parts: Vec<RowPart>,
}

impl Partial {
    fn new(tols: usize) -> Self {
        Partial {
            sums: Sums::default(),
            finite: 0,
            max_abs: Worst::EMPTY,
            max_rel: Worst::EMPTY,
            mag_a: 0.0,
            mag_b: 0.0,
            close: vec![
                CloseAcc {
                    mismatches: 0,
                    worst: Worst::EMPTY
                };
                tols
            ],
            bits: 0,
            first_bits: First::EMPTY,
            nf_a: [0; 3],
            nf_b: [0; 3],
            nf_mismatch: 0,
            first_nf: First::EMPTY,
            rows: 0,
            agree: 0,
            first_miss: None,
            parts: Vec::new(),
        }
    }

    fn row_done(&mut self, p: RowPart) {
        self.rows += 1;
        if p.a.col == p.b.col {
            self.agree += 1;
        } else if self.first_miss.is_none_or(|(r, _, _)| p.row < r) {
            self.first_miss = Some((p.row, p.a.col, p.b.col));
        }
    }
}

fn class(x: f64) -> usize {
    if x.is_nan() {
        1
    } else if x == f64::INFINITY {
        2
    } else if x == f64::NEG_INFINITY {
        3
    } else {
        0
    }
}

/// The two tensors and how to walk them in logical order.
struct Pair<'a> {
    a: TensorView<'a>,
    b: TensorView<'a>,
    shape: &'a [usize],
    n: usize,
    /// Both are row-major in memory: logical index = memory index.
    linear: bool,
    strides_a: Vec<usize>,
    strides_b: Vec<usize>,
    last: usize,
    tols: &'a [Tolerance],
    /// Track the largest magnitudes in the fast path: only f64 squares can
    /// leave f64's range and need the cosine sums rescaled.
    mag: bool,
    /// Count differing bytes in the fused pass, from the decoded values'
    /// bits: exact for finite values when both sides share a byte order
    /// and decoding is one-to-one (every type but 64-bit integers).
    fast_bits: bool,
    /// Both tensors hold the same element type. When they do not (an f16
    /// candidate, an f32 reference), "bits differ" means the decoded
    /// values differ.
    same_type: bool,
    release: bool,
    /// The instruction set the block loop runs on.
    isa: Isa,
}

/// Which build of the block loop runs: the same source, compiled for wider
/// vector registers. Every build adds in the same lanes in the same order
/// (no FMA contraction), so the figures are bit for bit the same; a wider
/// build only needs fewer instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    Baseline,
    /// AVX2: four f64 lanes a register.
    Avx2,
    /// AVX-512 (F, DQ, VL): eight f64 lanes a register and a direct
    /// 64 → 32-bit narrowing for the histogram buckets.
    Avx512,
}

impl Isa {
    /// The widest build this CPU runs.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512dq")
                && std::is_x86_feature_detected!("avx512vl")
            {
                return Isa::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        Isa::Baseline
    }

    /// Every build this CPU runs, narrowest first.
    pub fn available() -> Vec<Isa> {
        let widest = Isa::detect();
        [Isa::Baseline, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .filter(|&isa| isa as u8 <= widest as u8)
            .collect()
    }
}

fn row_major(v: &TensorView) -> bool {
    v.meta.layout == Layout::C || v.meta.shape.iter().filter(|&&d| d > 1).count() <= 1
}

impl Pair<'_> {
    /// Decode logical elements `s..s+k` of both tensors.
    #[inline(always)]
    /// Decode logical elements `s..s+k` of both tensors, and count the
    /// elements whose bytes differ unless `fast_bits` leaves that to the
    /// fused pass.
    fn load(&self, s: usize, va: &mut [f64], vb: &mut [f64], bits: &mut Partial) {
        let k = va.len();
        let (sa, sb) = (self.a.meta.dtype.size(), self.b.meta.dtype.size());
        let (da, db) = (
            self.a.meta.dtype.decoder(self.a.meta.order),
            self.b.meta.dtype.decoder(self.b.meta.order),
        );
        if self.linear {
            let ra = &self.a.data[s * sa..(s + k) * sa];
            let rb = &self.b.data[s * sb..(s + k) * sb];
            da.decode_into(ra, va);
            db.decode_into(rb, vb);
            if !self.fast_bits {
                self.raw_bits(s, va, vb, bits);
            }
            return;
        }
        // Gather: walk the logical index with an odometer over the shape.
        let mut idx = unravel(s, self.shape);
        let mut oa: usize = idx.iter().zip(&self.strides_a).map(|(i, s)| i * s).sum();
        let mut ob: usize = idx.iter().zip(&self.strides_b).map(|(i, s)| i * s).sum();
        for j in 0..k {
            let xa = &self.a.data[oa * sa..(oa + 1) * sa];
            let xb = &self.b.data[ob * sb..(ob + 1) * sb];
            va[j] = da.decode_one(xa);
            vb[j] = db.decode_one(xb);
            let differ = if self.same_type {
                xa != xb
            } else {
                va[j].to_bits() != vb[j].to_bits()
            };
            if differ {
                bits.bits += 1;
                if bits.first_bits.idx == NONE {
                    bits.first_bits = First {
                        idx: (s + j) as u64,
                        a: va[j],
                        b: vb[j],
                    };
                }
            }
            step(
                &mut idx,
                self.shape,
                (&self.strides_a, &self.strides_b),
                (&mut oa, &mut ob),
            );
        }
    }

    /// Count the linear elements `s..s+k` whose bytes differ (whose
    /// decoded values differ, for tensors of two element types).
    fn raw_bits(&self, s: usize, va: &[f64], vb: &[f64], bits: &mut Partial) {
        if !self.same_type {
            return value_bits(s, va, vb, bits);
        }
        let k = va.len();
        let sz = self.a.meta.dtype.size();
        let ra = &self.a.data[s * sz..(s + k) * sz];
        let rb = &self.b.data[s * sz..(s + k) * sz];
        let count = match sz {
            1 => kernel::count_diff::<1>(ra, rb),
            2 => kernel::count_diff::<2>(ra, rb),
            4 => kernel::count_diff::<4>(ra, rb),
            _ => kernel::count_diff::<8>(ra, rb),
        };
        if count > 0 {
            bits.bits += count;
            if bits.first_bits.idx == NONE {
                let first = match sz {
                    1 => kernel::first_diff::<1>(ra, rb),
                    2 => kernel::first_diff::<2>(ra, rb),
                    4 => kernel::first_diff::<4>(ra, rb),
                    _ => kernel::first_diff::<8>(ra, rb),
                }
                .unwrap_or(0);
                bits.first_bits = First {
                    idx: (s + first) as u64,
                    a: va[first],
                    b: vb[first],
                };
            }
        }
    }

    fn block_range(&self, b: usize) -> (usize, usize) {
        let s = b * BLOCK;
        (s, (s + BLOCK).min(self.n))
    }

    fn block(&self, blk: usize, ta: &mut Tally, tr: &mut Tally) -> Partial {
        match self.isa {
            // SAFETY: `isa` is `Isa::detect()` or one of `Isa::available()`,
            // so the CPU has the features each build is compiled for.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { self.block_avx512(blk, ta, tr) },
            // SAFETY: as above, for the AVX2 build.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { self.block_avx2(blk, ta, tr) },
            _ if self.mag => self.block_inline::<true>(blk, ta, tr),
            _ => self.block_inline::<false>(blk, ta, tr),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn block_avx2(&self, blk: usize, ta: &mut Tally, tr: &mut Tally) -> Partial {
        if self.mag {
            self.block_inline::<true>(blk, ta, tr)
        } else {
            self.block_inline::<false>(blk, ta, tr)
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
    fn block_avx512(&self, blk: usize, ta: &mut Tally, tr: &mut Tally) -> Partial {
        if self.mag {
            self.block_inline::<true>(blk, ta, tr)
        } else {
            self.block_inline::<false>(blk, ta, tr)
        }
    }

    /// One block, a chunk at a time: decode, the fused pass, and the slow
    /// path for chunks holding a NaN or an infinity.
    #[inline(always)]
    fn block_inline<const MAG: bool>(&self, blk: usize, ta: &mut Tally, tr: &mut Tally) -> Partial {
        let (s0, e0) = self.block_range(blk);
        let mut p = Partial::new(self.tols.len());
        let mut va = [0f64; CHUNK];
        let mut vb = [0f64; CHUNK];
        let mut bd = [0u32; CHUNK];
        let mut br = [0u32; CHUNK];
        let mut cur: Option<(RowPart, bool)> = None;
        let tol0 = self
            .tols
            .first()
            .map_or((f64::INFINITY, 0.0), |t| (t.atol, t.rtol));
        let mut s = s0;
        while s < e0 {
            let k = CHUNK.min(e0 - s);
            let (va, vb) = (&mut va[..k], &mut vb[..k]);
            self.load(s, va, vb, &mut p);
            let c = kernel::fused::<MAG>(va, vb, tol0, &mut bd, &mut br);
            if c.finite {
                ta.add_buckets2(&bd[..k], tr, &br[..k]);
                self.finite_chunk(s, va, vb, &c, &mut p);
            } else {
                if self.fast_bits {
                    self.raw_bits(s, va, vb, &mut p);
                }
                self.elementwise(s, va, vb, &mut p, ta, tr);
            }
            if self.last > 1 {
                let tops = c.finite.then_some((c.top_a, c.top_b));
                self.argmax(s, va, vb, &mut p, &mut cur, tops);
            }
            s += k;
        }
        if self.last == 1 {
            p.rows = (e0 - s0) as u64;
            p.agree = p.rows;
        }
        if let Some((part, _)) = cur {
            p.parts.push(part);
        }
        p
    }

    /// Fold an all-finite chunk's figures into the block's, finding the
    /// positions of new records (rare after a block's first chunks).
    #[inline(always)]
    fn finite_chunk(&self, s: usize, va: &[f64], vb: &[f64], c: &ChunkStats, p: &mut Partial) {
        p.sums = p.sums.add(Sums {
            ab: c.sums[0],
            aa: c.sums[1],
            bb: c.sums[2],
            abs: c.sums[3],
            rel: c.sums[4],
        });
        p.finite += va.len() as u64;
        p.mag_a = p.mag_a.max(c.mag_a);
        p.mag_b = p.mag_b.max(c.mag_b);
        if self.fast_bits && c.bits > 0 {
            p.bits += c.bits;
            if p.first_bits.idx == NONE {
                let j = kernel::first_where(va, vb, 1.0, |a, b| {
                    f64::from(u8::from(a.to_bits() != b.to_bits()))
                });
                p.first_bits = First {
                    idx: (s + j) as u64,
                    a: va[j],
                    b: vb[j],
                };
            }
        }
        let records = [
            (c.max_abs, &mut p.max_abs, 0),
            (c.max_rel, &mut p.max_rel, 1),
        ];
        for (m, worst, which) in records {
            if m > worst.value {
                let j = kernel::first_where(va, vb, m, |a, b| {
                    let (d, r) = kernel::errors(a, b);
                    if which == 0 {
                        d
                    } else {
                        r
                    }
                });
                *worst = Worst {
                    value: m,
                    idx: (s + j) as u64,
                    a: va[j],
                    b: vb[j],
                };
            }
        }
        for (i, (t, acc)) in self.tols.iter().zip(p.close.iter_mut()).enumerate() {
            let outside = if i == 0 {
                c.outside
            } else {
                kernel::count_outside(va, vb, t.atol, t.rtol)
            };
            if outside == 0 {
                continue;
            }
            acc.mismatches += outside;
            // The chunk's worst ratio, vectorized; its first position only
            // when it beats the record (on a tie the earlier one stays).
            let worst = kernel::worst_outside(va, vb, t.atol, t.rtol);
            if worst > acc.worst.value {
                let j = kernel::first_where(va, vb, worst, |a, b| {
                    kernel::outside_ratio(a, b, t.atol, t.rtol)
                });
                acc.worst = Worst {
                    value: worst,
                    idx: (s + j) as u64,
                    a: va[j],
                    b: vb[j],
                };
            }
        }
    }

    #[inline(always)]
    fn elementwise(
        &self,
        s: usize,
        va: &[f64],
        vb: &[f64],
        p: &mut Partial,
        hist_abs: &mut Tally,
        hist_rel: &mut Tally,
    ) {
        let mut sums = Sums::default();
        let mut finite = 0u64;
        let (mut mag_a, mut mag_b) = (p.mag_a, p.mag_b);
        let (mut max_abs, mut max_rel) = (p.max_abs.value, p.max_rel.value);
        for (j, (&a, &b)) in va.iter().zip(vb).enumerate() {
            if !(a.is_finite() & b.is_finite()) {
                nonfinite(p, s + j, a, b);
                continue;
            }
            finite += 1;
            let d = (a - b).abs();
            let ma = a.abs();
            let r = if ma > 0.0 {
                d / ma
            } else if d == 0.0 {
                0.0
            } else {
                f64::INFINITY
            };
            sums.ab += a * b;
            sums.aa += a * a;
            sums.bb += b * b;
            sums.abs += d;
            sums.rel += r;
            mag_a = mag_a.max(ma);
            mag_b = mag_b.max(b.abs());
            hist_abs.add(d);
            hist_rel.add(r);
            if d > max_abs {
                max_abs = d;
                p.max_abs = Worst {
                    value: d,
                    idx: (s + j) as u64,
                    a,
                    b,
                };
            }
            if r > max_rel {
                max_rel = r;
                p.max_rel = Worst {
                    value: r,
                    idx: (s + j) as u64,
                    a,
                    b,
                };
            }
            for (t, acc) in self.tols.iter().zip(p.close.iter_mut()) {
                let tol = t.atol + t.rtol * ma;
                if d > tol {
                    acc.mismatches += 1;
                    let ratio = d / tol;
                    acc.worst = acc.worst.merge(Worst {
                        value: ratio,
                        idx: (s + j) as u64,
                        a,
                        b,
                    });
                }
            }
        }
        p.sums = p.sums.add(sums);
        p.finite += finite;
        p.mag_a = mag_a;
        p.mag_b = mag_b;
    }

    #[inline(always)]
    fn argmax(
        &self,
        s: usize,
        va: &[f64],
        vb: &[f64],
        p: &mut Partial,
        cur: &mut Option<(RowPart, bool)>,
        tops: Option<(f64, f64)>,
    ) {
        let l = self.last;
        let k = va.len();
        let mut q = 0;
        while q < k {
            let gi = s + q;
            let (row, col) = ((gi / l) as u64, gi % l);
            let end = k.min(q + (l - col));
            let (a, b) = match tops {
                // A finite chunk inside one row: its maxima came with the
                // fused pass; look for a position only when one beats the
                // row's maximum so far.
                Some((top_a, top_b)) if q == 0 && end == k => {
                    let prev = match cur {
                        Some((part, _)) if part.row == row => Some((part.a, part.b)),
                        _ => None,
                    };
                    let pick = |v: &[f64], top: f64, prev: Option<Arg>| match prev {
                        Some(p) if p.val.is_nan() || top <= p.val => p,
                        _ => Arg {
                            val: top,
                            col: col as u64 + kernel::find_first(v, top) as u64,
                        },
                    };
                    (
                        pick(va, top_a, prev.map(|x| x.0)),
                        pick(vb, top_b, prev.map(|x| x.1)),
                    )
                }
                _ => (
                    Arg::of(&va[q..end], col as u64, tops.is_some()),
                    Arg::of(&vb[q..end], col as u64, tops.is_some()),
                ),
            };
            match cur {
                Some((part, _)) if part.row == row => {
                    part.a = part.a.merge(a);
                    part.b = part.b.merge(b);
                }
                _ => *cur = Some((RowPart { row, a, b }, col == 0)),
            }
            if col + (end - q) == l {
                let (part, whole) = cur.take().unwrap();
                if whole {
                    p.row_done(part);
                } else {
                    p.parts.push(part);
                }
            }
            q = end;
        }
    }

    /// Σab, Σa², Σb² with each tensor scaled by a power of two, for when the
    /// plain sums overflow or underflow (f64 inputs near the range limits).
    fn scaled_sums(&self, blk: usize, sa: f64, sb: f64) -> Sums {
        let (s0, e0) = self.block_range(blk);
        let mut sums = Sums::default();
        let mut va = [0f64; CHUNK];
        let mut vb = [0f64; CHUNK];
        let mut scratch = Partial::new(0);
        let mut s = s0;
        while s < e0 {
            let k = CHUNK.min(e0 - s);
            self.load(s, &mut va[..k], &mut vb[..k], &mut scratch);
            for (&a, &b) in va[..k].iter().zip(&vb[..k]) {
                if a.is_finite() && b.is_finite() {
                    let (a, b) = (a * sa, b * sb);
                    sums.ab += a * b;
                    sums.aa += a * a;
                    sums.bb += b * b;
                }
            }
            s += k;
        }
        sums
    }
}

/// Count the elements `s..` whose decoded values differ in their bits.
fn value_bits(s: usize, va: &[f64], vb: &[f64], bits: &mut Partial) {
    for (j, (&a, &b)) in va.iter().zip(vb).enumerate() {
        if a.to_bits() != b.to_bits() {
            bits.bits += 1;
            if bits.first_bits.idx == NONE {
                bits.first_bits = First {
                    idx: (s + j) as u64,
                    a,
                    b,
                };
            }
        }
    }
}

#[cold]
fn nonfinite(p: &mut Partial, i: usize, a: f64, b: f64) {
    let (ca, cb) = (class(a), class(b));
    if ca > 0 {
        p.nf_a[ca - 1] += 1;
    }
    if cb > 0 {
        p.nf_b[cb - 1] += 1;
    }
    if ca != cb {
        p.nf_mismatch += 1;
        if p.first_nf.idx == NONE {
            p.first_nf = First {
                idx: i as u64,
                a,
                b,
            };
        }
    }
}

/// Run `f` over every block on `threads` threads, handing out runs of
/// `run` consecutive blocks in order and telling `pages` when each is
/// done; results in block order.
pub(super) fn par_blocks<T: Send, S: Send>(
    blocks: usize,
    run: usize,
    threads: usize,
    pages: &Releaser,
    state: impl Fn() -> S + Sync,
    f: impl Fn(usize, &mut S) -> T + Sync,
) -> (Vec<T>, Vec<S>) {
    let next = AtomicUsize::new(0);
    let run = run.max(1);
    let threads = threads.clamp(1, blocks.div_ceil(run).max(1));
    let mut done: Vec<(usize, T)> = Vec::with_capacity(blocks);
    let mut states = Vec::with_capacity(threads);
    let work = || {
        let mut st = state();
        let mut out = Vec::with_capacity(blocks / threads + run);
        loop {
            let r = next.fetch_add(1, Ordering::Relaxed);
            let first = r.saturating_mul(run);
            if first >= blocks {
                break;
            }
            for b in first..(first + run).min(blocks) {
                out.push((b, f(b, &mut st)));
            }
            pages.finished(r);
        }
        (out, st)
    };
    if threads == 1 {
        // One run of work (a small or empty tensor): on this thread. A
        // file of 100,000 small tensors spawns no thread at all.
        let (out, st) = work();
        done = out;
        states.push(st);
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
            for h in handles {
                let (out, st) = h.join().expect("a comparison thread panicked");
                done.extend(out);
                states.push(st);
            }
        });
    }
    done.sort_by_key(|(b, _)| *b);
    (done.into_iter().map(|(_, t)| t).collect(), states)
}

/// Blocks per run for elements of `size` bytes.
fn run_blocks(size: usize) -> usize {
    (RUN_BYTES / (BLOCK * size)).max(1)
}

/// Compare two tensors of the same shape element by element.
pub fn compare(
    a: TensorView,
    b: TensorView,
    tols: &[Tolerance],
    quantile: f64,
    threads: usize,
) -> Metrics {
    compare_on(a, b, tols, quantile, threads, Isa::detect())
}

/// [`compare`] on a given build of the block loop (one of
/// [`Isa::available`]).
pub fn compare_on(
    a: TensorView,
    b: TensorView,
    tols: &[Tolerance],
    quantile: f64,
    threads: usize,
    isa: Isa,
) -> Metrics {
    let pair = Pair::new(a, b, tols, isa);
    let blocks = pair.n.div_ceil(BLOCK);
    let size = a.meta.dtype.size().max(b.meta.dtype.size()).max(1);
    // Runs only matter for dropping pages; otherwise every block is a run,
    // so that small tensors still spread over every thread.
    let run = if pair.release { run_blocks(size) } else { 1 };
    let pages = || Releaser::new(a, b, run * BLOCK, pair.n, pair.release);
    let (partials, hists) = par_blocks(
        blocks,
        run,
        threads,
        &pages(),
        || (Tally::default(), Tally::default()),
        |blk, (ta, tr)| pair.block(blk, ta, tr),
    );
    let mut hist_abs = Histogram::default();
    let mut hist_rel = Histogram::default();
    for (ta, tr) in hists {
        hist_abs.merge(&ta.finish());
        hist_rel.merge(&tr.finish());
    }
    let total = combine(&partials, tols.len());
    let mut s = pairwise(&partials.iter().map(|p| p.sums).collect::<Vec<_>>());

    // Rescale when the squares left f64's comfortable range.
    let risky = |sum: f64, mag: f64| !sum.is_finite() || (mag > 0.0 && sum < 1e-250);
    if risky(s.aa, total.mag_a) || risky(s.bb, total.mag_b) || !s.ab.is_finite() {
        let scale = |m: f64| {
            if m > 0.0 && m.is_finite() {
                2f64.powi(-(m.log2().floor() as i32))
            } else {
                1.0
            }
        };
        let (sa, sb) = (scale(total.mag_a), scale(total.mag_b));
        let (scaled, _) = par_blocks(
            blocks,
            run,
            threads,
            &pages(),
            || (),
            |blk, _| pair.scaled_sums(blk, sa, sb),
        );
        let t = pairwise(&scaled);
        (s.ab, s.aa, s.bb) = (t.ab, t.aa, t.bb);
    }
    pair.metrics(&total, s, (hist_abs, hist_rel), quantile)
}

impl<'a> Pair<'a> {
    fn new(a: TensorView<'a>, b: TensorView<'a>, tols: &'a [Tolerance], isa: Isa) -> Pair<'a> {
        // A build the CPU cannot run is never chosen.
        let isa = if Isa::available().contains(&isa) {
            isa
        } else {
            Isa::detect()
        };
        let shape = &a.meta.shape;
        let linear = row_major(&a) && row_major(&b);
        let same_type = a.meta.dtype == b.meta.dtype;
        let wide_int = matches!(a.meta.dtype, DType::I64 | DType::U64);
        Pair {
            a,
            b,
            shape,
            n: a.elements(),
            linear,
            strides_a: strides(shape, a.meta.layout),
            strides_b: strides(shape, b.meta.layout),
            last: shape.last().copied().unwrap_or(1),
            tols,
            mag: a.meta.dtype == DType::F64 || b.meta.dtype == DType::F64,
            fast_bits: linear && (!same_type || (a.meta.order == b.meta.order && !wide_int)),
            same_type,
            release: linear
                && a.file.is_some()
                && b.file.is_some()
                && a.data.len().max(b.data.len()) > RELEASE_ABOVE,
            isa,
        }
    }

    /// The figures, from the combined partials, the (possibly rescaled)
    /// sums and the two error histograms.
    fn metrics(
        &self,
        total: &Partial,
        s: Sums,
        (hist_abs, hist_rel): (Histogram, Histogram),
        quantile: f64,
    ) -> Metrics {
        let shape = self.shape;
        let at = |w: Worst| {
            (w.idx != NONE).then(|| Place {
                value: w.value,
                index: unravel(w.idx as usize, shape),
                reference: w.a,
                candidate: w.b,
            })
        };
        let first = |f: First| {
            (f.idx != NONE).then(|| Place {
                value: f64::NAN,
                index: unravel(f.idx as usize, shape),
                reference: f.a,
                candidate: f.b,
            })
        };
        let finite = total.finite;
        let cosine = (finite > 0).then(|| {
            if s.aa == 0.0 && s.bb == 0.0 {
                1.0
            } else if s.aa == 0.0 || s.bb == 0.0 {
                0.0
            } else {
                (s.ab / (s.aa.sqrt() * s.bb.sqrt())).clamp(-1.0, 1.0)
            }
        });
        let mean = |x: f64| (finite > 0).then(|| x / finite as f64);
        let counts = |c: [u64; 3]| NonFiniteCounts {
            nan: c[0],
            pos_inf: c[1],
            neg_inf: c[2],
        };
        Metrics {
            elements: self.n as u64,
            finite_pairs: finite,
            cosine,
            max_abs: at(total.max_abs),
            max_rel: at(total.max_rel),
            mean_abs: mean(s.abs),
            mean_rel: mean(s.rel),
            median_abs: hist_abs.quantile(0.5),
            median_rel: hist_rel.quantile(0.5),
            quantile,
            quantile_abs: hist_abs.quantile(quantile),
            quantile_rel: hist_rel.quantile(quantile),
            allclose: self
                .tols
                .iter()
                .zip(&total.close)
                .map(|(t, c)| Allclose {
                    tolerance: *t,
                    mismatches: c.mismatches,
                    worst: at(c.worst),
                })
                .collect(),
            argmax: self.argmax_of(total),
            bits_differing: total.bits,
            first_bit_difference: first(total.first_bits),
            nonfinite: NonFinite {
                reference: counts(total.nf_a),
                candidate: counts(total.nf_b),
                mismatched: total.nf_mismatch,
                first_mismatch: first(total.first_nf),
            },
            abs_histogram: hist_abs,
            rows: None,
            tiles: None,
        }
    }
}

impl Pair<'_> {
    fn argmax_of(&self, total: &Partial) -> Argmax {
        let row_shape = &self.shape[..self.shape.len().saturating_sub(1)];
        Argmax {
            rows: total.rows,
            agree: total.agree,
            first_miss: total
                .first_miss
                .map(|(r, ca, cb)| (unravel(r as usize, row_shape), ca, cb)),
        }
    }
}

/// The blocks' partials combined in block order (rows split between
/// blocks joined), all but the sums.
fn combine(partials: &[Partial], tols: usize) -> Partial {
    let mut total = Partial::new(tols);
    let mut open: Option<RowPart> = None;
    for p in partials {
        total.finite += p.finite;
        total.max_abs = total.max_abs.merge(p.max_abs);
        total.max_rel = total.max_rel.merge(p.max_rel);
        total.mag_a = total.mag_a.max(p.mag_a);
        total.mag_b = total.mag_b.max(p.mag_b);
        for (t, c) in total.close.iter_mut().zip(&p.close) {
            t.mismatches += c.mismatches;
            t.worst = t.worst.merge(c.worst);
        }
        total.bits += p.bits;
        total.first_bits = total.first_bits.merge(p.first_bits);
        for i in 0..3 {
            total.nf_a[i] += p.nf_a[i];
            total.nf_b[i] += p.nf_b[i];
        }
        total.nf_mismatch += p.nf_mismatch;
        total.first_nf = total.first_nf.merge(p.first_nf);
        total.rows += p.rows;
        total.agree += p.agree;
        if let Some(m) = p.first_miss {
            if total.first_miss.is_none_or(|t| m.0 < t.0) {
                total.first_miss = Some(m);
            }
        }
        for part in &p.parts {
            open = match open {
                Some(o) if o.row == part.row => Some(RowPart {
                    row: o.row,
                    a: o.a.merge(part.a),
                    b: o.b.merge(part.b),
                }),
                Some(o) => {
                    total.row_done(o);
                    Some(*part)
                }
                None => Some(*part),
            };
        }
    }
    if let Some(o) = open {
        total.row_done(o);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::dtype::{ByteOrder, DType};
    use crate::prove::tensor::{RawSpec, TensorFile};

    /// Every build of the block loop this CPU runs gives the same figures,
    /// bit for bit, on one thread or three: values spread over many
    /// binades, exact ties, zeros, a NaN and an infinity now and then, rows
    /// that straddle blocks and a ragged last chunk.
    #[test]
    fn every_instruction_set_gives_the_same_figures() {
        let (rows, cols) = (301, 700);
        let mut rng = crate::test_rng::Rng(0x15a_2026);
        let mut unit = || (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..rows * cols {
            let x = ((unit() - 0.5) * 2f64.powi((unit() * 40.0) as i32 - 20)) as f32;
            let y = match i % 211 {
                0 => f32::NAN,
                1 => x,
                2 => 0.0,
                3 if i % 7 == 0 => f32::INFINITY,
                _ => x * (1.0 + ((unit() - 0.5) * 1e-3) as f32),
            };
            a.extend_from_slice(&x.to_le_bytes());
            b.extend_from_slice(&y.to_le_bytes());
        }
        let dir = tempfile::tempdir().unwrap();
        let spec = RawSpec {
            dtype: DType::F32,
            order: ByteOrder::Little,
            shape: vec![rows, cols],
        };
        let open = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            TensorFile::open(&path, Some(&spec)).unwrap()
        };
        let (fa, fb) = (open("a.bin", &a), open("b.bin", &b));
        let tols = [Tolerance {
            rtol: 1e-4,
            atol: 1e-6,
            defaulted: false,
        }];
        let run = |isa, threads| {
            let (va, vb) = (fa.view(&fa.tensors[0]), fb.view(&fb.tensors[0]));
            compare_on(va, vb, &tols, 0.9, threads, isa)
        };
        let first = run(Isa::Baseline, 1);
        assert!(first.nonfinite.candidate.total() > 0 && first.nonfinite.mismatched > 0);
        assert!(first.allclose[0].mismatches > 0 && first.finite_pairs > 200_000);
        // Compared as text: a NaN reported in a place equals itself there.
        let expect = format!("{first:?}");
        for isa in Isa::available() {
            for threads in [1, 3] {
                let got = format!("{:?}", run(isa, threads));
                assert!(got == expect, "{isa:?} on {threads} threads differs");
            }
        }
    }
}
