//! The one integration-test binary of rvlab-core.

// The page's size rules (crates/core/clippy.toml) do not concern tests: std's sorts are fine.
#![allow(clippy::disallowed_methods, reason = "tests are not in the page")]

mod engine;
mod exercises;
mod explore;
mod lang;
mod narration;
mod store;
mod watch;
