//! The built-in catalog of prior art, compiled into the binary and loaded by
//! the same loader as a project's `sota.toml` (with project bindings
//! forbidden). Surfaces fall back to it when no `sota.toml` exists.

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
            assert!(ladder.reached.is_none());
            for rung in &ladder.rungs {
                assert!(
                    rung.cite.is_some() || rung.link.is_some(),
                    "{} needs a citation",
                    rung.name
                );
            }
        }
        assert!(m.ops.len() >= 40);
        assert!(m.ladders.len() >= 10);
        for op in &m.ops {
            assert!(op.link.is_some(), "{} needs a link", op.slug.value);
            assert!(op.oracle.is_some(), "{} needs an oracle", op.slug.value);
            assert!(
                op.route.is_some(),
                "{} needs a suggested route",
                op.slug.value
            );
            assert!(op.files.is_empty() && op.at.is_empty() && op.witness.is_empty());
        }
    }

    #[test]
    fn catalog_rejects_project_bindings() {
        let text = format!("{}\n[kernels]\ninclude = [\"**/*.cu\"]\n", super::TEXT);
        let err = crate::matrix::parse_catalog_for_test(&text).unwrap_err();
        assert!(err.to_string().contains("problem"), "{err}");
    }
}
