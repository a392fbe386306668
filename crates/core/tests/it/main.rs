//! The one integration-test binary of rvlab-core.

// The page's size rules (crates/core/clippy.toml) do not concern tests: std's sorts are fine.
#![allow(clippy::disallowed_methods, reason = "tests are not in the page")]

mod engine;
#[cfg(feature = "api")]
mod etcd_layout;
mod exercises;
mod explore;
mod kubectl_engine;
mod lang;
mod narration;
// The reference's goldens use Secrets and the apiserver's whole surface (the `api` feature).
#[cfg(feature = "api")]
mod reference;
#[cfg(feature = "api")]
mod reference_lessons;
mod status;
mod store;
// The API server's surface (the `api` feature, on by default; the page builds without it).
#[cfg(feature = "api")]
mod store_api;
// The unknown-field schema and the watch tests use Secrets, lists and dry runs: the `api`
// surface (the page builds without it).
#[cfg(feature = "api")]
mod strict;
mod table;
#[cfg(feature = "api")]
mod watch;
