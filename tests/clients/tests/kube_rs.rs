//! kube-rs (`kube` 3.1 + `k8s-openapi` 0.27 with `v1_32`) against the server.

use anyhow::Result;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube::{Client, Config};
use rvlab_clients::Lab;

/// The Status message of the apiserver's optimistic-lock conflict (k8s.io/apiserver `pkg/registry/generic/registry/store.go`).
const MODIFIED: &str = "Operation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again";

#[test]
fn replace_with_a_stale_resource_version_is_a_409_conflict() -> Result<()> {
    // The server runs on its own runtime; kube-rs on this one (the concurrent writer's
    // blocking HTTP client runs between two kube-rs calls, outside it).
    let lab = Lab::lesson("stale-update")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let api: Api<ConfigMap> = rt.block_on(async {
        let client = Client::try_from(Config::new(lab.url().parse()?))?;
        anyhow::Ok(Api::namespaced(client, "default"))
    })?;
    let mut cm = rt.block_on(api.get("my-config"))?;
    assert_eq!(cm.metadata.resource_version.as_deref(), Some("100"));
    // A concurrent writer moves the object to 101; our copy still says 100.
    assert_eq!(
        lab.update_configmap("alice", "my-config", "key", "from-alice")?,
        "101"
    );
    cm.data
        .get_or_insert_with(Default::default)
        .insert("key".into(), "from-kube-rs".into());
    let err = rt
        .block_on(api.replace("my-config", &PostParams::default(), &cm))
        .expect_err("a stale replace must fail");
    match err {
        kube::Error::Api(status) => {
            assert_eq!(status.code, 409, "{status:?}");
            assert_eq!(status.reason, "Conflict", "{status:?}");
            assert_eq!(status.message, MODIFIED, "{status:?}");
        }
        other => panic!("expected kube::Error::Api, got {other:?}"),
    }
    // Re-read, reapply, retry: the fresh copy goes through.
    let mut fresh = rt.block_on(api.get("my-config"))?;
    assert_eq!(fresh.metadata.resource_version.as_deref(), Some("101"));
    fresh
        .data
        .get_or_insert_with(Default::default)
        .insert("key".into(), "from-kube-rs".into());
    let done = rt.block_on(api.replace("my-config", &PostParams::default(), &fresh))?;
    assert_eq!(done.metadata.resource_version.as_deref(), Some("102"));
    assert_eq!(
        done.data.unwrap_or_default().get("key").map(String::as_str),
        Some("from-kube-rs")
    );
    Ok(())
}

/// Issue #15: a kube-rs `Api::replace` loop that re-reads on 409 converges under the
/// `read-write` interferer: three real conflicts (its bound per object), then the replace goes
/// through and keeps the interferer's annotation; nothing is lost.
#[test]
fn a_replace_loop_that_re_reads_passes_under_the_read_write_interferer() -> Result<()> {
    use rvlab_instruments::interfere::{InterferenceSettings, Policy};
    let lab = Lab::start_with(
        Some(rvlab_clients::lab::lesson("stale-update")?),
        Some(InterferenceSettings::new(Policy::ReadWrite)),
    )?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let api: Api<ConfigMap> = rt.block_on(async {
        let client = Client::try_from(Config::new(lab.url().parse()?))?;
        anyhow::Ok(Api::namespaced(client, "default"))
    })?;
    let mut conflicts = 0;
    let done = loop {
        let mut cm = rt.block_on(api.get("my-config"))?;
        cm.data
            .get_or_insert_with(Default::default)
            .insert("key".into(), "from-kube-rs".into());
        match rt.block_on(api.replace("my-config", &PostParams::default(), &cm)) {
            Ok(done) => break done,
            Err(kube::Error::Api(s)) if s.code == 409 => {
                assert_eq!(s.message, MODIFIED);
                conflicts += 1;
                assert!(conflicts <= 10, "it does not converge");
            }
            Err(e) => return Err(e.into()),
        }
    };
    assert_eq!(conflicts, 3);
    let annotations = done.metadata.annotations.unwrap_or_default();
    assert_eq!(
        annotations
            .get("rvlab.dev/interference")
            .map(String::as_str),
        Some("3")
    );
    assert_eq!(
        done.data.unwrap_or_default().get("key").map(String::as_str),
        Some("from-kube-rs")
    );
    let trace = lab.trace()?;
    let steps = trace["steps"].as_array().cloned().unwrap_or_default();
    assert!(steps
        .iter()
        .all(|s| s["lost_updates"] == serde_json::json!([])));
    assert_eq!(
        steps
            .iter()
            .filter(|s| s["interference"].is_object())
            .count(),
        3
    );
    Ok(())
}
