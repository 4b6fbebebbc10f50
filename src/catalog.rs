//! The built-in catalog of prior art, compiled into the binary and loaded by
//! the same loader as a project's `sota.toml` (with project bindings
//! forbidden). Surfaces fall back to it when no `sota.toml` exists.
//!
//! Every link, arXiv id, DOI, other citation and rung year the catalog
//! carries is recorded, with how it was verified, in `catalog-facts.toml`
//! beside it; the tests below hold the two files to each other.

/// The catalog's TOML text.
pub const TEXT: &str = include_str!("catalog.toml");

/// The name the catalog is shown under in messages.
pub const PSEUDO_PATH: &str = "<built-in catalog>";

#[cfg(test)]
mod tests {
    use crate::matrix::{Date, Matrix, Origin};

    #[test]
    fn catalog_loads_and_covers_the_seed_ladders() {
        let m = Matrix::catalog();
        assert_eq!(m.origin, Origin::Catalog);
        for axis in [
            "attention",
            "batching",
            "quantization",
            "kv-cache",
            "speculative-decoding",
        ] {
            let ladder = m.ladder(axis).unwrap_or_else(|| panic!("no {axis} ladder"));
            assert!(ladder.rungs.len() >= 3, "{axis} needs a real arc");
        }
        assert!(m.ops.len() >= 40, "{} ops", m.ops.len());
        assert!(m.ladders.len() >= 10, "{} ladders", m.ladders.len());
        for ladder in &m.ladders {
            assert!(
                ladder.rungs.len() >= 3,
                "{} needs a real arc",
                ladder.axis.value
            );
            assert!(ladder.reached.is_none() && ladder.witness.is_none());
            for rung in &ladder.rungs {
                assert!(
                    rung.cite.is_some() || rung.link.is_some(),
                    "{} needs a citation",
                    rung.name
                );
            }
        }
        for op in &m.ops {
            let slug = &op.slug.value;
            assert!(op.link.is_some(), "{slug} needs a link");
            assert!(op.oracle.is_some(), "{slug} needs an oracle");
            assert!(op.route.is_some(), "{slug} needs a suggested route");
            assert!(op.files.is_empty() && op.at.is_empty() && op.witness.is_empty());
        }
    }

    /// The slugs and axes `sota init` keys its signals by: never renamed.
    #[test]
    fn seed_slugs_and_axes_are_kept() {
        let m = Matrix::catalog();
        for slug in [
            "dense-gemm",
            "quantized-device-gemm",
            "awq-int4-gemm",
            "gptq-int4",
            "exl2-quant",
            "gguf-kquant-load",
            "cpu-kquant-simd",
            "metal-quant-gemm",
            "fused-attention",
            "sparse-attention",
            "kv-cache",
            "moe-dispatch",
            "collective-allreduce",
        ] {
            assert!(
                m.op(slug).is_some(),
                "seed op {slug} was removed or renamed"
            );
        }
    }

    /// What is wrong with the ladders' `ops` lists of `m`: a ladder that
    /// names no op (init could never draft it), a name that is no op of the
    /// catalog (it would never match), a name listed twice.
    fn ladder_op_problems(m: &Matrix) -> Vec<String> {
        let mut out = Vec::new();
        for ladder in &m.ladders {
            let axis = &ladder.axis.value;
            if ladder.ops.is_empty() {
                out.push(format!("ladder {axis}: names no op in `ops`"));
            }
            let mut seen = std::collections::BTreeSet::new();
            for op in &ladder.ops {
                if m.op(&op.value).is_none() {
                    out.push(format!("ladder {axis}: `{}` is no catalog op", op.value));
                }
                if !seen.insert(&op.value) {
                    out.push(format!("ladder {axis}: `{}` listed twice", op.value));
                }
            }
        }
        out
    }

    #[test]
    fn every_ladder_names_the_catalog_ops_it_ranks() {
        let m = Matrix::catalog();
        assert_eq!(ladder_op_problems(&m), Vec::<String>::new());
        // The attention ladder comes with the attention kernels.
        let attention = m.ladder("attention").unwrap();
        assert!(attention.ops.iter().any(|o| o.value == "fused-attention"));
    }

    #[test]
    fn a_ladder_op_that_is_no_catalog_op_is_caught() {
        let text = super::TEXT.replacen(
            "\"fused-attention\",\n  \"decode-attention\"",
            "\"fused-atention\",\n  \"decode-attention\"",
            1,
        );
        assert_ne!(text, super::TEXT);
        let m = crate::matrix::parse_catalog_for_test(&text).expect("still a valid catalog");
        assert_eq!(
            ladder_op_problems(&m),
            ["ladder attention: `fused-atention` is no catalog op"]
        );
        let text = super::TEXT.replacen("ops = [\"speculative-decoding\"]\n", "", 1);
        assert_ne!(text, super::TEXT);
        let m = crate::matrix::parse_catalog_for_test(&text).expect("still a valid catalog");
        assert_eq!(
            ladder_op_problems(&m),
            ["ladder speculative-decoding: names no op in `ops`"]
        );
    }

    /// `ops` is a catalog key: a project's ladder that carries it is refused
    /// at its line, like any key the format does not define.
    #[test]
    fn a_project_ladder_cannot_name_ops() {
        let text = "[project]\nname = \"p\"\n\n[[ladder]]\naxis = \"attention\"\nops = [\"fused-attention\"]\n\n[[ladder.rung]]\nname = \"A\"\nyear = 2022\nsummary = \"s\"\n";
        let err = crate::matrix::Matrix::from_str(text, "sota.toml").unwrap_err();
        let crate::matrix::LoadError::Invalid(inv) = err else {
            panic!("{err:?}")
        };
        assert_eq!(inv.problems.len(), 1, "{:?}", inv.problems);
        assert!(
            inv.problems[0]
                .message
                .starts_with("unknown key `ops` in [[ladder]] `attention`"),
            "{:?}",
            inv.problems[0].message
        );
    }

    /// How old a catalog entry may be, in days, against the newest date
    /// the catalog carries.
    const MAX_AGE_DAYS: i64 = 365;

    /// Entries of `m` checked more than `MAX_AGE_DAYS` before the newest
    /// `checked` (or `[project] reviewed`) date in it. The bar is a date
    /// compiled in, never the clock (only `src/cli` reads it): refreshing
    /// any entry moves the bar, so a release cannot ship a catalog whose
    /// latest review left year-old rows behind, and an old commit's tests
    /// still pass when it is built years later.
    fn stale_entries(m: &Matrix) -> Vec<String> {
        let entries: Vec<(String, Option<Date>)> = m
            .ops
            .iter()
            .map(|op| {
                (
                    format!("op {}", op.slug.value),
                    op.checked.as_ref().map(|d| d.value),
                )
            })
            .chain(m.ladders.iter().map(|l| {
                (
                    format!("ladder {}", l.axis.value),
                    l.checked.as_ref().map(|d| d.value),
                )
            }))
            .collect();
        let newest = entries
            .iter()
            .filter_map(|(_, d)| *d)
            .chain(m.project.reviewed.as_ref().map(|d| d.value))
            .max()
            .expect("the catalog carries dates");
        entries
            .into_iter()
            .filter_map(|(what, checked)| match checked {
                None => Some(format!("{what}: never checked")),
                Some(d) if newest.days_since_epoch() - d.days_since_epoch() > MAX_AGE_DAYS => Some(
                    format!("{what}: checked {d}, more than {MAX_AGE_DAYS} days before {newest}"),
                ),
                Some(_) => None,
            })
            .collect()
    }

    #[test]
    fn every_catalog_entry_was_checked_within_a_year() {
        let stale = stale_entries(&Matrix::catalog());
        assert!(
            stale.is_empty(),
            "re-check these against the field and update `checked` in src/catalog.toml:\n  {}",
            stale.join("\n  ")
        );
    }

    #[test]
    fn a_stale_catalog_entry_is_caught() {
        let text = super::TEXT.replacen("checked = 2026-12-01", "checked = 2025-11-30", 1);
        let m = crate::matrix::parse_catalog_for_test(&text).expect("still a valid catalog");
        let stale = stale_entries(&m);
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert!(
            stale[0].starts_with(
                "op dense-gemm: checked 2025-11-30, more than 365 days before 2026-12-"
            ),
            "{stale:?}"
        );
    }

    #[test]
    fn a_catalog_entry_without_checked_is_refused() {
        let text = super::TEXT.replacen("checked = 2026-12-02\n", "", 1);
        let problems = problems(&text);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("missing-field: missing `checked` in [[op]] `exl2-quant`"),
            "{problems:?}"
        );
    }

    /// `code: message` of every problem loading `text` as a catalog.
    fn problems(text: &str) -> Vec<String> {
        match crate::matrix::parse_catalog_for_test(text) {
            Ok(_) => Vec::new(),
            Err(crate::matrix::LoadError::Invalid(inv)) => inv
                .problems
                .iter()
                .map(|p| format!("{}: {}", p.code, p.message))
                .collect(),
            Err(other) => panic!("{other:?}"),
        }
    }

    fn ladder_catalog(rungs: &str) -> String {
        format!(
            "[project]\nname = \"c\"\n\n[[ladder]]\naxis = \"a\"\nchecked = 2026-12-02\n{rungs}"
        )
    }

    fn rung(name: &str, year: u16, extra: &str) -> String {
        format!("[[ladder.rung]]\nname = \"{name}\"\nyear = {year}\nsummary = \"s\"\n{extra}\n")
    }

    /// A catalog ladder climbs in the order the field moved: an older rung
    /// above a newer one needs its reason, and a reason needs an older rung.
    #[test]
    fn catalog_rung_order_is_checked() {
        let out_of_order = ladder_catalog(&(rung("A", 2024, "") + &rung("B", 2023, "")));
        assert_eq!(
            problems(&out_of_order),
            ["rung-order: rung L2 of [[ladder]] `a` (2023) is older than the rung below it (2024)"]
        );
        let justified = ladder_catalog(
            &(rung("A", 2024, "") + &rung("B", 2023, "order-note = \"serving after speed\"")),
        );
        let m = crate::matrix::parse_catalog_for_test(&justified).expect("justified");
        assert_eq!(
            m.ladders[0].rungs[1].order_note.as_deref(),
            Some("serving after speed")
        );
        let needless =
            ladder_catalog(&(rung("A", 2023, "") + &rung("B", 2024, "order-note = \"why\"")));
        assert_eq!(
            problems(&needless),
            ["rung-order: `order-note` on rung L2 of [[ladder]] `a`, which is not older than the rung below it"]
        );
        // A project's own ladder is its business: no order rule there.
        assert!(crate::matrix::Matrix::from_str(
            &out_of_order.replace("checked = 2026-12-02\n", ""),
            "sota.toml"
        )
        .is_ok());
    }

    #[test]
    fn catalog_rejects_project_bindings() {
        let text = format!("{}\n[kernels]\ninclude = [\"**/*.cu\"]\n", super::TEXT);
        let err = crate::matrix::parse_catalog_for_test(&text).unwrap_err();
        assert!(err.to_string().contains("problem"), "{err}");
    }
}

#[cfg(test)]
mod facts {
    //! The catalog against its facts table.

    use std::collections::{BTreeMap, BTreeSet};

    use serde::Deserialize;

    use crate::matrix::Matrix;

    const FACTS: &str = include_str!("catalog-facts.toml");

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Table {
        fact: Vec<Fact>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Fact {
        id: String,
        what: String,
        year: Option<u16>,
        checked: String,
        source: String,
    }

    fn facts() -> BTreeMap<String, Fact> {
        let table: Table = toml::from_str(FACTS).expect("catalog-facts.toml parses");
        let mut out = BTreeMap::new();
        for fact in table.fact {
            let id = fact.id.clone();
            assert!(
                out.insert(id.clone(), fact).is_none(),
                "duplicate fact {id}"
            );
        }
        out
    }

    /// `arXiv:NNNN.NNNNN` ids in `text`.
    fn arxiv_ids(text: &str) -> Vec<String> {
        text.match_indices("arXiv:")
            .map(|(at, _)| {
                let rest = &text[at + "arXiv:".len()..];
                let n = rest
                    .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .unwrap_or(rest.len());
                format!("arXiv:{}", rest[..n].trim_end_matches('.'))
            })
            .collect()
    }

    /// `doi:…` ids in `text`: up to whitespace, a closing bracket the DOI
    /// did not open, or a comma or semicolon that ends a phrase. Wiley's
    /// SICI DOIs hold brackets and a semicolon of their own
    /// (`doi:10.1002/(SICI)1096-987X(…)…3.0.CO;2-H`).
    fn dois(text: &str) -> Vec<String> {
        text.match_indices("doi:")
            .map(|(at, _)| {
                let rest = &text[at..];
                let mut depth = 0usize;
                let mut end = rest.len();
                for (i, c) in rest.char_indices() {
                    let next = rest[i + c.len_utf8()..].chars().next();
                    let ends_phrase = next.is_none_or(char::is_whitespace);
                    match c {
                        '(' => depth += 1,
                        ')' if depth > 0 => depth -= 1,
                        ',' | ';' if !ends_phrase => {}
                        c if c.is_whitespace() || matches!(c, ')' | ',' | ';') => {
                            end = i;
                            break;
                        }
                        _ => {}
                    }
                }
                rest[..end].trim_end_matches('.').to_owned()
            })
            .collect()
    }

    /// `http(s)://…` addresses in `text`.
    fn urls(text: &str) -> Vec<String> {
        text.match_indices("http")
            .filter(|(at, _)| {
                text[*at..].starts_with("https://") || text[*at..].starts_with("http://")
            })
            .map(|(at, _)| {
                let rest = &text[at..];
                let n = rest
                    .find(|c: char| c.is_whitespace() || c == ')' || c == ',' || c == ';')
                    .unwrap_or(rest.len());
                rest[..n].trim_end_matches('.').to_owned()
            })
            .collect()
    }

    /// Every reference the catalog makes: (id, where it is used).
    fn references(m: &Matrix) -> Vec<(String, String)> {
        fn scan(refs: &mut Vec<(String, String)>, text: &str, at: &str) {
            for id in arxiv_ids(text)
                .into_iter()
                .chain(dois(text))
                .chain(urls(text))
            {
                refs.push((id, at.to_owned()));
            }
        }
        let mut refs = Vec::new();
        for op in &m.ops {
            let at = format!("op {}", op.slug.value);
            if let Some(link) = &op.link {
                refs.push((link.value.clone(), at.clone()));
            }
            for sup in &op.superseded {
                refs.push((sup.link.clone(), at.clone()));
                refs.push((sup.by.clone(), at.clone()));
            }
            for text in [&op.title, &op.sota]
                .into_iter()
                .chain(&op.oracle)
                .chain(&op.note)
                .chain(&op.papers)
            {
                scan(&mut refs, text, &at);
            }
        }
        for ladder in &m.ladders {
            for rung in &ladder.rungs {
                let at = format!("rung {}/{}", ladder.axis.value, rung.name);
                if let Some(cite) = &rung.cite {
                    refs.push((cite.clone(), at.clone()));
                }
                if let Some(link) = &rung.link {
                    refs.push((link.clone(), at.clone()));
                }
                scan(&mut refs, &rung.summary, &at);
                if let Some(note) = &rung.order_note {
                    scan(&mut refs, note, &at);
                }
                refs.push((format!("rung:{}/{}", ladder.axis.value, rung.name), at));
            }
        }
        refs
    }

    /// The references of `m` that the facts table does not hold.
    fn unverified(m: &Matrix, facts: &BTreeMap<String, Fact>) -> BTreeSet<String> {
        references(m)
            .into_iter()
            .filter(|(id, _)| !facts.contains_key(id))
            .map(|(id, at)| format!("{id} (in {at})"))
            .collect()
    }

    #[test]
    fn an_unverified_reference_is_caught() {
        let text = format!(
            "{}\n[[op]]\nslug = \"made-up\"\nchecked = 2026-12-02\ntitle = \"Made up\"\nsota = \"X (Doe, 2031) arXiv:3101.00001\"\nlink = \"https://example.com/unverified\"\n",
            super::TEXT
        );
        let m = crate::matrix::parse_catalog_for_test(&text).expect("still a valid catalog");
        let missing = unverified(&m, &facts());
        assert_eq!(
            missing.into_iter().collect::<Vec<_>>(),
            [
                "arXiv:3101.00001 (in op made-up)",
                "https://example.com/unverified (in op made-up)"
            ]
        );
    }

    #[test]
    fn every_catalog_reference_is_a_verified_fact() {
        let missing = unverified(&Matrix::catalog(), &facts());
        assert!(
            missing.is_empty(),
            "not in src/catalog-facts.toml — verify each and add it, or drop it from the catalog:\n  {}",
            missing.into_iter().collect::<Vec<_>>().join("\n  ")
        );
    }

    #[test]
    fn every_fact_is_used_and_complete() {
        let m = Matrix::catalog();
        let used: BTreeSet<String> = references(&m).into_iter().map(|(id, _)| id).collect();
        for (id, fact) in facts() {
            assert!(
                !fact.what.trim().is_empty()
                    && !fact.checked.trim().is_empty()
                    && !fact.source.trim().is_empty(),
                "{id}: what, checked and source are all needed"
            );
            if id.starts_with("named:") {
                continue;
            }
            assert!(
                used.contains(&id),
                "stale fact {id}: the catalog no longer cites it"
            );
            if id.starts_with("arXiv:") || id.starts_with("doi:") || id.starts_with("rung:") {
                assert!(fact.year.is_some(), "{id} needs a year");
            }
        }
    }

    /// An arXiv id starts with the year and month of its first version.
    #[test]
    fn arxiv_years_match_their_ids() {
        for (id, fact) in facts() {
            if let Some(num) = id.strip_prefix("arXiv:") {
                let yy: u16 = num[..2].parse().expect("YYMM prefix");
                let year = if yy >= 91 { 1900 + yy } else { 2000 + yy };
                assert_eq!(fact.year, Some(year), "{id}: year of the first version");
            }
        }
    }

    /// "Title (Authors, YEAR) arXiv:ID" (or `doi:…` for a paper that has
    /// no arXiv version): the year is that of the paper.
    #[test]
    fn paper_years_match_the_facts() {
        let m = Matrix::catalog();
        let facts = facts();
        for op in &m.ops {
            for paper in &op.papers {
                let mut ids = arxiv_ids(paper);
                ids.extend(dois(paper));
                assert_eq!(ids.len(), 1, "{paper}: one arXiv id or DOI per paper entry");
                let Some(fact) = facts.get(&ids[0]) else {
                    continue; // reported by every_catalog_reference_is_a_verified_fact
                };
                // The bracket before the id: a DOI may hold brackets too.
                let cite = &paper[..paper.find(ids[0].as_str()).expect("the id found in it")];
                let close = cite.rfind(')').expect("(Authors, YEAR)");
                let year: u16 = cite[close - 4..close].parse().expect("a year before ')'");
                assert_eq!(Some(year), fact.year, "{paper} in op {}", op.slug.value);
            }
        }
    }

    /// A rung's year is its first public appearance: the one recorded for
    /// it, and never later than the paper it cites.
    #[test]
    fn rung_years_match_the_facts() {
        let m = Matrix::catalog();
        let facts = facts();
        for ladder in &m.ladders {
            for rung in &ladder.rungs {
                let id = format!("rung:{}/{}", ladder.axis.value, rung.name);
                let Some(fact) = facts.get(&id) else {
                    continue; // reported by every_catalog_reference_is_a_verified_fact
                };
                assert_eq!(fact.year, Some(rung.year), "{id}");
                if let Some(paper) = rung.cite.as_ref().and_then(|c| facts.get(c)) {
                    let paper_year = paper.year.expect("cited papers carry a year");
                    assert!(rung.year <= paper_year, "{id}: dated after its own paper");
                }
            }
        }
    }

    #[test]
    fn the_scanners_find_what_they_should() {
        let t = "see (Dao, 2022) arXiv:2205.14135. and https://x.org/a_b), doi:10.1/x.";
        assert_eq!(arxiv_ids(t), ["arXiv:2205.14135"]);
        assert_eq!(urls(t), ["https://x.org/a_b"]);
        assert_eq!(dois(t), ["doi:10.1/x"]);
        let sici =
            "(Hess, 1997) doi:10.1002/(SICI)1096-987X(199709)18:12<1463::AID-JCC4>3.0.CO;2-H)";
        assert_eq!(
            dois(sici),
            ["doi:10.1002/(SICI)1096-987X(199709)18:12<1463::AID-JCC4>3.0.CO;2-H"]
        );
    }
}
