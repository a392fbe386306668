//! `rvlab-explore-peer [--runs R] [--clients N[,N…]]`: checks the stateright model of the
//! counter scenarios (lib.rs) for 3, 4, 5 and 6 clients, depth first on one thread, with
//! symmetry reduction (the same work as the explorer, which reduces by client symmetry too) and
//! without, and prints one line per scenario:
//!
//! `counter-N schedules P symmetry states S ms T full states S ms T`
//!
//! where S is stateright's count of unique states (with symmetry: of classes of states equal up
//! to renaming the clients) and T the median wall time in milliseconds of R complete checks
//! (`checker()` to `join()`, default R = 5), with symmetry reduction (`symmetry`) and without
//! (`full`). P (the complete request orders, the explorer's `schedules`) is counted once,
//! outside the timing, by a memoised walk of the same model, so that `cargo xtask bench` can
//! check that both sides explore the same protocol.

use rvlab_explore_peer::{check, schedules, Search};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (runs, clients) = match parse_args(&args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\nusage: rvlab-explore-peer [--runs R] [--clients N[,N...]]");
            return ExitCode::from(2);
        }
    };
    for n in clients {
        let (sym_states, sym_ms) = measure(n, Search::Symmetry, runs);
        let (full_states, full_ms) = measure(n, Search::Full, runs);
        println!(
            "counter-{n} schedules {} symmetry states {sym_states} ms {sym_ms:.3} \
             full states {full_states} ms {full_ms:.3}",
            schedules(n)
        );
    }
    ExitCode::SUCCESS
}

/// The unique states of `runs` checks of the `n`-client model and their median wall time (ms).
fn measure(n: usize, search: Search, runs: usize) -> (usize, f64) {
    let mut times = Vec::with_capacity(runs);
    let mut states = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let checked = check(n, search);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        states = checked.unique_states;
    }
    times.sort_by(f64::total_cmp);
    (states, times[times.len() / 2])
}

fn parse_args(args: &[String]) -> Result<(usize, Vec<usize>), String> {
    let mut runs = 5;
    let mut clients = vec![3, 4, 5, 6];
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} takes a value"))?;
        match flag.as_str() {
            "--runs" => {
                runs = value.parse().map_err(|_| "--runs takes a number")?;
                if runs == 0 {
                    return Err("--runs must be at least 1".into());
                }
            }
            "--clients" => {
                clients = value
                    .split(',')
                    .map(|n| match n.parse() {
                        Ok(n) if n >= 1 => Ok(n),
                        _ => Err(format!("--clients: not a client count: {n}")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok((runs, clients))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn arguments() {
        assert_eq!(parse_args(&[]).unwrap(), (5, vec![3, 4, 5, 6]));
        assert_eq!(
            parse_args(&args("--runs 3 --clients 2,5")).unwrap(),
            (3, vec![2, 5])
        );
        assert!(parse_args(&args("--runs 0")).is_err());
        assert!(parse_args(&args("--runs")).is_err());
        assert!(parse_args(&args("--clients 0")).is_err());
        assert!(parse_args(&args("--fast 1")).is_err());
    }
}
