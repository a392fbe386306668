//! kubectl and file statements in the engine (issue #14): steps, files, terminals, failures,
//! expectations, views, the trace and the explorer's bounds.

use rvlab_core::engine::{Action, ClientOutcome, Mark, KUBECTL_ERROR};
use rvlab_core::kubectl::{Command, Verb};
use rvlab_core::lang::ast::{
    ExpectKind, Expectation, Expr, ExprKind, PathSeg, Scenario, SetupBody, SetupFile, Span, Stmt,
    StmtKind,
};
use rvlab_core::lang::parse;
use rvlab_core::run::Run;
use rvlab_core::trace::trace;
use rvlab_core::view::{run_text, terminal_text, terminals, world_view};
use serde_json::json;

fn scenario(src: &str) -> Scenario {
    let p = parse(src);
    assert!(!p.has_errors(), "{:?}", p.diagnostics);
    p.scenario.expect("a scenario")
}

fn span(line: u32) -> Span {
    Span {
        start: 0,
        end: 0,
        line,
        col: 1,
    }
}

fn cmd(line: &str, verb: Verb) -> Command {
    Command {
        line: line.into(),
        namespace: "default".into(),
        field_manager: None,
        redirect: None,
        verb,
    }
}

fn kubectl_stmt(line: u32, c: Command) -> Stmt {
    Stmt {
        text: format!("kubectl {}", c.line),
        kind: StmtKind::Kubectl {
            cmd: c,
            edits: Vec::new(),
        },
        span: span(line),
    }
}

fn lit(v: serde_json::Value) -> Expr {
    Expr {
        kind: ExprKind::Literal(v),
        span: span(1),
    }
}

fn expect(kind: ExpectKind, text: &str) -> Expectation {
    Expectation {
        kind,
        text: text.into(),
        span: span(99),
    }
}

const BASE: &str = r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client bob:
    obj = get configmap/my-config
"#;

/// bob: `get`, then `kubectl apply -f missing.yaml` (a file bob never wrote), then a get
/// that must not run.
fn apply_missing_file() -> Scenario {
    let mut sc = scenario(BASE);
    let apply = cmd(
        "apply -f missing.yaml",
        Verb::Apply {
            file: "missing.yaml".into(),
            server_side: false,
            force_conflicts: false,
        },
    );
    let after = sc.clients[0].body[0].clone();
    sc.clients[0].body.push(kubectl_stmt(7, apply));
    sc.clients[0].body.push(after);
    sc.expectations.push(expect(
        ExpectKind::Exits {
            client: "bob".into(),
            code: 1,
        },
        "bob exits 1",
    ));
    sc.expectations.push(expect(
        ExpectKind::Prints {
            client: "bob".into(),
            text: "error: ".into(),
        },
        "bob prints \"error: \"",
    ));
    sc.expectations.push(expect(
        ExpectKind::Exits {
            client: "bob".into(),
            code: 0,
        },
        "bob exits 0",
    ));
    sc
}

#[test]
fn a_command_that_fails_before_any_request_is_one_step_and_stops_the_client() {
    let run = Run::new(&apply_missing_file(), 0, None).unwrap();
    assert_eq!(
        run.steps.len(),
        2,
        "get, then the kubectl step; the last get never runs"
    );
    let step = &run.steps[1];
    assert!(step.request.is_none());
    assert_eq!(step.action, Action::Error);
    assert_eq!(step.mark, Mark::OtherError);
    let k = step.kubectl.as_ref().expect("a kubectl step");
    assert_eq!(k.command, "kubectl apply -f missing.yaml");
    assert_eq!(k.request_index, 0);
    let t = k.terminal.as_ref().expect("the command finished here");
    assert_eq!(t.exit, 1);
    assert!(t.stderr().starts_with("error: "), "{:?}", t.stderr());
    assert!(t.stdout().is_empty());
    assert!(
        step.narration
            .starts_with("bob runs `kubectl apply -f missing.yaml`: kubectl sends no request"),
        "{}",
        step.narration
    );
    assert!(step.narration.contains("it exits 1"), "{}", step.narration);
    match &step.finished {
        Some(ClientOutcome::Failed(f)) => {
            assert_eq!(f.reason, KUBECTL_ERROR);
            assert_eq!(f.message, t.stderr().trim_end());
            assert!(f.status.is_none());
        }
        other => panic!("bob should fail, got {other:?}"),
    }
    // The world keeps the last terminal; the expectations read it.
    assert_eq!(run.last().clients[0].terminal.as_ref(), Some(t));
    let results = run.expectations();
    assert!(results[0].holds, "{:?}", results[0]);
    assert_eq!(results[0].detail, "bob's last kubectl command exited 1");
    assert!(results[1].holds, "{:?}", results[1]);
    assert!(!results[2].holds);
    assert_eq!(run.decisive_step(&run.scenario.expectations[0]), Some(1));
}

#[test]
fn the_terminal_view_the_trace_and_the_text_show_the_command_and_its_output() {
    let run = Run::new(&apply_missing_file(), 0, None).unwrap();
    let t = run.steps[1]
        .kubectl
        .as_ref()
        .unwrap()
        .terminal
        .clone()
        .unwrap();
    // Before the command's step, bob's terminal is empty; after it, one finished entry.
    assert!(terminals(&run, 1)[0].entries.is_empty());
    let views = terminals(&run, 2);
    assert_eq!(views.len(), 1);
    assert_eq!(views[0].client, "bob");
    let e = &views[0].entries[0];
    assert_eq!(e.command, "kubectl apply -f missing.yaml");
    assert_eq!(e.exit, Some(1));
    assert_eq!((e.first_step, e.last_step), (1, 1));
    assert_eq!(e.chunks, t.chunks);
    let text = terminal_text(&views[0].entries);
    assert_eq!(
        text,
        format!("$ kubectl apply -f missing.yaml\n{}", t.stderr())
    );
    // The CLI's text prints the same after the step line.
    assert!(run_text(&run).contains(&text), "{}", run_text(&run));
    // The JSON trace.
    let tr = trace(&run);
    let k = &tr["steps"][1]["kubectl"];
    assert_eq!(k["command"], "kubectl apply -f missing.yaml");
    assert_eq!(k["request_index"], 0);
    assert_eq!(k["exit"], 1);
    assert_eq!(k["stdout"], "");
    assert_eq!(k["stderr"], t.stderr());
    assert!(tr["steps"][0].get("kubectl").is_none());
    assert_eq!(tr["clients"][0]["error"]["reason"], KUBECTL_ERROR);
}

#[test]
fn a_kubectl_failure_with_no_server_status_is_not_retried_on_conflict() {
    let mut sc = scenario(
        r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client bob:
    retry on conflict:
        obj = get configmap/my-config
"#,
    );
    let apply = cmd(
        "apply -f missing.yaml",
        Verb::Apply {
            file: "missing.yaml".into(),
            server_side: false,
            force_conflicts: false,
        },
    );
    match &mut sc.clients[0].body[0].kind {
        StmtKind::Retry { body, .. } => body.push(kubectl_stmt(8, apply)),
        other => panic!("not a retry: {other:?}"),
    }
    let run = Run::new(&sc, 0, None).unwrap();
    assert_eq!(run.steps.len(), 2);
    assert!(
        run.steps[1]
            .narration
            .ends_with("retry on conflict retries only conflicts: bob stops here"),
        "{}",
        run.steps[1].narration
    );
}

#[test]
fn files_start_as_the_scenarios_and_file_statements_edit_them_locally() {
    let mut sc = scenario(BASE);
    sc.files.push(SetupFile {
        name: "my-config.yaml".into(),
        body: SetupBody::Literal(lit(json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "my-config"},
            "data": {"key": "from-file"},
        }))),
        span: span(2),
    });
    // bob edits his copy; a second client keeps the original.
    sc.clients.push(sc.clients[0].clone());
    sc.clients[1].name = "carol".into();
    sc.clients[0].body.push(Stmt {
        text: "file \"my-config.yaml\":".into(),
        kind: StmtKind::File {
            name: "my-config.yaml".into(),
            body: SetupBody::Fields(vec![(
                vec![PathSeg::Key("data".into()), PathSeg::Key("key".into())],
                lit(json!("edited")),
            )]),
        },
        span: span(7),
    });
    sc.clients[0].body.push(Stmt {
        text: "file \"new.yaml\" = {…}".into(),
        kind: StmtKind::File {
            name: "new.yaml".into(),
            body: SetupBody::Literal(lit(json!({"data": {"a": "b"}}))),
        },
        span: span(9),
    });
    let run = Run::new(&sc, 0, Some("aaab")).unwrap();
    let edit = &run.steps[1];
    assert_eq!(edit.action, Action::Local);
    assert_eq!(edit.mark, Mark::Local);
    assert!(edit.request.is_none());
    assert_eq!(
        edit.narration,
        "bob edited the file my-config.yaml, setting data.key (a local file: nothing is sent)"
    );
    assert!(run.steps[2]
        .narration
        .starts_with("bob wrote the file new.yaml: "));
    let w = run.last();
    let bob = &w.clients[0].files;
    let f = bob.get("my-config.yaml").unwrap();
    assert_eq!(f.value.as_ref().unwrap().0["data"]["key"], "edited");
    assert_eq!(
        f.text,
        "apiVersion: v1\ndata:\n  key: edited\nkind: ConfigMap\nmetadata:\n  name: my-config\n"
    );
    assert!(bob.get("new.yaml").is_some());
    let carol = &w.clients[1].files;
    assert_eq!(
        carol
            .get("my-config.yaml")
            .unwrap()
            .value
            .as_ref()
            .unwrap()
            .0["data"]["key"],
        "from-file"
    );
    assert!(carol.get("new.yaml").is_none());
    // The client's panel lists its files, in name order.
    let v = world_view(&sc, w);
    let names: Vec<&str> = v.clients[0].files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["my-config.yaml", "new.yaml"]);
    assert_eq!(v.clients[0].files[0].text, f.text);
}

#[test]
fn a_file_edit_that_cannot_be_written_is_a_runtime_error() {
    let mut sc = scenario(BASE);
    let file = |body| Stmt {
        text: "file \"x\" …".into(),
        kind: StmtKind::File {
            name: "x".into(),
            body,
        },
        span: span(7),
    };
    // A file holding a string, then a field line into it.
    sc.clients[0]
        .body
        .push(file(SetupBody::Literal(lit(json!("just text")))));
    sc.clients[0].body.push(file(SetupBody::Fields(vec![(
        vec![PathSeg::Key("data".into())],
        lit(json!(1)),
    )])));
    let run = Run::new(&sc, 0, None).unwrap();
    assert_eq!(run.steps.len(), 3);
    assert_eq!(run.steps[2].action, Action::Error);
    match &run.last().clients[0].outcome {
        Some(ClientOutcome::Failed(f)) => assert_eq!(f.reason, "RuntimeError"),
        other => panic!("{other:?}"),
    }
    // The file kept its value.
    let f = run.last().clients[0].files.get("x").unwrap();
    assert_eq!(f.value.as_ref().unwrap().0, json!("just text"));
}

#[test]
fn a_setup_file_that_cannot_be_evaluated_is_a_setup_error() {
    let mut sc = scenario(BASE);
    sc.files.push(SetupFile {
        name: "bad.yaml".into(),
        body: SetupBody::Literal(Expr {
            kind: ExprKind::Var {
                name: "nope".into(),
                path: Vec::new(),
            },
            span: span(3),
        }),
        span: span(3),
    });
    let err = Run::new(&sc, 0, None).unwrap_err().to_string();
    assert!(
        err.starts_with("line 3: setting up file \"bad.yaml\" failed: "),
        "{err}"
    );
}

#[test]
fn the_explorer_stays_exact_with_kubectl_steps() {
    use rvlab_core::explore::{explore, Bounds};
    let sc = apply_missing_file();
    let report = explore(&sc, 0, Bounds::default()).unwrap();
    assert!(report.complete);
    assert_eq!(report.schedules, 1);
    // `exits 1` and `prints "error: "` hold in every schedule; `exits 0` in none.
    let v: Vec<u64> = report.expectations.iter().map(|e| e.violations).collect();
    assert_eq!(v, [0, 0, 1]);
}
