//! `rvlab serve --etcd`: two server processes on one 3-member etcd (Debian's etcd-server,
//! started here on loopback) behave as one API server. 32 clients re-read, reapply and retry
//! on one counter through both; the count is the number of acknowledged increments, every
//! conflict is the apiserver's 409, and stopping etcd members, the leader or a server loses
//! nothing acknowledged.

#[path = "../../../server/tests/support/etcd.rs"]
mod cluster;

use cluster::Cluster;
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
