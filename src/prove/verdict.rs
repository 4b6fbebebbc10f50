//! Checks against measured metrics: each check's value, its bound, and
//! PASS or FAIL. Non-finite values in different places fail every check
//! but bit-identity (which judges bytes): NaN and Inf are never silently
//! equal, and never silently ignored. A pair with no finite element to
//! measure fails every check but bit-identity: a check that measured
//! nothing proved nothing.

use crate::matrix::{Check, LocalStat, Scope};

use super::dtype::DType;
use super::metrics::{Metrics, Tolerance};

/// One check's outcome on one pair of tensors.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// The check with every default filled in (allclose tolerances).
    pub check: Check,
    /// The measured value the bound applies to (`None`: nothing to measure,
    /// e.g. no finite pairs).
    pub value: Option<f64>,
    /// The bound as text: `≥ 0.999`, `≤ 1e-3`, `0 violations`.
    pub bound: String,
    pub pass: bool,
    /// Why, when the value alone does not say it.
    pub note: Option<String>,
}

/// The tolerance an allclose check means for this dtype.
pub fn resolve(check: &Check, dtype: DType) -> Option<Tolerance> {
    let Check::Allclose { rtol, atol } = check else {
        return None;
    };
    let (dr, da) = dtype.default_tolerances();
    Some(Tolerance {
        rtol: rtol.unwrap_or(dr),
        atol: atol.unwrap_or(da),
        defaulted: rtol.is_none() && atol.is_none(),
    })
}

/// The allclose tolerances to measure: those the checks ask for, else
/// the default for the (candidate's) dtype (always reported).
pub fn tolerances(checks: &[Check], dtype: DType) -> Vec<Tolerance> {
    let mut out: Vec<Tolerance> = Vec::new();
    for t in checks.iter().filter_map(|c| resolve(c, dtype)) {
        if !out.iter().any(|o| o.rtol == t.rtol && o.atol == t.atol) {
            out.push(t);
        }
    }
    if out.is_empty() {
        let (rtol, atol) = dtype.default_tolerances();
        out.push(Tolerance {
            rtol,
            atol,
            defaulted: true,
        });
    }
    out
}

/// Judge every check against the metrics of one pair; `dtype` is the
/// candidate's (it sets allclose's default tolerances).
pub fn judge(checks: &[Check], m: &Metrics, dtype: DType) -> Vec<CheckResult> {
    checks.iter().map(|c| judge_one(c, m, dtype)).collect()
}

/// A check's value, bound text, verdict and note, before the NaN/Inf and
/// nothing-measured rules.
type Measured = (Check, Option<f64>, String, bool, Option<String>);

fn at_least(check: &Check, v: Option<f64>, min: f64) -> Measured {
    let note = v.is_none().then(|| "no finite pairs to measure".to_owned());
    (
        check.clone(),
        v,
        format!("≥ {min}"),
        v.is_none_or(|v| v >= min),
        note,
    )
}

fn at_most(check: &Check, v: Option<f64>, max: f64) -> Measured {
    let note = v.is_none().then(|| "no finite pairs to measure".to_owned());
    (
        check.clone(),
        v,
        format!("≤ {max}"),
        v.is_none_or(|v| v <= max),
        note,
    )
}

fn measure(check: &Check, m: &Metrics, dtype: DType) -> Measured {
    match *check {
        Check::Cosine { min } => at_least(check, m.cosine, min),
        Check::MaxAbs { max } => at_most(check, m.max_abs.as_ref().map(|p| p.value), max),
        Check::MaxRel { max } => at_most(check, m.max_rel.as_ref().map(|p| p.value), max),
        Check::Argmax { min } => {
            let v = m.argmax.fraction();
            (check.clone(), Some(v), format!("≥ {min}"), v >= min, None)
        }
        Check::BitIdentity => {
            let v = m.bits_differing;
            let bound = "0 differing".to_owned();
            (check.clone(), Some(v as f64), bound, v == 0, None)
        }
        Check::Allclose { .. } => {
            let t = resolve(check, dtype).expect("an allclose check");
            let found = m
                .allclose
                .iter()
                .find(|a| a.tolerance.rtol == t.rtol && a.tolerance.atol == t.atol)
                .expect("every allclose check's tolerance is measured");
            let resolved = Check::Allclose {
                rtol: Some(t.rtol),
                atol: Some(t.atol),
            };
            let n = found.mismatches;
            (
                resolved,
                Some(n as f64),
                "0 outside".to_owned(),
                n == 0,
                None,
            )
        }
        Check::Local { scope, stat, bound } => {
            let local = match scope {
                Scope::Row => m.rows.as_ref(),
                Scope::Tile => m.tiles.as_ref(),
            };
            let v = local.and_then(|l| l.worst(stat)).map(|w| w.value);
            let mut out = if stat.is_min() {
                at_least(check, v, bound)
            } else {
                at_most(check, v, bound)
            };
            if let Some(l) = local.filter(|_| !out.3) {
                out.4 = Some(format!(
                    "{} of {} {} fail",
                    l.failing(stat, bound),
                    l.groups,
                    l.noun()
                ));
            }
            out
        }
    }
}

fn judge_one(check: &Check, m: &Metrics, dtype: DType) -> CheckResult {
    let (check, value, bound, mut pass, mut note) = measure(check, m, dtype);
    let nf = &m.nonfinite;
    if nf.mismatched > 0 && check != Check::BitIdentity {
        pass = false;
        note = Some(format!(
            "{} position{} where NaN/Inf differ",
            nf.mismatched,
            if nf.mismatched == 1 { "" } else { "s" }
        ));
    }
    if let (true, Some(why)) = (pass && check != Check::BitIdentity, unmeasured(m)) {
        pass = false;
        note = Some(why);
    }
    CheckResult {
        check,
        value,
        bound,
        pass,
        note,
    }
}

/// The localized bounds of `checks` for one scope, to count failing
/// groups against.
pub fn local_bounds(checks: &[Check], scope: Scope) -> Vec<(LocalStat, f64)> {
    let mut out = Vec::new();
    for c in checks {
        if let Check::Local {
            scope: s,
            stat,
            bound,
        } = *c
        {
            if s == scope && !out.contains(&(stat, bound)) {
                out.push((stat, bound));
            }
        }
    }
    out
}

/// Why a numeric check measured nothing, when it did not: every position
/// NaN/Inf on both sides, or no element at all. Such a check has proved
/// nothing and fails; bit-identity judges bytes, so it is the check that
/// says a NaN result is expected.
fn unmeasured(m: &Metrics) -> Option<String> {
    if m.finite_pairs > 0 {
        return None;
    }
    Some(if m.elements == 0 {
        "no elements to measure: the tensors are empty".to_owned()
    } else {
        "no finite pairs to measure: every position is NaN/Inf on both sides (check bit-identity if that is expected)".to_owned()
    })
}
