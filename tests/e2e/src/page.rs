//! The playground's page object: `find` (locators, by `data-testid` only), `act` (verbs) and
//! `check` (wait-until conditions with a timeout; never a fixed sleep).

use crate::harness::{project_root, shared_browser};
use crate::webdriver::{Element, Session};
use anyhow::{bail, Result};
use rvlab_static::Server;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The share-link fragment of the first lesson at its start (what [`Page::open`] loads).
pub const DEFAULT_FRAGMENT: &str = "v1&lesson=stale-update";

/// How long a check waits before it fails.
pub const TIMEOUT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(20);

/// The playground, as a journey sees it.
///
/// A journey can also drive the host: `server` is the static server of the page (the same
/// cache headers as `cargo xtask serve`: hashed files immutable, HTML `no-cache`, strong ETags
/// and 304). Each journey starts with the server serving `dist` alone, an empty request log
/// and an empty browser HTTP cache (see [`journey`]). For a deploy journey:
///
/// ```no_run
/// # use rvlab_e2e::page::journey;
/// journey("deploy", |page| {
///     page.open()?; // build A (dist/): every file fetched, 200
///     assert_eq!(page.server.count("/"), 1);
///     let build_b = std::path::PathBuf::from("/tmp/build-b"); // a second build, made by the test
///     // Serve B, with A's files still reachable behind it (or `vec![build_b]` for B alone).
///     page.server.set_roots(vec![build_b, page.dist.to_path_buf()]);
///     page.server.clear_log();
///     page.open_plain()?; // index.html is revalidated (200: B's differs); cached hashed files
///                         // are not requested again; new ones are
///     for (method, path, status) in page.server.requests() {
///         println!("{method} {path} {status}");
///     }
///     Ok(())
/// });
/// ```
///
/// To serve under a subpath, start a second server and point a `Page` at it:
/// `let sub = rvlab_e2e::server::serve_at("/docs/rvlab/", vec![page.dist.to_path_buf()])?;`
/// then `Page { url: &sub.url(), server: &sub, ..*page }` (its `url()` is
/// `http://127.0.0.1:PORT/docs/rvlab`).
#[derive(Clone, Copy)]
pub struct Page<'a> {
    /// The browser session.
    pub session: &'a Session,
    /// The page's URL (no trailing slash).
    pub url: &'a str,
    /// The static server serving the page (request log, switchable roots).
    pub server: &'a Server,
    /// The release build served by default (the project's `dist/`).
    pub dist: &'a Path,
}

/// The CSS selector for a `data-testid`.
pub fn testid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

impl<'a> Page<'a> {
    // ---- find ----

    /// Every element with this `data-testid`, in document order.
    pub fn all(&self, id: &str) -> Result<Vec<Element>> {
        self.session.find_all(&testid(id))
    }

    /// The element with this `data-testid`, waiting until it is present.
    pub fn find(&self, id: &str) -> Result<Element> {
        self.wait_until(&format!("`{id}` is present"), || {
            Ok(self.all(id)?.into_iter().next())
        })
    }

    /// The number of elements with this `data-testid` now.
    pub fn count(&self, id: &str) -> Result<usize> {
        Ok(self.all(id)?.len())
    }

    /// The text of the element with this `data-testid` (waiting until it is present).
    pub fn text(&self, id: &str) -> Result<String> {
        let el = self.find(id)?;
        self.session.text(&el)
    }

    /// The current `value` of an input or textarea.
    pub fn value(&self, id: &str) -> Result<String> {
        let el = self.find(id)?;
        Ok(self
            .session
            .property(&el, "value")?
            .as_str()
            .unwrap_or("")
            .to_owned())
    }

    // ---- act ----

    /// Loads the page afresh on the first lesson and waits for the app to render. It opens the
    /// lesson's share link, so that work saved in local storage by an earlier journey (which a
    /// plain load would restore) does not leak into this one.
    pub fn open(&self) -> Result<()> {
        self.open_fragment(DEFAULT_FRAGMENT)
    }

    /// Loads the page afresh at `url` + `#fragment` (a new document even when only the fragment
    /// differs from the current URL) and waits for the app.
    pub fn open_fragment(&self, fragment: &str) -> Result<()> {
        self.session.goto("about:blank")?;
        self.session.goto(&format!("{}/#{fragment}", self.url))?;
        self.find("app").map(drop)
    }

    /// Loads the page afresh without a fragment (so that saved work, if any, is restored).
    pub fn open_plain(&self) -> Result<()> {
        self.session.goto("about:blank")?;
        self.session.goto(&format!("{}/", self.url))?;
        self.find("app").map(drop)
    }

    /// Loads `path` (e.g. `embed-sample.html`) of the served `dist/`.
    pub fn open_path(&self, path: &str) -> Result<()> {
        self.session.goto("about:blank")?;
        self.session.goto(&format!("{}/{path}", self.url))
    }

    /// The `data-testid` of the focused element (empty when it has none).
    pub fn focused(&self) -> Result<String> {
        let v = self.script(
            "return document.activeElement && document.activeElement.dataset.testid || ''",
        )?;
        Ok(v.as_str().unwrap_or("").to_owned())
    }

    /// Clicks the element with this `data-testid`.
    pub fn click(&self, id: &str) -> Result<()> {
        let el = self.find(id)?;
        self.session.click(&el)
    }

    /// Clicks the element with this `data-testid` whose `data-id` is `data_id` (an item of a
    /// list), waiting until it is present.
    pub fn click_item(&self, id: &str, data_id: &str) -> Result<()> {
        let selector = format!("{}[data-id=\"{data_id}\"]", testid(id));
        let el = self.wait_until(&format!("`{id}` `{data_id}` is present"), || {
            Ok(self.session.find_all(&selector)?.into_iter().next())
        })?;
        self.session.click(&el)
    }

    /// Types `text` at the end of an input or textarea.
    pub fn type_text(&self, id: &str, text: &str) -> Result<()> {
        let el = self.find(id)?;
        self.session.send_keys(&el, text)
    }

    /// Replaces the whole text of a textarea as a user would: select all, then type.
    pub fn replace_text(&self, id: &str, text: &str) -> Result<()> {
        let el = self.find(id)?;
        self.session.click(&el)?;
        self.session.chord(crate::webdriver::keys::CONTROL, "a")?;
        self.session.send_keys(&el, text)
    }

    /// Sets the editor's text as one input event (typing a long text key by key is slow).
    pub fn set_editor(&self, text: &str) -> Result<()> {
        self.find("editor")?;
        self.session.execute(
            "const t = document.querySelector('[data-testid=editor]'); t.value = arguments[0]; \
             t.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![text.into()],
        )?;
        Ok(())
    }

    /// Selects lesson `id` in the picker (a `change` event, as a reader's pick).
    pub fn pick_lesson(&self, id: &str) -> Result<()> {
        self.find("lesson-picker")?;
        self.script(&format!(
            "const s = document.querySelector('[data-testid=lesson-picker]'); \
             s.value = '{id}'; s.dispatchEvent(new Event('change', {{ bubbles: true }}));"
        ))?;
        Ok(())
    }

    /// Presses keys on whatever has focus.
    pub fn press(&self, keys: &[&str]) -> Result<()> {
        self.session.press(keys)
    }

    /// Runs a script in the page.
    pub fn script(&self, script: &str) -> Result<Value> {
        self.session.execute(script, vec![])
    }

    /// Saves a PNG screenshot as `target/e2e-screenshots/NAME.png` and returns its path.
    pub fn screenshot(&self, name: &str) -> Result<PathBuf> {
        let dir = project_root().join("target/e2e-screenshots");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, self.session.screenshot()?)?;
        Ok(path)
    }

    // ---- check ----

    /// Polls `probe` until it yields a value, or fails after [`TIMEOUT`] naming `what` (and
    /// the last error the probe met, e.g. a stale element while the page re-rendered).
    pub fn wait_until<T>(
        &self,
        what: &str,
        mut probe: impl FnMut() -> Result<Option<T>>,
    ) -> Result<T> {
        let start = Instant::now();
        let mut last_error = None;
        loop {
            match probe() {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => {}
                Err(e) => last_error = Some(e),
            }
            if start.elapsed() > TIMEOUT {
                match last_error {
                    Some(e) => bail!(
                        "timed out after {TIMEOUT:?} waiting until {what} (last error: {e:#})"
                    ),
                    None => bail!("timed out after {TIMEOUT:?} waiting until {what}"),
                }
            }
            std::thread::sleep(POLL);
        }
    }

    /// Waits until the text of `id` contains `needle`; returns the text.
    pub fn wait_text_contains(&self, id: &str, needle: &str) -> Result<String> {
        let mut last = String::new();
        let what = format!("`{id}` contains {needle:?}");
        self.wait_until(&what, || {
            let Some(el) = self.all(id)?.into_iter().next() else {
                return Ok(None);
            };
            last = self.session.text(&el)?;
            Ok(last.contains(needle).then(|| last.clone()))
        })
        .map_err(|e| e.context(format!("its text was: {last:?}")))
    }

    /// Waits until there are exactly `n` elements with this `data-testid`.
    pub fn wait_count(&self, id: &str, n: usize) -> Result<()> {
        self.wait_until(&format!("there are {n} `{id}`"), || {
            Ok((self.count(id)? == n).then_some(()))
        })
    }
}

/// Runs one journey on the shared browser, from a cold start: the server serves `dist/` alone
/// with an empty request log, and the browser's HTTP cache is empty
/// ([`crate::harness::Browser::reset`]). On failure (an error or a panic) it saves a
/// screenshot under `target/e2e-screenshots/` and fails the test with the cause.
pub fn journey(name: &str, f: impl FnOnce(&Page) -> Result<()>) {
    let browser = shared_browser();
    let page = Page {
        session: &browser.session,
        url: &browser.url,
        server: &browser.server,
        dist: &browser.dist,
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        browser.reset()?;
        f(&page)
    }));
    let failure = match outcome {
        Ok(Ok(())) => return,
        Ok(Err(e)) => format!("{e:#}"),
        Err(panic) => panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into()),
    };
    let shot = match page.screenshot(&format!("failed-{name}")) {
        Ok(p) => p.display().to_string(),
        Err(e) => format!("(no screenshot: {e:#})"),
    };
    drop(browser);
    panic!("journey `{name}` failed: {failure}\nscreenshot: {shot}");
}
