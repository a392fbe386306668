//! What the tests and benchmarks of several crates share, in one place instead of a file
//! included by path into each of them:
//! - `etcd`: real etcd clusters on loopback (Debian's `etcd-server`, which `cargo xtask test`
//!   installs) for the `--etcd` tests of `rvlab-server` and `rvlab-cli`, the real clients'
//!   replicas test and the `rvlab-etcd-bench` benchmark (`tests/clients`);
//! - `reference`: the reference kube-apiserver's goldens (`reference/goldens/`), normalised
//!   and compared with a replay's answers under the reviewed `reference/known-differences.json`:
//!   the store's replay (`rvlab-core`) and `rvlab serve`'s over HTTP (`rvlab-server`).
//!
//! Not a pure crate: it starts processes and binds ports. Only tests and benchmarks use it.

pub mod etcd;
pub mod reference;
