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
        matches!(&body[0].kind, StmtKind::Get { var, target, .. } if var == "obj" && target.name == "my-config")
    );
    assert_eq!(body[1].text, "obj.data.key = \"from-bob\"");
    assert!(matches!(&body[2].kind, StmtKind::Update { var, .. } if var == "obj"));
    assert_eq!(s.schedule.as_ref().map(|(t, _)| t.as_str()), Some("abaabb"));
    assert_eq!(s.expectations.len(), 1);
    assert_eq!(s.expectations[0].kind, ExpectKind::NoLostUpdates);
    assert_eq!(s.expectations[0].text, "no lost updates");
}

#[test]
fn seed_story_with_the_retry_fix() {
    let fixed = SEED.replace(
        "client bob:\n    obj = get configmap/my-config\n    obj.data.key = \"from-bob\"\n    update obj\n",
        "client bob:\n    retry on conflict:\n        obj = get configmap/my-config\n        obj.data.key = \"from-bob\"\n        update obj\n",
    );
    assert_ne!(fixed, SEED);
    let s = ok(&fixed);
    let bob = &s.clients[1];
    assert_eq!(bob.body.len(), 1);
    let retry = &bob.body[0];
    assert_eq!(retry.text, "retry on conflict:");
    assert_eq!(retry.span.line, 12);
    assert_eq!(retry.span.col, 5);
    let StmtKind::Retry { policy, body } = &retry.kind else {
        panic!("not a retry: {retry:?}");
    };
    assert_eq!(*policy, Backoff::default_retry());
    assert_eq!(body.len(), 3);
    assert_eq!(body[2].text, "update obj");
    assert_eq!(body[2].span.line, 15);
    assert_eq!(body[2].span.col, 9);
}

/// Every statement form of docs/scenario-language.md, "Client statements", in one client.
const ALL_STATEMENTS: &str = r#"
title "every statement"
about """
    A paragraph
    over two lines.
    """
object configmap/a:
    data.count = "1"
    data["app.properties"] = "x=1"
    metadata.labels.app = "web"
object deploy/web in team-a at resourceVersion 10:
    spec.replicas = 3
object widgets.example.com/w1 = {"spec": {"size": 1, "tags": ["a", "b"]}, enabled: true}
object cm/empty

client c1:
    obj = get configmap/a
    obj.data.count = obj.data.count + 1
    obj.metadata.resourceVersion = ""
    update obj
    replace obj
    body = {"data": {"k": "v", "n": -2.5}, "list": [1, 2, null]}
    created = create configmap/b body
    create configmap/c
    create configmap/d {data: {k: "v"}}
    p1 = patch configmap/a merge {"data": {"count": "7"}}
    patch configmap/a json [{"op": "test", "path": "/data/count", "value": "7"}, {"op": "remove", "path": "/data/count"}]
    patch deployment/web in team-a strategic {"spec": {"replicas": 2}}
    applied = apply configmap/a {"data": {"owner": "c1"}} as c1 force
    apply configmap/a {"data": {"x": "y"}} as "kubectl"
    delete configmap/b precondition resourceVersion created.metadata.resourceVersion precondition uid created.metadata.uid
    delete configmap/c
    sleep 1.5s
    sleep 10ms
    retry on conflict with DefaultBackoff:
        obj = get configmap/a
        update obj
    retry on conflict with backoff(steps=3, duration=20ms, factor=2.0, jitter=0, cap=1s):
        obj = get configmap/a
        obj.data["x"] = ("a" + "b") - 1
        update obj
    retry on conflict with DefaultRetry:
        update obj

client c2:
    x = 3  # a comment
    # a full-line comment

expect no lost updates
expect configmap/a data.count == "7"
expect configmap/a data["app.properties"] != "x=2"
expect deployment/web in team-a spec.replicas == 2
expect configmap/a exists
expect configmap/b is deleted
expect c1 succeeds
expect c2 fails with Conflict
expect all clients succeed
schedule "a3b2a"
"#;

#[test]
fn every_statement_form_parses() {
    let s = ok(ALL_STATEMENTS);
    assert_eq!(s.about.as_deref(), Some("A paragraph\nover two lines."));
    // Setup objects and their revisions.
    assert_eq!(s.objects.len(), 4);
    assert!(
        matches!(&s.objects[0].body, SetupBody::Fields(f) if f.len() == 3
        && f[1].0 == vec![PathSeg::Key("data".into()), PathSeg::Key("app.properties".into())])
    );
    assert_eq!(s.objects[1].target.resource, Resource::Deployment);
    assert_eq!(s.objects[1].target.namespace, "team-a");
    assert_eq!(s.objects[1].at_revision, Some(10));
    assert_eq!(
        s.objects[2].target.resource,
        Resource::Custom {
            plural: "widgets".into(),
            group: "example.com".into()
        }
    );
    let SetupBody::Literal(lit) = &s.objects[2].body else {
        panic!("literal body")
    };
    let ExprKind::Object(entries) = &lit.kind else {
        panic!("object literal")
    };
    assert_eq!(
        entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        ["spec", "enabled"]
    );
    assert!(matches!(&s.objects[3].body, SetupBody::Fields(f) if f.is_empty()));

    let b = &s.clients[0].body;
    let kinds: Vec<&StmtKind> = b.iter().map(|s| &s.kind).collect();
    assert!(matches!(kinds[0], StmtKind::Get { var, .. } if var == "obj"));
    let StmtKind::Assign { var, path, value } = kinds[1] else {
        panic!("assign")
    };
    assert_eq!(var, "obj");
    assert_eq!(
        path,
        &vec![PathSeg::Key("data".into()), PathSeg::Key("count".into())]
    );
    assert!(matches!(
        &value.kind,
        ExprKind::Binary { op: BinOp::Add, .. }
    ));
    assert!(matches!(kinds[3], StmtKind::Update { var, .. } if var == "obj"));
    assert!(matches!(kinds[4], StmtKind::Update { var, .. } if var == "obj"));
    let StmtKind::Assign { path, value, .. } = kinds[5] else {
        panic!("assign")
    };
    assert!(path.is_empty());
    let ExprKind::Object(e) = &value.kind else {
        panic!()
    };
    let ExprKind::Object(data) = &e[0].1.kind else {
        panic!()
    };
    assert_eq!(data[1].1.kind, ExprKind::Literal(serde_json::json!(-2.5)));
    assert!(
        matches!(kinds[6], StmtKind::Create { var: Some(v), body: Some(_), .. } if v == "created")
    );
    assert!(
        matches!(kinds[7], StmtKind::Create { var: None, body: None, target } if target.name == "c")
    );
    assert!(matches!(kinds[8], StmtKind::Create { body: Some(_), .. }));
    assert!(matches!(
        kinds[9],
        StmtKind::Patch {
            var: Some(_),
            patch_type: PatchType::Merge,
            ..
        }
    ));
    assert!(
        matches!(kinds[10], StmtKind::Patch { var: None, patch_type: PatchType::Json, body, .. }
        if matches!(&body.kind, ExprKind::Array(a) if a.len() == 2))
    );
    assert!(
        matches!(kinds[11], StmtKind::Patch { patch_type: PatchType::Strategic, target, .. }
        if target.namespace == "team-a")
    );
    assert!(
        matches!(kinds[12], StmtKind::Apply { var: Some(_), manager, force: true, .. } if manager == "c1")
    );
    assert!(
        matches!(kinds[13], StmtKind::Apply { var: None, manager, force: false, .. } if manager == "kubectl")
    );
    assert!(matches!(
        kinds[14],
        StmtKind::Delete {
            resource_version: Some(_),
            uid: Some(_),
            ..
        }
    ));
    assert!(matches!(
        kinds[15],
        StmtKind::Delete {
            resource_version: None,
            uid: None,
            ..
        }
    ));
    assert_eq!(
        *kinds[16],
        StmtKind::Sleep {
            nanos: 1_500_000_000
        }
    );
    assert_eq!(*kinds[17], StmtKind::Sleep { nanos: 10_000_000 });
    assert!(
        matches!(kinds[18], StmtKind::Retry { policy, .. } if *policy == Backoff::default_backoff())
    );
    let StmtKind::Retry { policy, body } = kinds[19] else {
        panic!("retry")
    };
    assert_eq!(
        policy.name,
        "backoff(steps=3, duration=20ms, factor=2.0, jitter=0, cap=1s)"
    );
    assert_eq!(
        (policy.steps, policy.duration_nanos, policy.cap_nanos),
        (3, 20_000_000, 1_000_000_000)
    );
    assert_eq!((policy.factor, policy.jitter), (2.0, 0.0));
    assert_eq!(body.len(), 3);
    assert!(matches!(kinds[20], StmtKind::Retry { policy, .. } if policy.name == "DefaultRetry"));
    assert_eq!(b.len(), 21);
    assert_eq!(b[16].text, "sleep 1.5s");
    assert_eq!(s.clients[1].body[0].text, "x = 3");

    let e: Vec<&ExpectKind> = s.expectations.iter().map(|e| &e.kind).collect();
    assert_eq!(*e[0], ExpectKind::NoLostUpdates);
    assert!(
        matches!(e[1], ExpectKind::Field { equal: true, path, value, .. }
        if path.len() == 2 && value.kind == ExprKind::Literal(serde_json::json!("7")))
    );
    assert!(matches!(e[2], ExpectKind::Field { equal: false, .. }));
    assert!(matches!(e[3], ExpectKind::Field { target, .. } if target.namespace == "team-a"));
    assert!(matches!(e[4], ExpectKind::Exists(t) if t.name == "a"));
    assert!(matches!(e[5], ExpectKind::Deleted(t) if t.name == "b"));
    assert_eq!(*e[6], ExpectKind::Succeeds("c1".into()));
    assert_eq!(
        *e[7],
        ExpectKind::FailsWith {
            client: "c2".into(),
            reason: "Conflict".into()
        }
    );
    assert_eq!(*e[8], ExpectKind::AllSucceed);
    assert_eq!(
        s.expectations[2].text,
        r#"configmap/a data["app.properties"] != "x=2""#
    );
    assert_eq!(s.schedule.as_ref().map(|(t, _)| t.as_str()), Some("a3b2a"));
}

#[test]
fn spans_are_one_based_and_count_characters() {
    let src = "title \"é\"\nclient a:\n    x = \"ü\"\n    y = x\n";
    let s = ok(src);
    let st = &s.clients[0].body[1];
    assert_eq!((st.span.line, st.span.col), (4, 5));
    assert_eq!(&src[st.span.start as usize..st.span.end as usize], "y = x");
    let StmtKind::Assign { value, .. } = &s.clients[0].body[0].kind else {
        panic!()
    };
    assert_eq!((value.span.line, value.span.col), (3, 9));
}

#[test]
fn revisions_without_at_count_from_one() {
    // Two objects take revisions 1 and 2, so `at resourceVersion 3` is fine and 2 is not.
    ok("object cm/a\nobject cm/b\nobject cm/c at resourceVersion 3\n");
    let e = errors("object cm/a\nobject cm/b\nobject cm/c at resourceVersion 2\n");
    assert!(
        e.contains("resourceVersion 2 is not larger than the current revision 2"),
        "{e}"
    );
}

#[test]
fn warnings_do_not_block_the_scenario() {
    let p = parse(
        "client a:\n    retry on conflict:\n        sleep 1ms\nexpect a fails with Conflcit\n",
    );
    assert!(p.scenario.is_some());
    assert_eq!(p.diagnostics.len(), 2, "{:?}", p.diagnostics);
    assert!(p.diagnostics.iter().all(|d| !d.is_error()));
}

// ----- diagnostics: snapshots of rendered errors for broken files ----------------------------

/// Renders every diagnostic of a broken file; asserts that it has errors and no scenario.
fn rendered(file: &str, src: &str) -> String {
    let p = parse(src);
    assert!(p.scenario.is_none(), "{file} should not parse");
    assert!(p.has_errors());
    render_all(&p.diagnostics, file, src)
}

macro_rules! error_snapshots {
    ($($name:ident),* $(,)?) => {
        mod error_snapshots {
            use super::rendered;
            $(
                #[test]
                fn $name() {
                    let file = concat!(stringify!($name), ".rvl");
                    let src = include_str!(concat!("lang_errors/", stringify!($name), ".rvl"));
                    insta::assert_snapshot!(stringify!($name), rendered(file, src));
                }
            )*
        }
    };
}

error_snapshots!(
    tab,
    unterminated_string,
    unclosed_bracket,
    unknown_statement,
    bad_reference,
    custom_group,
    bad_name,
    name_labels,
    duplicate_client,
    bad_schedule,
    bad_schedule_shape,
    use_before_assign,
    several_errors,
    indentation,
    literals,
    backoff,
    requests,
    kubectl,
);

#[test]
fn too_many_clients() {
    let mut src = String::new();
    for i in 0..27 {
        src.push_str(&format!("client c{i}:\n    sleep 1ms\n"));
    }
    src.push_str("schedule \"z\"\n");
    insta::assert_snapshot!(rendered("many.rvl", &src));
}

// ----- rendering, highlighting ----------------------------------------------------------------

#[test]
fn render_points_at_the_span_in_characters() {
    let src = "title \"ü\"\nclient a:\n    updat x\n";
    let p = parse(src);
    let d = &p.diagnostics[0];
    assert_eq!((d.span.line, d.span.col), (3, 5));
    let r = d.render("f.rvl", src);
    assert_eq!(
        r,
        "f.rvl:3:5: error: unknown statement `updat`\n  |\n3 |     updat x\n  |     ^^^^^\n  = hint: did you mean `update`?\n"
    );
}

#[test]
fn too_large_text_is_one_error() {
    let src = "# padding\n".repeat(rvlab_core::limits::MAX_SOURCE_BYTES / 10 + 1);
    let p = parse(&src);
    assert!(p.scenario.is_none());
    assert_eq!(p.diagnostics.len(), 1);
    assert!(
        p.diagnostics[0].message.contains("too large"),
        "{:?}",
        p.diagnostics
    );
}

#[test]
fn highlight_classifies_tokens() {
    use rvlab_core::lang::{highlight, TokenClass as C};
    let src =
        "client a:  # hi\n    obj = get cm/x in ns\n    obj.data.key = \"v\" + 1\n    sleep 10ms\n";
    let got: Vec<(&str, C)> = highlight(src)
        .into_iter()
        .map(|(s, c)| (&src[s.start as usize..s.end as usize], c))
        .collect();
    let want = [
        ("client", C::Keyword),
        ("a", C::Identifier),
        (":", C::Punctuation),
        ("# hi", C::Comment),
        ("obj", C::Identifier),
        ("=", C::Punctuation),
        ("get", C::Keyword),
        ("cm/x", C::Reference),
        ("in", C::Keyword),
        ("ns", C::Reference),
        ("obj", C::Identifier),
        (".", C::Punctuation),
        ("data", C::Identifier),
        (".", C::Punctuation),
        ("key", C::Identifier),
        ("=", C::Punctuation),
        ("\"v\"", C::String),
        ("+", C::Punctuation),
        ("1", C::Number),
        ("sleep", C::Keyword),
        ("10ms", C::Duration),
    ];
    assert_eq!(got, want);
    // Broken text is still highlighted up to and after the problem.
    let broken = highlight("x = \"open\ny = 1");
    assert!(broken.iter().any(|(_, c)| *c == C::String));
    assert!(broken.iter().any(|(_, c)| *c == C::Number));
}

// ----- properties: never panic, consistent spans ------------------------------------------------

mod props {
    use super::{ALL_STATEMENTS, SEED};
    use proptest::prelude::*;
    use rvlab_core::lang::ast::Span;
    use rvlab_core::lang::{highlight, parse};

    /// The line and column of byte `pos`, counted independently of the parser.
    fn line_col(src: &str, pos: usize) -> (u32, u32) {
        let before = &src[..pos];
        let line = before.matches('\n').count() as u32 + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[start..].chars().count() as u32 + 1)
    }

    fn check_span(src: &str, s: Span) {
        let (a, b) = (s.start as usize, s.end as usize);
        assert!(a <= b && b <= src.len(), "span {s:?} out of {}", src.len());
        assert!(
            src.is_char_boundary(a) && src.is_char_boundary(b),
            "span {s:?} splits a char"
        );
        assert_eq!(line_col(src, a), (s.line, s.col), "span {s:?}");
    }

    fn check_all(src: &str) {
        let p = parse(src);
        assert_eq!(p.scenario.is_some(), !p.has_errors());
        assert_eq!(p, parse(src), "parsing is deterministic");
        for d in &p.diagnostics {
            check_span(src, d.span);
            let r = d.render("p.rvl", src);
            assert!(r.starts_with(&format!("p.rvl:{}:{}: ", d.span.line, d.span.col)));
        }
        let h = highlight(src);
        for w in h.windows(2) {
            assert!(w[0].0.end <= w[1].0.start, "overlap {:?}", w);
        }
        for (s, _) in h {
            check_span(src, s);
        }
    }

    const SNIPPETS: &[&str] = &[
        "\t",
        " ",
        "    ",
        "\n",
        ":",
        "=",
        "==",
        "\"",
        "\"\"\"",
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "#",
        "/",
        ".",
        ",",
        "-",
        "+",
        "retry on conflict:",
        "client x:",
        "update obj",
        "get",
        "configmap/",
        "in",
        "10ms",
        "1e999",
        "\\u",
        "é",
        "\r\n",
        "schedule \"zz\"",
        "kubectl ",
        "kubectl get cm x -o yaml > f",
        "kubectl edit cm x:",
        "'",
        " -o jsonpath='{.a}'",
        " --type ",
        " > ",
        "file \"f\":",
        "file \"f\" = ",
        "expect a prints \"x\"",
        " exits ",
        "\\",
        "$",
    ];

    fn mutate(base: &str, edits: &[(usize, u8, usize)]) -> String {
        let mut s = base.to_string();
        for &(at, op, k) in edits {
            let mut pos = at % (s.len() + 1);
            while !s.is_char_boundary(pos) {
                pos -= 1;
            }
            match op {
                0 => s.insert_str(pos, SNIPPETS[k % SNIPPETS.len()]),
                1 => {
                    let mut end = (pos + 1 + k % 6).min(s.len());
                    while !s.is_char_boundary(end) {
                        end -= 1;
                    }
                    s.replace_range(pos..end, "");
                }
                2 => {
                    let ls = s[..pos].rfind('\n').map_or(0, |i| i + 1);
                    let le = s[pos..].find('\n').map_or(s.len(), |i| pos + i + 1);
                    s.replace_range(ls..le, "");
                }
                _ => {
                    let ls = s[..pos].rfind('\n').map_or(0, |i| i + 1);
                    let le = s[pos..].find('\n').map_or(s.len(), |i| pos + i + 1);
                    let line = s[ls..le].to_string();
                    s.insert_str(ls, &line);
                }
            }
        }
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(192))]

        #[test]
        fn never_panics_on_arbitrary_text(src in any::<String>()) {
            check_all(&src);
        }

        #[test]
        fn never_panics_on_language_like_text(
            src in proptest::collection::vec(proptest::sample::select(SNIPPETS.to_vec()), 0..60)
        ) {
            check_all(&src.concat());
        }

        #[test]
        fn never_panics_on_edited_scenarios(
            which in 0usize..3,
            edits in proptest::collection::vec((any::<usize>(), 0u8..4, any::<usize>()), 1..8),
        ) {
            let base = [SEED, ALL_STATEMENTS, super::KUBECTL_SEED][which];
            check_all(&mutate(base, &edits));
        }
    }

    #[test]
    fn deep_nesting_is_bounded() {
        check_all(&format!(
            "client a:\n    x = {}1{}\n",
            "[".repeat(20_000),
            "]".repeat(20_000)
        ));
        check_all(&format!("client a:\n    x = {}\n", "(".repeat(30_000)));
        let mut deep = String::new();
        for i in 0..300 {
            deep.push_str(&" ".repeat(i));
            deep.push_str("retry on conflict:\n");
        }
        check_all(&deep);
        check_all(&"- ".repeat(20_000));
    }
}

/// Every example of the user reference that is a whole scenario (it starts with a top-level
/// statement) parses without diagnostics, so the reference stays true to the parser.
#[test]
fn reference_examples_parse() {
    let doc = include_str!("../../../../docs/scenario-language.md");
    let mut checked = 0;
    for block in doc.split("```").skip(1).step_by(2) {
        let Some(body) = block.strip_prefix("rvl\n") else {
            continue;
        };
        let first = body.split_whitespace().next().unwrap_or("");
        if !["title", "object", "client"].contains(&first) {
            continue;
        }
        let p = parse(body);
        assert!(
            p.diagnostics.is_empty(),
            "example does not parse cleanly:\n{body}\n{}",
            render_all(&p.diagnostics, "doc.rvl", body)
        );
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} examples found");
}

#[test]
fn an_object_header_before_fields_needs_its_colon() {
    let e = errors(
        "object cm/a\n    data.x = \"1\"\nobject cm/b at resourceVersion 5\n    data.x = 1\n",
    );
    assert_eq!(
        e.matches("missing `:` at the end of the block header")
            .count(),
        2,
        "{e}"
    );
    let s =
        ok("object cm/a:\n    data.x = \"1\"\nobject cm/b at resourceVersion 5:\n    data.x = 1\n");
    assert!(s
        .objects
        .iter()
        .all(|o| matches!(&o.body, SetupBody::Fields(f) if f.len() == 1)));
}

#[test]
fn multi_line_literals() {
    let s = ok(concat!(
        "object cm/a = {\n",
        "data: {\n",
        "    k: \"v\",\n",
        "},\n",
        "}\n",
        "client a:\n",
        "    body = {\n",
        "    \"data\": {\"k\": [1,\n",
        "  2]}\n",
        "    }\n",
        "    create cm/b body\n",
    ));
    let StmtKind::Assign { value, .. } = &s.clients[0].body[0].kind else {
        panic!()
    };
    assert_eq!((value.span.line, value.span.col), (7, 12));
    assert_eq!(
        s.clients[0].body[0].text,
        "body = {\n    \"data\": {\"k\": [1,\n  2]}\n    }"
    );
    assert_eq!(s.clients[0].body[1].span.line, 11);
}

#[test]
fn statements_per_client_are_limited() {
    use rvlab_core::limits::MAX_STATEMENTS_PER_CLIENT;
    let body = |n: usize| "    sleep 1ms\n".repeat(n);
    ok(&format!("client a:\n{}", body(MAX_STATEMENTS_PER_CLIENT)));
    // Statements inside `retry` count too.
    let src = format!(
        "client a:\n{}    retry on conflict:\n        obj = get cm/a\n",
        body(MAX_STATEMENTS_PER_CLIENT - 1)
    );
    let p = parse(&src);
    let errors: Vec<_> = p.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{:?}", p.diagnostics);
    assert!(errors[0].message.starts_with("too many statements"));
    assert_eq!(errors[0].span.line as usize, MAX_STATEMENTS_PER_CLIENT + 2);
}

#[test]
fn blocks_nest_at_most_eight_deep() {
    let mut src = String::from("client a:\n");
    for depth in 1..=9 {
        src.push_str(&format!("{}retry on conflict:\n", "  ".repeat(depth)));
    }
    src.push_str(&format!("{}obj = get cm/a\n", "  ".repeat(10)));
    let e = errors(&src);
    assert!(
        e.contains("blocks are nested too deeply (the limit is 8)"),
        "{e}"
    );
    assert!(e.contains("`retry` blocks cannot be nested"), "{e}");
}

/// A file's `schedule` line and the command line's (and the page's) tokens are read by one
/// grammar: a token is accepted in a file exactly when `parse_token` accepts it.
fn schedule_line_agrees(token: &str) -> Result<(), String> {
    let src = format!(
        "client a:\n    sleep 1ms\nclient b:\n    sleep 1ms\nclient c:\n    sleep 1ms\nschedule \"{token}\"\n"
    );
    let parsed = parse(&src);
    let file_ok = !parsed.has_errors();
    let cli = rvlab_core::schedule::parse_token(token, 3);
    if file_ok == cli.is_ok() {
        Ok(())
    } else {
        Err(format!(
            "{token:?}: file {:?}, parse_token {cli:?}",
            parsed.diagnostics
        ))
    }
}

#[test]
fn schedule_tokens_have_one_grammar() {
    for token in [
        "",
        "abc",
        "a3b2c",
        "a10000",
        "a10001",
        "a0",
        "3a",
        "ab a",
        " a",
        "a ",
        "a\\tb",
        "d",
        "aé",
        "a5000b5000",
        "a5000b5001",
        "A",
        "a-b",
    ] {
        schedule_line_agrees(token).unwrap();
    }
    let e = errors("client a:\n    sleep 1ms\nschedule \"a a\"\n");
    assert!(
        e.contains("invalid schedule token: ` ` is not a client letter"),
        "{e}"
    );
}

proptest::proptest! {
    #[test]
    fn schedule_line_and_token_agree(token in "[a-d0-9 x]{0,10}|[ab]{1,2}[0-9]{3,6}[ab][0-9]{3,6}") {
        proptest::prop_assert!(schedule_line_agrees(&token).is_ok(), "{:?}", schedule_line_agrees(&token));
    }
}

#[test]
fn the_status_suffix_addresses_a_deployments_status_subresource() {
    let s = ok(r#"
object deployment/web
client a:
    d = get deployment/web in team-a status
    d.status.replicas = 1
    update d status
    patch deployment/web status merge {status: {replicas: 2}}
    apply deployment/web status {status: {replicas: 3}} as ctrl force
    status = {status: {}}
    apply deployment/web status as ctrl
    get2 = get deployment/web
"#);
    let kinds: Vec<&StmtKind> = s.clients[0].body.iter().map(|s| &s.kind).collect();
    assert!(
        matches!(kinds[0], StmtKind::Get { status: true, target, .. } if target.namespace == "team-a")
    );
    assert!(matches!(kinds[2], StmtKind::Update { var, status: true } if var == "d"));
    assert!(matches!(
        kinds[3],
        StmtKind::Patch {
            status: true,
            patch_type: PatchType::Merge,
            ..
        }
    ));
    assert!(matches!(
        kinds[4],
        StmtKind::Apply {
            status: true,
            force: true,
            ..
        }
    ));
    // `status` right before `as` is the applied body (a variable), not the suffix.
    assert!(
        matches!(kinds[6], StmtKind::Apply { status: false, body, .. }
        if matches!(&body.kind, ExprKind::Var { name, .. } if name == "status"))
    );
    assert!(matches!(kinds[7], StmtKind::Get { status: false, .. }));
    // Only Deployments have the subresource.
    let e = errors("client a:\n    patch configmap/c status merge {}\n");
    assert!(e.contains("`configmap` has no status subresource"), "{e}");
    // An undefined variable before `status` is pointed at exactly.
    let e = errors("client a:\n    update d status\n");
    assert!(
        e.contains("2 |     update d status\n  |            ^"),
        "{e}"
    );
    // Highlighting: the suffix is a keyword, a path's `status` is not.
    use rvlab_core::lang::{highlight, TokenClass as C};
    let src =
        "client a:\n    update d status\n    d.status.x = 1\n    patch deploy/w status merge {}\n";
    let classes: Vec<(&str, C)> = highlight(src)
        .into_iter()
        .map(|(s, c)| (&src[s.start as usize..s.end as usize], c))
        .filter(|(t, _)| *t == "status")
        .collect();
    assert_eq!(
        classes,
        [
            ("status", C::Keyword),
            ("status", C::Identifier),
            ("status", C::Keyword)
        ]
    );
}

#[test]
fn contains_expectations_parse_and_contains_stays_a_name() {
    let s = ok(r#"
object configmap/a
client contains:
    contains = get configmap/a
    contains.data.contains = "x"
    update contains
expect configmap/a metadata.finalizers contains "example.com/audit"
expect configmap/a status.conditions contains {type: "Ready", status: "True"}
expect configmap/a data.contains == "x"
expect contains succeeds
"#);
    let e: Vec<&ExpectKind> = s.expectations.iter().map(|e| &e.kind).collect();
    assert!(matches!(e[0], ExpectKind::Contains { target, path, value }
        if target.name == "a"
            && *path == vec![PathSeg::Key("metadata".into()), PathSeg::Key("finalizers".into())]
            && value.kind == ExprKind::Literal(serde_json::json!("example.com/audit"))));
    assert!(
        matches!(e[1], ExpectKind::Contains { value, .. } if matches!(&value.kind, ExprKind::Object(f) if f.len() == 2))
    );
    assert!(matches!(e[2], ExpectKind::Field { equal: true, .. }));
    assert_eq!(*e[3], ExpectKind::Succeeds("contains".into()));
    assert_eq!(
        s.expectations[1].text,
        r#"configmap/a status.conditions contains {type: "Ready", status: "True"}"#
    );
}

#[test]
fn contains_without_a_value_is_a_clear_error() {
    let src = "object configmap/a\nclient c:\n    x = get configmap/a\nexpect configmap/a metadata.finalizers contains\n";
    let p = parse(src);
    assert!(p.scenario.is_none());
    let d = &p.diagnostics[0];
    assert_eq!(d.message, "`contains` needs a value");
    assert_eq!(d.span.line, 4);
    let r = errors(src);
    assert!(r.contains("write `expect REF PATH contains VALUE`"), "{r}");
    // A variable is not a literal; a missing operator names `contains` among the choices.
    let r = errors("object configmap/a\nclient c:\n    x = get configmap/a\nexpect configmap/a data.k contains x\n");
    assert!(
        r.contains("expected values must be literal values; `x` is a variable"),
        "{r}"
    );
    let r = errors("object configmap/a\nclient c:\n    x = get configmap/a\nexpect configmap/a data.k has \"v\"\n");
    assert!(r.contains("expected `==`, `!=` or `contains`"), "{r}");
}

#[test]
fn contains_is_highlighted_as_a_keyword_but_not_after_a_dot() {
    use rvlab_core::lang::{highlight, TokenClass as C};
    let src = "expect cm/a data.contains contains \"v\"\n";
    let got: Vec<(&str, C)> = highlight(src)
        .into_iter()
        .map(|(s, c)| (&src[s.start as usize..s.end as usize], c))
        .collect();
    assert!(got.contains(&("contains", C::Identifier)), "{got:?}");
    assert_eq!(
        got.iter()
            .filter(|&&(t, c)| t == "contains" && c == C::Keyword)
            .count(),
        1,
        "{got:?}"
    );
}

/// The seed's flow in kubectl (issue #14).
const KUBECTL_SEED: &str = r#"title "Two kubectl users, one stale file"

object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    kubectl get configmap my-config -o jsonpath='{.metadata.resourceVersion}'
    kubectl get configmap my-config -o yaml > my-config.yaml
    file "my-config.yaml":
        data.key = "from-alice"
    kubectl apply --server-side -f my-config.yaml   # a comment

client bob:
    kubectl get cm my-config -o yaml > my-config.yaml
    file "my-config.yaml":
        data.key = "from-bob"
    kubectl apply --server-side -f my-config.yaml

schedule "abaabb"
expect bob fails with Conflict
expect bob exits 1
expect bob prints "error: Operation cannot be fulfilled on configmaps \"my-config\""
"#;

#[test]
fn kubectl_statements_parse() {
    use rvlab_core::kubectl::{OutputFormat, Verb};
    let s = ok(KUBECTL_SEED);
    let alice = &s.clients[0].body;
    let StmtKind::Kubectl { cmd, edits } = &alice[0].kind else {
        panic!("{:?}", alice[0]);
    };
    assert!(edits.is_empty());
    assert_eq!(
        cmd.line,
        "get configmap my-config -o jsonpath='{.metadata.resourceVersion}'"
    );
    assert_eq!(
        cmd.verb,
        Verb::Get {
            resource: Resource::ConfigMap,
            name: Some("my-config".into()),
            output: OutputFormat::JsonPath("{.metadata.resourceVersion}".into())
        }
    );
    assert_eq!(
        alice[0].text,
        "kubectl get configmap my-config -o jsonpath='{.metadata.resourceVersion}'"
    );
    let StmtKind::Kubectl { cmd, .. } = &alice[1].kind else {
        panic!()
    };
    assert_eq!(cmd.redirect.as_deref(), Some("my-config.yaml"));
    let StmtKind::File {
        name,
        body: SetupBody::Fields(f),
    } = &alice[2].kind
    else {
        panic!("{:?}", alice[2]);
    };
    assert_eq!(name, "my-config.yaml");
    assert_eq!(
        f[0].0,
        vec![PathSeg::Key("data".into()), PathSeg::Key("key".into())]
    );
    let StmtKind::Kubectl { cmd, .. } = &alice[3].kind else {
        panic!()
    };
    assert_eq!(
        cmd.line, "apply --server-side -f my-config.yaml",
        "the comment is not part of the line"
    );
    assert_eq!(alice[3].span.line, 11);
    assert_eq!(
        s.expectations[1].kind,
        ExpectKind::Exits {
            client: "bob".into(),
            code: 1
        }
    );
    assert_eq!(
        s.expectations[2].kind,
        ExpectKind::Prints {
            client: "bob".into(),
            text: "error: Operation cannot be fulfilled on configmaps \"my-config\"".into()
        }
    );
}

#[test]
fn kubectl_edit_blocks_files_and_setup_files() {
    use rvlab_core::kubectl::Verb;
    let s = ok(r#"object configmap/my-config:
    data.color = "red"

file "cm.yaml" = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "my-config"}, "data": {"color": "blue"}}
file "other.yaml":
    apiVersion = "v1"
    kind = "ConfigMap"

client alice:
    c = "teal"
    kubectl edit cm my-config:
        data.color = c
        metadata.labels["app.kubernetes.io/name"] = "web"
    kubectl edit cm my-config
    kubectl apply -f cm.yaml
    file "new.yaml" = {"data": {"k": c}}
    kubectl create -f new.yaml
    retry on conflict:
        kubectl replace -f other.yaml
    kubectl = 1
    file = kubectl + 1
    kubectl.x = 2
"#);
    assert_eq!(s.files.len(), 2);
    assert_eq!(s.files[0].name, "cm.yaml");
    assert!(matches!(s.files[0].body, SetupBody::Literal(_)));
    assert!(matches!(&s.files[1].body, SetupBody::Fields(f) if f.len() == 2));
    let body = &s.clients[0].body;
    let StmtKind::Kubectl { cmd, edits } = &body[1].kind else {
        panic!("{:?}", body[1])
    };
    assert!(matches!(cmd.verb, Verb::Edit { .. }));
    assert_eq!(cmd.line, "edit cm my-config");
    assert_eq!(edits.len(), 2);
    assert_eq!(body[1].text, "kubectl edit cm my-config:");
    assert!(matches!(&body[2].kind, StmtKind::Kubectl { edits, .. } if edits.is_empty()));
    assert!(
        matches!(&body[4].kind, StmtKind::File { name, body: SetupBody::Literal(_) } if name == "new.yaml")
    );
    assert!(
        matches!(&body[6].kind, StmtKind::Retry { body, .. } if matches!(body[0].kind, StmtKind::Kubectl { .. }))
    );
    assert!(matches!(&body[7].kind, StmtKind::Assign { var, .. } if var == "kubectl"));
    assert!(matches!(&body[8].kind, StmtKind::Assign { var, .. } if var == "file"));
    assert!(matches!(&body[9].kind, StmtKind::Assign { var, .. } if var == "kubectl"));
}

#[test]
fn kubectl_errors_are_kubectls_words_at_the_word() {
    let src = "client a:\n    kubectl get cm --foo\n";
    let e = errors(src);
    assert!(
        e.starts_with("t.rvl:2:20: error: unknown flag: --foo\n"),
        "{e}"
    );
    assert!(e.contains("See 'kubectl get --help' for usage."), "{e}");
    let e = errors("client a:\n    kubectl get foo x\n");
    assert!(
        e.starts_with("t.rvl:2:17: error: the server doesn't have a resource type \"foo\"\n"),
        "{e}"
    );
    let e = errors("client a:\n    kubectl patch cm x -p 'data: {a: b}'\n");
    assert!(
        e.starts_with("t.rvl:2:27: error: rvlab reads a -p patch as JSON only"),
        "{e}"
    );
    let e = errors("client a:\n    kubectl patch cm x --type foo -p '{}'\n");
    assert!(
        e.starts_with(
            "t.rvl:2:31: error: --type must be one of [json merge strategic], not \"foo\""
        ),
        "{e}"
    );
    let e = errors("client a:\n    kubectl label cm x team\n");
    assert!(
        e.contains("error: at least one label update is required"),
        "{e}"
    );
    let e = errors("client a:\n    kubectl frobnicate\n");
    assert!(
        e.contains("error: unknown command \"frobnicate\" for \"kubectl\""),
        "{e}"
    );
    let e = errors("kubectl get cm\n");
    assert!(e.contains("unknown top-level statement `kubectl`"), "{e}");
    // The statements after a broken one are still checked.
    let e = errors("client a:\n    kubectl get cm --foo\n    kubectl get bar\n");
    assert!(e.contains("2:20") && e.contains("3:17"), "{e}");
}

#[test]
fn a_file_never_written_is_kubectls_path_error() {
    let e = errors("client a:\n    kubectl apply -f my-config.yaml\n");
    assert!(
        e.starts_with("t.rvl:2:22: error: the path \"my-config.yaml\" does not exist\n"),
        "{e}"
    );
    let e = errors(
        "client a:\n    kubectl replace --filename=x.yaml\n    kubectl get cm x -o yaml > x.yaml\n",
    );
    assert!(
        e.starts_with("t.rvl:2:32: error: the path \"x.yaml\" does not exist"),
        "{e}"
    );
    // Each client has its own files.
    let e = errors("client a:\n    kubectl get cm x -o yaml > x.yaml\nclient b:\n    kubectl apply -f x.yaml\n");
    assert!(e.contains("4:22"), "{e}");
    // Written before, by `>`, by `file`, or at the top level: fine, also inside `retry`.
    ok("file \"t.yaml\" = {}\nclient a:\n    kubectl get cm x -o yaml > x.yaml\n    kubectl apply -f x.yaml\n    file \"y\" = {}\n    retry on conflict:\n        kubectl replace -f y\n        kubectl create -f t.yaml\n");
}

#[test]
fn kubectl_block_errors() {
    let e = errors("client a:\n    kubectl get cm x\n        data.a = 1\n");
    assert!(e.contains("unexpected indentation"), "{e}");
    let e = errors("client a:\n    kubectl edit cm x:\n    kubectl get cm x\n");
    assert!(e.contains("needs the edit as an indented block"), "{e}");
    let e = errors("client a:\n    obj = get configmap/x\nexpect a exits 256\n");
    assert!(
        e.contains("`exits` needs an exit status from 0 to 255"),
        "{e}"
    );
    let e = errors("file \"a\" = {}\nfile \"a\" = {}\nclient a:\n    sleep 1s\n");
    assert!(e.contains("file \"a\" is declared twice"), "{e}");
    let e = errors("file \"a\" = {\"k\": x}\nclient a:\n    sleep 1s\n");
    assert!(e.contains("setup files must be literal values"), "{e}");
    let e = errors("client a:\n    kubectl edit cm x:\n        data.a = y\n");
    assert!(e.contains("`y` is used before it is assigned"), "{e}");
}

#[test]
fn kubectl_lines_are_highlighted() {
    use rvlab_core::lang::{highlight, TokenClass as C};
    let src = "client a:\n    kubectl get cm my-config -o jsonpath='{.a}' > f # c\n";
    let h = highlight(src);
    let class_of = |word: &str| {
        let at = src.find(word).unwrap() as u32;
        h.iter()
            .find(|(s, _)| s.start == at)
            .map(|(s, c)| (&src[s.start as usize..s.end as usize], *c))
    };
    assert_eq!(class_of("kubectl"), Some(("kubectl", C::Keyword)));
    assert_eq!(class_of("get"), Some(("get", C::Keyword)));
    assert_eq!(class_of("cm"), Some(("cm", C::Reference)));
    assert_eq!(class_of("my-config"), Some(("my-config", C::Reference)));
    assert_eq!(class_of("-o"), Some(("-o", C::Keyword)));
    assert_eq!(class_of("jsonpath"), Some(("jsonpath='{.a}'", C::String)));
    assert_eq!(class_of(">"), Some((">", C::Punctuation)));
    assert_eq!(class_of("f #"), Some(("f", C::String)));
    assert_eq!(class_of("# c"), Some(("# c", C::Comment)));
    let src = "client a:\n    file \"f\" = {}\n    file = 1\n";
    let h = highlight(src);
    assert_eq!(
        h.iter()
            .find(|(s, _)| s.line == 2 && s.col == 5)
            .map(|x| x.1),
        Some(C::Keyword)
    );
    assert_eq!(
        h.iter()
            .find(|(s, _)| s.line == 3 && s.col == 5)
            .map(|x| x.1),
        Some(C::Identifier)
    );
}
