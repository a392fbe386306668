//! The explorer's Web Worker, as an effect: while the state has a running job, a module worker
//! (`explore-worker.js`, which loads the page's own wasm) explores it and its messages come
//! back as [`ExploreAction`]s. Cancelling (or starting another job) terminates the worker.

use crate::state::explore::{ExploreAction, EXPLORE_MAX_STATES, EXPLORE_SLICE};
use crate::state::{Action, AppState};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::prelude::*;

/// The worker script, copied next to `index.html` by trunk.
pub const WORKER_URL: &str = "./explore-worker.js";

/// A live worker and its message handler (dropped together).
struct Live {
    worker: Worker,
    _onmessage: Closure<dyn FnMut(MessageEvent)>,
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

fn spawn(job: u32, dispatcher: UseReducerDispatcher<AppState>) -> Result<Live, JsValue> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(WORKER_URL, &options)?;
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if let Some(action) = message_action(job, &event.data()) {
            dispatcher.dispatch(Action::Explore(action));
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    Ok(Live {
        worker,
        _onmessage: onmessage,
    })
}

/// Runs the state's explorer job (if any) in a Web Worker.
#[hook]
pub fn use_explore_worker(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    let job = app.explore.running_job();
    use_effect_with(job, move |job| {
        let mut live = None;
        if let Some((id, text, seed)) = job.clone() {
            let started = spawn(id, dispatcher.clone()).and_then(|l| {
                let msg = js_sys::Object::new();
                for (k, v) in [
                    ("text", JsValue::from_str(&text)),
                    ("seed", JsValue::from_str(&seed.to_string())),
                    ("maxStates", JsValue::from(EXPLORE_MAX_STATES)),
                    ("budget", JsValue::from(EXPLORE_SLICE)),
                ] {
                    Reflect::set(&msg, &JsValue::from_str(k), &v)?;
                }
                l.worker.post_message(&msg)?;
                Ok(l)
            });
            match started {
                Ok(l) => live = Some(l),
                Err(e) => dispatcher.dispatch(Action::Explore(ExploreAction::Failed {
                    job: id,
                    message: format!("the explorer's worker could not start: {e:?}"),
                })),
            }
        }
        move || {
            // The job ended (done, failed), was cancelled or was replaced: stop its worker
            // (one worker per job; the wasm it loads is in the HTTP cache).
            if let Some(l) = live {
                l.worker.terminate();
            }
        }
    });
}
