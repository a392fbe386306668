//! rvlab-core: the pure, deterministic engine of rvlab.
//!
//! Module map:
//! - [`rng`]: the one seeded generator (SplitMix64) for jitter, uids and tie-breaks;
//! - [`decimal`]: decimal text of integer quantities (durations) without float formatting;
//! - [`json`]: helpers over `serde_json::Value` (hashing, so worlds can be `Hash`);
//! - [`store`]: the versioned store, a model of the apiserver on etcd (requests in, Status out);
//! - [`lang`]: the scenario language: parser, diagnostics, highlighting;
//! - [`limits`]: every size limit (of the language, of a run), defined once;
//! - [`names`]: the one validator of Kubernetes object names (DNS subdomains and labels);
//! - [`engine`]: the world as a value and one step of one client (client-go retry semantics);
//! - [`schedule`]: schedule tokens (`a3b2a`); [`run`]: a run, any of its worlds in O(1), expectations;
//! - [`watch`]: the watch cache the server keeps next to the store (`?watch=true` events);
//! - [`view`]: preformatted views for the page; [`yaml`]: kubectl-style YAML; [`trace`]: the JSON trace;
//! - [`explore`]: every order of the clients' requests, with exact counts ([`explore::ScenarioExplorer`]);
//! - [`share`]: share links (versioned, compressed URL fragments);
//! - [`vecmap`]: small maps and sets as sorted `Vec`s (`VecMap`, `VecSet`: page size);
//! - [`live`]: `rvlab serve`'s live view: each real request as the page's step view;
//! - [`report`]: `rvlab test`'s report over a server's trace (retries after a 409, lost updates);
//! - [`stale`]: which old state `--stale-reads K` serves a read from, and when reads turn fresh;
//! - [`lessons`]: the built-in lessons (`crates/core/lessons/*.rvl`, compiled in);
//! - [`exercises`]: goal-checked exercises (break it / fix it), grading and the built-in course.
//!
//! Invariants: no I/O, no wall clock, no threads, no `HashMap` iteration in anything observable;
//! compiles for native and `wasm32-unknown-unknown` with the same results.

pub mod count;
pub mod decimal;
pub mod engine;
pub mod exercises;
pub mod explore;
pub mod interfere;
pub mod json;
pub mod kubectl;
pub mod lang;
pub mod lessons;
pub mod limits;
pub mod live;
mod live_scenario;
pub mod names;
pub mod report;
pub mod rng;
pub mod run;
pub mod schedule;
pub mod scripted;
pub mod share;
pub mod sort;
pub mod stale;
pub mod store;
pub mod trace;
pub mod vecmap;
pub mod view;
pub mod watch;
pub mod yaml;
