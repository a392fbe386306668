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

/// A directory with `app-0123456789abcdef.js` and its precompressed `.gz` (stand-in bytes:
/// the server sends the file as it is, it never compresses or decompresses), `index.html`
/// without one, and `lone-0123456789abcdef.js.gz` whose plain file is missing.
fn gz_dir(tag: &str) -> PathBuf {
    dir(
        tag,
        &[
            ("index.html", "<p>plain only</p>"),
            ("app-0123456789abcdef.js", "let app = 1;"),
            ("app-0123456789abcdef.js.gz", "GZ-BYTES"),
            ("lone-0123456789abcdef.js.gz", "LONE"),
        ],
    )
}

const APP: &str = "/app-0123456789abcdef.js";

#[test]
fn a_client_accepting_gzip_gets_the_precompressed_file() {
    let root = gz_dir("gz");
    let server = serve(vec![root.clone()]).unwrap();
    let gz = request(
        &server,
        "GET",
        APP,
        "Accept-Encoding: gzip, deflate, br\r\n",
    );
    assert_eq!((gz.status, gz.body.as_slice()), (200, &b"GZ-BYTES"[..]));
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gz.header("content-length"), Some("8"));
    // The original file's type and cache policy, and Vary.
    assert_eq!(
        gz.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(
        gz.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(gz.header("vary"), Some("Accept-Encoding"));
    for refuses in [
        "",
        "Accept-Encoding: gzip;q=0\r\n",
        "Accept-Encoding: br\r\n",
    ] {
        let plain = request(&server, "GET", APP, refuses);
        assert_eq!(
            (plain.status, plain.body.as_slice()),
            (200, &b"let app = 1;"[..]),
            "{refuses:?}"
        );
        assert_eq!(plain.header("content-encoding"), None, "{refuses:?}");
        assert_eq!(plain.header("vary"), Some("Accept-Encoding"), "{refuses:?}");
        assert_eq!(plain.header("content-type"), gz.header("content-type"));
        assert_eq!(plain.header("cache-control"), gz.header("cache-control"));
        // Two representations, two tags.
        assert_ne!(plain.header("etag"), gz.header("etag"), "{refuses:?}");
    }
    // `*` and a repeated header line count too.
    let star = request(&server, "GET", APP, "Accept-Encoding: *\r\n");
    assert_eq!(star.header("content-encoding"), Some("gzip"));
    let two_lines = request(
        &server,
        "GET",
        APP,
        "Accept-Encoding: br\r\naccept-encoding: gzip\r\n",
    );
    assert_eq!(two_lines.body, b"GZ-BYTES");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn files_without_a_gz_have_no_vary_and_a_gz_alone_is_not_its_plain_file() {
    let root = gz_dir("gz-alone");
    let server = serve(vec![root.clone()]).unwrap();
    let page = request(&server, "GET", "/", "Accept-Encoding: gzip\r\n");
    assert_eq!(page.body, b"<p>plain only</p>");
    assert_eq!(page.header("content-encoding"), None);
    assert_eq!(page.header("vary"), None);
    // `lone-….js.gz` exists, `lone-….js` does not: not found, with or without gzip.
    for accept in ["", "Accept-Encoding: gzip\r\n"] {
        let lone = request(&server, "GET", "/lone-0123456789abcdef.js", accept);
        assert_eq!(lone.status, 404, "{accept:?}");
    }
    // A .gz asked for by its own name is an ordinary file: its bytes, as application/gzip,
    // not declared as an encoding of something else.
    let direct = request(
        &server,
        "GET",
        &format!("{APP}.gz"),
        "Accept-Encoding: gzip\r\n",
    );
    assert_eq!(
        (direct.status, direct.body.as_slice()),
        (200, &b"GZ-BYTES"[..])
    );
    assert_eq!(direct.header("content-type"), Some("application/gzip"));
    assert_eq!(direct.header("content-encoding"), None);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_gz_must_be_in_the_root_that_serves_the_file() {
    // The new build's root has the plain file only; an older root behind it has a .gz of
    // another content under the same name: the plain file wins, never the other root's .gz.
    let new = dir("gz-new", &[("app-0123456789abcdef.js", "new")]);
    let old = gz_dir("gz-old");
    let server = serve(vec![new.clone(), old.clone()]).unwrap();
    let r = request(&server, "GET", APP, "Accept-Encoding: gzip\r\n");
    assert_eq!(r.body, b"new");
    assert_eq!(r.header("content-encoding"), None);
    let _ = std::fs::remove_dir_all(&new);
    let _ = std::fs::remove_dir_all(&old);
}

#[test]
fn if_none_match_and_head_per_encoding() {
    let root = gz_dir("gz-304");
    let server = serve(vec![root.clone()]).unwrap();
    let accept = "Accept-Encoding: gzip\r\n";
    let gz = request(&server, "GET", APP, accept);
    let plain = request(&server, "GET", APP, "");
    let (gz_tag, plain_tag) = (gz.header("etag").unwrap(), plain.header("etag").unwrap());
    // Each representation's tag revalidates that representation only.
    let again = request(
        &server,
        "GET",
        APP,
        &format!("{accept}If-None-Match: {gz_tag}\r\n"),
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(gz_tag));
    assert_eq!(again.header("vary"), Some("Accept-Encoding"));
    let again = request(
        &server,
        "GET",
        APP,
        &format!("If-None-Match: {plain_tag}\r\n"),
    );
    assert_eq!((again.status, again.header("etag")), (304, Some(plain_tag)));
    // The other representation's tag does not match: the full answer in this encoding.
    let cross = request(
        &server,
        "GET",
        APP,
        &format!("{accept}If-None-Match: {plain_tag}\r\n"),
    );
    assert_eq!(
        (cross.status, cross.body.as_slice()),
        (200, &b"GZ-BYTES"[..])
    );
    let cross = request(&server, "GET", APP, &format!("If-None-Match: {gz_tag}\r\n"));
    assert_eq!(
        (cross.status, cross.body.as_slice()),
        (200, &b"let app = 1;"[..])
    );
    // HEAD: the headers of the GET in the same encoding, no body.
    let head = request(&server, "HEAD", APP, accept);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.headers, gz.headers);
    assert_eq!(request(&server, "HEAD", APP, "").headers, plain.headers);
    let _ = std::fs::remove_dir_all(&root);
}
