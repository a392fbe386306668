//! `rvlab serve [FILE.rvl | lesson:ID] [--listen ADDR] [--kubeconfig FILE] [--trace FILE]
//! [--page DIR] [--interfere POLICY [--interfere-field PATH] [--max-injections N] [--seed N]]
//! [--stale-reads K] [--etcd URL[,URL…]]`, POLICY `read-write`, `same-field` or `scenario FILE`.

use crate::args::Args;
use crate::{input, EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use rvlab_instruments::interfere::{InterferenceSettings, Policy};
use std::io::Write;
use std::net::ToSocketAddrs;
use std::path::PathBuf;

const HELP: &str =
    "Usage: rvlab serve [FILE.rvl | lesson:ID] [--listen ADDR] [--kubeconfig FILE] [--trace FILE]
                   [--page DIR] [--interfere POLICY [--interfere-field PATH] [--max-injections N]
                   [--seed N]] [--stale-reads K] [--etcd URL[,URL...]]
       POLICY: read-write | same-field | scenario FILE

Serves the Kubernetes API on the model store, for the real kubectl, the Python client and
kube-rs. The scenario's `object` setup is loaded (its clients are not run); without FILE the
store starts empty. The first line printed is `listening on http://HOST:PORT`, the second
`export KUBECONFIG=PATH` for the kubeconfig it wrote, the third the page's Live view at
http://HOST:PORT/ (every request as it happens). Ctrl-C or SIGTERM stops it.

Options:
  --listen ADDR      the address to listen on (default 127.0.0.1:8001; 127.0.0.1:0 picks a
                     free port). There is no authentication: any other address than loopback
                     is served with a warning
  --kubeconfig FILE  where to write the kubeconfig (default: rvlab-serve-PORT.kubeconfig in
                     the system's temporary directory)
  --trace FILE       write every request and its response as it happens, one JSON step per
                     line (docs/json-trace.md); also at GET /rvlab/v1/trace
  --page DIR         the page to serve at / with its Live view (default: dist/, the release
                     build `cargo xtask dist` writes, when there is one)
  --interfere POLICY a named interferer (rvlab-interferer) commits real writes through the
                     store at the worst moments: read-write (after a client reads an object
                     and before its next write to it, change a field it does not write) or
                     same-field (before a write without resourceVersion, write the fields it
                     sets); or scenario FILE: FILE's scripted clients are the other writers,
                     one scripted request (and the local steps before it) before each real
                     request, in schedule order; FILE's objects are the setup (a setup FILE
                     must then create none, or be the same file). The plan is printed on
                     standard error at start
  --interfere-field PATH
                     the field read-write changes (default
                     metadata.annotations.rvlab.dev/interference)
  --max-injections N at most N injections per object (default 3); with --stale-reads, at
                     most N stale answers per client and object or collection; with scenario,
                     at most N scripted requests in all (default: until the scripted clients
                     finish)
  --seed N           0 (default): every chance is taken; another seed takes each chance by a
                     coin, the same seed the same ones; with scenario, the scripted world's
                     seed (the default scheduler's tie-breaks, backoff jitter)
  --stale-reads K    answer GET, LIST and watch from the store's state K writes ago (0 to 16;
                     0, the default, is off), as a lagging watch cache does; writes see the
                     current state. The plan is printed on standard error at start
  --etcd URL[,URL...]
                     keep the objects in this etcd cluster (its client URLs, such as
                     http://127.0.0.1:2379) as the apiserver does, instead of in memory:
                     several servers on one etcd are one API server. The setup's objects are
                     put where their keys are absent. Not with --interfere or --stale-reads

FILE may be `-` (standard input) or `lesson:ID`. See docs/serve.md.
Exit codes: 0 stopped by Ctrl-C or SIGTERM, 1 cannot start (the file has errors, the address
cannot be bound), 2 usage error.";

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
pub fn main(argv: &[String]) -> u8 {
    let (argv, scenario_file) = match crate::args::take_interfere_scenario(argv) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}\n\n{HELP}");
            return EXIT_USAGE;
        }
    };
    let args = match Args::parse(
        &argv,
        &[
            "--listen",
            "--kubeconfig",
            "--trace",
            "--page",
            "--interfere",
            "--interfere-field",
            "--max-injections",
            "--seed",
            "--stale-reads",
            "--etcd",
        ],
        &[],
    ) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n\n{HELP}");
            return EXIT_USAGE;
        }
    };
    if args.flag("--help") {
        println!("{HELP}");
        return EXIT_OK;
    }
    let file = match args.positional.as_slice() {
        [] => None,
        [f] => Some(f.as_str()),
        _ => {
            eprintln!("error: serve takes at most one FILE\n\n{HELP}");
            return EXIT_USAGE;
        }
    };
    let listen = args
        .value("--listen")
        .unwrap_or(rvlab_server::DEFAULT_LISTEN)
        .to_string();
    if listen
        .to_socket_addrs()
        .map_or(true, |mut a| a.next().is_none())
    {
        eprintln!("error: --listen takes HOST:PORT (such as 127.0.0.1:8001), not `{listen}`");
        return EXIT_USAGE;
    }
    let (interfere, stale) = match interference(&args).and_then(|i| Ok((i, stale_reads(&args)?))) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}\n\n{HELP}");
            return EXIT_USAGE;
        }
    };
    let (interfere, file) = match with_scenario(interfere, scenario_file.as_deref(), file) {
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
        kubeconfig: args.value("--kubeconfig").map(PathBuf::from),
        trace: args.value("--trace").map(PathBuf::from),
        interfere,
        page: args.value("--page").map(PathBuf::from),
        stale,
        etcd: args.value("--etcd").map(str::to_string),
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
pub fn interference(args: &Args) -> Result<Option<InterferenceSettings>, String> {
    let Some(policy) = args.value("--interfere") else {
        for o in ["--interfere-field", "--max-injections", "--seed"] {
            if o == "--max-injections" && args.value("--stale-reads").is_some() {
                continue;
            }
            if o == "--max-injections" && args.value(o).is_some() {
                return Err(format!("{o} needs --interfere POLICY or --stale-reads K"));
            }
            if args.value(o).is_some() {
                return Err(format!("{o} needs --interfere POLICY"));
            }
        }
        return Ok(None);
    };
    let mut settings = InterferenceSettings::new(Policy::parse(policy)?);
    if let Some(f) = args.value("--interfere-field") {
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
    if let Some(n) = args.value("--seed") {
        settings.seed = n.parse::<u64>().map_err(|_| {
            format!("--seed takes a whole number from 0 to 18446744073709551615, not `{n}`")
        })?;
    }
    Ok(Some(settings))
}

/// `--max-injections N`, a whole number ≥ 1, if given.
fn max_injections(args: &Args) -> Result<Option<u32>, String> {
    let Some(n) = args.value("--max-injections") else {
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
    args: &Args,
) -> Result<Option<rvlab_instruments::stale::StaleReadSettings>, String> {
    let Some(k) = args.value("--stale-reads") else {
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
