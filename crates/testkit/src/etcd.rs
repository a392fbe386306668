//! Real etcd clusters on loopback for the `--etcd` tests: Debian's `etcd-server` (3.4), which
//! `cargo xtask test` installs. Each member gets free ports and its own data directory under a
//! fresh temporary directory; dropping the cluster kills every member.

use serde_json::Value;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian's etcd-server puts the binary.
pub const ETCD: &str = "/usr/bin/etcd";

/// A free port below Linux's ephemeral range (32768 on): a port the OS picked for `:0` and
/// released can be picked again for another test's `:0` before etcd binds it (seen: `bind:
/// address already in use`), so the ports come from a counter of this process instead,
/// from a base that differs per process, each checked free.
fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = 20_000 + (std::process::id() % 500) * 24;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = (base + n % 12_000) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

pub struct Member {
    pub name: String,
    pub client: u16,
    pub peer: u16,
    child: Option<Child>,
}

pub struct Cluster {
    pub dir: PathBuf,
    pub members: Vec<Member>,
    initial: String,
    token: String,
}

impl Cluster {
    /// Starts an `n`-member cluster and waits until every member answers.
    pub fn start(n: usize) -> Cluster {
        assert!(
            std::path::Path::new(ETCD).exists(),
            "{ETCD} is missing: `cargo xtask test` installs Debian's etcd-server"
        );
        let dir =
            std::env::temp_dir().join(format!("rvlab-etcd-{}-{}", std::process::id(), free_port()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let members: Vec<Member> = (0..n)
            .map(|i| Member {
                name: format!("m{i}"),
                client: free_port(),
                peer: free_port(),
                child: None,
            })
            .collect();
        let initial = members
            .iter()
            .map(|m| format!("{}=http://127.0.0.1:{}", m.name, m.peer))
            .collect::<Vec<_>>()
            .join(",");
        let token = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut c = Cluster {
            dir,
            members,
            initial,
            token,
        };
        for i in 0..n {
            c.start_member(i);
        }
        c.wait_ready();
        c
    }

    /// (Re)starts member `i` on its ports and data directory.
    pub fn start_member(&mut self, i: usize) {
        let m = &self.members[i];
        let log = std::fs::File::create(self.dir.join(format!("{}.log", m.name))).unwrap();
        let client = format!("http://127.0.0.1:{}", m.client);
        let peer = format!("http://127.0.0.1:{}", m.peer);
        let child = Command::new(ETCD)
            .args(["--name", &m.name])
            .arg("--data-dir")
            .arg(self.dir.join(&m.name))
            .args(["--listen-client-urls", &client])
            .args(["--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer])
            .args(["--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &self.initial])
            .args(["--initial-cluster-state", "new"])
            .args(["--initial-cluster-token", &self.token])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("etcd starts");
        self.members[i].child = Some(child);
    }

    /// Stops member `i` (SIGKILL: as a machine lost).
    pub fn stop_member(&mut self, i: usize) {
        if let Some(mut c) = self.members[i].child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The client URLs, comma-separated (`--etcd`'s argument).
    pub fn urls(&self) -> String {
        self.members
            .iter()
            .map(|m| format!("http://127.0.0.1:{}", m.client))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// One gateway call to member `i`; `None` when it does not answer.
    pub fn call(&self, i: usize, path: &str, body: &Value) -> Option<Value> {
        let addr: SocketAddr = format!("127.0.0.1:{}", self.members[i].client)
            .parse()
            .unwrap();
        let body = body.to_string();
        match json_call(addr, "POST", path, &body, Duration::from_secs(5))? {
            (200, v) => Some(v),
            _ => None,
        }
    }

    /// Waits until every running member serves a read (the cluster has a leader).
    pub fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        for (i, m) in self.members.iter().enumerate() {
            if m.child.is_none() {
                continue;
            }
            while self
                .call(i, "/v3/kv/range", &serde_json::json!({"key": "Lw=="}))
                .is_none()
            {
                assert!(
                    Instant::now() < deadline,
                    "etcd {} is not ready: {}",
                    m.name,
                    self.log(i)
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// The index of the current leader.
    pub fn leader(&self) -> Option<usize> {
        for (i, m) in self.members.iter().enumerate() {
            if m.child.is_none() {
                continue;
            }
            if let Some(s) = self.call(i, "/v3/maintenance/status", &serde_json::json!({})) {
                let leader = s.get("leader").and_then(Value::as_str)?.to_string();
                let me = s
                    .get("header")
                    .and_then(|h| h.get("member_id"))
                    .and_then(Value::as_str)?;
                if leader == me {
                    return Some(i);
                }
                // Ask the leader itself next.
            }
        }
        None
    }

    /// Deletes every key under `/registry/` (between tests on one cluster).
    pub fn clear(&self) {
        let body = serde_json::json!({"key": "L3JlZ2lzdHJ5Lw==", "range_end": "L3JlZ2lzdHJ5MA=="});
        self.call(0, "/v3/kv/deleterange", &body)
            .expect("deleterange");
    }

    pub fn log(&self, i: usize) -> String {
        std::fs::read_to_string(self.dir.join(format!("{}.log", self.members[i].name)))
            .unwrap_or_default()
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for i in 0..self.members.len() {
            self.stop_member(i);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One JSON request over HTTP/1.0 (the answer is the rest of the stream, never chunked), to
/// etcd's gateway or to a server: the status code and the JSON answer; `None` when the peer
/// cannot be reached, or does not answer JSON within `timeout`.
pub fn json_call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    timeout: Duration,
) -> Option<(u16, Value)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(timeout)).ok()?;
    let head = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nUser-Agent: counter/1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).ok()?;
    s.write_all(body.as_bytes()).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let code = std::str::from_utf8(raw.get(9..12)?).ok()?.parse().ok()?;
    Some((code, serde_json::from_slice(&raw[split + 4..]).ok()?))
}
