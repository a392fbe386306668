//! A small blocking W3C WebDriver client (the subset the journeys use), over [`crate::http`].

use crate::http;
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::time::Duration;

/// The key under which WebDriver returns element references.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Keys for [`Session::press`] (WebDriver's code points).
pub mod keys {
    /// ←
    pub const LEFT: &str = "\u{E012}";
    /// →
    pub const RIGHT: &str = "\u{E014}";
    /// Space.
    pub const SPACE: &str = "\u{E00D}";
    /// Enter.
    pub const ENTER: &str = "\u{E007}";
    /// Backspace.
    pub const BACKSPACE: &str = "\u{E003}";
    /// Control (hold with another key via [`super::Session::chord`]).
    pub const CONTROL: &str = "\u{E009}";
    /// Tab.
    pub const TAB: &str = "\u{E004}";
    /// Escape.
    pub const ESCAPE: &str = "\u{E00C}";
    /// Shift (hold with another key via [`super::Session::chord`]).
    pub const SHIFT: &str = "\u{E008}";
    /// ↑
    pub const UP: &str = "\u{E013}";
    /// ↓
    pub const DOWN: &str = "\u{E015}";
    /// Home.
    pub const HOME: &str = "\u{E011}";
    /// End.
    pub const END: &str = "\u{E010}";
}

/// A browser session on a WebDriver server.
#[derive(Debug)]
pub struct Session {
    base: String,
    id: String,
}

/// A reference to an element of the current page (stale once the page re-renders it).
#[derive(Debug, Clone)]
pub struct Element {
    id: String,
}

fn send(method: &str, url: &str, body: Option<&Value>) -> Result<Value> {
    let text = body.map(Value::to_string);
    let resp = http::request(method, url, text.as_deref(), COMMAND_TIMEOUT)?;
    let value: Value = serde_json::from_slice(&resp.body)
        .with_context(|| format!("{method} {url}: status {}, body not JSON", resp.status))?;
    let value = value.get("value").cloned().unwrap_or(Value::Null);
    if resp.status >= 400 {
        let error = value
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("error");
        let message = value.get("message").and_then(Value::as_str).unwrap_or("");
        let message = message.lines().next().unwrap_or("");
        bail!("WebDriver {method} {url}: {error}: {message}");
    }
    Ok(value)
}

impl Session {
    /// Opens a session on the WebDriver server at `base` (`http://127.0.0.1:PORT`) for the
    /// Chromium binary `binary`, started with `args`.
    pub fn new(base: &str, binary: &str, args: &[String]) -> Result<Session> {
        let caps = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "goog:chromeOptions": { "binary": binary, "args": args },
                    // The browser's console and network errors, for [`Session::browser_log`].
                    "goog:loggingPrefs": { "browser": "ALL" },
                }
            }
        });
        let value = send("POST", &format!("{base}/session"), Some(&caps))?;
        let id = value
            .get("sessionId")
            .and_then(Value::as_str)
            .context("new session: no sessionId")?
            .to_owned();
        Ok(Session {
            base: base.to_owned(),
            id,
        })
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value> {
        let url = format!("{}/session/{}{path}", self.base, self.id);
        send(method, &url, body.as_ref())
    }

    /// Navigates to `url` and waits for the load event.
    pub fn goto(&self, url: &str) -> Result<()> {
        self.call("POST", "/url", Some(json!({ "url": url })))
            .map(drop)
    }

    /// The current page's URL.
    pub fn current_url(&self) -> Result<String> {
        let v = self.call("GET", "/url", None)?;
        Ok(v.as_str().unwrap_or("").to_owned())
    }

    /// All elements matching a CSS selector (possibly none).
    pub fn find_all(&self, css: &str) -> Result<Vec<Element>> {
        let value = self.call(
            "POST",
            "/elements",
            Some(json!({ "using": "css selector", "value": css })),
        )?;
        let list = value.as_array().context("find elements: not a list")?;
        list.iter()
            .map(|e| {
                e.get(ELEMENT_KEY)
                    .and_then(Value::as_str)
                    .map(|id| Element { id: id.to_owned() })
                    .with_context(|| format!("find elements: no element reference in {e}"))
            })
            .collect()
    }

    /// Clicks an element (scrolling it into view first).
    pub fn click(&self, el: &Element) -> Result<()> {
        self.call(
            "POST",
            &format!("/element/{}/click", el.id),
            Some(json!({})),
        )
        .map(drop)
    }

    /// Types `text` into an element (focusing it first).
    pub fn send_keys(&self, el: &Element, text: &str) -> Result<()> {
        self.call(
            "POST",
            &format!("/element/{}/value", el.id),
            Some(json!({ "text": text })),
        )
        .map(drop)
    }

    /// Clears an input or textarea.
    pub fn clear(&self, el: &Element) -> Result<()> {
        self.call(
            "POST",
            &format!("/element/{}/clear", el.id),
            Some(json!({})),
        )
        .map(drop)
    }

    /// The rendered text of an element.
    pub fn text(&self, el: &Element) -> Result<String> {
        let v = self.call("GET", &format!("/element/{}/text", el.id), None)?;
        Ok(v.as_str().unwrap_or("").to_owned())
    }

    /// An element's DOM property (e.g. `value`, `disabled`), as JSON.
    pub fn property(&self, el: &Element, name: &str) -> Result<Value> {
        self.call("GET", &format!("/element/{}/property/{name}", el.id), None)
    }

    /// An element's attribute, if set.
    pub fn attribute(&self, el: &Element, name: &str) -> Result<Option<String>> {
        let v = self.call("GET", &format!("/element/{}/attribute/{name}", el.id), None)?;
        Ok(v.as_str().map(str::to_owned))
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its result.
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Runs an asynchronous `script`: it gets `args` and, last, a callback to call with its
    /// result.
    pub fn execute_async(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.call(
            "POST",
            "/execute/async",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// The browser log's entries since the last call (chromedriver's log API): console
    /// messages and failed resource loads, as `(level, message)`, e.g. `("SEVERE", "http://…/
    /// favicon.ico - Failed to load resource: … 404 (Not Found)")`.
    pub fn browser_log(&self) -> Result<Vec<(String, String)>> {
        let v = self.call("POST", "/se/log", Some(json!({ "type": "browser" })))?;
        let list = v.as_array().context("browser log: not a list")?;
        Ok(list
            .iter()
            .map(|e| {
                let field = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                (field("level"), field("message"))
            })
            .collect())
    }

    /// Presses and releases each key in turn, on whatever has focus.
    pub fn press(&self, keys: &[&str]) -> Result<()> {
        let mut actions = Vec::new();
        for k in keys {
            actions.push(json!({ "type": "keyDown", "value": k }));
            actions.push(json!({ "type": "keyUp", "value": k }));
        }
        self.key_actions(actions)
    }

    /// Holds `modifier` while pressing `key` (e.g. Control + a).
    pub fn chord(&self, modifier: &str, key: &str) -> Result<()> {
        self.key_actions(vec![
            json!({ "type": "keyDown", "value": modifier }),
            json!({ "type": "keyDown", "value": key }),
            json!({ "type": "keyUp", "value": key }),
            json!({ "type": "keyUp", "value": modifier }),
        ])
    }

    fn key_actions(&self, actions: Vec<Value>) -> Result<()> {
        self.call(
            "POST",
            "/actions",
            Some(json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] })),
        )?;
        self.call("DELETE", "/actions", None).map(drop)
    }

    /// Emulates `prefers-color-scheme` (`light` or `dark`) through Chromium's DevTools protocol.
    pub fn emulate_color_scheme(&self, scheme: &str) -> Result<()> {
        self.call(
            "POST",
            "/goog/cdp/execute",
            Some(json!({
                "cmd": "Emulation.setEmulatedMedia",
                "params": { "features": [{ "name": "prefers-color-scheme", "value": scheme }] }
            })),
        )
        .map(drop)
    }

    /// Empties the browser's HTTP cache (Chromium's DevTools protocol), so that the next load
    /// fetches every file from the server as on a first visit.
    pub fn clear_http_cache(&self) -> Result<()> {
        self.call(
            "POST",
            "/goog/cdp/execute",
            Some(json!({ "cmd": "Network.clearBrowserCache", "params": {} })),
        )
        .map(drop)
    }

    /// Sets the window's outer size in CSS pixels.
    pub fn set_window_size(&self, width: u32, height: u32) -> Result<()> {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        )
        .map(drop)
    }

    /// A PNG screenshot of the viewport.
    pub fn screenshot(&self) -> Result<Vec<u8>> {
        let v = self.call("GET", "/screenshot", None)?;
        base64_decode(v.as_str().context("screenshot: not a string")?)
    }

    /// Reloads the current document (the browser's reload: it revalidates what it cached).
    pub fn refresh(&self) -> Result<()> {
        self.call("POST", "/refresh", Some(json!({}))).map(drop)
    }

    /// The handle of the current window (tab).
    pub fn window(&self) -> Result<String> {
        let v = self.call("GET", "/window", None)?;
        Ok(v.as_str().context("window: not a handle")?.to_owned())
    }

    /// Opens a new tab (without switching to it) and returns its handle.
    pub fn new_tab(&self) -> Result<String> {
        let v = self.call("POST", "/window/new", Some(json!({ "type": "tab" })))?;
        Ok(v.get("handle")
            .and_then(Value::as_str)
            .context("new window: no handle")?
            .to_owned())
    }

    /// Makes the window `handle` the one later commands drive (its top-level document).
    pub fn switch_to_window(&self, handle: &str) -> Result<()> {
        self.call("POST", "/window", Some(json!({ "handle": handle })))
            .map(drop)
    }

    /// Makes the `index`-th iframe of the current document the one later commands drive;
    /// `None` goes back to the top-level document.
    pub fn switch_to_frame(&self, index: Option<u32>) -> Result<()> {
        self.call("POST", "/frame", Some(json!({ "id": index })))
            .map(drop)
    }

    /// Ends the session (closes the browser).
    pub fn quit(&self) -> Result<()> {
        self.call("DELETE", "", None).map(drop)
    }
}

/// Decodes standard base64 (with or without padding; whitespace ignored).
pub fn base64_decode(text: &str) -> Result<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
    {
        let v = sextet(c).with_context(|| format!("bad base64 byte {c:#x}"))?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8h").unwrap(), b"hello!");
        assert_eq!(base64_decode("iVBORw0KGgo=").unwrap(), b"\x89PNG\r\n\x1a\n");
        assert!(base64_decode("a$").is_err());
    }
}
