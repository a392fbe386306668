//! Standard base64 (RFC 4648, padded) for Secret `data`, with Go's decoder semantics.
//!
//! Hand-written rather than the `base64` crate because the apiserver's answer is Go's
//! `encoding/base64.StdEncoding`: it skips `\r` and `\n` anywhere, accepts non-zero trailing
//! bits (it is not `Strict`), and reports the offset of `CorruptInputError` by its own rules
//! (`illegal base64 data at input byte N`, the text a real cluster answers for a plain value in
//! a Secret's `data`). The crate rejects line breaks and trailing bits and numbers offsets
//! differently (see the tests), and the page would carry a second copy of a codec it does not
//! otherwise need. Encoding is checked against the crate in the tests.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Padded standard base64 of `data`.
pub(crate) fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's `StdEncoding.DecodeString`: the decoded bytes, or the offset of its `CorruptInputError`.
pub(crate) fn decode(src: &str) -> Result<Vec<u8>, usize> {
    let src = src.as_bytes();
    let is_nl = |c: u8| c == b'\n' || c == b'\r';
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    loop {
        // One quantum of up to four symbols (Go's `decodeQuantum`).
        let mut buf = [0u8; 4];
        let mut len = 4;
        let mut j = 0;
        let mut trailing_error = None;
        while j < 4 {
            if si == src.len() {
                match j {
                    0 => return Ok(out),
                    // Padding is required: a short final quantum is corrupt.
                    _ => return Err(si - j),
                }
            }
            let c = src[si];
            si += 1;
            if let Some(v) = value(c) {
                buf[j] = v;
                j += 1;
                continue;
            }
            if is_nl(c) {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            // Padding: `==` after two symbols, `=` after three.
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    while si < src.len() && is_nl(src[si]) {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && is_nl(src[si]) {
                si += 1;
            }
            if si < src.len() {
                trailing_error = Some(si);
            }
            len = j;
            break;
        }
        let n = (u32::from(buf[0]) << 18)
            | (u32::from(buf[1]) << 12)
            | (u32::from(buf[2]) << 6)
            | u32::from(buf[3]);
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..len - 1]);
        if let Some(at) = trailing_error {
            return Err(at);
        }
        if len < 4 {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::base64::Engine as _;
    use proptest::prelude::*;

    #[test]
    fn decode_errors_at_gos_offsets() {
        for (s, r) in [
            ("", Ok(&b""[..])),
            ("YWRtaW4=", Ok(&b"admin"[..])),
            ("YWRt\naW4=", Ok(&b"admin"[..])),
            ("YQ==", Ok(&b"a"[..])),
            // Non-zero trailing bits are accepted (StdEncoding is not strict).
            ("YR==", Ok(&b"a"[..])),
            ("admin", Err(4)),
            ("My-pass-123", Err(2)),
            ("YQ=", Err(3)),
            ("YQ", Err(0)),
            ("Y===", Err(1)),
            ("YQ==YQ==", Err(4)),
            ("YWJj!", Err(4)),
            ("=", Err(0)),
        ] {
            assert_eq!(decode(s), r.map(<[u8]>::to_vec), "{s:?}");
        }
        // Where the crate and Go differ (why this module exists).
        let std = ::base64::engine::general_purpose::STANDARD;
        assert!(std.decode("YWRt\naW4=").is_err());
        assert!(std.decode("YR==").is_err());
    }

    proptest! {
        #[test]
        fn encode_agrees_with_the_crate_and_round_trips(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            let e = encode(&data);
            prop_assert_eq!(&e, &::base64::engine::general_purpose::STANDARD.encode(&data));
            prop_assert_eq!(decode(&e), Ok(data));
        }
    }
}
