//! The real clients against `rvlab serve`: kubectl 1.32 (or the version `cargo xtask install`
//! could find, see [`tools`]), the official Python client `kubernetes==37.0.2`, and kube-rs in
//! the tests of this crate; the server benchmark in `src/bin/bench.rs` (`cargo xtask bench`).
//!
//! Module map:
//! - [`tools`]: where the real binaries are (env vars, the machine image, `.tools/`);
//! - [`lab`]: one in-process server (`rvlab_server::spawn` on `127.0.0.1:0`) with its own
//!   kubeconfig, `HOME` and `KUBECACHEDIR`, and the clients run against it;
//! - [`process`]: running a real binary with a deadline, capturing stdout, stderr, exit code;
//!   a [`process::Stream`] for the ones that keep running (`kubectl get -w`);
//! - [`differential`]: the kubectl differential test (the model against the real kubectl);
//! - [`python`]: the seed's loop in the Python client, and its pause for a concurrent write;
//! - [`http`]: a second client through plain HTTP (hyper), blocking for tests, async for the
//!   benchmark.

pub mod differential;
pub mod http;
pub mod lab;
pub mod process;
pub mod python;
pub mod tools;

pub use lab::Lab;
pub use process::{Ran, Stream};

/// The median of the benchmarks' runs (`rvlab-server-bench`, `rvlab-etcd-bench`); NaN for none.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_unstable_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}
