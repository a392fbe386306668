//! A minimal blocking HTTP/1.1 client for loopback servers (chromedriver): one request per
//! connection (`Connection: close`), `Content-Length` or chunked bodies.

use anyhow::{bail, Context, Result};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A response: status code and body.
#[derive(Debug)]
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The body, decoded from chunked transfer encoding when needed.
    pub body: Vec<u8>,
}

/// Sends `method` `url` (`http://host:port/path`) with an optional JSON body.
pub fn request(method: &str, url: &str, body: Option<&str>, timeout: Duration) -> Result<Response> {
    let rest = url
        .strip_prefix("http://")
        .with_context(|| format!("only http:// URLs are supported: {url}"))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let mut stream =
        TcpStream::connect(host).with_context(|| format!("cannot connect to {host}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
         Content-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    // Some servers (chromedriver) keep the connection open anyway: read until the response is
    // complete by its own framing rather than until end of stream.
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if is_complete(&raw) {
            break;
        }
        let n = stream
            .read(&mut buf)
            .with_context(|| format!("reading the response to {method} {url}"))?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    parse_response(&raw).with_context(|| format!("bad response to {method} {url}"))
}

/// Whether `raw` holds a whole response (by Content-Length, or the last chunk).
fn is_complete(raw: &[u8]) -> bool {
    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let body = &raw[end + 4..];
    for line in head.split("\r\n") {
        if let Some(v) = line.strip_prefix("content-length:") {
            return v.trim().parse::<usize>().is_ok_and(|n| body.len() >= n);
        }
        if line.starts_with("transfer-encoding:") && line.contains("chunked") {
            return body.ends_with(b"0\r\n\r\n");
        }
    }
    false
}

/// Parses a complete HTTP/1.1 response.
pub fn parse_response(raw: &[u8]) -> Result<Response> {
    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        bail!("no end of headers in {} bytes", raw.len());
    };
    let head = std::str::from_utf8(&raw[..end]).context("headers are not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line `{status_line}`"))?;
    let mut chunked = false;
    let mut length: Option<usize> = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            } else if name == "content-length" {
                length = value.parse().ok();
            }
        }
    }
    let rest = &raw[end + 4..];
    let body = if chunked {
        dechunk(rest)?
    } else {
        match length {
            Some(n) if n <= rest.len() => rest[..n].to_vec(),
            Some(n) => bail!("body shorter ({}) than Content-Length {n}", rest.len()),
            None => rest.to_vec(),
        }
    };
    Ok(Response { status, body })
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") else {
            bail!("truncated chunk size");
        };
        let size_text = std::str::from_utf8(&rest[..eol])?;
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .with_context(|| format!("bad chunk size `{size_text}`"))?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        if rest.len() < size + 2 {
            bail!("truncated chunk");
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_length_and_chunked_bodies() {
        let r = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}").unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, &b"{}"[..]));
        let r = parse_response(
            b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!((r.status, r.body.as_slice()), (404, &b"abcde"[..]));
        assert!(parse_response(b"HTTP/1.1 200 OK\r\n").is_err());
        assert!(is_complete(
            b"HTTP/1.1 200 OK\r\nContent-Length:2\r\n\r\n{}"
        ));
        assert!(!is_complete(
            b"HTTP/1.1 200 OK\r\nContent-Length:3\r\n\r\n{}"
        ));
    }
}
