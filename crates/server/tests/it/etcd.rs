//! `rvlab serve --etcd` (issue #17) against a real etcd (Debian's etcd-server 3.4, started
//! here on loopback): conformance with the model on every lesson, the storage layout, and
//! replicas under load and faults.

use crate::support;

use rvlab_core::engine::{Transport, World};
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Response, Store};
use rvlab_server::{spawn, Handle, Options};
use rvlab_testkit::etcd::Cluster;
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::SocketAddr;

fn on_etcd(cluster: &Cluster, setup: Option<&str>) -> Handle {
    spawn(Options {
        listen: "127.0.0.1:0".into(),
        setup: setup.map(str::to_string),
        etcd: Some(cluster.urls()),
        no_page: true,
        ..Options::default()
    })
    .expect("the server starts on etcd")
}

/// A world's requests sent to a server over HTTP, each answer recorded.
struct Http {
    addr: SocketAddr,
    seen: Vec<(Request, Response)>,
}

impl Transport for Http {
    fn handle(
        &mut self,
        _store: &mut Store,
        request: &Request,
        actor: &Actor,
        _env: &mut Env<'_>,
    ) -> Outcome {
        let body = request
            .body
            .as_ref()
            .map(|b| b.to_string().into_bytes())
            .unwrap_or_default();
        let ua = format!("{}/v0.0.0", actor.name);
        let mut headers = vec![("User-Agent", ua.as_str())];
        if let Some(ct) = &request.content_type {
            headers.push(("Content-Type", ct.as_str()));
        }
        let a = support::request(
            self.addr,
            request.method.as_str(),
            &request.path,
            &headers,
            &body,
        );
        let response = Response {
            code: a.code,
            body: a.json(),
        };
        self.seen.push((request.clone(), response.clone()));
        let revision = (request.method != Method::Get && (200..300).contains(&a.code))
            .then(|| {
                response.body["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|r| r.parse().ok())
            })
            .flatten();
        Outcome {
            response,
            revision,
            lost_updates: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// Runs a scenario's clients (seed 1, the default schedule) against a server.
fn run_against(source: &str, addr: SocketAddr) -> Vec<(Request, Response)> {
    let scenario = rvlab_core::lang::parse(source)
        .scenario
        .expect("lessons parse");
    let mut world = World::new(&scenario, 1).expect("lessons start");
    let mut http = Http {
        addr,
        seen: Vec::new(),
    };
    let mut steps = 0;
    while let Ok(Some(_)) = world.take_step_via(&mut http, &scenario, None) {
        steps += 1;
        assert!(steps < 10_000, "the run does not end");
    }
    http.seen
}

/// A one-to-one correspondence, learned as it is used.
#[derive(Default)]
struct Bijection(BTreeMap<String, String>, BTreeMap<String, String>);

impl Bijection {
    fn check(&mut self, a: &str, b: &str, what: &str) -> Result<(), String> {
        let fwd = self.0.entry(a.into()).or_insert_with(|| b.into()).clone();
        let back = self.1.entry(b.into()).or_insert_with(|| a.into()).clone();
        if fwd != b || back != a {
            return Err(format!(
                "{what} {a} ↔ {b}, but {a} ↔ {fwd} and {back} ↔ {b} before"
            ));
        }
        Ok(())
    }
}

/// Compares the model's answer with etcd's: equal but for resourceVersions and uids (which
/// must correspond one to one) and wall-clock times.
fn same(
    a: &Value,
    b: &Value,
    rvs: &mut Bijection,
    uids: &mut Bijection,
    at: &str,
) -> Result<(), String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<&String> = x.keys().collect();
            let ky: Vec<&String> = y.keys().collect();
            if kx != ky {
                return Err(format!("{at}: keys {kx:?} against {ky:?}"));
            }
            for (k, v) in x {
                let w = &y[k];
                let here = format!("{at}.{k}");
                match (k.as_str(), v, w) {
                    ("resourceVersion", Value::String(p), Value::String(q)) => {
                        rvs.check(p, q, "resourceVersion")?
                    }
                    ("uid", Value::String(p), Value::String(q)) => uids.check(p, q, "uid")?,
                    ("creationTimestamp" | "time", Value::String(_), Value::String(_)) => {}
                    // Sorted by time first: two runs a second apart may order the entries
                    // differently, so they are compared in manager order.
                    ("managedFields", Value::Array(p), Value::Array(q)) => {
                        let by_manager = |v: &Vec<Value>| {
                            let mut v = v.clone();
                            v.sort_by_key(|e| {
                                (e["manager"].to_string(), e["operation"].to_string())
                            });
                            Value::Array(v)
                        };
                        same(&by_manager(p), &by_manager(q), rvs, uids, &here)?
                    }
                    _ => same(v, w, rvs, uids, &here)?,
                }
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                same(v, w, rvs, uids, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{at}: {a} against {b}")),
    }
}

/// Every lesson's clients, run once against `rvlab serve` on the model and once on etcd, get
/// the same status codes, Status bodies and objects; the resourceVersions correspond one to one
/// and in order, and every write after the setup is offset by the same amount.
#[test]
fn every_lesson_answers_alike_on_the_model_and_on_etcd() {
    let cluster = Cluster::start(1);
    let mut compared = 0;
    for lesson in rvlab_core::lessons::LESSONS {
        cluster.clear();
        let model = support::server(Some(lesson.source));
        let etcd = on_etcd(&cluster, Some(lesson.source));
        let a = run_against(lesson.source, model.addr());
        let b = run_against(lesson.source, etcd.addr());
        assert_eq!(
            a.len(),
            b.len(),
            "{}: the runs took different paths",
            lesson.id
        );
        let (mut rvs, mut uids) = (Bijection::default(), Bijection::default());
        let mut offsets = std::collections::BTreeSet::new();
        for (i, ((qa, ra), (qb, rb))) in a.iter().zip(&b).enumerate() {
            let at = format!(
                "{} request {i} ({} {})",
                lesson.id,
                qa.method.as_str(),
                qa.path
            );
            assert_eq!(
                (qa.method, &qa.content_type),
                (qb.method, &qb.content_type),
                "{at}"
            );
            assert_eq!(ra.code, rb.code, "{at}: {} against {}", ra.body, rb.body);
            if let Err(e) = same(&ra.body, &rb.body, &mut rvs, &mut uids, "body") {
                panic!("{at}: {e}\nmodel: {}\netcd:  {}", ra.body, rb.body);
            }
            if qa.method != Method::Get && (200..300).contains(&ra.code) {
                let rv = |r: &Response| {
                    r.body["metadata"]["resourceVersion"]
                        .as_str()?
                        .parse::<i64>()
                        .ok()
                };
                if let (Some(x), Some(y)) = (rv(ra), rv(rb)) {
                    offsets.insert(y - x);
                }
            }
            compared += 1;
        }
        assert!(
            offsets.len() <= 1,
            "{}: writes offset by {offsets:?}",
            lesson.id
        );
        // In order: the correspondence is monotone.
        let mut pairs: Vec<(u64, u64)> = rvs
            .0
            .iter()
            .filter_map(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)))
            .collect();
        pairs.sort();
        assert!(
            pairs.windows(2).all(|w| w[0].1 < w[1].1),
            "{}: resourceVersions out of order: {pairs:?}",
            lesson.id
        );
    }
    assert!(compared > 100, "only {compared} requests compared");
}

/// The registry as the apiserver lays it out: the key, the value without resourceVersion,
/// the resourceVersion the key's mod_revision, a list's the header revision.
#[test]
fn objects_live_at_their_registry_keys_without_their_resource_version() {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let cluster = Cluster::start(1);
    let server = on_etcd(&cluster, Some(&support::lesson("stale-update")));
    let got = support::get(
        server.addr(),
        "/api/v1/namespaces/default/configmaps/my-config",
    )
    .json();
    let key = "/registry/configmaps/default/my-config";
    let kv = cluster
        .call(
            0,
            "/v3/kv/range",
            &serde_json::json!({"key": b64.encode(key)}),
        )
        .expect("etcd answers");
    let item = &kv["kvs"][0];
    let stored: Value =
        serde_json::from_slice(&b64.decode(item["value"].as_str().unwrap()).unwrap()).unwrap();
    assert_eq!(stored["metadata"].get("resourceVersion"), None);
    assert_eq!(got["metadata"]["resourceVersion"], item["mod_revision"]);
    assert_eq!(stored["data"], got["data"]);
    let list = support::get(server.addr(), "/api/v1/namespaces/default/configmaps").json();
    assert_eq!(
        list["metadata"]["resourceVersion"],
        kv["header"]["revision"]
    );
    // A stale write is the store's 409; a fresh one takes etcd's next revision.
    let put = |rv: &str| {
        let body = serde_json::json!({"metadata": {"name": "my-config", "resourceVersion": rv}, "data": {"key": "v"}});
        support::request(
            server.addr(),
            "PUT",
            "/api/v1/namespaces/default/configmaps/my-config",
            &[
                ("Content-Type", "application/json"),
                ("User-Agent", "alice/1"),
            ],
            body.to_string().as_bytes(),
        )
    };
    let rv = got["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let ok = put(&rv);
    assert_eq!(ok.code, 200, "{}", ok.text());
    let next: u64 = ok.json()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(next, rv.parse::<u64>().unwrap() + 1);
    let stale = put(&rv);
    assert_eq!(stale.code, 409);
    assert_eq!(stale.json()["reason"], "Conflict");
    // A second server on the same etcd sees the write and does not put the setup again.
    let other = on_etcd(&cluster, Some(&support::lesson("stale-update")));
    let seen = support::get(
        other.addr(),
        "/api/v1/namespaces/default/configmaps/my-config",
    )
    .json();
    assert_eq!(seen["metadata"]["resourceVersion"], next.to_string());
    assert_eq!(seen["data"]["key"], "v");
    // Creates through the two servers get different uids (each has its own generator).
    let create = |addr, name: &str| {
        let body = serde_json::json!({"metadata": {"name": name}, "data": {"k": "v"}});
        let a = support::request(
            addr,
            "POST",
            "/api/v1/namespaces/default/configmaps",
            &[
                ("Content-Type", "application/json"),
                ("User-Agent", "alice/1"),
            ],
            body.to_string().as_bytes(),
        );
        assert_eq!(a.code, 201, "{}", a.text());
        a.json()["metadata"]["uid"].as_str().unwrap().to_string()
    };
    assert_ne!(create(server.addr(), "one"), create(other.addr(), "two"));
}

/// A watch on one server sees the writes made through another: the server's watch cache
/// follows etcd's watch, as the apiserver's does. A resourceVersion older than the cache's
/// start is the apiserver's 410 on the stream.
#[test]
fn a_watch_on_one_server_sees_writes_through_another() {
    let cluster = Cluster::start(1);
    let setup = support::lesson("stale-update");
    let (a, b) = (
        on_etcd(&cluster, Some(&setup)),
        on_etcd(&cluster, Some(&setup)),
    );
    let got = support::get(a.addr(), "/api/v1/namespaces/default/configmaps/my-config").json();
    let rv = got["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let addr = a.addr();
    let path = format!(
        "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={rv}&timeoutSeconds=3"
    );
    let watcher = std::thread::spawn(move || support::get(addr, &path));
    std::thread::sleep(std::time::Duration::from_millis(500));
    let patch = support::request(
        b.addr(),
        "PATCH",
        "/api/v1/namespaces/default/configmaps/my-config",
        &[
            ("Content-Type", "application/merge-patch+json"),
            ("User-Agent", "bob/1"),
        ],
        br#"{"data":{"key":"from-b"}}"#,
    );
    assert_eq!(patch.code, 200, "{}", patch.text());
    let written = patch.json()["metadata"]["resourceVersion"].clone();
    let delete = support::request(
        b.addr(),
        "DELETE",
        "/api/v1/namespaces/default/configmaps/my-config",
        &[("User-Agent", "bob/1")],
        b"",
    );
    assert_eq!(delete.code, 200, "{}", delete.text());
    let events: Vec<Value> = watcher
        .join()
        .unwrap()
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON event per line"))
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["MODIFIED", "DELETED"], "{events:?}");
    assert_eq!(events[0]["object"]["data"]["key"], "from-b");
    assert_eq!(events[0]["object"]["metadata"]["resourceVersion"], written);
    let deleted: u64 = events[1]["object"]["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(deleted > written.as_str().unwrap().parse().unwrap());
    // Older than where this server's cache began.
    let old = support::get(
        a.addr(),
        "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1",
    );
    let first: Value = serde_json::from_str(old.text().lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "ERROR");
    assert_eq!(first["object"]["code"], 410);
    assert_eq!(first["object"]["reason"], "Expired");
}

/// The live view on etcd: each request served through a replica is a step on its stream, with
/// etcd's resourceVersions, the narration of a stale write's 409 (where etcd has the object)
/// and the storage step the apiserver took; a write made through another replica is not this
/// server's step.
#[test]
fn the_live_view_shows_the_steps_served_on_etcd() {
    let cluster = Cluster::start(1);
    let setup = support::lesson("stale-update");
    let (a, b) = (
        on_etcd(&cluster, Some(&setup)),
        on_etcd(&cluster, Some(&setup)),
    );
    const CM: &str = "/api/v1/namespaces/default/configmaps/my-config";
    let send = |addr, method: &str, ua: &str, body: &Value| {
        support::request(
            addr,
            method,
            CM,
            &[("User-Agent", ua), ("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    };
    let (mut ev, head) = support::live::Events::open(&a);
    assert_eq!(head.code, 200);
    let (kind, hello) = ev.next();
    assert_eq!(kind, "hello");
    assert_eq!(hello["objects"][0]["name"], "configmap/my-config");
    let read = support::request(
        a.addr(),
        "GET",
        CM,
        &[("User-Agent", "kubectl/v1.32.5")],
        b"",
    );
    let read = read.json();
    let rv_of = |v: &Value| {
        v["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let rv = rv_of(&read);
    let (_, first) = ev.next();
    assert_eq!(first["index"], 0);
    assert_eq!(
        first["step"]["narration"],
        format!("kubectl read configmap/my-config at resourceVersion {rv}")
    );
    // python writes through b: not a's step.
    let mut mine = read.clone();
    mine["data"]["key"] = "from-python".into();
    let written = send(b.addr(), "PUT", "OpenAPI-Generator/37.0.2/python", &mine);
    assert_eq!(written.code, 200, "{}", written.text());
    let moved = rv_of(&written.json());
    // kubectl's stale write through a: the 409 and the storage step behind it.
    let mut theirs = read.clone();
    theirs["data"]["key"] = "from-kubectl".into();
    let refused = send(a.addr(), "PUT", "kubectl/v1.32.5", &theirs);
    assert_eq!(refused.code, 409, "{}", refused.text());
    let (_, second) = ev.next();
    assert_eq!(second["index"], 1);
    assert_eq!(second["step"]["mark"], "conflict");
    let narration = second["step"]["narration"].as_str().unwrap();
    assert!(
        narration.starts_with(&format!(
            "kubectl's update was rejected with 409 Conflict: kubectl sent resourceVersion {rv}"
        )) && narration.ends_with(&format!("but configmap/my-config is at {moved}")),
        "{narration}"
    );
    assert_eq!(
        second["step"]["storage"],
        format!("read /registry/configmaps/default/my-config: mod_revision {moved}; resourceVersion {rv} ≠ {moved} → 409, no etcd transaction")
    );
    // The same object again: a no-op, no transaction.
    let same = send(a.addr(), "PUT", "kubectl/v1.32.5", &written.json());
    assert_eq!(same.code, 200, "{}", same.text());
    let (_, third) = ev.next();
    assert_eq!(
        third["step"]["storage"],
        format!("unchanged: no etcd transaction (/registry/configmaps/default/my-config stays at {moved})")
    );
    // A fresh write through a: the transaction, at etcd's revision.
    let mut again = written.json();
    again["data"]["key"] = "from-kubectl".into();
    let fresh = send(a.addr(), "PUT", "kubectl/v1.32.5", &again);
    assert_eq!(fresh.code, 200, "{}", fresh.text());
    let now = rv_of(&fresh.json());
    let (_, fourth) = ev.next();
    assert_eq!(fourth["step"]["mark"], "ok");
    assert_eq!(
        fourth["step"]["storage"],
        format!("etcd txn: compare mod_revision(/registry/configmaps/default/my-config) = {moved} → true → put, revision {now}")
    );
    assert_eq!(fourth["object"]["resource_version"], now, "{fourth}");
    // Save as scenario says what the history leaves out.
    let saved = support::get(a.addr(), "/rvlab/v1/scenario").text();
    let lines: Vec<&str> = saved.lines().take(2).collect();
    assert_eq!(
        lines,
        [
            "# Saved from rvlab serve: 4 requests by 1 client (kubectl).",
            "# Served on etcd: writes made through other servers are not in this history, so a replay can answer otherwise than they did."
        ],
        "{saved}"
    );
    assert!(!rvlab_core::lang::parse(&saved).has_errors(), "{saved}");
    assert!(
        fourth["object"]["yaml"]
            .as_str()
            .unwrap()
            .contains("key: from-kubectl"),
        "{fourth}"
    );
}
