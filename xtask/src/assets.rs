//! `cargo xtask hash-assets DIR`: content-hashed file names and sha384 integrity for a release
//! build of the page, after the last rewrite of every file (Trunk.toml's post-build hook runs it
//! after `short-names` and terser, so trunk's own hashes and integrity, computed before those
//! rewrites, would be wrong: docs/deploy.md).
//!
//! In `DIR` (trunk's staging directory, or any finished build: running it again after a file
//! changed gives that build new names), the four assets `index.html` loads are renamed
//! `STEM-<16 hex>.EXT`, the hex being the start of the file's own sha384:
//! - the wasm (`rvlab-web_bg.wasm` → `rvlab-web-<hash>_bg.wasm`), first, because
//! - the JS glue names the wasm (its default `new URL("…_bg.wasm", import.meta.url)`), so its
//!   hash is taken after that name is rewritten;
//! - the stylesheet, and the explorer's worker script (which names nothing: the page tells it
//!   the glue's URL and hands it the compiled wasm module, `crates/web/src/hooks/explore.rs`).
//!
//! `index.html` then names the new files, carries `integrity="sha384-…"` on the stylesheet, the
//! glue's `modulepreload` and the wasm's `preload`, an import map giving the glue's integrity
//! (so the loader's `import` is checked even if it starts before the preload), and the loader
//! fetches the wasm with the same integrity (a browser reuses a preload only when it matches).
//! Every step fails loudly when trunk's output is not as expected, rather than shipping a page
//! that loads unchecked or stale files.

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use sha2::{Digest, Sha384};
use std::path::Path;

/// The page's assets: the stem and the suffix around the hash.
pub const WASM: Asset = Asset::new("rvlab-web", "_bg.wasm");
pub const GLUE: Asset = Asset::new("rvlab-web", ".js");
pub const STYLE: Asset = Asset::new("style", ".css");
pub const WORKER: Asset = Asset::new("explore-worker", ".js");

/// Hex digits of the sha384 in a hashed name (64 bits: no collision among a site's builds).
const HASH_HEX: usize = 16;

/// A file of the page named `STEM[-HASH]SUFFIX`.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    stem: &'static str,
    suffix: &'static str,
}

impl Asset {
    const fn new(stem: &'static str, suffix: &'static str) -> Asset {
        Asset { stem, suffix }
    }

    /// The name with `hash` (16 hex digits).
    fn named(self, hash: &str) -> String {
        format!("{}-{hash}{}", self.stem, self.suffix)
    }

    /// Whether `name` is this asset, hashed or not (`rvlab-web.js`, `rvlab-web-0123…cdef.js`).
    pub fn matches(self, name: &str) -> bool {
        let Some(rest) = name.strip_prefix(self.stem) else {
            return false;
        };
        let Some(middle) = rest.strip_suffix(self.suffix) else {
            return false;
        };
        middle.is_empty() || is_hash_part(middle)
    }
}

/// `-` and exactly 16 lowercase hex digits.
fn is_hash_part(s: &str) -> bool {
    s.len() == HASH_HEX + 1
        && s.starts_with('-')
        && s[1..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `sha384-<base64>`, the value of an `integrity` attribute.
pub fn integrity(bytes: &[u8]) -> String {
    let digest = Sha384::digest(bytes);
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The first 16 hex digits of the sha384.
fn name_hash(bytes: &[u8]) -> String {
    Sha384::digest(bytes)
        .iter()
        .take(HASH_HEX / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The file names a document references that are `asset`'s (hashed or not), in order, each
/// once: every maximal run of file-name characters that `asset` matches.
pub fn references(text: &str, asset: Asset) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let mut rest = text;
    while let Some(at) = rest.find(asset.stem) {
        let before = &rest[..at];
        let start_ok = !before.chars().next_back().is_some_and(is_name);
        let tail = &rest[at..];
        let len = tail.find(|c: char| !is_name(c)).unwrap_or(tail.len());
        let word = &tail[..len];
        if start_ok && asset.matches(word) && !found.iter().any(|f| f == word) {
            found.push(word.to_owned());
        }
        rest = &tail[asset.stem.len()..];
    }
    found
}

/// The one name of `asset` that `text` (`what`, for the message) references.
fn the_reference(text: &str, asset: Asset, what: &str) -> Result<String> {
    match references(text, asset).as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!("{what} names no `{}…{}`", asset.stem, asset.suffix),
        many => bail!(
            "{what} names several builds of one file: {}",
            many.join(", ")
        ),
    }
}

/// Replaces every whole-name occurrence of `old` by `new` (names are bounded by characters
/// that cannot be in a file name), returning how many there were.
fn replace_name(text: &mut String, old: &str, new: &str) -> usize {
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let mut count = 0;
    while let Some(at) = rest.find(old) {
        let before_ok = !rest[..at].chars().next_back().is_some_and(is_name);
        let after = &rest[at + old.len()..];
        let after_ok = !after.chars().next().is_some_and(is_name);
        out.push_str(&rest[..at]);
        if before_ok && after_ok {
            out.push_str(new);
            count += 1;
        } else {
            out.push_str(old);
        }
        rest = after;
    }
    out.push_str(rest);
    *text = out;
    count
}

/// What `hash_assets` did: each asset's old and new name and its integrity.
#[derive(Debug)]
pub struct Renamed {
    pub old: String,
    pub new: String,
    pub integrity: String,
}

/// `cargo xtask hash-assets DIR`.
pub fn hash_assets_command(dir: &Path) -> Result<()> {
    for r in hash_assets(dir)? {
        println!("hash-assets: {} -> {} ({})", r.old, r.new, r.integrity);
    }
    Ok(())
}

/// Renames `dir`'s assets by content and rewrites `index.html` to load them with integrity.
pub fn hash_assets(dir: &Path) -> Result<Vec<Renamed>> {
    let index_path = dir.join("index.html");
    let mut index = std::fs::read_to_string(&index_path)
        .with_context(|| format!("cannot read {}", index_path.display()))?;
    let read = |name: &str| {
        std::fs::read(dir.join(name)).with_context(|| format!("cannot read {name} in {dir:?}"))
    };
    let mut done = Vec::new();

    // The wasm first: the glue names it.
    let wasm_old = the_reference(&index, WASM, "index.html")?;
    let wasm = read(&wasm_old)?;
    let wasm_new = WASM.named(&name_hash(&wasm));
    let glue_old = the_reference(&index, GLUE, "index.html")?;
    let mut glue = String::from_utf8(read(&glue_old)?).context("the JS glue is not UTF-8")?;
    let in_glue = the_reference(&glue, WASM, &glue_old)?;
    replace_name(&mut glue, &in_glue, &wasm_new);
    let glue_new = GLUE.named(&name_hash(glue.as_bytes()));
    let style_old = the_reference(&index, STYLE, "index.html")?;
    let style = read(&style_old)?;
    let style_new = STYLE.named(&name_hash(&style));
    let worker_old = the_reference(&index, WORKER, "index.html")?;
    let worker = read(&worker_old)?;
    let worker_new = WORKER.named(&name_hash(&worker));

    for (old, new, bytes) in [
        (&wasm_old, &wasm_new, wasm.as_slice()),
        (&glue_old, &glue_new, glue.as_bytes()),
        (&style_old, &style_new, style.as_slice()),
        (&worker_old, &worker_new, worker.as_slice()),
    ] {
        std::fs::write(dir.join(new), bytes).with_context(|| format!("cannot write {new}"))?;
        if old != new {
            std::fs::remove_file(dir.join(old)).with_context(|| format!("cannot remove {old}"))?;
            // A precompressed copy of the old file is no copy of anything here any more.
            remove_if_present(&dir.join(gz_name(old)))?;
        }
        if replace_name(&mut index, old, new) == 0 {
            bail!("index.html does not name {old}");
        }
        done.push(Renamed {
            old: old.clone(),
            new: new.clone(),
            integrity: integrity(bytes),
        });
    }
    let sri = |name: &str| {
        done.iter()
            .find(|r| r.new == name)
            .map(|r| r.integrity.clone())
            .expect("renamed above")
    };
    index = with_integrity(&index, &[&wasm_new, &glue_new, &style_new], &sri)?;
    index = check_loader(
        &index,
        &glue_new,
        &sri(&glue_new),
        &wasm_new,
        &sri(&wasm_new),
    )?;
    std::fs::write(&index_path, &index).context("cannot write index.html")?;
    // index.html changed under its name: a `.gz` of it (a finished build's) would be stale.
    remove_if_present(&dir.join(gz_name("index.html")))?;
    Ok(done)
}

/// Sets `integrity` on every `<link>` whose `href` ends in one of `names` (trunk writes one
/// for the stylesheet, the glue's modulepreload and the wasm's preload), replacing trunk's.
fn with_integrity(index: &str, names: &[&str], sri: &dyn Fn(&str) -> String) -> Result<String> {
    let mut out = String::with_capacity(index.len() + 400);
    let mut rest = index;
    let mut seen: Vec<&str> = Vec::new();
    while let Some(at) = rest.find("<link ") {
        out.push_str(&rest[..at]);
        let end = rest[at..]
            .find('>')
            .map(|e| at + e + 1)
            .context("a <link> tag in index.html is not closed")?;
        let tag = &rest[at..end];
        let mut attrs = tag_attributes(&tag[1..tag.len() - 1])?;
        let href = attrs
            .iter()
            .find(|(k, _)| k == "href")
            .map(|(_, v)| v.clone());
        match href.and_then(|h| names.iter().find(|n| h.rsplit('/').next() == Some(**n))) {
            Some(name) => {
                attrs.retain(|(k, _)| k != "integrity");
                attrs.push(("integrity".into(), sri(name)));
                seen.push(name);
                out.push_str("<link");
                for (k, v) in &attrs {
                    out.push(' ');
                    out.push_str(k);
                    if !v.is_empty() {
                        out.push_str(&format!("=\"{v}\""));
                    }
                }
                out.push('>');
            }
            None => out.push_str(tag),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    for name in names {
        if !seen.contains(name) {
            bail!("index.html has no <link> for {name} to carry its integrity");
        }
    }
    Ok(out)
}

/// The attributes of a tag's inside (`link href=/a.css rel=stylesheet crossorigin`), values
/// unquoted (html-minifier drops quotes where it can), in order.
fn tag_attributes(inside: &str) -> Result<Vec<(String, String)>> {
    let mut attrs = Vec::new();
    let s = inside.trim_end_matches('/');
    let mut chars = s.char_indices().peekable();
    // Skip the tag name.
    while chars.next_if(|(_, c)| !c.is_whitespace()).is_some() {}
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            break;
        };
        while chars
            .next_if(|(_, c)| !c.is_whitespace() && *c != '=')
            .is_some()
        {}
        let key_end = chars.peek().map_or(s.len(), |(i, _)| *i);
        let key = s[start..key_end].to_owned();
        let mut value = String::new();
        if chars.next_if(|(_, c)| *c == '=').is_some() {
            match chars.peek().map(|(_, c)| *c) {
                Some(q @ ('"' | '\'')) => {
                    chars.next();
                    let mut closed = false;
                    for (_, c) in chars.by_ref() {
                        if c == q {
                            closed = true;
                            break;
                        }
                        value.push(c);
                    }
                    if !closed {
                        bail!("an attribute of <{inside}> is not closed");
                    }
                }
                _ => {
                    while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
                        value.push(c);
                    }
                }
            }
        }
        attrs.push((key, value));
    }
    Ok(attrs)
}

/// Trunk's loader, `import init, * as bindings from '<glue>'; … init({ module_or_path:
/// '<wasm>' })`, made to check both: an import map before it gives the glue's integrity (it
/// applies to the module fetch however it starts), and the wasm is fetched with its integrity
/// (equal to the preload's, so the browser uses the preloaded response).
fn check_loader(
    index: &str,
    glue: &str,
    glue_sri: &str,
    wasm: &str,
    wasm_sri: &str,
) -> Result<String> {
    // A build hashed before (a rerun after a file changed) has an import map already.
    let index = match index.find("<script type=importmap>") {
        Some(at) => {
            let end = at
                + index[at..]
                    .find("</script>")
                    .context("the import map is not closed")?
                + "</script>".len();
            format!("{}{}", &index[..at], &index[end..])
        }
        None => index.to_owned(),
    };
    let script = "<script type=module>";
    let at = match index.matches(script).count() {
        1 => index.find(script).expect("counted"),
        n => bail!("index.html has {n} `{script}` loaders, expected trunk's one"),
    };
    let end = at
        + index[at..]
            .find("</script>")
            .context("trunk's loader script is not closed")?;
    let loader = &index[at..end];
    let glue_url = quoted_ending(loader, glue).context("the loader does not import the glue")?;
    let wasm_url = quoted_ending(loader, wasm).context("the loader does not name the wasm")?;
    let key = "module_or_path: ";
    let (Some(arg), 1) = (loader.find(key), loader.matches(key).count()) else {
        bail!("the loader does not call init({{ {key}… }}) once, as trunk 0.21 writes it");
    };
    let arg = arg + key.len();
    // Trunk's `'<wasm>'`, or this step's own `fetch('<wasm>', { integrity: '…' })`.
    let plain = format!("'{wasm_url}'");
    let arg_len = if loader[arg..].starts_with(&plain) {
        plain.len()
    } else if loader[arg..].starts_with(&format!("fetch({plain}")) {
        loader[arg..]
            .find("})")
            .context("the loader's fetch is not closed")?
            + 2
    } else {
        bail!("the loader's init argument is not the wasm's URL");
    };
    let checked = format!(
        "{}fetch('{wasm_url}', {{ integrity: '{wasm_sri}' }}){}",
        &loader[..arg],
        &loader[arg + arg_len..]
    );
    let map = format!(
        "<script type=importmap>{{\"integrity\":{{\"{glue_url}\":\"{glue_sri}\"}}}}</script>"
    );
    Ok(format!("{}{map}{checked}{}", &index[..at], &index[end..]))
}

/// The quoted URL in `text` whose path ends in `/name` or is `name`.
fn quoted_ending(text: &str, name: &str) -> Option<String> {
    text.split(['\'', '"'])
        .skip(1)
        .step_by(2)
        .find(|u| *u == name || u.ends_with(&format!("/{name}")))
        .map(str::to_owned)
}

/// The files of the build `dir/index.html` loads: the wasm, the glue, the CSS, the worker.
pub fn current_build(dir: &Path) -> Result<Vec<String>> {
    page_build(dir, "index.html")
}

/// The page's kubectl build, next to `index.html` (docs/size.md, "Issue #14").
pub const KUBECTL_PAGE: &str = "kubectl.html";

/// The files of the build `dir/HTML` loads: the wasm, the glue, the CSS, the worker.
pub fn page_build(dir: &Path, html: &str) -> Result<Vec<String>> {
    let index_path = dir.join(html);
    let index = std::fs::read_to_string(&index_path).with_context(|| {
        format!(
            "cannot read {} (build it with `cargo xtask dist`)",
            index_path.display()
        )
    })?;
    [WASM, GLUE, STYLE, WORKER]
        .into_iter()
        .map(|asset| the_reference(&index, asset, html))
        .collect()
}

/// The files of everything `dir` serves: `index.html`'s build, then those of
/// [`KUBECTL_PAGE`]'s (when there is one) that are not `index.html`'s too (the stylesheet and
/// the worker are the same file).
pub fn deployed_build(dir: &Path) -> Result<Vec<String>> {
    let mut files = current_build(dir)?;
    if dir.join(KUBECTL_PAGE).is_file() {
        for name in page_build(dir, KUBECTL_PAGE)? {
            if !files.contains(&name) {
                files.push(name);
            }
        }
    }
    Ok(files)
}

/// Moves the build in `from` (a `trunk build` of `kubectl.html` into its own directory) into
/// `dist` as [`KUBECTL_PAGE`]: its `index.html` and the files it loads. Names are content
/// hashes, so a file `dist` already has must have the same bytes (the stylesheet and the
/// worker do); anything else is a broken build and fails.
pub fn add_kubectl_page(dist: &Path, from: &Path) -> Result<()> {
    for name in current_build(from)? {
        let bytes =
            std::fs::read(from.join(&name)).with_context(|| format!("cannot read {name}"))?;
        let to = dist.join(&name);
        match std::fs::read(&to) {
            Ok(have) if have == bytes => {}
            Ok(_) => bail!("{name} differs between the two builds although its name is its hash"),
            Err(_) => {
                std::fs::write(&to, &bytes).with_context(|| format!("cannot write {name}"))?
            }
        }
    }
    std::fs::copy(from.join("index.html"), dist.join(KUBECTL_PAGE))
        .with_context(|| format!("cannot write {KUBECTL_PAGE}"))?;
    Ok(())
}

/// The name of `name`'s precompressed copy: `name.gz` (what nginx's `gzip_static` and Caddy's
/// `precompressed gzip` look for, docs/deploy.md).
pub fn gz_name(name: &str) -> String {
    format!("{name}.gz")
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// zopfli's iterations per block for the `.gz` files. Measured on the page's two wasm files
/// (2 shared cores, load about 3.4 from another build, xtask's dev profile: dependencies at
/// opt-level 2; 2026-12-01), bytes and seconds for the 700,698 B wasm of `index.html` /
/// the 839,403 B one of `kubectl.html`:
///
/// | iterations | index.html's wasm | kubectl.html's wasm |
/// |---|---|---|
/// | gzip -9 (flate2) | 290,053 | 347,520 |
/// | 1 | 278,211 in 1.86 s | 333,232 in 2.52 s |
/// | 3 | 277,762 in 2.29 s | 332,843 in 2.92 s |
/// | 5 | 277,709 in 2.44 s | 332,770 in 3.29 s |
/// | 15 (zopfli's default) | 277,695 in 3.84 s | 332,742 in 4.82 s |
///
/// 5 keeps all but 14 and 28 bytes of the default's gain at about two thirds of its time.
pub const ZOPFLI_ITERATIONS: u64 = 5;

/// `bytes` as a gzip file by zopfli ([`ZOPFLI_ITERATIONS`]). Deterministic: the same input
/// gives the same bytes; zopfli's gzip header is constant (no name, MTIME 0, XFL 2, OS 3).
pub fn zopfli_gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let options = zopfli::Options {
        iteration_count: std::num::NonZeroU64::new(ZOPFLI_ITERATIONS).expect("not zero"),
        ..zopfli::Options::default()
    };
    let mut out = Vec::with_capacity(bytes.len() / 2);
    zopfli::compress(options, zopfli::Format::Gzip, bytes, &mut out).context("zopfli failed")?;
    Ok(out)
}

/// The files `cargo xtask dist` precompresses: everything the two pages load (the wasm, the
/// glue, the CSS, the worker of [`deployed_build`]) and the pages themselves.
pub fn precompressed_files(dir: &Path) -> Result<Vec<String>> {
    let mut names = deployed_build(dir)?;
    names.push("index.html".to_owned());
    if dir.join(KUBECTL_PAGE).is_file() {
        names.push(KUBECTL_PAGE.to_owned());
    }
    Ok(names)
}

/// Writes `NAME.gz` (zopfli, gzip format) next to each of `names` in `dir`; returns the
/// `(name, plain bytes, gzip bytes)` of each.
pub fn precompress(dir: &Path, names: &[String]) -> Result<Vec<(String, u64, u64)>> {
    let mut done = Vec::new();
    for name in names {
        let bytes = std::fs::read(dir.join(name)).with_context(|| format!("cannot read {name}"))?;
        let gz = zopfli_gzip(&bytes)?;
        let gz_file = gz_name(name);
        std::fs::write(dir.join(&gz_file), &gz)
            .with_context(|| format!("cannot write {gz_file}"))?;
        done.push((name.clone(), bytes.len() as u64, gz.len() as u64));
    }
    Ok(done)
}

/// How many earlier builds' hashed files `cargo xtask dist` keeps in `dist/` (docs/deploy.md).
pub const KEEP_PREVIOUS: usize = 2;
/// The list of those builds, newest first, one line of file names per build.
pub const HISTORY_FILE: &str = "previous-builds.txt";

/// The earlier builds' files, read from `dist/` before trunk replaces it.
pub struct Kept {
    /// Newest first, at most [`KEEP_PREVIOUS`] + 1 builds; each its file names.
    builds: Vec<Vec<String>>,
    files: Vec<(String, Vec<u8>)>,
}

/// Whether `name` is a content-hashed asset name (a plain name is a development build's).
fn is_hashed(name: &str) -> bool {
    [WASM, GLUE, STYLE, WORKER].into_iter().any(|a| {
        name.strip_prefix(a.stem)
            .and_then(|r| r.strip_suffix(a.suffix))
            .is_some_and(is_hash_part)
    })
}

/// Reads the current build of `dist` and the ones it kept (its history file), so that
/// [`restore_previous`] can put their files back after the new build.
pub fn keep_previous(dist: &Path) -> Result<Kept> {
    let mut builds: Vec<Vec<String>> = Vec::new();
    if dist.join("index.html").is_file() {
        if let Ok(current) = deployed_build(dist) {
            if current.iter().all(|n| is_hashed(n)) {
                builds.push(current);
            }
        }
    }
    if let Ok(text) = std::fs::read_to_string(dist.join(HISTORY_FILE)) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let names: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            if names.iter().all(|n| is_hashed(n)) && !builds.contains(&names) {
                builds.push(names);
            }
        }
    }
    // One more than kept: a rebuild of the same content drops the current one.
    builds.truncate(KEEP_PREVIOUS + 1);
    let mut files = Vec::new();
    for name in builds.iter().flatten() {
        // Each file and its precompressed copy, when it has one.
        for name in [name.clone(), gz_name(name)] {
            if let Ok(bytes) = std::fs::read(dist.join(&name)) {
                files.push((name, bytes));
            }
        }
    }
    Ok(Kept { builds, files })
}

/// Puts the kept builds' files (and their `.gz`) back into the new `dist` (never over the new
/// build's) and writes its history file; returns the number of files put back.
pub fn restore_previous(dist: &Path, kept: Kept) -> Result<usize> {
    let current = deployed_build(dist)?;
    let builds: Vec<&Vec<String>> = kept
        .builds
        .iter()
        .filter(|b| **b != current)
        .take(KEEP_PREVIOUS)
        .collect();
    let mut restored = 0;
    for (name, bytes) in &kept.files {
        let path = dist.join(name);
        let file = name.strip_suffix(".gz").unwrap_or(name).to_owned();
        if builds.iter().any(|b| b.contains(&file)) && !path.exists() {
            std::fs::write(&path, bytes).with_context(|| format!("cannot write {name}"))?;
            restored += 1;
        }
    }
    let mut text = String::from(
        "# The previous builds' files kept in dist/ for pages opened before the last deploy\n\
         # (cargo xtask dist, docs/deploy.md); newest first.\n",
    );
    for build in &builds {
        text.push_str(&build.join(" "));
        text.push('\n');
    }
    std::fs::write(dist.join(HISTORY_FILE), text).context("cannot write the history file")?;
    Ok(restored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kubectl_page_is_index_html_with_the_kubectl_feature() {
        let root = crate::util::project_root();
        let read = |f: &str| std::fs::read_to_string(root.join(f)).expect(f);
        let (index, kubectl) = (read("index.html"), read(KUBECTL_PAGE));
        let start = kubectl
            .find("    <!-- The page with the kubectl model")
            .expect("its comment");
        let end = start + kubectl[start..].find("-->\n").expect("the comment's end") + 4;
        let without_comment = format!("{}{}", &kubectl[..start], &kubectl[end..]);
        let link = r#"data-bin="rvlab-web" "#;
        assert_eq!(index.matches(link).count(), 1);
        let expected = index.replace(
            link,
            r#"data-bin="rvlab-web" data-cargo-features="kubectl" "#,
        );
        assert_eq!(without_comment, expected);
    }

    /// Trunk 0.21's minified index.html, as `cargo xtask dist` gets it (shortened).
    const TRUNK_INDEX: &str = "<!doctype html><html lang=en><meta charset=utf-8>\
<meta content=./explore-worker.js name=rvlab-worker><title>rvlab</title>\
<link href=./style.css integrity=sha384-OLD rel=stylesheet><script type=module>\
import init, * as bindings from './rvlab-web.js';\n\
const wasm = await init({ module_or_path: './rvlab-web_bg.wasm' });\n\
window.wasmBindings = bindings;</script>\
<link crossorigin href=./rvlab-web.js rel=modulepreload>\
<link as=fetch crossorigin href=./rvlab-web_bg.wasm rel=preload type=application/wasm>\
</head><body></body></html>";

    fn build(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("index.html"), TRUNK_INDEX).unwrap();
        std::fs::write(dir.join("rvlab-web_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
        std::fs::write(
            dir.join("rvlab-web.js"),
            "x=new URL(\"rvlab-web_bg.wasm\",import.meta.url);",
        )
        .unwrap();
        std::fs::write(dir.join("style.css"), "body{margin:0}").unwrap();
        std::fs::write(dir.join("explore-worker.js"), "self.onmessage=()=>{};").unwrap();
    }

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("rvlab-xtask-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn asset_names_match_hashed_and_plain_only() {
        assert!(GLUE.matches("rvlab-web.js"));
        assert!(GLUE.matches("rvlab-web-0123456789abcdef.js"));
        assert!(!GLUE.matches("rvlab-web-0123456789abcde.js"), "15 digits");
        assert!(!GLUE.matches("rvlab-web-0123456789ABCDEF.js"), "upper case");
        assert!(!GLUE.matches("rvlab-web_bg.wasm"));
        assert!(WASM.matches("rvlab-web-0123456789abcdef_bg.wasm"));
        assert!(!STYLE.matches("style.css.map"));
    }

    #[test]
    fn references_find_whole_names_once() {
        let text = "a ./rvlab-web.js b /x/rvlab-web.js 'rvlab-web-0123456789abcdef.js' \
                    xrvlab-web.js rvlab-web.json";
        assert_eq!(
            references(text, GLUE),
            ["rvlab-web.js", "rvlab-web-0123456789abcdef.js"]
        );
    }

    #[test]
    fn hashing_renames_by_content_and_checks_what_index_loads() {
        let dir = temp("hash");
        build(&dir);
        let done = hash_assets(&dir).unwrap();
        let names: Vec<&str> = done.iter().map(|r| r.new.as_str()).collect();
        assert_eq!(names.len(), 4);
        let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
        for r in &done {
            let bytes = std::fs::read(dir.join(&r.new)).unwrap();
            assert_eq!(integrity(&bytes), r.integrity, "{}", r.new);
            assert!(!dir.join(&r.old).exists(), "{} is gone", r.old);
            assert!(index.contains(&r.new), "index names {}", r.new);
            assert!(!index.contains(&format!("/{}", r.old)), "{}", r.old);
        }
        let glue = std::fs::read_to_string(dir.join(names[1])).unwrap();
        assert!(
            glue.contains(names[0]),
            "the glue names the hashed wasm: {glue}"
        );
        // The stylesheet, the glue's preload and the wasm's preload carry their integrity;
        // trunk's stale one is gone; the loader fetches the wasm with it; the import map has
        // the glue's.
        assert!(!index.contains("sha384-OLD"));
        for r in &done[..3] {
            assert!(
                index.contains(&format!("integrity=\"{}\"", r.integrity)),
                "{index}"
            );
        }
        assert!(index.contains(&format!(
            "module_or_path: fetch('./{}', {{ integrity: '{}' }})",
            done[0].new, done[0].integrity
        )));
        assert!(index.contains(&format!(
            "<script type=importmap>{{\"integrity\":{{\"./{}\":\"{}\"}}}}</script>",
            done[1].new, done[1].integrity
        )));
        assert!(index.contains(&format!("content=./{} name=rvlab-worker", done[3].new)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_changed_file_gets_a_new_name_and_the_others_keep_theirs() {
        let dir = temp("rehash");
        build(&dir);
        let first = hash_assets(&dir).unwrap();
        // Rehashing a finished build is a no-op on names...
        let again = hash_assets(&dir).unwrap();
        for (a, b) in first.iter().zip(&again) {
            assert_eq!(a.new, b.new);
        }
        // ...a changed wasm renames the wasm and, through its name, the glue.
        let wasm = dir.join(&first[0].new);
        let mut bytes = std::fs::read(&wasm).unwrap();
        bytes.extend_from_slice(b"\0\x02\x01b");
        std::fs::write(&wasm, bytes).unwrap();
        let third = hash_assets(&dir).unwrap();
        assert_ne!(third[0].new, first[0].new);
        assert_ne!(third[1].new, first[1].new, "the glue names the new wasm");
        assert_eq!(third[2].new, first[2].new);
        assert_eq!(third[3].new, first[3].new);
        let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert_eq!(
            index.matches("<script type=importmap>").count(),
            1,
            "{index}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unexpected_trunk_output_is_an_error() {
        let dir = temp("bad");
        build(&dir);
        std::fs::write(
            dir.join("index.html"),
            TRUNK_INDEX.replace("module_or_path", "path"),
        )
        .unwrap();
        let err = hash_assets(&dir).unwrap_err().to_string();
        assert!(err.contains("init("), "{err}");
        std::fs::write(dir.join("index.html"), "<p>nothing</p>").unwrap();
        let err = hash_assets(&dir).unwrap_err().to_string();
        assert!(err.contains("names no `rvlab-web…_bg.wasm`"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn gunzip(gz: &[u8]) -> Vec<u8> {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn zopfli_gzip_is_deterministic_and_decodes_to_the_input() {
        let text: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("line {} of {}\n", i % 97, i % 13).into_bytes())
            .collect();
        let gz = zopfli_gzip(&text).unwrap();
        assert_eq!(gz, zopfli_gzip(&text).unwrap(), "same input, same bytes");
        assert_eq!(gunzip(&gz), text);
        assert!(gz.len() < text.len() / 5, "{}", gz.len());
        // The header: magic, deflate, no flags (so no name or comment), MTIME 0, XFL 2, OS 3.
        assert_eq!(gz[..10], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]);
        // No smaller than gzip -9 would make it.
        assert!(gz.len() as u64 <= crate::bench::gzip_len(&text).unwrap());
    }

    #[test]
    fn precompress_writes_a_gz_next_to_each_file_the_pages_load() {
        let dir = temp("gz");
        build(&dir);
        hash_assets(&dir).unwrap();
        let names = precompressed_files(&dir).unwrap();
        assert_eq!(names.len(), 5, "{names:?}");
        assert_eq!(names[4], "index.html");
        let done = precompress(&dir, &names).unwrap();
        for (name, raw, gz) in &done {
            let plain = std::fs::read(dir.join(name)).unwrap();
            let packed = std::fs::read(dir.join(gz_name(name))).unwrap();
            assert_eq!((*raw, *gz), (plain.len() as u64, packed.len() as u64));
            assert_eq!(gunzip(&packed), plain, "{name}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn rehashing_a_build_drops_the_gz_files_it_makes_stale() {
        let dir = temp("gz-stale");
        build(&dir);
        let first = hash_assets(&dir).unwrap();
        precompress(&dir, &precompressed_files(&dir).unwrap()).unwrap();
        // The stylesheet changes: its old name and the old index.html's .gz go, the others'
        // (same content, same name) stay.
        std::fs::write(dir.join(&first[2].new), "p{}").unwrap();
        let second = hash_assets(&dir).unwrap();
        assert_ne!(second[2].new, first[2].new);
        assert!(!dir.join(gz_name(&first[2].new)).exists());
        assert!(!dir.join(gz_name("index.html")).exists());
        for r in [&second[0], &second[1], &second[3]] {
            let packed = std::fs::read(dir.join(gz_name(&r.new))).unwrap();
            assert_eq!(gunzip(&packed), std::fs::read(dir.join(&r.new)).unwrap());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_new_build_keeps_the_two_previous_builds_files() {
        let dist = temp("keep");
        build(&dist);
        let a = hash_assets(&dist).unwrap();
        precompress(&dist, &precompressed_files(&dist).unwrap()).unwrap();
        let mut names = vec![a.iter().map(|r| r.new.clone()).collect::<Vec<_>>()];
        // Three more builds, each with another stylesheet (trunk replaces dist/ every time).
        for css in ["b{}", "c{}", "d{}"] {
            let kept = keep_previous(&dist).unwrap();
            std::fs::remove_dir_all(&dist).unwrap();
            build(&dist);
            std::fs::write(dist.join("style.css"), css).unwrap();
            hash_assets(&dist).unwrap();
            precompress(&dist, &precompressed_files(&dist).unwrap()).unwrap();
            restore_previous(&dist, kept).unwrap();
            names.push(current_build(&dist).unwrap());
        }
        let present = |n: &String| dist.join(n).exists();
        let gz_present = |n: &String| dist.join(gz_name(n)).exists();
        // The newest build and the two before it are complete, with their .gz files; the
        // oldest stylesheet is gone (its other files are shared with the newer builds, so they
        // stay).
        for build in &names[1..] {
            assert!(build.iter().all(present), "{build:?}");
            assert!(build.iter().all(gz_present), "{build:?}");
        }
        assert!(
            !present(&names[0][2]),
            "the first build's CSS is no longer kept"
        );
        assert!(!gz_present(&names[0][2]), "nor its .gz");
        let history = std::fs::read_to_string(dist.join(HISTORY_FILE)).unwrap();
        let lines: Vec<&str> = history.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines, [names[2].join(" "), names[1].join(" ")]);
        // Rebuilding the same content keeps the same history.
        let kept = keep_previous(&dist).unwrap();
        restore_previous(&dist, kept).unwrap();
        let again = std::fs::read_to_string(dist.join(HISTORY_FILE)).unwrap();
        assert_eq!(again, history);
        let _ = std::fs::remove_dir_all(&dist);
    }
}
