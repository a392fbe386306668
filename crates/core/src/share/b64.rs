//! URL-safe base64 without padding (RFC 4648 §5), exactly as the `base64` crate's
//! `URL_SAFE_NO_PAD` engine writes and accepts it. Our own because the crate's generic engine
//! costs several kB in the page (docs/size.md); the tests check it against the crate.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Encodes `bytes` (no `=` padding).
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        // A chunk of k bytes gives k + 1 characters.
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
        }
    }
    out
}

/// Decodes `text`; `None` for what the crate refuses too: a character outside the alphabet
/// (padding included), a lone last character, or set bits after the last whole byte.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (bits < 6 && acc == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    use proptest::prelude::*;

    #[test]
    fn known_vectors() {
        // RFC 4648 §10, without padding.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).as_deref(), Some(plain.as_bytes()));
        }
        assert_eq!(encode(&[0xfb, 0xff, 0xbf]), "-_-_");
        assert_eq!(decode("Zg=="), None, "padding is refused");
        assert_eq!(decode("Zh"), None, "trailing bits are refused");
        assert_eq!(decode("Zm9vY"), None, "a lone last character is refused");
        assert_eq!(decode("Zm+v"), None, "the standard alphabet is refused");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn encodes_like_the_crate(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let ours = encode(&bytes);
            prop_assert_eq!(&ours, &URL_SAFE_NO_PAD.encode(&bytes));
            prop_assert_eq!(decode(&ours), Some(bytes));
        }

        #[test]
        fn decodes_like_the_crate(text in "[A-Za-z0-9_=+/!-]{0,24}") {
            prop_assert_eq!(decode(&text), URL_SAFE_NO_PAD.decode(&text).ok());
        }

        #[test]
        fn decodes_any_text_like_the_crate(text in ".{0,16}") {
            prop_assert_eq!(decode(&text), URL_SAFE_NO_PAD.decode(&text).ok());
        }
    }
}
