//! PATCH bodies (k8s.io/apiserver `pkg/endpoints/handlers/patch.go`): JSON patch (RFC 6902) and merge patch (RFC 7386)
//! through the `json-patch` crate, and a strategic merge patch for the built-in kinds.
//!
//! Errors are the handler's: a JSON patch that is not a list of operations is a 400 (decode),
//! one that fails to apply (a failed `test`, a missing path, an unknown op) is the generic 422
//! (but a `replace` of a key its object lacks sets it, as the apiserver's json-patch v4 does;
//! with the `api` feature only)
//! with empty details; a merge patch that is not a JSON object is a 400. A strategic merge
//! patch is apimachinery's, every directive and error included ([`super::strategic`]), with the
//! facts of the kind's schema ([`super::schema::builtin`]: which lists merge and by which key);
//! one that is not a JSON object is the 400 of decoding it into a map. Custom resources have no
//! strategic merge patch (415, before this module).

use super::meta::json_type;
use super::{schema, status, strategic};
use super::{Resource, Response};
use serde_json::Value;

/// The patch types, one per PATCH content type. The scenario language's `patch` statement and
/// kubectl's `patch --type` send the first three; server-side apply sends the fourth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatchType {
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply).
    Apply,
}

impl PatchType {
    /// The request's Content-Type.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Merge => "application/merge-patch+json",
            PatchType::Json => "application/json-patch+json",
            PatchType::Strategic => "application/strategic-merge-patch+json",
            PatchType::Apply => "application/apply-patch+yaml",
        }
    }

    /// The patch type of a content type (parameters after `;` ignored).
    pub fn from_content_type(ct: Option<&str>) -> Option<PatchType> {
        let ct = ct?.split(';').next()?.trim();
        match ct {
            "application/json-patch+json" => Some(PatchType::Json),
            "application/merge-patch+json" => Some(PatchType::Merge),
            "application/strategic-merge-patch+json" => Some(PatchType::Strategic),
            "application/apply-patch+yaml" => Some(PatchType::Apply),
            _ => None,
        }
    }
}

/// The media types a resource accepts for PATCH (the 415's list).
pub(crate) fn accepted(res: &Resource) -> &'static [&'static str] {
    match res {
        Resource::Custom { .. } => &[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml",
        ],
        _ => &[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/apply-patch+yaml",
        ],
    }
}

/// Applies a JSON, merge or strategic patch to `doc`; with a strategic one, also the patch as
/// apimachinery leaves it (what a strict decoding error prints).
pub(crate) fn apply_patch(
    res: &Resource,
    ty: PatchType,
    doc: &Value,
    patch: &Value,
) -> Result<(Value, Option<Value>), Response> {
    match ty {
        PatchType::Json => {
            let Value::Array(ops) = patch else {
                return Err(status::bad_request(&format!(
                    "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
                    json_type(patch)
                )));
            };
            if ops.len() > 10_000 {
                return Err(status::request_entity_too_large(&format!(
                    "The allowed maximum operations in a JSON patch is 10000, got {}",
                    ops.len()
                )));
            }
            let ops = json_patch_ops(ops).ok_or_else(status::patch_apply_error)?;
            let mut out = doc.clone();
            // The apiserver's JSON patch (gopkg.in/evanphx/json-patch.v4 v4.13.0, `replace` in
            // patch.go) replaces a key its object lacks, as an add: `partialDoc.get` finds every
            // key; RFC 6902 (and the json-patch crate) refuse it. The operations apply one by
            // one, each replace seeing the object as the ones before it left it. With the `api`
            // feature only: the page's store refuses it (+377 B of its wasm, over its budget;
            // docs/size.md), and none of its lessons replaces a missing key.
            #[cfg(feature = "api")]
            let mut copied = 0;
            #[cfg(feature = "api")]
            for op in ops {
                // The apiserver's copy limit (`JSONPatchMaxCopyBytes`, 3 MiB in k8s.io/apiserver
                // `pkg/server/config.go`): json-patch v4 adds each copied value's encoded size
                // and fails the copy that goes over it, as any failed operation (the generic
                // 422). Without it a 1 MiB value copied 2,000 times asks for 2 GB.
                if let json_patch::PatchOperation::Copy(c) = &op {
                    copied += out
                        .pointer(c.from.as_str())
                        .map_or(0, crate::json::go_encoded_len);
                    if copied > MAX_COPY_BYTES {
                        return Err(status::patch_apply_error());
                    }
                }
                let op = match op {
                    json_patch::PatchOperation::Replace(r) if lacks_key(&out, &r.path) => {
                        json_patch::PatchOperation::Add(json_patch::AddOperation {
                            path: r.path,
                            value: r.value,
                        })
                    }
                    op => op,
                };
                json_patch::patch(&mut out, &[op]).map_err(|_| status::patch_apply_error())?;
                // Every operation's value was decoded under the decoder's depth limit, but its
                // path may point as deep as the object goes, so each `add` can go deeper; the
                // walks that follow (field sets, printers, managedFields) recurse. Refused as
                // the generic 422 as soon as one goes past the limit.
                if crate::json::deeper_than(&out, MAX_DEPTH) {
                    return Err(status::patch_apply_error());
                }
            }
            #[cfg(not(feature = "api"))]
            json_patch::patch(&mut out, &ops).map_err(|_| status::patch_apply_error())?;
            Ok((out, None))
        }
        PatchType::Merge => {
            if !patch.is_object() {
                return Err(status::bad_request("Invalid JSON Patch"));
            }
            let mut out = doc.clone();
            json_patch::merge(&mut out, patch);
            Ok((out, None))
        }
        PatchType::Strategic => {
            let Value::Object(mut p) = patch.clone() else {
                return Err(status::bad_request(&format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    json_type(patch)
                )));
            };
            let out = strategic::apply_mut(doc, &mut p, schema::builtin().root(&res.kind()))
                .map_err(|e| e.response())?;
            Ok((out, Some(Value::Object(p))))
        }
        PatchType::Apply => Ok((patch.clone(), None)),
    }
}

/// The apiserver's limit on what a JSON patch's `copy` operations may add, in bytes of JSON
/// (`JSONPatchMaxCopyBytes`).
#[cfg(feature = "api")]
const MAX_COPY_BYTES: usize = 3 * 1024 * 1024;

/// The deepest an object may nest (objects and arrays, the object itself counting as one): the
/// depth `rvlab serve`'s JSON decoder accepts in a body (serde_json's recursion limit of 128
/// lets 127 containers nest), so no patch builds what no create could send. The apiserver's decoder stops at 10,000 levels
/// (Go's encoding/json `maxNestingDepth`), a documented difference (docs/serve.md).
pub const MAX_DEPTH: usize = 127;

/// Whether `path` names a key that the object at its parent does not have.
#[cfg(feature = "api")]
fn lacks_key(doc: &Value, path: &json_patch::jsonptr::Pointer) -> bool {
    path.split_back().is_some_and(|(parent, key)| {
        doc.pointer(parent.as_str())
            .and_then(Value::as_object)
            .is_some_and(|o| !o.contains_key(key.decoded().as_ref()))
    })
}

/// The operations of a JSON patch, or `None` where deserialising `json_patch::Patch` with serde
/// would fail. Built by hand because serde's internally tagged enum buffers every operation
/// through its `Content` type, several kB of wasm (docs/size.md); it accepts exactly what the
/// derived `Deserialize` accepts (tested against it):
///
/// - an object with a string `op` naming the operation and its fields (`path`, plus `value`
///   for add/replace/test or `from` for move/copy); other keys are ignored;
/// - or an array: the op name, then the fields in declaration order (add/replace/test:
///   `path, value`; remove: `path`; move/copy: `from, path`), nothing more.
///
/// Pointers must be strings and valid RFC 6901 pointers; a `value` may be anything, `null`
/// included, but must be present.
fn json_patch_ops(ops: &[Value]) -> Option<Vec<json_patch::PatchOperation>> {
    use json_patch::{
        AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation,
        ReplaceOperation, TestOperation,
    };
    /// The operation names, in the order of the `match` below.
    const OPS: [&str; 6] = ["add", "remove", "replace", "move", "copy", "test"];
    fn pointer(v: Option<&Value>) -> Option<json_patch::jsonptr::PointerBuf> {
        json_patch::jsonptr::PointerBuf::parse(v?.as_str()?).ok()
    }
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        // (op index, the two fields in declaration order: `path`/`from`, then `value`/`path`).
        let (i, a, b) = match op {
            Value::Object(m) => {
                let tag = m.get("op")?.as_str()?;
                let i = OPS.iter().position(|n| *n == tag)?;
                let (a, b) = match i {
                    1 => ("path", None),
                    3 | 4 => ("from", Some("path")),
                    _ => ("path", Some("value")),
                };
                (i, m.get(a), b.and_then(|b| m.get(b)))
            }
            Value::Array(items) => {
                let (tag, rest) = items.split_first()?;
                let tag = tag.as_str()?;
                let i = OPS.iter().position(|n| *n == tag)?;
                if rest.len() != if i == 1 { 1 } else { 2 } {
                    return None;
                }
                (i, rest.first(), rest.get(1))
            }
            _ => return None,
        };
        out.push(match i {
            0 => PatchOperation::Add(AddOperation {
                path: pointer(a)?,
                value: b?.clone(),
            }),
            1 => PatchOperation::Remove(RemoveOperation { path: pointer(a)? }),
            2 => PatchOperation::Replace(ReplaceOperation {
                path: pointer(a)?,
                value: b?.clone(),
            }),
            3 => PatchOperation::Move(MoveOperation {
                from: pointer(a)?,
                path: pointer(b)?,
            }),
            4 => PatchOperation::Copy(CopyOperation {
                from: pointer(a)?,
                path: pointer(b)?,
            }),
            _ => PatchOperation::Test(TestOperation {
                path: pointer(a)?,
                value: b?.clone(),
            }),
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Map};

    #[test]
    fn strategic_merges_containers_by_name() {
        let doc = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "a:1"}, {"name": "side", "image": "s:1"}]}}}});
        let patch = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "a:2"}, {"name": "side", "$patch": "delete"}, {"name": "new", "image": "n"}]}}}});
        let (out, left) =
            apply_patch(&Resource::Deployment, PatchType::Strategic, &doc, &patch).unwrap();
        // Go's merge leaves the patch's merged items in it (what a strict error prints).
        assert_eq!(left.as_ref(), Some(&patch));
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([{"name": "app", "image": "a:2"}, {"name": "new", "image": "n"}])
        );
        let out = apply_patch(
            &Resource::ConfigMap,
            PatchType::Strategic,
            &json!({"data": {"a": "1", "b": "2"}}),
            &json!({"data": {"a": null, "c": "3"}}),
        )
        .unwrap()
        .0;
        assert_eq!(out, json!({"data": {"b": "2", "c": "3"}}));
        let out = apply_patch(
            &Resource::ConfigMap,
            PatchType::Strategic,
            &json!({"data": {"a": "1"}}),
            &json!({"data": {"$patch": "replace", "z": "9"}}),
        )
        .unwrap()
        .0;
        assert_eq!(out, json!({"data": {"z": "9"}}));
    }

    /// What the store did before `json_patch_ops`: serde's derived `Deserialize`.
    fn serde_ops(ops: &[Value]) -> Option<Vec<json_patch::PatchOperation>> {
        serde_json::from_value::<json_patch::Patch>(Value::Array(ops.to_vec()))
            .ok()
            .map(|p| p.0)
    }

    /// Any JSON value built from the pieces JSON patch operations are made of.
    fn piece() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            Just(json!(true)),
            Just(json!(0)),
            Just(json!(-2)),
            Just(json!(1.5)),
            prop::sample::select(vec![
                "add", "remove", "replace", "move", "copy", "test", "Add", "op", "path", "from",
                "value", "", "/", "/a", "/a/0", "/a/-", "a", "/a~1b", "/a~2", "/~", "/b/c",
            ])
            .prop_map(|s| json!(s)),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop::sample::select(vec!["op", "path", "from", "value", "x"]),
                        inner
                    ),
                    0..5
                )
                .prop_map(|kv| Value::Object(
                    kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
                )),
            ]
        })
    }

    /// An operation-shaped value: an object or array around a known op name.
    fn op_like() -> impl Strategy<Value = Value> {
        let name = prop::sample::select(vec!["add", "remove", "replace", "move", "copy", "test"]);
        prop_oneof![
            (
                name.clone(),
                prop::collection::vec(
                    (
                        prop::sample::select(vec!["path", "from", "value", "x"]),
                        piece()
                    ),
                    0..4
                )
            )
                .prop_map(|(n, kv)| {
                    let mut m = Map::new();
                    m.insert("op".into(), json!(n));
                    for (k, v) in kv {
                        m.insert(k.to_string(), v);
                    }
                    Value::Object(m)
                }),
            (name, prop::collection::vec(piece(), 0..4)).prop_map(|(n, rest)| {
                let mut a = vec![json!(n)];
                a.extend(rest);
                Value::Array(a)
            }),
            piece(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Accepts and rejects exactly what serde's `Deserialize` for `Patch` did, with the same
        /// operations.
        #[test]
        fn json_patch_ops_match_serde(ops in prop::collection::vec(op_like(), 0..4)) {
            prop_assert_eq!(json_patch_ops(&ops), serde_ops(&ops));
        }
    }

    #[test]
    fn json_patch_ops_forms() {
        let cases = [
            json!({"op": "add", "path": "/a", "value": null}),
            json!({"op": "add", "path": "/a"}),
            json!({"op": "remove", "path": "/a", "value": 1, "from": 3}),
            json!({"op": "remove", "path": "a"}),
            json!({"op": "remove", "path": "/a~2"}),
            json!({"op": "remove", "path": ""}),
            json!({"op": "move", "from": "/a", "path": "/b"}),
            json!({"op": "copy", "path": "/b"}),
            json!({"op": "test", "path": "/a", "value": {"x": [1, 2.5, -3]}}),
            json!({"op": "Add", "path": "/a", "value": 1}),
            json!({"op": 0, "path": "/a", "value": 1}),
            json!({"path": "/a", "value": 1}),
            json!(["add", "/a", 1]),
            json!(["add", "/a"]),
            json!(["add", "/a", 1, 2]),
            json!(["remove", "/a"]),
            json!(["remove", "/a", 1]),
            json!(["move", "/a", "/b"]),
            json!(["test", 5, 1]),
            json!([]),
            json!([0, "/a"]),
            json!("add"),
            json!(null),
        ];
        for c in cases {
            let ops = [c];
            assert_eq!(json_patch_ops(&ops), serde_ops(&ops), "{}", ops[0]);
        }
        assert_eq!(json_patch_ops(&[]), Some(Vec::new()));
    }

    #[test]
    fn json_patch_errors() {
        let doc = json!({"data": {"a": "1"}});
        let bad_test = json!([{"op": "test", "path": "/data/a", "value": "2"}]);
        assert_eq!(
            apply_patch(&Resource::ConfigMap, PatchType::Json, &doc, &bad_test)
                .unwrap_err()
                .code,
            422
        );
        assert_eq!(
            apply_patch(&Resource::ConfigMap, PatchType::Json, &doc, &json!({}))
                .unwrap_err()
                .code,
            400
        );
        let ok = json!([{"op": "replace", "path": "/data/a", "value": "2"}]);
        assert_eq!(
            apply_patch(&Resource::ConfigMap, PatchType::Json, &doc, &ok)
                .unwrap()
                .0,
            json!({"data": {"a": "2"}})
        );
        // The apiserver's json-patch v4 replaces a key its object lacks (the reference
        // answered 200 with the key set: a live `cargo xtask reference diff`, seed 3); a
        // missing parent, or an index past an array's end, still fails.
        // (The page's store, without the `api` feature, refuses it as RFC 6902 does.)
        let replace = |path: &str| json!([{"op": "replace", "path": path, "value": "z"}]);
        let missing = apply_patch(
            &Resource::ConfigMap,
            PatchType::Json,
            &doc,
            &replace("/data/k"),
        );
        if crate::store::API {
            assert_eq!(missing.unwrap().0, json!({"data": {"a": "1", "k": "z"}}));
        } else {
            assert_eq!(missing.unwrap_err().code, 422);
        }
        for path in ["/spec/k", "/data/a/b"] {
            let e = apply_patch(&Resource::ConfigMap, PatchType::Json, &doc, &replace(path));
            assert_eq!(e.unwrap_err().code, 422, "{path}");
        }
        let list = json!({"items": ["a"]});
        let e = apply_patch(
            &Resource::ConfigMap,
            PatchType::Json,
            &list,
            &replace("/items/1"),
        );
        assert_eq!(e.unwrap_err().code, 422);
        // Operations apply in order: a replace after an add sees the added key.
        let both = json!([{"op": "add", "path": "/data/n", "value": "1"}, {"op": "replace", "path": "/data/n", "value": "2"}]);
        assert_eq!(
            apply_patch(&Resource::ConfigMap, PatchType::Json, &doc, &both)
                .unwrap()
                .0,
            json!({"data": {"a": "1", "n": "2"}})
        );
    }
}
