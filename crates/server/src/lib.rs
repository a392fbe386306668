//! `rvlab serve`: an HTTP server on loopback that speaks enough of the Kubernetes REST API for
//! the real kubectl 1.32, the Python client and kube-rs, answered by `rvlab-core`'s store (one
//! serialised, linearizable state). This crate is transport only: the apiserver's rules are
//! the core's (`rvlab_core::store`), the wire formats of discovery, OpenAPI and protobuf are in
//! [`wire`]. docs/serve.md.

pub mod wire;
