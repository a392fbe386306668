//! The cache policy a host should use for `dist/`: content-hashed files never change under
//! their name, so they are cached for a year and never revalidated; every other file
//! (`index.html`, `embed-sample.html`, anything unknown) is revalidated on every use.

/// `Cache-Control` of a content-hashed file.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of every other file: the browser may keep it but asks the server first.
pub const REVALIDATE: &str = "no-cache";

/// The `Cache-Control` value for `file_name` (a file name, or a path whose last component is
/// used): [`IMMUTABLE`] for a content-hashed name, [`REVALIDATE`] for anything else.
pub fn cache_control(file_name: &str) -> &'static str {
    if is_hashed(file_name) {
        IMMUTABLE
    } else {
        REVALIDATE
    }
}

/// Whether `file_name` is a content-hashed name of the release build: a stem, `-`, exactly 16
/// lowercase hex digits, then `_bg.wasm` or `.EXT` (an extension of letters and digits), e.g.
/// `rvlab-web-0123456789abcdef_bg.wasm` or `style-0123456789abcdef.css`.
pub fn is_hashed(file_name: &str) -> bool {
    let name = file_name.rsplit('/').next().unwrap_or(file_name);
    let wasm = name.strip_suffix("_bg.wasm");
    let ext = name.rsplit_once('.').and_then(|(base, ext)| {
        let ok = !ext.is_empty() && ext.bytes().all(|b| b.is_ascii_alphanumeric());
        ok.then_some(base)
    });
    [wasm, ext].into_iter().flatten().any(stem_dash_hash)
}

/// `STEM-HHHHHHHHHHHHHHHH` with a non-empty stem and 16 lowercase hex digits.
fn stem_dash_hash(base: &str) -> bool {
    let Some((stem, hash)) = base.rsplit_once('-') else {
        return false;
    };
    !stem.is_empty()
        && hash.len() == 16
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "0123456789abcdef";

    #[test]
    fn hashed_release_files_are_immutable() {
        for name in [
            format!("rvlab-web-{HASH}.js"),
            format!("rvlab-web-{HASH}_bg.wasm"),
            format!("style-{HASH}.css"),
            format!("explore-worker-{HASH}.js"),
            "rvlab-web-9f86d081884c7d65_bg.wasm".to_owned(),
            format!("/docs/rvlab/style-{HASH}.css"),
        ] {
            assert_eq!(cache_control(&name), IMMUTABLE, "{name}");
        }
    }

    #[test]
    fn pages_and_near_misses_are_revalidated() {
        for name in [
            "index.html".to_owned(),
            "embed-sample.html".to_owned(),
            "rvlab-web.js".to_owned(),
            "rvlab-web_bg.wasm".to_owned(),
            "style.css".to_owned(),
            "explore-worker.js".to_owned(),
            "".to_owned(),
            // 15 and 17 hex digits.
            "rvlab-web-0123456789abcde.js".to_owned(),
            "rvlab-web-0123456789abcdef0.js".to_owned(),
            // Uppercase hex.
            "rvlab-web-0123456789ABCDEF.js".to_owned(),
            // No dash before the hash, no stem.
            format!("rvlab-web{HASH}.js"),
            format!("-{HASH}.js"),
            // Not hex, no extension, an empty or odd extension, the wasm suffix misspelt.
            "rvlab-web-0123456789abcdeg.js".to_owned(),
            format!("rvlab-web-{HASH}"),
            format!("rvlab-web-{HASH}."),
            format!("rvlab-web-{HASH}.j-s"),
            format!("rvlab-web-{HASH}-bg.wasm"),
            // The hash in a directory, not the file name.
            format!("assets-{HASH}.d/index.html"),
        ] {
            assert_eq!(cache_control(&name), REVALIDATE, "{name}");
        }
    }
}
