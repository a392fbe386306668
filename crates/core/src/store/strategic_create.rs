//! Strategic merge patch *creation*, as `kubectl apply` (client side) computes its patches: a
//! port of apimachinery's `CreateTwoWayMergePatch` and `CreateThreeWayMergePatch`
//! (k8s.io/apimachinery v0.32.5 `pkg/util/strategicpatch/patch.go`).
//!
//! The ported test vectors are data in `crates/core/testdata/strategicpatch/` (README there).

#[cfg(test)]
pub(crate) mod testdata {
    //! The ported apimachinery cases (`crates/core/testdata/strategicpatch/`), for the runners
    //! of both directions (creation here, application in `strategic`).
    use super::super::schema::Schema;
    use serde_json::Value;

    pub const TWO_WAY: &str = include_str!("../../testdata/strategicpatch/two-way.json");
    pub const THREE_WAY: &str = include_str!("../../testdata/strategicpatch/three-way.json");
    pub const APPLY: &str = include_str!("../../testdata/strategicpatch/apply.json");
    pub const ERRORS: &str = include_str!("../../testdata/strategicpatch/errors.json");
    pub const SORT: &str = include_str!("../../testdata/strategicpatch/sort.json");
    const MERGE_ITEM: &str = include_str!("../../testdata/strategicpatch/merge-item.schema");
    const PRECISION_ITEM: &str =
        include_str!("../../testdata/strategicpatch/precision-item.schema");

    /// The cases of one file.
    pub fn cases(file: &str) -> Vec<Value> {
        let v: Value = serde_json::from_str(file).expect("testdata is JSON");
        v["cases"].as_array().expect("a cases list").clone()
    }

    /// A case's schema (its `schema` field names the file) and the root's name.
    pub fn schema(case: &Value) -> (Schema, &'static str) {
        match case["schema"].as_str() {
            Some("merge-item.schema") => (Schema::parse(MERGE_ITEM).unwrap(), "mergeItem"),
            Some("precision-item.schema") => {
                (Schema::parse(PRECISION_ITEM).unwrap(), "precisionItem")
            }
            s => panic!("unknown schema {s:?}"),
        }
    }

    /// A document of a case: absent or `null` is the empty object (as Go reads them).
    pub fn doc(case: &Value, field: &str) -> Value {
        match &case[field] {
            Value::Null => Value::Object(Default::default()),
            v => v.clone(),
        }
    }

    #[test]
    fn the_ported_cases_are_all_there_and_name_their_source() {
        for (file, n) in [
            (TWO_WAY, 136),
            (THREE_WAY, 129),
            (APPLY, 25),
            (ERRORS, 9),
            (SORT, 8),
        ] {
            let cs = cases(file);
            assert_eq!(cs.len(), n);
            for c in &cs {
                let src = c["source"].as_str().unwrap();
                assert!(src.starts_with("kubernetes/apimachinery v0.32.5 "), "{src}");
                let (s, root) = schema(c);
                assert_eq!(s.root(root).type_name(), Some(root));
                for f in ["original", "modified", "current", "result"] {
                    if c.get("skip").is_none() && c["op"] != "applyText" {
                        assert!(doc(c, f).is_object(), "{src}: {f}");
                    }
                }
            }
        }
        let conflicts = cases(THREE_WAY)
            .iter()
            .filter(|c| c["conflict"] == true)
            .count();
        assert_eq!(conflicts, 30);
    }
}
