//! The milestone-ladder surface (SPEC 3.2): where the project stands on each
//! capability's dated SOTA arc, and the next rung.
//!
//! Pure: takes the matrix, returns views; rendering is the output layer's.

use crate::matrix::{Ladder, Matrix, Origin, Rung};

/// A rung with its 1-based level (`L1`, `L2`, …) and its mark.
#[derive(Debug)]
pub struct RungView<'m> {
    pub level: usize,
    pub rung: &'m Rung,
    pub mark: Mark,
}

/// How a rung relates to the project's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The highest rung reached (`=>`).
    Reached,
    /// The next milestone (`->`).
    Next,
    /// Any other rung.
    None,
}

/// One ladder as seen from the project.
#[derive(Debug)]
pub struct LadderView<'m> {
    pub ladder: &'m Ladder,
    pub reached: Option<RungView<'m>>,
    pub next: Option<RungView<'m>>,
    pub rungs: Vec<RungView<'m>>,
}

impl<'m> LadderView<'m> {
    /// The ladder as seen from a project. With `has_project` false (the
    /// built-in catalog) there is no position, so no rung is marked.
    pub fn new(ladder: &'m Ladder, has_project: bool) -> Self {
        let next_i = ladder.next().map(|(i, _)| i).filter(|_| has_project);
        let rungs: Vec<RungView<'m>> = ladder
            .rungs
            .iter()
            .enumerate()
            .map(|(i, rung)| RungView {
                level: i + 1,
                rung,
                mark: if Some(i) == ladder.reached {
                    Mark::Reached
                } else if Some(i) == next_i {
                    Mark::Next
                } else {
                    Mark::None
                },
            })
            .collect();
        let view = |i: usize, mark| RungView {
            level: i + 1,
            rung: &ladder.rungs[i],
            mark,
        };
        LadderView {
            ladder,
            reached: ladder.reached.map(|i| view(i, Mark::Reached)),
            next: next_i.map(|i| view(i, Mark::Next)),
            rungs,
        }
    }

    pub fn axis(&self) -> &'m str {
        &self.ladder.axis.value
    }
}

/// Every ladder of the matrix, in file order.
pub fn overview(matrix: &Matrix) -> Vec<LadderView<'_>> {
    let has_project = matrix.origin == Origin::Project;
    matrix
        .ladders
        .iter()
        .map(|l| LadderView::new(l, has_project))
        .collect()
}

/// The ladder on `axis`, or the list of axes to choose from.
pub fn ladder<'m>(matrix: &'m Matrix, axis: &str) -> Result<LadderView<'m>, Vec<&'m str>> {
    matrix
        .ladder(axis)
        .map(|l| LadderView::new(l, matrix.origin == Origin::Project))
        .ok_or_else(|| {
            matrix
                .ladders
                .iter()
                .map(|l| l.axis.value.as_str())
                .collect()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reached_and_next_are_marked() {
        let m = Matrix::from_str(
            r#"
[project]
name = "t"
[[ladder]]
axis = "attention"
reached = "A"
witness = "src/a.cu"
[[ladder.rung]]
name = "A"
year = 2022
summary = "a"
[[ladder.rung]]
name = "B"
year = 2023
summary = "b"
[[ladder.rung]]
name = "C"
year = 2024
summary = "c"
[[ladder]]
axis = "batching"
[[ladder.rung]]
name = "X"
year = 2022
summary = "x"
"#,
            "sota.toml",
        )
        .unwrap();
        let views = overview(&m);
        let marks: Vec<Mark> = views[0].rungs.iter().map(|r| r.mark).collect();
        assert_eq!(marks, vec![Mark::Reached, Mark::Next, Mark::None]);
        assert_eq!(views[0].next.as_ref().map(|n| n.level), Some(2));
        assert!(views[1].reached.is_none());
        assert_eq!(
            views[1].next.as_ref().map(|n| n.rung.name.as_str()),
            Some("X")
        );
        assert_eq!(
            ladder(&m, "nope").unwrap_err(),
            vec!["attention", "batching"]
        );
    }
}
