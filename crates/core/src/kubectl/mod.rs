//! kubectl v1.37.2's client side as a pure machine: what a `kubectl …` statement of a scenario
//! sends and prints, exactly as the real kubectl v1.37.2 (the reference's, docs/reference.md)
//! does against the apiserver (k8s.io/kubectl `pkg/cmd/{get,apply,patch,edit,replace,label,
//! annotate,delete}`; built from v0.32.5, moved to v0.37.2 by a reading of the sources between
//! them). Checked byte for byte by `tests/clients`' differential test against the reference
//! kubectl's committed outcomes, and live against the machine's kubectl 1.32.
//!
//! - [`cmdline`]: a command line (shell words, `> FILE`) into a [`Command`], with kubectl's own
//!   wording for bad input (unknown flag, unknown resource type);
//! - [`Machine`] (module `machine`): one running command: the requests it sends one per step (a GET, then the
//!   PATCH…), its retries on the virtual clock, and what it prints ([`Terminal`]);
//! - [`print`]: kubectl's printers (`-o yaml` as sigs.k8s.io/yaml, `-o json` as Go's
//!   `json.MarshalIndent`, `-o name`, `-o jsonpath=…`, the Table columns);
//! - [`jsonpath`]: kubectl's JSONPath dialect (client-go `util/jsonpath`), the subset documented
//!   there.
//!
//! Files are per client ([`Files`]): `kubectl get … -o yaml > F` saves what it printed,
//! `file "F":` statements edit it, `-f F` reads it.

/// Whether this build runs kubectl statements (the `kubectl` feature: on in the CLI, the
/// server and the page's kubectl build `kubectl.html`, off in the page's first build
/// `index.html`, docs/size.md). Without it the parser refuses a `kubectl` line with
/// [`NOT_IN_BUILD`] and the engine never starts a [`Machine`], so none of the model is linked.
pub const IN_BUILD: bool = cfg!(feature = "kubectl");

/// The message of the diagnostic a build without the model gives a kubectl statement (and a
/// `file` statement, which only kubectl reads).
pub const NOT_IN_BUILD: &str = "this build of rvlab does not run kubectl statements";

pub mod cmdline;
pub mod jsonpath;
mod machine;
pub mod print;

pub use machine::{After, Machine};

use crate::json::HValue;
use crate::store::PatchType;
use crate::store::{Resource, Response};
use crate::vecmap::VecMap;

/// A parsed kubectl command line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Command {
    /// The command line after `kubectl `, as written (redirection included), for the
    /// narration, the terminal pane and the differential test.
    pub line: String,
    /// `-n NS` / `--namespace NS` / `--namespace=NS`; `default` when absent.
    pub namespace: String,
    /// `--field-manager NAME`, when given (each verb has kubectl's own default).
    pub field_manager: Option<String>,
    /// `> FILE`: stdout goes to the client's file FILE instead of the terminal.
    pub redirect: Option<String>,
    pub verb: Verb,
}

/// One object named on the command line (`cm my-config` or `cm/my-config`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NamedObject {
    pub resource: Resource,
    pub name: String,
}

/// `-o FORMAT` of `kubectl get`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    /// No `-o`: the server's Table, printed in columns.
    Table,
    Yaml,
    Json,
    Name,
    /// `-o jsonpath=TEMPLATE` (the template as given, quotes removed by the shell words).
    JsonPath(String),
}

/// A label or annotation change of `kubectl label` / `kubectl annotate`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MetaChange {
    /// `KEY=VALUE`.
    Set { key: String, value: String },
    /// `KEY-`.
    Remove { key: String },
}

/// What the command does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Verb {
    /// `kubectl get KIND [NAME] [-o …]` (no NAME: the list).
    Get {
        resource: Resource,
        name: Option<String>,
        output: OutputFormat,
    },
    /// `kubectl apply -f F` (client-side) / `kubectl apply --server-side [--force-conflicts] -f F`.
    Apply {
        file: String,
        server_side: bool,
        force_conflicts: bool,
    },
    /// `kubectl replace -f F`.
    Replace { file: String },
    /// `kubectl create -f F`.
    Create { file: String },
    /// `kubectl create configmap NAME --from-literal=K=V…`, literals in the order given.
    CreateConfigMap {
        name: String,
        literals: Vec<(String, String)>,
    },
    /// `kubectl patch KIND NAME [--type merge|json|strategic] -p '…'` (the patch text was
    /// checked to be JSON by the parser; kept as written).
    Patch {
        target: NamedObject,
        patch_type: PatchType,
        patch: String,
    },
    /// `kubectl delete KIND NAME`.
    Delete { target: NamedObject },
    /// `kubectl edit KIND NAME`, the edit written in the scenario's block
    /// (`StmtKind::Kubectl::edits`).
    Edit { target: NamedObject },
    /// `kubectl label KIND NAME K=V… K-… [--overwrite] [--resource-version=N]`.
    Label {
        target: NamedObject,
        changes: Vec<MetaChange>,
        overwrite: bool,
        resource_version: Option<String>,
    },
    /// `kubectl annotate …`, as `Label` for annotations.
    Annotate {
        target: NamedObject,
        changes: Vec<MetaChange>,
        overwrite: bool,
        resource_version: Option<String>,
    },
}

/// One of a client's files.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct File {
    /// The file's text as kubectl would read it from disk (what `> F` wrote, or the YAML of
    /// `value` for a file the scenario wrote or edited).
    pub text: String,
    /// The object the text holds, when it holds one (what `-o yaml`/`-o json` printed, or the
    /// scenario's value); `None` for other text (`-o name`, `jsonpath`, an empty file).
    pub value: Option<HValue>,
}

/// A client's files by name.
pub type Files = VecMap<String, File>;

/// What the server answered a request: the response and its `Warning` header texts (each the
/// text of one `Warning: 299 - "…"`), and the virtual clock when it arrived (milliseconds, as
/// `store::Env::now_ms`: the AGE column of a Table).
#[derive(Debug, Clone, Copy)]
pub struct Reply<'a> {
    pub response: &'a Response,
    pub warnings: &'a [String],
    pub now_ms: u64,
}

/// One piece of what a command printed, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// Standard error (else standard output).
    pub stderr: bool,
    pub text: String,
}

/// What a finished command printed, and its exit status: the terminal, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Terminal {
    /// Output in the order it was written (a `Warning:` line on stderr comes before the
    /// `configured` line on stdout).
    pub chunks: Vec<Chunk>,
    pub exit: u8,
    /// When the command failed because of an error Status from the server: that Status (the
    /// engine's `Failure` takes its reason, so `expect bob fails with Conflict` holds).
    pub status: Option<HValue>,
}

impl Terminal {
    /// Everything written to standard output.
    pub fn stdout(&self) -> String {
        self.stream(false)
    }

    /// Everything written to standard error.
    pub fn stderr(&self) -> String {
        self.stream(true)
    }

    fn stream(&self, stderr: bool) -> String {
        self.chunks
            .iter()
            .filter(|c| c.stderr == stderr)
            .map(|c| c.text.as_str())
            .collect()
    }

    /// Appends text to stdout or stderr.
    pub fn write(&mut self, stderr: bool, text: &str) {
        match self.chunks.last_mut() {
            Some(last) if last.stderr == stderr => last.text.push_str(text),
            _ => self.chunks.push(Chunk {
                stderr,
                text: text.to_string(),
            }),
        }
    }
}
