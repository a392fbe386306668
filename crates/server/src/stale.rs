//! `--stale-reads K` (issue #15): the server keeps the store's last K + 1 states (a clone per
//! write) and answers reads from the old one the core picks (`rvlab_instruments::stale`: which state,
//! and whether this client still gets a stale answer for this target). Writes are never
//! touched: they are served by the current store, so a write carrying a stale resourceVersion
//! gets the store's real 409.
//!
//! - GET of one object or of a collection (LIST), without `resourceVersionMatch` or `continue`:
//!   answered by the old state (its objects, its resourceVersions, its list
//!   `metadata.resourceVersion`), when the core says so; the trace step gets `stale_read`.
//!   `resourceVersion=N` (N > 0, "not older than N") is honoured: never a state before N.
//! - Watch (`crate::watch`): the stream lags K writes behind (the initial state is the old
//!   state's, then the changes up to its revision); once no write has come for
//!   `Limits::stale_catch_up` it delivers the rest and is current.

use crate::client::UrlTarget;
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Store};
use rvlab_instruments::stale::{state_for, Read, StaleReadSettings, StaleReads};
use serde_json::Value;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The kept states and the core's decisions.
pub(crate) struct KeptStates {
    reads: StaleReads,
    /// The last K + 1 states, oldest first, the current one last.
    states: VecDeque<Store>,
}

impl KeptStates {
    /// Keeps `store` (the state after the setup) as the first state.
    pub fn new(settings: StaleReadSettings, store: &Store) -> Result<KeptStates, String> {
        let reads = StaleReads::new(settings)?;
        Ok(KeptStates {
            reads,
            states: VecDeque::from([store.clone()]),
        })
    }

    fn writes_behind(&self) -> u32 {
        self.reads.settings().writes_behind
    }

    /// After a write: keeps the new state, lets the oldest go beyond K + 1.
    pub fn wrote(&mut self, store: &Store) {
        if self.states.back().map(Store::revision) == Some(store.revision()) {
            return;
        }
        self.states.push_back(store.clone());
        let keep = usize::try_from(self.writes_behind()).unwrap_or(usize::MAX) + 1;
        while self.states.len() > keep {
            self.states.pop_front();
        }
    }

    fn revisions(&self) -> Vec<u64> {
        self.states.iter().map(Store::revision).collect()
    }

    /// The state `not_older_than` allows that lags most (K writes behind, or the oldest kept),
    /// and how many writes it is behind the current one.
    fn lagging(&self, not_older_than: u64) -> (&Store, u64) {
        let i = state_for(&self.revisions(), self.writes_behind(), not_older_than);
        let behind = self.states.len().saturating_sub(i + 1) as u64;
        (&self.states[i], behind)
    }
}

/// The state a watch is served from and its revision: `None` when stale reads are off.
pub(crate) fn watch_state(st: &crate::State) -> Option<(&Store, u64)> {
    let kept = st.stale.as_ref()?;
    let (store, _) = kept.lagging(0);
    Some((store, store.revision()))
}

/// Keeps the state after a write (`handler::commit`, the path of every write).
pub(crate) fn wrote(st: &mut crate::State) {
    if let Some(kept) = st.stale.as_mut() {
        kept.wrote(&st.store);
    }
}

/// For a GET that `outcome` answered from the current store: replaces it with the old state's
/// answer when the core says so, and returns the trace step's `stale_read` member.
#[allow(clippy::too_many_arguments)]
pub(crate) fn instead(
    st: &mut crate::State,
    target: &UrlTarget,
    path: &str,
    pairs: &[(String, String)],
    program: &str,
    request: &Request,
    actor: &Actor,
    now: u64,
    outcome: &mut Outcome,
) -> Option<Value> {
    if request.method != Method::Get || matches!(target, UrlTarget::Other) {
        return None;
    }
    let kept = st.stale.as_mut()?;
    let value = |k: &str| crate::client::query_value(pairs, k);
    if value("resourceVersionMatch").is_some() || value("continue").is_some() {
        return None;
    }
    let not_older_than = match value("resourceVersion") {
        None | Some("") => 0,
        // An unparseable one is the store's error, answered fresh.
        Some(rv) => rv.parse::<u64>().ok()?,
    };
    let current_revision = st.store.revision();
    let (old, writes_behind) = kept.lagging(not_older_than);
    if writes_behind == 0 {
        return None;
    }
    let mut old = old.clone();
    let mut rng = st.rng.clone();
    let stale = catch_unwind(AssertUnwindSafe(|| {
        let mut env = Env {
            now_ms: now,
            rng: &mut rng,
        };
        old.handle(request, actor, &mut env)
    }))
    .ok()?;
    let read = Read {
        client: program,
        target: path.strip_suffix("/status").unwrap_or(path),
        fresh: &outcome.response,
        stale: &stale.response,
        served_revision: old.revision(),
        current_revision,
        writes_behind,
    };
    let decided = kept.reads.decide(&read)?;
    *outcome = stale;
    Some(decided.to_json())
}
