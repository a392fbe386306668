//! A tiny static file server over std::net for `dist/` (loopback only, one thread per
//! connection, `Connection: close`, `Cache-Control: no-store` so every load is cold).

use anyhow::{Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// Serves `root` on a free port of 127.0.0.1 from a background thread; returns the base URL
/// (`http://127.0.0.1:PORT`). The thread lives as long as the process.
pub fn serve(root: &Path) -> Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").context("cannot bind a loopback port")?;
    let url = format!("http://{}", listener.local_addr()?);
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || {
                let _ = handle(stream, &root);
            });
        }
    });
    Ok(url)
}

/// The Content-Type for a file name.
pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

/// Maps a request target to a file under `root`; `None` for anything that escapes it.
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let mut file = root.to_path_buf();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if part == ".." || part == "." || part.contains('\\') {
            return None;
        }
        file.push(part);
    }
    if path.ends_with('/') || file == root {
        file.push("index.html");
    }
    Some(file)
}

fn handle(stream: TcpStream, root: &Path) -> Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers (requests we serve have no body).
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut out = stream;
    let file = resolve(root, target).filter(|f| f.is_file());
    match (method, file) {
        ("GET" | "HEAD", Some(file)) => {
            let body = std::fs::read(&file)?;
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
                 Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                content_type(&file),
                body.len()
            );
            out.write_all(head.as_bytes())?;
            if method == "GET" {
                out.write_all(&body)?;
            }
        }
        _ => {
            let body = b"not found";
            let head = format!(
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            out.write_all(head.as_bytes())?;
            out.write_all(body)?;
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_the_root_only() {
        let root = Path::new("/d");
        assert_eq!(resolve(root, "/"), Some(PathBuf::from("/d/index.html")));
        assert_eq!(
            resolve(root, "/a.wasm?x=1"),
            Some(PathBuf::from("/d/a.wasm"))
        );
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(content_type(Path::new("x.wasm")), "application/wasm");
        assert_eq!(
            content_type(Path::new("x.js")),
            "text/javascript; charset=utf-8"
        );
    }

    #[test]
    fn serves_files_with_their_content_type() {
        let dir = std::env::temp_dir().join(format!("rvlab-e2e-serve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
        let url = serve(&dir).unwrap();
        let ok = crate::http::request(
            "GET",
            &format!("{url}/"),
            None,
            std::time::Duration::from_secs(5),
        )
        .unwrap();
        assert_eq!((ok.status, ok.body.as_slice()), (200, &b"<p>hi</p>"[..]));
        let missing = crate::http::request(
            "GET",
            &format!("{url}/nope.js"),
            None,
            std::time::Duration::from_secs(5),
        )
        .unwrap();
        assert_eq!(missing.status, 404);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
