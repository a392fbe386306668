//! `--interfere scenario FILE` (issue #15): a scenario's scripted clients are the other writers
//! of a server. Before each real request the server serves, the scripted world runs on: its
//! steps in schedule order (the scenario's `schedule` line first, letters of finished clients
//! skipped, then the default scheduler, seeded by `--seed`), up to and including the next step
//! that sends a request. So every real request faces exactly one scripted request, and the local
//! statements between two requests (assignments, `sleep`, backoff sleeps) run on the way,
//! sending nothing, as `rvlab run` would run them.
//!
//! The scripted request is the engine's own ([`World::take_step_via`]): the server's store is
//! swapped into the world for the step and back after it, and the request goes to it through
//! the server's [`Transport`] (its watch cache), so it advances the resourceVersion, changes
//! content, shows in managedFields (the client's name is its field manager), wakes watchers and
//! is traced, with no second copy of the apiserver's rules. Pure: no I/O, no clock, no threads;
//! the server passes the time in its transport.
//!
//! Bounds: `--max-injections N` is the number of scripted requests in all (every client's),
//! none by default but the scenario's own end and the engine's [`MAX_STEPS`] steps.

use crate::interfere::{InterferenceSettings, Policy, ScenarioFile};
use rvlab_core::engine::{StepRecord, Transport, World, MAX_STEPS};
use rvlab_core::json::object;
use rvlab_core::lang::ast::Scenario;
use rvlab_core::rng::Rng;
use rvlab_core::schedule::{letter, parse_token};
use rvlab_core::store::{Actor, Env, Outcome, Request, Store};
use rvlab_core::watch::WatchCache;
use serde_json::Value;

/// The server's path to its store for a scripted request: the watch cache (so watchers see
/// it), the server's clock (timestamps are real, as for every request) and the server's
/// generator (uids come from one stream, whoever writes).
pub struct Via<'a> {
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

/// The scripted world and where it is in its schedule.
#[derive(Debug, Clone)]
pub struct Scripted {
    name: String,
    scenario: Scenario,
    world: World,
    /// The `schedule` line's steps (client indexes), and how many were taken or skipped.
    picks: Vec<u32>,
    next_pick: usize,
    /// At most this many scripted requests.
    max: u32,
    /// Scripted requests so far.
    requests: u32,
    /// World steps so far (local ones too).
    steps: u32,
    seed: u64,
}

/// One scripted request, with the local steps taken on the way to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Injected {
    /// The scripted client's name (its field manager; the trace step's `client`).
    pub client: String,
    /// The step that sent the request (its `request`, `response`, `revision`, `lost_updates`,
    /// `line`, `statement` and `narration`).
    pub record: StepRecord,
    /// Its number among the scripted world's steps (1, 2, …: `rvlab run`'s numbering).
    pub step: u32,
    /// The local steps taken since the last scripted request: `(client, step, record)`.
    pub local: Vec<(String, u32, StepRecord)>,
    /// 1 for the first scripted request, then 2, …
    pub number: u32,
    /// The real client whose request it precedes.
    pub before: String,
    /// Why, in a sentence.
    pub why: String,
    /// The scenario's name as given.
    pub scenario: String,
}

impl Injected {
    /// The trace step's `interference` member (docs/json-trace.md).
    pub fn to_json(&self) -> Value {
        let local: Vec<Value> = self
            .local
            .iter()
            .map(|(client, step, r)| {
                object(vec![
                    ("client", client.as_str().into()),
                    ("step", (*step).into()),
                    ("line", r.line.into()),
                    ("statement", r.statement.as_str().into()),
                    ("narration", r.narration.as_str().into()),
                ])
            })
            .collect();
        object(vec![
            ("policy", Policy::Scenario.name().into()),
            ("scenario", self.scenario.as_str().into()),
            ("client", self.before.as_str().into()),
            ("scripted_client", self.client.as_str().into()),
            ("step", self.step.into()),
            ("line", self.record.line.into()),
            ("statement", self.record.statement.as_str().into()),
            (
                "object",
                self.record
                    .target
                    .as_ref()
                    .map_or(Value::Null, |t| t.to_string().into()),
            ),
            ("number", self.number.into()),
            ("local", Value::Array(local)),
            ("why", self.why.as_str().into()),
        ])
    }
}

/// Parses a scenario file, its diagnostics rendered under its name.
fn parse(file: &ScenarioFile) -> Result<Scenario, String> {
    let parsed = rvlab_core::lang::parse(&file.text);
    if parsed.has_errors() {
        let lines: Vec<String> = parsed
            .diagnostics
            .iter()
            .map(|d| d.render(&file.name, &file.text))
            .collect();
        return Err(format!(
            "{}: the scenario has errors:\n{}",
            file.name,
            lines.join("\n")
        ));
    }
    parsed
        .scenario
        .ok_or_else(|| format!("{}: the scenario has errors", file.name))
}

/// Whether a scenario text sets up objects (`object` lines). `Err`: it does not parse.
pub fn has_setup(text: &str) -> Result<bool, String> {
    let file = ScenarioFile {
        name: "<setup>".into(),
        text: text.into(),
    };
    Ok(!parse(&file)?.objects.is_empty())
}

/// The order sentence of the plan: the schedule line's, then the default scheduler's.
fn order(scenario: &Scenario, seed: u64) -> String {
    let default = format!("the default scheduler's (earliest ready first, ties by seed {seed})");
    match &scenario.schedule {
        Some((token, _)) => format!("the schedule line's `{token}`, then {default}"),
        None => default,
    }
}

/// The plan line `rvlab serve` prints at start for [`Policy::Scenario`]:
/// `interference: scenario loop.rvl, scripted clients alice (a), bob (b), in the default
/// scheduler's order (…); one scripted request before each real request, until they finish`.
pub fn plan(settings: &InterferenceSettings) -> String {
    let Some(file) = &settings.scenario else {
        return "interference: scenario (no scenario given)".into();
    };
    let scenario = match parse(file) {
        Ok(s) => s,
        Err(e) => return format!("interference: scenario {} (invalid: {e})", file.name),
    };
    let clients: Vec<String> = scenario
        .clients
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} ({})", c.name, letter(i as u32)))
        .collect();
    let who = if clients.is_empty() {
        "no scripted clients (nothing is injected)".to_string()
    } else {
        format!(
            "scripted client{} {}",
            if clients.len() == 1 { "" } else { "s" },
            clients.join(", ")
        )
    };
    let bound = if settings.max_injections == u32::MAX {
        "until they finish".to_string()
    } else {
        format!(
            "at most {} scripted request{} in all",
            settings.max_injections,
            if settings.max_injections == 1 {
                ""
            } else {
                "s"
            }
        )
    };
    format!(
        "interference: scenario {}, {who}, in {} order; one scripted request (and the local steps before it) before each real request, {bound}",
        file.name,
        order(&scenario, settings.seed),
    )
}

impl Scripted {
    /// The scripted world of `settings` (its scenario's setup done, stamped at `now_ms`);
    /// `Err`: no scenario, a scenario with errors, a setup that fails, a bad schedule line.
    pub fn new(settings: &InterferenceSettings, now_ms: u64) -> Result<Scripted, String> {
        let file = settings
            .scenario
            .as_ref()
            .ok_or("--interfere scenario needs a scenario FILE")?;
        let scenario = parse(file)?;
        let world = World::new_at(&scenario, settings.seed, now_ms)
            .map_err(|e| format!("{}: {e}", file.name))?;
        let picks = match &scenario.schedule {
            Some((token, _)) => parse_token(token, scenario.clients.len() as u32)
                .map_err(|e| format!("{}: schedule: {e}", file.name))?,
            None => Vec::new(),
        };
        Ok(Scripted {
            name: file.name.clone(),
            scenario,
            world,
            picks,
            next_pick: 0,
            max: settings.max_injections,
            requests: 0,
            steps: 0,
            seed: settings.seed,
        })
    }

    /// Takes the store the setup built (the server's setup); the world keeps an empty one
    /// until [`Scripted::before`] lends it the server's.
    pub fn take_store(&mut self) -> Store {
        std::mem::take(&mut self.world.store)
    }

    /// The scripted world (between steps its store is empty: the server holds it).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Scripted requests so far.
    pub fn requests(&self) -> u32 {
        self.requests
    }

    /// The seed of the scripted world.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Before a real request of `program` (`what`: `PUT /api/v1/…`): runs the scripted world
    /// up to and including its next request, sent to `store` (the server's) through `via`.
    /// `None`: every scripted client has finished, the bound is reached, or the world reached
    /// [`MAX_STEPS`]; then nothing is sent (local steps taken on the way are kept in the world).
    pub fn before(
        &mut self,
        store: &mut Store,
        via: &mut dyn Transport,
        program: &str,
        what: &str,
    ) -> Option<Injected> {
        if self.requests >= self.max || self.world.is_finished() {
            return None;
        }
        // The server's store is the world's for the step; the guard gives it back even if a
        // step panics (the server catches the panic).
        let lent = Lent::new(store, &mut self.world);
        let mut local = Vec::new();
        let sent = loop {
            if self.steps >= MAX_STEPS {
                break None;
            }
            let pick = next_pick(&self.picks, &mut self.next_pick, lent.world);
            match lent.world.take_step_via(via, &self.scenario, pick) {
                Ok(Some(rec)) => {
                    self.steps += 1;
                    if rec.request.is_some() {
                        break Some((self.steps, rec));
                    }
                    let name = client_name(&self.scenario, rec.client);
                    local.push((name, self.steps, rec));
                }
                Ok(None) | Err(_) => break None,
            }
        };
        drop(lent);
        let (step, record) = sent?;
        self.requests += 1;
        let client = client_name(&self.scenario, record.client);
        let mut why = format!(
            "scripted client {client}'s step {step} (line {}, `{}`) before {program}'s request ({what})",
            record.line, record.statement
        );
        if !local.is_empty() {
            let done: Vec<String> = local
                .iter()
                .map(|(c, n, r)| format!("{c}'s step {n} (line {}, `{}`)", r.line, r.statement))
                .collect();
            why.push_str(&format!(
                "; on the way, sending nothing: {}",
                done.join(", ")
            ));
        }
        Some(Injected {
            client,
            record,
            step,
            local,
            number: self.requests,
            before: program.to_string(),
            why,
            scenario: self.name.clone(),
        })
    }
}

/// A client's name (its letter if the scenario has no such client).
fn client_name(scenario: &Scenario, client: u32) -> String {
    scenario
        .clients
        .get(client as usize)
        .map_or_else(|| letter(client).to_string(), |c| c.name.clone())
}

/// The next client the `schedule` line names from `*at` on that has not finished, moving `*at`
/// past it (`None`: the line is used up, the default scheduler picks).
fn next_pick(picks: &[u32], at: &mut usize, world: &World) -> Option<u32> {
    while let Some(&c) = picks.get(*at) {
        *at += 1;
        if world
            .clients
            .get(c as usize)
            .is_some_and(|s| s.outcome.is_none())
        {
            return Some(c);
        }
    }
    None
}

/// The server's store lent to the world: swapped in on creation, back on drop.
struct Lent<'a> {
    store: &'a mut Store,
    world: &'a mut World,
}

impl<'a> Lent<'a> {
    fn new(store: &'a mut Store, world: &'a mut World) -> Lent<'a> {
        std::mem::swap(store, &mut world.store);
        Lent { store, world }
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        std::mem::swap(self.store, &mut self.world.store);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interfere::ScenarioFile;
    use rvlab_core::engine::Direct;
    use rvlab_core::run::Run;
    use rvlab_core::store::{Actor, Env, Method, Request};

    const TWO: &str = r#"object configmap/x at resourceVersion 100:
    data.k = "initial"

client alice:
    obj = get configmap/x
    obj.data.k = "from-alice"
    sleep 1s
    update obj

client bob:
    patch configmap/x merge {"data": {"b": "from-bob"}}
"#;

    fn settings(text: &str, seed: u64, max: u32) -> InterferenceSettings {
        InterferenceSettings {
            seed,
            max_injections: max,
            ..InterferenceSettings::scenario(ScenarioFile {
                name: "s.rvl".into(),
                text: text.into(),
            })
        }
    }

    /// Every step the scripted world takes across `before` calls, local ones included.
    fn drain(text: &str, seed: u64) -> (Vec<StepRecord>, Store) {
        let mut s = Scripted::new(&settings(text, seed, u32::MAX), 0).unwrap();
        let mut store = s.take_store();
        let mut all = Vec::new();
        while let Some(inj) = s.before(&mut store, &mut Direct, "python", "GET /x") {
            all.extend(inj.local.into_iter().map(|(_, _, r)| r));
            all.push(inj.record);
        }
        (all, store)
    }

    #[test]
    fn the_scripted_world_runs_as_rvlab_run_runs_it_one_request_at_a_time() {
        for (text, seed) in [
            (TWO, 0),
            (TWO, 7),
            (rvlab_core::lessons::LESSONS[0].source, 0),
            (rvlab_core::lessons::LESSONS[1].source, 3),
        ] {
            let scenario = rvlab_core::lang::parse(text).scenario.unwrap();
            let run = Run::new(&scenario, seed, None).unwrap();
            let (steps, store) = drain(text, seed);
            assert_eq!(steps, run.steps, "seed {seed}");
            assert_eq!(store, run.last().store);
        }
    }

    #[test]
    fn each_real_request_faces_one_scripted_request_with_the_local_steps_on_the_way() {
        let text = format!("{TWO}schedule \"aaaaa\"\n");
        let mut s = Scripted::new(&settings(&text, 0, u32::MAX), 0).unwrap();
        let mut store = s.take_store();
        assert_eq!(store.revision(), 100);
        // alice's get.
        let a = s
            .before(
                &mut store,
                &mut Direct,
                "python",
                "GET /api/v1/namespaces/default/configmaps/x",
            )
            .unwrap();
        assert_eq!((a.client.as_str(), a.step, a.number), ("alice", 1, 1));
        assert_eq!(a.record.request.as_ref().unwrap().method, Method::Get);
        assert!(a.local.is_empty());
        assert_eq!(
            a.why,
            "scripted client alice's step 1 (line 5, `obj = get configmap/x`) before python's request (GET /api/v1/namespaces/default/configmaps/x)"
        );
        // A real write lands in between: alice's update will conflict.
        let mut env_rng = rvlab_core::rng::Rng::new(1);
        let out = store.handle(
            &Request {
                method: Method::Patch,
                path: "/api/v1/namespaces/default/configmaps/x?fieldManager=python".into(),
                content_type: Some("application/merge-patch+json".into()),
                body: Some(serde_json::json!({"data": {"k": "from-python"}})),
            },
            &Actor {
                name: "python".into(),
                base_revision: 100,
            },
            &mut Env {
                now_ms: 0,
                rng: &mut env_rng,
            },
        );
        assert_eq!(out.revision, Some(101));
        // Her edit and her sleep send nothing: they run on the way to her update.
        let b = s
            .before(&mut store, &mut Direct, "python", "PUT /x")
            .unwrap();
        assert_eq!((b.step, b.number), (4, 2));
        let local: Vec<(&str, u32, &str)> = b
            .local
            .iter()
            .map(|(c, n, r)| (c.as_str(), *n, r.statement.as_str()))
            .collect();
        assert_eq!(
            local,
            [
                ("alice", 2, "obj.data.k = \"from-alice\""),
                ("alice", 3, "sleep 1s")
            ]
        );
        assert_eq!(b.record.response.as_ref().unwrap().code, 409);
        assert!(b.why.ends_with("; on the way, sending nothing: alice's step 2 (line 6, `obj.data.k = \"from-alice\"`), alice's step 3 (line 7, `sleep 1s`)"), "{}", b.why);
        assert_eq!(b.to_json()["local"][1]["statement"], "sleep 1s");
        // alice has finished (her 409 stopped her): the schedule line's last `a` is skipped and
        // the default scheduler picks bob.
        let c = s
            .before(&mut store, &mut Direct, "python", "GET /x")
            .unwrap();
        assert_eq!((c.client.as_str(), c.number), ("bob", 3));
        assert_eq!(c.record.revision, Some(102));
        assert_eq!(store.revision(), 102);
        let j = c.to_json();
        assert_eq!(j["policy"], "scenario");
        assert_eq!(j["client"], "python");
        assert_eq!(j["scripted_client"], "bob");
        assert_eq!(j["object"], "configmap/x");
        assert_eq!(j["line"], 11);
        // Everyone has finished: nothing more, and the store is the caller's.
        assert_eq!(s.before(&mut store, &mut Direct, "python", "GET /x"), None);
        assert_eq!(store.revision(), 102);
        assert_eq!(s.requests(), 3);
    }

    #[test]
    fn max_injections_bounds_the_scripted_requests_in_all() {
        let mut s = Scripted::new(&settings(TWO, 0, 1), 0).unwrap();
        let mut store = s.take_store();
        assert!(s.before(&mut store, &mut Direct, "p", "GET /x").is_some());
        assert_eq!(s.before(&mut store, &mut Direct, "p", "GET /x"), None);
        assert_eq!(s.requests(), 1);
    }

    #[test]
    fn the_plan_names_the_clients_the_order_and_the_bound() {
        assert_eq!(
            plan(&settings(TWO, 0, u32::MAX)),
            "interference: scenario s.rvl, scripted clients alice (a), bob (b), in the default scheduler's (earliest ready first, ties by seed 0) order; one scripted request (and the local steps before it) before each real request, until they finish"
        );
        let with_line = format!("{TWO}schedule \"ab\"\n");
        assert_eq!(
            plan(&settings(&with_line, 5, 2)),
            "interference: scenario s.rvl, scripted clients alice (a), bob (b), in the schedule line's `ab`, then the default scheduler's (earliest ready first, ties by seed 5) order; one scripted request (and the local steps before it) before each real request, at most 2 scripted requests in all"
        );
        assert_eq!(
            crate::interference_plan(&settings(TWO, 0, 3)),
            plan(&settings(TWO, 0, 3))
        );
        let e = Scripted::new(&settings("client a:\n    nonsense here\n", 0, 1), 0).unwrap_err();
        assert!(e.starts_with("s.rvl: the scenario has errors:"), "{e}");
        assert!(has_setup(TWO).unwrap());
        assert!(!has_setup("client a:\n    sleep 1s\n").unwrap());
    }
}
