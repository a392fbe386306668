//! rvlab-core: the simulator and the course: the scenario language, the engine (a world as a
//! value, one step of one client), runs, the explorer, the views, lessons and exercises.
//!
//! Module map:
//! - [`lang`]: the scenario language: parser, diagnostics, highlighting;
//! - [`limits`]: every size limit (of the language, of a run), defined once;
//! - [`engine`]: the world as a value and one step of one client (client-go retry semantics);
//! - [`schedule`]: schedule tokens (`a3b2a`); [`run`]: a run, any of its worlds in O(1), expectations;
//! - [`view`]: preformatted views for the page; [`trace`]: the JSON trace;
//! - [`explore`]: every order of the clients' requests, with exact counts ([`explore::ScenarioExplorer`]);
//! - [`share`]: share links (versioned, compressed URL fragments);
//! - [`lessons`]: the built-in lessons (`crates/core/lessons/*.rvl`, compiled in);
//! - [`exercises`]: goal-checked exercises (break it / fix it), grading and the built-in course;
//! - [`kubectl`]: the kubectl model (`rvlab-kubectl`) and whether this build runs it.
//!
//! Re-exported, so the page and the CLI see one crate: the base helpers ([`json`], [`vecmap`],
//! [`sort`], [`rng`], [`decimal`], [`count`], from `rvlab-base`) and the apiserver model
//! ([`store`], [`watch`], [`names`], [`yaml`], from `rvlab-apiserver`).
//!
//! Invariants: no I/O, no wall clock, no threads, no `HashMap` iteration in anything observable;
//! compiles for native and `wasm32-unknown-unknown` with the same results.

pub use rvlab_apiserver::{names, store, watch, yaml};
pub use rvlab_base::{count, decimal, json, rng, sort, vecmap};

pub mod engine;
pub mod exercises;
pub mod explore;
pub mod kubectl;
pub mod lang;
pub mod lessons;
pub mod limits;
pub mod run;
pub mod schedule;
pub mod share;
pub mod trace;
pub mod view;
