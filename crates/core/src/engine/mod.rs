//! The simulation engine: a [`World`] is the whole state of a run as a value (the store, every
//! client's position, variables and retry state, the virtual clock, the one generator, the lost
//! updates so far), and [`World::take_step`] runs one statement of one client (drawing the
//! scheduler's tie-break first, whoever picked the client).
//!
//! Semantics (docs/scenario-language.md, "Client statements", "Lost updates, precisely", "Schedules"; client-go `util/retry`):
//! - a step runs one statement; a local edit, a `sleep` and a backoff sleep between two
//!   attempts are steps of their own; entering or leaving a `retry` block is not a step;
//! - `retry on conflict` is client-go's `RetryOnConflict` = `OnError(backoff, IsConflict, fn)`
//!   over `wait.ExponentialBackoff`, reproduced to the nanosecond ([`backoff_delay`]);
//! - a non-2xx response outside the rules of retry stops the client with that Status; a runtime
//!   error (a missing path, adding a string to an object) stops it with reason `RuntimeError`.
//!
//! The world holds no trace: [`World::take_step`] returns a [`StepRecord`] for the caller to keep,
//! so two worlds reached by different schedules compare equal when their states are equal.
//!
//! Files: `world.rs` (the [`World`] value, setup, the queries the scheduler and the views
//! share), `step.rs` (one step: local statements, sleeps, errors), `request.rs` (building,
//! sending and recording a request), `backoff.rs` (`wait.Backoff`, the backoff sleep step),
//! `kubectl.rs` (kubectl and file statements: [`Running`]), `records.rs` ([`StepRecord`] and
//! the outcome types), `vars.rs` (client variables and
//! observed revisions), `narrate.rs` (the sentences), `expr.rs` (expressions and paths).

mod backoff;
pub mod expr;
mod kubectl;
mod narrate;
mod records;
mod request;
mod step;
mod vars;
mod world;

pub use backoff::{backoff_delay, jitter, RetryState};
pub use kubectl::{request_target, request_verb, Running, KUBECTL_ERROR};
pub use narrate::{
    fmt_duration, lost_sentence, mark, request as narrate_request, to_status, verb_noun, RequestCtx,
};
pub use records::{ClientOutcome, Failure, KubectlStep, Mark, StepKind, StepRecord, WriteKind};
pub use request::sent_resource_version;
pub use request::{Direct, Transport};
pub use vars::{Held, Revisions, Var, Vars};
pub use world::{setup_request, ClientState, Frame, World};

pub use crate::limits::{MAX_CLIENTS, MAX_STEPS};
/// The fieldManager setup objects are created with (as `kubectl create` does).
pub const SETUP_MANAGER: &str = "kubectl-create";
/// The actor name setup writes are recorded under.
pub const SETUP_ACTOR: &str = "setup";
/// The reason of a client stopped by a runtime error of its script.
pub const RUNTIME_ERROR: &str = "RuntimeError";

/// Why a run could not start or go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// A setup object could not be created.
    #[error("line {line}: setting up {object} failed: {message}")]
    Setup {
        object: String,
        line: u32,
        message: String,
    },
    /// Too many clients for schedule letters.
    #[error(
        "a scenario has at most {MAX_CLIENTS} clients (one schedule letter each), this one has {0}"
    )]
    TooManyClients(u32),
    /// The schedule token is malformed.
    #[error("schedule: {0}")]
    Token(#[from] crate::schedule::TokenError),
    /// A step of the schedule token cannot be taken.
    #[error("schedule step {step}: {error}")]
    Schedule { step: u32, error: ScheduleError },
}

/// Why a client cannot take the next step.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// There is no client with this index.
    #[error("there is no client {}", crate::schedule::letter(*.0))]
    UnknownClient(u32),
    /// The client has already finished.
    #[error("client {} ({name}) has already finished", crate::schedule::letter(*client))]
    Finished { client: u32, name: String },
}
