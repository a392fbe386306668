//! Share links: the whole state of the playground in a URL fragment, compact, versioned and
//! compressed, so that a link made today still opens in later releases.
//!
//! Format (the part after `#`): `v1` followed by `&key=value` fields. Unknown keys are ignored
//! (later versions may add some), so old readers skip what they do not know.
//! - `lesson=ID`: a built-in lesson (short links), or
//! - `z=BASE64URL`: the scenario text, raw-deflated then base64url-encoded without padding;
//! - `t=TOKEN`: the schedule token of the run as played (letters and counts);
//! - `p=N`: the step shown (0 = before the first step);
//! - `seed=N`: the seed; `view=NAME`: the selected view (`[a-z-]`, at most 32 characters).
//!
//! Decoding never panics: every problem is a [`ShareError`] with a message for people, and
//! sizes are bounded before and after decompression.
//!
//! The compression is the crate's own small raw DEFLATE codec (`share::deflate`, RFC 1951):
//! standard DEFLATE, so links made by earlier releases (with miniz_oxide) still open, and any
//! inflater reads ours; a fraction of miniz_oxide's size in the page (docs/size.md). `share::b64`
//! is its base64url.

mod b64;
mod deflate;

use std::fmt;

/// The longest fragment accepted, in bytes.
pub const MAX_LINK_BYTES: usize = 24 * 1024;
/// The longest scenario text a link may carry once decompressed (the editor's limit).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// Where the scenario of a shared state comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A built-in lesson, by id.
    Lesson(String),
    /// The scenario text itself.
    Text(String),
}

/// Everything a link restores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareState {
    pub source: Source,
    /// The schedule token as played (may be empty).
    pub token: String,
    /// The step shown.
    pub position: u32,
    pub seed: u64,
    /// The selected view (e.g. `http`, `yaml`, `table`); empty for the default.
    pub view: String,
}

/// Why a link could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareError {
    #[error("the link is {0} bytes long; links up to {MAX_LINK_BYTES} bytes are accepted")]
    TooLong(usize),
    #[error("the link does not start with a version (expected `v1`)")]
    NoVersion,
    #[error("the link was made by a newer rvlab (format {0}); this version reads v1")]
    NewerVersion(String),
    #[error("the link names no scenario (neither `lesson=` nor `z=`)")]
    NoScenario,
    #[error("the link's field `{field}` is not valid: {reason}")]
    BadField { field: &'static str, reason: String },
    #[error("the scenario in the link is damaged (it does not decompress)")]
    Corrupt,
    #[error("the scenario in the link is larger than {MAX_TEXT_BYTES} bytes")]
    TextTooLarge,
}

impl ShareState {
    /// Encodes the state as a fragment (without the `#`).
    pub fn encode(&self) -> String {
        let mut out = String::from("v1");
        match &self.source {
            Source::Lesson(id) => {
                out.push_str("&lesson=");
                out.push_str(id);
            }
            Source::Text(text) => {
                let packed = deflate::deflate(text.as_bytes());
                out.push_str("&z=");
                out.push_str(&b64::encode(&packed));
            }
        }
        if !self.token.is_empty() {
            out.push_str("&t=");
            out.push_str(&self.token);
        }
        if self.position != 0 {
            out.push_str(&format!("&p={}", self.position));
        }
        if self.seed != 0 {
            out.push_str(&format!("&seed={}", self.seed));
        }
        if !self.view.is_empty() {
            out.push_str("&view=");
            out.push_str(&self.view);
        }
        out
    }

    /// Decodes a fragment (with or without the leading `#`).
    pub fn decode(fragment: &str) -> Result<ShareState, ShareError> {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        if fragment.len() > MAX_LINK_BYTES {
            return Err(ShareError::TooLong(fragment.len()));
        }
        let mut fields = fragment.split('&');
        match fields.next() {
            Some("v1") => {}
            Some(v) if is_version(v) => return Err(ShareError::NewerVersion(v.to_string())),
            _ => return Err(ShareError::NoVersion),
        }
        let mut source = None;
        let mut state = ShareState {
            source: Source::Lesson(String::new()),
            token: String::new(),
            position: 0,
            seed: 0,
            view: String::new(),
        };
        for field in fields {
            let (key, value) = field.split_once('=').unwrap_or((field, ""));
            match key {
                "lesson" => {
                    check_chars("lesson", value, 64, |c| {
                        c.is_ascii_alphanumeric() || c == '-'
                    })?;
                    source = Some(Source::Lesson(value.to_string()));
                }
                "z" => source = Some(Source::Text(inflate(value)?)),
                "t" => {
                    check_chars("t", value, 4096, |c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit()
                    })?;
                    state.token = value.to_string();
                }
                "p" => state.position = number("p", value)?,
                "seed" => state.seed = number("seed", value)?,
                "view" => {
                    check_chars("view", value, 32, |c| c.is_ascii_lowercase() || c == '-')?;
                    state.view = value.to_string();
                }
                _ => {} // a field from a later version: skipped
            }
        }
        state.source = source.ok_or(ShareError::NoScenario)?;
        Ok(state)
    }
}

fn is_version(v: &str) -> bool {
    v.len() > 1 && v.starts_with('v') && v[1..].bytes().all(|b| b.is_ascii_digit())
}

fn check_chars(
    field: &'static str,
    value: &str,
    max: usize,
    ok: impl Fn(char) -> bool,
) -> Result<(), ShareError> {
    if value.len() > max {
        return Err(ShareError::BadField {
            field,
            reason: format!("longer than {max} characters"),
        });
    }
    match value.chars().find(|c| !ok(*c)) {
        Some(c) => Err(ShareError::BadField {
            field,
            reason: format!("unexpected character {c:?}"),
        }),
        None => Ok(()),
    }
}

fn number<T: std::str::FromStr>(field: &'static str, value: &str) -> Result<T, ShareError> {
    value.parse().map_err(|_| ShareError::BadField {
        field,
        reason: format!("{value:?} is not a whole number in range"),
    })
}

fn inflate(value: &str) -> Result<String, ShareError> {
    let packed = b64::decode(value).ok_or(ShareError::Corrupt)?;
    let bytes = deflate::inflate(&packed, MAX_TEXT_BYTES).map_err(|e| match e {
        deflate::InflateError::TooLarge => ShareError::TextTooLarge,
        deflate::InflateError::Corrupt => ShareError::Corrupt,
    })?;
    String::from_utf8(bytes).map_err(|_| ShareError::Corrupt)
}

impl fmt::Display for ShareState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_state(text: &str) -> ShareState {
        ShareState {
            source: Source::Text(text.to_string()),
            token: "abaabb".into(),
            position: 4,
            seed: 7,
            view: "http".into(),
        }
    }

    #[test]
    fn round_trips_text_and_lessons() {
        let s = text_state("client alice:\n    obj = get configmap/x\n");
        assert_eq!(ShareState::decode(&s.encode()), Ok(s.clone()));
        assert_eq!(ShareState::decode(&format!("#{}", s.encode())), Ok(s));
        let l = ShareState {
            source: Source::Lesson("stale-update".into()),
            token: "a2b".into(),
            position: 0,
            seed: 0,
            view: String::new(),
        };
        assert_eq!(l.encode(), "v1&lesson=stale-update&t=a2b");
        assert_eq!(ShareState::decode(&l.encode()), Ok(l));
    }

    #[test]
    fn links_are_stable_and_old_links_still_open() {
        let text =
            "client alice:\n    obj = get configmap/x\n    obj.data.n = \"1\"\n    update obj\n";
        // The encoder is deterministic (native and wasm alike): this exact link.
        let link = "v1&z=S87JTM0rUUjMyUxOteJSAIL8pCwFW4X01BKF5Py8tMz03MQC_QqYjF5KYkmiXh5QgZKhEliwtAAolAqS4wIA\
                    &t=abaabb&p=4&seed=7&view=http";
        assert_eq!(text_state(text).encode(), link);
        assert_eq!(ShareState::decode(link), Ok(text_state(text)));
        // Links made by earlier releases (miniz_oxide at levels 1 and 9) open unchanged.
        for z in [
            "NYtBCoAwDATvfcXSB1S8Cj4mxlgiNe0hgs83CO5xdoabijmoKcuSEOvbiRVVHNzt0HrRmJ7_KTs5FQshz_mD9wgkiCq9",
            "NYrBDYAgDAD_TNEwAMavicPUWkkNFh41cXwLCfe8OyrCaoBFiLcATj1u2CGzAVW9JD_Ylm-WdKJhUh_iGod8myvuLfw",
        ] {
            let old = format!("v1&z={z}&t=abaabb&p=4&seed=7&view=http");
            assert_eq!(ShareState::decode(&old), Ok(text_state(text)));
        }
        let lesson = crate::lessons::LESSONS[0].source;
        let old = "v1&z=pZKxjtswEER7f8VATRqf4gPS5IAUSX4hSL-kVvYmNFfgUnb891lR9l1wcXHAqRM58zg7ZJWaGN2Ps-JcpHKx\
                   LTQzrJKvF6ah21DQuaLrug38-5okMigP-KYBQeuhyRA1j7I_0vTxeHlYf0DV90znEvmno0UzHne7Zm5GHqSiHlgK9JwbPup0\
                   6ddDPhjmaaDKSO4wjFKsNvNRT2yLERp-cXSGOvixXyK9uKxKSohUirA1-J0wW5g2Ek1iXE5cXDXO5nzPdhZP-Wn3Gd99IM9U\
                   IdnqMq6OMEmca7o0tCcqS4OS98_p44Hynp8a_vXRYiBMhb0pL8FXtsjq0-F0FSQKnPrGXqrfXCd9e81PzetNUP-bL_iCTrKf\
                   RMlhMYlHBy1BV53jXbLnuyfcFP2_tLHo8aER1odxbd1lz_yg4V109__PtnjgYV5eLQWi4Ar-My3VtCywOUbmwW6rzsBIkmy9\
                   zNtF3rbv9fmS49WYV09WJPWnuKayzV8";
        let decoded = ShareState::decode(old).map(|s| s.source);
        assert_eq!(decoded, Ok(Source::Text(lesson.to_string())));
    }

    #[test]
    fn unknown_fields_from_later_versions_are_skipped() {
        let got = ShareState::decode("v1&lesson=x&future=1&p=2").unwrap();
        assert_eq!(got.position, 2);
    }

    #[test]
    fn broken_links_are_errors_with_reasons() {
        assert_eq!(ShareState::decode(""), Err(ShareError::NoVersion));
        assert_eq!(ShareState::decode("hello"), Err(ShareError::NoVersion));
        assert_eq!(
            ShareState::decode("v9&lesson=x"),
            Err(ShareError::NewerVersion("v9".into()))
        );
        assert_eq!(ShareState::decode("v1&p=3"), Err(ShareError::NoScenario));
        assert_eq!(ShareState::decode("v1&z=!!!"), Err(ShareError::Corrupt));
        assert_eq!(ShareState::decode("v1&z=AAAA"), Err(ShareError::Corrupt));
        assert!(matches!(
            ShareState::decode("v1&lesson=x&p=-1"),
            Err(ShareError::BadField { field: "p", .. })
        ));
        assert!(matches!(
            ShareState::decode("v1&lesson=<script>"),
            Err(ShareError::BadField {
                field: "lesson",
                ..
            })
        ));
        let long = format!("v1&lesson=x&t={}", "a".repeat(MAX_LINK_BYTES));
        assert!(matches!(
            ShareState::decode(&long),
            Err(ShareError::TooLong(_))
        ));
    }

    #[test]
    fn a_decompression_bomb_is_refused() {
        let big = "a".repeat(MAX_TEXT_BYTES + 1);
        let link = text_state(&big).encode();
        assert!(
            link.len() < 1000,
            "highly compressible text makes a short link"
        );
        assert_eq!(ShareState::decode(&link), Err(ShareError::TextTooLarge));
    }

    #[test]
    fn decoding_arbitrary_text_never_panics() {
        use proptest::prelude::*;
        proptest!(ProptestConfig::with_cases(256), |(s in ".{0,200}")| {
            let _ = ShareState::decode(&s);
            let _ = ShareState::decode(&format!("v1&z={s}"));
        });
    }
}
