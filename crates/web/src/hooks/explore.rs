//! The explorer's Web Worker, as an effect: while the state has a running job, a module worker
//! (`explore-worker.js`, which loads the page's own wasm) explores it and its messages come
//! back as [`ExploreAction`]s. The worker stays warm between jobs; cancelling a running job terminates it.

use crate::state::explore::{ExploreAction, ExploreJob, EXPLORE_MAX_STATES, EXPLORE_SLICE};
use crate::state::{Action, AppState};
use js_sys::Reflect;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::prelude::*;

/// The worker script, copied next to `index.html` by trunk.
pub const WORKER_URL: &str = "./explore-worker.js";

/// The live worker and the message handler of its current job.
struct Live {
    worker: Worker,
    _onmessage: Option<Closure<dyn FnMut(JsValue)>>,
}

fn get(data: &JsValue, key: &str) -> JsValue {
    Reflect::get(data, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The action a worker message stands for (`None` for a message this page does not know).
fn message_action(job: u32, data: &JsValue) -> Option<ExploreAction> {
    let num = |k: &str| get(data, k).as_f64().unwrap_or(0.0);
    Some(match get(data, "type").as_string()?.as_str() {
        "progress" => ExploreAction::Progress {
            job,
            states: num("states") as u64,
            schedules: num("schedules") as u64,
        },
        "done" => ExploreAction::Done {
            job,
            report: get(data, "report").as_string().unwrap_or_default(),
            ms: num("ms"),
        },
        "error" => ExploreAction::Failed {
            job,
            message: get(data, "message")
                .as_string()
                .unwrap_or_else(|| "the explorer failed".into()),
        },
        _ => return None,
    })
}

fn spawn() -> Result<Worker, JsValue> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    Worker::new_with_options(WORKER_URL, &options)
}

/// Sends `job` to `worker`, its messages coming back as actions.
fn post(
    worker: &Worker,
    (id, text, seed): &ExploreJob,
    dispatcher: UseReducerDispatcher<AppState>,
    finished: Rc<Cell<bool>>,
) -> Result<Closure<dyn FnMut(JsValue)>, JsValue> {
    let id = *id;
    // `dyn FnMut(JsValue)`, the signature of the page's other closures: one copy of
    // wasm-bindgen's closure glue (docs/size.md).
    let onmessage = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let event: MessageEvent = event.unchecked_into();
        if let Some(action) = message_action(id, &event.data()) {
            if !matches!(action, ExploreAction::Progress { .. }) {
                finished.set(true);
            }
            dispatcher.dispatch(Action::Explore(action));
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    let msg = js_sys::Object::new();
    for (k, v) in [
        ("text", JsValue::from_str(text)),
        ("seed", JsValue::from_str(&seed.to_string())),
        ("maxStates", JsValue::from(EXPLORE_MAX_STATES)),
        ("budget", JsValue::from(EXPLORE_SLICE)),
    ] {
        Reflect::set(&msg, &JsValue::from_str(k), &v)?;
    }
    worker.post_message(&msg)?;
    Ok(onmessage)
}

/// Runs the state's explorer job (if any) in a Web Worker. The worker is started on the first
/// job and kept warm for the next ones; a job that is cancelled (or replaced) before it ends
/// terminates it, and the next job starts a fresh one.
#[hook]
pub fn use_explore_worker(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    let slot = use_mut_ref(|| None::<Live>);
    let job = app.explore.running_job();
    super::use_effect(job, move |job| {
        let finished = Rc::new(Cell::new(false));
        let mut started = false;
        if let Some(job) = job {
            let result = (|| {
                let mut live = slot.borrow_mut();
                if live.is_none() {
                    *live = Some(Live {
                        worker: spawn()?,
                        _onmessage: None,
                    });
                }
                if let Some(l) = live.as_mut() {
                    l._onmessage =
                        Some(post(&l.worker, job, dispatcher.clone(), finished.clone())?);
                }
                Ok::<(), JsValue>(())
            })();
            match result {
                Ok(()) => started = true,
                Err(e) => dispatcher.dispatch(Action::Explore(ExploreAction::Failed {
                    job: job.0,
                    message: format!("the explorer's worker could not start: {e:?}"),
                })),
            }
        }
        Box::new(move || {
            // Cancelled or replaced while running: stop the worker mid-search.
            if started && !finished.get() {
                if let Some(l) = slot.borrow_mut().take() {
                    l.worker.terminate();
                }
            }
        })
    });
}
