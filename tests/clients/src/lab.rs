//! One test's world: an in-process server ([`rvlab_server::spawn`] on `127.0.0.1:0`, loaded
//! with a scenario's `object` setup), a temporary directory with a kubeconfig for it
//! (client-go `tools/clientcmd`), a fresh `HOME` and `KUBECACHEDIR` (kubectl's discovery and
//! HTTP caches, keyed by host and port only, never leak between tests: cli-runtime
//! `pkg/genericclioptions/config_flags.go`), and the real clients run against it with a
//! cleared environment.

use crate::http::Http;
use crate::process::{self, Ran, Stream};
use crate::tools;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long one kubectl or Python run may take. Client-side apply against a stale
/// resourceVersion retries for about 4.7 s (kubectl `pkg/cmd/apply/patcher.go`); this is a bound
/// for a hung client, not a timing assertion.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A running server and the files its clients use.
pub struct Lab {
    server: Option<rvlab_server::Handle>,
    url: String,
    dir: tempfile::TempDir,
}

/// The setup of a built-in lesson (`crates/core/lessons/NN-ID.rvl`), e.g. `stale-update`.
pub fn lesson(id: &str) -> Result<&'static str> {
    rvlab_core::lessons::lesson(id)
        .map(|l| l.source)
        .with_context(|| format!("no lesson `{id}`"))
}

impl Lab {
    /// A server loaded with the `object` lines of `setup` (a scenario's text; `None`: empty).
    pub fn start(setup: Option<&str>) -> Result<Lab> {
        Lab::start_with(setup, None)
    }

    /// A server loaded with `setup`, with an interferer (`--interfere POLICY`, issue #15).
    pub fn start_with(
        setup: Option<&str>,
        interfere: Option<rvlab_instruments::interfere::InterferenceSettings>,
    ) -> Result<Lab> {
        Lab::serving(rvlab_server::Options {
            setup: setup.map(str::to_owned),
            interfere,
            ..rvlab_server::Options::default()
        })
    }

    /// A server on etcd (`--etcd URLS`, issue #17) loaded with `setup` where the etcd does
    /// not have its objects yet: several labs on one etcd are replicas of one API server.
    pub fn on_etcd(setup: Option<&str>, urls: &str) -> Result<Lab> {
        Lab::serving(rvlab_server::Options {
            setup: setup.map(str::to_owned),
            etcd: Some(urls.to_owned()),
            ..rvlab_server::Options::default()
        })
    }

    /// A server with `options`, on `127.0.0.1:0`.
    fn serving(options: rvlab_server::Options) -> Result<Lab> {
        let server = rvlab_server::spawn(rvlab_server::Options {
            listen: "127.0.0.1:0".into(),
            ..options
        })?;
        let url = server.url();
        let dir = tempfile::Builder::new()
            .prefix("rvlab-clients-")
            .tempdir()?;
        for sub in ["home", "cache"] {
            std::fs::create_dir(dir.path().join(sub))?;
        }
        // The server's own kubeconfig, as `rvlab serve` writes it.
        rvlab_server::write_kubeconfig(&dir.path().join("kubeconfig"), server.addr())?;
        Ok(Lab {
            server: Some(server),
            url,
            dir,
        })
    }

    /// A server with the setup of lesson `id` (`stale-update`: configmap/my-config at
    /// resourceVersion 100, `data.key: initial`).
    pub fn lesson(id: &str) -> Result<Lab> {
        Lab::start(Some(lesson(id)?))
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The test's temporary directory (also kubectl's working directory).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The kubeconfig written for the server.
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir().join("kubeconfig")
    }

    /// Writes `text` to `name` in the test's directory; returns its path.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf> {
        let path = self.dir().join(name);
        std::fs::write(&path, text)?;
        Ok(path)
    }

    /// A command with the test's environment only: `HOME`, `KUBECONFIG`, `KUBECACHEDIR`, a
    /// minimal `PATH` (for `EDITOR` scripts), run in the test's directory.
    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", self.dir().join("home"))
            .env("KUBECONFIG", self.kubeconfig())
            .env("KUBECACHEDIR", self.dir().join("cache"))
            .current_dir(self.dir());
        c
    }

    /// `sh -c LINE` in `dir`, with the test's environment (not started): a command line run
    /// exactly as a shell splits it, `> FILE` included (the differential test).
    pub fn shell(&self, dir: &Path, line: &str) -> Command {
        let mut c = self.command(Path::new("/bin/sh"));
        c.arg("-c").arg(line).current_dir(dir);
        c
    }

    /// A kubectl command with `args` (not started).
    pub fn kubectl_command(&self, args: &[&str]) -> Result<Command> {
        let mut c = self.command(&tools::kubectl()?);
        c.args(args);
        Ok(c)
    }

    /// Runs kubectl with `args`.
    pub fn kubectl(&self, args: &[&str]) -> Result<Ran> {
        self.kubectl_with(args, &[], None)
    }

    /// Runs kubectl with `args`, extra environment variables and stdin.
    pub fn kubectl_with(
        &self,
        args: &[&str],
        env: &[(&str, &str)],
        stdin: Option<&str>,
    ) -> Result<Ran> {
        let mut c = self.kubectl_command(args)?;
        c.envs(env.iter().copied());
        process::run(c, stdin, RUN_TIMEOUT, self.dir())
    }

    /// Starts kubectl with `args`, reading its stdout as it comes (`get -w`).
    pub fn kubectl_stream(&self, args: &[&str]) -> Result<Stream> {
        Stream::spawn(self.kubectl_command(args)?, self.dir())
    }

    /// A python command running `script` (written to the test's directory), with the venv
    /// that has `kubernetes==37.0.2`.
    pub fn python_command(&self, script: &str) -> Result<Command> {
        let path = self.write("script.py", script)?;
        let mut c = self.command(&tools::python()?);
        c.env("PYTHONUNBUFFERED", "1").arg(path);
        Ok(c)
    }

    /// Runs a Python script to its end.
    pub fn python(&self, script: &str) -> Result<Ran> {
        process::run(self.python_command(script)?, None, RUN_TIMEOUT, self.dir())
    }

    /// Starts a Python script, reading its stdout line by line and writing to its stdin.
    pub fn python_stream(&self, script: &str) -> Result<Stream> {
        Stream::spawn(self.python_command(script)?, self.dir())
    }

    /// A plain HTTP client for the server (a second, concurrent writer).
    pub fn http(&self) -> Result<Http> {
        Http::new(&self.url)
    }

    /// The server's trace (`GET /rvlab/v1/trace`).
    pub fn trace(&self) -> Result<serde_json::Value> {
        self.http()?.get_json("/rvlab/v1/trace")
    }

    /// Stops the server (also done on drop).
    pub fn stop(mut self) -> Result<()> {
        match self.server.take() {
            Some(s) => s.stop(),
            None => Ok(()),
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Some(s) = self.server.take() {
            let _ = s.stop();
        }
    }
}

impl Lab {
    /// A concurrent writer: `GET` configmap `name` in `default`, set `data[key] = value`, `PUT`
    /// it back with the resourceVersion it read, as field manager `manager`, through plain
    /// HTTP. Returns the new resourceVersion (fails unless the PUT answers 200).
    pub fn update_configmap(
        &self,
        manager: &str,
        name: &str,
        key: &str,
        value: &str,
    ) -> Result<String> {
        let http = self.http()?;
        let path = format!("/api/v1/namespaces/default/configmaps/{name}");
        let mut obj = http.get_json(&path)?;
        obj["data"][key] = value.into();
        let reply = http.request(
            "PUT",
            &format!("{path}?fieldManager={manager}"),
            Some("application/json"),
            Some(&obj.to_string()),
        )?;
        anyhow::ensure!(reply.code == 200, "PUT {path}: {reply:?}");
        let rv = reply.json()?["metadata"]["resourceVersion"]
            .as_str()
            .context("no resourceVersion in the PUT's answer")?
            .to_owned();
        Ok(rv)
    }

    /// configmap `name` in `default`, as the server has it now.
    pub fn configmap(&self, name: &str) -> Result<serde_json::Value> {
        self.http()?
            .get_json(&format!("/api/v1/namespaces/default/configmaps/{name}"))
    }
}

/// `text` with each `kubectl get` table row's AGE cell (the last column: the server's
/// humanized age of the object, from the wall clock) checked to be an age (`0s`, `12s`,
/// `3m4s`, `5h`, `2d`) and replaced by `<age>`; the header and every other cell are kept as
/// they are. A row whose last cell is not an age is left unchanged (so the comparison fails).
pub fn mask_ages(text: &str) -> String {
    text.lines()
        .map(|line| {
            let Some(at) = line.rfind(' ') else {
                return line.to_owned();
            };
            let cell = &line[at + 1..];
            if is_age(cell) {
                format!("{}<age>", &line[..at + 1])
            } else {
                line.to_owned()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

fn is_age(cell: &str) -> bool {
    let mut digits = false;
    let mut units = 0;
    for c in cell.chars() {
        match c {
            '0'..='9' => digits = true,
            's' | 'm' | 'h' | 'd' | 'y' if digits => {
                digits = false;
                units += 1;
            }
            _ => return false,
        }
    }
    units > 0 && !digits
}

/// `yaml` with the value of each `creationTimestamp:` (the server's wall clock) checked to be
/// an RFC 3339 UTC time in quotes (`"2026-12-01T11:30:00Z"`) and replaced by `<time>`. A value
/// of another shape is left unchanged (so the comparison fails).
pub fn mask_timestamps(yaml: &str) -> String {
    yaml.lines()
        .map(|line| {
            let Some((head, value)) = line.split_once("creationTimestamp: ") else {
                return line.to_owned();
            };
            if is_rfc3339_quoted(value) {
                format!("{head}creationTimestamp: <time>")
            } else {
                line.to_owned()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

fn is_rfc3339_quoted(v: &str) -> bool {
    let b = v.as_bytes();
    let shape = b"\"dddd-dd-ddTdd:dd:ddZ\"";
    b.len() == shape.len()
        && b.iter().zip(shape).all(|(c, s)| match s {
            b'd' => c.is_ascii_digit(),
            _ => c == s,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_are_masked_only_where_they_are_ages() {
        let table = "NAME        DATA   AGE\nmy-config   1      0s\nother       2      3m4s\nbad   1   x9\n";
        assert_eq!(
            mask_ages(table),
            "NAME        DATA   AGE\nmy-config   1      <age>\nother       2      <age>\nbad   1   x9\n"
        );
        assert!(!is_age("5"));
        assert!(!is_age("s"));
        assert!(is_age("2d"));
    }

    #[test]
    fn timestamps_are_masked_only_when_rfc3339() {
        let yaml = "metadata:\n  creationTimestamp: \"2026-12-01T11:30:00Z\"\n  x: creationTimestamp: null\n";
        assert_eq!(
            mask_timestamps(yaml),
            "metadata:\n  creationTimestamp: <time>\n  x: creationTimestamp: null\n"
        );
    }
}
