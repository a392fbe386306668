//! The kubectl model ([`rvlab_kubectl`], re-exported whole) as this build has it: the core's
//! `kubectl` feature decides whether scenarios run kubectl statements.

pub use rvlab_kubectl::*;

/// Whether this build runs kubectl statements (the `kubectl` feature: on in the CLI, the
/// server and the page's kubectl build `kubectl.html`, off in the page's first build
/// `index.html`, docs/size.md). Without it the parser refuses a `kubectl` line with
/// [`NOT_IN_BUILD`] and the engine never starts a [`Machine`](rvlab_kubectl::Machine), so none of the model is linked.
pub const IN_BUILD: bool = cfg!(feature = "kubectl");

/// The message of the diagnostic a build without the model gives a kubectl statement (and a
/// `file` statement, which only kubectl reads).
pub const NOT_IN_BUILD: &str = "this build of rvlab does not run kubectl statements";
