//! `rvlab serve --etcd`: two server processes on one 3-member etcd (Debian's etcd-server,
//! started here on loopback) behave as one API server. 32 clients re-read, reapply and retry
//! on one counter through both; the count is the number of acknowledged increments, every
//! conflict is the apiserver's 409, and stopping etcd members, the leader or a server loses
//! nothing acknowledged.

use rvlab_testkit::etcd::{self as cluster, Cluster};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const COUNTER: &str = "object configmap/counter:\n    data.count = \"0\"\n";
const PATH: &str = "/api/v1/namespaces/default/configmaps/counter";
const CONFLICT: &str = "Operation cannot be fulfilled on configmaps \"counter\": the object has been modified; please apply your changes to the latest version and try again";

struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(cluster: &Cluster, dir: &std::path::Path, name: &str) -> Server {
    let setup = dir.join("counter.rvl");
    std::fs::write(&setup, COUNTER).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rvlab"))
        .arg("serve")
        .arg(&setup)
        .args(["--listen", "127.0.0.1:0", "--etcd", &cluster.urls()])
        .arg("--kubeconfig")
        .arg(dir.join(format!("{name}.kubeconfig")))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("rvlab serve starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .parse()
        .unwrap();
    Server { child, addr }
}

/// One request to the counter; `None` when the server could not be reached or did not answer.
fn call(addr: SocketAddr, method: &str, body: Option<&Value>) -> Option<(u16, Value)> {
    let body = body.map(Value::to_string).unwrap_or_default();
    cluster::json_call(addr, method, PATH, &body, Duration::from_secs(40))
}

#[derive(Default)]
struct Tally {
    acknowledged: AtomicU64,
    conflicts: AtomicU64,
    /// Writes with no answer, or a 5xx: not acknowledged, maybe committed.
    unknown: AtomicU64,
    /// Reads that failed (no answer, 5xx).
    failed_reads: AtomicU64,
    bad: std::sync::Mutex<Vec<String>>,
}

/// 32 clients through the servers, re-read / reapply / retry until `stop`.
fn load(
    servers: Vec<SocketAddr>,
    stop: Arc<AtomicBool>,
    tally: Arc<Tally>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..32)
        .map(|i| {
            let (servers, stop, tally) = (servers.clone(), stop.clone(), tally.clone());
            std::thread::spawn(move || {
                let mut n = i;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let addr = servers[n % servers.len()];
                    let Some((200, obj)) = call(addr, "GET", None) else {
                        tally.failed_reads.fetch_add(1, Ordering::Relaxed);
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    };
                    let count: u64 = obj["data"]["count"].as_str().unwrap().parse().unwrap();
                    let mut next = obj.clone();
                    next["data"]["count"] = (count + 1).to_string().into();
                    match call(addr, "PUT", Some(&next)) {
                        Some((200, _)) => {
                            tally.acknowledged.fetch_add(1, Ordering::Relaxed);
                        }
                        Some((409, s)) => {
                            tally.conflicts.fetch_add(1, Ordering::Relaxed);
                            if s["reason"] != "Conflict" || s["message"] != CONFLICT {
                                tally.bad.lock().unwrap().push(s.to_string());
                            }
                        }
                        Some((code, s)) if code >= 500 => {
                            tally.unknown.fetch_add(1, Ordering::Relaxed);
                            if code != 504 || s["reason"] != "Timeout" {
                                tally.bad.lock().unwrap().push(format!("{code} {s}"));
                            }
                        }
                        None => {
                            tally.unknown.fetch_add(1, Ordering::Relaxed);
                        }
                        Some((code, s)) => tally.bad.lock().unwrap().push(format!("{code} {s}")),
                    }
                }
            })
        })
        .collect()
}

fn final_count(addr: SocketAddr) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some((200, obj)) = call(addr, "GET", None) {
            return obj["data"]["count"].as_str().unwrap().parse().unwrap();
        }
        assert!(Instant::now() < deadline, "the counter cannot be read");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn run_for(d: Duration, servers: Vec<SocketAddr>, during: impl FnOnce()) -> Arc<Tally> {
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let threads = load(servers, stop.clone(), tally.clone());
    let start = Instant::now();
    during();
    if let Some(rest) = d.checked_sub(start.elapsed()) {
        std::thread::sleep(rest);
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    tally
}

#[test]
fn two_servers_on_one_etcd_lose_no_increment() {
    let dir = crate::support::temp_dir("etcd-replicas");
    let cluster = Cluster::start(3);
    let (a, b) = (serve(&cluster, &dir, "a"), serve(&cluster, &dir, "b"));
    let tally = run_for(Duration::from_secs(3), vec![a.addr, b.addr], || {});
    let count = final_count(a.addr);
    let acked = tally.acknowledged.load(Ordering::Relaxed);
    let conflicts = tally.conflicts.load(Ordering::Relaxed);
    eprintln!("replicas: {acked} increments, {conflicts} conflicts in 3 s");
    assert_eq!(*tally.bad.lock().unwrap(), Vec::<String>::new());
    assert_eq!(tally.unknown.load(Ordering::Relaxed), 0);
    assert!(
        acked > 0 && conflicts > 0,
        "{acked} increments, {conflicts} conflicts"
    );
    assert_eq!(count, acked, "the count is the acknowledged increments");
    assert_eq!(
        final_count(b.addr),
        count,
        "both servers read the same count"
    );
}

#[test]
fn members_the_leader_and_a_server_can_go_without_losing_an_acknowledged_write() {
    let dir = crate::support::temp_dir("etcd-faults");
    let mut cluster = Cluster::start(3);
    let (a, mut b) = (serve(&cluster, &dir, "a"), serve(&cluster, &dir, "b"));
    let servers = vec![a.addr, b.addr];
    let mut report = Vec::new();
    let mut check = |what: &str, tally: &Tally, before: u64, after: u64| {
        let acked = tally.acknowledged.load(Ordering::Relaxed);
        let unknown = tally.unknown.load(Ordering::Relaxed);
        eprintln!(
            "{what}: {acked} increments, {} conflicts, {unknown} unanswered or 5xx writes, {} failed reads",
            tally.conflicts.load(Ordering::Relaxed),
            tally.failed_reads.load(Ordering::Relaxed)
        );
        assert_eq!(*tally.bad.lock().unwrap(), Vec::<String>::new(), "{what}");
        assert!(acked > 0, "{what}: no increment at all");
        // Nothing acknowledged is lost; a write without an answer may or may not have landed.
        assert!(
            after - before >= acked,
            "{what}: {} counted, {acked} acknowledged",
            after - before
        );
        assert!(
            after - before <= acked + unknown,
            "{what}: more counted than written"
        );
        report.push(what.to_string());
    };
    // A follower stopped and started again.
    let follower = (0..3).find(|i| Some(*i) != cluster.leader()).unwrap();
    let before = final_count(a.addr);
    let tally = run_for(Duration::from_secs(3), servers.clone(), || {
        std::thread::sleep(Duration::from_millis(700));
        cluster.stop_member(follower);
        std::thread::sleep(Duration::from_millis(1000));
        cluster.start_member(follower);
    });
    cluster.wait_ready();
    check("a follower", &tally, before, final_count(a.addr));
    // The leader stopped: an election, then on.
    let leader = cluster.leader().expect("a leader");
    let before = final_count(a.addr);
    let tally = run_for(Duration::from_secs(5), servers.clone(), || {
        std::thread::sleep(Duration::from_millis(700));
        cluster.stop_member(leader);
        std::thread::sleep(Duration::from_millis(2000));
        cluster.start_member(leader);
    });
    cluster.wait_ready();
    check("the leader", &tally, before, final_count(a.addr));
    // A server killed mid-load (SIGKILL): the other goes on.
    let before = final_count(a.addr);
    let tally = run_for(Duration::from_secs(3), servers, || {
        std::thread::sleep(Duration::from_millis(1000));
        let _ = b.child.kill();
        let _ = b.child.wait();
    });
    check("a server", &tally, before, final_count(a.addr));
    b.child = Command::new("true").spawn().unwrap();
    assert_eq!(report.len(), 3);
}

/// Sends `signal` (`STOP`, `CONT`) to a server process.
fn signal(server: &Server, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(server.child.id().to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal}");
}

/// A watch on the counter's collection through `addr`, from `rv` (none: the state first),
/// for one second: its events.
fn watch(addr: SocketAddr, rv: Option<&str>) -> Vec<Value> {
    let from = rv
        .map(|rv| format!("&resourceVersion={rv}"))
        .unwrap_or_default();
    let path = format!("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1{from}");
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("the server listens");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("the watch ends");
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(
        head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
        "{head}"
    );
    body.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON event per line"))
        .collect()
}

/// etcd compacts past the revision a server's watch cache has followed to while the server
/// cannot follow (stopped with SIGSTOP while its member restarts and another server writes):
/// its watch cannot be resumed, so it reads the registry again and the cache starts over, as
/// the apiserver's cacher relists. A watch from before the compaction is then the 410 Expired
/// event, and a watch's initial state has the write it missed.
#[test]
fn after_a_compaction_the_watch_cache_reads_the_registry_again() {
    let dir = crate::support::temp_dir("etcd-compaction");
    let mut cluster = Cluster::start(1);
    let a = serve(&cluster, &dir, "a");
    let Some((200, before)) = call(a.addr, "GET", None) else {
        panic!("the counter cannot be read");
    };
    let old = before["metadata"]["resourceVersion"].as_str().unwrap();
    let seen = watch(a.addr, Some(old));
    assert_eq!(seen, Vec::<Value>::new(), "nothing since the read");
    signal(&a, "STOP");
    cluster.stop_member(0);
    cluster.start_member(0);
    cluster.wait_ready();
    let b = serve(&cluster, &dir, "b");
    // Two writes, so that the compaction (at the second) is past the revision the server
    // watches again from (etcd still serves a watch from the compacted revision itself).
    let mut written = before.clone();
    for count in ["41", "42"] {
        written["data"]["count"] = count.into();
        let Some((200, w)) = call(b.addr, "PUT", Some(&written)) else {
            panic!("the write through b failed");
        };
        written = w;
    }
    let rv = written["metadata"]["resourceVersion"].as_str().unwrap();
    let compacted = cluster.call(
        0,
        "/v3/kv/compaction",
        &serde_json::json!({ "revision": rv, "physical": true }),
    );
    assert!(compacted.is_some(), "etcd compacts at {rv}");
    signal(&a, "CONT");
    // The server sees the compaction when it watches again (its stream ended with the member).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let state = watch(a.addr, None);
        let counts: Vec<&Value> = state
            .iter()
            .map(|e| &e["object"]["data"]["count"])
            .collect();
        if counts == ["42"] {
            assert_eq!(state[0]["type"], "ADDED");
            assert_eq!(state[0]["object"]["metadata"]["resourceVersion"], rv);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the watch cache still shows {state:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let expired = watch(a.addr, Some(old));
    assert_eq!(expired.len(), 1, "{expired:?}");
    assert_eq!(expired[0]["type"], "ERROR");
    let status = &expired[0]["object"];
    assert_eq!(
        (&status["code"], &status["reason"]),
        (&Value::from(410), &Value::from("Expired"))
    );
    let message = status["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("too old resource version: {old} (")),
        "{message}"
    );
    // From the write on, the cache serves watches again.
    assert_eq!(watch(a.addr, Some(rv)), Vec::<Value>::new());
}
