//! kube-rs (`kube` 3.1 + `k8s-openapi` 0.27 with `v1_32`) against the server.

use anyhow::Result;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube::{Client, Config};
use rvlab_clients::Lab;

/// The Status message of the apiserver's optimistic-lock conflict (kubernetes-semantics.md).
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
