//! The page at `/` (issue #15, docs/serve.md "The live view"): `rvlab serve` serves the
//! playground's release build (`dist/`, or `--page DIR`) next to the API on the same port, so
//! one URL gives the page and the server its Live view watches.
//!
//! - `/` (and `/kubectl.html`) is the page's kubectl build, the one with the Live view, with
//!   `<meta name="rvlab-live" content="/rvlab/v1/live">` inserted before `</head>`: the page
//!   opens its Live view when it finds it. It is sent as read (not the precompressed `.gz`,
//!   which lacks the tag), `Cache-Control: no-cache`.
//! - Every other file of the build is served as `rvlab-static` serves it (its `.gz` with
//!   `Content-Encoding: gzip`, ETags, the cache headers of docs/deploy.md).
//! - Paths of the API (`/api`, `/apis`, `/openapi`, `/version`, `/rvlab`) are never files.
//! - Without a build, `/` answers one line saying how to make one.

use crate::reply::{reply, HttpResponse};
use std::path::{Path, PathBuf};

/// The page file served at `/`.
pub const LIVE_PAGE: &str = "kubectl.html";
/// What the page looks for.
pub const LIVE_META: &str = r#"<meta name="rvlab-live" content="/rvlab/v1/live">"#;
/// `/` without a page.
pub const NO_PAGE: &str = "rvlab serve: no page to serve here: build it with `cargo xtask dist` (it writes dist/) and start rvlab serve from the repository, or pass --page DIR\n";

/// The page directory to serve: `--page DIR`, else `dist/` in the working directory, else the
/// repository's `dist/` (a `cargo run` from anywhere in the checkout); `None` without one.
pub fn find(page: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = page {
        return Some(p.to_path_buf());
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dist");
    [PathBuf::from("dist"), repo]
        .into_iter()
        .find(|d| d.join(LIVE_PAGE).is_file())
}

/// Whether a path belongs to the API (never a page file).
fn is_api(path: &str) -> bool {
    [
        "/api", "/apis", "/openapi", "/version", "/rvlab", "/healthz", "/livez", "/readyz",
    ]
    .iter()
    .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// The `/` page with the live meta inserted.
fn live_html(dir: &Path) -> Option<Vec<u8>> {
    let text = std::fs::read_to_string(dir.join(LIVE_PAGE)).ok()?;
    let at = text.find("</head>")?;
    let mut out = String::with_capacity(text.len() + LIVE_META.len());
    out.push_str(&text[..at]);
    out.push_str(LIVE_META);
    out.push_str(&text[at..]);
    Some(out.into_bytes())
}

/// The answer for a GET or HEAD of `path` when it is the page's; `None`: not a page path (the
/// API answers it).
pub(crate) fn answer(
    dir: Option<&Path>,
    path: &str,
    if_none_match: Option<&str>,
    accept_encoding: Option<&str>,
) -> Option<HttpResponse> {
    if is_api(path) {
        return None;
    }
    let Some(dir) = dir else {
        return (path == "/").then(|| reply(200, "text/plain; charset=utf-8", NO_PAGE.into()));
    };
    if path == "/" || path == "/index.html" || path == format!("/{LIVE_PAGE}") {
        let body = live_html(dir)?;
        let mut r = reply(200, "text/html; charset=utf-8", body);
        r.headers_mut().insert(
            hyper::header::CACHE_CONTROL,
            hyper::header::HeaderValue::from_static("no-cache"),
        );
        return Some(r);
    }
    let a = rvlab_static::file_answer(&[dir.to_path_buf()], path, if_none_match, accept_encoding);
    if a.status == 404 {
        return None;
    }
    let mut r = reply(a.status, "", a.body);
    for (n, v) in a.headers {
        if let (Ok(n), Ok(v)) = (
            hyper::header::HeaderName::from_bytes(n.as_bytes()),
            hyper::header::HeaderValue::from_str(&v),
        ) {
            r.headers_mut().append(n, v);
        }
    }
    Some(r)
}
