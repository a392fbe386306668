//! The server over real loopback connections.

use rvlab_static::{serve, serve_at, Server};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;

const HASHED: &str = "rvlab-web-0123456789abcdef.js";

/// A response: status, headers (names lowercased), body.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `method path` with extra header lines and reads the response to the end (the server
/// closes the connection).
fn request(server: &Server, method: &str, path: &str, extra: &str) -> Response {
    let addr = server.url();
    let addr = addr.trim_start_matches("http://");
    let addr = addr.split('/').next().unwrap();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    Response {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// A fresh directory with `files` (name, contents).
fn dir(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rvlab-static-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (name, text) in files {
        std::fs::write(d.join(name), text).unwrap();
    }
    d
}

#[test]
fn serves_files_with_type_cache_policy_and_etag() {
    let root = dir("types", &[("index.html", "<p>hi</p>"), (HASHED, "let x;")]);
    let server = serve(vec![root.clone()]).unwrap();
    let page = request(&server, "GET", "/", "");
    assert_eq!(
        (page.status, page.body.as_slice()),
        (200, &b"<p>hi</p>"[..])
    );
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    assert_eq!(page.header("content-length"), Some("9"));
    assert_eq!(page.header("connection"), Some("close"));
    let tag = page.header("etag").unwrap();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");

    let js = request(&server, "GET", &format!("/{HASHED}?v=1"), "");
    assert_eq!(js.status, 200);
    assert_eq!(
        js.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(
        js.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_ne!(js.header("etag"), Some(tag));
    assert_eq!(request(&server, "GET", "/nope.js", "").status, 404);
    assert_eq!(request(&server, "GET", "/../etc/passwd", "").status, 404);
    assert_eq!(request(&server, "POST", "/", "").status, 405);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_matching_if_none_match_gets_304_without_a_body() {
    let root = dir("etag", &[("index.html", "<p>one</p>")]);
    let server = serve(vec![root.clone()]).unwrap();
    let first = request(&server, "GET", "/index.html", "");
    let tag = first.header("etag").unwrap().to_owned();
    let again = request(
        &server,
        "GET",
        "/index.html",
        &format!("If-None-Match: {tag}\r\n"),
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    assert_eq!(again.header("cache-control"), Some("no-cache"));
    // A changed file no longer matches: the new bytes, under a new tag.
    std::fs::write(root.join("index.html"), "<p>two</p>").unwrap();
    let changed = request(
        &server,
        "GET",
        "/index.html",
        &format!("If-None-Match: {tag}\r\n"),
    );
    assert_eq!(
        (changed.status, changed.body.as_slice()),
        (200, &b"<p>two</p>"[..])
    );
    assert_ne!(changed.header("etag"), Some(tag.as_str()));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn head_has_the_headers_of_get_and_no_body() {
    let root = dir("head", &[(HASHED, "let x = 1;")]);
    let server = serve(vec![root.clone()]).unwrap();
    let get = request(&server, "GET", &format!("/{HASHED}"), "");
    let head = request(&server, "HEAD", &format!("/{HASHED}"), "");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.headers, get.headers);
    assert_eq!(head.header("content-length"), Some("10"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_log_records_requests_in_order_and_clears() {
    let root = dir("log", &[("index.html", "x")]);
    let server = serve(vec![root.clone()]).unwrap();
    request(&server, "GET", "/", "");
    request(&server, "HEAD", "/index.html?x=1", "");
    request(&server, "GET", "/missing.css", "");
    assert_eq!(
        server.requests(),
        [
            ("GET".to_owned(), "/".to_owned(), 200),
            ("HEAD".to_owned(), "/index.html".to_owned(), 200),
            ("GET".to_owned(), "/missing.css".to_owned(), 404),
        ]
    );
    assert_eq!(server.count("/index.html"), 1);
    assert_eq!(server.count("index.html"), 1);
    assert_eq!(server.count("/"), 1);
    server.clear_log();
    assert!(server.requests().is_empty());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn switching_roots_serves_the_first_root_that_has_the_file() {
    let a = dir(
        "root-a",
        &[("index.html", "A"), ("old-0123456789abcdef.js", "old")],
    );
    let b = dir(
        "root-b",
        &[("index.html", "B"), ("new-0123456789abcdef.js", "new")],
    );
    let server = serve(vec![a.clone()]).unwrap();
    assert_eq!(request(&server, "GET", "/", "").body, b"A");
    assert_eq!(
        request(&server, "GET", "/new-0123456789abcdef.js", "").status,
        404
    );
    // B in front of A: B's page, and A's files still reachable.
    server.set_roots(vec![b.clone(), a.clone()]);
    assert_eq!(server.roots(), [b.clone(), a.clone()]);
    assert_eq!(request(&server, "GET", "/", "").body, b"B");
    assert_eq!(
        request(&server, "GET", "/new-0123456789abcdef.js", "").body,
        b"new"
    );
    assert_eq!(
        request(&server, "GET", "/old-0123456789abcdef.js", "").body,
        b"old"
    );
    // B alone: A's files are gone.
    server.set_roots(vec![b.clone()]);
    assert_eq!(
        request(&server, "GET", "/old-0123456789abcdef.js", "").status,
        404
    );
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn a_mount_prefix_serves_only_below_it() {
    let root = dir(
        "prefix",
        &[("index.html", "P"), ("style-0123456789abcdef.css", "p{}")],
    );
    let server = serve_at("/docs/rvlab/", vec![root.clone()]).unwrap();
    assert!(server.url().ends_with("/docs/rvlab"), "{}", server.url());
    assert_eq!(request(&server, "GET", "/docs/rvlab/", "").body, b"P");
    let css = request(&server, "GET", "/docs/rvlab/style-0123456789abcdef.css", "");
    assert_eq!(css.status, 200);
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    assert_eq!(server.count("style-0123456789abcdef.css"), 1);
    let bare = request(&server, "GET", "/docs/rvlab", "");
    assert_eq!(
        (bare.status, bare.header("location")),
        (301, Some("/docs/rvlab/"))
    );
    for outside in ["/", "/index.html", "/docs/", "/docs/rvlabx/index.html"] {
        assert_eq!(
            request(&server, "GET", outside, "").status,
            404,
            "{outside}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
