//! rvlab-base: pure helpers that know nothing of Kubernetes, shared by every other crate.
//!
//! Module map:
//! - [`json`]: helpers over `serde_json::Value` (hashing, so worlds can be `Hash`; `object`;
//!   `same_value`, the equality that agrees with the hash);
//! - [`hash`]: FNV-1a and a byte-recording `Hasher`, the same on every platform;
//! - [`vecmap`]: small maps and sets as sorted `Vec`s (`VecMap`, `VecSet`: page size);
//! - [`sort`]: the one shared stable sort (docs/size.md);
//! - [`rng`]: the one seeded generator (SplitMix64) for jitter, uids and tie-breaks;
//! - [`decimal`]: decimal text of integer quantities (durations) without float formatting;
//! - [`count`]: exact counts of any size (the explorer's schedules);
//! - [`text`]: the closest word to a typo (did-you-mean hints);
//! - [`fieldpath`]: paths into JSON values in the scenario language's syntax, read and written.
//!
//! Invariants: no I/O, no wall clock, no threads, no `HashMap` iteration in anything
//! observable; compiles for native and `wasm32-unknown-unknown` with the same results.

pub mod count;
pub mod decimal;
pub mod fieldpath;
pub mod hash;
pub mod json;
pub mod rng;
pub mod sort;
pub mod text;
pub mod vecmap;
