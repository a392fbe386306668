//! The server: one thread accepting on a TCP listener, one thread per connection, one request
//! per connection (`Connection: close`), answers per [`crate::policy`] with a strong ETag, and
//! a file's precompressed `FILE.gz` to a client that accepts gzip.

use crate::encoding::accepts_gzip;
use crate::etag::{etag, none_match};
use crate::files::{content_type, resolve};
use crate::policy::cache_control;
use anyhow::{anyhow, Context, Result};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// One answered request, as logged: `(method, path, status)`, the path as the client sent it
/// (mount prefix included, query string dropped), e.g. `("GET", "/", 200)`.
pub type Logged = (String, String, u16);

/// A running server. It lives until the process exits (dropping the handle does not stop it).
pub struct Server {
    url: String,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

struct Shared {
    /// `/` or `/docs/rvlab/` (always starts and ends with `/`).
    prefix: String,
    roots: RwLock<Vec<PathBuf>>,
    log: Mutex<Vec<Logged>>,
}

/// Serves `roots` at `/` on a free port of 127.0.0.1.
pub fn serve(roots: Vec<PathBuf>) -> Result<Server> {
    Server::bind("127.0.0.1:0", "/", roots)
}

/// Serves `roots` under `prefix` (e.g. `/docs/rvlab/`) on a free port of 127.0.0.1; requests
/// outside the prefix get 404, the prefix without its trailing slash a redirect to it.
pub fn serve_at(prefix: &str, roots: Vec<PathBuf>) -> Result<Server> {
    Server::bind("127.0.0.1:0", prefix, roots)
}

impl Server {
    /// Serves `roots` under `prefix` on `addr` (e.g. `127.0.0.1:8080`; port 0 picks a free one)
    /// from a background thread. For each request the first root holding the file wins.
    pub fn bind(addr: &str, prefix: &str, roots: Vec<PathBuf>) -> Result<Server> {
        let listener = TcpListener::bind(addr).with_context(|| format!("cannot bind {addr}"))?;
        let prefix = format!("/{}/", prefix.trim_matches('/')).replace("//", "/");
        let url = format!(
            "http://{}{}",
            listener.local_addr()?,
            prefix.trim_end_matches('/')
        );
        let shared = Arc::new(Shared {
            prefix,
            roots: RwLock::new(roots),
            log: Mutex::new(Vec::new()),
        });
        let for_thread = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name("rvlab-static".into())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    let shared = Arc::clone(&for_thread);
                    std::thread::spawn(move || {
                        let _ = handle(stream, &shared);
                    });
                }
            })?;
        Ok(Server {
            url,
            shared,
            accept,
        })
    }

    /// The site's base URL without a trailing slash: `http://127.0.0.1:PORT`, or
    /// `http://127.0.0.1:PORT/docs/rvlab` under a prefix (so `format!("{}/", url())` is the page).
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The requests answered so far (since the last [`Server::clear_log`]), in the order they
    /// were answered (a request is logged before its response is written, so once a client
    /// has a response, its request is in the log).
    pub fn requests(&self) -> Vec<Logged> {
        lock(&self.shared.log).clone()
    }

    /// How many logged requests were for `path`: a path as logged (`/docs/rvlab/`,
    /// `/index.html`) or one relative to the mount point (`style-0123456789abcdef.css`).
    pub fn count(&self, path: &str) -> usize {
        let absolute = if path.starts_with('/') {
            path.to_owned()
        } else {
            format!("{}{path}", self.shared.prefix)
        };
        lock(&self.shared.log)
            .iter()
            .filter(|(_, p, _)| *p == absolute)
            .count()
    }

    /// Empties the request log.
    pub fn clear_log(&self) {
        lock(&self.shared.log).clear();
    }

    /// Replaces the directories served, from the next request on; the first root that has a
    /// file serves it (e.g. `[build_b, build_a]` serves B with A's files still reachable).
    pub fn set_roots(&self, roots: Vec<PathBuf>) {
        *self
            .shared
            .roots
            .write()
            .unwrap_or_else(PoisonError::into_inner) = roots;
    }

    /// The directories served now.
    pub fn roots(&self) -> Vec<PathBuf> {
        self.shared
            .roots
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Blocks for as long as the server runs (until the process is stopped, e.g. by Ctrl-C).
    pub fn wait(self) -> Result<()> {
        self.accept
            .join()
            .map_err(|_| anyhow!("the server's accept thread panicked"))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The most a request's line and headers may take.
const MAX_HEAD: u64 = 64 * 1024;

/// What the server reads of a request.
struct Request {
    method: String,
    /// The path, query string dropped.
    path: String,
    if_none_match: Option<String>,
    accept_encoding: Option<String>,
}

/// A request's method, path and the headers it uses, or `None` when its head is malformed.
fn read_request(stream: &TcpStream) -> Result<Option<Request>> {
    let mut reader = BufReader::new(stream.try_clone()?.take(MAX_HEAD));
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let (mut if_none_match, mut accept_encoding) = (None, None::<String>);
    // Read the headers up to the blank line (requests we serve have no body).
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let (name, value) = (name.trim(), value.trim());
            if name.eq_ignore_ascii_case("if-none-match") {
                if_none_match = Some(value.to_owned());
            } else if name.eq_ignore_ascii_case("accept-encoding") {
                // Repeated header lines are one comma-separated list (RFC 9110 §5.3).
                accept_encoding = Some(match accept_encoding {
                    Some(before) => format!("{before}, {value}"),
                    None => value.to_owned(),
                });
            }
        }
    }
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(_version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Ok(None);
    };
    let path = target.split(['?', '#']).next().unwrap_or("/").to_owned();
    Ok(Some(Request {
        method: method.to_owned(),
        path,
        if_none_match,
        accept_encoding,
    }))
}

/// What to send back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub reason: &'static str,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// A short text answer (`404 not found`).
    pub fn plain(status: u16, reason: &'static str, text: &str) -> Answer {
        Answer {
            status,
            reason,
            headers: vec![
                ("Content-Type", "text/plain; charset=utf-8".into()),
                ("Cache-Control", "no-cache".into()),
            ],
            body: text.as_bytes().to_vec(),
        }
    }
}

/// The answer to a request (no I/O but reading the file and its `.gz`).
///
/// A file `FILE` with a `FILE.gz` next to it (in the same root) has two representations: when
/// the request's `Accept-Encoding` allows gzip, the `.gz`'s bytes are sent with
/// `Content-Encoding: gzip` and their own ETag (a hash of those bytes, so a cache never takes
/// one for the other), otherwise `FILE` itself; both carry `Vary: Accept-Encoding` and `FILE`'s
/// Content-Type and Cache-Control. A `FILE.gz` without `FILE` is never sent as `FILE` (404: a
/// client refusing gzip could not be answered); requested by its own name it is a plain file.
fn answer(shared: &Shared, req: &Request) -> Answer {
    let (method, path) = (req.method.as_str(), req.path.as_str());
    if method != "GET" && method != "HEAD" {
        let mut a = Answer::plain(405, "Method Not Allowed", "method not allowed");
        a.headers.push(("Allow", "GET, HEAD".into()));
        return a;
    }
    if format!("{path}/") == shared.prefix {
        let mut a = Answer::plain(301, "Moved Permanently", "moved");
        a.headers.push(("Location", shared.prefix.clone()));
        return a;
    }
    let Some(below) = path.strip_prefix(shared.prefix.as_str()) else {
        return Answer::plain(404, "Not Found", "not found");
    };
    let roots = shared
        .roots
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    file_answer(
        &roots,
        below,
        req.if_none_match.as_deref(),
        req.accept_encoding.as_deref(),
    )
}

/// The answer for a GET of `below` (a path below the mount point) from the first of `roots`
/// that has it, as [`answer`] describes (`rvlab serve --page` serves its files with it too).
pub fn file_answer(
    roots: &[PathBuf],
    below: &str,
    if_none_match: Option<&str>,
    accept_encoding: Option<&str>,
) -> Answer {
    let file = roots
        .iter()
        .filter_map(|root| resolve(root, below))
        .find(|f| f.is_file());
    let Some(plain) = file.as_ref().and_then(|f| std::fs::read(f).ok()) else {
        return Answer::plain(404, "Not Found", "not found");
    };
    let file: &Path = file.as_deref().unwrap_or(Path::new(""));
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let gz_path = file.with_file_name(format!("{name}.gz"));
    let has_gz = !name.is_empty() && gz_path.is_file();
    let gzipped = if has_gz && accepts_gzip(accept_encoding) {
        std::fs::read(&gz_path).ok()
    } else {
        None
    };
    let encoded = gzipped.is_some();
    let body = gzipped.unwrap_or(plain);
    let tag = etag(&body);
    let mut headers = vec![
        ("Cache-Control", cache_control(name).to_owned()),
        ("ETag", tag.clone()),
    ];
    if has_gz {
        headers.push(("Vary", "Accept-Encoding".to_owned()));
    }
    if if_none_match.is_some_and(|h| none_match(h, &tag)) {
        return Answer {
            status: 304,
            reason: "Not Modified",
            headers,
            body: Vec::new(),
        };
    }
    headers.insert(0, ("Content-Type", content_type(file).to_owned()));
    if encoded {
        headers.insert(1, ("Content-Encoding", "gzip".to_owned()));
    }
    Answer {
        status: 200,
        reason: "OK",
        headers,
        body,
    }
}

fn handle(stream: TcpStream, shared: &Shared) -> Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let (method, path, answer) = match read_request(&stream)? {
        Some(req) => {
            let a = answer(shared, &req);
            (req.method, req.path, a)
        }
        None => (
            String::new(),
            String::new(),
            Answer::plain(400, "Bad Request", "bad request"),
        ),
    };
    lock(&shared.log).push((method.clone(), path, answer.status));
    let mut head = format!("HTTP/1.1 {} {}\r\n", answer.status, answer.reason);
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    // A 304 has no body and no Content-Length (it would describe the cached representation).
    if answer.status != 304 {
        head.push_str(&format!("Content-Length: {}\r\n", answer.body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut out = stream;
    out.write_all(head.as_bytes())?;
    if method != "HEAD" {
        out.write_all(&answer.body)?;
    }
    out.flush()?;
    Ok(())
}
