//! The JSON Schema of `sota.toml`, for editor completion (taplo / Even Better
//! TOML). A test holds it to the loader's key lists, so the two cannot drift.

/// The schema text, as printed by `sota schema`.
pub const JSON: &str = include_str!("schema.json");

#[cfg(test)]
mod tests {
    use super::super::keys;
    use serde_json::Value;

    fn props<'a>(v: &'a Value, pointer: &str) -> Vec<&'a str> {
        let mut keys: Vec<&str> = v
            .pointer(pointer)
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("no object at {pointer}"))
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        keys
    }

    fn sorted(list: &[&'static str]) -> Vec<&'static str> {
        let mut v = list.to_vec();
        v.sort_unstable();
        v
    }

    #[test]
    fn schema_lists_exactly_the_keys_the_loader_accepts() {
        let schema: Value = serde_json::from_str(super::JSON).expect("schema is JSON");
        assert_eq!(props(&schema, "/properties"), sorted(keys::TOP));
        assert_eq!(
            props(&schema, "/properties/project/properties"),
            sorted(keys::PROJECT)
        );
        assert_eq!(
            props(&schema, "/properties/kernels/properties"),
            sorted(keys::KERNELS)
        );
        assert_eq!(
            props(&schema, "/definitions/op/properties"),
            sorted(keys::OP)
        );
        assert_eq!(
            props(&schema, "/definitions/ladder/properties"),
            sorted(keys::LADDER)
        );
        assert_eq!(
            props(&schema, "/definitions/rung/properties"),
            sorted(keys::RUNG)
        );
        assert_eq!(
            props(&schema, "/definitions/check/properties"),
            sorted(keys::CHECK)
        );
        assert_eq!(
            props(&schema, "/definitions/superseded/properties"),
            sorted(keys::SUPERSEDED)
        );
        for pointer in [
            "",
            "/properties/project",
            "/properties/kernels",
            "/definitions/op",
            "/definitions/ladder",
            "/definitions/rung",
            "/definitions/check",
            "/definitions/superseded",
        ] {
            let closed = schema.pointer(&format!("{pointer}/additionalProperties"));
            assert_eq!(
                closed,
                Some(&Value::Bool(false)),
                "{pointer} must reject unknown keys"
            );
        }
    }

    #[test]
    fn schema_enums_match_the_model() {
        let schema: Value = serde_json::from_str(super::JSON).unwrap();
        let routes: Vec<&str> = schema
            .pointer("/definitions/op/properties/route/enum")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let model: Vec<&str> = crate::matrix::Route::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(routes, model);
        let metrics: Vec<&str> = schema
            .pointer("/definitions/check/properties/metric/enum")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(metrics, crate::matrix::Metric::names());
    }

    #[test]
    fn schema_takes_a_check_for_one_dtype_or_several() {
        let schema: Value = serde_json::from_str(super::JSON).unwrap();
        let check = schema.pointer("/definitions/check").unwrap().clone();
        let validator = jsonschema::validator_for(&check).expect("the check schema compiles");
        let ok = |v: Value| validator.is_valid(&v);
        assert!(ok(
            serde_json::json!({"metric": "tile-rel-l2", "max": 0.03, "dtype": "bf16"})
        ));
        assert!(ok(
            serde_json::json!({"metric": "row-cosine", "min": 0.999, "dtype": ["f16", "bf16"]})
        ));
        assert!(!ok(
            serde_json::json!({"metric": "row-cosine", "min": 0.999, "dtype": 3})
        ));
        assert!(!ok(
            serde_json::json!({"metric": "row-cosine", "min": 0.999, "dtype": []})
        ));
        assert!(!ok(
            serde_json::json!({"metric": "row-cosin", "min": 0.999})
        ));
    }
}
