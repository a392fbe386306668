//! `rvlab serve` as a user runs it: the first lines, the kubeconfig (with the real kubectl
//! when the machine has it), SIGTERM, bad arguments.

use crate::support::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const KUBECTL: &str = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";

struct Serving {
    child: Child,
    first: String,
    second: String,
}

fn serve(args: &[&str]) -> Serving {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rvlab"))
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rvlab serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let mut second = String::new();
    out.read_line(&mut second).unwrap();
    Serving {
        child,
        first: first.trim_end_matches('\n').to_string(),
        second: second.trim_end_matches('\n').to_string(),
    }
}

fn http_get(url: &str, path: &str) -> String {
    let host = url.strip_prefix("http://").unwrap();
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

fn sigterm_and_wait(mut child: Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    let ok = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(ok.success());
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "rvlab serve did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn prints_the_address_then_the_kubeconfig_and_stops_on_sigterm() {
    let dir = temp_dir("serve-kubeconfig");
    let kc = dir.join("kubeconfig");
    let s = serve(&[
        "lesson:stale-update",
        "--listen",
        "127.0.0.1:0",
        "--kubeconfig",
        kc.to_str().unwrap(),
    ]);
    let url = s
        .first
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {:?}", s.first))
        .to_string();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap()
        .parse()
        .unwrap();
    assert!(port > 0);
    assert_eq!(s.second, format!("export KUBECONFIG={}", kc.display()));
    let text = std::fs::read_to_string(&kc).unwrap();
    assert!(text.contains(&format!("server: {url}\n")), "{text}");
    assert!(
        http_get(&url, "/api/v1/namespaces/default/configmaps/my-config")
            .contains(r#""resourceVersion":"100""#)
    );
    if std::path::Path::new(KUBECTL).exists() {
        let cache = dir.join("cache");
        let out = Command::new(KUBECTL)
            .args([
                "get",
                "configmap",
                "my-config",
                "-o",
                "jsonpath={.metadata.resourceVersion}",
            ])
            .env("KUBECONFIG", &kc)
            .env("KUBECACHEDIR", &cache)
            .env("HOME", &dir)
            .output()
            .unwrap();
        assert_eq!(stdout(&out), "100", "{}", stderr(&out));
    }
    let st = sigterm_and_wait(s.child);
    assert_eq!(st.code(), Some(0));
}

#[test]
fn the_default_kubeconfig_is_in_the_temp_dir_by_port() {
    let s = serve(&["--listen", "127.0.0.1:0"]);
    let port = s.first.rsplit(':').next().unwrap().to_string();
    let path = std::env::temp_dir().join(format!("rvlab-serve-{port}.kubeconfig"));
    assert_eq!(s.second, format!("export KUBECONFIG={}", path.display()));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("current-context: rvlab"));
    // No scenario: an empty store.
    let url = s.first.strip_prefix("listening on ").unwrap().to_string();
    assert!(http_get(&url, "/api/v1/namespaces/default/configmaps").contains(r#""items":[]"#));
    // Removed while the server still holds the port: once it is free, another test's server
    // may get the same port, and so the same default path.
    let _ = std::fs::remove_file(path);
    assert_eq!(sigterm_and_wait(s.child).code(), Some(0));
}

#[test]
fn a_non_loopback_listen_address_warns_there_is_no_authentication() {
    let mut s = serve(&["--listen", "0.0.0.0:0"]);
    assert!(
        s.first.starts_with("listening on http://0.0.0.0:"),
        "{}",
        s.first
    );
    let mut err = BufReader::new(s.child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.starts_with("warning: "), "{line}");
    assert!(line.contains("no authentication"), "{line}");
    // The kubeconfig reaches it over loopback.
    let port = s.first.rsplit(':').next().unwrap().to_string();
    let path = std::env::temp_dir().join(format!("rvlab-serve-{port}.kubeconfig"));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains(&format!("server: http://127.0.0.1:{port}\n")));
    // Removed while the port is held (see the test above).
    let _ = std::fs::remove_file(path);
    assert_eq!(sigterm_and_wait(s.child).code(), Some(0));
}

#[test]
fn bad_arguments_are_clear_errors() {
    let o = rvlab(&["serve", "--bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: unexpected argument '--bogus' found"),
        "{}",
        stderr(&o)
    );
    let o = rvlab(&["serve", "a.rvl", "b.rvl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: unexpected argument 'b.rvl' found"));
    let o = rvlab(&["serve", "--listen", "nowhere"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--listen takes HOST:PORT"),
        "{}",
        stderr(&o)
    );
    let o = rvlab(&["serve", "--listen"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: a value is required for '--listen <ADDR>'"));
    let o = rvlab(&["serve", "lesson:nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("there is no lesson `nope`"),
        "{}",
        stderr(&o)
    );
    let o = rvlab_stdin(
        &["serve", "-", "--listen", "127.0.0.1:0"],
        "title \"x\"\nobject nope\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the scenario has errors"),
        "{}",
        stderr(&o)
    );
    let o = rvlab(&["serve", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Usage: rvlab serve [OPTIONS] [FILE]"));
    assert!(stdout(&o).contains("--interfere <POLICY>") && stdout(&o).contains("Exit codes: 0"));
    // An address in use: exit 1, saying so.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let o = rvlab(&["serve", "--listen", &addr]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("cannot listen on {addr}")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn interference_prints_its_plan_and_bad_values_are_usage_errors() {
    let mut s = serve(&[
        "lesson:stale-update",
        "--listen",
        "127.0.0.1:0",
        "--interfere",
        "read-write",
    ]);
    assert!(
        s.first.starts_with("listening on http://127.0.0.1:"),
        "{}",
        s.first
    );
    let mut err = BufReader::new(s.child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(
        line,
        "interference: read-write, at most 3 per object, field metadata.annotations.rvlab.dev/interference, seed 0 (every chance)\n"
    );
    let url = s.first.strip_prefix("listening on ").unwrap().to_string();
    let kubeconfig = s
        .second
        .strip_prefix("export KUBECONFIG=")
        .unwrap()
        .to_string();
    // The interferer is on: a read then a write to the same object gets the injection first.
    let got = http_get(&url, "/api/v1/namespaces/default/configmaps/my-config");
    let body = &got[got.find("\r\n\r\n").unwrap() + 4..];
    let host = url.strip_prefix("http://").unwrap();
    let mut c = std::net::TcpStream::connect(host).unwrap();
    write!(
        c,
        "PUT /api/v1/namespaces/default/configmaps/my-config HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    c.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 409"), "{out}");
    let _ = std::fs::remove_file(kubeconfig);
    assert_eq!(sigterm_and_wait(s.child).code(), Some(0));

    let plan = |args: &[&str]| {
        let mut all = vec!["lesson:stale-update", "--listen", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let mut s = serve(&all);
        let mut err = BufReader::new(s.child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        let k = s
            .second
            .strip_prefix("export KUBECONFIG=")
            .unwrap()
            .to_string();
        let _ = std::fs::remove_file(k);
        // Served (so the signal handler is in place) before it is stopped.
        let url = s.first.strip_prefix("listening on ").unwrap().to_string();
        assert!(http_get(&url, "/version").starts_with("HTTP/1.1 200"));
        assert_eq!(sigterm_and_wait(s.child).code(), Some(0));
        line
    };
    assert_eq!(
        plan(&["--interfere", "same-field", "--max-injections", "5", "--seed", "9"]),
        "interference: same-field, at most 5 per object, the fields each write without resourceVersion sets, seed 9 (chances taken by a coin)\n"
    );
    assert_eq!(
        plan(&["--interfere=read-write", "--interfere-field", "metadata.labels.chaos"]),
        "interference: read-write, at most 3 per object, field metadata.labels.chaos, seed 0 (every chance)\n"
    );
    assert_eq!(
        plan(&["--stale-reads", "2", "--max-injections", "5"]),
        "stale reads: GET, LIST and watch served from the state 2 writes ago, at most 5 stale answers per client and object or collection (then fresh); writes see the current state\n"
    );

    for (args, message) in [
        (
            &["--interfere", "sometimes"][..],
            "error: unknown interference policy `sometimes`: use read-write, same-field or scenario FILE",
        ),
        (
            &["--interfere"][..],
            "error: a value is required for '--interfere <POLICY>'",
        ),
        (
            &["--interfere", "read-write", "--max-injections", "0"][..],
            "error: --max-injections takes a whole number from 1 to 4294967295, not `0`",
        ),
        (
            &["--interfere", "read-write", "--seed", "-1"][..],
            "error: --seed takes a whole number from 0 to 18446744073709551615, not `-1`",
        ),
        (
            &[
                "--interfere",
                "read-write",
                "--interfere-field",
                "metadata.name",
            ][..],
            "error: --interfere-field `metadata.name`: of metadata, only a label or an annotation",
        ),
        (
            &["--interfere", "same-field", "--interfere-field", "data.x"][..],
            "error: --interfere-field is read-write's",
        ),
        (
            &["--seed", "3"][..],
            "error: --seed needs --interfere POLICY",
        ),
        (
            &["--max-injections", "3"][..],
            "error: --max-injections needs --interfere POLICY or --stale-reads K",
        ),
        (
            &["--stale-reads", "17"][..],
            "error: --stale-reads takes a whole number of writes from 0 (off) to 16, not `17`",
        ),
    ] {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        let o = rvlab(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).starts_with(message), "{args:?}: {}", stderr(&o));
    }
}

/// A scenario whose scripted client updates my-config (the seed's object).
const ALICE: &str = "object configmap/my-config at resourceVersion 100:\n    data.key = \"initial\"\n\nclient alice:\n    obj = get configmap/my-config\n    obj.data.other = \"from-alice\"\n    update obj\n";

#[test]
fn interfere_scenario_loads_its_setup_prints_its_plan_and_refuses_a_second_setup() {
    let dir = temp_dir("serve-scenario");
    let f = dir.join("alice.rvl");
    std::fs::write(&f, ALICE).unwrap();
    let f = f.display().to_string();
    let mut s = serve(&["--interfere", "scenario", &f, "--listen", "127.0.0.1:0"]);
    let mut err = BufReader::new(s.child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(
        line,
        format!("interference: scenario {f}, scripted client alice (a), in the default scheduler's (earliest ready first, ties by seed 0) order; one scripted request (and the local steps before it) before each real request, until they finish\n")
    );
    let url = s.first.strip_prefix("listening on ").unwrap().to_string();
    // The setup is the scenario's; this GET first lets alice take her get.
    let got = http_get(&url, "/api/v1/namespaces/default/configmaps/my-config");
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    assert!(got.contains("\"resourceVersion\":\"100\""), "{got}");
    let trace = http_get(&url, "/rvlab/v1/trace");
    assert!(trace.contains("\"scripted_client\":\"alice\""), "{trace}");
    let k = s
        .second
        .strip_prefix("export KUBECONFIG=")
        .unwrap()
        .to_string();
    let _ = std::fs::remove_file(k);
    assert_eq!(sigterm_and_wait(s.child).code(), Some(0));

    // The same file as the setup is one setup.
    let mut s = serve(&[&f, "--interfere", "scenario", &f, "--listen", "127.0.0.1:0"]);
    assert!(s.first.starts_with("listening on "), "{}", s.first);
    // Kept open: the plan is written to it.
    let _stderr = s.child.stderr.take();
    let k = s
        .second
        .strip_prefix("export KUBECONFIG=")
        .unwrap()
        .to_string();
    let _ = std::fs::remove_file(k);
    let url = s.first.strip_prefix("listening on ").unwrap().to_string();
    assert!(http_get(&url, "/version").starts_with("HTTP/1.1 200"));
    assert_eq!(sigterm_and_wait(s.child).code(), Some(0));

    // Another setup with objects: a clear error, exit 1.
    let o = rvlab(&[
        "serve",
        "lesson:stale-update",
        "--interfere",
        "scenario",
        &f,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("error: two setups: the setup scenario and the interference scenario {f} both create objects; give them once (without a setup FILE the interference scenario's objects are loaded; or give the same file for both)\n")
    );
    for (args, message) in [
        (
            &["--interfere", "scenario"][..],
            "error: --interfere scenario needs a FILE",
        ),
        (
            &["--interfere", "scenario", &f, "--interfere-field", "data.x"][..],
            "error: --interfere-field is read-write's: a scenario's clients write what their statements say",
        ),
    ] {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        let o = rvlab(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).starts_with(message), "{args:?}: {}", stderr(&o));
    }
}

/// `--page DIR`: the third line names the live view, and `/` is the page's kubectl build with
/// the live meta; a DIR without the page is an error (exit 1).
#[test]
fn the_page_is_served_at_the_root_and_the_third_line_says_where() {
    let dir = std::env::temp_dir().join(format!("rvlab-cli-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("kubectl.html"),
        "<html><head></head><body>page</body></html>",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rvlab"))
        .args(["serve", "--listen", "127.0.0.1:0", "--page"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn rvlab serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut lines = [String::new(), String::new(), String::new()];
    for l in &mut lines {
        out.read_line(l).unwrap();
    }
    let url = lines[0]
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    assert_eq!(
        lines[2],
        format!("live view: {url}/ (open it to watch every request)\n")
    );
    let page = http_get(&url, "/");
    assert!(
        page.ends_with(
            "<html><head><meta name=\"rvlab-live\" content=\"/rvlab/v1/live\"></head><body>page</body></html>"
        ),
        "{page}"
    );
    let _ = child.kill();
    let _ = child.wait();

    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_rvlab"))
        .args(["serve", "--listen", "127.0.0.1:0", "--page"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("there is no kubectl.html in it"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The release binary, built as a user installs it (`cargo build --release -p rvlab-cli`): a
/// panic in a store call (made by `RVLAB_TEST_PANIC_ON`, `rvlab_server::PANIC_ON_VAR`) is
/// answered with the apiserver's 500 `InternalError`, and the server goes on serving. The
/// release profile unwinds on a panic (Cargo.toml); under `panic = "abort"` the process died.
#[test]
fn the_release_binary_answers_a_panic_in_the_store_with_500_and_goes_on() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "rvlab-cli",
            "--bin",
            "rvlab",
        ])
        .current_dir(&root)
        .status()
        .expect("cargo build --release");
    assert!(built.success(), "the release build failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let mut child = Command::new(target.join("release/rvlab"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env(rvlab_server::PANIC_ON_VAR, "boom")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the release rvlab serve");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{first:?}"))
        .to_string();
    let boom = http_get(&url, "/api/v1/namespaces/default/configmaps/boom");
    assert!(boom.starts_with("HTTP/1.1 500"), "{boom}");
    assert!(boom.contains(r#""reason":"InternalError""#), "{boom}");
    assert!(boom.contains("a bug in rvlab"), "{boom}");
    // The state is usable after the panic: a create and a read answer as ever.
    let host = url.strip_prefix("http://").unwrap();
    let body = r#"{"metadata":{"name":"after"},"data":{"k":"v"}}"#;
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: {host}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut created = String::new();
    s.read_to_string(&mut created).unwrap();
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let read = http_get(&url, "/api/v1/namespaces/default/configmaps/after");
    assert!(read.starts_with("HTTP/1.1 200"), "{read}");
    assert!(child.try_wait().unwrap().is_none(), "the server died");
    assert!(sigterm_and_wait(child).success());
}
