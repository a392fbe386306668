//! Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`): the `k8s\0`
//! envelope and `runtime.Unknown`, decoded to the JSON object. (Owned by the `wire` helper.)
