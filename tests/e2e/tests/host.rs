//! The page as a host delivers it: the suite's server sends a host's cache headers
//! (`rvlab-static`: hashed files immutable, everything else `no-cache` with a strong ETag), and
//! each journey starts with an empty HTTP cache, so its first load is a first visit.

use anyhow::{ensure, Result};
use rvlab_e2e::page::{journey, Page};

/// Loads the page afresh and returns what the server answered for that load.
fn load(page: &Page) -> Result<Vec<(String, String, u16)>> {
    page.server.clear_log();
    page.open()?;
    Ok(page.server.requests())
}

/// Every request answered 200, and the document, its script, its wasm and its style among them.
fn ensure_cold(what: &str, log: &[(String, String, u16)]) -> Result<()> {
    ensure!(
        log.iter().all(|(_, _, status)| *status == 200),
        "{what}: not every file came fresh from the server: {log:?}"
    );
    for ends in ["/", ".js", ".wasm", ".css"] {
        ensure!(
            log.iter().any(|(_, p, _)| p.ends_with(ends)),
            "{what}: nothing ending in {ends:?} was requested: {log:?}"
        );
    }
    Ok(())
}

#[test]
fn a_journey_starts_cold_and_a_reload_revalidates() {
    journey("host-reload", |page| {
        ensure_cold("the journey's first load", &load(page)?)?;
        // A second load: the document is revalidated (304, same ETag); hashed files are not
        // requested at all (immutable), unhashed ones are revalidated too; nothing is re-sent.
        let warm = load(page)?;
        ensure!(
            page.server.count("/") == 1 && warm.iter().all(|(_, _, s)| *s == 304),
            "a reload re-downloaded something: {warm:?}"
        );
        // What the harness does between journeys: an empty cache makes the next load cold.
        page.session.clear_http_cache()?;
        ensure_cold("the load after emptying the cache", &load(page)?)
    });
}

#[test]
fn the_first_load_of_a_journey_is_cold() {
    // Whichever journey of this binary runs second starts after the other warmed the cache.
    journey("host-cold", |page| {
        ensure_cold("the journey's first load", &load(page)?)?;
        ensure!(
            page.server.roots() == [page.dist.to_path_buf()],
            "the server does not serve dist/ alone: {:?}",
            page.server.roots()
        );
        Ok(())
    });
}
