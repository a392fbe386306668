//! The engine: client-go retry semantics, runs, schedules, narration, traces.

use rvlab_core::engine::{ClientOutcome, Mark, World};
use rvlab_core::lang::ast::*;
use rvlab_core::run::Run;
use rvlab_core::store::{ObjectRef, Resource};
use serde_json::json;

fn cm(name: &str) -> ObjectRef {
    ObjectRef {
        resource: Resource::ConfigMap,
        namespace: "default".into(),
        name: name.into(),
    }
}
fn sp(line: u32) -> Span {
    Span {
        start: 0,
        end: 0,
        line,
        col: 1,
    }
}
fn st(kind: StmtKind, line: u32, text: &str) -> Stmt {
    Stmt {
        kind,
        span: sp(line),
        text: text.into(),
    }
}
fn lit(v: serde_json::Value) -> Expr {
    Expr {
        kind: ExprKind::Literal(v),
        span: sp(0),
    }
}
fn key(path: &str) -> Path {
    path.split('.').map(|k| PathSeg::Key(k.into())).collect()
}
fn writer(name: &str, value: &str, retry: Option<Backoff>) -> Client {
    let body = vec![
        st(
            StmtKind::Get {
                var: "obj".into(),
                target: cm("my-config"),
            },
            10,
            "obj = get configmap/my-config",
        ),
        st(
            StmtKind::Assign {
                var: "obj".into(),
                path: key("data.key"),
                value: lit(json!(value)),
            },
            11,
            "obj.data.key = ...",
        ),
        st(StmtKind::Update { var: "obj".into() }, 12, "update obj"),
    ];
    let body = match retry {
        Some(policy) => vec![st(
            StmtKind::Retry { policy, body },
            9,
            "retry on conflict:",
        )],
        None => body,
    };
    Client {
        name: name.into(),
        body,
        span: sp(1),
    }
}
fn seed_story(bob_retry: Option<Backoff>) -> Scenario {
    Scenario {
        title: Some("seed".into()),
        objects: vec![SetupObject {
            target: cm("my-config"),
            at_revision: Some(100),
            body: SetupBody::Fields(vec![(key("data.key"), lit(json!("initial")))]),
            span: sp(3),
        }],
        clients: vec![
            writer("alice", "from-alice", None),
            writer("bob", "from-bob", bob_retry),
        ],
        ..Default::default()
    }
}

#[test]
fn hand_built_seed_story_conflicts() {
    let s = seed_story(None);
    let run = Run::new(&s, 0, Some("abaabb")).unwrap();
    assert_eq!(run.len(), 6);
    let last = &run.steps[5];
    assert_eq!(last.mark, Mark::Conflict);
    assert_eq!(last.response.as_ref().unwrap().code, 409);
    for r in &run.steps {
        println!("{}", r.narration);
    }
    assert!(
        matches!(run.last().clients[1].outcome, Some(ClientOutcome::Failed(ref f)) if f.reason == "Conflict")
    );
    let w = World::new(&s, 0).unwrap();
    assert!(w.next_sends_request(&s, 0));
}

#[test]
fn hand_built_seed_story_retry_succeeds() {
    let s = seed_story(Some(Backoff::default_retry()));
    let run = Run::new(&s, 0, Some("abaabb")).unwrap();
    for r in &run.steps {
        println!("{} {}", r.statement, r.narration);
    }
    assert_eq!(run.token(), "aba2b6");
    assert!(matches!(
        run.last().clients[1].outcome,
        Some(ClientOutcome::Succeeded)
    ));
}
