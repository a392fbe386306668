//! Every bound of the server, in one place (docs/serve.md, "Bounds", quotes each figure).

use std::time::Duration;

/// Request bodies: the apiserver's `MaxRequestBodyBytes` default, 3 MiB (3,145,728 bytes);
/// a larger body is answered 413 `Request entity too large: limit is 3145728`.
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// The request line plus headers, in bytes: Go's `http.DefaultMaxHeaderBytes` (1 MiB), what the
/// apiserver's `http.Server` uses. Beyond it hyper answers `431 Request Header Fields Too Large`
/// and closes the connection (as Go's server does).
pub const MAX_HEADER_BYTES: usize = 1 << 20;

/// Header lines per request. Go has no count limit of its own (only the size above); hyper
/// needs one: beyond it, 431 and the connection is closed.
pub const MAX_HEADERS: usize = 128;

/// A client that connects and does not finish sending a request's headers within this time
/// (including an idle keep-alive connection between requests) is disconnected.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A request whose body has not fully arrived within this time is dropped (the connection is
/// closed): the apiserver's default `--request-timeout` is one minute.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(60);

/// Open connections at once. A connection beyond it is accepted and closed at once, so the
/// kernel's backlog never fills with clients that are not served.
pub const MAX_CONNECTIONS: usize = 1024;

/// Open watches at once. One more is answered `429 Too many requests, please try again later.`
/// (the apiserver's max-in-flight answer, with `Retry-After: 1`).
pub const MAX_WATCHERS: usize = 256;

/// Steps kept in memory for `GET /rvlab/v1/trace`, by their JSON size: beyond it the oldest
/// steps are dropped from memory (the `--trace` file keeps every step).
pub const TRACE_MEMORY_BYTES: usize = 64 * 1024 * 1024;

/// Open live-view streams (`GET /rvlab/v1/live`) at once; one more is answered 429 as a watch.
pub const MAX_LIVE_VIEWERS: usize = 32;

/// A watch that allows bookmarks gets one this often (the apiserver's is about a minute).
pub const BOOKMARK_INTERVAL: Duration = Duration::from_secs(60);

/// Distinct clients (by User-Agent) whose observed revisions are tracked; a client beyond it
/// is tracked as having observed nothing: `rvlab_instruments::limits::MAX_TRACKED_CLIENTS`.
pub const MAX_TRACKED_CLIENTS: usize = rvlab_instruments::limits::MAX_TRACKED_CLIENTS;

/// `--stale-reads K` lags a read at most this many writes behind (the server keeps K + 1
/// states of the store): the core's `rvlab_instruments::limits::MAX_STALE_READS`.
pub const MAX_STALE_READS: u32 = rvlab_instruments::limits::MAX_STALE_READS;

/// A watch that lags behind (`--stale-reads K`) catches up, delivering the changes it held
/// back, once no write has come for this long: a lagging cache catches up when writes pause.
pub const STALE_CATCH_UP: Duration = Duration::from_secs(1);

/// The bounds a server runs with; [`Limits::default`] is the documented figures above. Tests
/// lower them to reach them cheaply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    pub max_body_bytes: usize,
    pub max_header_bytes: usize,
    pub max_headers: usize,
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
    pub max_connections: usize,
    pub max_watchers: usize,
    pub max_live_viewers: usize,
    pub trace_memory_bytes: usize,
    pub bookmark_interval: Duration,
    pub stale_catch_up: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: MAX_BODY_BYTES,
            max_header_bytes: MAX_HEADER_BYTES,
            max_headers: MAX_HEADERS,
            header_read_timeout: HEADER_READ_TIMEOUT,
            body_read_timeout: BODY_READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            max_watchers: MAX_WATCHERS,
            max_live_viewers: MAX_LIVE_VIEWERS,
            trace_memory_bytes: TRACE_MEMORY_BYTES,
            bookmark_interval: BOOKMARK_INTERVAL,
            stale_catch_up: STALE_CATCH_UP,
        }
    }
}
