//! Browser harness.
