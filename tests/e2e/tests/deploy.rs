//! Deploying the page (issue 12, docs/deploy.md): every file `index.html` loads carries the
//! sha384 of what is in `dist/`, and a page left open across a deploy keeps working.
//!
//! The deploy journey serves build A under a sub-folder (`/docs/rvlab/`, as a docs site would)
//! with the host's cache headers (`rvlab-static`), opens the page, an embed and a second page,
//! then deploys build B over it: B is A with a changed wasm, glue, stylesheet and worker,
//! renamed by `cargo xtask hash-assets` (so every one of its four files has another name), and
//! served with A's files still reachable behind it, as `cargo xtask dist` keeps them. A has the
//! precompressed `.gz` files `cargo xtask dist` writes (the browser gets its wasm gzip'd), B has
//! none (served as they are). It has its own server; the journey starts with an empty HTTP
//! cache (a first visit).

use anyhow::{ensure, Context, Result};
use base64::Engine as _;
use rvlab_e2e::harness::{ensure_dist, project_root};
use rvlab_e2e::page::{journey, Page};
use serde_json::Value;
use sha2::{Digest, Sha384};
use std::path::{Path, PathBuf};

/// The names after `./` in `index.html`: the build's files (wasm, glue, CSS, worker).
fn build_files(index: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (at, _) in index.match_indices("./") {
        let rest = &index[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if [".js", ".wasm", ".css"].iter().any(|e| name.ends_with(e))
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_owned());
        }
    }
    names.sort();
    names
}

fn gunzip(gz: &[u8]) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz).read_to_end(&mut out)?;
    Ok(out)
}

/// `GET path` on `server` with `Accept-Encoding: accept`, as a plain HTTP client: the
/// response's headers (names lowercased) and body.
fn get(server: &rvlab_static::Server, path: &str, accept: &str) -> Result<(String, Vec<u8>)> {
    use std::io::{Read, Write};
    let url = server.url();
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or("");
    let mut s = std::net::TcpStream::connect(addr)?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept-Encoding: {accept}\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .context("no end of the head")?;
    let head = String::from_utf8(raw[..split].to_vec())?.to_ascii_lowercase();
    Ok((head, raw[split + 4..].to_vec()))
}

/// What Resource Timing says the document received for `file`: `(encodedBodySize,
/// decodedBodySize)`, the bytes as transferred (after any content coding) and as decoded.
fn received(page: &Page, file: &str) -> Result<(u64, u64)> {
    let v = page.script(&format!(
        "const e = performance.getEntriesByType('resource')\
           .filter(e => e.name.split('/').pop() === '{file}'); \
         return e.length ? [e[0].encodedBodySize, e[0].decodedBodySize] : null"
    ))?;
    let n = |i: usize| v.get(i).and_then(Value::as_u64);
    match (n(0), n(1)) {
        (Some(enc), Some(dec)) => Ok((enc, dec)),
        _ => anyhow::bail!("no resource timing entry for {file}: {v}"),
    }
}

fn sri(bytes: &[u8]) -> String {
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha384::digest(bytes))
    )
}

/// The 16 hex digits a content-hashed name carries (`style-0123456789abcdef.css` →
/// `0123456789abcdef`).
fn name_hash(name: &str) -> Option<&str> {
    let stem = name
        .strip_suffix("_bg.wasm")
        .or_else(|| name.rsplit_once('.').map(|(stem, _)| stem))?;
    let (_, hash) = stem.rsplit_once('-')?;
    (hash.len() == 16 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then_some(hash)
}

/// Every `integrity` `index.html` states, as `(file, value)`: on its `<link>`s, in its import
/// map, and in the loader's `fetch` of the wasm.
fn stated_integrity(index: &str) -> Result<Vec<(String, String)>> {
    let mut stated = Vec::new();
    for tag in index.split("<link ").skip(1) {
        let tag = &tag[..tag.find('>').context("an unclosed <link>")?];
        let attr = |key: &str| {
            let at = tag.find(&format!("{key}=\""))? + key.len() + 2;
            Some(tag[at..at + tag[at..].find('"')?].to_owned())
        };
        if let (Some(href), Some(value)) = (attr("href"), attr("integrity")) {
            stated.push((href.trim_start_matches("./").to_owned(), value));
        }
    }
    let map_at = index
        .find("<script type=importmap>")
        .context("index.html has no import map")?
        + "<script type=importmap>".len();
    let map: Value = serde_json::from_str(
        &index[map_at
            ..map_at
                + index[map_at..]
                    .find("</script>")
                    .context("unclosed import map")?],
    )?;
    for (url, value) in map["integrity"]
        .as_object()
        .context("the import map has no integrity")?
    {
        stated.push((
            url.trim_start_matches("./").to_owned(),
            value
                .as_str()
                .context("an integrity is not a string")?
                .to_owned(),
        ));
    }
    let fetch_at = index
        .find("module_or_path: fetch('")
        .context("the loader does not fetch the wasm")?
        + "module_or_path: fetch('".len();
    let rest = &index[fetch_at..];
    let url = &rest[..rest.find('\'').context("unclosed URL")?];
    let value_at = rest
        .find("integrity: '")
        .context("the wasm's fetch has no integrity")?
        + 12;
    let value = &rest[value_at..value_at + rest[value_at..].find('\'').context("unclosed")?];
    stated.push((url.trim_start_matches("./").to_owned(), value.to_owned()));
    Ok(stated)
}

#[test]
fn every_file_index_html_loads_has_the_integrity_and_the_name_of_its_content() -> Result<()> {
    let dist = ensure_dist()?;
    let index = std::fs::read_to_string(dist.join("index.html"))?;
    let kubectl = std::fs::read_to_string(dist.join("kubectl.html"))?;
    check_page(&dist, &index)?;
    check_page(&dist, &kubectl)?;
    // The kubectl build (the page with the kubectl model) has its own glue and wasm, and the
    // same stylesheet and worker.
    let (a, b) = (build_files(&index), build_files(&kubectl));
    let shared: Vec<&String> = a.iter().filter(|n| b.contains(n)).collect();
    ensure!(
        shared.len() == 2
            && shared
                .iter()
                .all(|n| n.starts_with("style-") || n.starts_with("explore-worker-")),
        "index.html {a:?}, kubectl.html {b:?}"
    );
    Ok(())
}

/// Checks one page of `dist`: its four files are named by their content and loaded with
/// their integrity (the worker excepted: `new Worker` takes none).
fn check_page(dist: &Path, index: &str) -> Result<()> {
    let files = build_files(index);
    ensure!(
        files.len() == 4,
        "four files (wasm, glue, CSS, worker): {files:?}"
    );
    for name in &files {
        let bytes = std::fs::read(dist.join(name)).with_context(|| format!("{name} in dist/"))?;
        let hash = name_hash(name).with_context(|| format!("{name} is not content-hashed"))?;
        let hex: String = Sha384::digest(&bytes)[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        ensure!(hash == hex, "{name}: its content's sha384 starts {hex}");
        // `cargo xtask dist` ships each file precompressed too; the .gz is the same bytes.
        let gz = std::fs::read(dist.join(format!("{name}.gz")))
            .with_context(|| format!("{name}.gz in dist/"))?;
        ensure!(gunzip(&gz)? == bytes, "{name}.gz is not {name} compressed");
    }
    let stated = stated_integrity(index)?;
    // The stylesheet and the wasm's preload, the glue's modulepreload, the import map, the fetch.
    ensure!(stated.len() == 5, "{stated:?}");
    for (file, value) in &stated {
        let bytes = std::fs::read(dist.join(file)).with_context(|| format!("{file} in dist/"))?;
        ensure!(
            *value == sri(&bytes),
            "{file}: index.html says {value}, dist/ has {}",
            sri(&bytes)
        );
    }
    let covered: Vec<&str> = stated.iter().map(|(f, _)| f.as_str()).collect();
    for name in files.iter().filter(|n| !n.starts_with("explore-worker-")) {
        ensure!(
            covered.contains(&name.as_str()),
            "{name} is loaded without integrity"
        );
    }
    Ok(())
}

/// A copy of `dist`'s current build (its two pages and four files) in `to`; its file names.
fn copy_build(dist: &Path, to: &Path) -> Result<Vec<String>> {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to)?;
    let index = std::fs::read_to_string(dist.join("index.html"))?;
    let files = build_files(&index);
    for name in files
        .iter()
        .map(String::as_str)
        .chain(["index.html", "embed-sample.html"])
    {
        std::fs::copy(dist.join(name), to.join(name)).with_context(|| format!("copy {name}"))?;
        // And its precompressed copy where `cargo xtask dist` wrote one.
        let gz = format!("{name}.gz");
        if dist.join(&gz).is_file() {
            std::fs::copy(dist.join(&gz), to.join(&gz)).with_context(|| format!("copy {gz}"))?;
        }
    }
    Ok(files)
}

/// Build B: A's files changed (a custom section in the wasm, a comment in the glue and the
/// worker, a rule in the stylesheet that the page exposes as `--rvlab-build: b`) and renamed
/// by the real step, `cargo xtask hash-assets`.
fn make_build_b(a: &Path, a_files: &[String], b: &Path) -> Result<Vec<String>> {
    copy_build(a, b)?;
    for name in a_files {
        let path = b.join(name);
        let mut bytes = std::fs::read(&path)?;
        if name.ends_with(".wasm") {
            // A custom section (id 0): size, name length, name, payload.
            let section_name = b"rvlab-build";
            bytes.extend_from_slice(&[
                0,
                (1 + section_name.len() + 1) as u8,
                section_name.len() as u8,
            ]);
            bytes.extend_from_slice(section_name);
            bytes.push(b'b');
        } else if name.ends_with(".css") {
            bytes.extend_from_slice(b":root{--rvlab-build:b}");
        } else {
            bytes.extend_from_slice(b"\n// build B\n");
        }
        std::fs::write(&path, bytes)?;
    }
    let status =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["xtask", "hash-assets"])
            .arg(b)
            .current_dir(project_root())
            .status()
            .context("cannot run `cargo xtask hash-assets`")?;
    ensure!(
        status.success(),
        "`cargo xtask hash-assets` failed ({status})"
    );
    let files = build_files(&std::fs::read_to_string(b.join("index.html"))?);
    for name in &files {
        ensure!(!a_files.contains(name), "B still loads A's {name}");
        ensure!(b.join(name).is_file(), "B lacks {name}");
    }
    Ok(files)
}

/// The names of the resources the current document loaded (Resource Timing).
fn loaded(page: &Page) -> Result<Vec<String>> {
    let v = page.script(
        "return performance.getEntriesByType('resource').map(e => e.name.split('/').pop())",
    )?;
    Ok(v.as_array()
        .context("not a list")?
        .iter()
        .filter_map(|n| n.as_str().map(str::to_owned))
        .collect())
}

/// Waits until the document has loaded `file` and the app has rendered.
fn wait_build(page: &Page, file: &str) -> Result<()> {
    page.wait_until(&format!("the page has loaded {file}"), || {
        Ok(loaded(page)?.iter().any(|n| n == file).then_some(()))
    })?;
    page.find("app").map(drop)
}

struct Site {
    server: rvlab_static::Server,
    a: PathBuf,
    b: PathBuf,
    a_files: Vec<String>,
    b_files: Vec<String>,
}

impl Site {
    /// The one of `files` whose name contains `part`.
    fn file(files: &[String], part: &str) -> String {
        files
            .iter()
            .find(|n| n.contains(part))
            .cloned()
            .unwrap_or_default()
    }

    /// The requests logged since the last clear, as `STATUS PATH` lines (for the report).
    fn log(&self) -> String {
        self.server
            .requests()
            .iter()
            .map(|(m, p, s)| format!("{m} {p} {s}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// How many logged requests named one of `files`.
    fn requested(&self, files: &[String]) -> usize {
        files.iter().map(|f| self.server.count(f)).sum()
    }
}

fn deploy(page: &Page, site: &Site) -> Result<()> {
    let session = page.session;
    let wasm_a = Site::file(&site.a_files, "_bg.wasm");
    let wasm_b = Site::file(&site.b_files, "_bg.wasm");
    let worker_a = Site::file(&site.a_files, "explore-worker-");
    let index_path = format!(
        "{}/",
        page.url
            .trim_start_matches("http://")
            .split_once('/')
            .map_or("", |(_, p)| p)
    );
    let index_path = format!("/{}", index_path.trim_start_matches('/'));

    // A cold first visit to build A.
    let tab_page = session.window()?;
    page.open()?;
    wait_build(page, &wasm_a)?;
    page.wait_text_contains("position", "step 0 of 6")?;
    let cold = site.server.requests();
    eprintln!("cold load of A: {} requests: {}", cold.len(), site.log());
    ensure!(
        site.server.count(&wasm_a) == 1,
        "the wasm once: {}",
        site.log()
    );
    ensure!(
        cold.iter().all(|(_, _, status)| *status == 200),
        "every file is there: {}",
        site.log()
    );
    // A's files have their precompressed .gz (as `cargo xtask dist` writes them): the browser
    // got the wasm gzip'd, exactly the .gz's bytes, and decoded it to the file whose sha384
    // the page checked (it runs, so the integrity held).
    let wasm_plain = std::fs::metadata(site.a.join(&wasm_a))?.len();
    let wasm_gz = std::fs::metadata(site.a.join(format!("{wasm_a}.gz")))?.len();
    ensure!(wasm_gz < wasm_plain, "{wasm_gz} < {wasm_plain}");
    let (encoded, decoded) = received(page, &wasm_a)?;
    eprintln!("the wasm as received: {encoded} bytes encoded, {decoded} decoded");
    ensure!(
        (encoded, decoded) == (wasm_gz, wasm_plain),
        "the browser received {encoded} bytes decoded to {decoded}; the .gz has {wasm_gz}, \
         the wasm {wasm_plain}"
    );
    // The same answer to a plain client, header by header, and the plain file without gzip.
    let wasm_path = format!("{index_path}{wasm_a}");
    let (head, body) = get(&site.server, &wasm_path, "gzip, deflate, br, zstd")?;
    ensure!(
        head.contains("\r\ncontent-encoding: gzip\r\n")
            && head.contains("\r\ncontent-type: application/wasm\r\n")
            && head.contains("\r\nvary: accept-encoding\r\n"),
        "{head}"
    );
    ensure!(
        gunzip(&body)? == std::fs::read(site.a.join(&wasm_a))?,
        "the gzip'd body is the wasm"
    );
    let (head, body) = get(&site.server, &wasm_path, "identity")?;
    ensure!(!head.contains("content-encoding"), "{head}");
    ensure!(body.len() as u64 == wasm_plain, "the plain wasm");
    site.server.clear_log();
    // An embed and a second page of A, in their own tabs.
    let tab_embed = session.new_tab()?;
    session.switch_to_window(&tab_embed)?;
    page.open_path("embed-sample.html")?;
    session.switch_to_frame(Some(0))?;
    page.find("app")?;
    page.wait_text_contains("position", "step 2 of 6")?;
    session.switch_to_frame(None)?;
    let tab_late = session.new_tab()?;
    session.switch_to_window(&tab_late)?;
    page.open()?;
    page.wait_text_contains("position", "step 0 of 6")?;

    // Deploy B, A's files kept next to it.
    site.server.set_roots(vec![site.b.clone(), site.a.clone()]);
    site.server.clear_log();

    // The open A page makes a share link and explores: its worker is A's, handed A's module.
    session.switch_to_window(&tab_page)?;
    page.click("step-forward")?;
    page.click("step-forward")?;
    page.wait_text_contains("position", "step 2 of 6")?;
    page.click("copy-link")?;
    let link = page.wait_until("the link is shown", || {
        let v = page.value("share-output")?;
        Ok(v.contains("#v1").then_some(v))
    })?;
    page.click("explore-button")?;
    page.wait_text_contains("explore-results", "Complete: explored 6 schedules")?;
    eprintln!("first exploration in A after the deploy: {}", site.log());
    ensure!(
        site.server.count(&worker_a) == 1,
        "A's worker: {}",
        site.log()
    );
    ensure!(
        site.requested(&site.b_files) == 0 && site.server.count(&wasm_a) == 0,
        "the worker fetched no wasm and nothing of B: {}",
        site.log()
    );
    // The A embed still steps.
    session.switch_to_window(&tab_embed)?;
    session.switch_to_frame(Some(0))?;
    page.click("step-forward")?;
    page.wait_text_contains("position", "step 3 of 6")?;
    session.switch_to_frame(None)?;

    // A reload gets B: index.html is revalidated, B's files fetched, B's stylesheet applies.
    session.switch_to_window(&tab_page)?;
    site.server.clear_log();
    session.refresh()?;
    wait_build(page, &wasm_b)?;
    ensure!(
        site.server
            .requests()
            .iter()
            .any(|(_, p, s)| *p == index_path && *s == 200),
        "index.html ({index_path}) revalidated and changed: {}",
        site.log()
    );
    let build = page.script(
        "return getComputedStyle(document.documentElement).getPropertyValue('--rvlab-build').trim()",
    )?;
    ensure!(build == "b", "B's stylesheet applies: {build}");
    // B has no .gz files (`hash-assets` renamed all four and dropped A's copies, and
    // index.html's, which it rewrote): its wasm came as it is.
    let b_plain = std::fs::metadata(site.b.join(&wasm_b))?.len();
    ensure!(
        !site.b.join(format!("{wasm_b}.gz")).exists()
            && !site.b.join("index.html.gz").exists()
            && !site.b.join(format!("{wasm_a}.gz")).exists(),
        "B holds no stale .gz"
    );
    let (encoded, decoded) = received(page, &wasm_b)?;
    ensure!(
        (encoded, decoded) == (b_plain, b_plain),
        "B's wasm as received: {encoded} encoded, {decoded} decoded, the file has {b_plain}"
    );
    ensure!(
        site.requested(&site.a_files) == 0,
        "nothing of A: {}",
        site.log()
    );
    eprintln!("reload after the deploy: {}", site.log());
    // The link made in A opens in B at the same step.
    session.goto("about:blank")?;
    session.goto(&link)?;
    wait_build(page, &wasm_b)?;
    page.wait_text_contains("position", "step 2 of 6")?;

    // A host that dropped A's files, and a visitor whose cache does not have A's worker: the
    // open A page says to reload instead of exploring forever; the reload explores in B.
    site.server.set_roots(vec![site.b.clone()]);
    session.clear_http_cache()?;
    session.switch_to_window(&tab_late)?;
    page.click("explore-button")?;
    let error = page.wait_text_contains("explore-error", "could not be loaded")?;
    ensure!(
        error.contains("reload the page") && error.contains(&worker_a),
        "{error}"
    );
    session.refresh()?;
    wait_build(page, &wasm_b)?;
    page.wait_text_contains("position", "step 0 of 6")?;
    page.click("explore-button")?;
    page.wait_text_contains("explore-results", "Complete: explored 6 schedules")?;
    Ok(())
}

#[test]
fn an_open_page_survives_a_deploy_and_a_reload_gets_the_new_build() {
    journey("deploy", |page| {
        let work = project_root().join("target/e2e-deploy");
        let a = work.join("a");
        let b = work.join("b");
        let a_files = copy_build(page.dist, &a)?;
        let b_files = make_build_b(&a, &a_files, &b)?;
        eprintln!(
            "build A: {}\nbuild B: {}",
            a_files.join(" "),
            b_files.join(" ")
        );
        let site = Site {
            server: rvlab_static::serve_at("/docs/rvlab/", vec![a.clone()])?,
            a,
            b,
            a_files,
            b_files,
        };
        let url = site.server.url();
        let sub = Page {
            url: &url,
            server: &site.server,
            ..*page
        };
        deploy(&sub, &site).with_context(|| format!("requests: {}", site.log()))
    });
}
