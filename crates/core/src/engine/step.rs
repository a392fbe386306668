//! [`World::step`]: one statement of one client (a local edit, a binding, a `sleep`, or a
//! request, see `request.rs`), and what an error does to the client.

use super::expr;
use super::narrate::{self, fmt_duration};
use super::records::{ClientOutcome, Failure, Mark, StepKind, StepRecord};
use super::request::Transport;
use super::vars::Var;
use super::world::{block_at, World};
use super::ScheduleError;
use crate::json::HValue;
use crate::lang::ast::{Scenario, Stmt, StmtKind};

impl World {
    /// An error ended the client's current statement. A conflict inside a retry block ends the
    /// attempt (and schedules the backoff sleep, or gives up with it when the steps ran out);
    /// anything else stops the client. Returns a sentence about what happens next.
    pub(super) fn fail(&mut self, scenario: &Scenario, client: u32, failure: Failure) -> String {
        let spec = &scenario.clients[client as usize];
        let name = spec.name.clone();
        let c = &mut self.clients[client as usize];
        let conflict = failure.is_conflict();
        let mut exhausted_note = String::new();
        loop {
            let depth = c.frames.len().saturating_sub(1);
            if depth == 0 || !conflict {
                let inside_retry = depth > 0;
                c.outcome = Some(ClientOutcome::Failed(failure.clone()));
                return if !exhausted_note.is_empty() {
                    format!(
                        "{exhausted_note}: {name} fails with the last {}",
                        failure.reason
                    )
                } else if inside_retry && failure.reason == "AlreadyExists" {
                    format!(
                        "client-go's IsConflict is false for AlreadyExists, so retry on conflict does not retry it: {name} stops here"
                    )
                } else if inside_retry {
                    format!("retry on conflict retries only conflicts: {name} stops here")
                } else {
                    format!("{name} stops here with this error")
                };
            }
            let policy_name = block_at(&spec.body, &c.frames, depth)
                .and_then(|(_, p)| p)
                .map(|p| p.name.clone())
                .unwrap_or_default();
            let Some(retry) = c.frames[depth].retry.as_mut() else {
                c.outcome = Some(ClientOutcome::Failed(failure.clone()));
                return format!("{name} stops here with this error");
            };
            retry.last_error = Some(failure.clone());
            if retry.steps > 1 {
                c.backoff_pending = true;
                return format!(
                    "the attempt ends; {name} will back off and try again ({policy_name}: attempt {} of at most {})",
                    retry.attempt + 1,
                    retry.attempt + retry.steps - 1
                );
            }
            exhausted_note = format!(
                "that was attempt {} of {}, so retry on conflict gives up",
                retry.attempt, retry.attempt
            );
            // Give up: the conflict propagates to the enclosing block.
            c.frames.pop();
        }
    }

    /// Runs one step of `client`: its next statement, or the backoff sleep between two attempts.
    /// Stepping a sleeping client first advances the clock to its wake-up time. Callers go
    /// through [`World::take_step`], which draws the scheduler's tie-break first.
    pub(super) fn step(
        &mut self,
        via: &mut dyn Transport,
        scenario: &Scenario,
        client: u32,
    ) -> Result<StepRecord, ScheduleError> {
        let Some(state) = self.clients.get(client as usize) else {
            return Err(ScheduleError::UnknownClient(client));
        };
        let Some(spec) = scenario.clients.get(client as usize) else {
            return Err(ScheduleError::UnknownClient(client));
        };
        if state.outcome.is_some() {
            return Err(ScheduleError::Finished {
                client,
                name: spec.name.clone(),
            });
        }
        self.clock_nanos = self.clock_nanos.max(state.ready_at);
        let mut rec = if state.backoff_pending {
            self.backoff_step(scenario, client)
        } else {
            match self.next_statement(scenario, client) {
                Some(stmt) => self.run_stmt(via, scenario, client, stmt),
                None => {
                    // Cannot happen after normalize; finish the client rather than loop.
                    self.clients[client as usize].outcome = Some(ClientOutcome::Succeeded);
                    StepRecord::new(client, 0, String::new(), self.clock_nanos, StepKind::Local)
                }
            }
        };
        self.normalize(scenario, client);
        if let Some(o) = &self.clients[client as usize].outcome {
            rec.finished = Some(o.clone());
        }
        Ok(rec)
    }

    pub(super) fn runtime_error(
        &mut self,
        scenario: &Scenario,
        client: u32,
        mut rec: StepRecord,
        msg: String,
    ) -> StepRecord {
        let name = &scenario.clients[client as usize].name;
        rec.narration =
            format!("{name} hit a runtime error in its script: {msg}; {name} stops here");
        rec.action = StepKind::Error;
        rec.mark = Mark::OtherError;
        self.clients[client as usize].outcome = Some(ClientOutcome::Failed(Failure::runtime(msg)));
        rec
    }

    pub(super) fn advance(&mut self, client: u32) {
        let c = &mut self.clients[client as usize];
        if let Some(f) = c.frames.last_mut() {
            f.index += 1;
        }
    }

    fn run_stmt(
        &mut self,
        via: &mut dyn Transport,
        scenario: &Scenario,
        client: u32,
        stmt: &Stmt,
    ) -> StepRecord {
        let name = scenario.clients[client as usize].name.clone();
        let now = self.clock_nanos;
        let mut rec = StepRecord::new(
            client,
            stmt.span.line,
            stmt.text.clone(),
            now,
            StepKind::Local,
        );
        let vars = &self.clients[client as usize].vars;
        match &stmt.kind {
            StmtKind::Assign { var, path, value } => {
                let v = match expr::eval(value, vars) {
                    Ok(v) => v,
                    Err(e) => return self.runtime_error(scenario, client, rec, e),
                };
                rec.mark = Mark::Local;
                let c = &mut self.clients[client as usize];
                if path.is_empty() {
                    let held = match &value.kind {
                        crate::lang::ast::ExprKind::Var { name: src, path: p } if p.is_empty() => {
                            c.vars.get(src).and_then(|x| x.held.clone())
                        }
                        _ => None,
                    };
                    rec.narration = format!(
                        "{name} set {var} to {} (a local value: nothing is sent)",
                        narrate::short_json(&v)
                    );
                    c.vars.insert(
                        var.clone(),
                        Var {
                            value: HValue(v),
                            held,
                        },
                    );
                } else {
                    let Some(slot) = c.vars.get_mut(var) else {
                        let msg = format!("{var} is not defined (nothing was assigned to it yet)");
                        return self.runtime_error(scenario, client, rec, msg);
                    };
                    let shown = narrate::short_json(&v);
                    if let Err(e) = expr::write_path(&mut slot.value.0, var, path, v) {
                        return self.runtime_error(scenario, client, rec, e);
                    }
                    rec.narration = format!(
                        "{name} set {} to {shown} in their local copy (nothing is sent)",
                        expr::var_path_text(var, path)
                    );
                }
                self.advance(client);
                rec
            }
            StmtKind::Sleep { nanos } => {
                rec.action = StepKind::Sleep;
                rec.mark = Mark::Sleep;
                rec.sleep_nanos = Some(*nanos);
                let c = &mut self.clients[client as usize];
                c.ready_at = now.saturating_add(*nanos);
                rec.narration = format!(
                    "{name} sleeps {} (until {} on the virtual clock)",
                    fmt_duration(*nanos),
                    fmt_duration(c.ready_at)
                );
                self.advance(client);
                rec
            }
            StmtKind::Kubectl { cmd, edits } => {
                self.kubectl_stmt(via, scenario, client, cmd, edits, rec)
            }
            StmtKind::File { name: file, body } => {
                self.file_stmt(scenario, client, file, body, rec)
            }
            StmtKind::Retry { .. } => {
                // Normalization enters retry blocks; reaching one here means an empty block.
                self.advance(client);
                rec
            }
            _ => self.request_stmt(via, scenario, client, stmt, rec),
        }
    }

    /// For a conflict inside a retry block that never re-reads `var`: says so (the trap of
    /// retrying without re-reading).
    pub(super) fn no_reread_hint(
        &self,
        scenario: &Scenario,
        client: u32,
        var: &str,
    ) -> Option<String> {
        let c = self.clients.get(client as usize)?;
        let body = &scenario.clients.get(client as usize)?.body;
        let depth = c.frames.len().checked_sub(1).filter(|d| *d > 0)?;
        let (block, _) = block_at(body, &c.frames, depth)?;
        let rereads = block
            .iter()
            .any(|s| matches!(&s.kind, StmtKind::Get { var: v, .. } if v == var));
        (!rereads).then(|| {
            format!(
                "nothing in the retry block re-reads {var}, so every attempt sends the same stale version"
            )
        })
    }
}
