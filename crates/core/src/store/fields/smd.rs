//! structured-merge-diff's merge tests (`merge/*_test.go`, v4.4.2) as data
//! (`testdata/smd/*.json`, one file per Go file, each case naming its source), run on
//! [`Typed`]: operations (apply, force-apply, update by a manager at an apiVersion) from an
//! empty (`null`) object, then the expected object, managed fields and conflicts.

use super::*;
use crate::store::schema::Schema;

const FILES: &[(&str, &str)] = &[
    (
        "set_test",
        include_str!("../../../testdata/smd/set_test.json"),
    ),
    (
        "key_test",
        include_str!("../../../testdata/smd/key_test.json"),
    ),
    (
        "multiple_appliers_test",
        include_str!("../../../testdata/smd/multiple_appliers_test.json"),
    ),
    (
        "leaf_test",
        include_str!("../../../testdata/smd/leaf_test.json"),
    ),
    (
        "nested_test",
        include_str!("../../../testdata/smd/nested_test.json"),
    ),
    (
        "default_keys_test",
        include_str!("../../../testdata/smd/default_keys_test.json"),
    ),
    (
        "deduced_test",
        include_str!("../../../testdata/smd/deduced_test.json"),
    ),
    (
        "duplicates_test",
        include_str!("../../../testdata/smd/duplicates_test.json"),
    ),
    (
        "preserve_unknown_test",
        include_str!("../../../testdata/smd/preserve_unknown_test.json"),
    ),
];

fn run(schemas: &Value, case: &Value) -> Result<(), String> {
    let text = schemas[case["schema"].as_str().unwrap_or("")]
        .as_str()
        .unwrap_or("");
    let schema = Schema::parse(text)?;
    let t = Typed {
        at: schema.root("T"),
        res: None,
        sub: "",
    };
    let (mut live, mut ms) = (Value::Null, Vec::<Manager>::new());
    for (n, op) in case["ops"].as_array().into_iter().flatten().enumerate() {
        let (name, api, obj) = (
            op["manager"].as_str().unwrap_or(""),
            &op["apiVersion"],
            &op["object"],
        );
        let kind = op["op"].as_str().unwrap_or("");
        let me = ms.iter().position(|m| m.name == name).unwrap_or_else(|| {
            ms.push(Manager {
                name: name.into(),
                operation: Operation::Update,
                api_version: String::new(),
                time: String::new(),
                set: FieldSet::new(),
                subresource: "",
            });
            ms.len() - 1
        });
        let op_kind = if kind == "update" {
            t.update_by(&live, obj, &mut ms, me);
            live = obj.clone();
            Operation::Update
        } else {
            match t.apply_by(&live, obj, &mut ms, me, kind == "force-apply") {
                Ok(merged) => {
                    if op["conflicts"].as_array().is_some_and(|c| !c.is_empty()) {
                        return Err(format!("op {n}: expected conflicts, got none"));
                    }
                    live = merged;
                }
                Err(cs) => {
                    let mut got: Vec<String> = cs
                        .iter()
                        .map(|(i, p)| format!("{} {p}", ms[*i].name))
                        .collect();
                    let mut want: Vec<String> = op["conflicts"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| {
                            format!(
                                "{} {}",
                                c["manager"].as_str().unwrap_or(""),
                                c["path"].as_str().unwrap_or("")
                            )
                        })
                        .collect();
                    crate::sort::sort(&mut got);
                    crate::sort::sort(&mut want);
                    if got != want || op.get("conflicts").is_none() {
                        return Err(format!("op {n}: conflicts {got:?}, expected {want:?}"));
                    }
                    ms.retain(|m| !m.set.is_empty());
                    continue;
                }
            }
            Operation::Apply
        };
        ms[me].operation = op_kind;
        ms[me].api_version = api.as_str().unwrap_or("").into();
        ms.retain(|m| !m.set.is_empty());
    }
    if let Some(want) = case.get("object") {
        if live != *want {
            return Err(format!("object {live}, expected {want}"));
        }
    }
    if let Some(want) = case.get("managed").and_then(Value::as_object) {
        let got: Map<String, Value> = ms
            .iter()
            .map(|m| {
                let mut e = Map::new();
                e.insert("apiVersion".into(), m.api_version.clone().into());
                e.insert("fieldsV1".into(), fields_v1(&m.set));
                (m.name.clone(), Value::Object(e))
            })
            .collect();
        if got != *want {
            return Err(format!(
                "managed {}, expected {}",
                Value::Object(got),
                Value::Object(want.clone())
            ));
        }
    }
    Ok(())
}

#[test]
fn structured_merge_diff_merge_tests() {
    let mut failures = Vec::new();
    for (file, text) in FILES {
        let data: Value = serde_json::from_str(text).unwrap();
        let (mut ported, mut pass, mut skipped) = (0, 0, 0);
        for case in data["cases"].as_array().unwrap() {
            let src = case["source"].as_str().unwrap_or("");
            assert!(
                src.starts_with("kubernetes-sigs/structured-merge-diff v4.4.2 merge/"),
                "{src}"
            );
            if case.get("skip").is_some() {
                skipped += 1;
                continue;
            }
            ported += 1;
            match run(&data["schemas"], case) {
                Ok(()) => pass += 1,
                Err(e) => failures.push(format!("{src}: {e}")),
            }
        }
        eprintln!("{file}: ported {ported}, pass {pass}, skipped {skipped}");
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
