//! kubectl and file statements in the engine (issue #14): steps, files, terminals, failures,
//! expectations, views, the trace and the explorer's bounds.

use rvlab_core::engine::{ClientOutcome, Mark, StepKind, KUBECTL_ERROR};
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
    assert_eq!(step.action, StepKind::Error);
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
    assert_eq!(edit.action, StepKind::Local);
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
    assert_eq!(run.steps[2].action, StepKind::Error);
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
    let v: Vec<u64> = report
        .expectations
        .iter()
        .map(|e| e.violations.to_u64().expect("fits"))
        .collect();
    assert_eq!(v, [0, 0, 1]);
}

// --- With the machine: real requests, kubectl's retries, output. ---

/// The seed story in kubectl: both read the object into a file, edit it, apply it
/// (client-side).
const SEED_KUBECTL: &str = r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    kubectl get cm my-config -o yaml > my-config.yaml
    file "my-config.yaml":
        data.key = "from-alice"
    kubectl apply -f my-config.yaml

client bob:
    kubectl get cm my-config -o yaml > my-config.yaml
    file "my-config.yaml":
        data.key = "from-bob"
    kubectl apply -f my-config.yaml

expect bob fails with Conflict
expect bob exits 1
expect bob prints "Operation cannot be fulfilled on configmaps \"my-config\""
expect alice prints "configmap/my-config configured"
"#;

#[test]
fn the_seed_story_in_kubectl_refuses_the_stale_apply_after_kubectls_own_retries() {
    let sc = scenario(SEED_KUBECTL);
    // Both read and edit, alice applies (GET, PATCH), then bob alone (GET, PATCH 409, retries).
    let run = Run::new(&sc, 0, Some("ababaa")).unwrap();
    assert!(run.is_finished());
    assert!(run.all_hold(), "{:?}", run.expectations());
    let steps = &run.steps;
    // alice's read: one GET, its output in the file, nothing on the terminal.
    let k0 = steps[0].kubectl.as_ref().unwrap();
    assert_eq!(
        k0.command,
        "kubectl get cm my-config -o yaml > my-config.yaml"
    );
    let t0 = k0.terminal.as_ref().unwrap();
    assert_eq!((t0.exit, t0.stdout().as_str()), (0, ""));
    assert_eq!(
        steps[0].narration,
        "alice runs `kubectl get cm my-config -o yaml > my-config.yaml`: kubectl read configmap/my-config at resourceVersion 100; kubectl prints nothing (its standard output goes to the file my-config.yaml); it exits 0"
    );
    // alice's apply: GET then PATCH, the second step finishing the command.
    let (g, p) = (&steps[4], &steps[5]);
    assert_eq!(g.kubectl.as_ref().unwrap().request_index, 0);
    assert!(g.kubectl.as_ref().unwrap().terminal.is_none());
    assert_eq!(p.kubectl.as_ref().unwrap().request_index, 1);
    assert_eq!(p.request.as_ref().unwrap().method.as_str(), "PATCH");
    assert_eq!(p.revision, Some(101));
    // bob: every later step is his; his patches are refused, his apply retries on the clock.
    let bob: Vec<_> = steps[6..].iter().collect();
    assert!(bob.iter().all(|s| s.client == 1));
    let conflicts = bob.iter().filter(|s| s.mark == Mark::Conflict).count();
    assert_eq!(
        conflicts, 6,
        "the first patch and maxPatchRetry = 5 retries"
    );
    let idx: Vec<u32> = bob
        .iter()
        .map(|s| s.kubectl.as_ref().unwrap().request_index)
        .collect();
    assert_eq!(idx, (0..12).collect::<Vec<u32>>());
    // 1 s before each retry but the first: 4 s on the virtual clock.
    // Requests 0-3: GET, PATCH, the first retry's GET and PATCH at once; then 1 s before
    // each further retry's GET.
    let clocks: Vec<u64> = bob.iter().map(|s| s.clock_nanos / 1_000_000_000).collect();
    assert_eq!(clocks, [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
    assert!(
        bob[1].narration.starts_with(
            "bob runs `kubectl apply -f my-config.yaml` (request 2): kubectl's strategic merge patch was rejected with 409 Conflict: the patch carried resourceVersion 100, but alice's strategic merge patch moved configmap/my-config to 101"
        ),
        "{}",
        bob[1].narration
    );
    assert!(
        bob[3]
            .narration
            .ends_with("; kubectl waits 1s before its next request"),
        "{}",
        bob[3].narration
    );
    let last = bob[11];
    let tb = last.kubectl.as_ref().unwrap().terminal.as_ref().unwrap();
    assert_eq!(tb.exit, 1);
    match &last.finished {
        Some(ClientOutcome::Failed(f)) => {
            assert_eq!(f.reason, "Conflict");
            assert_eq!(f.code, Some(409));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        run.decisive_step(&sc.expectations[1]),
        Some(run.len() - 1),
        "bob's exit is decided by his finishing step"
    );
    // The terminals: alice's two commands, bob's two.
    let term = terminals(&run, run.len());
    assert_eq!(term[0].entries.len(), 2);
    assert_eq!(term[1].entries.len(), 2);
    assert_eq!(term[1].entries[1].first_step, 6);
    assert_eq!(term[1].entries[1].last_step, run.len() as u32 - 1);
    assert_eq!(term[1].entries[1].chunks, tb.chunks);
    // Mid-command, bob's apply is in progress with no output yet.
    let mid = terminals(&run, 8);
    assert_eq!(mid[1].entries[1].exit, None);
    assert!(mid[1].entries[1].chunks.is_empty());
    assert!(run.world_at(8).clients[1].kubectl.is_some());
    // The text run prints the terminal after the finishing step, byte for byte.
    let text = run_text(&run);
    assert!(
        text.contains(&format!(
            "$ kubectl apply -f my-config.yaml\n{}",
            tb.chunks
                .iter()
                .map(|c| c.text.as_str())
                .collect::<String>()
        )),
        "{text}"
    );
    // The files are the client's: each holds its own edit.
    let w = run.last();
    let key = |c: usize| {
        w.clients[c]
            .files
            .get("my-config.yaml")
            .unwrap()
            .value
            .as_ref()
            .unwrap()
            .0["data"]["key"]
            .clone()
    };
    assert_eq!((key(0), key(1)), (json!("from-alice"), json!("from-bob")));
}

#[test]
fn inside_retry_on_conflict_a_refused_kubectl_apply_retries_the_whole_block() {
    let src = SEED_KUBECTL.replace(
        "client bob:\n    kubectl get cm my-config -o yaml > my-config.yaml\n    file \"my-config.yaml\":\n        data.key = \"from-bob\"\n    kubectl apply -f my-config.yaml\n",
        "client bob:\n    retry on conflict:\n        kubectl get cm my-config -o yaml > my-config.yaml\n        file \"my-config.yaml\":\n            data.key = \"from-bob\"\n        kubectl apply -f my-config.yaml\n",
    );
    let end = src.find("\nexpect").unwrap();
    let sc = scenario(&format!("{}\nexpect all clients succeed\n", &src[..end]));
    let run = Run::new(&sc, 0, Some("ababaa")).unwrap();
    assert!(run.all_hold(), "{:?}", run.expectations());
    assert_eq!(run.last().clients[1].attempts, 2);
    assert_eq!(
        run.last().store.get(&sc.objects[0].target).unwrap()["data"]["key"],
        "from-bob"
    );
    assert!(run.steps.iter().any(|s| s
        .narration
        .contains("the attempt ends; bob will back off and try again")));
}

#[test]
fn a_kubectl_patch_over_a_change_never_read_is_a_lost_update_under_the_clients_name() {
    let sc = scenario(
        r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    obj.data.key = "from-alice"
    update obj

client bob:
    kubectl patch cm my-config --type merge -p '{"data":{"key":"from-bob"}}'

expect no lost updates
expect bob exits 0
"#,
    );
    // kubectl patch reads the object first (bob's kubectl sees 100), alice's update moves it
    // to 101, then bob's patch overwrites alice's change without having seen it.
    let run = Run::new(&sc, 0, Some("baaab")).unwrap();
    assert_eq!(
        run.steps[0].request.as_ref().unwrap().method.as_str(),
        "GET"
    );
    let p = run.steps.last().unwrap();
    assert_eq!(p.client, 1);
    assert_eq!(p.mark, Mark::LostUpdate);
    assert_eq!(p.lost_updates.len(), 1);
    assert_eq!(p.lost_updates[0].writer, "bob");
    assert_eq!(p.lost_updates[0].overwritten_writer, "alice");
    let r = run.expectations();
    assert!(!r[0].holds);
    assert!(r[1].holds);
    let t = p.kubectl.as_ref().unwrap().terminal.as_ref().unwrap();
    assert_eq!(t.stdout(), "configmap/my-config patched\n");
    // The trace carries the finishing step's output.
    let tr = trace(&run);
    let k = &tr["steps"][4]["kubectl"];
    assert_eq!(k["stdout"], "configmap/my-config patched\n");
    assert_eq!(k["exit"], 0);
    assert_eq!(k["request_index"], 1);
    assert!(tr["steps"][0]["kubectl"].get("exit").is_none());
}

#[test]
fn the_explorer_counts_kubectl_requests_exactly() {
    use rvlab_core::explore::{Bounds, ExploreReport, ScenarioExplorer, ScenarioModel};
    let src = SEED_KUBECTL;
    let end = src.find("\nexpect").unwrap();
    let sc = scenario(&format!(
        "{}\nexpect all clients succeed\nexpect bob exits 1\n",
        &src[..end]
    ));
    let merged = rvlab_core::explore::explore(&sc, 0, Bounds::default()).unwrap();
    let plain =
        ScenarioExplorer::with_model(ScenarioModel::history_only(&sc), 0, Bounds::default())
            .unwrap()
            .finish();
    assert!(merged.complete && plain.complete);
    assert_eq!(merged.schedules, plain.schedules);
    let v = |r: &ExploreReport| {
        r.expectations
            .iter()
            .map(|e| e.violations.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(v(&merged), v(&plain));
    // Every counterexample replays to a run that breaks it.
    for (i, e) in merged.expectations.iter().enumerate() {
        let token = e.counterexample.as_ref().expect("some order breaks each");
        let run = Run::new(&sc, 0, Some(token)).unwrap();
        assert!(!run.expectations()[i].holds, "{token}");
    }
}
