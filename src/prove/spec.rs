//! The `--check SPEC` syntax (the same checks `sota.toml`'s `check` holds,
//! with the same bounds), `--shape` and `--dtype` for raw files.
//!
//! ```text
//! SPEC := ENTRY (';' ENTRY)*             --check may also be repeated
//! ITEM := cosine >= X                  X in [-1, 1]
//!       | argmax [>= X]                X in [0, 1], default 1
//!       | max-abs <= X | max-rel <= X  X >= 0
//!       | allclose [: rtol=X [, atol=Y]]   torch.testing's dtype defaults for what is left out
//!       | bit-identity
//!       | (row|tile)-cosine >= X       the worst row / tile
//!       | (row|tile)-(max-abs|rel-l2) <= X
//! ENTRY := [DTYPE (',' DTYPE)* ':'] ITEM   only for candidates of these dtypes
//! ```
//! `≥` and `≤` may stand for `>=` and `<=`; spaces are ignored.

use crate::did_you_mean;
use crate::matrix::{Check, CheckEntry, Metric};

use super::dtype::{ByteOrder, DType};

/// Parse one `--check` value into checks.
pub fn parse_checks(spec: &str) -> Result<Vec<CheckEntry>, String> {
    let mut out = Vec::new();
    for item in spec.split(';') {
        let item: String = item.chars().filter(|c| !c.is_whitespace()).collect();
        if item.is_empty() {
            continue;
        }
        out.push(parse_entry(&item)?);
    }
    if out.is_empty() {
        return Err(format!(
            "`{spec}` holds no check; e.g. --check 'cosine>=0.999'"
        ));
    }
    Ok(out)
}

/// `[DTYPE[,DTYPE]*:]ITEM`: a check, for the candidate dtypes named before
/// the first `:` (when every name there is a dtype), else for every dtype.
fn parse_entry(item: &str) -> Result<CheckEntry, String> {
    if let Some((head, rest)) = item.split_once(':') {
        let dtypes: Option<Vec<DType>> = head.split(',').map(DType::parse).collect();
        if let Some(dtypes) = dtypes.filter(|d| !d.is_empty()) {
            return Ok(CheckEntry {
                check: parse_item(rest)?,
                dtypes,
            });
        }
    }
    Ok(CheckEntry::any(parse_item(item)?))
}

fn parse_item(item: &str) -> Result<Check, String> {
    let item = item.replace('≥', ">=").replace('≤', "<=");
    let name_end = item
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(item.len());
    let (name, rest) = item.split_at(name_end);
    let name = name.to_ascii_lowercase().replace('_', "-");
    let number = |op: &str, lo: f64, hi: f64| bound(&item, &name, rest, op, lo, hi);
    let check = match name.as_str() {
        "cosine" => Check::Cosine {
            min: number(">=", -1.0, 1.0)?,
        },
        "argmax" if rest.is_empty() => Check::Argmax { min: 1.0 },
        "argmax" => Check::Argmax {
            min: number(">=", 0.0, 1.0)?,
        },
        "max-abs" => Check::MaxAbs {
            max: number("<=", 0.0, f64::MAX)?,
        },
        "max-rel" => Check::MaxRel {
            max: number("<=", 0.0, f64::MAX)?,
        },
        "bit-identity" if rest.is_empty() => Check::BitIdentity,
        "bit-identity" => return Err(format!("`{item}`: bit-identity takes no bound")),
        "allclose" => allclose(&item, rest)?,
        other => match other.parse::<Metric>().ok().and_then(Metric::local) {
            Some((scope, stat)) => Check::Local {
                scope,
                stat,
                bound: if stat.is_min() {
                    number(">=", -1.0, 1.0)?
                } else {
                    number("<=", 0.0, f64::MAX)?
                },
            },
            None => return Err(unknown_metric(other, &item)),
        },
    };
    Ok(check)
}

/// The number after `op` in `rest`, within `[lo, hi]`.
fn bound(item: &str, name: &str, rest: &str, op: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let Some(num) = rest.strip_prefix(op) else {
        return Err(format!(
            "`{item}`: write `{name}{op}NUMBER`, e.g. `{}`",
            example(name)
        ));
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("`{item}`: `{num}` is not a number"))?;
    if !(lo..=hi).contains(&x) {
        return Err(format!("`{item}`: the bound must be within [{lo}, {hi}]"));
    }
    Ok(x)
}

/// `allclose`, `allclose:rtol=X,atol=Y` or `allclose(rtol=X)`.
fn allclose(item: &str, rest: &str) -> Result<Check, String> {
    let (mut rtol, mut atol) = (None, None);
    if rest.is_empty() {
        return Ok(Check::Allclose { rtol, atol });
    }
    let Some(params) = rest
        .strip_prefix(':')
        .or_else(|| rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')))
    else {
        return Err(format!(
            "`{item}`: write `allclose` or `allclose:rtol=1e-5,atol=1e-8`"
        ));
    };
    for kv in params.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("`{item}`: `{kv}` is not key=value (rtol=…, atol=…)"))?;
        let x: f64 = v
            .parse()
            .ok()
            .filter(|x: &f64| *x >= 0.0 && x.is_finite())
            .ok_or_else(|| format!("`{item}`: `{v}` is not a non-negative number"))?;
        match k {
            "rtol" => rtol = Some(x),
            "atol" => atol = Some(x),
            _ => {
                return Err(format!(
                    "`{item}`: unknown parameter `{k}`; allclose takes rtol and atol"
                ))
            }
        }
    }
    Ok(Check::Allclose { rtol, atol })
}

fn unknown_metric(other: &str, item: &str) -> String {
    let names = Metric::names();
    let dym = did_you_mean::phrase(other, names.iter().copied());
    format!(
        "unknown metric `{other}` in `{item}`; {}metrics: {}",
        dym.map(|d| format!("{d} ")).unwrap_or_default(),
        names.join(", ")
    )
}

/// Parse `--tile`: `16x16`, `16,16` or `16` (square).
pub fn parse_tile(text: &str) -> Result<(usize, usize), String> {
    let dims = parse_shape(text)?;
    match dims[..] {
        [n] if n > 0 => Ok((n, n)),
        [h, w] if h > 0 && w > 0 => Ok((h, w)),
        _ => Err(format!(
            "`{text}`: write ROWSxCOLS with positive sizes, e.g. 16x16"
        )),
    }
}

fn example(name: &str) -> &'static str {
    match name {
        "cosine" => "cosine>=0.999",
        "argmax" => "argmax>=0.99",
        "max-abs" => "max-abs<=1e-3",
        "row-cosine" => "row-cosine>=0.999",
        "tile-cosine" => "tile-cosine>=0.999",
        "row-max-abs" => "row-max-abs<=1e-3",
        "tile-max-abs" => "tile-max-abs<=1e-3",
        "row-rel-l2" => "row-rel-l2<=1e-2",
        "tile-rel-l2" => "tile-rel-l2<=1e-2",
        _ => "max-rel<=1e-2",
    }
}

/// Parse `--shape`: `2,3,4`, `2x3x4`, `[2, 3, 4]`, `(2, 3, 4)`; `()` or an
/// empty string is a scalar.
pub fn parse_shape(text: &str) -> Result<Vec<usize>, String> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t
        .trim_start_matches(['[', '('])
        .trim_end_matches([']', ')'])
        .to_string();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    t.split([',', 'x', '×'])
        .filter(|s| !s.is_empty())
        .map(|d| {
            d.parse::<usize>()
                .map_err(|_| format!("`{text}`: `{d}` is not a dimension (write e.g. 2,3,4)"))
        })
        .collect()
}

/// Parse `--dtype`: a type name (`f32`, `bf16`, `float8_e4m3fn`, …), with
/// an optional NumPy byte-order prefix (`<f4`-style codes are accepted too).
pub fn parse_dtype(text: &str) -> Result<(DType, ByteOrder), String> {
    let t = text.trim();
    let (order, name) = match t.chars().next() {
        Some('<') => (ByteOrder::Little, &t[1..]),
        Some('>') => (ByteOrder::Big, &t[1..]),
        Some('|' | '=') => (ByteOrder::Little, &t[1..]),
        _ => (ByteOrder::Little, t),
    };
    let numpy = match name {
        "f2" => Some(DType::F16),
        "f4" => Some(DType::F32),
        "f8" => Some(DType::F64),
        "i1" => Some(DType::I8),
        "i2" => Some(DType::I16),
        "i4" => Some(DType::I32),
        "u1" => Some(DType::U8),
        "u2" => Some(DType::U16),
        "u4" => Some(DType::U32),
        "u8" => Some(DType::U64),
        "b1" => Some(DType::Bool),
        _ => None,
    };
    // `i8`/`u8` mean 8-bit integers here (Rust names), not NumPy's 8-byte ones.
    let dtype = DType::parse(name).or(numpy).ok_or_else(|| {
        format!(
            "unknown dtype `{text}`; one of {} (prefix `>` for big-endian)",
            DType::ALL.map(DType::name).join(", ")
        )
    })?;
    Ok((dtype, order))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_checks(spec: &str) -> Result<Vec<Check>, String> {
        super::parse_checks(spec).map(|v| v.into_iter().map(|e| e.check).collect())
    }

    #[test]
    fn localized_and_dtype_restricted_checks_parse() {
        use crate::matrix::{LocalStat, Scope};
        let got = super::parse_checks(
            "row-cosine>=0.999; bf16,f16: tile-rel-l2<=0.02; bf16:allclose:rtol=1e-2",
        )
        .unwrap();
        assert_eq!(
            got[0],
            CheckEntry::any(Check::Local {
                scope: Scope::Row,
                stat: LocalStat::Cosine,
                bound: 0.999
            })
        );
        assert_eq!(
            got[1].check,
            Check::Local {
                scope: Scope::Tile,
                stat: LocalStat::RelL2,
                bound: 0.02
            }
        );
        assert_eq!(got[1].dtypes, vec![DType::BF16, DType::F16]);
        assert_eq!(
            got[2].check,
            Check::Allclose {
                rtol: Some(1e-2),
                atol: None
            }
        );
        assert_eq!(got[2].dtypes, vec![DType::BF16]);
        assert!(super::parse_checks("row-cosine<=0.9")
            .unwrap_err()
            .contains("row-cosine>=0.999"));
        assert!(super::parse_checks("bf17:cosine>=0.9")
            .unwrap_err()
            .contains("unknown metric"));
        assert_eq!(parse_tile("16x8").unwrap(), (16, 8));
        assert_eq!(parse_tile("32").unwrap(), (32, 32));
        assert!(parse_tile("0x4").is_err());
    }

    #[test]
    fn check_specs_parse() {
        assert_eq!(
            parse_checks("cosine>=0.999; max-abs <= 1e-3;argmax;bit-identity").unwrap(),
            vec![
                Check::Cosine { min: 0.999 },
                Check::MaxAbs { max: 1e-3 },
                Check::Argmax { min: 1.0 },
                Check::BitIdentity
            ]
        );
        assert_eq!(
            parse_checks("allclose:rtol=1e-5,atol=1e-8").unwrap(),
            vec![Check::Allclose {
                rtol: Some(1e-5),
                atol: Some(1e-8)
            }]
        );
        assert_eq!(
            parse_checks("allclose").unwrap(),
            vec![Check::Allclose {
                rtol: None,
                atol: None
            }]
        );
        assert_eq!(
            parse_checks("cosine ≥ 0.5;max-rel≤2").unwrap(),
            vec![Check::Cosine { min: 0.5 }, Check::MaxRel { max: 2.0 }]
        );
    }

    #[test]
    fn bad_check_specs_say_why() {
        assert!(parse_checks("cosin>=0.9").unwrap_err().contains("cosine"));
        assert!(parse_checks("cosine>=2").unwrap_err().contains("[-1, 1]"));
        assert!(parse_checks("cosine<=0.9")
            .unwrap_err()
            .contains("cosine>=0.999"));
        assert!(parse_checks("max-abs<=x")
            .unwrap_err()
            .contains("not a number"));
        assert!(parse_checks("allclose:tol=1")
            .unwrap_err()
            .contains("unknown parameter"));
        assert!(parse_checks(" ; ").is_err());
    }

    #[test]
    fn shapes_and_dtypes_parse() {
        assert_eq!(parse_shape("2,3,4").unwrap(), vec![2, 3, 4]);
        assert_eq!(parse_shape("[2, 3]").unwrap(), vec![2, 3]);
        assert_eq!(parse_shape("4x5").unwrap(), vec![4, 5]);
        assert_eq!(parse_shape("()").unwrap(), Vec::<usize>::new());
        assert!(parse_shape("2,-1").is_err());
        assert_eq!(parse_dtype(">f4").unwrap(), (DType::F32, ByteOrder::Big));
        assert_eq!(
            parse_dtype("bf16").unwrap(),
            (DType::BF16, ByteOrder::Little)
        );
        assert_eq!(parse_dtype("i8").unwrap(), (DType::I8, ByteOrder::Little));
        assert!(parse_dtype("complex64").is_err());
    }
}
