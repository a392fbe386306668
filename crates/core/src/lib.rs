//! rvlab-core: the pure, deterministic engine of rvlab.
//!
//! Module map:
//! - [`rng`]: the one seeded generator (SplitMix64) for jitter, uids and tie-breaks;
//! - [`json`]: helpers over `serde_json::Value` (hashing, so worlds can be `Hash`);
//! - [`store`]: the versioned store, a model of the apiserver on etcd (requests in, Status out).
//!
//! Invariants: no I/O, no wall clock, no threads, no `HashMap` iteration in anything observable;
//! compiles for native and `wasm32-unknown-unknown` with the same results.

pub mod explore;
pub mod json;
pub mod lang;
pub mod rng;
pub mod share;
pub mod store;
