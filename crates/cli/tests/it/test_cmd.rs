//! `rvlab test -- COMMAND` as CI runs it: a real server on loopback, real processes (sh and
//! curl) writing to it, the report on standard error and `--report` JSON, the exit codes.

use crate::support::{stderr, temp_dir};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const SETUP: &str = "object configmap/c at resourceVersion 100:\n    data.key = \"initial\"\n";

fn rvlab_test(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rvlab"))
        .arg("test")
        .args(args)
        .output()
        .expect("run rvlab test")
}

fn setup_file(name: &str) -> (std::path::PathBuf, String) {
    let dir = temp_dir(name);
    let f = dir.join("setup.rvl");
    std::fs::write(&f, SETUP).expect("write setup");
    (dir, f.display().to_string())
}

/// The configmap's URL inside a script.
const CM: &str = "\"$RVLAB_SERVER/api/v1/namespaces/default/configmaps/c\"";

fn merge(agent: &str, value: &str) -> String {
    format!("curl -sf -A {agent} -X PATCH -H 'Content-Type: application/merge-patch+json' -d '{{\"data\":{{\"key\":\"{value}\"}}}}' {CM} >/dev/null\n")
}

fn put(agent: &str, rv: &str) -> String {
    format!("curl -s -A {agent} -X PUT -H 'Content-Type: application/json' -d '{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"c\",\"resourceVersion\":\"{rv}\"}},\"data\":{{\"key\":\"{agent}\"}}}}' {CM} >/dev/null\n")
}

fn get(agent: &str) -> String {
    format!("curl -sf -A {agent} {CM} >/dev/null\n")
}

#[test]
fn a_command_that_succeeds_without_lost_updates_passes() {
    let (_dir, f) = setup_file("test-pass");
    let script = format!(
        "set -e\ntest -f \"$KUBECONFIG\"\ngrep -q \"server: $RVLAB_SERVER\" \"$KUBECONFIG\"\ntest -n \"$KUBECACHEDIR\"\n{}{}echo hello from the command",
        get("alice"),
        merge("alice", "from-alice")
    );
    let o = rvlab_test(&[&f, "--", "sh", "-c", &script]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "hello from the command\n"
    );
    assert!(err.contains("`sh -c "), "{err}");
    assert!(err.contains("exited with 0"), "{err}");
    assert!(err.contains("the server answered 2 requests"), "{err}");
    assert!(
        err.contains("client alice: 2 requests, 1 writes, 0 conflicts (409)"),
        "{err}"
    );
    assert!(err.contains("no lost updates\nPASSED\n"), "{err}");
}

#[test]
fn a_failing_command_gives_its_exit_code() {
    let o = rvlab_test(&["--", "sh", "-c", "exit 3"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("exited with 3"), "{err}");
    assert!(err.contains("FAILED: the command exited with 3\n"), "{err}");
}

#[test]
fn a_lost_update_fails_the_test_and_is_named_in_text_and_json() {
    let (dir, f) = setup_file("test-lost");
    let report = dir.join("report.json");
    // alice and bob read revision 100; alice writes; bob merge-patches over her change unread.
    let script = format!(
        "set -e\n{}{}{}{}",
        get("alice"),
        get("bob"),
        merge("alice", "from-alice"),
        merge("bob", "from-bob")
    );
    let o = rvlab_test(&[
        "--report",
        report.to_str().unwrap(),
        &f,
        "--",
        "sh",
        "-c",
        &script,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("LOST UPDATE on configmap/c data.key: bob (step 3, revision 102; it had read revision 100) wrote \"from-bob\" over \"from-alice\", written by alice at revision 101\n"),
        "{err}"
    );
    assert!(err.contains("FAILED: 1 lost update\n"), "{err}");
    let text = std::fs::read_to_string(&report).expect("report written");
    let j: serde_json::Value = serde_json::from_str(&text).expect("JSON report");
    let keys: Vec<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "version",
            "passed",
            "exit_code",
            "failures",
            "command",
            "interfere",
            "stale_reads",
            "steps",
            "dropped",
            "clients",
            "retries",
            "lost_updates",
            "injections",
            "stale_answers"
        ]
    );
    assert_eq!(j["version"], 1);
    assert_eq!(j["passed"], false);
    assert_eq!(j["exit_code"], 1);
    assert_eq!(j["failures"], serde_json::json!(["1 lost update"]));
    assert_eq!(j["command"]["argv"][0], "sh");
    assert_eq!(j["command"]["ended"], "exited");
    assert_eq!(j["command"]["code"], 0);
    assert_eq!(j["command"]["signal"], serde_json::Value::Null);
    assert_eq!(j["command"]["timeout_ms"], 300_000);
    assert!(j["command"]["duration_ms"].as_u64().unwrap() < 60_000);
    assert_eq!(j["interfere"], serde_json::Value::Null);
    assert_eq!(j["steps"], 4);
    assert_eq!(j["dropped"], 0);
    assert_eq!(
        j["clients"],
        serde_json::json!([
            {"name": "alice", "requests": 2, "writes": 1, "conflicts": 0, "retries_reread": 0, "retries_stale": 0, "not_retried": 0},
            {"name": "bob", "requests": 2, "writes": 1, "conflicts": 0, "retries_reread": 0, "retries_stale": 0, "not_retried": 0}
        ])
    );
    assert_eq!(j["retries"], serde_json::json!([]));
    assert_eq!(
        j["lost_updates"],
        serde_json::json!([{
            "step": 3, "object": "configmap/c", "path": "data.key",
            "value_lost": "from-alice", "value_written": "from-bob",
            "writer": "bob", "overwritten_writer": "alice",
            "overwritten_revision": 101, "base_revision": 100, "revision": 102
        }])
    );
    assert_eq!(j["injections"], serde_json::json!([]));
    assert_eq!(j["stale_reads"], serde_json::Value::Null);
    assert_eq!(j["stale_answers"], serde_json::json!([]));
}

#[test]
fn retries_after_a_409_with_a_reread_and_with_a_stale_body_are_counted_apart() {
    let (dir, f) = setup_file("test-retries");
    let report = dir.join("r.json");
    let script = format!(
        "set -e\n{}{}{}{}{}{}{}",
        get("alice"),
        merge("alice", "from-alice"), // revision 101
        put("stale", "100"),          // 409
        put("stale", "100"),          // 409 again: resent the stale body
        put("good", "100"),           // 409
        get("good"),                  // re-read: 101
        put("good", "101"),           // 200
    );
    let o = rvlab_test(&[
        "--report",
        report.to_str().unwrap(),
        &f,
        "--",
        "sh",
        "-c",
        &script,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("client stale: 2 requests, 2 writes, 2 conflicts (409); after a 409: 0 re-read and retried, 1 resent a stale body, 1 not retried"), "{err}");
    assert!(err.contains("client good: 3 requests, 2 writes, 1 conflicts (409); after a 409: 1 re-read and retried, 0 resent a stale body, 0 not retried"), "{err}");
    assert!(err.contains("stale retry: stale got 409 at step 2 on /api/v1/namespaces/default/configmaps/c and resent at step 3 without re-reading it (resourceVersion 100), answered 409"), "{err}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        j["retries"],
        serde_json::json!([
            {"client": "stale", "object": "/api/v1/namespaces/default/configmaps/c", "conflict_step": 2, "retry_step": 3,
             "kind": "stale", "rejected_resource_version": "100", "resource_version": "100", "code": 409},
            {"client": "good", "object": "/api/v1/namespaces/default/configmaps/c", "conflict_step": 4, "retry_step": 6,
             "kind": "re-read", "rejected_resource_version": "100", "resource_version": "101", "code": 200}
        ])
    );
    assert_eq!(j["passed"], true);
}

#[test]
fn a_command_past_its_timeout_is_killed_with_its_group() {
    let start = Instant::now();
    // The shell's child `sleep` is in the same group: both go.
    let o = rvlab_test(&[
        "--timeout",
        "1s",
        "--",
        "sh",
        "-c",
        "sleep 10; echo not killed",
    ]);
    let took = start.elapsed();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(124), "{err}");
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("not killed"));
    assert!(
        err.contains("timed out after 1.00s and was killed"),
        "{err}"
    );
    assert!(
        err.contains("FAILED: the command timed out after 1.00s and was killed"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2_with_clear_messages() {
    let cases: [(&[&str], &str); 9] = [
        (&["sh"], "rvlab test needs `--` before the command"),
        (&["--"], "no COMMAND after `--`"),
        (
            &["--timeout", "5x", "--", "true"],
            "--timeout: `5x` is not a duration",
        ),
        (&["--timeout", "0s", "--", "true"], "is zero"),
        (
            &["--interfere", "sometimes", "--", "true"],
            "unknown interference policy `sometimes`",
        ),
        (
            &["--seed", "1", "--", "true"],
            "--seed needs --interfere POLICY",
        ),
        (
            &["--stale-reads", "17", "--", "true"],
            "--stale-reads takes a whole number of writes from 0 (off) to 16, not `17`",
        ),
        (
            &["--max-injections", "2", "--", "true"],
            "--max-injections needs --interfere POLICY",
        ),
        (
            &["--interfere", "scenario", "--", "true"],
            "--interfere scenario needs a FILE",
        ),
    ];
    for (args, want) in cases {
        let o = rvlab_test(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn a_command_that_does_not_exist_is_a_clear_error() {
    let o = rvlab_test(&["--", "rvlab-no-such-command-xyz"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(127), "{err}");
    assert!(
        err.contains("error: the command `rvlab-no-such-command-xyz` not found"),
        "{err}"
    );
}

/// The Python client's venv (`kubernetes==37.0.2`, installed by `cargo xtask test`'s install
/// stage), or `RVLAB_PYTHON`. Missing is a failure, not a skip.
fn python() -> String {
    std::env::var("RVLAB_PYTHON").unwrap_or_else(|_| {
        let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.tools/venv/bin/python");
        assert!(
            std::path::Path::new(p).exists(),
            "no Python client venv at {p}: run `cargo xtask install` or set RVLAB_PYTHON"
        );
        p.to_string()
    })
}

/// The seed's loop: read, modify, replace inside a loop that re-reads on 409 (at most 10
/// attempts, so that a broken run ends).
const SEED_LOOP: &str = r#"from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config()
v1 = client.CoreV1Api()
for attempt in range(10):
    cm = v1.read_namespaced_config_map("my-config", "default")
    cm.data["key"] = "from-bob"
    try:
        v1.replace_namespaced_config_map("my-config", "default", cm)
        print("done")
        break
    except ApiException as e:
        if e.status != 409:
            raise
        print("conflict, retrying")
else:
    raise SystemExit("gave up")
"#;

/// Issue #15's proof with real code: under `read-write` the seed's loop passes (it re-reads);
/// the same loop with the read moved out of it fails, and the report says it resent a stale
/// body.
#[test]
fn the_seed_loop_passes_under_read_write_and_fails_with_its_read_outside_the_loop() {
    let dir = temp_dir("test-python");
    let good = dir.join("good.py");
    std::fs::write(&good, SEED_LOOP).expect("write");
    let report = dir.join("good.json");
    let args = |script: &std::path::Path, report: &std::path::Path| {
        let py = python();
        let o = rvlab_test(&[
            "--interfere",
            "read-write",
            "--report",
            report.to_str().unwrap(),
            "lesson:stale-update",
            "--",
            &py,
            script.to_str().unwrap(),
        ]);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report).expect("a report"))
                .expect("JSON");
        (o, json)
    };
    let (o, json) = args(&good, &report);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "conflict, retrying\nconflict, retrying\nconflict, retrying\ndone\n"
    );
    let err = stderr(&o);
    assert!(
        err.contains("no lost updates") && err.ends_with("PASSED\n"),
        "{err}"
    );
    assert_eq!(json["passed"], true);
    assert_eq!(
        json["injections"].as_array().map(Vec::len),
        Some(3),
        "{json}"
    );
    let py = &json["clients"][0];
    assert_eq!(py["name"], "python", "{json}");
    assert_eq!(
        (
            py["conflicts"].as_u64(),
            py["retries_reread"].as_u64(),
            py["retries_stale"].as_u64()
        ),
        (Some(3), Some(3), Some(0)),
        "{json}"
    );

    // The read moved out of the loop: every retry resends the stale body.
    let bad = dir.join("bad.py");
    let moved = SEED_LOOP
        .replace(
            "for attempt in range(10):\n    cm = v1.read_namespaced_config_map(\"my-config\", \"default\")\n",
            "cm = v1.read_namespaced_config_map(\"my-config\", \"default\")\nfor attempt in range(10):\n",
        );
    assert_ne!(moved, SEED_LOOP);
    std::fs::write(&bad, moved).expect("write");
    let (o, json) = args(&bad, &dir.join("bad.json"));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("9 resent a stale body"), "{err}");
    assert!(err.contains("stale retry: python got 409"), "{err}");
    assert!(err.contains("FAILED: the command exited with 1"), "{err}");
    assert_eq!(json["passed"], false);
    let py = &json["clients"][0];
    assert_eq!(
        (
            py["conflicts"].as_u64(),
            py["retries_stale"].as_u64(),
            py["retries_reread"].as_u64()
        ),
        (Some(10), Some(9), Some(0)),
        "{json}"
    );
    // One injection: the stale body conflicts by itself from then on.
    assert_eq!(
        json["injections"].as_array().map(Vec::len),
        Some(1),
        "{json}"
    );
}

/// `--stale-reads 1` with real code: alice (curl) reads and writes first, so the Python client's reads
/// are one write behind. The seed's loop gets a 409 per stale answer, re-reads, and after the
/// third stale answer (the default bound) reads the current state and passes; a loop that
/// clears the resourceVersion and updates unconditionally writes over alice's change, and the
/// report names the lost update (exit 1).
#[test]
fn the_seed_loop_passes_under_stale_reads_and_an_unconditional_update_is_a_lost_update() {
    let dir = temp_dir("test-stale");
    let run = |name: &str, program: &str| {
        let script = dir.join(format!("{name}.py"));
        std::fs::write(&script, program).expect("write");
        let report = dir.join(format!("{name}.json"));
        let cmd = format!(
            "set -e\n{}{}exec \"$0\" \"$1\"\n",
            get("alice").replace("configmaps/c", "configmaps/my-config"),
            merge("alice", "from-alice").replace("configmaps/c", "configmaps/my-config")
        );
        let py = python();
        let o = rvlab_test(&[
            "--stale-reads",
            "1",
            "--report",
            report.to_str().unwrap(),
            "lesson:stale-update",
            "--",
            "sh",
            "-c",
            &cmd,
            &py,
            script.to_str().unwrap(),
        ]);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).expect("a report"))
                .expect("JSON");
        (o, json)
    };
    let (o, json) = run("good", SEED_LOOP);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "conflict, retrying\nconflict, retrying\nconflict, retrying\ndone\n"
    );
    assert!(
        err.contains("  stale reads (1 write behind): 3 stale answers served (python 3)\n"),
        "{err}"
    );
    assert!(
        err.contains("no lost updates") && err.ends_with("PASSED\n"),
        "{err}"
    );
    assert_eq!(
        json["stale_reads"],
        serde_json::json!({"writes_behind": 1, "max_stale": 3})
    );
    let served: Vec<u64> = json["stale_answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["served_revision"].as_u64().unwrap())
        .collect();
    assert_eq!(served, [100, 100, 100], "{json}");
    let py = &json["clients"][1];
    assert_eq!(py["name"], "python", "{json}");
    assert_eq!(
        (
            py["conflicts"].as_u64(),
            py["retries_reread"].as_u64(),
            py["retries_stale"].as_u64()
        ),
        (Some(3), Some(3), Some(0)),
        "{json}"
    );

    // Read, then update with the resourceVersion cleared: no 409 to stop it.
    let unconditional = r#"from kubernetes import client, config
config.load_kube_config()
v1 = client.CoreV1Api()
cm = v1.read_namespaced_config_map("my-config", "default")
cm.data["key"] = "from-bob"
cm.metadata.resource_version = None
v1.replace_namespaced_config_map("my-config", "default", cm)
print("done")
"#;
    let (o, json) = run("unconditional", unconditional);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "done\n");
    assert!(
        err.contains("LOST UPDATE on configmap/my-config data.key: python (step 3, revision 102; it had read revision 100) wrote \"from-bob\" over \"from-alice\", written by alice at revision 101\n"),
        "{err}"
    );
    assert!(err.contains("1 stale answer served (python 1)"), "{err}");
    assert!(err.contains("FAILED: 1 lost update\n"), "{err}");
    assert_eq!(json["passed"], false);
    assert_eq!(json["lost_updates"][0]["base_revision"], 100, "{json}");
}

/// A scenario whose scripted client alice reads my-config, edits her copy and updates it.
const ALICE: &str = r#"object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    obj.data.other = "from-alice"
    update obj
"#;

fn alice_file(name: &str) -> (std::path::PathBuf, String) {
    let dir = temp_dir(name);
    let f = dir.join("alice.rvl");
    std::fs::write(&f, ALICE).expect("write the scenario");
    (dir, f.display().to_string())
}

/// `--interfere scenario FILE` with curl: alice's update lands between bob's GET and his PUT,
/// which gets the real 409; the report counts alice's requests as injections.
#[test]
fn interfere_scenario_puts_a_scripted_update_between_a_get_and_a_put() {
    let (dir, f) = alice_file("test-scenario-curl");
    let report = dir.join("report.json");
    let url = "\"$RVLAB_SERVER/api/v1/namespaces/default/configmaps/my-config\"";
    let script = format!(
        "set -e\ncurl -sf -A bob {url} >/dev/null\ncode=$(curl -s -o /dev/null -w '%{{http_code}}' -A bob -X PUT -H 'Content-Type: application/json' -d '{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"my-config\",\"resourceVersion\":\"100\"}},\"data\":{{\"key\":\"bob\"}}}}' {url})\necho \"put: $code\"\n"
    );
    let o = rvlab_test(&[
        "--interfere",
        "scenario",
        &f,
        "--report",
        report.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        &script,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "put: 409\n", "{err}");
    assert!(
        err.contains("client bob: 2 requests, 1 writes, 1 conflicts (409); after a 409: 0 re-read and retried, 0 resent a stale body, 1 not retried\n"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "  interferer (scenario {f}): 2 injections (scripted requests)\n"
        )),
        "{err}"
    );
    assert!(!err.contains("client alice"), "{err}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("a report")).unwrap();
    assert_eq!(j["interfere"]["policy"], "scenario");
    assert_eq!(j["interfere"]["scenario"], f.as_str());
    let injected: Vec<(&str, &str)> = j["injections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["client"].as_str().unwrap(), i["method"].as_str().unwrap()))
        .collect();
    assert_eq!(injected, [("alice", "GET"), ("alice", "PUT")]);
    assert_eq!(j["steps"], 4);
}

/// The seed's loop against a scenario's scripted writer: one 409, one re-read, done.
#[test]
fn the_seed_loop_passes_under_interfere_scenario() {
    let (dir, f) = alice_file("test-scenario-python");
    let script = dir.join("loop.py");
    std::fs::write(&script, SEED_LOOP).expect("write");
    let report = dir.join("report.json");
    let py = python();
    let o = rvlab_test(&[
        "--interfere",
        "scenario",
        &f,
        "--report",
        report.to_str().unwrap(),
        "--",
        &py,
        script.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "conflict, retrying\ndone\n",
        "{err}"
    );
    assert!(err.ends_with("no lost updates\nPASSED\n"), "{err}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("a report")).unwrap();
    assert_eq!(j["injections"].as_array().map(Vec::len), Some(2), "{j}");
    let py = &j["clients"][0];
    assert_eq!(py["name"], "python", "{j}");
    assert_eq!(
        (
            py["conflicts"].as_u64(),
            py["retries_reread"].as_u64(),
            py["retries_stale"].as_u64()
        ),
        (Some(1), Some(1), Some(0)),
        "{j}"
    );
    assert_eq!(j["clients"].as_array().map(Vec::len), Some(1), "{j}");
}
