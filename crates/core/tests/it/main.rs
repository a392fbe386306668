//! The one integration-test binary of rvlab-core.

mod engine;
mod explore;
mod lang;
mod store;
