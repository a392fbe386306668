//! The differential test of issue #14: every scenario of `tests/clients/kubectl-corpus/` is
//! run in the model and with a real kubectl against `rvlab serve` loaded with the same setup,
//! commands in the same order (`rvlab_clients::differential`), and each kubectl command's
//! requests (method, path with query, content type, body as JSON), stdout, stderr and exit
//! status must be equal, apart from uids, times and AGE cells. The model is the reference's
//! kubectl, v1.37.2 (docs/reference.md): CI, which has none, compares it with that kubectl's
//! committed outcomes (`kubectl-goldens.json`); the live test runs the machine's kubectl (1.32),
//! reading the model's outcomes as that release prints them (the reviewed
//! `RELEASE_CHANGES`). Every mismatch is printed with both sides; the test fails if there is
//! one, and says how many commands it compared. `RVLAB_CORPUS=NAME` runs the scenarios whose
//! file name contains NAME only; `-- --nocapture` lists every command compared.

use anyhow::Result;
use rvlab_clients::differential::{
    against_goldens, corpus, goldens_file, goldens_text, read_goldens, run_scenario, since,
};
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
    let version = rvlab_clients::tools::kubectl_version()?;
    let minor = rvlab_clients::tools::kubectl_minor()?;
    // `RVLAB_WRITE_KUBECTL_GOLDENS=1` with the reference's kubectl (`cargo xtask reference
    // capture kubectl`) writes what it did to the goldens.
    let write = std::env::var_os("RVLAB_WRITE_KUBECTL_GOLDENS").is_some();
    if write {
        assert!(
            only.is_empty(),
            "the goldens are written from the whole corpus: unset RVLAB_CORPUS"
        );
        assert_eq!(
            version,
            rvlab_core::store::KUBERNETES_RELEASE,
            "the goldens are the model's release's kubectl: run the reference's"
        );
    }
    // A scenario for a newer kubectl than this one is not run (the goldens compare it).
    let corpus: Vec<_> = corpus
        .into_iter()
        .filter(|(name, src)| match since(src) {
            Some(first) if minor < first => {
                println!("skipped  {name}: for kubectl 1.{first} and later");
                false
            }
            _ => true,
        })
        .collect();
    // One server per scenario, so the scenarios run side by side (the seed's client-side
    // apply retries, ~4.7 s of kubectl's own sleeps, overlap the rest).
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = corpus
            .iter()
            .map(|(_, src)| {
                s.spawn(move || {
                    let at = Instant::now();
                    (run_scenario(src, minor), at.elapsed())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a scenario's thread panicked"))
            .collect()
    });
    let (mut compared, mut failures) = (0, String::new());
    let mut goldens = Vec::new();
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
                goldens.push((name.clone(), cmds));
            }
        }
        println!("         {name}: {took:.1?}");
    }
    // The model is the reference's kubectl (v1.37.2); an older one (the machine image's 1.32)
    // is compared with the model's outcomes as that release prints them (RELEASE_CHANGES).
    println!(
        "{compared} kubectl commands compared in {} scenarios against kubectl {version}, {:.1?}",
        corpus.len(),
        start.elapsed()
    );
    assert!(
        failures.is_empty(),
        "the model (kubectl {}) and the real kubectl {version} differ:\n{failures}",
        rvlab_core::store::KUBERNETES_RELEASE
    );
    if write {
        let path = goldens_file();
        std::fs::write(&path, goldens_text(version, &goldens))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// CI has no kubectl of the model's release: the model is compared with what the reference's
/// kubectl did with every command of the corpus, as committed (`tests/clients/
/// kubectl-goldens.json`, written by `cargo xtask reference capture kubectl`).
#[test]
fn the_model_sends_and_prints_what_the_reference_kubectl_did() -> Result<()> {
    let (version, goldens) = read_goldens(&std::fs::read_to_string(goldens_file())?)?;
    assert_eq!(
        version,
        rvlab_core::store::KUBERNETES_RELEASE,
        "the goldens are another release's kubectl: capture them again"
    );
    let corpus = corpus()?;
    let names: Vec<&str> = corpus.iter().map(|(n, _)| n.as_str()).collect();
    let captured: Vec<&str> = goldens.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names, captured,
        "the corpus's scenarios are not the goldens' (`cargo xtask reference capture kubectl`)"
    );
    let (mut compared, mut failures) = (0, String::new());
    for ((name, src), (_, golden)) in corpus.iter().zip(&goldens) {
        match against_goldens(src, golden) {
            Err(e) => {
                let _ = writeln!(failures, "=== {name}: {e:#}\n");
            }
            Ok(cmds) => {
                for c in cmds {
                    compared += 1;
                    if !c.diff.is_empty() {
                        let _ = writeln!(
                            failures,
                            "=== {name}:{} {}: kubectl {}\n{}",
                            c.line, c.client, c.command, c.diff
                        );
                    }
                }
            }
        }
    }
    println!("{compared} kubectl commands compared with kubectl {version}'s goldens");
    assert!(compared > 0, "no command compared");
    assert!(
        failures.is_empty(),
        "the model and the reference's kubectl {version} differ:\n{failures}"
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
