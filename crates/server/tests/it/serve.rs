//! The server over real loopback sockets: the store's answers through HTTP, bodies and media
//! types, client naming, observed revisions and lost updates, the trace.

use crate::support;

use serde_json::{json, Value};
use support::*;

const CM: &str = "/api/v1/namespaces/default/configmaps";

#[test]
fn serves_the_scenario_setup_and_the_stores_conflict() {
    let h = server(Some(&lesson("stale-update")));
    let a = get(h.addr(), &format!("{CM}/my-config"));
    assert_eq!(a.code, 200);
    assert_eq!(a.header("content-type"), Some("application/json"));
    let obj = a.json();
    assert_eq!(obj["metadata"]["resourceVersion"], "100");
    // Timestamps are the wall clock's (this year or later), not the epoch's.
    let created = obj["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(created.as_str() > "2026-06", "{created}");
    let mut stale = obj.clone();
    stale["metadata"]["resourceVersion"] = json!("99");
    let a = request(
        h.addr(),
        "PUT",
        &format!("{CM}/my-config"),
        &[("Content-Type", "application/json")],
        stale.to_string().as_bytes(),
    );
    assert_eq!(a.code, 409);
    assert_eq!(
        a.text(),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"my-config","kind":"configmaps"},"code":409}"#
    );
    h.stop().unwrap();
}

#[test]
fn bodies_json_empty_content_type_yaml_and_refusals() {
    let h = server(None);
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}});
    // The Python client sends no Content-Type: JSON.
    let a = request(h.addr(), "POST", CM, &[], cm.to_string().as_bytes());
    assert_eq!(a.code, 201, "{}", a.text());
    assert_eq!(a.json()["metadata"]["name"], "a");
    let yaml = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: v\n";
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("Content-Type", "application/yaml")],
        yaml,
    );
    assert_eq!(a.code, 201, "{}", a.text());
    assert_eq!(a.json()["data"]["k"], "v");
    // Traced decoded, under the media type sent (none sent: the store's JSON).
    let steps = trace(&h);
    assert_eq!(steps[0]["request"]["content_type"], "application/json");
    assert_eq!(steps[1]["request"]["content_type"], "application/yaml");
    assert_eq!(steps[1]["request"]["body"]["data"]["k"], "v");
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("Content-Type", "application/json")],
        b"{bad",
    );
    assert_eq!(a.code, 400);
    assert_eq!(a.json()["reason"], "BadRequest");
    assert_eq!(a.json()["kind"], "Status");
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("Content-Type", "text/plain")],
        b"x",
    );
    assert_eq!(a.code, 415);
    assert_eq!(
        a.text(),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}"#
    );
    // A patch type the store does not take: its 415.
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{CM}/a"),
        &[("Content-Type", "text/plain")],
        b"x",
    );
    assert_eq!(a.code, 415);
    // Unknown resources: the store's 404 Status.
    let a = get(h.addr(), "/api/v1/namespaces/default/pods/x");
    assert_eq!(a.code, 404);
    assert_eq!(a.json()["kind"], "Status");
    let a = request(h.addr(), "OPTIONS", CM, &[], b"");
    assert_eq!(a.code, 405);
    // Still serving after all of that.
    assert_eq!(get(h.addr(), &format!("{CM}/b")).code, 200);
    h.stop().unwrap();
}

#[test]
fn a_body_over_3_mib_is_413() {
    let h = server(None);
    let expected = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}"#;
    // Declared by Content-Length: refused before it is read.
    let big = vec![b' '; 3 * 1024 * 1024 + 1];
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("Content-Type", "application/json")],
        &big,
    );
    assert_eq!(a.code, 413);
    assert_eq!(a.text(), expected);
    // Chunked, with no length: refused once it passes the limit.
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(h.addr()).unwrap();
    write!(
        s,
        "POST {CM} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    .unwrap();
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..4 {
        if write!(s, "{:x}\r\n", chunk.len()).is_err() || s.write_all(&chunk).is_err() {
            break;
        }
        let _ = s.write_all(b"\r\n");
    }
    let _ = s.write_all(b"0\r\n\r\n");
    let a = read_answer(&mut s);
    assert_eq!(a.code, 413);
    assert_eq!(a.text(), expected);
    // Exactly at the limit is read (and is then an ordinary decode error: spaces only).
    let at = vec![b' '; 3 * 1024 * 1024];
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("Content-Type", "application/json")],
        &at,
    );
    assert_eq!(a.code, 400);
    h.stop().unwrap();
}

fn trace(h: &rvlab_server::Handle) -> Vec<Value> {
    get(h.addr(), "/rvlab/v1/trace").json()["steps"]
        .as_array()
        .cloned()
        .unwrap()
}

#[test]
fn clients_are_named_and_lost_updates_are_found_for_real_clients() {
    let h = server(Some(&lesson("stale-update")));
    let path = format!("{CM}/my-config");
    let kubectl = "kubectl.1.32/v1.32.5 (linux/amd64) kubernetes/9894294";
    let python = "OpenAPI-Generator/37.0.2/python";
    // kubectl reads, python writes, kubectl writes without a resourceVersion (a blind write
    // of a value it never read): a lost update, exactly as for scripted clients.
    let read = request(h.addr(), "GET", &path, &[("User-Agent", kubectl)], b"");
    assert_eq!(read.code, 200);
    let patch = json!({"data": {"key": "from-python"}});
    let a = request(
        h.addr(),
        "PATCH",
        &path,
        &[
            ("User-Agent", python),
            ("Content-Type", "application/merge-patch+json"),
        ],
        patch.to_string().as_bytes(),
    );
    assert_eq!(a.code, 200, "{}", a.text());
    // No fieldManager: managed by the User-Agent's prefix, as the apiserver does.
    let managers: Vec<Value> = a.json()["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].clone())
        .collect();
    assert!(
        managers.contains(&json!("OpenAPI-Generator")),
        "{managers:?}"
    );
    let blind = json!({"data": {"key": "from-kubectl"}});
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{path}?fieldManager=kubectl-patch"),
        &[
            ("User-Agent", kubectl),
            ("Content-Type", "application/merge-patch+json"),
        ],
        blind.to_string().as_bytes(),
    );
    assert_eq!(a.code, 200);
    let steps = trace(&h);
    let last = steps.last().unwrap();
    assert_eq!(last["client"], "kubectl-patch");
    assert_eq!(last["mark"], "lost-update");
    assert_eq!(last["lost_updates"][0]["path"], "data.key");
    assert_eq!(last["lost_updates"][0]["overwritten_writer"], "python");
    assert_eq!(last["lost_updates"][0]["base_revision"], 100);
    assert_eq!(steps[1]["client"], "python");
    assert_eq!(steps[0]["client"], "kubectl");
    // The trace's path is what the client sent (no fieldManager added).
    assert_eq!(steps[1]["request"]["path"], path);
    assert_eq!(steps[1]["request"]["method"], "PATCH");
    assert_eq!(
        steps[1]["request"]["content_type"],
        "application/merge-patch+json"
    );
    assert_eq!(steps[1]["response"]["code"], 200);
    assert_eq!(steps[1]["revision"], 101);
    // Having read the latest, kubectl's next write loses nothing.
    assert_eq!(
        request(h.addr(), "GET", &path, &[("User-Agent", kubectl)], b"").code,
        200
    );
    let again = json!({"data": {"key": "again"}});
    request(
        h.addr(),
        "PATCH",
        &format!("{path}?fieldManager=kubectl-patch"),
        &[
            ("User-Agent", kubectl),
            ("Content-Type", "application/merge-patch+json"),
        ],
        again.to_string().as_bytes(),
    );
    let steps = trace(&h);
    assert_eq!(steps.last().unwrap()["mark"], "ok");
    assert_eq!(steps.last().unwrap()["lost_updates"], json!([]));
    h.stop().unwrap();
}

#[test]
fn the_trace_file_is_json_lines_written_as_requests_happen() {
    let dir = std::env::temp_dir().join(format!("rvlab-serve-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("trace.jsonl");
    let h = rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        setup: Some(lesson("stale-update")),
        trace: Some(file.clone()),
        ..Default::default()
    })
    .unwrap();
    get(h.addr(), &format!("{CM}/my-config"));
    get(h.addr(), &format!("{CM}/nope"));
    // Both lines are there while the server still runs.
    assert!(eventually(std::time::Duration::from_secs(10), || {
        std::fs::read_to_string(&file).is_ok_and(|t| t.lines().count() == 2)
    }));
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["index"], 0);
    assert_eq!(lines[0]["client"], "curl");
    assert_eq!(lines[0]["response"]["code"], 200);
    assert_eq!(lines[1]["response"]["code"], 404);
    assert_eq!(lines[1]["mark"], "notfound");
    h.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn discovery_version_and_openapi_come_from_wire() {
    let h = server(None);
    let a = get(h.addr(), "/version");
    assert_eq!(a.code, 200);
    assert_eq!(a.json()["minor"], "32");
    let a = request(
        h.addr(),
        "GET",
        "/api",
        &[(
            "Accept",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
        )],
        b"",
    );
    assert_eq!(a.code, 200);
    assert!(a
        .header("content-type")
        .unwrap()
        .contains("as=APIGroupDiscoveryList"));
    assert_eq!(get(h.addr(), "/openapi/v2").code, 404);
    assert_eq!(get(h.addr(), "/openapi/v3").code, 200);
    h.stop().unwrap();
}

#[test]
fn dry_run_answers_the_write_and_stores_nothing() {
    let h = server(Some(&lesson("stale-update")));
    let path = format!("{CM}/my-config");
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{path}?dryRun=All&fieldManager=kubectl-patch"),
        &[("Content-Type", "application/merge-patch+json")],
        br#"{"data":{"key":"dry"}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(a.json()["data"]["key"], "dry");
    let now = get(h.addr(), &path).json();
    assert_eq!(now["data"]["key"], "initial");
    assert_eq!(now["metadata"]["resourceVersion"], "100");
    h.stop().unwrap();
}

#[test]
fn kubectl_create_configmaps_protobuf_body_is_decoded() {
    let h = server(None);
    let body = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl-1.32-create-configmap.pb"
    ))
    .unwrap();
    let a = request(
        h.addr(),
        "POST",
        &format!("{CM}?fieldManager=kubectl-create&fieldValidation=Strict"),
        &[
            ("Content-Type", "application/vnd.kubernetes.protobuf"),
            (
                "Accept",
                "application/vnd.kubernetes.protobuf,application/json",
            ),
            (
                "User-Agent",
                "kubectl.1.32/v1.32.5 (linux/amd64) kubernetes/9894294",
            ),
        ],
        &body,
    );
    assert_eq!(a.code, 201, "{}", a.text());
    assert_eq!(a.header("content-type"), Some("application/json"));
    assert_eq!(a.json()["kind"], "ConfigMap");
    // A body that is not protobuf: the apiserver's 400.
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("Content-Type", "application/vnd.kubernetes.protobuf")],
        b"{}",
    );
    assert_eq!(a.code, 400);
    assert_eq!(
        a.json()["message"],
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
    );
    let steps = get(h.addr(), "/rvlab/v1/trace").json()["steps"].clone();
    assert_eq!(steps[0]["client"], "kubectl-create");
    // Traced as sent: the decoded body under the protobuf media type.
    assert_eq!(
        steps[0]["request"]["content_type"],
        "application/vnd.kubernetes.protobuf"
    );
    assert_eq!(steps[0]["request"]["body"]["kind"], "ConfigMap");
    h.stop().unwrap();
}

const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

#[test]
fn kubectl_get_gets_the_apiservers_table() {
    let h = server(Some(&lesson("stale-update")));
    let a = request(
        h.addr(),
        "GET",
        &format!("{CM}?limit=500"),
        &[("Accept", TABLE_ACCEPT)],
        b"",
    );
    assert_eq!(a.code, 200);
    let t = a.json();
    assert_eq!(t["kind"], "Table");
    assert_eq!(t["apiVersion"], "meta.k8s.io/v1");
    let cols: Vec<&str> = t["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(cols, ["Name", "Data", "Age"]);
    assert_eq!(t["rows"][0]["cells"][0], "my-config");
    assert_eq!(t["rows"][0]["cells"][1], 1);
    assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    // One object too; plain JSON when the Accept header does not ask.
    let a = request(
        h.addr(),
        "GET",
        &format!("{CM}/my-config"),
        &[("Accept", TABLE_ACCEPT)],
        b"",
    );
    assert_eq!(a.json()["kind"], "Table");
    let a = request(
        h.addr(),
        "GET",
        &format!("{CM}/my-config"),
        &[("Accept", "application/json")],
        b"",
    );
    assert_eq!(a.json()["kind"], "ConfigMap");
    // Errors stay Status.
    let a = request(
        h.addr(),
        "GET",
        &format!("{CM}/nope"),
        &[("Accept", TABLE_ACCEPT)],
        b"",
    );
    assert_eq!(a.code, 404);
    assert_eq!(a.json()["kind"], "Status");
    h.stop().unwrap();
}

#[test]
fn warnings_are_warning_headers_and_namespaces_must_exist() {
    let h = server(None);
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w"}, "datta": {"k": "v"}});
    let a = request(
        h.addr(),
        "POST",
        &format!("{CM}?fieldValidation=Warn"),
        &[("Content-Type", "application/json")],
        cm.to_string().as_bytes(),
    );
    assert_eq!(a.code, 201, "{}", a.text());
    assert_eq!(
        a.header("warning"),
        Some(r#"299 - "unknown field \"datta\"""#)
    );
    // NamespaceLifecycle: a create in a namespace that does not exist.
    let a = request(
        h.addr(),
        "POST",
        "/api/v1/namespaces/nope/configmaps",
        &[("Content-Type", "application/json")],
        br#"{"metadata":{"name":"x"}}"#,
    );
    assert_eq!(a.code, 404, "{}", a.text());
    assert_eq!(a.json()["message"], r#"namespaces "nope" not found"#);
    h.stop().unwrap();
}

#[test]
fn a_deployments_status_subresource_over_http_and_its_lost_condition() {
    let h = server(Some(&lesson("conditions")));
    let status = "/apis/apps/v1/namespaces/default/deployments/with-merge/status";
    let ua = |who: &str| format!("{who}/v1.0 (linux/amd64)");
    let (rollout, health) = (ua("rollout"), ua("health"));
    // Both controllers read the status, then each merge-patches its own condition.
    for who in [&rollout, &health] {
        let a = request(h.addr(), "GET", status, &[("User-Agent", who)], b"");
        assert_eq!(a.code, 200);
        assert_eq!(a.json()["kind"], "Deployment");
    }
    let patch = |who: &str, t: &str| {
        let body = json!({"status": {"conditions": [{"type": t, "status": "True"}]}});
        request(
            h.addr(),
            "PATCH",
            status,
            &[
                ("User-Agent", who),
                ("Content-Type", "application/merge-patch+json"),
            ],
            body.to_string().as_bytes(),
        )
    };
    let a = patch(&rollout, "Progressing");
    assert_eq!(a.code, 200, "{}", a.text());
    let entry = &a.json()["metadata"]["managedFields"][1];
    assert_eq!(entry["manager"], "rollout");
    assert_eq!(entry["subresource"], "status");
    let a = patch(&health, "Available");
    assert_eq!(
        a.json()["status"]["conditions"],
        json!([{"type": "Available", "status": "True"}])
    );
    let steps = trace(&h);
    let last = steps.last().unwrap();
    assert_eq!(last["request"]["path"], status);
    assert_eq!(last["mark"], "lost-update");
    assert_eq!(last["lost_updates"][0]["path"], "status.conditions");
    assert_eq!(last["lost_updates"][0]["overwritten_writer"], "rollout");
    // DELETE on the status is not served.
    assert_eq!(request(h.addr(), "DELETE", status, &[], b"").code, 405);
    h.stop().unwrap();
}
