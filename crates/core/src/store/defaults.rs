//! Defaulting: the fields the apiserver fills in a Deployment when it decodes one, as
//! k8s.io/kubernetes v1.37.2 does it:
//! - `pkg/apis/apps/v1/defaults.go`, `SetDefaults_Deployment`: `spec.replicas` 1,
//!   `spec.strategy.type` `RollingUpdate` and, for that type only, `rollingUpdate.maxUnavailable`
//!   and `maxSurge` `25%`, `spec.revisionHistoryLimit` 10, `spec.progressDeadlineSeconds` 600;
//! - `pkg/apis/apps/v1/zz_generated.defaults.go`, `SetObjectDefaults_Deployment`: what else it
//!   defaults in the pod template, with `pkg/apis/core/v1/defaults.go`: `SetDefaults_PodSpec`
//!   (`serviceAccount` kept equal to `serviceAccountName`, `dnsPolicy` `ClusterFirst`,
//!   `restartPolicy` `Always`, `securityContext` `{}`, `terminationGracePeriodSeconds` 30,
//!   `schedulerName` `default-scheduler`), `SetDefaults_Container` for init, regular and
//!   ephemeral containers (`terminationMessagePath` `/dev/termination-log`,
//!   `terminationMessagePolicy` `File`, `imagePullPolicy` from the image, [`pull_policy`]), a
//!   port's `protocol` `TCP`, an env `fieldRef`'s `apiVersion` `v1` and a `fileKeyRef`'s
//!   `optional` false, `SetDefaults_Probe` and `SetDefaults_HTTPGetAction` (probes and lifecycle
//!   hooks), a gRPC probe's `service` `""`, and the volumes' defaults (`SetDefaults_Volume`: an
//!   `emptyDir` for a volume without a source, an image volume's `pullPolicy`; the `defaultMode`
//!   0644 of secret, configMap, downwardAPI and projected volumes, a hostPath's `type` `""`, a
//!   projected token's `expirationSeconds` 3600, the iscsi, rbd, azureDisk, scaleIO and
//!   ephemeral claim defaults).
//!
//! A container's `resources` and an ephemeral volume's claim `metadata` are structs Go always
//! prints (`{}` when empty): they are filled here too. A field counts as unset as Go's decoder
//! leaves it: absent or `null`, and for a field that is not a pointer in Go (a string, a
//! probe's counts) also its zero value (`""`, `0`). A filled field goes where Go's encoder
//! prints it (struct order) among the fields the object has; fields the request had keep their
//! place (the apiserver prints every field in struct order; only a Deployment's `spec` is put
//! in that order here, by `meta::canonicalize`).
//!
//! **Where it runs** (`store::handler`; with the `api` feature only, so not in the page, whose
//! wasm has no room for it yet), as the apiserver's decode step does: the object of a
//! create, an update and a JSON, merge or strategic patch (main resource or `status`) is
//! defaulted before the field manager compares it with the live object, so the writer's Update
//! entry owns what defaulting added or changed (`f:spec/f:strategy`, a container's
//! `f:imagePullPolicy`, …). A server-side apply defaults the merged object after the field
//! manager computed ownership (`structuredMergeManager.Apply`, k8s.io/apiserver
//! `pkg/endpoints/handlers/fieldmanager/internal/structuredmerge.go`): the applier does not own
//! the defaults, and on an apply that creates the object nobody does.
//!
//! Not modelled: a template the body does not have (Go's `spec.template` is a struct, so a
//! Deployment without one would print `template: {metadata: {}, spec: {containers: null, …}}`
//! with the pod defaults; the apiserver refuses such a Deployment, 422, a validation the model
//! does not do, and here it keeps no template); the rounding of resource quantities
//! (`SetDefaults_ResourceList`).

use super::meta::DEPLOYMENT_SPEC_ORDER;
use super::Resource;
use serde_json::{Map, Value};

type Object = Map<String, Value>;

/// A default value.
#[derive(Clone, Copy)]
enum D {
    Str(&'static str),
    Int(i64),
    False,
    Empty,
}

impl D {
    fn value(self) -> Value {
        match self {
            D::Str(s) => s.into(),
            D::Int(n) => n.into(),
            D::False => Value::Bool(false),
            D::Empty => Value::Object(Map::new()),
        }
    }
}

/// `PodSpec`'s fields in Go struct order (k8s.io/api v0.37.2 `core/v1/types.go`).
const POD_SPEC: &[&str] = &[
    "volumes",
    "initContainers",
    "containers",
    "ephemeralContainers",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "activeDeadlineSeconds",
    "dnsPolicy",
    "nodeSelector",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "nodeName",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "securityContext",
    "imagePullSecrets",
    "hostname",
    "subdomain",
    "affinity",
    "schedulerName",
    "tolerations",
    "hostAliases",
    "priorityClassName",
    "priority",
    "dnsConfig",
    "readinessGates",
    "runtimeClassName",
    "enableServiceLinks",
    "preemptionPolicy",
    "overhead",
    "topologySpreadConstraints",
    "setHostnameAsFQDN",
    "os",
    "hostUsers",
    "schedulingGates",
    "resourceClaims",
    "resources",
    "hostnameOverride",
    "workloadRef",
    "schedulingGroup",
    "evictionResponders",
];

/// `Container`'s fields in Go struct order, from `resources` on (an `EphemeralContainer` adds
/// `targetContainerName` last).
const CONTAINER: &[&str] = &[
    "resources",
    "resizePolicy",
    "restartPolicy",
    "restartPolicyRules",
    "volumeMounts",
    "volumeDevices",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
    "targetContainerName",
];

/// `Probe`'s fields in Go struct order, from `timeoutSeconds` on.
const PROBE: &[&str] = &[
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
    "terminationGracePeriodSeconds",
];

/// `HTTPGetAction`'s fields in Go struct order.
const HTTP_GET: &[&str] = &["path", "port", "host", "scheme", "httpHeaders", "protocol"];

/// An `ObjectFieldSelector`'s fields.
const FIELD_REF: &[&str] = &["apiVersion", "fieldPath"];

/// The volume sources' defaults: the source, the field, whether its zero value is unset, the
/// default, and the source's fields in Go struct order from that field on.
const VOLUME_SOURCES: &[(&str, &str, bool, D, &[&str])] = &[
    ("hostPath", "type", false, D::Str(""), &["type"]),
    (
        "secret",
        "defaultMode",
        false,
        D::Int(0o644),
        &["defaultMode", "optional", "defaultUser"],
    ),
    (
        "configMap",
        "defaultMode",
        false,
        D::Int(0o644),
        &["defaultMode", "optional", "defaultUser"],
    ),
    (
        "downwardAPI",
        "defaultMode",
        false,
        D::Int(0o644),
        &["defaultMode", "defaultUser"],
    ),
    (
        "projected",
        "defaultMode",
        false,
        D::Int(0o644),
        &["defaultMode", "defaultUser"],
    ),
    (
        "iscsi",
        "iscsiInterface",
        true,
        D::Str("default"),
        &[
            "iscsiInterface",
            "fsType",
            "readOnly",
            "portals",
            "chapAuthDiscovery",
            "chapAuthSession",
            "secretRef",
            "initiatorName",
        ],
    ),
    (
        "rbd",
        "pool",
        true,
        D::Str("rbd"),
        &["pool", "user", "keyring", "secretRef", "readOnly"],
    ),
    (
        "rbd",
        "user",
        true,
        D::Str("admin"),
        &["user", "keyring", "secretRef", "readOnly"],
    ),
    (
        "rbd",
        "keyring",
        true,
        D::Str("/etc/ceph/keyring"),
        &["keyring", "secretRef", "readOnly"],
    ),
    (
        "azureDisk",
        "cachingMode",
        false,
        D::Str("ReadWrite"),
        &["cachingMode", "fsType", "readOnly", "kind"],
    ),
    (
        "azureDisk",
        "fsType",
        false,
        D::Str("ext4"),
        &["fsType", "readOnly", "kind"],
    ),
    (
        "azureDisk",
        "readOnly",
        false,
        D::False,
        &["readOnly", "kind"],
    ),
    ("azureDisk", "kind", false, D::Str("Shared"), &["kind"]),
    (
        "scaleIO",
        "storageMode",
        true,
        D::Str("ThinProvisioned"),
        &["storageMode", "volumeName", "fsType", "readOnly"],
    ),
    (
        "scaleIO",
        "fsType",
        true,
        D::Str("xfs"),
        &["fsType", "readOnly"],
    ),
];

/// Whether a field is unset as Go's decoder leaves it: absent or `null`, and with `zero` (a
/// field that is not a pointer in Go) also `""` or `0`.
fn unset(v: Option<&Value>, zero: bool) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => zero && s.is_empty(),
        Some(Value::Number(n)) => zero && n.as_i64() == Some(0),
        _ => false,
    }
}

/// Sets `key` to `v`: in place when the object has the key, else before the first field that
/// `order` (Go struct order) puts after it, else last.
fn put(m: &mut Object, order: &[&str], key: &str, v: Value) {
    if let Some(slot) = m.get_mut(key) {
        *slot = v;
        return;
    }
    let rank = |k: &str| order.iter().position(|o| *o == k);
    let mine = rank(key).unwrap_or(usize::MAX);
    let at = m
        .keys()
        .position(|k| rank(k).is_some_and(|r| r > mine))
        .unwrap_or(m.len());
    m.shift_insert(at, key.to_string(), v);
}

/// Sets `key` to `d` when it is unset (see [`unset`]).
fn fill(m: &mut Object, order: &[&str], key: &str, zero: bool, d: D) {
    if unset(m.get(key), zero) {
        put(m, order, key, d.value());
    }
}

/// The object at `path` (keys separated by dots) under `v`, when there is one.
fn at<'a>(v: &'a mut Value, path: &str) -> Option<&'a mut Object> {
    path.split('.')
        .try_fold(v, |v, k| v.get_mut(k))
        .and_then(Value::as_object_mut)
}

/// The items of the list `key` of `v` (none when it is not a list).
fn items<'a>(v: &'a mut Value, key: &str) -> impl Iterator<Item = &'a mut Value> {
    v.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

/// Defaults `obj` as the apiserver's decoder does for its kind (only Deployments have
/// defaults here; a Namespace's label is `namespace::default_labels`, a Secret's `type`
/// `meta::canonicalize`).
// The page's store (without the `api` feature) does not default: the module is kilobytes of
// the page's shipped wasm, which is at its 300 kB budget (measured, docs/size.md); the CLI,
// `rvlab serve` and the goldens' replay default as the apiserver does. Inlined, so the page's
// call sites go with it.
#[inline(always)]
pub(crate) fn default_object(res: &Resource, obj: &mut Value) {
    if super::API {
        default_deployment(res, obj);
        if *res == Resource::Namespace {
            super::namespace::default_object(obj);
        }
    }
}

fn default_deployment(res: &Resource, obj: &mut Value) {
    if *res != Resource::Deployment {
        return;
    }
    let Some(o) = obj.as_object_mut() else {
        return;
    };
    // `spec` and `spec.strategy` are structs in Go: a `null` or missing one is its zero value.
    if unset(o.get("spec"), false) {
        o.insert("spec".into(), Value::Object(Map::new()));
    }
    let Some(spec) = o.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let order = DEPLOYMENT_SPEC_ORDER;
    fill(spec, order, "replicas", false, D::Int(1));
    fill(spec, order, "strategy", false, D::Empty);
    if let Some(strategy) = spec.get_mut("strategy").and_then(Value::as_object_mut) {
        let order = &["type", "rollingUpdate"];
        fill(strategy, order, "type", true, D::Str("RollingUpdate"));
        if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            fill(strategy, order, "rollingUpdate", false, D::Empty);
            if let Some(ru) = strategy
                .get_mut("rollingUpdate")
                .and_then(Value::as_object_mut)
            {
                let order = &["maxUnavailable", "maxSurge"];
                fill(ru, order, "maxUnavailable", false, D::Str("25%"));
                fill(ru, order, "maxSurge", false, D::Str("25%"));
            }
        }
    }
    fill(spec, order, "revisionHistoryLimit", false, D::Int(10));
    fill(spec, order, "progressDeadlineSeconds", false, D::Int(600));
    if let Some(pod) = spec.get_mut("template").and_then(|t| t.get_mut("spec")) {
        pod_spec(pod);
    }
}

/// `SetDefaults_PodSpec` and what `SetObjectDefaults_Deployment` defaults inside it.
fn pod_spec(pod: &mut Value) {
    let Some(ps) = pod.as_object_mut() else {
        return;
    };
    let text = |k: &str| ps.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let account = match text("serviceAccountName") {
        name if name.is_empty() => text("serviceAccount"),
        name => name,
    };
    if !account.is_empty() {
        put(ps, POD_SPEC, "serviceAccountName", account.as_str().into());
        put(ps, POD_SPEC, "serviceAccount", account.into());
    }
    fill(ps, POD_SPEC, "dnsPolicy", true, D::Str("ClusterFirst"));
    fill(ps, POD_SPEC, "restartPolicy", true, D::Str("Always"));
    fill(ps, POD_SPEC, "securityContext", false, D::Empty);
    fill(
        ps,
        POD_SPEC,
        "terminationGracePeriodSeconds",
        false,
        D::Int(30),
    );
    fill(
        ps,
        POD_SPEC,
        "schedulerName",
        true,
        D::Str("default-scheduler"),
    );
    for volume in items(pod, "volumes") {
        self::volume(volume);
    }
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for c in items(pod, list) {
            container(c);
        }
    }
}

/// `SetDefaults_Volume` and the volume sources' defaults.
fn volume(v: &mut Value) {
    let Some(m) = v.as_object_mut() else {
        return;
    };
    // `ptr.AllPtrFieldsNil(&obj.VolumeSource)`: every field but the name is a source.
    if m.iter().all(|(k, v)| k == "name" || v.is_null()) {
        put(m, &["name", "emptyDir"], "emptyDir", D::Empty.value());
    }
    if let Some(image) = m.get_mut("image").and_then(Value::as_object_mut) {
        let policy = pull_policy(image.get("reference").and_then(Value::as_str));
        fill(image, &["pullPolicy"], "pullPolicy", true, D::Str(policy));
    }
    for (source, key, zero, d, order) in VOLUME_SOURCES {
        if let Some(s) = m.get_mut(*source).and_then(Value::as_object_mut) {
            fill(s, order, key, *zero, *d);
        }
    }
    if let Some(template) = at(v, "ephemeral.volumeClaimTemplate") {
        // A struct Go always prints.
        fill(template, &["metadata", "spec"], "metadata", false, D::Empty);
        if let Some(claim) = template.get_mut("spec").and_then(Value::as_object_mut) {
            let order = &[
                "volumeMode",
                "dataSource",
                "dataSourceRef",
                "volumeAttributesClassName",
            ];
            fill(claim, order, "volumeMode", false, D::Str("Filesystem"));
        }
    }
    if let Some(api) = v.get_mut("downwardAPI") {
        for file in items(api, "items") {
            field_ref(file.get_mut("fieldRef"));
        }
    }
    let projected = v.get_mut("projected").into_iter();
    for source in projected.flat_map(|p| items(p, "sources")) {
        if let Some(token) = source
            .get_mut("serviceAccountToken")
            .and_then(Value::as_object_mut)
        {
            let order = &["expirationSeconds", "path", "user"];
            fill(token, order, "expirationSeconds", false, D::Int(3600));
        }
        if let Some(api) = source.get_mut("downwardAPI") {
            for file in items(api, "items") {
                field_ref(file.get_mut("fieldRef"));
            }
        }
    }
}

/// `SetDefaults_ObjectFieldSelector`.
fn field_ref(v: Option<&mut Value>) {
    if let Some(Value::Object(m)) = v {
        fill(m, FIELD_REF, "apiVersion", true, D::Str("v1"));
    }
}

/// `SetDefaults_Container` and what is defaulted inside a container.
fn container(c: &mut Value) {
    let Some(m) = c.as_object_mut() else {
        return;
    };
    fill(m, CONTAINER, "resources", false, D::Empty);
    fill(
        m,
        CONTAINER,
        "terminationMessagePath",
        true,
        D::Str("/dev/termination-log"),
    );
    fill(
        m,
        CONTAINER,
        "terminationMessagePolicy",
        true,
        D::Str("File"),
    );
    let policy = pull_policy(m.get("image").and_then(Value::as_str));
    fill(m, CONTAINER, "imagePullPolicy", true, D::Str(policy));
    for port in items(c, "ports").filter_map(Value::as_object_mut) {
        fill(
            port,
            &["protocol", "hostIP"],
            "protocol",
            true,
            D::Str("TCP"),
        );
    }
    for env in items(c, "env") {
        field_ref(env.get_mut("valueFrom").and_then(|f| f.get_mut("fieldRef")));
        if let Some(file) = at(env, "valueFrom.fileKeyRef") {
            fill(file, &["optional"], "optional", false, D::False);
        }
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        let Some(p) = c.get_mut(probe) else {
            continue;
        };
        if let Some(m) = p.as_object_mut() {
            fill(m, PROBE, "timeoutSeconds", true, D::Int(1));
            fill(m, PROBE, "periodSeconds", true, D::Int(10));
            fill(m, PROBE, "successThreshold", true, D::Int(1));
            fill(m, PROBE, "failureThreshold", true, D::Int(3));
        }
        http_get(p);
        if let Some(grpc) = at(p, "grpc") {
            fill(grpc, &["service", "mode"], "service", false, D::Str(""));
        }
    }
    for hook in ["postStart", "preStop"] {
        if let Some(h) = c.get_mut("lifecycle").and_then(|l| l.get_mut(hook)) {
            http_get(h);
        }
    }
}

/// `SetDefaults_HTTPGetAction` on the `httpGet` of a probe or a lifecycle hook.
fn http_get(handler: &mut Value) {
    if let Some(h) = at(handler, "httpGet") {
        fill(h, HTTP_GET, "path", true, D::Str("/"));
        fill(h, HTTP_GET, "scheme", true, D::Str("HTTP"));
    }
}

/// `SetDefaults_Container`'s pull policy: `Always` when the image's tag is `latest`, or when
/// it names neither a tag nor a digest (`ParseImageName`, k8s.io/kubernetes
/// `pkg/util/parsers/parsers.go`, takes `latest` then); `IfNotPresent` otherwise, also for an
/// image that is not a valid reference.
fn pull_policy(image: Option<&str>) -> &'static str {
    if image.and_then(latest_tag) == Some(true) {
        "Always"
    } else {
        "IfNotPresent"
    }
}

/// Whether `ParseImageName` gives `image` the tag `latest`; `None` when the image is not a
/// reference `ParseNormalizedNamed` accepts (github.com/distribution/reference v0.6.0,
/// `normalize.go`, `reference.go`, `regexp.go`; a digest as go-digest v1.0.0 validates it).
fn latest_tag(image: &str) -> Option<bool> {
    let hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if image.len() == 64 && hex(image) {
        // `anchoredIdentifierRegexp`: a bare image id is refused.
        return None;
    }
    // `splitDockerDomain`.
    let (domain, remainder) = match image.split_once('/') {
        None => ("docker.io", format!("library/{image}")),
        Some((d, r)) => {
            let (domain, remainder) = match d {
                "localhost" => (d, r.to_string()),
                "index.docker.io" => ("docker.io", r.to_string()),
                _ if d.contains(['.', ':']) || d.bytes().any(|b| b.is_ascii_uppercase()) => {
                    (d, r.to_string())
                }
                _ => ("docker.io", image.to_string()),
            };
            if domain == "docker.io" && !remainder.contains('/') {
                ("docker.io", format!("library/{remainder}"))
            } else {
                (domain, remainder)
            }
        }
    };
    let remote = remainder.split(':').next().unwrap_or("");
    if remote.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    // `ReferenceRegexp`: name, then `:tag`, then `@digest`.
    let full = format!("{domain}/{remainder}");
    let (rest, digest) = match full.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (full.as_str(), None),
    };
    let (name, tag) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains('/') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    // `anchoredNameRegexp` takes a domain when the first component is one.
    let path = match name.split_once('/') {
        Some((d, r)) if host_and_port(d) && remote_name(r) => r,
        _ if remote_name(name) => name,
        _ => return None,
    };
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let tag_ok = tag.is_none_or(|t| {
        (1..=128).contains(&t.len())
            && t.bytes()
                .enumerate()
                .all(|(i, b)| word(b) || (i > 0 && matches!(b, b'.' | b'-')))
    });
    let digest_ok = digest.is_none_or(|d| {
        let (algorithm, encoded) = d.split_once(':').unwrap_or(("", ""));
        let len = match algorithm {
            "sha256" => 64,
            "sha384" => 96,
            "sha512" => 128,
            _ => 0,
        };
        len > 0 && encoded.len() == len && hex(encoded)
    });
    if path.len() > 255 || !tag_ok || !digest_ok {
        return None;
    }
    Some(match tag {
        Some(t) => t == "latest",
        None => digest.is_none(),
    })
}

/// `remoteName`: path components separated by `/`, each `[a-z0-9]+` runs joined by `.`, `_`,
/// `__` or dashes.
fn remote_name(s: &str) -> bool {
    s.split('/').all(|c| {
        let b = c.as_bytes();
        let alnum = |x: &u8| x.is_ascii_lowercase() || x.is_ascii_digit();
        if !b.first().is_some_and(alnum) || !b.last().is_some_and(alnum) {
            return false;
        }
        b.split(alnum)
            .filter(|sep| !sep.is_empty())
            .all(|sep| matches!(sep, b"." | b"_" | b"__") || sep.iter().all(|x| *x == b'-'))
    })
}

/// `domainAndPort`: a host name (dot-separated labels of letters, digits and inner dashes) or
/// an IPv6 address in brackets, then an optional `:port`.
fn host_and_port(s: &str) -> bool {
    let label = |l: &str| {
        let b = l.as_bytes();
        b.first().is_some_and(u8::is_ascii_alphanumeric)
            && b.last().is_some_and(u8::is_ascii_alphanumeric)
            && b.iter().all(|x| x.is_ascii_alphanumeric() || *x == b'-')
    };
    let (host_ok, port) = match s.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((v6, port)) => (
                !v6.is_empty() && v6.bytes().all(|b| b.is_ascii_hexdigit() || b == b':'),
                port,
            ),
            None => return false,
        },
        None => {
            let (host, port) = s.find(':').map_or((s, ""), |i| s.split_at(i));
            (host.split('.').all(label), port)
        }
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pull_policy_follows_parse_image_name() {
        // The answers of distribution/reference v0.6.0 with ParseImageName's rule, run in Go.
        for (image, policy) in [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("nginx:1.27", "IfNotPresent"),
            ("busybox:1", "IfNotPresent"),
            ("library/nginx", "Always"),
            ("registry.example.com:5000/team/app", "Always"),
            ("registry.example.com:5000/team/app:latest", "Always"),
            ("registry.example.com:5000/team/app:v2", "IfNotPresent"),
            ("localhost/app", "Always"),
            ("[::1]:5000/app", "Always"),
            ("nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"),
            ("nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "Always"),
            ("", "IfNotPresent"),
            ("Nginx", "IfNotPresent"),
            ("nginx:", "IfNotPresent"),
            ("nginx@sha256:abc", "IfNotPresent"),
            ("ngi nx", "IfNotPresent"),
            ("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"),
            ("Registry/app", "Always"),
            ("a.b_c/app", "Always"),
            ("my__app", "Always"),
            ("my___app", "IfNotPresent"),
            ("localhost:5000", "IfNotPresent"),
            ("localhost", "Always"),
            ("foo/Bar", "IfNotPresent"),
            ("a-b.c/d", "Always"),
            ("-a.b/c", "IfNotPresent"),
            ("a.b-/c", "IfNotPresent"),
            ("example.com:/x", "IfNotPresent"),
            ("[zz]/x", "IfNotPresent"),
            ("nginx:LATEST", "IfNotPresent"),
            ("nginx:latest:1", "IfNotPresent"),
            ("x/y:latest@sha512:00", "IfNotPresent"),
            ("UPPER.com/x:latest", "Always"),
            ("a/b/c/d:latest", "Always"),
            ("docker.io/nginx", "Always"),
            ("index.docker.io/nginx:latest", "Always"),
            ("_a/b", "IfNotPresent"),
            ("a_/b", "IfNotPresent"),
            ("a.b/c..d", "IfNotPresent"),
            ("a:b/c", "IfNotPresent"),
        ] {
            assert_eq!(pull_policy(Some(image)), policy, "{image:?}");
        }
        assert_eq!(pull_policy(None), "IfNotPresent");
    }

    #[test]
    fn a_deployment_is_defaulted_in_go_field_order() {
        let mut d = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [
                        {"name": "web", "image": "nginx", "ports": [{"containerPort": 80}]},
                        {"name": "side", "image": "busybox:1",
                         "readinessProbe": {"httpGet": {"port": 80}}, "imagePullPolicy": "Never"},
                    ]},
                },
            },
        });
        default_deployment(&Resource::Deployment, &mut d);
        assert_eq!(
            d["spec"].to_string(),
            json!({
                "replicas": 1,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {
                        "containers": [
                            {"name": "web", "image": "nginx",
                             "ports": [{"containerPort": 80, "protocol": "TCP"}],
                             "resources": {}, "terminationMessagePath": "/dev/termination-log",
                             "terminationMessagePolicy": "File", "imagePullPolicy": "Always"},
                            {"name": "side", "image": "busybox:1", "resources": {},
                             "readinessProbe": {"httpGet": {"path": "/", "port": 80, "scheme": "HTTP"},
                                                "timeoutSeconds": 1, "periodSeconds": 10,
                                                "successThreshold": 1, "failureThreshold": 3},
                             "terminationMessagePath": "/dev/termination-log",
                             "terminationMessagePolicy": "File", "imagePullPolicy": "Never"},
                        ],
                        "restartPolicy": "Always",
                        "terminationGracePeriodSeconds": 30,
                        "dnsPolicy": "ClusterFirst",
                        "securityContext": {},
                        "schedulerName": "default-scheduler",
                    },
                },
                "strategy": {"type": "RollingUpdate",
                             "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                "revisionHistoryLimit": 10,
                "progressDeadlineSeconds": 600,
            })
            .to_string()
        );
    }

    #[test]
    fn only_what_is_missing_is_filled() {
        let mut d = json!({"spec": {
            "replicas": 0,
            "strategy": {"rollingUpdate": {"maxSurge": 0}},
            "revisionHistoryLimit": 0,
            "template": {"spec": {"terminationGracePeriodSeconds": 0, "dnsPolicy": "",
                                  "serviceAccount": "robot", "volumes": [{"name": "v"},
                                  {"name": "c", "configMap": {"name": "cm"}}]}},
        }});
        default_deployment(&Resource::Deployment, &mut d);
        let spec = &d["spec"];
        assert_eq!(spec["replicas"], 0);
        assert_eq!(
            spec["strategy"].to_string(),
            r#"{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":0}}"#
        );
        assert_eq!(spec["revisionHistoryLimit"], 0);
        let pod = &spec["template"]["spec"];
        assert_eq!(pod["terminationGracePeriodSeconds"], 0);
        assert_eq!(pod["dnsPolicy"], "ClusterFirst");
        assert_eq!(pod["serviceAccountName"], "robot");
        assert_eq!(
            pod["volumes"].to_string(),
            r#"[{"name":"v","emptyDir":{}},{"name":"c","configMap":{"name":"cm","defaultMode":420}}]"#
        );

        let mut claim = json!({"spec": {"template": {"spec": {"volumes": [{"name": "e",
            "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}}]}}}});
        default_deployment(&Resource::Deployment, &mut claim);
        assert_eq!(
            claim["spec"]["template"]["spec"]["volumes"][0]["ephemeral"].to_string(),
            r#"{"volumeClaimTemplate":{"metadata":{},"spec":{"accessModes":["ReadWriteOnce"],"volumeMode":"Filesystem"}}}"#
        );

        let mut recreate = json!({"spec": {"strategy": {"type": "Recreate"}}});
        default_deployment(&Resource::Deployment, &mut recreate);
        assert_eq!(
            recreate["spec"].to_string(),
            r#"{"replicas":1,"strategy":{"type":"Recreate"},"revisionHistoryLimit":10,"progressDeadlineSeconds":600}"#
        );

        let mut cm = json!({"data": {}});
        default_deployment(&Resource::ConfigMap, &mut cm);
        assert_eq!(cm, json!({"data": {}}));
    }
}
