//! The real clients against `rvlab serve --etcd` (issue #17): two servers on one etcd (Debian's
//! etcd-server, started here on loopback) are one API server, so a client of one sees etcd's
//! resourceVersions and gets the apiserver's 409 for a write made through the other.

use anyhow::Result;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube::{Client, Config};
use rvlab_clients::lab::lesson;
use rvlab_clients::python::{PAUSE_AFTER_FIRST_READ, SEED_LOOP};
use rvlab_clients::Lab;
use rvlab_testkit::etcd as cluster;
use std::time::Duration;

/// The apiserver's optimistic-lock message (k8s.io/apiserver `pkg/registry/generic/registry/store.go`).
const MODIFIED: &str = "Operation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again";

/// Two replicas of the stale-update lesson's server on one new etcd.
fn replicas() -> Result<(cluster::Cluster, Lab, Lab)> {
    let etcd = cluster::Cluster::start(1);
    let setup = lesson("stale-update")?;
    let a = Lab::on_etcd(Some(setup), &etcd.urls())?;
    let b = Lab::on_etcd(Some(setup), &etcd.urls())?;
    Ok((etcd, a, b))
}

fn next(rv: &str) -> String {
    (rv.parse::<u64>().expect("a number") + 1).to_string()
}

#[test]
fn kubectl_through_one_replica_is_refused_for_a_write_through_the_other() -> Result<()> {
    let (_etcd, a, b) = replicas()?;
    let rv = a
        .kubectl(&[
            "get",
            "configmap",
            "my-config",
            "-o",
            "jsonpath={.metadata.resourceVersion}",
        ])?
        .success()?
        .stdout;
    let stale = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-config\n  namespace: default\n  resourceVersion: \"{rv}\"\ndata:\n  key: from-bob\n"
    );
    a.write("stale.yaml", &stale)?;
    assert_eq!(
        b.update_configmap("alice", "my-config", "key", "from-alice")?,
        next(&rv)
    );
    let ran = a.kubectl(&["replace", "-f", "stale.yaml"])?;
    assert_eq!(
        (ran.stdout.as_str(), ran.stderr.as_str(), ran.code),
        (
            "",
            format!(
                "Error from server (Conflict): error when replacing \"stale.yaml\": {MODIFIED}\n"
            )
            .as_str(),
            Some(1)
        ),
        "{ran:#?}"
    );
    let key = a
        .kubectl(&[
            "get",
            "configmap",
            "my-config",
            "-o",
            "jsonpath={.data.key}",
        ])?
        .success()?;
    assert_eq!(key.stdout, "from-alice");
    Ok(())
}

/// The seed's loop in the Python client (read, change, replace, on 409 start over), with a
/// write through the other replica between its first read and its replace.
#[test]
fn the_python_seed_loop_retries_over_a_write_through_the_other_replica() -> Result<()> {
    let (_etcd, a, b) = replicas()?;
    let mut py = a.python_stream(&format!("{PAUSE_AFTER_FIRST_READ}\n{SEED_LOOP}"))?;
    let wait = Duration::from_secs(30);
    let read = py.wait_for_lines(1, wait)?;
    let rv = read[0]
        .strip_prefix("read ")
        .expect("the read line")
        .to_owned();
    let moved = b.update_configmap("alice", "my-config", "key", "from-alice")?;
    assert_eq!(moved, next(&rv));
    py.send("go")?;
    let ran = py.finish(wait)?;
    assert_eq!(
        (ran.stdout.as_str(), ran.stderr.as_str(), ran.code),
        (
            format!("read {rv}\nconflict, retrying\n").as_str(),
            "",
            Some(0)
        ),
        "{ran:#?}"
    );
    // Through the other replica: bob's value on top of alice's write, at etcd's next revision.
    let obj = b.configmap("my-config")?;
    assert_eq!(obj["data"]["key"], "from-bob");
    assert_eq!(obj["metadata"]["resourceVersion"], next(&moved));
    Ok(())
}

#[test]
fn kube_rs_gets_the_409_and_its_re_read_goes_through() -> Result<()> {
    let (_etcd, a, b) = replicas()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let api: Api<ConfigMap> = rt.block_on(async {
        let client = Client::try_from(Config::new(a.url().parse()?))?;
        anyhow::Ok(Api::namespaced(client, "default"))
    })?;
    let mut cm = rt.block_on(api.get("my-config"))?;
    let rv = cm
        .metadata
        .resource_version
        .clone()
        .expect("a resourceVersion");
    let moved = b.update_configmap("alice", "my-config", "key", "from-alice")?;
    assert_eq!(moved, next(&rv));
    cm.data
        .get_or_insert_with(Default::default)
        .insert("key".into(), "from-kube-rs".into());
    match rt.block_on(api.replace("my-config", &PostParams::default(), &cm)) {
        Err(kube::Error::Api(status)) => {
            assert_eq!(
                (status.code, status.reason.as_str(), status.message.as_str()),
                (409, "Conflict", MODIFIED),
                "{status:?}"
            );
        }
        other => panic!("expected the 409, got {other:?}"),
    }
    let mut fresh = rt.block_on(api.get("my-config"))?;
    assert_eq!(
        fresh.metadata.resource_version.as_deref(),
        Some(moved.as_str())
    );
    fresh
        .data
        .get_or_insert_with(Default::default)
        .insert("key".into(), "from-kube-rs".into());
    let done = rt.block_on(api.replace("my-config", &PostParams::default(), &fresh))?;
    assert_eq!(done.metadata.resource_version, Some(next(&moved)));
    Ok(())
}
