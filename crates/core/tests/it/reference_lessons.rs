//! Every lesson and exercise as a corpus of the reference goldens (docs/reference.md): the
//! requests each one's run sends, in its default schedule (seed 1), setup first, written to
//! `reference/corpus/lessons.json` in the corpus form (`{ns}` for the namespace `default`,
//! `{rv:N}` / `{uid:N}` for a resourceVersion or uid an earlier answer returned, the sender as
//! `agent`). `cargo xtask reference capture` sends them to the reference, and the goldens'
//! replay compares the model's answers with its answers, request by request.
//!
//! The committed corpus must be the lessons' current requests: when a lesson or an exercise
//! changes, `RVLAB_WRITE_CORPUS=1 cargo test -p rvlab-core --test it reference_lessons` writes
//! it again, and `cargo xtask reference capture` (which needs Go, docs/reference.md) captures
//! the reference's answers to it.

use rvlab_core::engine::{setup_request, Direct, Transport, World, SETUP_ACTOR};
use rvlab_core::lang::ast::Scenario;
use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Outcome, Request, Store};
use serde_json::{json, Map, Value};

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../reference/corpus/lessons.json"
);

/// A run's requests and answers, as the world's store served them.
#[derive(Default)]
struct Recorder {
    seen: Vec<(String, Request, Value)>,
}

impl Transport for Recorder {
    fn handle(
        &mut self,
        store: &mut Store,
        request: &Request,
        actor: &Actor,
        env: &mut Env<'_>,
    ) -> Outcome {
        let out = Direct.handle(store, request, actor, env);
        self.seen.push((
            actor.name.clone(),
            request.clone(),
            out.response.body.clone(),
        ));
        out
    }
}

fn patch_type(content_type: Option<&str>) -> Option<&'static str> {
    match content_type? {
        "application/merge-patch+json" => Some("merge"),
        "application/json-patch+json" => Some("json"),
        "application/strategic-merge-patch+json" => Some("strategic"),
        "application/apply-patch+yaml" => Some("apply"),
        _ => None,
    }
}

/// The index of the last earlier answer whose object has `value` as its `key`
/// (`resourceVersion`, `uid`).
fn answered(answers: &[Value], key: &str, value: &str) -> Option<usize> {
    answers
        .iter()
        .rposition(|a| a["metadata"][key].as_str() == Some(value) && !value.is_empty())
}

/// A request's body in the corpus form: the namespace `default` as `{ns}`, a resourceVersion
/// or uid an earlier answer returned as `{rv:N}` / `{uid:N}`.
fn templated(v: &Value, key: &str, answers: &[Value]) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), templated(v, k, answers)))
                .collect::<Map<_, _>>(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| templated(v, key, answers)).collect()),
        Value::String(s) => match key {
            "namespace" if s == "default" => json!("{ns}"),
            "resourceVersion" | "value" => match answered(answers, "resourceVersion", s) {
                Some(n) => json!(format!("{{rv:{n}}}")),
                None => v.clone(),
            },
            "uid" => match answered(answers, "uid", s) {
                Some(n) => json!(format!("{{uid:{n}}}")),
                None => v.clone(),
            },
            _ => v.clone(),
        },
        other => other.clone(),
    }
}

/// A request's path in the corpus form (the namespace, a `resourceVersion=` of the query).
fn templated_path(path: &str, answers: &[Value]) -> String {
    let (p, q) = path.split_once('?').unwrap_or((path, ""));
    let p = match p.split_once("/namespaces/default") {
        Some((a, b)) if b.is_empty() || b.starts_with('/') => format!("{a}/namespaces/{{ns}}{b}"),
        _ => p.to_string(),
    };
    if q.is_empty() {
        return p;
    }
    let q: Vec<String> = q
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some(("resourceVersion", rv)) => match answered(answers, "resourceVersion", rv) {
                Some(n) => format!("resourceVersion={{rv:{n}}}"),
                None => pair.to_string(),
            },
            _ => pair.to_string(),
        })
        .collect();
    format!("{p}?{}", q.join("&"))
}

/// One scenario's requests: the setup's creates, then the clients' requests in the default
/// schedule (watches left out: the goldens compare answers, not streams).
fn sequence(name: &str, scenario: &Scenario) -> Value {
    // The setup as `World::new` sends it, on a store of our own to see its answers.
    let mut store = Store::new();
    let mut rng = Rng::new(1);
    let mut sent: Vec<(String, Request, Value)> = Vec::new();
    for obj in &scenario.objects {
        let req = setup_request(obj).expect("lesson setups evaluate");
        if let Some(rv) = obj.at_revision {
            store.advance_to(rv).expect("lesson setups advance");
        }
        let actor = Actor {
            name: SETUP_ACTOR.into(),
            base_revision: 0,
        };
        let mut env = Env {
            now_ms: 0,
            rng: &mut rng,
        };
        let out = store.handle(&req, &actor, &mut env);
        sent.push((SETUP_ACTOR.into(), req, out.response.body));
    }
    let mut world = World::new(scenario, 1).expect("lessons start");
    let mut recorder = Recorder::default();
    let mut steps = 0;
    while let Ok(Some(_)) = world.take_step_via(&mut recorder, scenario, None) {
        steps += 1;
        assert!(steps < 10_000, "{name}: the run does not end");
    }
    sent.extend(recorder.seen);
    let mut answers: Vec<Value> = Vec::new();
    let mut requests = Vec::new();
    for (agent, req, answer) in sent {
        if req.path.contains("watch=") {
            continue;
        }
        let mut r = Map::new();
        r.insert("method".into(), req.method.as_str().into());
        r.insert("path".into(), templated_path(&req.path, &answers).into());
        if let Some(t) = patch_type(req.content_type.as_deref()) {
            r.insert("type".into(), t.into());
        }
        if let Some(b) = &req.body {
            r.insert("body".into(), templated(b, "", &answers));
        }
        r.insert("agent".into(), agent.into());
        requests.push(Value::Object(r));
        answers.push(answer);
    }
    json!({"name": name, "requests": requests})
}

fn corpus() -> Value {
    let mut out = Vec::new();
    for lesson in rvlab_core::lessons::LESSONS {
        let scenario = rvlab_core::lang::parse(lesson.source)
            .scenario
            .expect("lessons parse");
        out.push(sequence(&format!("lesson-{}", lesson.id), &scenario));
    }
    for ex in rvlab_core::exercises::EXERCISES {
        for (suffix, text) in [("", ex.source), ("-solution", ex.solution())] {
            let parsed = rvlab_core::exercises::parse(text).expect("exercises parse");
            out.push(sequence(
                &format!("exercise-{}{suffix}", ex.id),
                &parsed.scenario,
            ));
        }
    }
    Value::Array(out)
}

/// One sequence per line, as the goldens are written.
fn render(corpus: &Value) -> String {
    let lines: Vec<String> = corpus
        .as_array()
        .map(|a| a.iter().map(Value::to_string).collect())
        .unwrap_or_default();
    format!("[\n{}\n]\n", lines.join(",\n"))
}

#[test]
fn the_lesson_corpus_is_the_lessons_requests() {
    let now = render(&corpus());
    if std::env::var_os("RVLAB_WRITE_CORPUS").is_some() {
        std::fs::write(CORPUS, &now).expect("reference/corpus/lessons.json is writable");
        return;
    }
    let committed = std::fs::read_to_string(CORPUS).unwrap_or_default();
    assert!(
        committed == now,
        "reference/corpus/lessons.json is not the lessons' and exercises' requests any more: \
         RVLAB_WRITE_CORPUS=1 cargo test -p rvlab-core --test it reference_lessons writes it, \
         and cargo xtask reference capture captures the reference's answers to it \
         (docs/reference.md)"
    );
    // Every lesson and exercise is in it, and each sent something.
    let corpus: Value = serde_json::from_str(&committed).expect("the corpus is JSON");
    let n = rvlab_core::lessons::LESSONS.len() + 2 * rvlab_core::exercises::EXERCISES.len();
    assert_eq!(corpus.as_array().map(Vec::len), Some(n));
    for seq in corpus.as_array().into_iter().flatten() {
        assert!(
            seq["requests"].as_array().is_some_and(|r| !r.is_empty()),
            "{} sends no request",
            seq["name"]
        );
    }
}
