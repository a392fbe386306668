//! What a step did and what a client came to: [`StepRecord`], [`ClientOutcome`], [`Failure`],
//! and the kinds that label them ([`WriteKind`], [`StepKind`], [`Mark`]).

use super::RUNTIME_ERROR;
use crate::json::HValue;
use crate::kubectl::Terminal;
use crate::store::{LostUpdate, ObjectRef, Request, Response};
use std::fmt;

/// What a client's run came to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ClientOutcome {
    Succeeded,
    Failed(Failure),
}

/// Why a client stopped: an error Status, or a runtime error of its script.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Failure {
    /// The Status reason (`Conflict`, `AlreadyExists`, `NotFound`, `Invalid`, …, possibly
    /// empty), or [`RUNTIME_ERROR`].
    pub reason: String,
    pub message: String,
    /// The HTTP code, when a response caused it.
    pub code: Option<u16>,
    /// The Status body, exactly as the server sent it.
    pub status: Option<HValue>,
}

impl Failure {
    pub(super) fn runtime(message: String) -> Self {
        Failure {
            reason: RUNTIME_ERROR.into(),
            message,
            code: None,
            status: None,
        }
    }

    pub(super) fn from_response(r: &Response) -> Self {
        let reason = r.body["reason"].as_str().unwrap_or("").to_string();
        let message = r.body["message"].as_str().unwrap_or("").to_string();
        Failure {
            reason,
            message,
            code: Some(r.code),
            status: Some(HValue(r.body.clone())),
        }
    }

    /// client-go's `errors.IsConflict`: reason `Conflict`, or a 409 whose reason is not a known
    /// one (so `AlreadyExists` is *not* a conflict).
    pub fn is_conflict(&self) -> bool {
        crate::store::is_conflict_reason(&self.reason, self.code.unwrap_or(0))
    }

    /// `409 Conflict`, `RuntimeError`.
    pub fn label(&self) -> String {
        match self.code {
            Some(c) if self.reason.is_empty() => format!("{c}"),
            Some(c) => format!("{c} {}", self.reason),
            None => self.reason.clone(),
        }
    }
}

/// Which write made a revision (for narration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WriteKind {
    Setup,
    Get,
    Create,
    Update,
    MergePatch,
    JsonPatch,
    StrategicPatch,
    Apply,
    Delete,
}

/// What a step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// It sent a request.
    Request,
    /// A local edit or binding: nothing sent.
    Local,
    /// `sleep`.
    Sleep,
    /// The backoff sleep between two attempts.
    Backoff,
    /// A runtime error stopped the client before anything was sent.
    Error,
}

/// How the timeline marks a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Ok,
    Conflict,
    Invalid,
    NotFound,
    LostUpdate,
    OtherError,
    Local,
    Sleep,
}

impl Mark {
    /// `ok`, `conflict`, `invalid`, `notfound`, `lost-update`, `other-error`, `local`, `sleep`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Ok => "ok",
            Mark::Conflict => "conflict",
            Mark::Invalid => "invalid",
            Mark::NotFound => "notfound",
            Mark::LostUpdate => "lost-update",
            Mark::OtherError => "other-error",
            Mark::Local => "local",
            Mark::Sleep => "sleep",
        }
    }

    /// Reads [`Mark::as_str`]'s form.
    pub fn parse(s: &str) -> Option<Mark> {
        [
            Mark::Ok,
            Mark::Conflict,
            Mark::Invalid,
            Mark::NotFound,
            Mark::LostUpdate,
            Mark::OtherError,
            Mark::Local,
            Mark::Sleep,
        ]
        .into_iter()
        .find(|m| m.as_str() == s)
    }
}

/// What one step did, for the timeline, the narration and the trace (kept outside the world).
#[derive(Debug, Clone, PartialEq)]
pub struct StepRecord {
    pub client: u32,
    /// The statement's line (for a backoff sleep: the `retry` line).
    pub line: u32,
    /// The statement's text (for a backoff sleep: `backoff sleep (DefaultRetry)`).
    pub statement: String,
    /// The virtual clock when the step ran, in nanoseconds.
    pub clock_nanos: u64,
    pub action: StepKind,
    pub verb: Option<WriteKind>,
    pub target: Option<ObjectRef>,
    pub request: Option<Request>,
    /// The resourceVersion the request carried in its body, as sent (see
    /// `request::sent_resource_version`).
    pub sent_resource_version: Option<String>,
    /// The target's resourceVersion in the store when the request was served (its etcd
    /// `mod_revision`; `None`: absent), for the storage step (`view::StepView::storage`).
    pub stored_revision: Option<u64>,
    pub response: Option<Response>,
    /// The revision the request wrote, if it changed the store.
    pub revision: Option<u64>,
    pub lost_updates: Vec<LostUpdate>,
    pub narration: String,
    pub mark: Mark,
    /// For a sleep: how long.
    pub sleep_nanos: Option<u64>,
    /// Set when the client finished with this step.
    pub finished: Option<ClientOutcome>,
    /// For a step of a `kubectl` statement: the command and where this step is in it.
    pub kubectl: Option<KubectlStep>,
}

/// A step of a `kubectl` statement: each request the command sends is one step, and the step
/// of its last request (or the only step of a command that fails before sending anything)
/// carries what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubectlStep {
    /// The command line as typed, from `kubectl` (`kubectl apply -f my-config.yaml`).
    pub command: String,
    /// Which request of the command this step sent, from 0 (0 also for a command that failed
    /// before sending anything).
    pub request_index: u32,
    /// What the command printed and its exit status, on the step that finished it.
    pub terminal: Option<Terminal>,
}

impl StepRecord {
    pub(super) fn new(
        client: u32,
        line: u32,
        statement: String,
        clock_nanos: u64,
        action: StepKind,
    ) -> Self {
        StepRecord {
            client,
            line,
            statement,
            clock_nanos,
            action,
            verb: None,
            target: None,
            request: None,
            sent_resource_version: None,
            stored_revision: None,
            response: None,
            revision: None,
            lost_updates: Vec::new(),
            narration: String::new(),
            mark: Mark::Local,
            sleep_nanos: None,
            finished: None,
            kubectl: None,
        }
    }
}

impl fmt::Display for ClientOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientOutcome::Succeeded => write!(f, "succeeded"),
            ClientOutcome::Failed(e) => write!(f, "failed with {}: {}", e.label(), e.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn already_exists_is_not_a_conflict() {
        let mk = |reason: &str, code| Failure {
            reason: reason.into(),
            message: String::new(),
            code: Some(code),
            status: None,
        };
        assert!(mk("Conflict", 409).is_conflict());
        assert!(!mk("AlreadyExists", 409).is_conflict());
        assert!(mk("", 409).is_conflict());
        assert!(!mk("Invalid", 422).is_conflict());
    }
}
