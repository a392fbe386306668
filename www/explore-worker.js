// rvlab's explorer worker (a module worker). It loads the page's own wasm-bindgen module
// (same files, already in the HTTP cache: no second download), then drives the core's explorer
// in slices through the exported `WorkerExplorer`, posting progress between slices.
// Glue only: every figure comes from rvlab-core.
//
// in:  { text, seed, maxStates, budget }
// out: { type: "progress", states, schedules }*, then { type: "done", report, ms }
//      or { type: "error", message }
import init, { WorkerExplorer } from "./rvlab-web.js";

const ready = init();

self.onmessage = async (event) => {
  const { text, seed, maxStates, budget } = event.data;
  let explorer;
  try {
    await ready;
    explorer = new WorkerExplorer(text, String(seed), maxStates);
  } catch (err) {
    self.postMessage({ type: "error", message: String(err && err.message ? err.message : err) });
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
    self.postMessage({ type: "error", message: String(err && err.message ? err.message : err) });
  } finally {
    explorer.free();
  }
};
