//! Small helpers for running commands from xtask.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace root (xtask lives one level below it).
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits inside the workspace")
        .to_path_buf()
}

/// Cargo's target directory: `CARGO_TARGET_DIR` when set (relative to the project root, as
/// cargo reads it), else `target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => project_root().join(dir),
        _ => project_root().join("target"),
    }
}

/// A command for `program` with `args`.
pub fn cmd(program: &str, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args);
    c
}

fn describe(c: &Command) -> String {
    let mut s = c.get_program().to_string_lossy().into_owned();
    for a in c.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Runs a command with inherited stdio, failing unless it exits successfully.
pub fn run(mut c: Command) -> Result<()> {
    let line = describe(&c);
    println!("$ {line}");
    let status = c
        .status()
        .with_context(|| format!("cannot start `{line}`"))?;
    if !status.success() {
        bail!("`{line}` failed ({status})");
    }
    Ok(())
}

/// Runs a command and returns its stdout (stderr is passed through), failing unless it succeeds.
pub fn run_capture(mut c: Command) -> Result<String> {
    let line = describe(&c);
    println!("$ {line}");
    let out = c
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start `{line}`"))?;
    if !out.status.success() {
        bail!("`{line}` failed ({})", out.status);
    }
    String::from_utf8(out.stdout).with_context(|| format!("`{line}` printed non-UTF-8"))
}

/// The first line a command prints (stdout, else stderr) when it runs successfully, quietly.
pub fn probe(mut c: Command) -> Option<String> {
    let out = c.stdin(Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    let text = String::from_utf8_lossy(&text);
    Some(text.lines().next().unwrap_or("").trim().to_owned())
}
