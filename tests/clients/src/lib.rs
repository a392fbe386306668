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

/// What one client of a contended benchmark measured: each request's latency, its PUTs and
/// how many of them were 409s.
#[derive(Default)]
pub struct Tally {
    pub latencies: Vec<std::time::Duration>,
    pub puts: usize,
    pub conflicts: usize,
}

impl Tally {
    /// One increment of `data.count` of `object` by re-read / reapply / retry (GET, +1, PUT
    /// with the resourceVersion read; on 409 start over), PUT as `fieldManager=name`; gives up
    /// after `max_attempts`. Every request is timed.
    pub async fn increment(
        &mut self,
        http: &http::AsyncHttp,
        object: &str,
        name: &str,
        max_attempts: usize,
    ) -> anyhow::Result<()> {
        use anyhow::Context;
        let path = format!("{object}?fieldManager={name}");
        for _ in 0..max_attempts {
            let t = std::time::Instant::now();
            let mut obj = http.request("GET", object, None, None).await?.json()?;
            self.latencies.push(t.elapsed());
            let count: u64 = obj["data"]["count"]
                .as_str()
                .unwrap_or("0")
                .parse()
                .context("data.count is not a number")?;
            obj["data"]["count"] = (count + 1).to_string().into();
            let t = std::time::Instant::now();
            let r = http
                .request(
                    "PUT",
                    &path,
                    Some("application/json"),
                    Some(obj.to_string()),
                )
                .await?;
            self.latencies.push(t.elapsed());
            self.puts += 1;
            match r.code {
                200 => return Ok(()),
                409 => self.conflicts += 1,
                code => anyhow::bail!("{name}'s PUT answered {code}: {}", r.body),
            }
        }
        anyhow::bail!("{name} gave up after {max_attempts} attempts")
    }
}
