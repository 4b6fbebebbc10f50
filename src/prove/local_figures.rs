//! What the localized pass (`local.rs`) found — the worst row or tile
//! per statistic and how many fail each bound — as the metrics carry it.

use crate::matrix::LocalStat;

/// A value at a position, with both tensors' elements there.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub value: f64,
    pub index: Vec<usize>,
    pub reference: f64,
    pub candidate: f64,
}

/// How elements are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// Every 1-D slice along `axis` (an index into the shape).
    Rows { axis: usize },
    /// Tiles of `h` rows × `w` columns over the last two axes (the leading
    /// axes are a batch; edge tiles are smaller).
    Tiles { h: usize, w: usize },
}

/// The worst group by one statistic.
#[derive(Clone, Debug, PartialEq)]
pub struct WorstGroup {
    pub value: f64,
    /// The index of the group's first element.
    pub origin: Vec<usize>,
    /// For max-abs: the element where it occurs.
    pub at: Option<Place>,
}

/// What the grouping found.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub grouping: Grouping,
    /// Groups with at least one finite pair (the others are not measured).
    pub groups: u64,
    pub cosine: Option<WorstGroup>,
    pub max_abs: Option<WorstGroup>,
    pub rel_l2: Option<WorstGroup>,
    /// For each bound asked: the statistic, the bound, and how many groups
    /// are on the wrong side of it.
    pub failing: Vec<(LocalStat, f64, u64)>,
}

impl Local {
    pub fn worst(&self, stat: LocalStat) -> Option<&WorstGroup> {
        match stat {
            LocalStat::Cosine => self.cosine.as_ref(),
            LocalStat::MaxAbs => self.max_abs.as_ref(),
            LocalStat::RelL2 => self.rel_l2.as_ref(),
        }
    }

    /// Groups failing `bound` on `stat` (0 when that bound was not asked).
    pub fn failing(&self, stat: LocalStat, bound: f64) -> u64 {
        self.failing
            .iter()
            .find(|(s, b, _)| *s == stat && *b == bound)
            .map_or(0, |f| f.2)
    }

    /// "rows" or "tiles".
    pub fn noun(&self) -> &'static str {
        match self.grouping {
            Grouping::Rows { .. } => "rows",
            Grouping::Tiles { .. } => "tiles",
        }
    }
}
