//! `Accept-Encoding` (RFC 9110 §12.5.3): whether a request accepts a gzip'd answer, so that a
//! file's precompressed `FILE.gz` (written by `cargo xtask dist`, docs/deploy.md) can be sent.

/// Whether an `Accept-Encoding` header value accepts `gzip`: listed (`gzip` or its alias
/// `x-gzip`, any case) with a q-value above 0, or, when neither is listed, `*` with a q-value
/// above 0. `gzip;q=0` refuses it even if `*` is listed. A q-value that is not a number from
/// 0 to 1 makes its entry refuse (identity is always a safe answer). No header: `None` passed,
/// no gzip (RFC 9110 allows any coding then, but a client that sends nothing may not decode).
pub fn accepts_gzip(header: Option<&str>) -> bool {
    let Some(header) = header else {
        return false;
    };
    let mut star = None;
    let mut gzip = None;
    for entry in header.split(',') {
        let mut parts = entry.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        if coding.is_empty() {
            continue;
        }
        let mut q = Some(1.0_f32);
        for param in parts {
            if let Some((name, value)) = param.split_once('=') {
                if name.trim().eq_ignore_ascii_case("q") {
                    q = qvalue(value.trim());
                }
            }
        }
        let ok = q.is_some_and(|q| q > 0.0);
        match coding.as_str() {
            "gzip" | "x-gzip" => gzip = Some(gzip.unwrap_or(false) || ok),
            "*" => star = Some(ok),
            _ => {}
        }
    }
    gzip.or(star).unwrap_or(false)
}

/// A q-value (`0`, `0.5`, `1.000`): at most three decimals, from 0 to 1.
fn qvalue(s: &str) -> Option<f32> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if !(int == "0" || int == "1") || frac.len() > 3 || !digits(frac) {
        return None;
    }
    let q: f32 = s.trim_end_matches('.').parse().ok()?;
    (q <= 1.0).then_some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_listed_or_starred_with_a_positive_q() {
        for yes in [
            "gzip",
            "GZip",
            "x-gzip",
            "gzip, deflate, br, zstd",
            "br;q=1.0, gzip;q=0.8, *;q=0.1",
            "gzip;q=0.001",
            "gzip ; q=1",
            "*",
            "deflate, *;q=0.5",
            "identity;q=0, gzip",
            "gzip;q=1.",
        ] {
            assert!(accepts_gzip(Some(yes)), "{yes}");
        }
        for no in [
            "",
            "identity",
            "br, deflate",
            "gzip;q=0",
            "gzip;q=0.000",
            "gzip;Q=0",
            "gzip;q=0, *",
            "*, gzip;q=0",
            "*;q=0",
            "gzip;q=2",
            "gzip;q=1.5",
            "gzip;q=0.0001",
            "gzip;q=high",
            "gzipx",
        ] {
            assert!(!accepts_gzip(Some(no)), "{no}");
        }
        assert!(!accepts_gzip(None));
    }
}
