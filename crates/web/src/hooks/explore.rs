//! The explorer's Web Worker, as an effect: while the state has a running job, a module worker
//! (`explore-worker.js`) explores it and its messages come back as [`ExploreAction`]s. The
//! worker stays warm between jobs; cancelling a running job terminates it.
//!
//! A release build names every file by its content (`cargo xtask hash-assets`,
//! docs/deploy.md), so the worker is told, in its first message, exactly what to run: the URL
//! of this page's own JS glue (`import.meta.url` of the glue that is running) and this page's
//! compiled `WebAssembly.Module` (no second wasm download, and never another build's files).
//! The worker script's own URL is in index.html's `<meta name="rvlab-worker">`.

use crate::state::explore::{ExploreAction, ExploreJob, EXPLORE_MAX_STATES, EXPLORE_SLICE};
use crate::state::{Action, AppState};
use js_sys::Reflect;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::prelude::*;

/// The worker script when index.html does not name it (a page built without the meta).
pub const WORKER_URL: &str = "./explore-worker.js";

#[wasm_bindgen]
extern "C" {
    /// The URL the running JS glue was loaded from.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: String;
}

/// The worker script's URL: index.html's `<meta name="rvlab-worker" content=…>`.
fn worker_url() -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("meta[name=rvlab-worker]").ok().flatten())
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_else(|| WORKER_URL.to_owned())
}

/// The live worker and the message handler of its current job.
struct Live {
    worker: Worker,
    _onmessage: Option<Closure<dyn FnMut(JsValue)>>,
    /// Set when the worker's script failed to load or run: the next job starts a new one.
    broken: Rc<Cell<bool>>,
}

/// What the page says when the worker's script cannot be loaded: typically a page left open
/// across a deploy to a host that did not keep the previous build's files (docs/deploy.md).
fn load_failure(url: &str) -> String {
    format!(
        "the explorer's worker could not be loaded from {url}; if the site was updated \
         since this page was opened, reload the page"
    )
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
            // A decimal string (exact at any size; see `worker::WorkerExplorer::run`).
            schedules: get(data, "schedules")
                .as_string()
                .and_then(|s| rvlab_core::count::Count::parse(&s))
                .unwrap_or_default(),
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

/// Starts the worker and sends it what to run: this page's glue URL and wasm module.
fn spawn() -> Result<Worker, JsValue> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&worker_url(), &options)?;
    let init = js_sys::Object::new();
    Reflect::set(&init, &"type".into(), &"init".into())?;
    Reflect::set(
        &init,
        &"glue".into(),
        &GLUE_URL.with(|u| JsValue::from_str(u)),
    )?;
    Reflect::set(&init, &"module".into(), &wasm_bindgen::module())?;
    worker.post_message(&init)?;
    Ok(worker)
}

/// Sends `job` to `worker`, its messages coming back as actions.
fn post(
    live: &Live,
    (id, text, seed): &ExploreJob,
    dispatcher: UseReducerDispatcher<AppState>,
    finished: Rc<Cell<bool>>,
) -> Result<Closure<dyn FnMut(JsValue)>, JsValue> {
    let id = *id;
    let worker = &live.worker;
    let broken = live.broken.clone();
    // `dyn FnMut(JsValue)`, the signature of the page's other closures: one copy of
    // wasm-bindgen's closure glue (docs/size.md). It takes the worker's `error` events too.
    let onmessage = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let action = if get(&event, "type").as_string().as_deref() == Some("error") {
            broken.set(true);
            Some(ExploreAction::Failed {
                job: id,
                message: load_failure(&worker_url()),
            })
        } else {
            let event: MessageEvent = event.unchecked_into();
            message_action(id, &event.data())
        };
        if let Some(action) = action {
            if !matches!(action, ExploreAction::Progress { .. }) {
                finished.set(true);
            }
            dispatcher.dispatch(Action::Explore(action));
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onmessage.as_ref().unchecked_ref()));
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
                if let Some(l) = live.take_if(|l| l.broken.get()) {
                    l.worker.terminate();
                }
                if live.is_none() {
                    *live = Some(Live {
                        worker: spawn()?,
                        _onmessage: None,
                        broken: Rc::new(Cell::new(false)),
                    });
                }
                if let Some(l) = live.as_mut() {
                    l._onmessage = Some(post(l, job, dispatcher.clone(), finished.clone())?);
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
