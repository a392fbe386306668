//! kube-rs against the reference kube-apiserver (cargo xtask reference start): a create, a read,
//! a stale replace that must be 409, and the server's version.
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let path = std::env::args().nth(1).expect("kubeconfig path");
    let kc = Kubeconfig::read_from(&path)?;
    let config = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default()).await?;
    let client = Client::try_from(config)?;
    let v = client.apiserver_version().await?;
    println!("server {}", v.git_version);
    let cms: Api<ConfigMap> = Api::namespaced(client, "default");
    let cm: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "kube-rs-check"}, "data": {"k": "1"}}))?;
    let created = cms.create(&PostParams::default(), &cm).await?;
    println!("created rv {:?}", created.metadata.resource_version);
    let mut fresh = cms.get("kube-rs-check").await?;
    let mut stale = fresh.clone();
    fresh.data.as_mut().unwrap().insert("k".into(), "2".into());
    let updated = cms.replace("kube-rs-check", &PostParams::default(), &fresh).await?;
    println!("updated rv {:?}", updated.metadata.resource_version);
    stale.data.as_mut().unwrap().insert("k".into(), "3".into());
    match cms.replace("kube-rs-check", &PostParams::default(), &stale).await {
        Err(kube::Error::Api(e)) => println!("stale replace: {} {} {}", e.code, e.reason, e.message),
        other => anyhow::bail!("stale replace was not refused: {other:?}"),
    }
    Ok(())
}
