//! Focused tests of each directive on the built-in schema, then the ported apimachinery cases
//! (`crates/core/testdata/strategicpatch/`).

use super::super::schema::{builtin, At, Schema};
use super::*;
use serde_json::json;

fn smp(kind: &str, original: Value, patch: Value) -> R<Value> {
    let Value::Object(p) = patch else {
        panic!("a patch is an object")
    };
    apply(&original, &p, builtin().root(kind))
}

fn ok(kind: &str, original: Value, patch: Value) -> Value {
    smp(kind, original, patch).unwrap_or_else(|e| panic!("{}", e.message()))
}

fn err(kind: &str, original: Value, patch: Value) -> String {
    smp(kind, original, patch).unwrap_err().message()
}

/// A test schema for lists the placeholder data does not have yet (ports by `containerPort`).
fn pod_schema() -> Schema {
    Schema::parse(
        "root Pod Pod\n\
         type Pod\n  spec Spec\n\
         type Spec\n  containers [Container] patch=merge key=name\n  tolerations [Toleration]\n  \
         strategy Strategy patch=retainKeys\n  nodeSelector {s}\n  \
         volumes [Volume] patch=merge,retainKeys key=name\n\
         type Container\n  ports [Port] patch=merge key=containerPort\n  args [s]\n  \
         resources Res patch=replace\n\
         type Port\n  containerPort s\n\
         type Toleration\n  key s\n\
         type Strategy\n  type s\n\
         type Volume\n  name s\n\
         type Res\n  limits {s}\n",
    )
    .unwrap()
}

fn pod(original: Value, patch: Value) -> R<Value> {
    let s = pod_schema();
    let Value::Object(p) = patch else { panic!() };
    apply(&original, &p, s.root("Pod"))
}

#[test]
fn finalizers_merge_as_a_set() {
    let cm = json!({"metadata": {"name": "c", "finalizers": ["a", "b"]}});
    let out = ok(
        "ConfigMap",
        cm.clone(),
        json!({"metadata": {"finalizers": ["d"]}}),
    );
    // The set {a, b, d}; Go's `mergeSortedSlice` puts the patch's items first when nothing
    // orders them against the live ones (no `$setElementOrder`).
    assert_eq!(out["metadata"]["finalizers"], json!(["d", "a", "b"]));
    let out = ok(
        "ConfigMap",
        cm.clone(),
        json!({"metadata": {"finalizers": ["b", "a"]}}),
    );
    assert_eq!(
        out["metadata"]["finalizers"],
        json!(["b", "a"]),
        "the patch's order wins"
    );
    let out = ok(
        "ConfigMap",
        cm.clone(),
        json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
    );
    assert_eq!(out["metadata"]["finalizers"], json!(["b"]));
    let out = ok(
        "ConfigMap",
        cm,
        json!({"metadata": {"$setElementOrder/finalizers": ["b", "c", "a"], "finalizers": ["c"]}}),
    );
    assert_eq!(out["metadata"]["finalizers"], json!(["b", "c", "a"]));
    // No schema facts (a custom kind): replaced.
    let out = ok("Widget", json!({"f": ["a"]}), json!({"f": ["d"]}));
    assert_eq!(out, json!({"f": ["d"]}));
}

#[test]
fn owner_references_merge_by_uid() {
    let cm = json!({"metadata": {"ownerReferences": [
        {"uid": "1", "name": "a"}, {"uid": "2", "name": "b"}]}});
    let out = ok(
        "Secret",
        cm.clone(),
        json!({"metadata": {"ownerReferences": [{"uid": "3", "name": "c"}, {"uid": "1", "name": "A"}]}}),
    );
    assert_eq!(
        out["metadata"]["ownerReferences"],
        json!([{"uid": "3", "name": "c"}, {"uid": "1", "name": "A"}, {"uid": "2", "name": "b"}])
    );
    let out = ok(
        "Secret",
        cm.clone(),
        json!({"metadata": {"ownerReferences": [{"uid": "1", "$patch": "delete"}]}}),
    );
    assert_eq!(
        out["metadata"]["ownerReferences"],
        json!([{"uid": "2", "name": "b"}])
    );
    let out = ok(
        "Secret",
        cm.clone(),
        json!({"metadata": {"ownerReferences": [{"uid": "9"}, {"$patch": "replace"}]}}),
    );
    assert_eq!(out["metadata"]["ownerReferences"], json!([{"uid": "9"}]));
    assert_eq!(
        err(
            "Secret",
            cm.clone(),
            json!({"metadata": {"ownerReferences": [{"name": "x"}]}})
        ),
        "map: map[name:x] does not contain declared merge key: uid"
    );
    assert_eq!(
        err(
            "Secret",
            cm,
            json!({"metadata": {"ownerReferences": [{"uid": "1", "$patch": "merge"}]}})
        ),
        "merging lists cannot yet be specified in the patch"
    );
}

#[test]
fn container_ports_merge_by_container_port() {
    let o = json!({"spec": {"containers": [{"name": "app", "ports": [
        {"containerPort": 80, "name": "http"}, {"containerPort": 443}]}]}});
    let out = pod(
        o.clone(),
        json!({"spec": {"containers": [{"name": "app", "ports": [
            {"containerPort": 80, "protocol": "TCP"}, {"containerPort": 8080}]}]}}),
    )
    .unwrap();
    assert_eq!(
        out["spec"]["containers"][0]["ports"],
        json!([{"containerPort": 80, "name": "http", "protocol": "TCP"}, {"containerPort": 8080},
               {"containerPort": 443}])
    );
    // A list without strategy is replaced, directives and all (typed decoding drops them).
    let out = pod(
        json!({"spec": {"tolerations": [{"key": "a"}]}}),
        json!({"spec": {"tolerations": [{"key": "b", "$patch": "delete"}]}}),
    )
    .unwrap();
    assert_eq!(
        out["spec"]["tolerations"],
        json!([{"key": "b", "$patch": "delete"}])
    );
    let mut dropped = out.clone();
    let s = pod_schema();
    drop_directive_keys(&mut dropped, s.root("Pod"));
    assert_eq!(dropped["spec"]["tolerations"], json!([{"key": "b"}]));
    // A `patchStrategy: replace` map is replaced.
    let out = pod(
        json!({"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}, "x": 1}}]}}),
        json!({"spec": {"containers": [{"name": "a", "resources": {"limits": {"memory": "1"}}}]}}),
    )
    .unwrap();
    assert_eq!(
        out["spec"]["containers"][0]["resources"],
        json!({"limits": {"memory": "1"}})
    );
}

#[test]
fn retain_keys_clears_the_other_fields() {
    let o =
        json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}});
    let out = pod(
        o.clone(),
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
    )
    .unwrap();
    assert_eq!(out["spec"]["strategy"], json!({"type": "Recreate"}));
    let e = pod(
        o.clone(),
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "x": 1}}}),
    );
    assert_eq!(e, Err(Error::BadRequest(BAD_RETAIN)));
    let e = pod(o, json!({"spec": {"strategy": {"$retainKeys": "type"}}}));
    assert_eq!(e.unwrap_err().response().code, 400);
}

#[test]
fn set_element_order_orders_merged_lists() {
    let o = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "x"}]}});
    let out = pod(
        o,
        json!({"spec": {"$setElementOrder/containers": [{"name": "c"}, {"name": "a"}, {"name": "d"}],
                        "containers": [{"name": "b", "$patch": "delete"}, {"name": "d", "image": "i"}]}}),
    )
    .unwrap();
    // `x` is live only: Go's view of the live list after the delete and the append puts it
    // before `d` (see `Shared`).
    assert_eq!(
        out["spec"]["containers"],
        json!([{"name": "c"}, {"name": "a"}, {"name": "x"}, {"name": "d", "image": "i"}])
    );
}

#[test]
fn map_directives_and_nulls() {
    let cm = json!({"data": {"a": "1", "b": "2"}, "metadata": {"name": "c"}});
    assert_eq!(
        ok(
            "ConfigMap",
            cm.clone(),
            json!({"data": {"a": null, "c": "3"}})
        )["data"],
        json!({"b": "2", "c": "3"})
    );
    assert_eq!(
        ok(
            "ConfigMap",
            cm.clone(),
            json!({"data": {"$patch": "replace", "z": "9"}})
        )["data"],
        json!({"z": "9"})
    );
    assert_eq!(
        ok(
            "ConfigMap",
            cm.clone(),
            json!({"data": {"$patch": "delete"}})
        )["data"],
        json!({})
    );
    assert_eq!(
        ok("ConfigMap", cm.clone(), json!({"$patch": "delete"})),
        json!({})
    );
    // A new map: its nulls and directive maps dropped.
    assert_eq!(
        ok(
            "ConfigMap",
            json!({}),
            json!({"data": {"a": null, "b": "1", "c": {"$patch": "delete"}}})
        ),
        json!({"data": {"b": "1"}})
    );
    assert_eq!(
        err(
            "ConfigMap",
            cm.clone(),
            json!({"data": {"$patch": "merge"}})
        ),
        "unknown patch type: merge in map: map[$patch:merge]"
    );
    assert_eq!(
        err("ConfigMap", cm, json!({"data": {"$patch": 1}})),
        "unknown patch type: %!s(int64=1) in map: map[$patch:1]"
    );
}

#[test]
fn the_patch_meets_what_the_object_has() {
    // A list where the object has none: taken as it is, minus directive elements and nulls
    // in its maps (but a merge list's `$patch: delete` element has nothing to delete).
    let out = ok(
        "ConfigMap",
        json!({"metadata": {"name": "c"}}),
        json!({"metadata": {"ownerReferences": [{"uid": "1", "name": null}, {"uid": "2", "$patch": "delete"}],
                            "finalizers": ["a", null]}}),
    );
    assert_eq!(
        out["metadata"],
        json!({"name": "c", "ownerReferences": [{"uid": "1"}], "finalizers": ["a", null]})
    );
    // A map where the object has a scalar, a scalar where it has a map: replaced.
    let out = ok(
        "ConfigMap",
        json!({"data": "x", "binaryData": {"a": "b"}}),
        json!({"data": {"k": "v", "n": null}, "binaryData": "y"}),
    );
    assert_eq!(out, json!({"data": {"k": "v"}, "binaryData": "y"}));
    // A delete list whose field has another type, or is missing: nothing happens.
    let cm = json!({"metadata": {"finalizers": "x"}});
    let p = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"],
                                "$deleteFromPrimitiveList/other": ["y"]}});
    assert_eq!(ok("ConfigMap", cm.clone(), p), cm);
    // An empty merge list meets an empty one.
    let cm = json!({"metadata": {"finalizers": []}});
    assert_eq!(ok("ConfigMap", cm.clone(), cm.clone()), cm);
}

#[test]
fn malformed_directives_and_their_statuses() {
    let cm = json!({"metadata": {"finalizers": ["a"]}});
    let e = smp(
        "ConfigMap",
        cm.clone(),
        json!({"metadata": {"$deleteFromPrimitiveListx": ["a"]}}),
    );
    assert_eq!(e, Err(Error::BadRequest(BAD_PRIMITIVE)));
    let e = smp(
        "ConfigMap",
        cm.clone(),
        json!({"metadata": {"$setElementOrderfinalizers": ["a"]}}),
    );
    assert_eq!(e, Err(Error::BadRequest(BAD_ORDER)));
    let e = smp(
        "ConfigMap",
        json!({"metadata": {"finalizers": []}}),
        json!({"metadata": {"finalizers": [["x"]]}}),
    );
    assert_eq!(e, Err(Error::NoListOfLists));
    assert_eq!(
        err(
            "ConfigMap",
            cm.clone(),
            json!({"metadata": {"finalizers": [["x"]]}})
        ),
        "list element types are not identical: [[a] [[x]]]"
    );
    let r = Error::NoListOfLists.response();
    assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")));
    assert_eq!(
        err(
            "ConfigMap",
            cm.clone(),
            json!({"metadata": {"finalizers": [1]}})
        ),
        "list element types are not identical: [[a] [1]]"
    );
    assert_eq!(
        err(
            "ConfigMap",
            cm.clone(),
            json!({"metadata": {"$setElementOrder/finalizers": "a"}})
        ),
        "expected a []interface {}, but received a string"
    );
    assert_eq!(
        err(
            "ConfigMap",
            cm.clone(),
            json!({"metadata": {"$setElementOrder/finalizers": ["a"], "finalizers": ["b"]}})
        ),
        "The order in patch list:\n[b]\n doesn't match $setElementOrder list:\n[a]\n"
    );
    let r = smp(
        "ConfigMap",
        cm,
        json!({"metadata": {"finalizers": [{"a": 1}]}}),
    )
    .unwrap_err()
    .response();
    assert_eq!((r.code, r.body["reason"].as_str()), (500, None));
    assert_eq!(
        Error::BadRequest(BAD_RETAIN).response().body["reason"],
        json!("BadRequest")
    );
}

#[test]
fn the_patch_is_left_as_go_leaves_it() {
    let s = pod_schema();
    let mut p = json!({"spec": {
        "$setElementOrder/containers": [{"name": "a"}],
        "containers": [{"name": "a", "args": ["x"]}],
        "strategy": {"$retainKeys": ["type"], "type": "T"},
        "nodeSelector": {"$patch": "replace", "k": "v"},
        "new": {"n": null, "d": {"$patch": "delete"}, "l": [{"$patch": "delete"}, {"m": null}]}}});
    let Value::Object(m) = &mut p else { panic!() };
    let o = json!({"spec": {"containers": [{"name": "a"}], "strategy": {"type": "S"},
                            "nodeSelector": {"x": "y"}}});
    let out = apply_mut(&o, m, s.root("Pod")).unwrap();
    // New: its nulls discarded (in lists' maps too), its directive maps dropped; Go does both
    // to the patch's own maps, and the patch's map holds the filtered list.
    assert_eq!(out["spec"]["new"], json!({"l": [{}]}));
    assert_eq!(
        p,
        json!({"spec": {"strategy": {"type": "T"}, "nodeSelector": {"k": "v"},
                        "new": {"l": [{}]}}})
    );
}

#[test]
fn go_formats_values() {
    assert_eq!(go_float(1e6), "1e+06");
    assert_eq!(go_float(123456.5), "123456.5");
    assert_eq!(go_float(0.00001), "1e-05");
    assert_eq!(go_float(1.5e-7), "1.5e-07");
    for (f, go) in [
        (0.0, "0"),
        (100.0, "100"),
        (0.5, "0.5"),
        (-2.5, "-2.5"),
        (0.0001, "0.0001"),
        (1234567.0, "1.234567e+06"),
        (-1e21, "-1e+21"),
        (999999.9, "999999.9"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
    ] {
        assert_eq!(go_float(f), go, "{f}");
    }
    assert_eq!(
        go_value(&json!({"b": [1, 2.5, null], "a": true})),
        "map[a:true b:[1 2.5 <nil>]]"
    );
    let _ = At::deduced();
}

// ---- the ported apimachinery cases (testdata/strategicpatch/README.md) ----

mod ported {
    use super::*;

    const SCHEMAS: [(&str, &str); 2] = [
        (
            "merge-item.schema",
            include_str!("../../../testdata/strategicpatch/merge-item.schema"),
        ),
        (
            "precision-item.schema",
            include_str!("../../../testdata/strategicpatch/precision-item.schema"),
        ),
    ];

    fn cases(text: &str) -> Vec<Value> {
        let doc: Value = serde_json::from_str(text).expect("the table is JSON");
        doc["cases"].as_array().expect("cases").clone()
    }

    /// Applies `patch` to `original` (absent or `null`: `{}`) with the case's schema.
    fn run(case: &Value, original: &str, patch: &str) -> Result<Value, String> {
        let name = case["schema"].as_str().unwrap_or("");
        let (_, text) = SCHEMAS
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| format!("unknown schema {name}"))?;
        let schema = Schema::parse(text)?;
        let root = schema.roots.first().map(|r| r.0).unwrap_or_default();
        let o = match &case[original] {
            Value::Null => json!({}),
            o => o.clone(),
        };
        let Some(p) = case[patch].as_object().cloned() else {
            return Err(format!("`{patch}` is not an object"));
        };
        apply(&o, &p, schema.root(root)).map_err(|e| e.message())
    }

    /// (ported, passed, skipped, failures) of one table: `original` + `patch` → `result`.
    fn table(text: &str, original: &str, patch: &str) -> (usize, usize, usize, Vec<String>) {
        let (mut n, mut pass, mut skip, mut fails) = (0, 0, 0, Vec::new());
        for c in cases(text) {
            n += 1;
            if c.get("skip").is_some() {
                skip += 1;
                continue;
            }
            match run(&c, original, patch) {
                Ok(got) if got == c["result"] => pass += 1,
                Ok(got) => fails.push(format!(
                    "{}\n  {original}: {}\n  {patch}: {}\n  want: {}\n  got:  {got}",
                    c["source"], c[original], c[patch], c["result"]
                )),
                Err(e) => fails.push(format!("{}\n  error: {e}", c["source"])),
            }
        }
        (n, pass, skip, fails)
    }

    fn check(name: &str, (n, pass, skip, fails): (usize, usize, usize, Vec<String>)) {
        eprintln!("{name}: {n} ported, {pass} pass, {skip} skipped");
        assert!(
            fails.is_empty(),
            "{name}: {} of {n} fail:\n{}",
            fails.len(),
            fails.join("\n")
        );
        assert_eq!(pass + skip, n);
    }

    #[test]
    fn two_way_original_plus_patch_is_the_result() {
        let t = include_str!("../../../testdata/strategicpatch/two-way.json");
        check("two-way", table(t, "original", "twoWay"));
    }

    #[test]
    fn three_way_current_plus_patch_is_the_result() {
        let t = include_str!("../../../testdata/strategicpatch/three-way.json");
        check("three-way", table(t, "current", "threeWay"));
    }

    #[test]
    fn apply_cases() {
        let t = include_str!("../../../testdata/strategicpatch/apply.json");
        check("apply", table(t, "original", "patch"));
    }

    /// The `apply` errors; `applyText` (bytes that are not JSON: the store gets bodies already
    /// parsed, and the apiserver refuses such a body before `StrategicMergeMapPatch`) and the
    /// creation errors (smpc's runner) are not this direction.
    #[test]
    fn apply_errors() {
        let t = include_str!("../../../testdata/strategicpatch/errors.json");
        let (mut n, mut pass, mut skip, mut fails) = (0, 0, 0, Vec::new());
        for c in cases(t) {
            if c["op"] != "apply" && c["op"] != "applyText" {
                continue;
            }
            n += 1;
            if c.get("skip").is_some() || c["op"] == "applyText" {
                skip += 1;
                continue;
            }
            let want = c["contains"].as_str().unwrap_or("\u{0}");
            match run(&c, "original", "patch") {
                Err(e) if e.contains(want) => pass += 1,
                other => fails.push(format!(
                    "{}: want an error with {want:?}, got {other:?}",
                    c["source"]
                )),
            }
        }
        check("errors (apply)", (n, pass, skip, fails));
    }
}

/// The formatter Go's `%v` was first written with (std's `{:e}`, too big for the page): the
/// one built on serde_json's text agrees with it on every float.
fn go_float_std(f: f64) -> String {
    let e = format!("{f:e}");
    let (m, x) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i32 = x.parse().unwrap_or(0);
    if (-4..6).contains(&x) {
        format!("{f}")
    } else {
        format!("{m}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs())
    }
}

/// The float a Go float text denotes (the oracle's side only).
fn read_back(text: &str) -> f64 {
    // guard: allow(float-parse) a test oracle, never in the page
    text.parse::<f64>().expect("a float")
}

#[test]
fn a_tie_rounds_to_even_as_go_does() {
    // 726209451962483.25 lies exactly between ...832e+14 and ...833e+14. kubectl 1.32 prints
    // the even one: `kubectl label --local -f f.json a=b -o jsonpath='{.spec.f}'` with
    // `"f": 726209451962483.25` prints `7.262094519624832e+14` (std's `{:e}` gives ...833).
    let f = f64::from_bits(4829164876529501082);
    assert_eq!(go_float(f), "7.262094519624832e+14");
    assert_eq!(go_float_std(f), "7.262094519624833e+14");
}

/// `go_float(f)` is std's text, except on an exact tie between two shortest digit strings:
/// std's `{:e}` rounds it up, Go (like ryu) to even (`a_tie_rounds_to_even_as_go_does`); both
/// then have the same length and both read back as `f`.
fn like_std(f: f64) -> Result<(), proptest::test_runner::TestCaseError> {
    let (ours, std) = (go_float(f), go_float_std(f));
    if ours != std {
        proptest::prop_assert_eq!(ours.len(), std.len(), "{} {}", ours, std);
        proptest::prop_assert_eq!(read_back(&ours), f);
        proptest::prop_assert_eq!(read_back(&std), f);
    }
    Ok(())
}

proptest::proptest! {
    #[test]
    fn go_float_matches_std_formatting(bits in proptest::prelude::any::<u64>()) {
        let f = f64::from_bits(bits);
        proptest::prop_assume!(f.is_finite());
        like_std(f)?;
    }

    #[test]
    fn go_float_matches_std_on_decimals(m in -100_000_000i64..100_000_000, e in -12i32..12) {
        like_std(m as f64 * 10f64.powi(e))?;
    }
}
