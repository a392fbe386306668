//! The official Python client (`kubernetes==37.0.2`, in `.tools/venv`) against the server.

use anyhow::Result;
use rvlab_clients::python::{PAUSE_AFTER_FIRST_READ, SEED_LOOP};
use rvlab_clients::Lab;
use std::time::Duration;

#[test]
fn the_seed_loop_rereads_retries_and_succeeds_after_a_concurrent_write() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    let mut py = lab.python_stream(&format!("{PAUSE_AFTER_FIRST_READ}\n{SEED_LOOP}"))?;
    let wait = Duration::from_secs(30);
    assert_eq!(py.wait_for_lines(1, wait)?, ["read 100"]);
    // The concurrent writer (a second client through HTTP) moves the object to 101.
    assert_eq!(
        lab.update_configmap("alice", "my-config", "key", "from-alice")?,
        "101"
    );
    py.send("go")?;
    let ran = py.finish(wait)?;
    assert_eq!(
        (ran.stdout.as_str(), ran.stderr.as_str(), ran.code),
        ("read 100\nconflict, retrying\n", "", Some(0)),
        "{ran:#?}"
    );
    // The trace (read before anything else asks the server): python read 100; the writer
    // read (a GET has no field manager: named by its User-Agent, `rvlab-clients`) and wrote
    // 101 as alice; python's replace was refused with 409; python read again and replaced.
    // The User-Agent `OpenAPI-Generator/37.0.2/python` names the client `python`.
    let trace = lab.trace()?;
    let steps: Vec<(String, String, u64)> = trace["steps"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| {
                    (
                        s["client"].as_str().unwrap_or_default().to_owned(),
                        s["request"]["method"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                        s["response"]["code"].as_u64().unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let owned = |c: &str, m: &str, code| (c.to_owned(), m.to_owned(), code);
    assert_eq!(
        steps,
        [
            owned("python", "GET", 200),
            owned("rvlab-clients", "GET", 200),
            owned("alice", "PUT", 200),
            owned("python", "PUT", 409),
            owned("python", "GET", 200),
            owned("python", "PUT", 200),
        ],
        "{trace:#}"
    );
    // The final object: bob's value on top of alice's write, nothing lost.
    let obj = lab.configmap("my-config")?;
    assert_eq!(obj["data"]["key"], "from-bob");
    assert_eq!(obj["metadata"]["resourceVersion"], "102");
    Ok(())
}

#[test]
fn a_stale_replace_raises_api_exception_409_conflict() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    lab.update_configmap("alice", "my-config", "key", "from-alice")?;
    // The Python client's `ApiException`: `.status` is the HTTP code, `.reason` the HTTP reason
    // phrase, `.body` the Status JSON.
    let ran = lab.python(
        r#"import json
from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config()
v1 = client.CoreV1Api()
cm = client.V1ConfigMap(
    metadata=client.V1ObjectMeta(name="my-config", resource_version="100"),
    data={"key": "from-bob"},
)
try:
    v1.replace_namespaced_config_map("my-config", "default", cm)
except ApiException as e:
    body = json.loads(e.body)
    print(e.status, e.reason, body["reason"], body["code"])
    print(body["message"])
"#,
    )?;
    assert_eq!(
        (ran.stdout.as_str(), ran.stderr.as_str(), ran.code),
        (
            "409 Conflict Conflict 409\nOperation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again\n",
            "",
            Some(0)
        ),
        "{ran:#?}"
    );
    Ok(())
}

/// Issue #15's `read-write` interferer against the real Python client: before each replace over
/// a fresh read it writes the object's `rvlab.dev/interference` annotation, three times (the
/// bound per object), so the seed loop gets three real 409s, re-reads each time, and its fourth
/// replace succeeds and keeps the interferer's annotation.
#[test]
fn the_seed_loop_converges_under_the_read_write_interferer() -> Result<()> {
    use rvlab_instruments::interfere::{InterferenceSettings, Policy, INTERFERER};
    let lab = Lab::start_with(
        Some(rvlab_clients::lab::lesson("stale-update")?),
        Some(InterferenceSettings::new(Policy::ReadWrite)),
    )?;
    let ran = lab.python(SEED_LOOP)?;
    assert_eq!(
        (ran.stdout.as_str(), ran.stderr.as_str(), ran.code),
        (
            "conflict, retrying\nconflict, retrying\nconflict, retrying\n",
            "",
            Some(0)
        ),
        "{ran:#?}"
    );
    let obj = lab
        .http()?
        .get_json("/api/v1/namespaces/default/configmaps/my-config")?;
    assert_eq!(obj["data"]["key"], "from-bob");
    assert_eq!(
        obj["metadata"]["annotations"]["rvlab.dev/interference"],
        "3"
    );
    let trace = lab.trace()?;
    let steps = trace["steps"].as_array().cloned().unwrap_or_default();
    let who: Vec<(String, u64)> = steps
        .iter()
        .map(|s| {
            (
                s["client"].as_str().unwrap_or_default().to_owned(),
                s["response"]["code"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    let expect: Vec<(String, u64)> = [
        ("python", 200),
        (INTERFERER, 200),
        ("python", 409),
        ("python", 200),
        (INTERFERER, 200),
        ("python", 409),
        ("python", 200),
        (INTERFERER, 200),
        ("python", 409),
        ("python", 200),
        ("python", 200),
    ]
    .iter()
    .map(|(c, n)| (c.to_string(), *n))
    .collect();
    assert_eq!(who[..expect.len()], expect[..], "{who:?}");
    assert!(steps
        .iter()
        .all(|s| s["lost_updates"] == serde_json::json!([])));
    Ok(())
}
