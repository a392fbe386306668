//! The stateright peer of the explorer (issue #16): a minimal model of the protocol of
//! `rvlab_core::explore::bench::counters()`, checked by the stateright model checker.
//!
//! N clients each run `retry on conflict: c = get configmap/counter; count += 1; update c` with
//! the scenario language's default policy (client-go's `retry.DefaultRetry`: 5 attempts). A get
//! reads the counter's value and resourceVersion; an update carries the version it read and
//! succeeds iff that is still the current one (the value becomes the read value + 1 and the
//! version advances), else it is answered 409 Conflict and the client starts its next attempt
//! with a new get, or, after its 5th attempt, stops with the conflict. The explorer ignores time
//! (docs/scenario-language.md, "Schedules"), so the backoff sleeps are not steps here either: one action is
//! one request, exactly one letter of the explorer's schedules.
//!
//! The model holds only what the protocol needs: the counter's version and value, and per
//! client its attempt and phase. No objects, no store, no history: this is the cheapest model
//! of the protocol, the baseline the explorer (full apiserver objects in every world) is
//! measured against.

use stateright::{Checker, Model, Property};
use std::collections::BTreeMap;

/// client-go's `retry.DefaultRetry` (`Steps: 5`): at most 5 attempts.
pub const ATTEMPTS: u8 = 5;

/// The counter's resourceVersion in the scenarios (`object configmap/counter at resourceVersion
/// 10`); only equality matters.
pub const FIRST_VERSION: u32 = 10;

/// Where one client is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// About to send the get of attempt `attempt` (1-based).
    Get { attempt: u8 },
    /// The get of `attempt` returned `value` at `version`; about to send the update.
    Update {
        attempt: u8,
        version: u32,
        value: u32,
    },
    /// The update was accepted.
    Succeeded,
    /// The last attempt's update was refused with 409 Conflict.
    Failed,
}

/// A state: the counter (version and value) and each client's phase.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    pub version: u32,
    pub value: u32,
    pub clients: Vec<Phase>,
}

impl State {
    /// True when no client can send another request.
    pub fn finished(&self) -> bool {
        self.clients
            .iter()
            .all(|p| matches!(p, Phase::Succeeded | Phase::Failed))
    }

    /// How many clients' updates were accepted.
    pub fn successes(&self) -> u32 {
        self.clients
            .iter()
            .filter(|p| matches!(p, Phase::Succeeded))
            .count() as u32
    }
}

/// The model: `clients` clients incrementing one counter.
#[derive(Clone, Debug)]
pub struct Counter {
    pub clients: usize,
}

impl Model for Counter {
    type State = State;
    /// The client that sends its next request.
    type Action = usize;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            version: FIRST_VERSION,
            value: 0,
            clients: vec![Phase::Get { attempt: 1 }; self.clients],
        }]
    }

    fn actions(&self, state: &State, actions: &mut Vec<usize>) {
        for (i, p) in state.clients.iter().enumerate() {
            if matches!(p, Phase::Get { .. } | Phase::Update { .. }) {
                actions.push(i);
            }
        }
    }

    fn next_state(&self, last: &State, client: usize) -> Option<State> {
        let mut next = last.clone();
        next.clients[client] = match last.clients[client] {
            Phase::Get { attempt } => Phase::Update {
                attempt,
                version: last.version,
                value: last.value,
            },
            Phase::Update {
                attempt,
                version,
                value,
            } => {
                if version == last.version {
                    next.value = value + 1;
                    next.version += 1;
                    Phase::Succeeded
                } else if attempt < ATTEMPTS {
                    Phase::Get {
                        attempt: attempt + 1,
                    }
                } else {
                    Phase::Failed
                }
            }
            Phase::Succeeded | Phase::Failed => return None,
        };
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        // The scenario's three expectations, as invariants (checked in every state; the two
        // on finished states only there). Both "always" properties that hold keep the BFS
        // going to the end: stateright stops early only once every property has a discovery.
        vec![
            // `expect no lost updates`: every accepted update is counted.
            Property::always("no lost updates", |_, s: &State| {
                s.value == s.successes() && s.version == FIRST_VERSION + s.successes()
            }),
            // `expect configmap/counter data.count == "N"`, where every client succeeded.
            Property::always("count == N when all succeed", |m: &Counter, s: &State| {
                !s.finished()
                    || s.successes() as usize != m.clients
                    || s.value as usize == m.clients
            }),
            // `expect all clients succeed` (violated from 6 clients on: a client can see 5
            // others' updates land between its gets and its updates).
            Property::always("all clients succeed", |_, s: &State| {
                !s.finished() || s.clients.iter().all(|p| *p == Phase::Succeeded)
            }),
        ]
    }
}

/// What one check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Distinct states (stateright's `unique_state_count`).
    pub unique_states: usize,
    /// The properties with a discovery (a counterexample), sorted.
    pub discoveries: Vec<&'static str>,
}

/// Checks the `clients`-client model completely: breadth first, one thread.
pub fn check(clients: usize) -> Checked {
    let checker = Counter { clients }.checker().threads(1).spawn_bfs().join();
    let mut discoveries: Vec<&'static str> = checker.discoveries().into_keys().collect();
    discoveries.sort_unstable();
    Checked {
        unique_states: checker.unique_state_count(),
        discoveries,
    }
}

/// The number of complete request orders (maximal paths from the initial state), with
/// multiplicity: the explorer's `schedules` for the same protocol. Counted here by memoised
/// depth-first search over the model's transitions, not by stateright (it counts states, not
/// paths); exact in a `u128` (panics on overflow rather than saturating).
pub fn schedules(clients: usize) -> u128 {
    let model = Counter { clients };
    let mut memo = BTreeMap::new();
    model
        .init_states()
        .iter()
        .map(|s| paths(&model, s, &mut memo))
        .sum()
}

fn paths(model: &Counter, state: &State, memo: &mut BTreeMap<State, u128>) -> u128 {
    if let Some(n) = memo.get(state) {
        return *n;
    }
    let next = model.next_states(state);
    let n = if next.is_empty() {
        1
    } else {
        next.iter().fold(0u128, |acc, s| {
            acc.checked_add(paths(model, s, memo))
                .expect("schedules overflow u128")
        })
    };
    memo.insert(state.clone(), n);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_clients_have_fifteen_states_and_every_property_holds() {
        // By hand, with v = the number of accepted updates (nobody can fail with 2 clients:
        // a conflict needs another client's update after one's get, so at most one each):
        // v = 0: each client about to get, or holding the initial read: 2 × 2 = 4;
        // v = 1: one client succeeded (2 ways), the other about to get attempt 1, holding the
        //        stale read of attempt 1, about to get attempt 2, holding a fresh read of
        //        attempt 1 or of attempt 2: 2 × 5 = 10;
        // v = 2: both succeeded: 1. In all 15.
        assert_eq!(
            check(2),
            Checked {
                unique_states: 15,
                discoveries: vec![]
            }
        );
    }

    #[test]
    fn properties_hold_up_to_five_clients_and_six_can_fail() {
        for n in 1..=5 {
            assert_eq!(check(n).discoveries, Vec::<&str>::new(), "{n} clients");
        }
        // Six clients: one client can conflict five times (the other five updates land
        // between its gets and its updates) and fail; the count and the lost-update
        // invariants still hold.
        assert_eq!(check(6).discoveries, vec!["all clients succeed"]);
    }

    #[test]
    fn schedules_match_the_explorer() {
        // Two clients by hand: the orders of two gets and two updates with each client's get
        // first are aabb, bbaa (no conflict) and abab, abba, baab, baba (both read before
        // either writes: the second update conflicts, and its client, alone by then, sends
        // its second get and update in one order): 6.
        assert_eq!(schedules(2), 6);
        // The explorer's figure for the 5-client counter (issue #16): 88,019,039,640.
        assert_eq!(schedules(5), 88_019_039_640);
    }

    #[test]
    fn a_stale_update_conflicts_and_the_client_reads_again() {
        let m = Counter { clients: 2 };
        let s0 = m.init_states().remove(0);
        let s1 = m.next_state(&s0, 0).unwrap(); // a reads (10, 0)
        let s2 = m.next_state(&s1, 1).unwrap(); // b reads (10, 0)
        let s3 = m.next_state(&s2, 1).unwrap(); // b updates: accepted
        assert_eq!((s3.version, s3.value), (11, 1));
        assert_eq!(s3.clients[1], Phase::Succeeded);
        let s4 = m.next_state(&s3, 0).unwrap(); // a's stale update: 409, attempt 2
        assert_eq!((s4.version, s4.value), (11, 1));
        assert_eq!(s4.clients[0], Phase::Get { attempt: 2 });
        assert_eq!(
            m.next_state(&s4, 1),
            None,
            "a finished client sends nothing"
        );
    }
}
