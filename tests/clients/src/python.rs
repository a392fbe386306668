//! The Python scripts the tests run with the official client (`kubernetes==37.0.2`) against
//! a server on the model (`tests/python.rs`) and on etcd (`tests/etcd.rs`).

/// The seed's re-read / reapply / retry loop. NOTE: the seed story quotes no
/// Python text; this is the canonical loop of the seed story (lesson `retry-reread`'s bob,
/// `retry on conflict: get, edit, update`) in the Python client's own API, kept exactly as a
/// user would write it: read, change, replace, and on 409 start over from the read.
pub const SEED_LOOP: &str = r#"from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config()
v1 = client.CoreV1Api()

while True:
    cm = v1.read_namespaced_config_map("my-config", "default")
    cm.data["key"] = "from-bob"
    try:
        v1.replace_namespaced_config_map("my-config", "default", cm)
        break
    except ApiException as e:
        if e.status != 409:
            raise
        print("conflict, retrying")
"#;

/// Prepended to the loop (not part of it): the first read tells the test which
/// resourceVersion it got and waits for the test's go-ahead on stdin, so that a concurrent
/// writer lands exactly between that read and the replace.
pub const PAUSE_AFTER_FIRST_READ: &str = r#"import sys
import kubernetes.client

_read = kubernetes.client.CoreV1Api.read_namespaced_config_map
_reads = []

def _read_then_wait(self, *args, **kwargs):
    obj = _read(self, *args, **kwargs)
    _reads.append(obj.metadata.resource_version)
    if len(_reads) == 1:
        print("read", obj.metadata.resource_version, flush=True)
        sys.stdin.readline()
    return obj

kubernetes.client.CoreV1Api.read_namespaced_config_map = _read_then_wait
"#;
