//! The scenario language: parsing, diagnostics, highlighting.

use rvlab_core::lang::ast::*;
use rvlab_core::lang::{parse, render_all, Parsed};
use rvlab_core::store::Resource;

const SEED: &str = r#"title "Two writers, one stale read"

object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    obj.data.key = "from-alice"
    update obj

client bob:
    obj = get configmap/my-config
    obj.data.key = "from-bob"
    update obj

schedule "abaabb"
expect no lost updates
"#;

fn ok(src: &str) -> Scenario {
    let p = parse(src);
    match p.scenario {
        Some(s) => s,
        None => panic!(
            "expected a scenario, got:\n{}",
            render_all(&p.diagnostics, "t.rvl", src)
        ),
    }
}

fn errors(src: &str) -> String {
    let p: Parsed = parse(src);
    assert!(p.scenario.is_none(), "expected errors for:\n{src}");
    render_all(&p.diagnostics, "t.rvl", src)
}

#[test]
fn seed_story_parses() {
    let s = ok(SEED);
    assert_eq!(s.title.as_deref(), Some("Two writers, one stale read"));
    assert_eq!(s.objects.len(), 1);
    let o = &s.objects[0];
    assert_eq!(o.target.resource, Resource::ConfigMap);
    assert_eq!(o.target.name, "my-config");
    assert_eq!(o.target.namespace, "default");
    assert_eq!(o.at_revision, Some(100));
    assert_eq!(s.clients.len(), 2);
    assert_eq!(s.clients[0].name, "alice");
    let body = &s.clients[1].body;
    assert_eq!(body.len(), 3);
    assert!(
        matches!(&body[0].kind, StmtKind::Get { var, target } if var == "obj" && target.name == "my-config")
    );
    assert_eq!(body[1].text, "obj.data.key = \"from-bob\"");
    assert!(matches!(&body[2].kind, StmtKind::Update { var } if var == "obj"));
    assert_eq!(s.schedule.as_ref().map(|(t, _)| t.as_str()), Some("abaabb"));
    assert_eq!(s.expectations.len(), 1);
    assert_eq!(s.expectations[0].kind, ExpectKind::NoLostUpdates);
    assert_eq!(s.expectations[0].text, "no lost updates");
}

#[test]
fn dbg_errors() {
    let e = errors("client alice\n    update obj\n\tx = 1\n");
    println!("{e}");
}
