//! The one integration-test binary of rvlab-core.

mod engine;
mod lang;
mod store;
