//! Every size limit of the core, in one place: the language's (each reported as a diagnostic
//! that names the limit; none of them can make the parser panic or run away) and the run's.
//! The language, the engine, schedules and runs all import them from here.

/// The largest scenario text accepted, in bytes (64 KiB).
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;
/// At most this many clients (one schedule letter each, `a` to `z`).
pub const MAX_CLIENTS: u32 = 26;
/// At most this many steps in one run (a run that reaches it stops and says so).
pub const MAX_STEPS: u32 = 10_000;
/// At most this many statements in one client, counting those inside `retry` blocks.
pub const MAX_STATEMENTS_PER_CLIENT: usize = 200;
/// At most this many setup objects.
pub const MAX_OBJECTS: usize = 100;
/// At most this many `expect` lines.
pub const MAX_EXPECTATIONS: usize = 100;
/// Brackets (`{`, `[`, `(`) and indented blocks may nest at most this deep.
pub const MAX_NESTING_DEPTH: usize = 8;
/// The longest string literal, in bytes after escapes are decoded.
pub const MAX_STRING_BYTES: usize = 16 * 1024;
/// The longest number literal, in characters.
pub const MAX_NUMBER_CHARS: usize = 32;
/// The longest duration: one day, in nanoseconds.
pub const MAX_DURATION_NANOS: u64 = 24 * 60 * 60 * 1_000_000_000;
/// The most digits after the point in a `backoff(…)` policy's `factor` or `jitter` (exact
/// decimals: `1.5`, `0.125`).
pub const MAX_BACKOFF_DECIMALS: u32 = 6;
/// The largest `steps` of a `backoff(…)` policy.
pub const MAX_RETRY_STEPS: u32 = 100;
/// The largest array index in a path (`spec.containers[0]`).
pub const MAX_INDEX: u32 = 10_000;
/// The largest run-length count in a schedule token (`a3b2`): a count can ask for every step a
/// run may take, and no more.
pub const MAX_SCHEDULE_COUNT: u32 = MAX_STEPS;
/// The longest object name and namespace: the apiserver model's (`crate::names`).
pub use crate::names::{MAX_NAMESPACE_CHARS, MAX_NAME_CHARS};
/// At most this many diagnostics are reported for one text.
pub const MAX_DIAGNOSTICS: usize = 100;
