//! rvlab-apiserver: a pure, deterministic model of the Kubernetes apiserver.
//!
//! Module map:
//! - [`store`]: the versioned store, a model of the apiserver on etcd (HTTP-shaped requests in,
//!   Status bodies out; patches, server-side apply, lists, the etcd layout);
//! - [`watch`]: the watch cache `rvlab serve` keeps next to the store (`?watch=true` events);
//! - [`names`]: the one validator of Kubernetes object names (DNS subdomains and labels);
//! - [`yaml`]: kubectl-style YAML of an object.
//!
//! Invariants: no I/O, no wall clock, no threads, no `HashMap` iteration in anything
//! observable; `Store::handle` never panics; compiles for native and `wasm32-unknown-unknown`
//! with the same results.

pub mod names;
pub mod store;
pub mod watch;
pub mod yaml;
