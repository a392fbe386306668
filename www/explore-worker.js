// rvlab's explorer worker (a module worker). Its first message says what to run: the URL of
// the page's own wasm-bindgen glue and the page's compiled WebAssembly.Module, so the worker
// runs exactly the page's build (file names are content-hashed: docs/deploy.md) and never
// downloads the wasm again. Then it drives the core's explorer in slices through the exported
// `WorkerExplorer`, posting progress between slices. Glue only: every figure comes from
// rvlab-core.
//
// in:  { type: "init", glue, module } once, then { text, seed, maxStates, budget } per job
// out: { type: "progress", states, schedules }*, then { type: "done", report, ms }
//      (schedules is a string of decimal digits: exact at any size)
//      or { type: "error", message }
let ready = Promise.reject(new Error("the page did not send the worker its module"));
ready.catch(() => {});

const fail = (err) =>
  self.postMessage({ type: "error", message: String(err && err.message ? err.message : err) });

self.onmessage = async (event) => {
  const data = event.data;
  if (data.type === "init") {
    ready = import(data.glue).then(async (glue) => {
      await glue.default({ module_or_path: data.module });
      return glue;
    });
    ready.catch(() => {});
    return;
  }
  const { text, seed, maxStates, budget } = data;
  let explorer;
  try {
    const { WorkerExplorer } = await ready;
    explorer = new WorkerExplorer(text, String(seed), maxStates);
  } catch (err) {
    fail(err);
    return;
  }
  const t0 = performance.now();
  try {
    for (;;) {
      const p = JSON.parse(explorer.run(budget));
      if (p.done) break;
      self.postMessage({ type: "progress", states: p.states, schedules: p.schedules });
    }
    const ms = performance.now() - t0;
    self.postMessage({ type: "done", report: explorer.report(), ms });
  } catch (err) {
    fail(err);
  } finally {
    explorer.free();
  }
};
