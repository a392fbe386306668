//! Requests that once ended the process or grew it without bound (issue #37, the black-box
//! probe's reproductions): each gets a 4xx, and the server goes on serving.

use crate::support::*;

use rvlab_core::store::patch::MAX_DEPTH;
use rvlab_server::Handle;
use serde_json::{json, Value};

const CM: &str = "/api/v1/namespaces/default/configmaps";
const W: &str = "/apis/example.com/v1/namespaces/default/widgets";
const JSON_PATCH: &str = "application/json-patch+json";

fn send(h: &Handle, method: &str, path: &str, ct: &str, body: &str) -> Answer {
    request(
        h.addr(),
        method,
        path,
        &[("Content-Type", ct), ("User-Agent", "probe/1")],
        body.as_bytes(),
    )
}

/// The server answers a plain GET (it is alive and not stuck).
fn alive(h: &Handle) {
    let a = get(h.addr(), "/api/v1/namespaces/default");
    assert_eq!(a.code, 200, "{}", a.text());
}

fn nested(levels: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(levels), "}".repeat(levels))
}

/// Nesting depth of a JSON value, the value itself counting one when it is a container.
fn depth(v: &Value) -> usize {
    let mut d = 0;
    let mut cur = v;
    while let Some(next) = cur.get("a") {
        d += 1;
        cur = next;
    }
    d
}

/// Creates the custom resource `widgets/NAME` with `spec: {a: 1}`.
fn create_widget(h: &Handle, name: &str) {
    let body = format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"name":"{name}"}},"spec":{{"a":1}}}}"#
    );
    let a = send(h, "POST", W, "application/json", &body);
    assert_eq!(a.code, 201, "{}", a.text());
}

#[test]
fn a_json_patch_that_builds_a_deep_custom_resource_is_refused_and_the_server_lives() {
    let h = server(None);
    create_widget(&h, "deep");
    // The probe's C1: 40 adds of 120 levels, each at the deepest node the one before made
    // (a spec about 4,800 levels deep; the process once died of a stack overflow).
    let level = nested(120);
    let mut ops = Vec::new();
    let mut path = "/spec".to_string();
    for _ in 0..40 {
        ops.push(format!(
            r#"{{"op":"add","path":"{path}/a","value":{level}}}"#
        ));
        path.push_str(&"/a".repeat(120));
    }
    let body = format!("[{}]", ops.join(","));
    let a = send(
        &h,
        "PATCH",
        &format!("{W}/deep"),
        "application/json-patch+json",
        &body,
    );
    assert_eq!(a.code, 422, "{}", a.text());
    assert_eq!(a.json()["reason"], "Invalid");
    alive(&h);
    // Nothing was written: the object is as created, and a server-side apply of it works.
    let a = get(h.addr(), &format!("{W}/deep"));
    assert_eq!(a.json()["spec"], json!({"a": 1}));
    let a = send(
        &h,
        "PATCH",
        &format!("{W}/deep?fieldManager=x&force=true"),
        "application/apply-patch+yaml",
        r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"deep"},"spec":{"b":2}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    alive(&h);
    h.stop().unwrap();
}

#[test]
fn a_json_patch_may_build_an_object_as_deep_as_a_body_may_be_and_no_deeper() {
    let h = server(None);
    create_widget(&h, "w");
    // The object is 1 level, `spec` 2: an add at /spec/a of a value n levels deep makes the
    // object 2 + n deep.
    let fits = MAX_DEPTH - 2;
    let body = format!(
        r#"[{{"op":"add","path":"/spec/a","value":{}}}]"#,
        nested(fits)
    );
    let a = send(&h, "PATCH", &format!("{W}/w"), JSON_PATCH, &body);
    assert_eq!(a.code, 200, "{}", &a.text()[..200.min(a.text().len())]);
    assert_eq!(depth(&a.json()["spec"]), fits + 1);
    // One level more, reached through a path rather than a deeper value: the innermost
    // `a: 1` becomes an object.
    let deepest = format!("/spec{}", "/a".repeat(fits + 1));
    let body = format!(r#"[{{"op":"add","path":"{deepest}","value":{{"a":1}}}}]"#);
    let a = send(&h, "PATCH", &format!("{W}/w"), JSON_PATCH, &body);
    assert_eq!(a.code, 422, "{}", &a.text()[..200.min(a.text().len())]);
    // The same depth in a create's body is refused by the decoder, one less is not.
    let create = |name: &str, levels: usize| {
        let body = format!(
            r#"{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"name":"{name}"}},"spec":{}}}"#,
            nested(levels)
        );
        send(&h, "POST", W, "application/json", &body)
    };
    let a = create("v", fits + 2);
    assert_eq!(a.code, 400, "{}", a.text());
    let a = create("v", fits + 1);
    assert_eq!(a.code, 201, "{}", &a.text()[..200.min(a.text().len())]);
    alive(&h);
    h.stop().unwrap();
}

#[test]
fn json_patch_copies_stop_at_the_apiservers_3_mib() {
    let h = server(None);
    let a = send(
        &h,
        "POST",
        CM,
        "application/json",
        &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "amp"},
                "data": {"a": "x"}})
        .to_string(),
    );
    assert_eq!(a.code, 201, "{}", a.text());
    // The probe's C2: a 1 MiB value and 2,000 copies of it (once 2 GB and an abort).
    let mut ops = vec![json!({"op": "replace", "path": "/data/a", "value": "x".repeat(1 << 20)})];
    ops.extend(
        (0..2000).map(|i| json!({"op": "copy", "from": "/data/a", "path": format!("/data/a{i}")})),
    );
    let a = send(
        &h,
        "PATCH",
        &format!("{CM}/amp"),
        "application/json-patch+json",
        &Value::Array(ops).to_string(),
    );
    assert_eq!(a.code, 422, "{}", a.text());
    assert_eq!(a.json()["reason"], "Invalid");
    alive(&h);
    // Small copies pass.
    let ops = json!([
        {"op": "copy", "from": "/metadata/name", "path": "/data/b"},
        {"op": "copy", "from": "/data/b", "path": "/data/c"},
    ]);
    let a = send(
        &h,
        "PATCH",
        &format!("{CM}/amp"),
        "application/json-patch+json",
        &ops.to_string(),
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(a.json()["data"]["c"], "amp");
    h.stop().unwrap();
}

#[test]
fn the_probes_semantic_reproductions_are_refused_as_the_apiserver_refuses_them() {
    let h = server(None);
    let cm = |name: &str, meta: Value, data: Value| {
        let mut m = json!({"name": name});
        if let (Some(m), Value::Object(extra)) = (m.as_object_mut(), meta) {
            m.extend(extra);
        }
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": m, "data": data}).to_string()
    };
    // A 2.6 MB ConfigMap of 100,000 keys (the probe sent 2.9 MiB: once 201, and 55–110 MB
    // of memory per later patch).
    let keys: serde_json::Map<String, Value> = (0..100_000)
        .map(|i| (format!("k{i}"), Value::String("x".repeat(14))))
        .collect();
    let cases = [
        (
            "2.6 MB of data",
            cm("big", json!({}), Value::Object(keys)),
            422,
        ),
        (
            "300 KiB of annotations",
            cm(
                "ann",
                json!({"annotations": {"a": "x".repeat(300 * 1024)}}),
                json!({}),
            ),
            422,
        ),
        (
            "a label value of 64 characters",
            cm("lab", json!({"labels": {"a": "x".repeat(64)}}), json!({})),
            422,
        ),
        (
            "a data key `a b/c`",
            cm("key", json!({}), json!({"a b/c": "x"})),
            422,
        ),
    ];
    for (what, body, code) in cases {
        let a = send(&h, "POST", CM, "application/json", &body);
        assert_eq!(
            a.code,
            code,
            "{what}: {}",
            &a.text()[..300.min(a.text().len())]
        );
    }
    // `deletionTimestamp` on create is the server's: cleared.
    let body = cm(
        "del",
        json!({"deletionTimestamp": "2020-01-02T03:04:05Z", "finalizers": ["example.com/f"]}),
        json!({"a": "x"}),
    );
    let a = send(&h, "POST", CM, "application/json", &body);
    assert_eq!(a.code, 201, "{}", a.text());
    assert!(a.json()["metadata"].get("deletionTimestamp").is_none());
    // And an update may not set it: only a DELETE does.
    let obj = format!("{CM}/del");
    for (ct, patch) in [
        (
            "application/merge-patch+json",
            r#"{"metadata":{"deletionTimestamp":"2020-01-02T03:04:05Z"}}"#,
        ),
        (
            "application/json-patch+json",
            r#"[{"op":"add","path":"/metadata/deletionTimestamp","value":"2020-01-02T03:04:05Z"}]"#,
        ),
    ] {
        let a = send(&h, "PATCH", &obj, ct, patch);
        assert_eq!(a.code, 422, "{ct}: {}", a.text());
    }
    // Patches that remove `metadata` are 400, and wipe nothing.
    for (ct, patch) in [
        ("application/merge-patch+json", r#"{"metadata":null}"#),
        (
            "application/strategic-merge-patch+json",
            r#"{"$patch":"delete"}"#,
        ),
        (
            "application/json-patch+json",
            r#"[{"op":"remove","path":"/metadata"}]"#,
        ),
    ] {
        let a = send(&h, "PATCH", &obj, ct, patch);
        assert_eq!(a.code, 400, "{ct}: {}", a.text());
    }
    let a = get(h.addr(), &obj);
    assert_eq!(a.json()["metadata"]["finalizers"], json!(["example.com/f"]));
    assert_eq!(a.json()["data"], json!({"a": "x"}));
    // A DELETE marks it; the finalizer holds it.
    let a = request(h.addr(), "DELETE", &obj, &[("User-Agent", "probe/1")], b"");
    assert_eq!(a.code, 200, "{}", a.text());
    assert!(get(h.addr(), &obj).json()["metadata"]["deletionTimestamp"].is_string());
    alive(&h);
    h.stop().unwrap();
}

/// A JSON document of a shape, as text (never a deep `Value` in the test itself).
fn shaped(kind: u8, depth: usize, width: usize) -> String {
    match kind % 3 {
        0 => nested(depth),
        1 => format!("{}1{}", "[".repeat(depth), "]".repeat(depth)),
        _ => {
            let each = depth / width.max(1);
            let fields: Vec<String> = (0..width.max(1))
                .map(|i| format!(r#""k{i}":{}"#, nested(each)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Deep and wide documents through every write path of a custom resource (and a
    /// ConfigMap's strategic merge patch): every request gets an answer that is not a 5xx,
    /// and the server serves the next one.
    #[test]
    fn deep_and_wide_documents_through_every_write_path_get_an_answer(
        kind in 0u8..3,
        depth in 1usize..400,
        width in 1usize..64,
        extra in 0usize..48,
    ) {
        let h = server(None);
        let doc = shaped(kind, depth, width);
        let cr = |spec: &str| format!(
            r#"{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"name":"w"}},"spec":{spec}}}"#
        );
        let obj = format!("{W}/w");
        let mut answers = Vec::new();
        // A plain object first, so that the updates and patches have something to change.
        answers.push(send(&h, "POST", W, "application/json", &cr(r#"{"a":1}"#)));
        answers.push(send(&h, "PUT", &obj, "application/json", &cr(&doc)));
        answers.push(send(&h, "PATCH", &obj, "application/merge-patch+json",
            &format!(r#"{{"spec":{{"m":{doc}}}}}"#)));
        // JSON patch adds, each at the deepest path of the one before (the probe's C1: 40 of
        // 120 levels ended the process).
        let mut ops = Vec::new();
        let mut path = "/spec/j".to_string();
        for _ in 0..=extra {
            ops.push(format!(r#"{{"op":"add","path":"{path}","value":{}}}"#, nested(depth.min(120))));
            path.push_str(&"/a".repeat(depth.min(120)));
        }
        answers.push(send(&h, "PATCH", &obj, "application/json-patch+json",
            &format!("[{}]", ops.join(","))));
        answers.push(send(&h, "PATCH", &format!("{obj}?fieldManager=p&force=true"),
            "application/apply-patch+yaml", &cr(&format!(r#"{{"s":{doc}}}"#))));
        answers.push(send(&h, "POST", CM, "application/json",
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"x"}}"#));
        answers.push(send(&h, "PATCH", &format!("{CM}/c"), "application/strategic-merge-patch+json",
            &format!(r#"{{"data":{doc}}}"#)));
        answers.push(get(h.addr(), &obj));
        answers.push(get(h.addr(), &format!("{W}?watch=false")));
        for (i, a) in answers.iter().enumerate() {
            proptest::prop_assert!(a.code < 500, "request {i}: {} {}", a.code, &a.text()[..200.min(a.text().len())]);
        }
        alive(&h);
        h.stop().unwrap();
    }
}
