//! Strong entity tags (a content hash) and `If-None-Match`.

/// The strong ETag of `body`, quoted: its length and its 64-bit FNV-1a hash in hex, e.g.
/// `"1f-a3c2…"`. Equal bytes give equal tags across runs and machines.
pub fn etag(body: &[u8]) -> String {
    let hash = body.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{:x}-{hash:016x}\"", body.len())
}

/// Whether an `If-None-Match` header value matches `tag` (RFC 9110 §13.1.2: `*`, or a list of
/// tags compared weakly, so `W/"x"` matches `"x"`).
pub fn none_match(header: &str, tag: &str) -> bool {
    let header = header.trim();
    header == "*"
        || header
            .split(',')
            .map(|t| t.trim())
            .map(|t| t.strip_prefix("W/").unwrap_or(t))
            .any(|t| t == tag.strip_prefix("W/").unwrap_or(tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_quoted_content_hashes() {
        let a = etag(b"hello");
        assert!(
            a.starts_with("\"5-") && a.ends_with('"') && a.len() == 20,
            "{a}"
        );
        assert_eq!(a, etag(b"hello"));
        assert_ne!(a, etag(b"hellp"));
        assert_ne!(etag(b""), etag(b"\0"));
    }

    #[test]
    fn if_none_match_lists_and_weak_tags() {
        let t = etag(b"x");
        assert!(none_match(&t, &t));
        assert!(none_match("*", &t));
        assert!(none_match(&format!("\"other\", W/{t}"), &t));
        assert!(!none_match("\"other\"", &t));
        assert!(!none_match("", &t));
    }
}
