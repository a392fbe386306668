//! The one integration-test binary of rvlab-core.

mod engine;
mod exercises;
mod lang;
mod store;
