//! `rvlab-static`: the static file server for the release build in `dist/`, with the cache
//! headers a host should use (docs/deploy.md). `cargo xtask serve` and the browser suite both
//! serve the page with it, so the suite loads the page the way a real host delivers it.
//!
//! - [`policy`]: `Cache-Control` by file name: content-hashed files are immutable for a year,
//!   everything else (`index.html`, `embed-sample.html`) is revalidated on every use;
//! - [`etag`]: strong ETags (a content hash) and `If-None-Match` (answered with 304);
//! - [`encoding`]: `Accept-Encoding`: a file with a precompressed `FILE.gz` next to it (as
//!   `cargo xtask dist` writes them) is sent gzip'd to a client that accepts gzip, as nginx's
//!   `gzip_static on;` or Caddy's `precompressed gzip` do;
//! - [`files`]: request path → file under a root (nothing escapes it), Content-Type;
//! - [`server`]: the [`Server`] handle: its URL, a request log, the roots it serves (switchable
//!   at run time, the first root that has a file wins) and an optional mount prefix.
//!
//! HTTP is written by hand over `std::net` (GET and HEAD, one request per connection,
//! loopback) rather than with a crate, because the browser suite must compile in seconds on 2
//! cores. Measured here (2 shared cores, load about 2, clean target, the workspace's dev profile
//! with dependencies at opt-level 2): this crate with anyhow builds in 3.8 s; a probe crate with
//! `tiny_http` 0.12 and anyhow in 16.4 s (4.4 s at opt-level 0).

pub mod encoding;
pub mod etag;
pub mod files;
pub mod policy;
pub mod server;

pub use policy::cache_control;
pub use server::{file_answer, serve, serve_at, Answer, Logged, Server};
