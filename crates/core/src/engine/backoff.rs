//! client-go's `RetryOnConflict` over apimachinery's `wait.Backoff`: the retry state, Go's
//! `Jitter`, `Backoff.Step()`, and the backoff sleep step between two attempts.

use super::narrate::{self, fmt_duration};
use super::records::{ClientOutcome, Failure, Mark, StepKind, StepRecord};
use super::world::{block_at, World};
use crate::lang::ast::{Backoff, Scenario, StmtKind};
use crate::rng::Rng;

/// The state of one `retry on conflict` block being run: apimachinery's `wait.Backoff` as
/// `ExponentialBackoff` mutates it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RetryState {
    /// The attempt being run, from 1.
    pub attempt: u32,
    /// `Backoff.Duration`: the next sleep before jitter, in nanoseconds.
    pub duration_nanos: u64,
    /// `Backoff.Steps`: attempts left including the current one.
    pub steps: u32,
    /// The last conflict an attempt ended with.
    pub last_error: Option<Failure>,
}

/// Go's `Jitter(d, maxFactor)`: `d + time.Duration(rand.Float64()*maxFactor*float64(d))`.
pub fn jitter(duration_nanos: u64, max_factor: f64, rng: &mut Rng) -> u64 {
    let f = if max_factor <= 0.0 { 1.0 } else { max_factor };
    let extra = rng.next_f64() * f * duration_nanos as f64;
    duration_nanos.saturating_add(extra as u64)
}

/// apimachinery's `delay()` (what `Backoff.Step()` does; `pkg/util/wait/backoff.go`, unchanged
/// through v0.37.2, the reference's release): returns the sleep and the new `(Duration, Steps)`.
pub fn backoff_delay(
    policy: &Backoff,
    duration: u64,
    steps: u32,
    rng: &mut Rng,
) -> (u64, u64, u32) {
    if steps < 1 {
        let d = if policy.jitter > 0.0 {
            jitter(duration, policy.jitter, rng)
        } else {
            duration
        };
        return (d, duration, 0);
    }
    let mut steps = steps - 1;
    let next = if policy.factor != 0.0 {
        let mut n = (duration as f64 * policy.factor) as u64;
        if policy.cap_nanos > 0 && n > policy.cap_nanos {
            n = policy.cap_nanos;
            steps = 0;
        }
        n
    } else {
        duration
    };
    let sleep = if policy.jitter > 0.0 {
        jitter(duration, policy.jitter, rng)
    } else {
        duration
    };
    (sleep, next, steps)
}

impl World {
    pub(super) fn backoff_step(&mut self, scenario: &Scenario, client: u32) -> StepRecord {
        let spec = &scenario.clients[client as usize];
        let name = spec.name.clone();
        let now = self.clock_nanos;
        let c = &mut self.clients[client as usize];
        c.backoff_pending = false;
        let depth = c.frames.len().saturating_sub(1);
        let retry_stmt = if depth > 0 {
            block_at(&spec.body, &c.frames, depth - 1)
                .and_then(|(b, _)| b.get(c.frames[depth - 1].index as usize))
        } else {
            None
        };
        let Some(StmtKind::Retry { policy, .. }) = retry_stmt.map(|s| &s.kind) else {
            c.outcome = Some(ClientOutcome::Failed(Failure::runtime(
                "internal: a backoff sleep outside a retry block".into(),
            )));
            return StepRecord::new(client, 0, String::new(), now, StepKind::Error);
        };
        let line = retry_stmt.map_or(0, |s| s.span.line);
        let Some(retry) = c.frames[depth].retry.as_mut() else {
            c.outcome = Some(ClientOutcome::Failed(Failure::runtime(
                "internal: a backoff sleep without retry state".into(),
            )));
            return StepRecord::new(client, line, String::new(), now, StepKind::Error);
        };
        let (sleep, next, steps) =
            backoff_delay(policy, retry.duration_nanos, retry.steps, &mut self.rng);
        retry.duration_nanos = next;
        retry.steps = steps;
        let statement = format!("backoff sleep ({})", policy.name);
        let mut rec = StepRecord::new(client, line, statement, now, StepKind::Backoff);
        rec.mark = Mark::Sleep;
        rec.sleep_nanos = Some(sleep);
        c.ready_at = now.saturating_add(sleep);
        if steps > 0 {
            retry.attempt += 1;
            let attempt = retry.attempt;
            c.attempts = c.attempts.max(attempt);
            c.frames[depth].index = 0;
            rec.narration = format!(
                "{name} sleeps {} before attempt {attempt} of {} ({}: wait.Backoff jitter {})",
                fmt_duration(sleep),
                policy.steps,
                policy.name,
                narrate::fmt_float(policy.jitter),
            );
        } else {
            // The cap was reached: Steps became 0, so ExponentialBackoff stops after this sleep.
            let last = retry
                .last_error
                .clone()
                .unwrap_or_else(|| Failure::runtime("retry gave up".into()));
            c.frames.pop();
            let reason = last.reason.clone();
            let note = self.fail(scenario, client, last);
            let note = if self.clients[client as usize].outcome.is_some() {
                format!("{name} fails with the last {reason}")
            } else {
                note
            };
            rec.narration = format!(
                "{name} sleeps {}; the backoff reached its cap of {}, which sets Steps to 0, so client-go stops retrying after this sleep: {note}",
                fmt_duration(sleep),
                fmt_duration(policy.cap_nanos),
            );
        }
        rec
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_retry_sleeps_match_client_go() {
        let p = Backoff::default_retry();
        let mut rng = Rng::new(1);
        let mut check = Rng::new(1);
        let (mut d, mut steps) = (p.duration_nanos, p.steps);
        for _ in 0..4 {
            let (sleep, next, s) = backoff_delay(&p, d, steps, &mut rng);
            let want = 10_000_000 + (check.next_f64() * 0.1 * 10_000_000.0) as u64;
            assert_eq!(sleep, want);
            assert!((10_000_000..11_000_000).contains(&sleep));
            assert_eq!(next, 10_000_000);
            d = next;
            steps = s;
        }
        assert_eq!(steps, 1);
    }

    #[test]
    fn cap_sets_steps_to_zero() {
        let p = Backoff {
            name: "backoff".into(),
            steps: 10,
            duration_nanos: 10_000_000,
            factor: 3.0,
            jitter: 0.0,
            cap_nanos: 50_000_000,
        };
        let mut rng = Rng::new(0);
        let (s1, d1, n1) = backoff_delay(&p, p.duration_nanos, p.steps, &mut rng);
        assert_eq!((s1, d1, n1), (10_000_000, 30_000_000, 9));
        let (s2, d2, n2) = backoff_delay(&p, d1, n1, &mut rng);
        assert_eq!((s2, d2, n2), (30_000_000, 50_000_000, 0));
    }
}
