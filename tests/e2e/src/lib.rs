//! The browser suite's harness: it builds `dist/` when missing or stale, serves it on a free
//! loopback port ([`server`]), starts `/usr/bin/chromedriver` itself, and drives headless
//! Chromium through a small blocking WebDriver client ([`webdriver`]). Journeys talk to the
//! page through the [`page::Page`] object (find / act / check, `data-testid` only).
//!
//! Module map:
//! - [`http`]: a minimal HTTP/1.1 client for loopback servers;
//! - [`server`]: the static file server for `dist/` (a re-export of the `rvlab-static` crate,
//!   the server `cargo xtask serve` runs, with the same cache headers as a real host);
//! - [`webdriver`]: the WebDriver client (`Session`, `Element`, keys);
//! - [`harness`]: start-up (dist, server, chromedriver, one shared browser per test binary);
//! - [`page`]: the playground's page object and the [`page::journey`] runner.

pub mod harness;
pub mod http;
pub mod page;
pub use rvlab_static as server;
pub mod webdriver;
