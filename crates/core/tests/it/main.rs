//! The one integration-test binary of rvlab-core.

mod engine;
mod exercises;
mod explore;
mod lang;
mod narration;
mod store;
