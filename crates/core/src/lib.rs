//! rvlab-core: the pure, deterministic engine of rvlab, in three layers of modules (each may
//! use the ones before it; ARCHITECTURE.md, "Layers"):
//!
//! 1. Helpers that know nothing of Kubernetes:
//!    [`json`] (hashing `serde_json::Value` so worlds can be `Hash`, `object`, `same_value`),
//!    [`hash`] (FNV-1a, a byte-recording `Hasher`), [`vecmap`] (small sorted maps and sets),
//!    [`sort`] (the one shared sort), [`rng`] (the one seeded generator), [`decimal`]
//!    (decimal text of integer quantities), [`count`] (exact counts of any size), [`text`]
//!    (did-you-mean), [`fieldpath`] (paths into JSON values, read and written).
//! 2. The apiserver model: [`store`] (the versioned store: Status bodies, patches, server-side
//!    apply, lists, the etcd layout), [`watch`] (the watch cache), [`names`] (the one validator
//!    of object names), [`yaml`] (kubectl-style YAML); and the kubectl model, [`kubectl`].
//! 3. The simulator and the course: [`lang`] (the scenario language), [`limits`], [`engine`]
//!    (the world as a value, one step of one client), [`schedule`] (tokens), [`run`], [`view`]
//!    (preformatted views), [`trace`] (the JSON trace), [`explore`] (every order of the
//!    clients' requests, exact counts), [`share`] (share links), [`lessons`], [`exercises`].
//!
//! Invariants: no I/O, no wall clock, no threads, no `HashMap` iteration in anything observable;
//! compiles for native and `wasm32-unknown-unknown` with the same results.

pub mod count;
pub mod decimal;
pub mod engine;
pub mod exercises;
pub mod explore;
pub mod fieldpath;
pub mod hash;
pub mod json;
pub mod kubectl;
pub mod lang;
pub mod lessons;
pub mod limits;
pub mod names;
pub mod rng;
pub mod run;
pub mod schedule;
pub mod share;
pub mod sort;
pub mod store;
pub mod text;
pub mod trace;
pub mod vecmap;
pub mod view;
pub mod watch;
pub mod yaml;
