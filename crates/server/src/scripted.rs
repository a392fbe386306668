//! `--interfere scenario FILE` (issue #15): before each real store request, the scenario's
//! scripted world takes its steps up to its next request (`rvlab_instruments::scripted`); that request
//! reaches the server's store through [`Via`], the server's watch cache with the server's
//! clock and generator, under the one lock, and is traced as a step of the scripted client with
//! its `interference` member. No apiserver rule is here: the request is the engine's, the
//! answer the store's.

use crate::{Shared, State};
use rvlab_core::engine::Transport;
use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Outcome, Request, Resource, Store};
use rvlab_core::watch::WatchCache;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The server's path to its store for a scripted request: the watch cache (so watchers see
/// it), the wall clock (timestamps are real, as for every request) and the server's generator
/// (uids come from one stream, whoever writes).
pub(crate) struct Via<'a> {
    pub cache: &'a mut WatchCache,
    pub rng: &'a mut Rng,
    pub now_ms: u64,
}

impl Transport for Via<'_> {
    fn handle(
        &mut self,
        store: &mut Store,
        request: &Request,
        actor: &Actor,
        _world: &mut Env<'_>,
    ) -> Outcome {
        let mut env = Env {
            now_ms: self.now_ms,
            rng: self.rng,
        };
        self.cache.handle(store, request, actor, &mut env)
    }
}

/// Runs the scripted world's next request before a real one (`client`'s `request`), under the
/// lock, and traces it. Nothing when there is no scripted world or it has nothing more to send.
/// A panic in the engine or the store (a bug) ends the scripted world; the store is kept.
pub(crate) fn before(st: &mut State, shared: &Shared, client: &str, request: &Request, now: u64) {
    let State {
        scripted,
        store,
        cache,
        rng,
        ..
    } = st;
    let Some(world) = scripted.as_mut() else {
        return;
    };
    let path = request.path.split('?').next().unwrap_or("");
    let what = format!("{} {path}", request.method.as_str());
    let mut via = Via {
        cache,
        rng,
        now_ms: now,
    };
    let injected = match catch_unwind(AssertUnwindSafe(|| {
        world.before(store, &mut via, client, &what)
    })) {
        Ok(i) => i,
        Err(_) => {
            *scripted = None;
            return;
        }
    };
    let Some(inj) = injected else { return };
    let rec = &inj.record;
    if rec.revision.is_some() {
        shared.revision_tx.send_replace(st.store.revision());
    }
    let ok = rec
        .response
        .as_ref()
        .is_some_and(|r| (200..300).contains(&r.code));
    if let (true, Some(t)) = (ok, &rec.target) {
        if let Resource::Custom { plural, group } = &t.resource {
            st.customs.insert((plural.clone(), group.clone()));
        }
    }
    let (Some(req), Some(resp)) = (&rec.request, &rec.response) else {
        return;
    };
    let index = st.trace.next_index();
    let clock = shared.started.elapsed().as_secs_f64() * 1000.0;
    let mut step = rvlab_core::trace::TraceStep {
        index,
        client: &inj.client,
        line: Some(rec.line),
        statement: &rec.statement,
        clock_ms: clock,
        request: Some(req),
        response: Some(resp),
        mark: rvlab_core::engine::mark(resp, !rec.lost_updates.is_empty()),
        revision: rec.revision,
        narration: Some(&rec.narration),
        lost_updates: &rec.lost_updates,
    }
    .to_json();
    if let Value::Object(m) = &mut step {
        m.insert("interference".into(), inj.to_json());
    }
    st.trace.push(step);
}
