//! `rvlab test [OPTIONS] [FILE.rvl | lesson:ID] -- COMMAND...`: runs COMMAND against a fresh
//! server and reports what the server's trace says (`rvlab_instruments::report`). This module only
//! starts and stops things: the server, the command (its own process group), the timeout.

use crate::serve::{self, InterferenceArgs};
use crate::{usage_error, EXIT_FAILED};
use rvlab_instruments::interfere::InterferenceSettings;
use rvlab_instruments::report::{self, Ended};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const ABOUT: &str = "Run COMMAND against a fresh server and report its 409s, retries and lost \
updates (a test runner for CI)";

const LONG_ABOUT: &str = "\
Starts a server on a free loopback port (the scenario's `object` setup loaded; without FILE an \
empty store), runs COMMAND (no shell) with KUBECONFIG pointing at it, waits for it, stops the \
server and prints a report on standard error: requests and 409s per client, retries after a \
409 that re-read the object and retries that resent a stale body, every lost update (field, \
value lost, writer, overwritten writer, revisions), the interferer's injections and, with \
--stale-reads, the stale answers.

COMMAND's environment: KUBECONFIG (a fresh kubeconfig), RVLAB_SERVER (http://127.0.0.1:PORT), \
KUBECACHEDIR (a fresh folder, unless already set). Its standard output and error are rvlab's; \
its standard input is empty.";

const AFTER_HELP: &str = "\
FILE may be `-` (standard input) or `lesson:ID`.
Exit codes: 0 COMMAND succeeded and no update was lost; COMMAND's own code when it failed \
(1 when a signal ended it); 1 when it succeeded but an update was lost; 124 it timed out; \
126 it cannot be run; 127 it was not found; 2 usage error. See docs/testing-controllers.md.";

/// `rvlab test`'s command line.
#[derive(clap::Args)]
#[command(
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    override_usage = "rvlab test [OPTIONS] [FILE] -- <COMMAND> [ARG]...\n       \
                      rvlab test --interfere scenario FILE [OPTIONS] -- <COMMAND> [ARG]..."
)]
pub struct TestArgs {
    /// The scenario whose `object` setup the server loads: FILE.rvl, `-` or lesson:ID (default:
    /// an empty store)
    #[arg(value_name = "FILE")]
    pub file: Option<String>,
    /// The command to run, after `--`, and its arguments
    #[arg(value_name = "COMMAND", last = true)]
    pub command: Vec<String>,
    /// Kill COMMAND (its whole process group) after D (default 5m; Go-style: 30s, 2m, 1h30m,
    /// 1.5s)
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub timeout: Option<String>,
    /// Also write the report as JSON (docs/json-trace.md)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub report: Option<String>,
    /// Write the server's trace as JSON Lines, as `rvlab serve --trace`
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub trace: Option<String>,
    #[command(flatten)]
    pub interference: InterferenceArgs,
    /// Whether `--` was given (COMMAND may still be empty).
    #[arg(skip)]
    pub separator: bool,
}

/// `--timeout`'s default: five minutes.
const DEFAULT_TIMEOUT_NS: u64 = 300_000_000_000;

fn usage(msg: impl std::fmt::Display) -> u8 {
    usage_error(&["test"], msg)
}

/// Runs the subcommand.
pub fn main(args: TestArgs) -> u8 {
    if !args.separator {
        return usage("rvlab test needs `--` before the command to run: rvlab test -- COMMAND");
    }
    if args.command.is_empty() {
        return usage("no COMMAND after `--`");
    }
    let timeout_ns = match args.timeout.as_deref() {
        None => DEFAULT_TIMEOUT_NS,
        Some(t) => match report::parse_duration(t) {
            Ok(ns) => ns,
            Err(e) => return usage(format!("--timeout: {e}")),
        },
    };
    let i = &args.interference;
    let interfere = match serve::interference(i) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let stale = match serve::stale_reads(i) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let (interfere, file) =
        match serve::with_scenario(interfere, i.scenario_file.as_deref(), args.file.as_deref()) {
            Ok(x) => x,
            Err(code) => return code,
        };
    let setup = match file {
        None => None,
        Some(f) => match serve::load_setup(f) {
            Ok(text) => Some(text),
            Err(code) => return code,
        },
    };
    let dir = std::env::temp_dir().join(format!("rvlab-test-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return EXIT_FAILED;
    }
    let code = run(
        &dir,
        setup,
        &args.command,
        timeout_ns,
        interfere,
        stale,
        args.trace.map(PathBuf::from),
        args.report.map(PathBuf::from),
    );
    let _ = std::fs::remove_dir_all(&dir);
    code
}

#[allow(clippy::too_many_arguments)]
fn run(
    dir: &std::path::Path,
    setup: Option<String>,
    command: &[String],
    timeout_ns: u64,
    interfere: Option<InterferenceSettings>,
    stale: Option<rvlab_instruments::stale::StaleReadSettings>,
    trace: Option<PathBuf>,
    report_file: Option<PathBuf>,
) -> u8 {
    let kubeconfig = dir.join("kubeconfig");
    let server = match rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        setup,
        kubeconfig: Some(kubeconfig.clone()),
        trace,
        interfere: interfere.clone(),
        no_page: true,
        stale: stale.clone(),
        ..rvlab_server::Options::default()
    }) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    };
    let mut cmd = std::process::Command::new(&command[0]);
    cmd.args(&command[1..])
        .env("KUBECONFIG", &kubeconfig)
        .env("RVLAB_SERVER", server.url())
        .stdin(std::process::Stdio::null());
    if std::env::var_os("KUBECACHEDIR").is_none() {
        cmd.env("KUBECACHEDIR", dir.join("kube-cache"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let started = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = server.stop();
            let (what, code) = match e.kind() {
                std::io::ErrorKind::NotFound => ("not found", 127),
                std::io::ErrorKind::PermissionDenied => ("not executable", 126),
                _ => ("cannot be run", 126),
            };
            eprintln!("error: the command `{}` {what}: {e}", command[0]);
            return code;
        }
    };
    let deadline = started + Duration::from_nanos(timeout_ns);
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break ended_of(status),
            Ok(None) => {}
            Err(e) => {
                eprintln!("error: cannot wait for the command: {e}");
                break Ended::Signal(0);
            }
        }
        if Instant::now() >= deadline {
            kill_group(child.id(), rustix::process::Signal::TERM);
            let grace = Instant::now() + Duration::from_secs(2);
            while Instant::now() < grace && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            kill_group(child.id(), rustix::process::Signal::KILL);
            let _ = child.wait();
            break Ended::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let duration_ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    // What the command left running in its group goes with it.
    kill_group(child.id(), rustix::process::Signal::KILL);
    let doc = match server.finish() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: the server: {e}");
            return EXIT_FAILED;
        }
    };
    let steps = doc
        .get("steps")
        .and_then(|s| s.as_array())
        .cloned()
        .unwrap_or_default();
    let dropped = doc.get("dropped").and_then(|d| d.as_u64()).unwrap_or(0);
    let report = report::Report {
        command: report::CommandRun {
            argv: command.to_vec(),
            ended,
            duration_ns,
            timeout_ns,
        },
        analysis: report::analyze(&steps, dropped),
        interfere,
        stale,
    };
    eprint!("{}", report.to_text());
    if let Some(path) = report_file {
        let mut text = report.to_json().to_string();
        text.push('\n');
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write the report {}: {e}", path.display());
            return EXIT_FAILED;
        }
    }
    report.exit_code()
}

fn ended_of(status: std::process::ExitStatus) -> Ended {
    if let Some(code) = status.code() {
        return Ended::Exited(code);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(s) = status.signal() {
            return Ended::Signal(s);
        }
    }
    Ended::Signal(0)
}

/// Sends `signal` to the process group led by `pid` (the command's; nothing if it is gone).
fn kill_group(pid: u32, signal: rustix::process::Signal) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process_group(pid, signal);
    }
}
