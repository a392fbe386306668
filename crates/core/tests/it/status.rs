//! A Deployment's `status` subresource (`…/deployments/NAME/status`), as the apiserver serves it:
//! kubernetes `pkg/registry/apps/deployment/strategy.go` (`deploymentStatusStrategy`), the
//! generic `rest.BeforeUpdate`, and the field manager's reset fields (`resetFieldsByVersion*`).

use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Store};
use serde_json::{json, Value};

const WEB: &str = "/apis/apps/v1/namespaces/default/deployments/web";
const STATUS: &str = "/apis/apps/v1/namespaces/default/deployments/web/status";
const MERGE: &str = "application/merge-patch+json";
const APPLY: &str = "application/apply-patch+yaml";

struct W {
    store: Store,
    rng: Rng,
}

impl W {
    /// A store with `deployment/web` (labels, annotations, one replica) created by
    /// `kubectl-create`.
    fn new() -> W {
        let mut w = W {
            store: Store::new(),
            rng: Rng::new(3),
        };
        let body = json!({"metadata": {"name": "web", "labels": {"app": "web"},
            "annotations": {"note": "a"}}, "spec": {"replicas": 1}});
        let o = w.send(
            "setup",
            Method::Post,
            "/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create",
            Some("application/json"),
            Some(body),
        );
        assert_eq!(o.response.code, 201, "{}", o.response.body);
        w
    }

    fn send(
        &mut self,
        who: &str,
        method: Method,
        path: &str,
        ct: Option<&str>,
        body: Option<Value>,
    ) -> Outcome {
        let req = Request {
            method,
            path: path.to_string(),
            content_type: ct.map(str::to_string),
            body,
        };
        let actor = Actor {
            name: who.to_string(),
            base_revision: 0,
        };
        let mut env = Env {
            now_ms: 0,
            rng: &mut self.rng,
        };
        self.store.handle(&req, &actor, &mut env)
    }

    fn get(&mut self, path: &str) -> Value {
        let o = self.send("reader", Method::Get, path, None, None);
        assert_eq!(o.response.code, 200, "{}", o.response.body);
        o.response.body
    }

    fn put(&mut self, who: &str, path: &str, body: Value) -> Outcome {
        let p = format!("{path}?fieldManager={who}");
        self.send(who, Method::Put, &p, Some("application/json"), Some(body))
    }

    fn patch(&mut self, who: &str, path: &str, ct: &str, body: Value) -> Outcome {
        let p = format!("{path}?fieldManager={who}");
        self.send(who, Method::Patch, &p, Some(ct), Some(body))
    }
}

/// The managedFields entry of `manager`.
fn entry<'a>(obj: &'a Value, manager: &str) -> &'a Value {
    obj["metadata"]["managedFields"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["manager"] == manager))
        .unwrap_or(&Value::Null)
}

#[test]
fn get_of_status_is_the_whole_object() {
    let mut w = W::new();
    assert_eq!(w.get(STATUS), w.get(WEB));
}

// Its Deployments are defaulted: the `api` feature's store (the page's does not default,
// docs/size.md).
#[cfg(feature = "api")]
#[test]
fn put_to_status_writes_status_and_what_the_status_strategy_lets_through() {
    let mut w = W::new();
    let mut obj = w.get(WEB);
    obj["spec"]["replicas"] = json!(5);
    obj["metadata"]["labels"]["app"] = json!("changed");
    obj["metadata"]["annotations"]["note"] = json!("b");
    obj["metadata"]["finalizers"] = json!(["example.com/f"]);
    obj["status"] = json!({"replicas": 1, "conditions": [{"type": "Available", "status": "True"}]});
    let o = w.put("ctrl", STATUS, obj);
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    assert_eq!(o.revision, Some(2));
    let b = &o.response.body;
    // PrepareForUpdate of the status strategy: the old spec and labels.
    assert_eq!(b["spec"]["replicas"], 1);
    assert_eq!(b["metadata"]["labels"], json!({"app": "web"}));
    // Everything else comes from the request.
    assert_eq!(b["status"]["conditions"][0]["type"], "Available");
    assert_eq!(b["metadata"]["annotations"]["note"], "b");
    assert_eq!(b["metadata"]["finalizers"], json!(["example.com/f"]));
    // BeforeUpdate keeps the generation, and the status strategy bumps none (an annotation
    // change on the main resource would).
    assert_eq!(b["metadata"]["generation"], 1);
    assert_eq!(b["metadata"]["resourceVersion"], "2");
    let e = entry(b, "ctrl");
    assert_eq!(
        e,
        &json!({"manager": "ctrl", "operation": "Update", "apiVersion": "apps/v1",
            "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:annotations": {"f:note": {}},
                "f:finalizers": {".": {}, "v:\"example.com/f\"": {}}},
                "f:status": {"f:conditions": {".": {}, "k:{\"type\":\"Available\"}":
                    {".": {}, "f:status": {}, "f:type": {}}}, "f:replicas": {}}},
            "subresource": "status"})
    );
    // kubectl-create keeps spec and labels; the annotation ctrl changed is ctrl's now (an
    // update takes what it changes), kubectl-create keeps the map it added.
    let c = entry(b, "kubectl-create");
    assert_eq!(c["fieldsV1"]["f:metadata"]["f:labels"]["f:app"], json!({}));
    assert_eq!(c["fieldsV1"]["f:metadata"]["f:annotations"], json!({}));
    // The create owns what defaulting filled in (the template-less spec's strategy, …).
    assert_eq!(
        c["fieldsV1"]["f:spec"],
        json!({"f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {},
            "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}},
                "f:type": {}}})
    );
    assert_eq!(c.get("subresource"), None);
    assert_eq!(w.get(WEB), *b);
}

#[test]
fn the_main_resource_keeps_status_and_status_keeps_spec() {
    let mut w = W::new();
    let mut obj = w.get(WEB);
    obj["status"] = json!({"replicas": 9});
    let o = w.put("user", WEB, obj);
    assert_eq!(o.response.code, 200);
    assert_eq!(o.response.body["status"], json!({}));
    let o = w.patch("ctrl", STATUS, MERGE, json!({"spec": {"replicas": 7}}));
    // Nothing the status strategy keeps changed: a no-op, no revision.
    assert_eq!(o.response.code, 200);
    assert_eq!(o.revision, None);
    assert_eq!(o.response.body["spec"]["replicas"], 1);
}

#[test]
fn a_stale_resource_version_on_status_is_the_same_409() {
    let mut w = W::new();
    let stale = w.get(STATUS);
    let o = w.patch("a", STATUS, MERGE, json!({"status": {"replicas": 1}}));
    assert_eq!(o.response.code, 200);
    let mut s = stale.clone();
    s["status"] = json!({"replicas": 2});
    let o = w.put("b", STATUS, s);
    assert_eq!(o.response.code, 409);
    assert_eq!(
        o.response.body["message"],
        "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again"
    );
    // A merge patch carrying the old version is checked the same way.
    let o = w.patch(
        "b",
        STATUS,
        MERGE,
        json!({"metadata": {"resourceVersion": "1"}, "status": {"replicas": 3}}),
    );
    assert_eq!(o.response.code, 409);
}

#[test]
fn a_merge_patch_of_status_replaces_the_conditions() {
    let mut w = W::new();
    let p = |t: &str| json!({"status": {"conditions": [{"type": t, "status": "True"}]}});
    assert_eq!(
        w.patch("rollout", STATUS, MERGE, p("Progressing"))
            .response
            .code,
        200
    );
    let o = w.patch("health", STATUS, MERGE, p("Available"));
    assert_eq!(
        o.response.body["status"]["conditions"],
        json!([{"type": "Available", "status": "True"}])
    );
    // health's write changed a list rollout had written: a lost update.
    assert_eq!(o.lost_updates.len(), 1);
    assert_eq!(o.lost_updates[0].path, "status.conditions");
    assert_eq!(o.lost_updates[0].overwritten_writer, "rollout");
}

#[test]
fn apply_to_status_has_its_own_manager_and_conflicts() {
    let mut w = W::new();
    let cfg = |n: u32| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 4}, "status": {"replicas": n}})
    };
    let o = w.patch("ctrl", STATUS, APPLY, cfg(1));
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    let b = &o.response.body;
    // The applied spec is a reset field of the status subresource: neither written nor owned.
    assert_eq!(b["spec"]["replicas"], 1);
    assert_eq!(
        entry(b, "ctrl"),
        &json!({"manager": "ctrl", "operation": "Apply", "apiVersion": "apps/v1",
            "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": {"f:replicas": {}}}, "subresource": "status"})
    );
    let o = w.patch("other", STATUS, APPLY, cfg(2));
    assert_eq!(o.response.code, 409, "{}", o.response.body);
    assert_eq!(
        o.response.body["message"],
        "Apply failed with 1 conflict: conflict with \"ctrl\" with subresource \"status\": .status.replicas"
    );
    // The same manager name on the main resource is another manager.
    let main = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"minReadySeconds": 5}});
    let o = w.patch("ctrl", WEB, APPLY, main);
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    let ms = o.response.body["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["manager"] == "ctrl")
        .count();
    assert_eq!(ms, 2);
}

#[test]
fn status_has_no_create_or_delete() {
    let mut w = W::new();
    let o = w.send("x", Method::Delete, STATUS, None, None);
    assert_eq!(o.response.code, 405);
    let o = w.send(
        "x",
        Method::Post,
        STATUS,
        Some("application/json"),
        Some(json!({})),
    );
    assert_eq!(o.response.code, 405);
    // Apply through status never creates.
    let p = "/apis/apps/v1/namespaces/default/deployments/nope/status?fieldManager=x";
    let cfg = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nope"}});
    let o = w.send("x", Method::Patch, p, Some(APPLY), Some(cfg));
    assert_eq!(o.response.code, 404);
    assert_eq!(
        o.response.body["message"],
        "deployments.apps \"nope\" not found"
    );
    // Only Deployments have it.
    let o = w.send(
        "x",
        Method::Get,
        "/api/v1/namespaces/default/configmaps/c/status",
        None,
        None,
    );
    assert_eq!(o.response.code, 404);
}

/// A scenario's status statements: the request line, the narration and the kubectl line say
/// `/status`.
#[test]
fn status_statements_are_narrated_and_shown_as_sent() {
    let src = r#"
object deployment/web:
    spec.replicas = 1
client ctrl:
    d = get deployment/web status
    d.status.replicas = 1
    update d status
    patch deployment/web status merge {status: {readyReplicas: 1}}
    apply deployment/web status {status: {availableReplicas: 1}} as ctrl
    patch deployment/web merge {status: {replicas: 5}}
"#;
    let s = rvlab_core::lang::parse(src).scenario.expect("parses");
    let run = rvlab_core::run::Run::new(&s, 0, None).expect("runs");
    let view = |i: usize| rvlab_core::view::step_view(&s, i as u32, &run.steps[i]);
    let kubectl = |i: usize| rvlab_core::view::kubectl_command(&run.steps[i]);
    let base = "/apis/apps/v1/namespaces/default/deployments/web";
    assert_eq!(
        view(0).request_line.as_deref(),
        Some(format!("GET {base}/status").as_str())
    );
    assert_eq!(
        view(0).narration,
        "ctrl read the status of deployment/web at resourceVersion 1"
    );
    assert_eq!(
        kubectl(0).as_deref(),
        Some("kubectl get deployment web --subresource=status -o yaml")
    );
    assert_eq!(
        view(2).request_line.as_deref(),
        Some(format!("PUT {base}/status?fieldManager=ctrl").as_str())
    );
    assert_eq!(
        view(2).narration,
        "ctrl's update of the status of deployment/web was accepted: it carried resourceVersion 1, the current one, and moved the object to 2"
    );
    assert_eq!(
        kubectl(2).as_deref(),
        Some("kubectl replace --subresource=status -f obj.yaml")
    );
    assert!(view(3)
        .narration
        .starts_with("ctrl's merge patch of the status of deployment/web was applied"));
    assert!(kubectl(3)
        .unwrap_or_default()
        .starts_with("kubectl patch deployment web --subresource=status --type=merge -p "));
    assert_eq!(
        view(4).request_line.as_deref(),
        Some(format!("PATCH {base}/status?fieldManager=ctrl").as_str())
    );
    // kubectl apply has no --subresource.
    assert_eq!(kubectl(4), None);
    // On the Deployment itself a status change is kept from the old object: a no-op.
    assert_eq!(
        view(5).narration,
        "ctrl's merge patch of deployment/web changed nothing, so it stays at resourceVersion 4"
    );
    let d = run
        .last()
        .store
        .get(&run.steps[0].target.clone().unwrap())
        .unwrap();
    assert_eq!(
        d["status"],
        json!({"replicas": 1, "readyReplicas": 1, "availableReplicas": 1})
    );
    assert_eq!(d["metadata"]["generation"], 1);
}
