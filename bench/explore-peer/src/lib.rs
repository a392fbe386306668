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
//!
//! # Symmetry
//! The clients are interchangeable, and both sides reduce by it: the explorer keeps one world
//! per class of worlds equal up to renaming the clients (its `symmetry` feature, on in the CLI
//! and in the bench), and [`check`] with [`Search::Symmetry`] has stateright keep one state per
//! class ([`State`]'s [`Representative`]: the clients sorted). Both counts are of classes, and
//! both reductions are complete here (equal up to renaming ⇔ one representative), but the
//! classes are of different states, so the counts differ: 29, 100, 367 and 1,425 here for 3 to
//! 6 clients against the explorer's 30, 113, 476 and 2,205. The explorer's world holds more
//! than this model, in two things: a client that retries after a conflict still holds the
//! object its failed attempt read (its variable `c`, until its next get overwrites it; here
//! [`Phase::Get`] holds nothing), and the store remembers which client wrote which revision
//! (the lost-delete bookkeeping). The second is lost up to renaming (the writers are exactly
//! the clients that succeeded, and those are interchangeable); the first is not, and it alone
//! accounts for the difference: this model with the stale read kept has exactly the
//! explorer's counts (`the_explorers_reduced_states_are_these_with_the_stale_read`). Without
//! reduction the explorer has 149, 2,148, 43,737 and 1,178,374 worlds against 111, 1,059,
//! 12,508 and 178,266 states here: there the writers count too.

use stateright::{Checker, Model, Property, Representative};
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
        // on finished states only there). Both "always" properties that hold keep the search
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

/// Clients are interchangeable: nothing in a state or a property tells them apart but their
/// index (a phase holds no client index, and every property counts or quantifies over all
/// clients), and the step of client `i` from a state whose clients are permuted is the permuted
/// step. So states equal up to a permutation of the clients have the same futures up to
/// renaming, and the representative of a state's class is the state with its clients sorted:
/// two states map to one representative exactly when one is a permutation of the other (a
/// complete canonical form, as the clients carry nothing but their phase).
impl Representative for State {
    fn representative(&self) -> Self {
        let mut clients = self.clients.clone();
        clients.sort_unstable();
        State {
            version: self.version,
            value: self.value,
            clients,
        }
    }
}

/// How stateright searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Depth first with symmetry reduction ([`State::representative`]): the same work as our
    /// explorer, which reduces by client symmetry too. stateright 0.30 reduces by symmetry in
    /// its depth-first checker only (its breadth-first checker ignores `symmetry()`).
    Symmetry,
    /// Depth first without reduction: every state.
    Full,
}

/// What one check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Distinct states (stateright's `unique_state_count`); with symmetry reduction, distinct
    /// representatives, i.e. classes of states equal up to renaming the clients.
    pub unique_states: usize,
    /// The properties with a discovery (a counterexample), sorted.
    pub discoveries: Vec<&'static str>,
}

/// Checks the `clients`-client model completely, on one thread, depth first, with or without
/// symmetry reduction.
pub fn check(clients: usize, search: Search) -> Checked {
    let builder = Counter { clients }.checker().threads(1);
    let builder = match search {
        Search::Symmetry => builder.symmetry(),
        Search::Full => builder,
    };
    let checker = builder.spawn_dfs().join();
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
    fn two_clients_have_fifteen_states_nine_up_to_symmetry_and_every_property_holds() {
        // By hand, with v = the number of accepted updates (nobody can fail with 2 clients:
        // a conflict needs another client's update after one's get, so at most one each):
        // v = 0: each client about to get, or holding the initial read: 2 × 2 = 4;
        // v = 1: one client succeeded (2 ways), the other about to get attempt 1, holding the
        //        stale read of attempt 1, about to get attempt 2, holding a fresh read of
        //        attempt 1 or of attempt 2: 2 × 5 = 10;
        // v = 2: both succeeded: 1. In all 15.
        assert_eq!(
            check(2, Search::Full),
            Checked {
                unique_states: 15,
                discoveries: vec![]
            }
        );
        // Up to swapping the two: v = 0: both about to get, both holding the read, or one of
        // each: 3; v = 1: which client succeeded no longer counts: 5; v = 2: 1. In all 9.
        assert_eq!(
            check(2, Search::Symmetry),
            Checked {
                unique_states: 9,
                discoveries: vec![]
            }
        );
    }

    #[test]
    fn properties_hold_up_to_five_clients_and_six_can_fail() {
        for search in [Search::Full, Search::Symmetry] {
            for n in 1..=5 {
                assert_eq!(
                    check(n, search).discoveries,
                    Vec::<&str>::new(),
                    "{n} clients, {search:?}"
                );
            }
            // Six clients: one client can conflict five times (the other five updates land
            // between its gets and its updates) and fail; the count and the lost-update
            // invariants still hold.
            assert_eq!(
                check(6, search).discoveries,
                vec!["all clients succeed"],
                "{search:?}"
            );
        }
    }

    /// The distinct values of `canonical` over every state reachable from `init` by `next`
    /// (a plain walk, no stateright).
    fn classes<S: Clone + Ord>(
        init: S,
        next: impl Fn(&S) -> Vec<S>,
        canonical: impl Fn(&S) -> S,
    ) -> usize {
        let mut seen = std::collections::BTreeSet::from([init.clone()]);
        let mut todo = vec![init];
        let mut found = std::collections::BTreeSet::new();
        while let Some(s) = todo.pop() {
            found.insert(canonical(&s));
            for t in next(&s) {
                if seen.insert(t.clone()) {
                    todo.push(t);
                }
            }
        }
        found.len()
    }

    #[test]
    fn symmetry_keeps_one_state_per_class_of_clients_renamed() {
        // stateright's count with symmetry is the number of classes: the states of a plain
        // walk of every state, sorted, counted, for 3 to 5 of the bench's counters (6 clients take
        // seconds in a debug build; `cargo xtask bench` prints the 6-client figures);
        // unreduced, it is every state.
        for (n, expected) in [(3, 29), (4, 100), (5, 367)] {
            let m = Counter { clients: n };
            let init = m.init_states().remove(0);
            let reduced = classes(init, |s| m.next_states(s), State::representative);
            assert_eq!(reduced, expected, "{n} clients");
            assert_eq!(check(n, Search::Symmetry).unique_states, expected, "{n}");
        }
        assert_eq!(check(5, Search::Full).unique_states, 12_508);
    }

    #[test]
    fn the_explorers_reduced_states_are_these_with_the_stale_read() {
        // The explorer's `states` with symmetry for the counters of 3 to 5 clients
        // (docs/explorer.md) are the classes of this model's states with one thing more: the
        // version a client read in its failed attempt, which it still holds (in its variable
        // `c`) until its next get. The module docs explain why nothing else counts.
        type Stale = (State, Vec<Option<u32>>);
        for (n, explorer) in [(3, 30), (4, 113), (5, 476)] {
            let m = Counter { clients: n };
            let init: Stale = (m.init_states().remove(0), vec![None; n]);
            let next = |(s, stale): &Stale| {
                let mut out = Vec::new();
                for c in 0..n {
                    if let Some(t) = m.next_state(s, c) {
                        let mut stale = stale.clone();
                        stale[c] = match (s.clients[c], t.clients[c]) {
                            (Phase::Update { version, .. }, Phase::Get { .. }) => Some(version),
                            (_, Phase::Get { .. }) => stale[c],
                            _ => None,
                        };
                        out.push((t, stale));
                    }
                }
                out
            };
            let canonical = |(s, stale): &Stale| {
                let mut clients: Vec<(Phase, Option<u32>)> = s
                    .clients
                    .iter()
                    .copied()
                    .zip(stale.iter().copied())
                    .collect();
                clients.sort_unstable();
                let (phases, stale) = clients.into_iter().unzip();
                (
                    State {
                        version: s.version,
                        value: s.value,
                        clients: phases,
                    },
                    stale,
                )
            };
            assert_eq!(classes(init, next, canonical), explorer, "{n} clients");
        }
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
