//! Running a real binary: stdout and stderr to files (no pipe can fill up and block it), stdin
//! written up front, and a deadline polled with `try_wait` (a hung client fails the test with
//! what it printed so far instead of hanging the suite). [`Stream`] is for binaries that keep
//! running (`kubectl get -w`, a Python script that waits for its cue): its stdout is read line
//! by line as it comes.

use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What a finished command printed, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// Everything on stdout.
    pub stdout: String,
    /// Everything on stderr.
    pub stderr: String,
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
}

impl Ran {
    /// Fails with everything the command printed unless it exited 0.
    pub fn success(self) -> Result<Ran> {
        if self.code == Some(0) {
            Ok(self)
        } else {
            bail!(
                "exit code {:?}\n--- stdout\n{}\n--- stderr\n{}",
                self.code,
                self.stdout,
                self.stderr
            )
        }
    }
}

/// How often a deadline is checked.
const POLL: Duration = Duration::from_millis(5);

/// Runs `command` with `stdin`, giving it `timeout` to finish; `scratch` is a directory for
/// the captured output.
pub fn run(
    mut command: Command,
    stdin: Option<&str>,
    timeout: Duration,
    scratch: &Path,
) -> Result<Ran> {
    let out = tempfile::NamedTempFile::new_in(scratch)?;
    let err = tempfile::NamedTempFile::new_in(scratch)?;
    command
        .stdout(Stdio::from(out.reopen()?))
        .stderr(Stdio::from(err.reopen()?))
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot start {command:?}"))?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes())?;
    }
    let status = wait_until(&mut child, Instant::now() + timeout)?;
    let ran = Ran {
        stdout: std::fs::read_to_string(out.path())?,
        stderr: std::fs::read_to_string(err.path())?,
        code: status.and_then(|s| s.code()),
    };
    if status.is_none() {
        bail!("{command:?} did not finish within {timeout:?}; it printed {ran:?}");
    }
    Ok(ran)
}

/// Waits for `child` until `deadline`; kills it past the deadline (then `None`).
fn wait_until(child: &mut Child, deadline: Instant) -> Result<Option<std::process::ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            child.kill().ok();
            child.wait().ok();
            return Ok(None);
        }
        std::thread::sleep(POLL);
    }
}

/// A running binary whose stdout is read line by line.
pub struct Stream {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
    stderr: tempfile::NamedTempFile,
}

impl Stream {
    /// Starts `command` with piped stdin and stdout (stderr to a file in `scratch`).
    pub fn spawn(mut command: Command, scratch: &Path) -> Result<Stream> {
        let stderr = tempfile::NamedTempFile::new_in(scratch)?;
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr.reopen()?));
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot start {command:?}"))?;
        let stdout = child.stdout.take().context("no stdout pipe")?;
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Stream {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            stderr,
        })
    }

    /// Reads lines until `n` have been seen in all (or fails at `timeout` with what came).
    pub fn wait_for_lines(&mut self, n: usize, timeout: Duration) -> Result<&[String]> {
        let deadline = Instant::now() + timeout;
        while self.seen.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Timeout) => bail!(
                    "waited {timeout:?} for {n} lines, got {:?}; stderr: {}",
                    self.seen,
                    self.stderr_text()
                ),
                Err(RecvTimeoutError::Disconnected) => bail!(
                    "the stream ended after {:?} (wanted {n} lines); stderr: {}",
                    self.seen,
                    self.stderr_text()
                ),
            }
        }
        Ok(&self.seen)
    }

    /// Writes `line` and a newline to its stdin.
    pub fn send(&mut self, line: &str) -> Result<()> {
        let pipe = self.stdin.as_mut().context("stdin already closed")?;
        pipe.write_all(format!("{line}\n").as_bytes())?;
        pipe.flush()?;
        Ok(())
    }

    /// What it printed on stderr so far.
    pub fn stderr_text(&self) -> String {
        std::fs::read_to_string(self.stderr.path()).unwrap_or_default()
    }

    /// Closes stdin and waits up to `timeout` for it to exit by itself; returns everything.
    pub fn finish(mut self, timeout: Duration) -> Result<Ran> {
        self.stdin = None;
        let status = wait_until(&mut self.child, Instant::now() + timeout)?;
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        let ran = self.collect(status.and_then(|s| s.code()));
        if status.is_none() {
            bail!("it did not finish within {timeout:?}; it printed {ran:?}");
        }
        Ok(ran)
    }

    /// Kills it (a watch never ends by itself) and returns the lines seen and its stderr.
    pub fn kill(mut self) -> Ran {
        self.child.kill().ok();
        let status = self.child.wait().ok();
        self.collect(status.and_then(|s| s.code()))
    }

    fn collect(&self, code: Option<i32>) -> Ran {
        let mut stdout = self.seen.join("\n");
        if !stdout.is_empty() {
            stdout.push('\n');
        }
        Ran {
            stdout,
            stderr: self.stderr_text(),
            code,
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}
