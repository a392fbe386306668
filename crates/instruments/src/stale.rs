//! Stale reads (issue #15): `rvlab serve --stale-reads K` and `rvlab test --stale-reads K` answer
//! reads (GET of one object, LIST, watch) from the store's state K writes ago, a state that
//! really existed, as a lagging apiserver watch cache (or a client's informer cache) does. Code
//! that trusts a read without a version check is caught: its update with the stale
//! resourceVersion gets the real 409 (writes are always served by the current store, as etcd
//! is consistent for writes), and its unconditional update overwrites newer data, a lost update
//! found because the write's base revision is the stale one.
//!
//! Pure and deterministic: the server keeps the last K + 1 states (as the current store and
//! the undo of the last K writes) and asks this module which
//! one to serve ([`state_for`]) and whether to serve it ([`StaleReads::decide`]). The rule
//! that makes correct code converge: at most `max_stale` (`--max-injections`, default 3)
//! stale answers per client program and target (an object's path, or a collection's); then
//! that client reads that target fresh. An answer that is the same as the fresh one (the
//! target did not change in the last K writes) is served fresh and not counted.
//!
//! [`KeptStates`] holds those states (built when read) and does the swap: a GET of one object
//! or of a collection (without `resourceVersionMatch` or `continue`; `resourceVersion=N`, N > 0,
//! "not older than N", is honoured) is answered by the old state when [`StaleReads::decide`]
//! says so, and a watch starts from the lagging state ([`KeptStates::watch_state`]).

use crate::client::{query_value, UrlTarget};
use crate::limits::MAX_STALE_READS;
use rvlab_core::json::{object, same_value};
use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Response, Store, Undo};
use rvlab_core::vecmap::VecMap;
use serde_json::Value;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The settings of stale reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleReadSettings {
    /// K: reads are served from the state this many writes before the current one
    /// (1 ..= [`MAX_STALE_READS`]).
    pub writes_behind: u32,
    /// At most this many stale answers per client and target (`--max-injections N`).
    pub max_stale: u32,
}

/// Reads `--stale-reads K`: a whole number from 0 (off) to [`MAX_STALE_READS`].
pub fn parse_writes_behind(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(k) if k <= MAX_STALE_READS => Ok(k),
        _ => Err(format!(
            "--stale-reads takes a whole number of writes from 0 (off) to {MAX_STALE_READS}, not `{text}` (the server keeps that many old states of the store)"
        )),
    }
}

impl StaleReadSettings {
    /// K writes behind, at most [`crate::interfere::DEFAULT_MAX_INJECTIONS`] stale answers per
    /// client and target.
    pub fn new(writes_behind: u32) -> StaleReadSettings {
        StaleReadSettings {
            writes_behind,
            max_stale: crate::interfere::DEFAULT_MAX_INJECTIONS,
        }
    }

    /// `Err` unless 1 ≤ K ≤ [`MAX_STALE_READS`] and `max_stale` ≥ 1.
    pub fn check(&self) -> Result<(), String> {
        if self.writes_behind == 0 || self.writes_behind > MAX_STALE_READS {
            return Err(format!(
                "stale reads lag 1 to {MAX_STALE_READS} writes behind, not {}",
                self.writes_behind
            ));
        }
        if self.max_stale == 0 {
            return Err("stale reads need at least 1 stale answer per client and target".into());
        }
        Ok(())
    }

    /// The plan, one line, as `rvlab serve` prints it on standard error at start.
    pub fn plan(&self) -> String {
        format!(
            "stale reads: GET, LIST and watch served from the state {} ago, at most {} stale answer{} per client and object or collection (then fresh); writes see the current state",
            writes(u64::from(self.writes_behind)),
            self.max_stale,
            if self.max_stale == 1 { "" } else { "s" },
        )
    }
}

fn writes(n: u64) -> String {
    format!("{n} write{}", if n == 1 { "" } else { "s" })
}

/// Which of the kept states a read is served from: `revisions` are the kept states' revisions,
/// oldest first, the current state last (never empty for a read to be served; empty gives 0).
/// The state `writes_behind` writes before the current one, or the oldest kept while fewer
/// writes were made; a read that names a resourceVersion N > 0 ("not older than N", the
/// apiserver's rule for GET and LIST) gets the oldest of those at N or later (the current one
/// if none is).
pub fn state_for(revisions: &[u64], writes_behind: u32, not_older_than: u64) -> usize {
    let Some(last) = revisions.len().checked_sub(1) else {
        return 0;
    };
    let behind = usize::try_from(writes_behind).unwrap_or(usize::MAX);
    let start = last.saturating_sub(behind);
    (start..=last)
        .find(|&i| revisions[i] >= not_older_than)
        .unwrap_or(last)
}

/// One read, answered both ways, as the server asks about it.
#[derive(Debug, Clone, Copy)]
pub struct Read<'a> {
    /// The client program (docs/serve.md, "Clients are named"; one count per program).
    pub client: &'a str,
    /// What it reads: an object's path or a collection's (no query, no `/status`).
    pub target: &'a str,
    /// The answer of the current state.
    pub fresh: &'a Response,
    /// The answer of the old state ([`state_for`]).
    pub stale: &'a Response,
    /// The old state's revision.
    pub served_revision: u64,
    /// The current state's revision.
    pub current_revision: u64,
    /// How many writes the old state is behind the current one.
    pub writes_behind: u64,
}

/// A stale answer served: the trace step's `stale_read` member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleRead {
    pub served_revision: u64,
    pub current_revision: u64,
    pub writes_behind: u64,
    /// The how-manieth stale answer for this client and target (1 ..= max_stale).
    pub on_target: u32,
    /// Why, in a sentence.
    pub why: String,
}

impl StaleRead {
    /// `{"served_revision": R, "current_revision": C, "writes_behind": K, "why": "…"}`
    /// (docs/json-trace.md).
    pub fn to_json(&self) -> Value {
        object(vec![
            ("served_revision", self.served_revision.into()),
            ("current_revision", self.current_revision.into()),
            ("writes_behind", self.writes_behind.into()),
            ("why", self.why.as_str().into()),
        ])
    }
}

/// Whether two answers say the same: the same code and body, a list's own
/// `metadata.resourceVersion` aside (its items are compared).
pub fn same_answer(a: &Response, b: &Response) -> bool {
    if a.code != b.code {
        return false;
    }
    match (a.body.get("items"), b.body.get("items")) {
        (Some(x), Some(y)) => same_value(x, y),
        _ => same_value(&a.body, &b.body),
    }
}

/// The decisions, with their counts per client and target. Pure: they depend only on the
/// settings and the reads fed to [`StaleReads::decide`].
#[derive(Debug, Clone)]
pub struct StaleReads {
    settings: StaleReadSettings,
    /// Stale answers so far, per (client, target).
    counts: VecMap<(String, String), u32>,
    served: u64,
}

impl StaleReads {
    /// `Err` when the settings are out of range ([`StaleReadSettings::check`]).
    pub fn new(settings: StaleReadSettings) -> Result<StaleReads, String> {
        settings.check()?;
        Ok(StaleReads {
            settings,
            counts: VecMap::new(),
            served: 0,
        })
    }

    pub fn settings(&self) -> &StaleReadSettings {
        &self.settings
    }

    /// Stale answers served so far, in all.
    pub fn served(&self) -> u64 {
        self.served
    }

    /// Whether to serve `read.stale` instead of `read.fresh`: only when it is older and says
    /// something else, and the client has had fewer than `max_stale` stale answers for this
    /// target. `Some`: serve it (counted); `None`: serve the fresh answer.
    pub fn decide(&mut self, read: &Read<'_>) -> Option<StaleRead> {
        if read.served_revision >= read.current_revision || same_answer(read.fresh, read.stale) {
            return None;
        }
        let key = (read.client.to_string(), read.target.to_string());
        let done = self.counts.get(&key).copied().unwrap_or(0);
        if done >= self.settings.max_stale {
            return None;
        }
        let on_target = done + 1;
        self.counts.insert(key, on_target);
        self.served += 1;
        let what = match read.stale.code {
            200 => format!("revision {}", read.served_revision),
            code => format!("{code} (at revision {})", read.served_revision),
        };
        let why = format!(
            "{} read {} and was answered {what}, the state {} before the current revision {}: stale answer {on_target} of at most {} for {} on it (then fresh)",
            read.client,
            read.target,
            writes(read.writes_behind),
            read.current_revision,
            self.settings.max_stale,
            read.client,
        );
        Some(StaleRead {
            served_revision: read.served_revision,
            current_revision: read.current_revision,
            writes_behind: read.writes_behind,
            on_target,
            why,
        })
    }
}

/// The store's last K states before the current one, as the undo of each of the last K
/// writes, and the decisions of stale reads (`--stale-reads K`). A state is built (the current
/// store with the newest writes undone) only when a read is answered from it: keeping a copy
/// of the store per write cost O(objects) per write and K copies of the memory (issue #37).
#[derive(Debug, Clone)]
pub struct KeptStates {
    reads: StaleReads,
    /// The undo of each of the last K writes, oldest first.
    undos: VecDeque<Undo>,
}

/// A GET the current store answered, as [`KeptStates::instead`] weighs it.
#[derive(Debug, Clone, Copy)]
pub struct Fresh<'a> {
    pub target: &'a UrlTarget,
    /// The path without its query.
    pub path: &'a str,
    pub pairs: &'a [(String, String)],
    /// The client's program.
    pub program: &'a str,
    pub request: &'a Request,
    pub actor: &'a Actor,
    /// The current store (after the request).
    pub store: &'a Store,
    /// The generator a stale answer is computed with (a copy is used: nothing is drawn).
    pub rng: &'a Rng,
    pub now_ms: u64,
}

impl KeptStates {
    /// Starts with no write kept (the state after the setup is the current one).
    pub fn new(settings: StaleReadSettings, _store: &Store) -> Result<KeptStates, String> {
        let reads = StaleReads::new(settings)?;
        Ok(KeptStates {
            reads,
            undos: VecDeque::new(),
        })
    }

    fn writes_behind(&self) -> u32 {
        self.reads.settings().writes_behind
    }

    /// After a write: keeps its undo ([`Store::undo_point`], completed with its answer), lets
    /// the oldest go beyond K.
    pub fn wrote(&mut self, undo: Undo) {
        self.undos.push_back(undo);
        let keep = usize::try_from(self.writes_behind()).unwrap_or(usize::MAX);
        while self.undos.len() > keep {
            self.undos.pop_front();
        }
    }

    /// The kept states' revisions, oldest first, the current one last.
    fn revisions(&self, current: &Store) -> Vec<u64> {
        self.undos
            .iter()
            .map(Undo::revision)
            .chain(std::iter::once(current.revision()))
            .collect()
    }

    /// The state `not_older_than` allows that lags most (K writes behind, or the oldest kept):
    /// its index among the kept states and how many writes it is behind the current one.
    fn lagging(&self, current: &Store, not_older_than: u64) -> (usize, u64) {
        let revisions = self.revisions(current);
        let i = state_for(&revisions, self.writes_behind(), not_older_than);
        (i, revisions.len().saturating_sub(i + 1) as u64)
    }

    /// The kept state `i`: the current store with the writes after it undone, newest first.
    fn state(&self, current: &Store, i: usize) -> Store {
        let mut s = current.clone();
        for u in self.undos.iter().skip(i).rev() {
            s.undo(u);
        }
        s
    }

    /// The revision a watch is served up to (the lagging state's), without building it.
    pub fn watch_revision(&self, current: &Store) -> u64 {
        let (i, _) = self.lagging(current, 0);
        self.revisions(current)[i]
    }

    /// The state a watch starts from, and its revision.
    pub fn watch_state(&self, current: &Store) -> (Store, u64) {
        let (i, _) = self.lagging(current, 0);
        let s = self.state(current, i);
        let rev = s.revision();
        (s, rev)
    }

    /// For a GET that `outcome` answered from the current store: replaces it with the old
    /// state's answer when the rule says so, and returns the trace step's `stale_read` member.
    pub fn instead(&mut self, read: Fresh<'_>, outcome: &mut Outcome) -> Option<Value> {
        if read.request.method != Method::Get || matches!(read.target, UrlTarget::Other) {
            return None;
        }
        let value = |k: &str| query_value(read.pairs, k);
        if value("resourceVersionMatch").is_some() || value("continue").is_some() {
            return None;
        }
        let not_older_than = match value("resourceVersion") {
            None | Some("") => 0,
            // An unparseable one is the store's error, answered fresh.
            Some(rv) => rv.parse::<u64>().ok()?,
        };
        let current_revision = read.store.revision();
        let (i, writes_behind) = self.lagging(read.store, not_older_than);
        if writes_behind == 0 {
            return None;
        }
        // One object no kept write touched reads the same in the old state: the fresh answer
        // stands (as `decide` would rule), without building the state.
        if let UrlTarget::Object(key) = read.target {
            let target = crate::client::object_of(key);
            let touched = self
                .undos
                .iter()
                .skip(i)
                .any(|u| target.is_none() || u.object() == target.as_ref());
            if !touched {
                return None;
            }
        }
        let mut old = self.state(read.store, i);
        let mut rng = read.rng.clone();
        let stale = catch_unwind(AssertUnwindSafe(|| {
            let mut env = Env {
                now_ms: read.now_ms,
                rng: &mut rng,
            };
            old.handle(read.request, read.actor, &mut env)
        }))
        .ok()?;
        let path = read.path;
        let decided = self.reads.decide(&Read {
            client: read.program,
            target: path.strip_suffix("/status").unwrap_or(path),
            fresh: &outcome.response,
            stale: &stale.response,
            served_revision: old.revision(),
            current_revision,
            writes_behind,
        })?;
        *outcome = stale;
        Some(decided.to_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(body: Value) -> Response {
        Response { code: 200, body }
    }

    fn cm(rv: u64, value: &str) -> Response {
        ok(
            json!({"kind": "ConfigMap", "metadata": {"name": "c", "resourceVersion": rv.to_string()},
            "data": {"key": value}}),
        )
    }

    fn read<'a>(client: &'a str, fresh: &'a Response, stale: &'a Response) -> Read<'a> {
        Read {
            client,
            target: "/api/v1/namespaces/default/configmaps/c",
            fresh,
            stale,
            served_revision: 100,
            current_revision: 101,
            writes_behind: 1,
        }
    }

    /// Every write kind through the store, its undo kept: each kept state, built from the
    /// current store, is the store as it was then (objects and revision).
    #[test]
    fn a_kept_state_is_the_store_as_it_was_that_many_writes_ago() {
        let cm = "/api/v1/namespaces/default/configmaps";
        let requests: Vec<(Method, String, Option<&str>, Option<Value>)> = vec![
            (
                Method::Post,
                cm.into(),
                None,
                Some(json!({"metadata": {"name": "a", "finalizers": ["x/y"]}})),
            ),
            (
                Method::Post,
                cm.into(),
                None,
                Some(json!({"metadata": {"generateName": "g-"}})),
            ),
            (
                Method::Patch,
                format!("{cm}/a"),
                Some("application/merge-patch+json"),
                Some(json!({"data": {"k": "1"}})),
            ),
            (
                Method::Patch,
                format!("{cm}/a"),
                Some("application/merge-patch+json"),
                Some(json!({"data": {"k": "1"}})),
            ),
            (Method::Delete, format!("{cm}/a"), None, None),
            (
                Method::Patch,
                format!("{cm}/a"),
                Some("application/merge-patch+json"),
                Some(json!({"metadata": {"finalizers": null}})),
            ),
            (
                Method::Post,
                "/api/v1/namespaces".into(),
                None,
                Some(json!({"metadata": {"name": "team"}})),
            ),
            (
                Method::Patch,
                "/api/v1/namespaces/default".into(),
                Some("application/merge-patch+json"),
                Some(json!({"metadata": {"labels": {"l": "v"}}})),
            ),
            (
                Method::Patch,
                format!("{cm}/b?fieldManager=m"),
                Some("application/apply-patch+yaml"),
                Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}})),
            ),
            (Method::Delete, "/api/v1/namespaces/team".into(), None, None),
        ];
        let mut store = Store::new();
        let mut rng = Rng::new(5);
        let mut kept = KeptStates::new(StaleReadSettings::new(16), &store).unwrap();
        let mut then: Vec<Store> = vec![store.clone()];
        for (method, path, ct, body) in requests {
            let req = Request {
                method,
                path: path.clone(),
                content_type: ct.map(str::to_string).or(Some("application/json".into())),
                body,
            };
            let mut undo = store.undo_point(&req);
            let actor = Actor {
                name: "t".into(),
                base_revision: 0,
            };
            let out = store.handle(
                &req,
                &actor,
                &mut Env {
                    now_ms: 0,
                    rng: &mut rng,
                },
            );
            assert!(
                out.response.code < 300 || out.revision.is_none(),
                "{path}: {}",
                out.response.body
            );
            if out.revision.is_some() {
                undo.completed(&out);
                kept.wrote(undo);
                then.push(store.clone());
            }
        }
        assert_eq!(
            then.len(),
            kept.undos.len() + 1,
            "a no-op write keeps nothing"
        );
        let objects = |s: &Store| -> Vec<(String, Value)> {
            s.objects()
                .map(|(r, o)| (r.to_string(), o.clone()))
                .collect()
        };
        for (i, was) in then.iter().enumerate() {
            let built = kept.state(&store, i);
            assert_eq!(built.revision(), was.revision(), "state {i}");
            assert_eq!(objects(&built), objects(was), "state {i}");
        }
    }

    #[test]
    fn the_state_k_writes_ago_or_the_oldest_kept() {
        let revs = [100, 101, 102, 103];
        assert_eq!(state_for(&revs, 1, 0), 2);
        assert_eq!(state_for(&revs, 3, 0), 0);
        // Fewer writes than K so far: the oldest kept.
        assert_eq!(state_for(&revs, 16, 0), 0);
        assert_eq!(state_for(&[100], 1, 0), 0);
        assert_eq!(state_for(&[], 1, 0), 0);
        // "Not older than N": the oldest state within K writes that has N.
        assert_eq!(state_for(&revs, 3, 102), 2);
        assert_eq!(state_for(&revs, 1, 101), 2);
        assert_eq!(state_for(&revs, 3, 500), 3);
    }

    #[test]
    fn a_stale_answer_is_counted_and_explained() {
        let mut s = StaleReads::new(StaleReadSettings::new(1)).unwrap();
        let (fresh, stale) = (cm(101, "new"), cm(100, "old"));
        let got = s.decide(&read("python", &fresh, &stale)).expect("stale");
        assert_eq!(got.on_target, 1);
        assert_eq!(
            got.to_json(),
            json!({"served_revision": 100, "current_revision": 101, "writes_behind": 1,
                "why": "python read /api/v1/namespaces/default/configmaps/c and was answered revision 100, the state 1 write before the current revision 101: stale answer 1 of at most 3 for python on it (then fresh)"})
        );
        assert_eq!(s.served(), 1);
    }

    #[test]
    fn at_most_max_stale_per_client_and_target_then_fresh() {
        let mut s = StaleReads::new(StaleReadSettings {
            writes_behind: 2,
            max_stale: 2,
        })
        .unwrap();
        let (fresh, stale) = (cm(101, "new"), cm(100, "old"));
        let answers: Vec<bool> = (0..4)
            .map(|_| s.decide(&read("python", &fresh, &stale)).is_some())
            .collect();
        assert_eq!(answers, [true, true, false, false]);
        // Another client, and another target of the same client, have their own counts.
        assert_eq!(
            s.decide(&read("kubectl", &fresh, &stale))
                .map(|r| r.on_target),
            Some(1)
        );
        let other = Read {
            target: "/api/v1/namespaces/default/configmaps",
            ..read("python", &fresh, &stale)
        };
        assert!(s.decide(&other).is_some());
        assert_eq!(s.served(), 4);
    }

    #[test]
    fn an_answer_that_did_not_change_is_fresh_and_not_counted() {
        let mut s = StaleReads::new(StaleReadSettings {
            writes_behind: 1,
            max_stale: 1,
        })
        .unwrap();
        let same = cm(100, "old");
        assert_eq!(s.decide(&read("python", &same, &same)), None);
        // A list whose items are the same: only its own resourceVersion is older.
        let list = |rv: &str| {
            ok(
                json!({"kind": "ConfigMapList", "metadata": {"resourceVersion": rv}, "items": [{"a": 1}]}),
            )
        };
        let (l1, l2) = (list("101"), list("100"));
        assert_eq!(s.decide(&read("python", &l1, &l2)), None);
        // Not older: nothing to lie about.
        let (fresh, stale) = (cm(101, "new"), cm(100, "old"));
        let r = Read {
            served_revision: 101,
            ..read("python", &fresh, &stale)
        };
        assert_eq!(s.decide(&r), None);
        assert_eq!(s.served(), 0);
        // The one stale answer is still to give; a 404 of an object not yet created counts.
        let missing = Response {
            code: 404,
            body: json!({"kind": "Status", "code": 404}),
        };
        let got = s.decide(&read("python", &fresh, &missing)).unwrap();
        assert!(
            got.why.contains("answered 404 (at revision 100)"),
            "{}",
            got.why
        );
        assert_eq!(s.decide(&read("python", &fresh, &stale)), None);
    }

    #[test]
    fn settings_parse_check_and_plan() {
        assert_eq!(parse_writes_behind("0"), Ok(0));
        assert_eq!(parse_writes_behind("16"), Ok(16));
        for bad in ["17", "-1", "x", ""] {
            let e = parse_writes_behind(bad).unwrap_err();
            assert!(e.contains("from 0 (off) to 16"), "{e}");
        }
        assert!(StaleReads::new(StaleReadSettings::new(0)).is_err());
        assert!(StaleReads::new(StaleReadSettings::new(17)).is_err());
        assert!(StaleReads::new(StaleReadSettings {
            writes_behind: 1,
            max_stale: 0
        })
        .is_err());
        assert_eq!(
            StaleReadSettings::new(1).plan(),
            "stale reads: GET, LIST and watch served from the state 1 write ago, at most 3 stale answers per client and object or collection (then fresh); writes see the current state"
        );
    }
}
