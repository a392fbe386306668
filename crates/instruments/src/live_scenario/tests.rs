//! "Save as scenario" is exact: a history recorded the way `rvlab serve` records it (here from
//! runs of scenarios, every request step fed to a [`Live`]), saved and run again with its own
//! schedule, sends the same requests in the same order and gets the same answers and revisions,
//! and ends with the same objects.

use super::client_name;
use crate::live::{Live, LiveRequest};
use rvlab_core::lang::parse;
use rvlab_core::rng::Rng;
use rvlab_core::run::Run;
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Store};
use serde_json::{json, Value};

/// What the exactness test compares of each request: method, path without its query, status
/// code, revision written.
type Sent = (&'static str, String, u16, Option<u64>);

fn sent(method: Method, path: &str, code: u16, revision: Option<u64>) -> Sent {
    (
        method.as_str(),
        path.split('?').next().unwrap_or("").to_string(),
        code,
        revision,
    )
}

/// The objects' data, spec and labels, by reference.
fn contents(store: &Store) -> Vec<(String, Value, Value, Value)> {
    store
        .objects()
        .map(|(r, o)| {
            (
                r.to_string(),
                o["data"].clone(),
                o["spec"].clone(),
                o["metadata"]["labels"].clone(),
            )
        })
        .collect()
}

/// Runs `src` on its own schedule and records every request step into a [`Live`] (keeping at
/// most `max_steps`), as the server records real requests: the program is the client's name,
/// a kubectl statement's requests share a session and carry its command.
fn history(src: &str, max_steps: usize) -> (Live, Store) {
    history_in_lanes(src, max_steps, |client| client.to_string())
}

/// [`history`] with the lane of each client's requests named by `lane`.
fn history_in_lanes(src: &str, max_steps: usize, lane: fn(&str) -> String) -> (Live, Store) {
    let parsed = parse(src);
    let scenario = parsed.scenario.expect("the scenario parses");
    let run = Run::new(&scenario, 1, None).expect("the scenario runs");
    let mut live = Live::new(&run.world_at(0).store, "test", max_steps, usize::MAX);
    // Each client's current kubectl session (a new one at each command's first request).
    let (mut sessions, mut next) = (vec![0; scenario.clients.len()], 0);
    for (i, step) in run.steps.iter().enumerate() {
        let (Some(request), Some(response)) = (&step.request, &step.response) else {
            continue;
        };
        let name = scenario.clients[step.client as usize].name.clone();
        let before_world = run.world_at(i);
        let before = live.before(&before_world.store, request);
        let after = run.world_at(i + 1);
        let (command, table) = match &step.kubectl {
            Some(k) => {
                if k.request_index == 0 {
                    next += 1;
                    sessions[step.client as usize] = next;
                }
                let words: Vec<&str> = k.command.split_whitespace().collect();
                let verb = words.get(1).copied().unwrap_or("");
                (
                    Some(format!("kubectl {verb}")),
                    verb == "get" && !words.iter().any(|w| w.starts_with("-o")),
                )
            }
            None => (None, false),
        };
        let rec = LiveRequest {
            program: lane(&name),
            name,
            command,
            session: step
                .kubectl
                .as_ref()
                .map(|_| format!("s{}", sessions[step.client as usize])),
            table,
            request: request.clone(),
            response: response.clone(),
            revision: step.revision,
            clock_nanos: step.clock_nanos,
            interference: None,
        };
        let outcome = Outcome {
            response: response.clone(),
            revision: step.revision,
            lost_updates: step.lost_updates.clone(),
            warnings: Vec::new(),
        };
        live.record(before, &after.store, rec, &outcome);
    }
    (live, run.last().store.clone())
}

/// Parses a saved text (no diagnostic at all), runs it with its schedule (which must name
/// every step of the run), and returns what it sent and its final store.
fn replay(text: &str) -> (Vec<Sent>, Store) {
    let parsed = parse(text);
    assert!(
        parsed.diagnostics.is_empty(),
        "the saved text has diagnostics:\n{}\n{text}",
        rvlab_core::lang::render_all(&parsed.diagnostics, "saved.rvl", text)
    );
    let scenario = parsed.scenario.expect("no errors");
    let run = Run::new(&scenario, 7, None)
        .unwrap_or_else(|e| panic!("the saved text does not run: {e}\n{text}"));
    assert!(run.stopped.is_none(), "{text}");
    let token = scenario.schedule.as_ref().map_or("", |(t, _)| t.as_str());
    let scheduled = rvlab_core::schedule::parse_token(token, scenario.clients.len() as u32)
        .expect("the schedule parses")
        .len();
    assert_eq!(
        run.steps.len(),
        scheduled,
        "the schedule names every step of the replay, no more and no fewer:\n{text}"
    );
    let sent_list = run
        .steps
        .iter()
        .filter_map(|s| {
            let (q, r) = (s.request.as_ref()?, s.response.as_ref()?);
            Some(sent(q.method, &q.path, r.code, s.revision))
        })
        .collect();
    (sent_list, run.last().store.clone())
}

/// The history of `live` as [`Sent`]s.
fn recorded(live: &Live) -> Vec<Sent> {
    live.recorded()
        .map(|r| {
            sent(
                r.request.method,
                &r.request.path,
                r.response.code,
                r.revision,
            )
        })
        .collect()
}

/// Saves the history of `src` and checks that the text replays it exactly; returns the text.
fn exact(src: &str, max_steps: usize) -> String {
    exact_in_lanes(src, max_steps, |client| client.to_string())
}

fn exact_in_lanes(src: &str, max_steps: usize, lane: fn(&str) -> String) -> String {
    let (live, end) = history_in_lanes(src, max_steps, lane);
    let text = live.scenario();
    let (replayed, replay_end) = replay(&text);
    assert_eq!(
        replayed,
        recorded(&live),
        "the replay sends other requests:\n{text}"
    );
    assert_eq!(
        contents(&replay_end),
        contents(&end),
        "the replay ends with other objects:\n{text}"
    );
    text
}

fn lesson(id: &str) -> &'static str {
    rvlab_core::lessons::lesson(id).expect("a lesson").source
}

#[test]
fn the_seed_story_with_its_409_replays_exactly() {
    let text = exact(lesson("stale-update"), 100);
    assert!(text.starts_with("# Saved from rvlab serve: 4 requests by 2 clients (alice, bob).\n"));
    assert!(text.contains(
        "object configmap/my-config at resourceVersion 100:\n    data = {\"key\":\"initial\"}\n"
    ));
    assert!(text.contains("    obj = get configmap/my-config\n"));
    assert!(text.contains("    update obj\n"));
    assert!(text.contains("# a scripted client stops here: 409"));
    assert!(text.contains("schedule \"aba2b2\""), "{text}");
}

#[test]
fn the_retry_loop_replays_exactly_with_a_client_after_each_409() {
    let text = exact(lesson("retry-reread"), 100);
    assert!(
        text.contains("\nclient bob_2:\n    # bob, after its 409"),
        "{text}"
    );
    let text = exact(lesson("retry-without-reread"), 100);
    assert!(text.contains("\nclient bob_3:\n"), "{text}");
}

#[test]
fn a_delete_replays_exactly() {
    let text = exact(lesson("delete-precondition"), 100);
    assert!(text.contains("delete configmap/"), "{text}");
    assert!(text.contains("precondition resourceVersion \""), "{text}");
}

#[test]
fn a_kubectl_apply_lesson_replays_exactly() {
    let text = exact(lesson("kubectl-apply-three-way"), 100);
    assert!(text.contains("    file \"my-config.yaml\" = {"), "{text}");
    assert!(
        text.contains("    kubectl apply -f my-config.yaml\n"),
        "{text}"
    );
    assert!(
        text.contains("    kubectl patch configmap my-config --type merge -p '{\"data\":{\"color\":\"red\",\"owner\":\"bob\"}}'\n"),
        "{text}"
    );
}

#[test]
fn the_other_kubectl_lessons_replay_exactly() {
    let text = exact(lesson("kubectl-stale-apply"), 100);
    assert!(
        text.contains("kubectl apply --server-side -f my-config.yaml"),
        "{text}"
    );
    assert!(
        text.contains("kubectl get configmap my-config -o yaml"),
        "{text}"
    );
    let text = exact(lesson("kubectl-patch-skips-the-check"), 100);
    assert!(
        text.contains("kubectl patch configmap my-config --type merge"),
        "{text}"
    );
    let text = exact(lesson("kubectl-edit-and-replace"), 100);
    assert!(text.contains("kubectl replace -f my-config.yaml"), "{text}");
    assert!(
        text.contains("# kubectl edit, sent as the patch it made"),
        "{text}"
    );
    assert!(text.contains("--field-manager kubectl-edit"), "{text}");
}

#[test]
fn kubectl_invocations_that_overlap_in_one_lane_get_a_client_each() {
    // As `rvlab serve` sees two people's kubectl: one lane, `kubectl`, one session per
    // command; Bob's patch runs while Alice's reads.
    let src = lesson("kubectl-patch-skips-the-check")
        .replace("schedule \"acb2a2c2\"", "schedule \"acbab\"");
    let text = exact_in_lanes(&src, 100, |_| "kubectl".to_string());
    assert!(
        text.contains("\nclient kubectl_2:\n    # kubectl, a command that ran while another one of kubectl was still running\n"),
        "{text}"
    );
}

#[test]
fn the_exactness_check_fails_on_another_order() {
    // The check this file relies on can fail: the seed's saved text with Bob reading after
    // Alice's update sends other answers.
    let (live, _) = history(lesson("stale-update"), 100);
    let text = live.scenario();
    assert!(text.contains("schedule \"aba2b2\""));
    let (replayed, _) = replay(&text.replace("schedule \"aba2b2\"", "schedule \"a3b3\""));
    assert_ne!(replayed, recorded(&live));
}

#[test]
fn every_lesson_replays_exactly() {
    for l in rvlab_core::lessons::LESSONS {
        exact(l.source, 100);
    }
}

#[test]
fn a_history_with_dropped_steps_starts_from_the_state_after_them() {
    let src = r#"
object configmap/c at resourceVersion 10:
    data.n = "0"
object configmap/d at resourceVersion 20

client alice:
    patch configmap/c merge {"data": {"n": "1"}}
    obj = get configmap/c
    obj.data.n = "2"
    update obj
    patch configmap/d merge {"data": {"by": "alice"}}

client bob:
    stale = get configmap/c
    stale.data.n = "bob"
    update stale

client carol:
    delete configmap/d

schedule "ab2a3bac"
"#;
    let (full, _) = history(src, 100);
    assert_eq!(full.len(), 7);
    let text = exact(src, 4);
    assert!(
        text.contains("# The history had let go of the 3 requests before these"),
        "{text}"
    );
    // alice's merge patch made c 21 before the kept steps; d is still at 20.
    assert!(
        text.contains(
            "object configmap/d at resourceVersion 20\nobject configmap/c at resourceVersion 21:"
        ),
        "{text}"
    );
    assert!(!text.contains("The store's revision was"), "{text}");
    // Carol deletes d before alice patches it (404), and only that patch is kept: the dropped
    // delete moved the counter to 23, past c (22), and a scenario cannot say so but in words.
    let text = exact(&src.replace("ab2a3bac", "ab2a3bca"), 1);
    assert!(
        text.contains("# The store's revision was 23, beyond the last object's 22"),
        "{text}"
    );
}

#[test]
fn client_names_are_identifiers_and_unique() {
    assert_eq!(client_name("rvlab-interferer", &[]), "rvlab_interferer");
    assert_eq!(client_name("kube-rs", &[]), "kube_rs");
    assert_eq!(client_name("kubectl", &[]), "kubectl");
    assert_eq!(client_name("", &[]), "unnamed");
    assert_eq!(client_name("client", &[]), "client_");
    assert_eq!(client_name("9lives", &[]), "_9lives");
    assert_eq!(client_name("get", &[]), "get_");
    assert_eq!(client_name("python", &["python".into()]), "python_2");
    assert_eq!(
        client_name("python", &["python".into(), "python_2".into()]),
        "python_3"
    );
    assert_eq!(client_name("kube-rs", &["kube_rs".into()]), "kube_rs_2");
}

#[test]
fn an_empty_history_saves_the_setup_only() {
    let scenario = parse(lesson("stale-update")).scenario.expect("parses");
    let run = Run::start(&scenario, 1).expect("starts");
    let live = Live::new(&run.last().store, "test", 100, usize::MAX);
    let text = live.scenario();
    assert!(
        text.starts_with("# Saved from rvlab serve: 0 requests by 0 clients.\n"),
        "{text}"
    );
    assert!(!text.contains("client "), "{text}");
    assert!(!text.contains("\nschedule "), "{text}");
    let (sent, end) = replay(&text);
    assert!(sent.is_empty());
    assert_eq!(contents(&end), contents(&run.last().store));
    assert_eq!(
        end.resource_version(&run.last().store.objects().next().unwrap().0.clone()),
        Some(100)
    );
}

/// Serves `requests` as the server does (each through the store, recorded with its program)
/// and returns the history.
fn served(requests: &[(&str, Request)]) -> (Live, Store) {
    served_keeping(requests, 100)
}

/// [`served`] keeping at most `max_steps` of the history.
fn served_keeping(requests: &[(&str, Request)], max_steps: usize) -> (Live, Store) {
    let mut store = Store::new();
    let mut rng = Rng::new(3);
    let mut live = Live::new(&store, "test", max_steps, usize::MAX);
    for (program, request) in requests {
        let before = live.before(&store, request);
        let actor = Actor {
            name: program.to_string(),
            base_revision: 0,
        };
        let mut env = Env {
            now_ms: 0,
            rng: &mut rng,
        };
        let out = store.handle(request, &actor, &mut env);
        let rec = LiveRequest {
            program: program.to_string(),
            name: program.to_string(),
            command: None,
            session: None,
            table: false,
            request: request.clone(),
            response: out.response.clone(),
            revision: out.revision,
            clock_nanos: 0,
            interference: None,
        };
        live.record(before, &store, rec, &out);
    }
    (live, store)
}

fn request(method: Method, path: &str, content_type: Option<&str>, body: Option<Value>) -> Request {
    Request {
        method,
        path: path.to_string(),
        content_type: content_type.map(str::to_string),
        body,
    }
}

#[test]
fn real_programs_lists_and_applies_replay_exactly() {
    let cms = "/api/v1/namespaces/default/configmaps";
    let cm = "/api/v1/namespaces/default/configmaps/app";
    let (live, end) = served(&[
        (
            "python",
            request(
                Method::Post,
                &format!("{cms}?fieldManager=python"),
                Some("application/json"),
                Some(
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app", "labels": {"team": "a"}}, "data": {"k": "1"}}),
                ),
            ),
        ),
        ("kube-rs", request(Method::Get, cms, None, None)),
        (
            "kube-rs",
            request(
                Method::Get,
                &format!("{cms}?watch=true&resourceVersion=1"),
                None,
                None,
            ),
        ),
        (
            "rvlab-interferer",
            request(
                Method::Patch,
                &format!("{cm}?fieldManager=rvlab-interferer&force=true"),
                Some("application/apply-patch+yaml"),
                Some(
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"k": "2"}}),
                ),
            ),
        ),
        (
            "python",
            request(
                Method::Put,
                &format!("{cm}?fieldManager=python"),
                Some("application/json"),
                Some(
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app", "resourceVersion": "1"}, "data": {"k": "3"}}),
                ),
            ),
        ),
        (
            "python",
            request(
                Method::Patch,
                &format!("{cm}?fieldManager=python"),
                Some("application/json-patch+json"),
                Some(json!([{"op": "replace", "path": "/data/k", "value": "4"}])),
            ),
        ),
        ("kube-rs", request(Method::Get, cm, None, None)),
        (
            "kube-rs",
            request(
                Method::Delete,
                cm,
                Some("application/json"),
                Some(json!({"preconditions": {"resourceVersion": "1"}})),
            ),
        ),
        ("kube-rs", request(Method::Delete, cm, None, None)),
    ]);
    let text = live.scenario();
    let (replayed, replay_end) = replay(&text);
    assert_eq!(
        replayed,
        recorded(&live)
            .into_iter()
            .filter(|s| !(s.0 == "GET" && s.1 == "/api/v1/namespaces/default/configmaps"))
            .collect::<Vec<_>>(),
        "{text}"
    );
    assert_eq!(contents(&replay_end), contents(&end), "{text}");
    assert!(
        text.contains("client rvlab_interferer:\n    # rvlab-interferer\n"),
        "{text}"
    );
    assert!(text.contains("(a LIST: not a statement)"), "{text}");
    assert!(text.contains("(a watch: not a statement)"), "{text}");
    assert!(
        text.contains("apply configmap/app {\"data\":{\"k\":\"2\"}} as \"rvlab-interferer\" force"),
        "{text}"
    );
    assert!(
        text.contains("# python, after its 409 (PUT /api/v1/namespaces/default/configmaps/app)"),
        "{text}"
    );
    assert!(text.contains("# kube-rs, after its 409 (DELETE"), "{text}");
}

#[test]
fn bodies_nested_deeper_than_a_literal_may_be_are_built_field_by_field() {
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let deep = json!({"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}});
    let create = request(
        Method::Post,
        &format!("{widgets}?fieldManager=python"),
        Some("application/json"),
        Some(
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": deep}),
        ),
    );
    let patch = request(
        Method::Patch,
        &format!("{widgets}/w?fieldManager=python"),
        Some("application/merge-patch+json"),
        Some(json!({"spec": {"x": "y"}})),
    );
    let requests = [("python", create), ("python", patch)];
    let (live, end) = served(&requests);
    let text = live.scenario();
    assert!(
        text.contains("    body = {}\n    body.spec = {}\n    body.spec.a = {"),
        "{text}"
    );
    let (replayed, replay_end) = replay(&text);
    assert_eq!(replayed, recorded(&live), "{text}");
    assert_eq!(contents(&replay_end), contents(&end), "{text}");
    // Started after the create, the widget is a setup object, its spec split the same way.
    let mut store = Store::new();
    let mut rng = Rng::new(3);
    let actor = Actor {
        name: "python".into(),
        base_revision: 0,
    };
    let mut env = Env {
        now_ms: 0,
        rng: &mut rng,
    };
    store.handle(&requests[0].1, &actor, &mut env);
    let live = Live::new(&store, "test", 100, usize::MAX);
    let text = live.scenario();
    assert!(
        text.contains(
            "object widgets.example.com/w at resourceVersion 1:\n    spec = {}\n    spec.a = {"
        ),
        "{text}"
    );
    let (_, replay_end) = replay(&text);
    assert_eq!(contents(&replay_end), contents(&store), "{text}");
}

#[test]
fn a_history_shared_with_other_servers_says_their_writes_are_not_in_it() {
    let scenario = parse(lesson("stale-update")).scenario.expect("parses");
    let run = Run::start(&scenario, 1).expect("starts");
    let mut live = Live::new(&run.last().store, "test", 100, usize::MAX);
    let note = "# Served on etcd: writes made through other servers are not in this history, so a replay can answer otherwise than they did.\n";
    assert!(!live.scenario().contains(note));
    live.shared_with_other_servers();
    let text = live.scenario();
    assert!(
        text.starts_with(&format!(
            "# Saved from rvlab serve: 0 requests by 0 clients.\n{note}"
        )),
        "{text}"
    );
    assert!(!parse(&text).has_errors(), "{text}");
}

#[test]
fn the_saved_text_of_real_programs_is_exactly_this() {
    // Comments held for a program's first client and for one that never sends a statement, a
    // comment into a program's latest client, a client after a 409, one dropped request.
    let cms = "/api/v1/namespaces/default/configmaps";
    let cm = "/api/v1/namespaces/default/configmaps/app";
    let put = |rv: &str, k: &str| {
        request(
            Method::Put,
            cm,
            Some("application/json"),
            Some(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app", "resourceVersion": rv}, "data": {"k": k}}),
            ),
        )
    };
    let requests = [
        (
            "python",
            request(
                Method::Post,
                cms,
                Some("application/json"),
                Some(
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"k": "0"}}),
                ),
            ),
        ),
        ("kube-rs", request(Method::Get, cms, None, None)),
        (
            "kube-rs",
            request(Method::Get, &format!("{cms}?watch=true"), None, None),
        ),
        ("9watcher", request(Method::Get, cms, None, None)),
        ("python", request(Method::Get, cm, None, None)),
        ("python", request(Method::Get, cms, None, None)),
        ("kube-rs", request(Method::Get, cm, None, None)),
        ("python", put("1", "1")),
        ("python", put("1", "2")),
        ("python", request(Method::Get, cm, None, None)),
    ];
    let (live, _) = served_keeping(&requests, 9);
    let text = live.scenario();
    let want = r#"# Saved from rvlab serve: 9 requests by 3 clients (kube-rs, 9watcher, python).
# The history had let go of the 1 request before these: it starts from the state after them.
# `rvlab run` replays the requests in the recorded order (its schedule).
title "Saved from rvlab serve (9 requests)"

object configmap/app at resourceVersion 1:
    data = {"k":"0"}

client python:
    obj = get configmap/app
    # GET /api/v1/namespaces/default/configmaps (a LIST: not a statement)
    obj = {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","resourceVersion":"1"},"data":{"k":"1"}}
    update obj
    obj = {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","resourceVersion":"1"},"data":{"k":"2"}}
    update obj
    # a scripted client stops here: 409 (PUT /api/v1/namespaces/default/configmaps/app)

client kube_rs:
    # kube-rs
    # GET /api/v1/namespaces/default/configmaps (a LIST: not a statement)
    # GET /api/v1/namespaces/default/configmaps (a watch: not a statement)
    obj = get configmap/app

client python_2:
    # python, after its 409 (PUT /api/v1/namespaces/default/configmaps/app): a scripted client stops at an error, python went on
    obj = get configmap/app

# 9watcher sent no statement:
# GET /api/v1/namespaces/default/configmaps (a LIST: not a statement)

schedule "aba4c"
"#;
    assert_eq!(text, want, "{text}");
    let (replayed, _) = replay(&text);
    assert_eq!(
        replayed,
        recorded(&live)
            .into_iter()
            .filter(|s| !(s.0 == "GET" && s.1 == cms))
            .collect::<Vec<_>>(),
        "{text}"
    );
}

#[test]
fn one_request_is_one_and_at_most_max_clients_get_a_client() {
    let cms = "/api/v1/namespaces/default/configmaps";
    let text = served(&[("python", request(Method::Get, cms, None, None))])
        .0
        .scenario();
    assert_eq!(
        text,
        r#"# Saved from rvlab serve: 1 request by 1 client (python).
title "Saved from rvlab serve (1 request)"

# python sent no statement:
# GET /api/v1/namespaces/default/configmaps (a LIST: not a statement)
"#,
        "{text}"
    );
    // 27 programs: the 27th's request is a comment at the end.
    let programs: Vec<String> = (0..27).map(|k| format!("p{k}")).collect();
    let requests: Vec<(&str, Request)> = programs
        .iter()
        .map(|p| {
            (
                p.as_str(),
                request(Method::Get, &format!("{cms}/{p}"), None, None),
            )
        })
        .collect();
    let text = served(&requests).0.scenario();
    let mut want = format!(
        "# Saved from rvlab serve: 27 requests by 27 clients ({}).\n\
         # `rvlab run` replays the requests in the recorded order (its schedule).\n\
         title \"Saved from rvlab serve (27 requests)\"\n",
        programs.join(", ")
    );
    for p in &programs[..26] {
        want.push_str(&format!(
            "\nclient {p}:\n    obj = get configmap/{p}\n    # a scripted client stops here: 404 (GET {cms}/{p})\n"
        ));
    }
    want.push_str(
        "\n# Not replayed: a scenario has at most 26 clients.\n# p26:\n#     obj = get configmap/p26\n\nschedule \"abcdefghijklmnopqrstuvwxyz\"\n",
    );
    assert_eq!(text, want);
}

#[test]
fn a_program_with_more_statements_than_a_client_may_have_goes_on_in_another() {
    let cm = "/api/v1/namespaces/default/configmaps/app";
    // A create and 200 reads: 201 statements.
    let create = request(
        Method::Post,
        "/api/v1/namespaces/default/configmaps",
        Some("application/json"),
        Some(json!({"metadata": {"name": "app"}})),
    );
    let requests: Vec<(&str, Request)> = std::iter::once(("python", create))
        .chain((0..200).map(|_| ("python", request(Method::Get, cm, None, None))))
        .collect();
    let text = served_keeping(&requests, 300).0.scenario();
    assert!(
        text.starts_with(
            "# Saved from rvlab serve: 201 requests by 1 client (python).\n\
             # `rvlab run` replays the requests in the recorded order (its schedule).\n\
             title \"Saved from rvlab serve (201 requests)\"\n\nclient python:\n    create configmap/app {}\n    obj = get configmap/app\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with(
            "    obj = get configmap/app\n\nclient python_2:\n    # python, continued (a client has at most 200 statements)\n    obj = get configmap/app\n\nschedule \"a200b\"\n"
        ),
        "{text}"
    );
    assert_eq!(text.matches("obj = get configmap/app\n").count(), 200);
}

#[test]
fn a_text_larger_than_a_scenario_may_be_says_so_first() {
    let cms = "/api/v1/namespaces/default/configmaps";
    let big = "x".repeat(70_000);
    let (live, _) = served(&[(
        "python",
        request(
            Method::Post,
            cms,
            Some("application/json"),
            Some(json!({"metadata": {"name": "big"}, "data": {"k": big}})),
        ),
    )]);
    let text = live.scenario();
    assert!(
        text.starts_with(
            "# This text is larger than the 65536 bytes a scenario may be: cut it before running it.\n\
             # Saved from rvlab serve: 1 request by 1 client (python).\n\
             # `rvlab run` replays the requests in the recorded order (its schedule).\n\
             title \"Saved from rvlab serve (1 request)\"\n\nclient python:\n    create configmap/big {\"data\":{\"k\":\"xxx"
        ),
        "{}",
        &text[..300]
    );
}
