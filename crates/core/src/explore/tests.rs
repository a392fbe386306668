//! The search on a toy model whose schedules can be counted by hand.

use super::*;

/// A register with a version, and clients that each read it and then write it back
/// conditionally (no retry): the seed story without the store.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Toy {
    version: u64,
    /// Per client: next step (0 = get, 1 = update, 2 = done) and the version it read.
    clients: Vec<(u8, u64, bool)>,
}

struct ToyModel {
    n: u32,
}

impl Model for ToyModel {
    type World = Toy;
    fn choices(&self, w: &Toy) -> Vec<u32> {
        (0..self.n)
            .filter(|&i| w.clients[i as usize].0 < 2)
            .collect()
    }
    fn advance(&self, w: &Toy, client: u32) -> (Toy, Vec<u8>) {
        let mut w = w.clone();
        let version = w.version;
        let c = &mut w.clients[client as usize];
        match c.0 {
            0 => c.1 = version,
            _ => {
                if c.1 == version {
                    w.version += 1;
                } else {
                    w.clients[client as usize].2 = true;
                }
            }
        }
        w.clients[client as usize].0 += 1;
        (w, vec![b'a' + client as u8])
    }
    fn evaluate(&self, w: &Toy) -> Evaluation {
        let failed: Vec<bool> = w.clients.iter().map(|c| c.2).collect();
        Evaluation {
            violated: vec![failed.iter().any(|f| *f)],
            outcome_key: format!("{failed:?}"),
            outcome_summary: format!("version {} failed {failed:?}", w.version),
        }
    }
}

fn explore(n: u32, bounds: Bounds) -> Report {
    let model = ToyModel { n };
    let root = Toy {
        version: 100,
        clients: vec![(0, 0, false); n as usize],
    };
    Explorer::new(&model, root, Vec::new(), 1, bounds).finish()
}

/// Two clients, get then update each: the 6 orders of `aabb`:
/// aabb, abab, abba, baab, baba, bbaa. "All succeed" fails in the 4 that interleave
/// the two reads before the first update (abab, abba, baab, baba).
#[test]
fn two_clients_get_update_six_orders_four_conflict() {
    let r = explore(2, Bounds::default());
    assert!(r.complete);
    assert_eq!(r.schedules, 6);
    assert_eq!(r.summary.violations, vec![4]);
    assert_eq!(r.summary.counterexamples[0].as_deref(), Some(&b"abab"[..]));
    // Outcomes: nobody fails (2 schedules), a fails (2), b fails (2).
    let counts: Vec<u64> = r
        .summary
        .outcomes
        .iter()
        .map(|o| o.1 .0.to_u64().expect("fits"))
        .collect();
    assert_eq!(counts, vec![2, 2, 2]);
}

/// Three clients with two requests each: 6!/(2!2!2!) = 90 orders.
#[test]
fn three_clients_count_is_the_multinomial() {
    let r = explore(3, Bounds::default());
    assert!(r.complete);
    assert_eq!(r.schedules, 90);
    // `states` is exactly the number of distinct reachable worlds (found here by brute force).
    let model = ToyModel { n: 3 };
    let mut seen = vec![Toy {
        version: 100,
        clients: vec![(0, 0, false); 3],
    }];
    let mut i = 0;
    while i < seen.len() {
        let w = seen[i].clone();
        for c in model.choices(&w) {
            let (next, _) = model.advance(&w, c);
            if !seen.contains(&next) {
                seen.push(next);
            }
        }
        i += 1;
    }
    assert_eq!(r.states, seen.len() as u64);
    // Far fewer worlds are expanded than a tree walk would visit (1 + 6 + 30 + 90 + …).
    assert!(r.states < 90 * 6);
}

#[test]
fn bounds_stop_the_search_and_say_so() {
    let r = explore(
        3,
        Bounds {
            max_states: 5,
            ..Bounds::default()
        },
    );
    assert!(!r.complete);
    assert_eq!(r.stopped_by, Some("max_states"));
    let r = explore(
        2,
        Bounds {
            max_depth: 3,
            ..Bounds::default()
        },
    );
    assert!(!r.complete);
    assert_eq!(r.stopped_by, Some("max_depth"));
    assert_eq!(r.schedules, 0);
}

#[test]
fn slices_reach_the_same_report_as_one_run() {
    let model = ToyModel { n: 3 };
    let root = Toy {
        version: 100,
        clients: vec![(0, 0, false); 3],
    };
    let mut e = Explorer::new(&model, root, Vec::new(), 1, Bounds::default());
    let mut last = 0;
    let mut slices = 0;
    loop {
        let p = e.run(3);
        assert!(p.states >= last);
        last = p.states;
        slices += 1;
        if p.done {
            break;
        }
    }
    assert!(slices > 3);
    assert_eq!(e.report_if_done().unwrap(), explore(3, Bounds::default()));
}

#[test]
fn tokens_compress_runs() {
    assert_eq!(compress(b"aaabba"), "a3b2a");
    assert_eq!(compress(b""), "");
    assert_eq!(compress(b"abc"), "abc");
}
