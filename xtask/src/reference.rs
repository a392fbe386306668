//! `cargo xtask reference`: the real Kubernetes, built from source, as the reference the model
//! is checked against (docs/reference.md).
//!
//! - `reference` (or `reference build`): builds `kube-apiserver` and `kubectl` from
//!   `k8s.io/kubernetes` through the Go module `reference/kubernetes` (every staging module
//!   pinned by a `replace`), and etcd from `go.etcd.io/etcd/server/v3` through
//!   `reference/etcd`, into a cache outside the repository ([`cache_dir`]). Rebuilt only when a
//!   binary is missing or the [`stamp`] changed (the modules' `go.mod` and `go.sum`, the flags,
//!   the Go version). Version-stamped: `/version` and `kubectl version` say the release.
//! - `reference start`: etcd and kube-apiserver on loopback with their own certificates and a
//!   token, `kubeconfig: PATH` printed as the last line once `/readyz` answers; on SIGINT or
//!   SIGTERM both are stopped and their directory removed.
//!
//! - `reference capture`: starts the reference, sends every corpus of `reference/corpus/` to it
//!   (`reference/capture.py`) and writes its answers as `reference/goldens/NAME.json`, which
//!   the core's tests replay against the model.
//!
//! CI never runs this (the committed goldens stand in for it); it needs Go and the module proxy.

use crate::util::{cmd, project_root, run};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The binaries built, with the Go module (under `reference/`) and package each comes from.
const BINARIES: &[(&str, &str, &str)] = &[
    (
        "kube-apiserver",
        "kubernetes",
        "k8s.io/kubernetes/cmd/kube-apiserver",
    ),
    ("kubectl", "kubernetes", "k8s.io/kubernetes/cmd/kubectl"),
    ("etcd", "etcd", "go.etcd.io/etcd/server/v3"),
];

/// Upstream's build tags for the Kubernetes binaries (`hack/lib/golang.sh` in
/// kubernetes/kubernetes: `gotags`); none changes what the API server answers.
const KUBE_TAGS: &str = "selinux,notest,grpcnotrace";

pub fn reference(args: &[String]) -> Result<()> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        [] | ["build"] => build().map(|_| ()),
        ["start"] => start(),
        ["capture"] => capture().and_then(|()| capture_kubectl()),
        ["capture", "apiserver"] => capture(),
        ["capture", "apiserver", name] => capture_corpus(name),
        ["capture", "kubectl"] => capture_kubectl(),
        ["diff", rest @ ..] => diff(rest),
        _ => bail!("{USAGE}"),
    }
}

const USAGE: &str =
    "usage: cargo xtask reference [build | start | capture [apiserver [CORPUS] | kubectl] | diff --random N [--seed S]]";

/// The random sequences of `reference/goldens/random.json`: how many, and the seed.
const GOLDEN_RANDOM: (u32, u64) = (600, 1);

/// The versions the modules pin: `k8s.io/kubernetes` and `go.etcd.io/etcd/server/v3`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    pub kubernetes: String,
    pub etcd: String,
}

impl Versions {
    fn read() -> Result<Versions> {
        let root = project_root().join("reference");
        let kube = std::fs::read_to_string(root.join("kubernetes/go.mod"))
            .context("cannot read reference/kubernetes/go.mod")?;
        let etcd = std::fs::read_to_string(root.join("etcd/go.mod"))
            .context("cannot read reference/etcd/go.mod")?;
        Ok(Versions {
            kubernetes: required(&kube, "k8s.io/kubernetes")
                .context("reference/kubernetes/go.mod does not require k8s.io/kubernetes")?,
            etcd: required(&etcd, "go.etcd.io/etcd/server/v3")
                .context("reference/etcd/go.mod does not require go.etcd.io/etcd/server/v3")?,
        })
    }
}

/// The version `go.mod` requires of `module` (a `require` line, in a block or alone).
pub fn required(go_mod: &str, module: &str) -> Option<String> {
    go_mod.lines().find_map(|line| {
        let line = line.trim();
        let line = line.strip_prefix("require ").unwrap_or(line);
        let mut words = line.split_whitespace();
        (words.next() == Some(module))
            .then(|| words.next().map(str::to_owned))
            .flatten()
    })
}

/// The `-ldflags` of a Kubernetes binary: stripped, and stamped with the release where
/// `/version` and `kubectl version` read it (`k8s.io/component-base/version` for the server,
/// `k8s.io/client-go/pkg/version` for kubectl's client version; as upstream's
/// `hack/lib/version.sh` does with `kube::version::ldflags`).
pub fn kube_ldflags(version: &str) -> Result<String> {
    let mut parts = version.trim_start_matches('v').split('.');
    let (major, minor) = match (parts.next(), parts.next()) {
        (Some(major), Some(minor)) if !major.is_empty() && !minor.is_empty() => (major, minor),
        _ => bail!("`{version}` is not a Kubernetes release (vMAJOR.MINOR.PATCH)"),
    };
    let mut flags = String::from("-s -w");
    for package in [
        "k8s.io/component-base/version",
        "k8s.io/client-go/pkg/version",
    ] {
        for (var, value) in [
            ("gitVersion", version),
            ("gitMajor", major),
            ("gitMinor", minor),
            ("gitTreeState", "clean"),
        ] {
            flags.push_str(&format!(" -X {package}.{var}={value}"));
        }
    }
    Ok(flags)
}

/// Where the binaries go: `$RVLAB_REFERENCE_DIR`, else `$XDG_CACHE_HOME/rvlab-reference`, else
/// `~/.cache/rvlab-reference`; one directory per pair of versions.
pub fn cache_dir(versions: &Versions) -> Result<PathBuf> {
    let base = match (
        std::env::var_os("RVLAB_REFERENCE_DIR"),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    ) {
        (Some(dir), _, _) if !dir.is_empty() => PathBuf::from(dir),
        (_, Some(cache), _) if !cache.is_empty() => PathBuf::from(cache).join("rvlab-reference"),
        (_, _, Some(home)) => PathBuf::from(home).join(".cache/rvlab-reference"),
        _ => bail!("no cache directory: set RVLAB_REFERENCE_DIR"),
    };
    Ok(base.join(format!(
        "kubernetes-{}-etcd-{}",
        versions.kubernetes, versions.etcd
    )))
}

/// What decides a rebuild: the modules' `go.mod` and `go.sum`, the flags and the Go version,
/// as one text (written next to the binaries, compared whole).
pub fn stamp(modules: &[(&str, String)], ldflags: &str, go_version: &str) -> String {
    let mut s = format!("go: {go_version}\nldflags: {ldflags}\ntags: {KUBE_TAGS}\n");
    for (name, text) in modules {
        s.push_str(&format!("--- {name}\n{text}"));
    }
    s
}

/// Builds what is missing or stale; returns the directory of the binaries.
pub fn build() -> Result<PathBuf> {
    let versions = Versions::read()?;
    let go_version = crate::util::probe(cmd("go", &["version"])).context(
        "`go` is not on PATH: the reference is built with Go (1.26 or later) from the Go module \
         proxy (docs/reference.md)",
    )?;
    let root = project_root().join("reference");
    let mut modules = Vec::new();
    for module in ["kubernetes", "etcd"] {
        for file in ["go.mod", "go.sum"] {
            let path = root.join(module).join(file);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            modules.push((file, format!("{module}/{file}\n{text}")));
        }
    }
    let ldflags = kube_ldflags(&versions.kubernetes)?;
    let stamp_text = stamp(&modules, &ldflags, &go_version);
    let dir = cache_dir(&versions)?;
    let bin = dir.join("bin");
    let stamp_file = dir.join("STAMP");
    let fresh = std::fs::read_to_string(&stamp_file).ok().as_deref() == Some(&stamp_text)
        && BINARIES.iter().all(|(name, _, _)| bin.join(name).is_file());
    if fresh {
        println!(
            "reference: kubernetes {} and etcd {} are built ({})",
            versions.kubernetes,
            versions.etcd,
            bin.display()
        );
        return Ok(bin);
    }
    std::fs::create_dir_all(&bin).with_context(|| format!("cannot create {}", bin.display()))?;
    // A stamp is written only after every binary is built: an interrupted build rebuilds.
    let _ = std::fs::remove_file(&stamp_file);
    for (name, module, package) in BINARIES {
        let out = bin.join(name);
        let out_arg = out.to_string_lossy().into_owned();
        let mut c = if *module == "kubernetes" {
            cmd(
                "go",
                &[
                    "build",
                    "-trimpath",
                    "-tags",
                    KUBE_TAGS,
                    "-ldflags",
                    &ldflags,
                    "-o",
                    &out_arg,
                    package,
                ],
            )
        } else {
            cmd(
                "go",
                &[
                    "build",
                    "-trimpath",
                    "-ldflags",
                    "-s -w",
                    "-o",
                    &out_arg,
                    package,
                ],
            )
        };
        // Static binaries, as upstream builds them; the toolchain on PATH, never a download;
        // the committed go.sum, never an edit of it.
        c.current_dir(root.join(module))
            .env("CGO_ENABLED", "0")
            .env("GOTOOLCHAIN", "local")
            .env("GOFLAGS", "-mod=readonly");
        let started = Instant::now();
        run(c)?;
        println!(
            "reference: {name} built in {:.0} s",
            started.elapsed().as_secs_f64()
        );
    }
    std::fs::write(&stamp_file, &stamp_text)
        .with_context(|| format!("cannot write {}", stamp_file.display()))?;
    println!(
        "reference: kubernetes {} and etcd {} built into {}",
        versions.kubernetes,
        versions.etcd,
        bin.display()
    );
    Ok(bin)
}

/// A port free on loopback now (the OS's pick for `:0`, released for the child to bind).
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("no free port")?;
    Ok(listener.local_addr()?.port())
}

/// The files and ports of one running reference.
#[derive(Debug, Clone)]
pub struct Layout {
    pub dir: PathBuf,
    pub etcd_client: u16,
    pub etcd_peer: u16,
    pub apiserver: u16,
}

impl Layout {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }

    /// etcd's flags: one member on loopback, no fsync (a scratch store).
    pub fn etcd_args(&self) -> Vec<String> {
        let client = format!("http://127.0.0.1:{}", self.etcd_client);
        let peer = format!("http://127.0.0.1:{}", self.etcd_peer);
        vec![
            "--name=reference".into(),
            format!("--data-dir={}", self.arg("etcd")),
            format!("--listen-client-urls={client}"),
            format!("--advertise-client-urls={client}"),
            format!("--listen-peer-urls={peer}"),
            format!("--initial-advertise-peer-urls={peer}"),
            format!("--initial-cluster=reference={peer}"),
            "--unsafe-no-fsync=true".into(),
            "--log-level=warn".into(),
        ]
    }

    /// kube-apiserver's flags: the ones envtest starts it with (controller-runtime's
    /// `pkg/internal/testing/controlplane/apiserver.go`), a token file instead of client
    /// certificates, loopback only, and no endpoint reconciler (it would write the
    /// `default/kubernetes` endpoints, moving the resourceVersion in the background), nor the
    /// APIServerIdentity lease (beta, on by default, and with it the
    /// UnknownVersionInteroperabilityProxy that needs it: its renewal every 10 s moved it too, and a
    /// list's resourceVersion then named a write no answer showed; seen 5 times in 68,345
    /// answers of a live diff).
    pub fn apiserver_args(&self) -> Vec<String> {
        vec![
            format!("--etcd-servers=http://127.0.0.1:{}", self.etcd_client),
            "--bind-address=127.0.0.1".into(),
            format!("--secure-port={}", self.apiserver),
            format!("--cert-dir={}", self.arg("pki")),
            format!("--tls-cert-file={}", self.arg("apiserver.crt")),
            format!("--tls-private-key-file={}", self.arg("apiserver.key")),
            format!("--client-ca-file={}", self.arg("ca.crt")),
            format!("--token-auth-file={}", self.arg("tokens.csv")),
            "--authorization-mode=RBAC".into(),
            "--service-cluster-ip-range=10.0.0.0/24".into(),
            "--service-account-issuer=https://kubernetes.default.svc".into(),
            format!("--service-account-key-file={}", self.arg("sa.pub")),
            format!("--service-account-signing-key-file={}", self.arg("sa.key")),
            "--disable-admission-plugins=ServiceAccount".into(),
            "--endpoint-reconciler-type=none".into(),
            // UnknownVersionInteroperabilityProxy (beta, on) depends on APIServerIdentity:
            // the apiserver refuses to start with only the latter off.
            "--feature-gates=APIServerIdentity=false,UnknownVersionInteroperabilityProxy=false"
                .into(),
            "--allow-privileged=true".into(),
        ]
    }

    /// A kubeconfig for the token's user (cluster-admin through `system:masters`).
    pub fn kubeconfig(&self, token: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: reference\n  cluster:\n    \
             server: https://127.0.0.1:{}\n    certificate-authority: {}\nusers:\n- name: \
             rvlab-admin\n  user:\n    token: {token}\ncontexts:\n- name: reference\n  \
             context:\n    cluster: reference\n    user: rvlab-admin\n    namespace: \
             default\ncurrent-context: reference\n",
            self.apiserver,
            self.arg("ca.crt")
        )
    }
}

/// The static token file's one line: the token's user is in `system:masters` (the apiserver's
/// `--token-auth-file` format: token, user, uid, groups).
pub fn token_line(token: &str) -> String {
    format!("{token},rvlab-admin,rvlab-admin,\"system:masters\"\n")
}

/// A CA, the serving certificate it signs (for `localhost` and 127.0.0.1, where clients
/// connect), and the service-account key pair, with `openssl`.
fn certificates(layout: &Layout) -> Result<()> {
    let dir = &layout.dir;
    let ext = dir.join("san.cnf");
    std::fs::write(
        &ext,
        "subjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,\
         DNS:kubernetes.default.svc,IP:127.0.0.1,IP:10.0.0.1\n",
    )?;
    let quiet = |mut c: Command| -> Result<()> {
        c.current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let out = c.output().context("cannot start openssl")?;
        if !out.status.success() {
            bail!(
                "openssl failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    let mut ca = cmd("openssl", &["req", "-x509", "-nodes", "-days", "30"]);
    ca.args(ec)
        .args(["-keyout", "ca.key", "-out", "ca.crt"])
        .args(["-subj", "/CN=rvlab-reference-ca"]);
    quiet(ca)?;
    let mut csr = cmd("openssl", &["req", "-nodes"]);
    csr.args(ec)
        .args(["-keyout", "apiserver.key", "-out", "apiserver.csr"])
        .args(["-subj", "/CN=kube-apiserver"]);
    quiet(csr)?;
    quiet(cmd(
        "openssl",
        &[
            "x509",
            "-req",
            "-in",
            "apiserver.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "30",
            "-extfile",
            "san.cnf",
            "-out",
            "apiserver.crt",
        ],
    ))?;
    quiet(cmd("openssl", &["genrsa", "-out", "sa.key", "2048"]))?;
    quiet(cmd(
        "openssl",
        &["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"],
    ))
}

/// 32 hex digits from the OS's generator.
fn random_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read /dev/urandom")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A child in its own process group (a terminal's Ctrl-C reaches this process only, which
/// stops the children in order), its output in `log`.
fn spawn(program: &Path, args: &[String], log: &Path) -> Result<Child> {
    let out = std::fs::File::create(log)?;
    let err = out.try_clone()?;
    use std::os::unix::process::CommandExt;
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))
}

/// SIGTERM, then SIGKILL after `grace`; waits for the child.
fn stop(child: &mut Child, grace: Duration) {
    if let Ok(None) = child.try_wait() {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
    }
    let _ = child.wait();
}

/// The last lines of a log, for an error message.
fn tail(log: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The running pair; dropping it stops kube-apiserver, then etcd, and removes the directory.
struct Running {
    layout: Layout,
    apiserver: Option<Child>,
    etcd: Option<Child>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut c) = self.apiserver.take() {
            stop(&mut c, Duration::from_secs(15));
        }
        if let Some(mut c) = self.etcd.take() {
            stop(&mut c, Duration::from_secs(10));
        }
        let _ = std::fs::remove_dir_all(&self.layout.dir);
    }
}

/// SIGINT and SIGTERM set the flag returned (and no longer end the process).
fn stop_flag() -> Result<Arc<AtomicBool>> {
    let stop_asked = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop_asked))
            .context("cannot handle SIGINT/SIGTERM")?;
    }
    Ok(stop_asked)
}

/// Starts etcd and kube-apiserver and waits until `/readyz` answers; `None` when a stop was
/// asked first.
fn launch(bin: &Path, stop_asked: &AtomicBool) -> Result<Option<(Running, PathBuf)>> {
    let dir = std::env::temp_dir().join(format!("rvlab-reference-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("pki"))?;
    let layout = Layout {
        dir,
        etcd_client: free_port()?,
        etcd_peer: free_port()?,
        apiserver: free_port()?,
    };
    let mut running = Running {
        layout: layout.clone(),
        apiserver: None,
        etcd: None,
    };
    certificates(&layout)?;
    let token = random_token()?;
    std::fs::write(layout.path("tokens.csv"), token_line(&token))?;
    let kubeconfig = layout.path("kubeconfig");
    std::fs::write(&kubeconfig, layout.kubeconfig(&token))?;
    let started = Instant::now();
    running.etcd = Some(spawn(
        &bin.join("etcd"),
        &layout.etcd_args(),
        &layout.path("etcd.log"),
    )?);
    running.apiserver = Some(spawn(
        &bin.join("kube-apiserver"),
        &layout.apiserver_args(),
        &layout.path("kube-apiserver.log"),
    )?);
    // Ready when the apiserver's /readyz answers ok to the token's user, through the
    // reference's own kubectl and the kubeconfig clients get.
    let kubectl = bin.join("kubectl");
    loop {
        if stop_asked.load(Ordering::Relaxed) {
            return Ok(None);
        }
        for (name, child) in [
            ("etcd", &mut running.etcd),
            ("kube-apiserver", &mut running.apiserver),
        ] {
            if let Some(Ok(Some(status))) = child.as_mut().map(Child::try_wait) {
                bail!(
                    "{name} exited ({status}) before the apiserver was ready:\n{}",
                    tail(&layout.path(&format!("{name}.log")), 20)
                );
            }
        }
        if started.elapsed() > Duration::from_secs(180) {
            bail!(
                "kube-apiserver not ready after 180 s:\n{}",
                tail(&layout.path("kube-apiserver.log"), 20)
            );
        }
        let ready = Command::new(&kubectl)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["get", "--raw", "/readyz"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"ok"));
        if ready {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let versions = Versions::read()?;
    println!(
        "reference: kubernetes {} on https://127.0.0.1:{}, etcd {} on 127.0.0.1:{}, ready in {:.1} s; logs in {} (SIGINT or SIGTERM stops both)",
        versions.kubernetes,
        layout.apiserver,
        versions.etcd,
        layout.etcd_client,
        started.elapsed().as_secs_f64(),
        layout.dir.display()
    );
    Ok(Some((running, kubeconfig)))
}

pub fn start() -> Result<()> {
    let bin = build()?;
    let stop_asked = stop_flag()?;
    let Some((mut running, kubeconfig)) = launch(&bin, &stop_asked)? else {
        return Ok(());
    };
    let layout = running.layout.clone();
    println!("kubeconfig: {}", kubeconfig.display());
    while !stop_asked.load(Ordering::Relaxed) {
        for (name, child) in [
            ("etcd", &mut running.etcd),
            ("kube-apiserver", &mut running.apiserver),
        ] {
            if let Some(Ok(Some(status))) = child.as_mut().map(Child::try_wait) {
                bail!(
                    "{name} exited ({status}):\n{}",
                    tail(&layout.path(&format!("{name}.log")), 20)
                );
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(running);
    println!("reference: stopped");
    Ok(())
}

/// Sends one corpus (a file of `reference/corpus/`, or `--random N --seed S`) to a running
/// reference with `reference/capture.py` and writes its answers to `out`.
fn capture_one(
    kubeconfig: &Path,
    versions: &Versions,
    source: &[String],
    out: &Path,
) -> Result<()> {
    let mut c = Command::new("python3");
    c.arg(project_root().join("reference/capture.py"))
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(source)
        .arg("--out")
        .arg(out)
        .args(["--etcd", &versions.etcd]);
    run(c)
}

/// Every corpus of `reference/corpus/` and [`GOLDEN_RANDOM`]'s random sequences sent to a
/// fresh reference, its answers written to `reference/goldens/` (the corpus's file name;
/// `random.json`).
pub fn capture() -> Result<()> {
    let bin = build()?;
    let versions = Versions::read()?;
    let stop_asked = stop_flag()?;
    let Some((running, kubeconfig)) = launch(&bin, &stop_asked)? else {
        return Ok(());
    };
    let root = project_root().join("reference");
    let mut corpora: Vec<PathBuf> = std::fs::read_dir(root.join("corpus"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    corpora.sort();
    let goldens = root.join("goldens");
    std::fs::create_dir_all(&goldens)?;
    for corpus in corpora {
        let out = goldens.join(corpus.file_name().unwrap_or_default());
        let source = ["--corpus".to_string(), corpus.display().to_string()];
        capture_one(&kubeconfig, &versions, &source, &out)?;
    }
    let (n, seed) = GOLDEN_RANDOM;
    let source = [
        "--random".into(),
        n.to_string(),
        "--seed".into(),
        seed.to_string(),
    ];
    capture_one(
        &kubeconfig,
        &versions,
        &source,
        &goldens.join("random.json"),
    )?;
    drop(running);
    Ok(())
}

/// One corpus of `reference/corpus/` (`watch` for `watch.json`) sent to a fresh reference,
/// its answers written to `reference/goldens/` (the other goldens are left as they are).
fn capture_corpus(name: &str) -> Result<()> {
    let root = project_root().join("reference");
    let file = format!("{}.json", name.trim_end_matches(".json"));
    let corpus = root.join("corpus").join(&file);
    if !corpus.is_file() {
        bail!("no corpus {} ({USAGE})", corpus.display());
    }
    let bin = build()?;
    let versions = Versions::read()?;
    let stop_asked = stop_flag()?;
    let Some((running, kubeconfig)) = launch(&bin, &stop_asked)? else {
        return Ok(());
    };
    let source = ["--corpus".to_string(), corpus.display().to_string()];
    capture_one(
        &kubeconfig,
        &versions,
        &source,
        &root.join("goldens").join(&file),
    )?;
    drop(running);
    Ok(())
}

/// The reference's kubectl run through the kubectl corpus (`tests/clients/kubectl-corpus`)
/// against `rvlab serve` by the differential test, which writes what it did to
/// `tests/clients/kubectl-goldens.json` (and fails, writing nothing, if the model differs).
fn capture_kubectl() -> Result<()> {
    let bin = build()?;
    let mut test = cmd(
        "cargo",
        &[
            "test",
            "-p",
            "rvlab-clients",
            "--test",
            "kubectl_differential",
            "the_model_sends_and_prints_what_the_real_kubectl_does",
            "--",
            "--exact",
            "--nocapture",
        ],
    );
    test.env("RVLAB_KUBECTL", bin.join("kubectl"))
        .env("RVLAB_WRITE_KUBECTL_GOLDENS", "1")
        .env_remove("RVLAB_CORPUS");
    run(test)
}

/// `diff --random N [--seed S]`: N random sequences sent to a fresh reference and then
/// replayed against the model by the goldens' own test, pointed at them by `RVLAB_GOLDENS`
/// (the known differences apply by their kind, not by a sequence's name).
fn diff(args: &[&str]) -> Result<()> {
    let mut n = None;
    let mut seed = 1u64;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = it
            .next()
            .with_context(|| format!("{arg} needs a value\n{USAGE}"))?;
        match *arg {
            "--random" => n = Some(value.parse::<u32>().context("--random takes a count")?),
            "--seed" => seed = value.parse().context("--seed takes a number")?,
            _ => bail!("unknown option {arg}\n{USAGE}"),
        }
    }
    let Some(n) = n else { bail!("{USAGE}") };
    let bin = build()?;
    let versions = Versions::read()?;
    let stop_asked = stop_flag()?;
    let dir = std::env::temp_dir().join(format!("rvlab-reference-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    {
        let Some((running, kubeconfig)) = launch(&bin, &stop_asked)? else {
            return Ok(());
        };
        let source = [
            "--random".into(),
            n.to_string(),
            "--seed".into(),
            seed.to_string(),
        ];
        capture_one(&kubeconfig, &versions, &source, &dir.join("random.json"))?;
        drop(running);
    }
    let mut test = cmd(
        "cargo",
        &[
            "test",
            "-p",
            "rvlab-core",
            "--test",
            "it",
            "reference::",
            "--",
            "--nocapture",
        ],
    );
    test.env("RVLAB_GOLDENS", &dir);
    let result = run(test);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_required_version_is_read_from_a_block_or_a_single_line() {
        let go_mod = "module x\n\ngo 1.26\n\nrequire (\n\tk8s.io/api v0.37.2 // indirect\n\tk8s.io/kubernetes v1.37.2 // indirect\n)\n\nrequire go.etcd.io/etcd/server/v3 v3.7.0\n";
        assert_eq!(
            required(go_mod, "k8s.io/kubernetes").as_deref(),
            Some("v1.37.2")
        );
        assert_eq!(
            required(go_mod, "go.etcd.io/etcd/server/v3").as_deref(),
            Some("v3.7.0")
        );
        // A module whose name only starts the same is another module.
        assert_eq!(required(go_mod, "k8s.io/kube"), None);
    }

    #[test]
    fn the_ldflags_stamp_the_release_for_the_server_and_kubectl() {
        let flags = kube_ldflags("v1.37.2").unwrap();
        for package in [
            "k8s.io/component-base/version",
            "k8s.io/client-go/pkg/version",
        ] {
            assert!(
                flags.contains(&format!("-X {package}.gitVersion=v1.37.2")),
                "{flags}"
            );
            assert!(
                flags.contains(&format!("-X {package}.gitMajor=1")),
                "{flags}"
            );
            assert!(
                flags.contains(&format!("-X {package}.gitMinor=37")),
                "{flags}"
            );
        }
        assert!(kube_ldflags("main").is_err());
    }

    #[test]
    fn the_stamp_changes_with_a_module_the_flags_or_go() {
        let m = |t: &str| vec![("go.mod", t.to_string())];
        let a = stamp(&m("a"), "-s", "go1.26.8");
        assert_eq!(a, stamp(&m("a"), "-s", "go1.26.8"));
        assert_ne!(a, stamp(&m("b"), "-s", "go1.26.8"));
        assert_ne!(a, stamp(&m("a"), "-s -w", "go1.26.8"));
        assert_ne!(a, stamp(&m("a"), "-s", "go1.27.0"));
    }

    #[test]
    fn the_servers_listen_on_loopback_only_and_the_kubeconfig_names_the_token() {
        let layout = Layout {
            dir: PathBuf::from("/tmp/r"),
            etcd_client: 1,
            etcd_peer: 2,
            apiserver: 3,
        };
        let etcd = layout.etcd_args().join(" ");
        assert!(
            etcd.contains("--listen-client-urls=http://127.0.0.1:1"),
            "{etcd}"
        );
        assert!(
            etcd.contains("--listen-peer-urls=http://127.0.0.1:2"),
            "{etcd}"
        );
        let api = layout.apiserver_args();
        assert!(api.contains(&"--bind-address=127.0.0.1".to_string()));
        assert!(api.contains(&"--secure-port=3".to_string()));
        assert!(api.contains(&"--etcd-servers=http://127.0.0.1:1".to_string()));
        assert!(api.contains(&"--token-auth-file=/tmp/r/tokens.csv".to_string()));
        let kc = layout.kubeconfig("T0K");
        assert!(kc.contains("server: https://127.0.0.1:3\n"), "{kc}");
        assert!(
            kc.contains("certificate-authority: /tmp/r/ca.crt\n"),
            "{kc}"
        );
        assert!(kc.contains("token: T0K\n"), "{kc}");
        assert_eq!(
            token_line("T0K"),
            "T0K,rvlab-admin,rvlab-admin,\"system:masters\"\n"
        );
    }
}
