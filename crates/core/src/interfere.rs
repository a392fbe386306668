//! Interference (issue #15): a named interferer that commits real, content-changing writes
//! through the store at the worst moments for the clients under test, so that code which
//! mishandles `409 Conflict` or writes without a precondition is caught. Pure and
//! deterministic: the same policy, seed and sequence of requests give the same injections.
//!
//! `rvlab serve --interfere POLICY` and `rvlab test --interfere POLICY` run it in the server,
//! under the store's lock, before the request it reacts to (docs/testing-controllers.md).

/// What the interferer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// After a client reads an object and before that client's next write to it, write the
    /// object, changing a field the client did not write (a label or annotation by default).
    ReadWrite,
    /// Before a write that carries no resourceVersion (a merge patch, an unconditional update,
    /// a client-side apply), write the same field, so that the loss is visible.
    SameField,
}

impl Policy {
    /// Reads a policy's name as the command line gives it (`read-write`, `same-field`).
    pub fn parse(name: &str) -> Result<Policy, String> {
        match name {
            "read-write" => Ok(Policy::ReadWrite),
            "same-field" => Ok(Policy::SameField),
            _ => Err(format!(
                "unknown interference policy `{name}`: use read-write or same-field"
            )),
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::ReadWrite => "read-write",
            Policy::SameField => "same-field",
        }
    }
}

/// The interferer's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub policy: Policy,
    /// The field the interferer changes (`--interfere-field PATH`, e.g. `metadata.labels.x`);
    /// `None`: the policy's default.
    pub field: Option<String>,
    /// At most this many injections per object (`--max-injections N`), so correct code
    /// converges.
    pub max_injections: u32,
    /// The seed of its choices.
    pub seed: u64,
}

/// The default of `--max-injections`.
pub const DEFAULT_MAX_INJECTIONS: u32 = 3;
/// The interferer's name, as the trace, managedFields (its field manager) and the report
/// show it.
pub const INTERFERER: &str = "rvlab-interferer";
