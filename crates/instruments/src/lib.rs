//! rvlab-instruments: what `rvlab serve` and `rvlab test` add around a store, as pure values.
//!
//! Module map:
//! - [`pipeline`]: the server's state ([`pipeline::Lab`]) and one store request served in the
//!   domain's order (interference, the commit, stale reads, the books, the trace, the live
//!   step), returning the answer and the I/O the server must do;
//! - [`client`]: client names and programs, what a URL addresses, observed revisions;
//! - [`trace`]: the server's trace kept in memory, and a step's JSON;
//! - [`limits`]: the live history's, stale reads' and observed clients' bounds;
//! - [`interfere`]: the interferer of `--interfere` (the write committed before a request);
//! - [`scripted`]: `--interfere scenario FILE`, a scenario's world as the other writers;
//! - [`stale`]: which old state `--stale-reads K` serves a read from, and when reads turn fresh;
//! - [`live`]: the live view: each real request as the page's step view (and, in its private
//!   `live_scenario` module, "Save as scenario");
//! - [`report`]: `rvlab test`'s report over a server's trace (retries after a 409, lost updates).
//!
//! Invariants: no I/O, no wall clock, no threads, no `HashMap` iteration in anything
//! observable; the server holds the I/O and calls these under its one lock.

pub mod client;
pub mod interfere;
pub mod limits;
pub mod live;
mod live_scenario;
pub mod pipeline;
pub mod report;
pub mod scripted;
pub mod stale;
pub mod trace;

/// The plan of `--interfere`, one line, as `rvlab serve` prints it on standard error at start:
/// a scenario's ([`scripted::plan`]) or a policy of writes' ([`interfere::InterferenceSettings::writes_plan`]).
pub fn interference_plan(settings: &interfere::InterferenceSettings) -> String {
    if settings.policy == interfere::Policy::Scenario {
        scripted::plan(settings)
    } else {
        settings.writes_plan()
    }
}
