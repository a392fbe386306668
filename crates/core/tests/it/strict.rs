//! `fieldValidation=Strict|Warn|Ignore` in the store (k8s.io/apiserver `pkg/endpoints/handlers/rest.go`).

use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Store};
use serde_json::{json, Value};

const CM: &str = "/api/v1/namespaces/default/configmaps";
const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments";

struct W {
    store: Store,
    rng: Rng,
}

impl W {
    fn new() -> W {
        W {
            store: Store::new(),
            rng: Rng::new(5),
        }
    }
    fn send(&mut self, method: Method, path: &str, ct: &str, body: Value) -> Outcome {
        let req = Request {
            method,
            path: path.into(),
            content_type: Some(ct.into()),
            body: Some(body),
        };
        let actor = Actor {
            name: "kubectl".into(),
            base_revision: 0,
        };
        let mut env = Env {
            now_ms: 0,
            rng: &mut self.rng,
        };
        self.store.handle(&req, &actor, &mut env)
    }
}

fn typo_cm() -> Value {
    json!({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","lables":{"a":"b"}},"datta":{"k":"v"},"spec":{}})
}

#[test]
fn strict_create_is_the_apiservers_400_with_every_unknown_field_in_document_order() {
    let mut w = W::new();
    let o = w.send(
        Method::Post,
        &format!("{CM}?fieldManager=kubectl-create&fieldValidation=Strict"),
        "application/json",
        typo_cm(),
    );
    assert_eq!(o.response.code, 400);
    assert_eq!(
        o.response.body,
        json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
               "message":"ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"metadata.lables\", unknown field \"datta\", unknown field \"spec\"",
               "reason":"BadRequest","code":400})
    );
    assert_eq!(o.revision, None);
    assert!(w.store.objects().next().is_none());
    // A top-level `spec` in a ConfigMap: the message a real apiserver gives, exactly
    // (k8s.io/apiserver `pkg/endpoints/handlers/rest.go`, `transformDecodeError`).
    let o = w.send(
        Method::Post,
        &format!("{CM}?fieldValidation=Strict"),
        "application/json",
        json!({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"spec":{}}),
    );
    assert_eq!(
        o.response.body["message"],
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"spec\""
    );
    // A type error wins over unknown fields.
    let o = w.send(
        Method::Post,
        &format!("{CM}?fieldValidation=Strict"),
        "application/json",
        json!({"metadata":{"name":"c"},"data":{"k":1},"spec":{}}),
    );
    assert_eq!(o.response.code, 400);
    assert!(o.response.body["message"]
        .as_str()
        .unwrap()
        .contains("json: cannot unmarshal number"));
    // Known fields only: created, no warnings.
    let o = w.send(
        Method::Post,
        &format!("{CM}?fieldValidation=Strict"),
        "application/json",
        json!({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ok","labels":{"x":"y"}},"data":{"k":"v"},"immutable":false}),
    );
    assert_eq!(o.response.code, 201);
    assert!(o.warnings.is_empty());
}

#[test]
fn warn_and_absent_write_and_warn_ignore_writes_silently() {
    for (query, warns) in [
        ("?fieldValidation=Warn", true),
        ("", true),
        ("?fieldValidation=Ignore", false),
    ] {
        let mut w = W::new();
        let o = w.send(
            Method::Post,
            &format!("{CM}{query}"),
            "application/json",
            typo_cm(),
        );
        assert_eq!(o.response.code, 201, "{query}");
        let want: Vec<String> = if warns {
            vec![
                "unknown field \"metadata.lables\"".into(),
                "unknown field \"datta\"".into(),
                "unknown field \"spec\"".into(),
            ]
        } else {
            Vec::new()
        };
        // Document order: metadata comes before datta in the body.
        assert_eq!(o.warnings, want, "{query}");
        // The unknown fields are dropped, as decoding into the Go type does.
        let stored = w.store.objects().next().unwrap().1.clone();
        assert!(stored.get("datta").is_none() && stored.get("spec").is_none());
        assert!(stored["metadata"].get("lables").is_none());
        assert_eq!(stored["metadata"]["name"], "c");
    }
}

#[test]
fn strict_update_and_patches() {
    let mut w = W::new();
    let created = w.send(
        Method::Post,
        CM,
        "application/json",
        json!({"metadata":{"name":"c"},"data":{"k":"v"}}),
    );
    assert_eq!(created.response.code, 201);
    let mut put = created.response.body.clone();
    put["spec"] = json!({"x":1});
    let o = w.send(
        Method::Put,
        &format!("{CM}/c?fieldValidation=Strict"),
        "application/json",
        put.clone(),
    );
    assert_eq!(o.response.code, 400);
    assert_eq!(
        o.response.body["message"],
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"spec\""
    );
    let o = w.send(
        Method::Put,
        &format!("{CM}/c?fieldValidation=Warn"),
        "application/json",
        put,
    );
    assert_eq!(o.response.code, 200);
    assert_eq!(o.warnings, ["unknown field \"spec\""]);

    // Strategic merge patch: 422 with the patch as Go prints a map.
    let o = w.send(
        Method::Patch,
        &format!("{CM}/c?fieldManager=kubectl-edit&fieldValidation=Strict"),
        "application/strategic-merge-patch+json",
        json!({"datta":{"k":"v"},"data":{"k":"w"},"zz":1,"aa":[1,"x"]}),
    );
    assert_eq!(o.response.code, 422);
    assert_eq!(
        o.response.body,
        json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
               "message":" \"\" is invalid: patch: Invalid value: \"map[aa:[1 x] data:map[k:w] datta:map[k:v] zz:1]\": strict decoding error: unknown field \"aa\", unknown field \"datta\", unknown field \"zz\"",
               "reason":"Invalid",
               "details":{"causes":[{"reason":"FieldValueInvalid",
                   "message":"Invalid value: \"map[aa:[1 x] data:map[k:w] datta:map[k:v] zz:1]\": strict decoding error: unknown field \"aa\", unknown field \"datta\", unknown field \"zz\"",
                   "field":"patch"}]},
               "code":422})
    );
    // Merge patch: 422 with the patch cause; the value is the patched object.
    let o = w.send(
        Method::Patch,
        &format!("{CM}/c?fieldValidation=Strict"),
        "application/merge-patch+json",
        json!({"datta":{"k":"v"}}),
    );
    assert_eq!(o.response.code, 422);
    let b = &o.response.body;
    assert_eq!(b["reason"], "Invalid");
    let msg = b["message"].as_str().unwrap();
    assert!(
        msg.starts_with(
            r#" "" is invalid: patch: Invalid value: "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"v\"},\"datta\":{\"k\":\"v\"},\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\""#
        ),
        "{msg}"
    );
    assert!(
        msg.ends_with("}\": strict decoding error: unknown field \"datta\""),
        "{msg}"
    );
    assert_eq!(b["details"]["causes"][0]["reason"], "FieldValueInvalid");
    assert_eq!(b["details"]["causes"][0]["field"], "patch");
    assert!(b["details"].get("name").is_none() && b["details"].get("kind").is_none());
    // JSON patch: the same path.
    let o = w.send(
        Method::Patch,
        &format!("{CM}/c?fieldValidation=Strict"),
        "application/json-patch+json",
        json!([{"op":"add","path":"/spec","value":{}}]),
    );
    assert_eq!(o.response.code, 422);
    assert!(o.response.body["message"]
        .as_str()
        .unwrap()
        .ends_with("strict decoding error: unknown field \"spec\""));
    // Warn: the patch goes through with the warning.
    let o = w.send(
        Method::Patch,
        &format!("{CM}/c?fieldValidation=Warn"),
        "application/merge-patch+json",
        json!({"data":{"k":"x"},"datta":{}}),
    );
    assert_eq!(o.response.code, 200);
    assert_eq!(o.warnings, ["unknown field \"datta\""]);
}

#[test]
fn deployments_are_checked_down_to_containers() {
    let mut w = W::new();
    let body = json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
        "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
                "template":{"metadata":{"labels":{"app":"web"}},
                            "spec":{"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always","ports":[{"containerPort":80}]},
                                                  {"name":"d","imagee":"nginx"}]}}}});
    let o = w.send(
        Method::Post,
        &format!("{DEPLOY}?fieldValidation=Strict"),
        "application/json",
        body,
    );
    assert_eq!(o.response.code, 400);
    assert_eq!(
        o.response.body["message"],
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.template.spec.containers[1].imagee\""
    );
}

/// What `kubectl apply` sends for a manifest with a typo: the strict error prints the patch as
/// apimachinery's merge left it (`$setElementOrder/containers` and the merged `containers`
/// gone: `mergePatchIntoOriginal` deletes them from the patch map).
#[test]
fn a_strategic_patchs_strict_error_prints_the_patch_as_the_merge_left_it() {
    let mut w = W::new();
    let body = json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
        "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
                "template":{"metadata":{"labels":{"app":"web"}},
                            "spec":{"containers":[{"name":"c","image":"nginx"}]}}}});
    let o = w.send(Method::Post, DEPLOY, "application/json", body);
    assert_eq!(o.response.code, 201);
    let o = w.send(
        Method::Patch,
        &format!("{DEPLOY}/web?fieldManager=kubectl-client-side-apply&fieldValidation=Strict"),
        "application/strategic-merge-patch+json",
        json!({"spec":{"replicaz":2,"template":{"spec":{
            "$setElementOrder/containers":[{"name":"c"}],
            "containers":[{"name":"c","image":"nginx:2"}]}}}}),
    );
    assert_eq!(o.response.code, 422);
    assert_eq!(
        o.response.body["message"],
        " \"\" is invalid: patch: Invalid value: \"map[spec:map[replicaz:2 template:map[spec:map[]]]]\": strict decoding error: unknown field \"spec.replicaz\""
    );
}

#[test]
fn secrets_know_string_data_and_type() {
    let mut w = W::new();
    let o = w.send(
        Method::Post,
        "/api/v1/namespaces/default/secrets?fieldValidation=Strict",
        "application/json",
        json!({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"Opaque","stringData":{"a":"b"},"immutable":false}),
    );
    assert_eq!(o.response.code, 201, "{}", o.response.body);
    let o = w.send(
        Method::Post,
        "/api/v1/namespaces/default/secrets?fieldValidation=Strict",
        "application/json",
        json!({"apiVersion":"v1","kind":"Secret","metadata":{"name":"t"},"strinData":{"a":"b"}}),
    );
    assert_eq!(
        o.response.body["message"],
        "Secret in version \"v1\" cannot be handled as a Secret: strict decoding error: unknown field \"strinData\""
    );
}

#[test]
fn an_unsupported_directive_is_the_options_422() {
    let mut w = W::new();
    for (method, path, options) in [
        (Method::Post, CM.to_string(), "CreateOptions"),
        (Method::Put, format!("{CM}/c"), "UpdateOptions"),
        (Method::Patch, format!("{CM}/c"), "PatchOptions"),
    ] {
        let ct = if method == Method::Patch {
            "application/merge-patch+json"
        } else {
            "application/json"
        };
        let o = w.send(
            method,
            &format!("{path}?fieldValidation=strict"),
            ct,
            json!({"metadata":{"name":"c"}}),
        );
        assert_eq!(o.response.code, 422);
        assert_eq!(
            o.response.body,
            json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                   "message": format!("{options}.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""),
                   "reason":"Invalid",
                   "details":{"group":"meta.k8s.io","kind":options,"causes":[{"reason":"FieldValueNotSupported",
                       "message":"Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"",
                       "field":"fieldValidation"}]},
                   "code":422})
        );
    }
    // The first value counts.
    let o = w.send(
        Method::Post,
        &format!("{CM}?fieldValidation=Ignore&fieldValidation=x"),
        "application/json",
        json!({"metadata":{"name":"c"},"spec":{}}),
    );
    assert_eq!(o.response.code, 201);
    assert!(o.warnings.is_empty());
}

#[test]
fn dry_run_and_field_validation_errors_share_one_422() {
    let mut w = W::new();
    let o = w.send(
        Method::Post,
        &format!("{CM}?dryRun=x&fieldValidation=y"),
        "application/json",
        json!({"metadata":{"name":"c"}}),
    );
    assert_eq!(o.response.code, 422);
    assert_eq!(
        o.response.body["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: [dryRun: Unsupported value: [\"x\"]: supported values: \"All\", fieldValidation: Unsupported value: \"y\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"]"
    );
    // Warnings survive a dry run.
    let o = w.send(
        Method::Post,
        &format!("{CM}?dryRun=All"),
        "application/json",
        json!({"metadata":{"name":"c"},"spec":{}}),
    );
    assert_eq!(o.response.code, 201);
    assert_eq!(o.warnings, ["unknown field \"spec\""]);
}
