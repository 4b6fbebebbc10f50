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
    use crate::matrix::{Matrix, Origin};

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

    /// `doi:…` ids in `text` (up to whitespace or a closing bracket).
    fn dois(text: &str) -> Vec<String> {
        text.match_indices("doi:")
            .map(|(at, _)| {
                let rest = &text[at..];
                let n = rest
                    .find(|c: char| c.is_whitespace() || c == ')' || c == ',' || c == ';')
                    .unwrap_or(rest.len());
                rest[..n].trim_end_matches('.').to_owned()
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
            "{}\n[[op]]\nslug = \"made-up\"\ntitle = \"Made up\"\nsota = \"X (Doe, 2031) arXiv:3101.00001\"\nlink = \"https://example.com/unverified\"\n",
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

    /// "Title (Authors, YEAR) arXiv:ID": the year is that of the paper.
    #[test]
    fn paper_years_match_the_facts() {
        let m = Matrix::catalog();
        let facts = facts();
        for op in &m.ops {
            for paper in &op.papers {
                let ids = arxiv_ids(paper);
                assert_eq!(ids.len(), 1, "{paper}: one arXiv id per paper entry");
                let Some(fact) = facts.get(&ids[0]) else {
                    continue; // reported by every_catalog_reference_is_a_verified_fact
                };
                let close = paper.rfind(')').expect("(Authors, YEAR)");
                let year: u16 = paper[close - 4..close].parse().expect("a year before ')'");
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
    }
}
