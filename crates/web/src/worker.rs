//! The explorer's Web Worker side: `#[wasm_bindgen]` exports that `www/explore-worker.js`
//! (a module worker that loads this same wasm, no second download) drives in slices. Glue
//! only: the search, its bounds and its report are `rvlab_core::explore`'s.

use rvlab_core::explore::{Bounds, ScenarioExplorer};
use rvlab_core::lang::parse;
use wasm_bindgen::prelude::*;

/// A scenario explorer living in the worker: `new`, then `run(budget)` until the progress says
/// `done`, then `report()`.
#[wasm_bindgen]
pub struct WorkerExplorer {
    inner: ScenarioExplorer,
}

#[wasm_bindgen]
impl WorkerExplorer {
    /// Parses `text` and starts exploring it with generator `seed` (decimal) and at most
    /// `max_states` distinct worlds. Throws a message when the text has errors or setup fails.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, seed: &str, max_states: u32) -> Result<WorkerExplorer, JsError> {
        WorkerExplorer::create(text, seed, max_states).map_err(|e| JsError::new(&e))
    }

    /// Does at most `budget` transitions of work; returns the progress as JSON
    /// (`{"states":…,"schedules":"…","done":…}`; the schedules as a decimal string, which
    /// JavaScript carries exactly at any size, where a number above 2⁵³ would be rounded).
    pub fn run(&mut self, budget: u32) -> String {
        progress_json(self.inner.run(u64::from(budget)))
    }

    /// The explorer report's JSON (docs/json-trace.md), once done; `undefined` before.
    pub fn report(&self) -> Option<String> {
        self.inner.report().map(|r| r.to_json().to_string())
    }
}

impl WorkerExplorer {
    /// [`WorkerExplorer::new`] with errors as strings (testable natively).
    pub fn create(text: &str, seed: &str, max_states: u32) -> Result<WorkerExplorer, String> {
        let seed: u64 = seed
            .trim()
            .parse()
            .map_err(|_| format!("the seed `{seed}` is not a number"))?;
        let parsed = parse(text);
        let Some(scenario) = parsed.scenario else {
            return Err("the scenario has errors; fix them before exploring".into());
        };
        let bounds = Bounds {
            max_states: u64::from(max_states.max(1)),
            ..Bounds::default()
        };
        let inner = ScenarioExplorer::new(&scenario, seed, bounds).map_err(|e| e.to_string())?;
        Ok(WorkerExplorer { inner })
    }
}

fn progress_json(p: rvlab_core::explore::Progress) -> String {
    rvlab_core::json::object(vec![
        ("states", p.states.into()),
        ("schedules", p.schedules.to_string().into()),
        ("done", p.done.into()),
    ])
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_the_json_the_worker_script_reads() {
        let p = rvlab_core::explore::Progress {
            states: 12,
            schedules: rvlab_core::count::Count::parse("88019039640123456789").unwrap(),
            done: false,
        };
        assert_eq!(
            progress_json(p),
            r#"{"states":12,"schedules":"88019039640123456789","done":false}"#
        );
    }
}
