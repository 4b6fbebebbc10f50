//! The typed reading of each table of the fast path: the same rules as
//! `parse::Walker`, but any broken rule is a `None` (the slow path then
//! says what is wrong).

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;

use rustc_hash::FxHashSet;

use super::super::keys;
use super::super::model::*;
use super::super::parse::{is_http_url, is_kebab, parse_anchor};
use super::{Field, Val, MAX_KEYS};
use crate::glob::FileGlob;

fn string(field: Field<'_>, required: bool) -> Option<Option<Located<String>>> {
    match field {
        None if required => None,
        None => Some(None),
        Some((Val::Str(s), span)) if !s.trim().is_empty() => {
            Some(Some(Located::new(s.into_owned(), span)))
        }
        Some(_) => None,
    }
}

fn required(field: Field<'_>) -> Option<Located<String>> {
    string(field, true).flatten()
}

fn strings(field: Field<'_>) -> Option<Vec<Located<String>>> {
    match field {
        None => Some(Vec::new()),
        Some((Val::Array(items), _)) => items
            .into_iter()
            .map(|item| match item {
                (Val::Str(s), span) if !s.trim().is_empty() => {
                    Some(Located::new(s.into_owned(), span))
                }
                _ => None,
            })
            .collect(),
        Some(_) => None,
    }
}

fn globs(field: Field<'_>) -> Option<Vec<Located<FileGlob>>> {
    strings(field)?
        .into_iter()
        .map(|Located { value, span }| {
            FileGlob::from_string(value)
                .ok()
                .map(|g| Located::new(g, span))
        })
        .collect()
}

fn anchors(field: Field<'_>) -> Option<Vec<Located<Anchor>>> {
    strings(field)?
        .into_iter()
        .map(|a| parse_anchor(&a.value).ok().map(|x| Located::new(x, a.span)))
        .collect()
}

fn link(field: Field<'_>) -> Option<Option<Located<String>>> {
    let link = string(field, false)?;
    match link {
        Some(l) if !is_http_url(&l.value) => None,
        link => Some(link),
    }
}

fn integer(field: Field<'_>) -> Option<Option<Located<i64>>> {
    match field {
        None => Some(None),
        Some((Val::Int(s, radix), span)) => i64::from_str_radix(&s, radix)
            .ok()
            .map(|n| Some(Located::new(n, span))),
        Some(_) => None,
    }
}

fn number(field: Field<'_>) -> Option<Option<f64>> {
    let n = match field {
        None => return Some(None),
        Some((Val::Int(s, radix), _)) => i64::from_str_radix(&s, radix).ok()? as f64,
        Some((Val::Float(s), _)) => s.parse::<f64>().ok()?,
        Some(_) => return None,
    };
    n.is_finite().then_some(Some(n))
}

fn date(field: Field<'_>) -> Option<Option<Located<Date>>> {
    match field {
        None => Some(None),
        Some((Val::Date(dt), span)) => match (dt.date, dt.time, dt.offset) {
            (Some(d), None, None) => Some(Some(Located::new(
                Date {
                    year: d.year,
                    month: d.month,
                    day: d.day,
                },
                span,
            ))),
            _ => None,
        },
        Some((Val::Str(s), span)) => Date::parse(&s).map(|d| Some(Located::new(d, span))),
        Some(_) => None,
    }
}

pub(super) fn project(fields: [Field<'_>; MAX_KEYS]) -> Option<(Project, Option<Located<String>>)> {
    let [name, reviewed, provenance, fresh_days, root, ..] = fields;
    let name = required(name)?;
    let reviewed = date(reviewed)?;
    let provenance = string(provenance, false)?;
    let fresh_days = match integer(fresh_days)? {
        Some(n) if (1..=3650).contains(&n.value) => n.value as u32,
        Some(_) => return None,
        None => DEFAULT_FRESH_DAYS,
    };
    let root = string(root, false)?;
    if root
        .as_ref()
        .is_some_and(|r| Path::new(&r.value).is_absolute())
    {
        return None;
    }
    let project = Project {
        name: name.value,
        reviewed,
        provenance: provenance.map(|p| p.value),
        fresh_days,
    };
    Some((project, root))
}

pub(super) fn kernels(fields: [Field<'_>; MAX_KEYS]) -> Option<Kernels> {
    let [include, exclude, ..] = fields;
    include.as_ref()?;
    Some(Kernels {
        include: globs(include)?,
        exclude: globs(exclude)?,
    })
}

pub(super) fn op(fields: [Field<'_>; MAX_KEYS], slugs: &mut FxHashSet<String>) -> Option<Op> {
    // In the order of `keys::OP`.
    let [slug, title, files, at, where_, sota, link_, route, oracle, check, witness, papers, note] =
        fields;
    let slug = required(slug)?;
    if !is_kebab(&slug.value) || !slugs.insert(slug.value.clone()) {
        return None;
    }
    let route = match string(route, false)? {
        Some(r) => Some(Located::new(Route::parse(&r.value)?, r.span)),
        None => None,
    };
    Some(Op {
        title: required(title)?.value,
        files: globs(files)?,
        at: anchors(at)?,
        where_: string(where_, false)?.map(|w| w.value),
        sota: required(sota)?.value,
        link: link(link_)?,
        route,
        oracle: string(oracle, false)?.map(|o| o.value),
        check: checks(check)?,
        witness: anchors(witness)?,
        papers: strings(papers)?.into_iter().map(|p| p.value).collect(),
        note: string(note, false)?.map(|n| n.value),
        slug,
    })
}

fn checks(field: Field<'_>) -> Option<Vec<Located<Check>>> {
    let items = match field {
        None => return Some(Vec::new()),
        Some((Val::Array(items), _)) => items,
        Some(_) => return None,
    };
    items
        .into_iter()
        .map(|item| match item {
            (Val::Table(entries), span) => check(entries).map(|c| Located::new(c, span)),
            _ => None,
        })
        .collect()
}

fn check(entries: Vec<(Cow<'_, str>, Val<'_>, Range<usize>)>) -> Option<Check> {
    // In the order of `keys::CHECK`.
    let mut fields: [Field<'_>; 5] = Default::default();
    for (key, value, span) in entries {
        let i = keys::CHECK.iter().position(|k| *k == key)?;
        fields[i] = Some((value, span));
    }
    let [metric, min, max, rtol, atol] = fields;
    let metric = required(metric)?;
    let kind = metric.value.parse::<Metric>().ok()?;
    let params = kind.parameters();
    let present = [
        ("min", &min),
        ("max", &max),
        ("rtol", &rtol),
        ("atol", &atol),
    ];
    if present
        .iter()
        .any(|(key, field)| field.is_some() && !params.contains(key))
    {
        return None;
    }
    let unit = |field: Field<'_>, lo: f64, hi: f64, default: Option<f64>| -> Option<f64> {
        match number(field)? {
            Some(n) if n >= lo && n <= hi => Some(n),
            Some(_) => None,
            None => default,
        }
    };
    Some(match kind {
        Metric::Cosine => Check::Cosine {
            min: unit(min, -1.0, 1.0, None)?,
        },
        Metric::Argmax => Check::Argmax {
            min: unit(min, 0.0, 1.0, Some(1.0))?,
        },
        Metric::MaxAbs => Check::MaxAbs {
            max: unit(max, 0.0, f64::MAX, None)?,
        },
        Metric::MaxRel => Check::MaxRel {
            max: unit(max, 0.0, f64::MAX, None)?,
        },
        Metric::Allclose => {
            let tol = |field: Field<'_>| match field {
                Some(field) => unit(Some(field), 0.0, f64::MAX, None).map(Some),
                None => Some(None),
            };
            Check::Allclose {
                rtol: tol(rtol)?,
                atol: tol(atol)?,
            }
        }
        Metric::BitIdentity => Check::BitIdentity,
    })
}

/// A `[[ladder]]` whose rungs may still follow.
pub(super) struct LadderParts {
    axis: Located<String>,
    reached: Option<Located<String>>,
    witness: Option<Located<String>>,
    next_note: Option<String>,
    pub(super) rungs: Vec<Rung>,
    pub(super) names: FxHashSet<String>,
}

impl LadderParts {
    pub(super) fn finish(self) -> Option<Ladder> {
        if self.rungs.is_empty() {
            return None;
        }
        let reached = match &self.reached {
            Some(r) => Some(self.rungs.iter().position(|rung| rung.name == r.value)?),
            None => None,
        };
        if self.reached.is_some() != self.witness.is_some() {
            return None;
        }
        Some(Ladder {
            axis: self.axis,
            reached,
            reached_span: self.reached.map(|r| r.span),
            witness: self.witness,
            next_note: self.next_note,
            rungs: self.rungs,
        })
    }
}

pub(super) fn ladder(
    fields: [Field<'_>; MAX_KEYS],
    axes: &mut FxHashSet<String>,
) -> Option<LadderParts> {
    // In the order of `keys::LADDER`; `rung` is read from its own headers.
    let [axis, reached, witness, next_note, rung, ..] = fields;
    if rung.is_some() {
        return None;
    }
    let axis = required(axis)?;
    if !is_kebab(&axis.value) || !axes.insert(axis.value.clone()) {
        return None;
    }
    Some(LadderParts {
        axis,
        reached: string(reached, false)?,
        witness: string(witness, false)?,
        next_note: string(next_note, false)?.map(|n| n.value),
        rungs: Vec::new(),
        names: FxHashSet::default(),
    })
}

pub(super) fn rung(fields: [Field<'_>; MAX_KEYS]) -> Option<Rung> {
    // In the order of `keys::RUNG`.
    let [name, year, summary, cite, link_, ..] = fields;
    let name = required(name)?;
    let year = integer(year)??;
    if !(1900..=2100).contains(&year.value) {
        return None;
    }
    Some(Rung {
        name: name.value,
        year: year.value as u16,
        summary: required(summary)?.value,
        cite: string(cite, false)?.map(|c| c.value),
        link: link(link_)?.map(|l| l.value),
    })
}
