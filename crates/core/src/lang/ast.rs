//! The scenario's syntax tree, as the parser produces it and the engine runs it.
//!
//! Every node keeps its [`Span`], so diagnostics, the editor and the timeline can point at the
//! text. Values are `serde_json::Value`s; durations are virtual nanoseconds (as Go's
//! `time.Duration`, so client-go's backoff arithmetic is reproduced exactly).

use crate::store::ObjectRef;
use serde_json::Value;

/// A region of the source text: byte offsets `start..end`, and the 1-based line and column
/// (in characters) of `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

/// A parsed scenario (docs/scenario-language.md, "Top level").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scenario {
    pub title: Option<String>,
    pub about: Option<String>,
    /// Setup objects, in order.
    pub objects: Vec<SetupObject>,
    /// Clients in declaration order: client `i` has schedule letter `b'a' + i`.
    pub clients: Vec<Client>,
    /// The default schedule token, as written (validated by the engine when it runs).
    pub schedule: Option<(String, Span)>,
    pub expectations: Vec<Expectation>,
    /// Top-level `file "NAME" = {…}` / `file "NAME":` with field lines: every client starts
    /// with its own copy (kubectl's `-f NAME` reads it), in text order.
    pub files: Vec<SetupFile>,
    /// Exercise header lines (`exercise`, `instructions`, `hint`, `goal`, `editable`; see
    /// docs/exercises.md), in text order. Empty for a plain scenario; the engine ignores them.
    pub exercise: Vec<ExerciseLine>,
}

/// One exercise header line. A scenario with such lines still runs as a plain scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct ExerciseLine {
    pub kind: ExerciseLineKind,
    /// The whole line, keyword included.
    pub span: Span,
    /// The value: the string, the client name, or the `fix` keyword.
    pub value_span: Span,
}

/// What an exercise header line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExerciseLineKind {
    /// `exercise "ID"` (once): the exercise's id, `[a-z0-9-]`.
    Id(String),
    /// `instructions "…"` (repeatable): a paragraph of instructions.
    Instructions(String),
    /// `hint "…"` (repeatable): a hint, shown one at a time.
    Hint(String),
    /// `goal break "EXPECTATION"` (once): reach a run in which this expectation (the text
    /// after `expect`, as written) fails.
    GoalBreak(String),
    /// `goal fix` (once): edit the editable clients so that every schedule satisfies every
    /// expectation.
    GoalFix,
    /// `editable CLIENT` (repeatable): a client the learner may edit.
    Editable(String),
}

/// `object REF [at resourceVersion N]:` with field lines, or `object REF = {…}`.
#[derive(Debug, Clone, PartialEq)]
pub struct SetupObject {
    pub target: ObjectRef,
    /// `at resourceVersion N`: the revision this object is created at.
    pub at_revision: Option<u64>,
    pub body: SetupBody,
    pub span: Span,
}

/// A top-level `file "NAME"`: a file every client starts with (issue #14).
#[derive(Debug, Clone, PartialEq)]
pub struct SetupFile {
    pub name: String,
    /// The file's object (literals only), in the setup objects' two forms.
    pub body: SetupBody,
    pub span: Span,
}

/// The body of a setup object.
#[derive(Debug, Clone, PartialEq)]
pub enum SetupBody {
    /// Lines `PATH = EXPR` (expressions here may only use literals).
    Fields(Vec<(Path, Expr)>),
    /// `= {…}`.
    Literal(Expr),
}

/// A concurrent client.
#[derive(Debug, Clone, PartialEq)]
pub struct Client {
    pub name: String,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// A client statement with its place in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    /// The statement's own line (for a block statement: its header line only).
    pub span: Span,
    /// The statement's source text, trimmed (for a block: the header, e.g. `retry on conflict:`).
    pub text: String,
}

/// Client statements (docs/scenario-language.md, "Client statements").
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `VAR = get REF [status]`.
    Get {
        var: String,
        target: ObjectRef,
        /// `status`: the request goes to the object's status subresource (`…/NAME/status`).
        status: bool,
    },
    /// `VAR.PATH = EXPR` (a local edit; `path` non-empty) or `VAR = EXPR` (`path` empty).
    Assign {
        var: String,
        path: Path,
        value: Expr,
    },
    /// `update VAR [status]` / `replace VAR [status]`.
    Update { var: String, status: bool },
    /// `[VAR =] create REF [BODY]`.
    Create {
        var: Option<String>,
        target: ObjectRef,
        body: Option<Expr>,
    },
    /// `[VAR =] patch REF [status] merge|json|strategic BODY`.
    Patch {
        var: Option<String>,
        target: ObjectRef,
        status: bool,
        patch_type: PatchType,
        body: Expr,
    },
    /// `[VAR =] apply REF [status] BODY as MANAGER [force]`.
    Apply {
        var: Option<String>,
        target: ObjectRef,
        status: bool,
        body: Expr,
        manager: String,
        force: bool,
    },
    /// `delete REF [precondition resourceVersion EXPR] [precondition uid EXPR]`.
    Delete {
        target: ObjectRef,
        resource_version: Option<Expr>,
        uid: Option<Expr>,
    },
    /// `sleep DURATION` (nanoseconds).
    Sleep { nanos: u64 },
    /// `retry on conflict [with POLICY]:` + block.
    Retry { policy: Backoff, body: Vec<Stmt> },
    /// `kubectl …` (issue #14): a kubectl 1.32 command line. `kubectl edit KIND NAME:` takes
    /// a block of `PATH = EXPR` lines, the edit made in the editor (`edits`, else empty).
    Kubectl {
        cmd: crate::kubectl::Command,
        edits: Vec<(Path, Expr)>,
    },
    /// `file "NAME" = EXPR` (the whole file) or `file "NAME":` + `PATH = EXPR` lines (edits
    /// of the client's file NAME, created when absent): local, nothing is sent.
    File { name: String, body: SetupBody },
}

impl StmtKind {
    /// Whether running this statement sends a request: the one rule the checker, the engine,
    /// the explorer (statements that send none never create a choice) and the views use. A
    /// `retry` block sends nothing itself (entering it is not a step).
    pub fn sends_request(&self) -> bool {
        match self {
            StmtKind::Get { .. }
            | StmtKind::Update { .. }
            | StmtKind::Create { .. }
            | StmtKind::Patch { .. }
            | StmtKind::Apply { .. }
            | StmtKind::Delete { .. }
            | StmtKind::Kubectl { .. } => true,
            StmtKind::Assign { .. }
            | StmtKind::Sleep { .. }
            | StmtKind::Retry { .. }
            | StmtKind::File { .. } => false,
        }
    }
}

/// The PATCH flavours (a `patch` statement sends merge, JSON or strategic; apply is its own
/// statement).
pub use crate::store::PatchType;

/// apimachinery's `wait.Backoff`, with the name it was given in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    /// `DefaultRetry`, `DefaultBackoff`, or `backoff(…)` for a custom policy.
    pub name: String,
    /// At most this many attempts.
    pub steps: u32,
    /// The first sleep, in nanoseconds.
    pub duration_nanos: u64,
    pub factor: f64,
    pub jitter: f64,
    /// 0 means no cap.
    pub cap_nanos: u64,
}

impl Backoff {
    /// client-go `retry.DefaultRetry`: 5 steps, 10ms, factor 1.0, jitter 0.1 (the same at
    /// v0.37.2, the reference's release: `util/retry/util.go`).
    pub fn default_retry() -> Self {
        Backoff {
            name: "DefaultRetry".into(),
            steps: 5,
            duration_nanos: 10_000_000,
            factor: 1.0,
            jitter: 0.1,
            cap_nanos: 0,
        }
    }
    /// client-go `retry.DefaultBackoff`: 4 steps, 10ms, factor 5.0, jitter 0.1 (the same at
    /// v0.37.2).
    pub fn default_backoff() -> Self {
        Backoff {
            name: "DefaultBackoff".into(),
            steps: 4,
            duration_nanos: 10_000_000,
            factor: 5.0,
            jitter: 0.1,
            cap_nanos: 0,
        }
    }
}

pub use crate::fieldpath::{Path, PathSeg};

/// An expression with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// Expressions (docs/scenario-language.md, "Client statements").
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A JSON literal: string, number, `true`, `false`, `null`.
    Literal(Value),
    /// `VAR` or `VAR.PATH`.
    Var { name: String, path: Path },
    /// `{key: EXPR, …}`, keys in written order.
    Object(Vec<(String, Expr)>),
    /// `[EXPR, …]`.
    Array(Vec<Expr>),
    /// `EXPR + EXPR`, `EXPR - EXPR`.
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
}

/// An `expect` line (docs/scenario-language.md, "Expectations").
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    pub kind: ExpectKind,
    /// The text after `expect`, as written (trimmed), e.g. `no lost updates`.
    pub text: String,
    pub span: Span,
}

/// What an expectation checks.
#[derive(Debug, Clone, PartialEq)]
pub enum ExpectKind {
    /// `expect no lost updates`.
    NoLostUpdates,
    /// `expect REF PATH == EXPR` / `!=`.
    Field {
        target: ObjectRef,
        path: Path,
        equal: bool,
        value: Expr,
    },
    /// `expect REF PATH contains VALUE`: the array at PATH has an element equal to VALUE.
    Contains {
        target: ObjectRef,
        path: Path,
        value: Expr,
    },
    /// `expect REF exists`.
    Exists(ObjectRef),
    /// `expect REF is deleted`.
    Deleted(ObjectRef),
    /// `expect CLIENT succeeds`.
    Succeeds(String),
    /// `expect CLIENT fails with REASON`.
    FailsWith { client: String, reason: String },
    /// `expect all clients succeed`.
    AllSucceed,
    /// `expect CLIENT prints "TEXT"`: the client's last kubectl command printed TEXT (on
    /// stdout or stderr, anywhere in its output).
    Prints { client: String, text: String },
    /// `expect CLIENT exits N`: the client's last kubectl command exited with status N.
    Exits { client: String, code: u8 },
}
