//! The read-only answers: the op table, a lookup (slug, file or search), and
//! the milestone ladders.

use crate::context::Context;
use crate::did_you_mean::did_you_mean;
use crate::matrix::Matrix;
use crate::outcome::{Failure, Outcome};
use crate::surface::lookup::{self as surface, Lookup};
use crate::surface::milestones::{self, LadderView};

/// A lookup's answer, with a hint when the words look like a mistyped
/// subcommand (`sota covrage`).
#[derive(Debug)]
pub struct LookupReport<'m> {
    pub matrix: &'m Matrix,
    pub lookup: Lookup<'m>,
    /// `coverage` for `covrage`, when nothing matched.
    pub command_hint: Option<String>,
}

impl LookupReport<'_> {
    pub fn outcome(&self) -> Outcome {
        match self.lookup {
            Lookup::NotFound(_) => Outcome::NotFound,
            _ => Outcome::Done,
        }
    }
}

/// Look `query` up. `commands` are the front end's subcommand names, for
/// "did you mean `sota coverage`?" when nothing matches.
pub fn lookup<'c>(
    ctx: &'c Context,
    query: &str,
    commands: &[&str],
) -> Result<LookupReport<'c>, Failure> {
    let matrix = ctx.matrix()?;
    let lookup = surface::lookup(matrix, query, ctx.cwd());
    let command_hint = match &lookup {
        Lookup::NotFound(_) => {
            let mut words = query.split_whitespace();
            let first = words.next().unwrap_or("");
            did_you_mean(first, commands.iter().copied())
                .first()
                .map(|cmd| {
                    std::iter::once(*cmd)
                        .chain(words)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
        }
        _ => None,
    };
    Ok(LookupReport {
        matrix,
        lookup,
        command_hint,
    })
}

/// The milestones answer: every ladder, one ladder, or an unknown axis.
#[derive(Debug)]
pub enum Milestones<'m> {
    Overview(Vec<LadderView<'m>>),
    Ladder(LadderView<'m>),
    UnknownAxis {
        axis: String,
        did_you_mean: Vec<&'m str>,
        axes: Vec<&'m str>,
    },
}

/// The ladders report, with the matrix they come from.
#[derive(Debug)]
pub struct MilestonesReport<'m> {
    pub matrix: &'m Matrix,
    pub milestones: Milestones<'m>,
}

impl MilestonesReport<'_> {
    pub fn outcome(&self) -> Outcome {
        match self.milestones {
            Milestones::UnknownAxis { .. } => Outcome::NotFound,
            _ => Outcome::Done,
        }
    }
}

/// All ladders (`axis` none) or one ladder, rung by rung.
pub fn milestones<'c>(
    ctx: &'c Context,
    axis: Option<&str>,
) -> Result<MilestonesReport<'c>, Failure> {
    let matrix = ctx.matrix()?;
    let milestones = match axis {
        None => Milestones::Overview(milestones::overview(matrix)),
        Some(axis) => match milestones::ladder(matrix, axis) {
            Ok(view) => Milestones::Ladder(view),
            Err(axes) => Milestones::UnknownAxis {
                axis: axis.to_owned(),
                did_you_mean: did_you_mean(axis, axes.iter().copied()),
                axes,
            },
        },
    };
    Ok(MilestonesReport { matrix, milestones })
}
