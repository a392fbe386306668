//! `rvlab serve [FILE.rvl | lesson:ID] [--listen ADDR] [--kubeconfig FILE] [--trace FILE]
//! [--page DIR] [--interfere POLICY [--interfere-field PATH] [--max-injections N] [--seed N]]
//! [--stale-reads K] [--etcd URL[,URL…]]`, POLICY `read-write`, `same-field` or `scenario FILE`.
//! The interferer's options ([`InterferenceArgs`], [`take_interfere_scenario`]) are `rvlab
//! test`'s too.

use crate::{input, usage_error, EXIT_FAILED, EXIT_OK};
use rvlab_instruments::interfere::{InterferenceSettings, Policy};
use std::ffi::OsString;
use std::io::Write;
use std::net::ToSocketAddrs;
use std::path::PathBuf;

const ABOUT: &str = "Serve the Kubernetes API on the model store, for kubectl and client libraries";

const LONG_ABOUT: &str = "\
Serves the Kubernetes API on the model store, for the real kubectl, the Python client and \
kube-rs. The scenario's `object` setup is loaded (its clients are not run); without FILE the \
store starts empty. The first line printed is `listening on http://HOST:PORT`, the second \
`export KUBECONFIG=PATH` for the kubeconfig it wrote, the third the page's Live view at \
http://HOST:PORT/ (every request as it happens). Ctrl-C or SIGTERM stops it.

With --interfere or --stale-reads, the plan is printed on standard error at start.";

const AFTER_HELP: &str = "\
FILE may be `-` (standard input) or `lesson:ID`. See docs/serve.md.
Exit codes: 0 stopped by Ctrl-C or SIGTERM, 1 cannot start (the file has errors, the address \
cannot be bound), 2 usage error.";

/// `rvlab serve`'s command line.
#[derive(clap::Args)]
#[command(about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
pub struct ServeArgs {
    /// The scenario whose `object` setup is loaded: FILE.rvl, `-` or lesson:ID (default: an
    /// empty store)
    #[arg(value_name = "FILE")]
    pub file: Option<String>,
    /// The address to listen on (default 127.0.0.1:8001; 127.0.0.1:0 picks a free port)
    ///
    /// There is no authentication: any other address than loopback is served with a warning.
    #[arg(long, value_name = "ADDR", allow_hyphen_values = true)]
    pub listen: Option<String>,
    /// Where to write the kubeconfig (default: rvlab-serve-PORT.kubeconfig in the system's
    /// temporary directory)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub kubeconfig: Option<String>,
    /// Write every request and its response as it happens, one JSON step per line
    /// (docs/json-trace.md); also at GET /rvlab/v1/trace
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub trace: Option<String>,
    /// The page to serve at / with its Live view (default: dist/, the release build `cargo
    /// xtask dist` writes, when there is one)
    #[arg(long, value_name = "DIR", allow_hyphen_values = true)]
    pub page: Option<String>,
    #[command(flatten)]
    pub interference: InterferenceArgs,
    /// Keep the objects in this etcd cluster (its client URLs, such as http://127.0.0.1:2379)
    /// as the apiserver does, instead of in memory
    ///
    /// Several servers on one etcd are one API server. The setup's objects are put where their
    /// keys are absent. Not with --interfere or --stale-reads.
    #[arg(long, value_name = "URL[,URL...]", allow_hyphen_values = true)]
    pub etcd: Option<String>,
}

/// The interferer's and stale reads' options, `rvlab serve`'s and `rvlab test`'s.
#[derive(clap::Args)]
pub struct InterferenceArgs {
    /// Run the interferer: POLICY is read-write, same-field or scenario FILE
    ///
    /// A named interferer (rvlab-interferer) commits real writes through the store at the worst
    /// moments: read-write (after a client reads an object and before its next write to it,
    /// change a field it does not write) or same-field (before a write without resourceVersion,
    /// write the fields it sets); or scenario FILE: FILE's scripted clients are the other
    /// writers, one scripted request (and the local steps before it) before each real request,
    /// in schedule order; FILE's objects are the setup (a setup FILE must then create none, or
    /// be the same file).
    #[arg(long, value_name = "POLICY", allow_hyphen_values = true)]
    pub interfere: Option<String>,
    /// The field read-write changes (default metadata.annotations.rvlab.dev/interference)
    #[arg(long, value_name = "PATH", allow_hyphen_values = true)]
    pub interfere_field: Option<String>,
    /// At most N injections per object (default 3)
    ///
    /// With --stale-reads, at most N stale answers per client and object or collection; with
    /// scenario, at most N scripted requests in all (default: until the scripted clients
    /// finish).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub max_injections: Option<String>,
    /// The interferer's seed (default 0)
    ///
    /// 0: every chance is taken; another seed takes each chance by a coin, the same seed the
    /// same ones. With scenario, the scripted world's seed (the default scheduler's
    /// tie-breaks, backoff jitter).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// Answer GET, LIST and watch from the store's state K writes ago (0 to 16; 0, the
    /// default, is off)
    ///
    /// Reads lag as behind a lagging watch cache; writes see the current state.
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    pub stale_reads: Option<String>,
    /// `--interfere scenario FILE`'s FILE, taken out before clap reads the command line
    /// ([`take_interfere_scenario`]).
    #[arg(skip)]
    pub scenario_file: Option<String>,
}

const NEEDS_FILE: &str =
    "--interfere scenario needs a FILE: --interfere scenario FILE.rvl (or lesson:ID, or - for standard input)";

/// `--interfere scenario FILE`: the one option with two values. Takes FILE out of `argv` (so it
/// is not read as the setup FILE), leaving `--interfere scenario`; `Ok(None)` without it. Stops
/// at `--` (what follows is `rvlab test`'s command).
pub fn take_interfere_scenario(
    argv: &[OsString],
) -> Result<(Vec<OsString>, Option<String>), String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut file = None;
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].to_str();
        if a == Some("--") {
            out.extend_from_slice(&argv[i..]);
            break;
        }
        out.push(argv[i].clone());
        let value_at = match a {
            Some("--interfere") if argv.get(i + 1).is_some_and(|v| v == "scenario") => {
                out.push(argv[i + 1].clone());
                i += 1;
                Some(i + 1)
            }
            Some("--interfere=scenario") => Some(i + 1),
            _ => None,
        };
        if let Some(at) = value_at {
            match argv.get(at).and_then(|f| f.to_str()) {
                Some(f) if f == "-" || !f.starts_with('-') => {
                    file = Some(f.to_string());
                    i = at;
                }
                _ => return Err(NEEDS_FILE.into()),
            }
        }
        i += 1;
    }
    Ok((out, file))
}

/// The kubeconfig's default path for a port.
fn default_kubeconfig(port: u16) -> PathBuf {
    std::env::temp_dir().join(format!("rvlab-serve-{port}.kubeconfig"))
}

/// Reads a scenario for a server's setup, printing its diagnostics; `Err`: the exit code (the
/// file cannot be read or has errors). `rvlab test` reads its FILE the same way.
pub fn load_setup(f: &str) -> Result<String, u8> {
    let text = match input::load(f) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(EXIT_FAILED);
        }
    };
    let parsed = rvlab_core::lang::parse(&text);
    for d in &parsed.diagnostics {
        eprintln!("{}", d.render(input::display_name(f), &text));
    }
    if parsed.has_errors() {
        eprintln!("{}: the scenario has errors", input::display_name(f));
        return Err(EXIT_FAILED);
    }
    Ok(text)
}

/// Runs the subcommand.
pub fn main(args: ServeArgs) -> u8 {
    let usage = |e: String| usage_error(&["serve"], e);
    let listen = args
        .listen
        .unwrap_or_else(|| rvlab_server::DEFAULT_LISTEN.to_string());
    if listen
        .to_socket_addrs()
        .map_or(true, |mut a| a.next().is_none())
    {
        return usage(format!(
            "--listen takes HOST:PORT (such as 127.0.0.1:8001), not `{listen}`"
        ));
    }
    let i = &args.interference;
    let (interfere, stale) = match interference(i).and_then(|s| Ok((s, stale_reads(i)?))) {
        Ok(x) => x,
        Err(e) => return usage(e),
    };
    let (interfere, file) =
        match with_scenario(interfere, i.scenario_file.as_deref(), args.file.as_deref()) {
            Ok(x) => x,
            Err(code) => return code,
        };
    let setup = match file {
        None => None,
        Some(f) => match load_setup(f) {
            Ok(text) => Some(text),
            Err(code) => return code,
        },
    };
    let options = rvlab_server::Options {
        listen,
        setup,
        kubeconfig: args.kubeconfig.map(PathBuf::from),
        trace: args.trace.map(PathBuf::from),
        interfere,
        page: args.page.map(PathBuf::from),
        stale,
        etcd: args.etcd,
        ..rvlab_server::Options::default()
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return EXIT_FAILED;
        }
    };
    rt.block_on(run(options))
}

/// `--interfere scenario FILE2`: loads FILE2 into the settings (its diagnostics printed; `Err`:
/// the exit code), and returns the setup FILE still to load: none when it is FILE2 itself
/// (the same file given twice is one setup; the server checks that two different ones do not
/// both create objects).
pub fn with_scenario<'a>(
    interfere: Option<InterferenceSettings>,
    scenario_file: Option<&str>,
    file: Option<&'a str>,
) -> Result<(Option<InterferenceSettings>, Option<&'a str>), u8> {
    let Some(f) = scenario_file else {
        return Ok((interfere, file));
    };
    let text = load_setup(f)?;
    let settings = interfere.map(|s| InterferenceSettings {
        scenario: Some(rvlab_instruments::interfere::ScenarioFile {
            name: input::display_name(f).to_string(),
            text,
        }),
        ..s
    });
    Ok((settings, file.filter(|&setup| setup != f)))
}

/// The interferer's settings from `--interfere POLICY`, `--interfere-field PATH`,
/// `--max-injections N` and `--seed N` (the last three only with the first); `rvlab test`'s
/// too. For `scenario`, the scenario is added by [`with_scenario`].
pub fn interference(args: &InterferenceArgs) -> Result<Option<InterferenceSettings>, String> {
    let Some(policy) = args.interfere.as_deref() else {
        if args.interfere_field.is_some() {
            return Err("--interfere-field needs --interfere POLICY".into());
        }
        if args.max_injections.is_some() && args.stale_reads.is_none() {
            return Err("--max-injections needs --interfere POLICY or --stale-reads K".into());
        }
        if args.seed.is_some() {
            return Err("--seed needs --interfere POLICY".into());
        }
        return Ok(None);
    };
    let mut settings = InterferenceSettings::new(Policy::parse(policy)?);
    if let Some(f) = args.interfere_field.as_deref() {
        match settings.policy {
            Policy::ReadWrite => {}
            Policy::SameField => {
                return Err(
                    "--interfere-field is read-write's: same-field writes the fields each write sets"
                        .into(),
                )
            }
            Policy::Scenario => {
                return Err(
                    "--interfere-field is read-write's: a scenario's clients write what their statements say"
                        .into(),
                )
            }
        }
        rvlab_instruments::interfere::parse_field(f)?;
        settings.field = Some(f.to_string());
    }
    if let Some(n) = max_injections(args)? {
        settings.max_injections = n;
    }
    if let Some(n) = args.seed.as_deref() {
        settings.seed = n.parse::<u64>().map_err(|_| {
            format!("--seed takes a whole number from 0 to 18446744073709551615, not `{n}`")
        })?;
    }
    Ok(Some(settings))
}

/// `--max-injections N`, a whole number ≥ 1, if given.
fn max_injections(args: &InterferenceArgs) -> Result<Option<u32>, String> {
    let Some(n) = args.max_injections.as_deref() else {
        return Ok(None);
    };
    n.parse::<u32>()
        .ok()
        .filter(|&n| n > 0)
        .map(Some)
        .ok_or_else(|| {
            format!(
                "--max-injections takes a whole number from 1 to {}, not `{n}`",
                u32::MAX
            )
        })
}

/// Stale reads from `--stale-reads K` (0: off) and `--max-injections N` (the stale answers
/// per client and target). `rvlab test` reads them the same way.
pub fn stale_reads(
    args: &InterferenceArgs,
) -> Result<Option<rvlab_instruments::stale::StaleReadSettings>, String> {
    let Some(k) = args.stale_reads.as_deref() else {
        return Ok(None);
    };
    let k = rvlab_instruments::stale::parse_writes_behind(k)?;
    let mut settings = rvlab_instruments::stale::StaleReadSettings::new(k);
    if let Some(n) = max_injections(args)? {
        settings.max_stale = n;
    }
    Ok(Some(settings).filter(|_| k > 0))
}

async fn run(options: rvlab_server::Options) -> u8 {
    let plan: Vec<String> = options
        .interfere
        .as_ref()
        .map(rvlab_instruments::interference_plan)
        .into_iter()
        .chain(
            options
                .stale
                .as_ref()
                .map(rvlab_instruments::stale::StaleReadSettings::plan),
        )
        .collect();
    let wrote_kubeconfig = options.kubeconfig.is_some();
    let server = match rvlab_server::bind(options).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    };
    // Before anything is printed: a script may signal as soon as it reads the address.
    let stop = stop_signal();
    let addr = server.local_addr();
    let kubeconfig = match server.kubeconfig() {
        Some(p) if wrote_kubeconfig => p.to_path_buf(),
        _ => {
            let p = default_kubeconfig(addr.port());
            if let Err(e) = rvlab_server::write_kubeconfig(&p, addr) {
                eprintln!("error: {e}");
                return EXIT_FAILED;
            }
            p
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "listening on http://{addr}");
    let _ = writeln!(out, "export KUBECONFIG={}", kubeconfig.display());
    if server.page().is_some() {
        let _ = writeln!(
            out,
            "live view: http://{addr}/ (open it to watch every request)"
        );
    }
    let _ = out.flush();
    for line in plan {
        eprintln!("{line}");
    }
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: listening on {addr}, beyond loopback: rvlab serve has no authentication, so anyone who can reach this address can read and change every object"
        );
    }
    if server.page().is_none() {
        // Last, after the plan and the warning scripts read first.
        eprintln!(
            "note: no page at http://{addr}/ to watch the requests live: build it with `cargo xtask dist`, or pass --page DIR"
        );
    }
    match server.run(stop).await {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_FAILED
        }
    }
}

/// Ctrl-C (SIGINT) or SIGTERM. The handlers are installed when this is called, before the
/// address is printed: tokio installs a signal's handler when its stream is created, while the
/// server's loop first polls this future only once no connection is waiting, so a SIGTERM sent
/// right after the first requests could otherwise find no handler and kill the process
/// (a test saw that once, under load).
fn stop_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate());
        let interrupt = signal(SignalKind::interrupt());
        async move {
            match (term, interrupt) {
                (Ok(mut term), Ok(mut interrupt)) => {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = term.recv() => {}
                    }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn interfere_scenario_takes_its_file_out_of_the_positionals() {
        let (rest, f) =
            take_interfere_scenario(&v(&["setup.rvl", "--interfere", "scenario", "s.rvl"]))
                .unwrap();
        assert_eq!(
            (rest, f.as_deref()),
            (v(&["setup.rvl", "--interfere", "scenario"]), Some("s.rvl"))
        );
        let (rest, f) = take_interfere_scenario(&v(&[
            "--interfere=scenario",
            "-",
            "--",
            "x",
            "--interfere",
            "scenario",
            "y",
        ]))
        .unwrap();
        assert_eq!(
            (rest, f.as_deref()),
            (
                v(&[
                    "--interfere=scenario",
                    "--",
                    "x",
                    "--interfere",
                    "scenario",
                    "y"
                ]),
                Some("-")
            )
        );
        let (rest, f) =
            take_interfere_scenario(&v(&["--interfere", "read-write", "f.rvl"])).unwrap();
        assert_eq!(
            (rest, f),
            (v(&["--interfere", "read-write", "f.rvl"]), None)
        );
        for bad in [
            &["--interfere", "scenario"][..],
            &["--interfere", "scenario", "--seed", "1"],
        ] {
            let e = take_interfere_scenario(&v(bad)).unwrap_err();
            assert!(e.contains("--interfere scenario needs a FILE"), "{e}");
        }
    }
}
