//! The trace file: `--trace FILE` is JSON Lines, one step per line (docs/json-trace.md, "The
//! server's trace"), written and flushed as each request is answered by a writer thread (no
//! file I/O under the lock; the lines are queued under it, in the store's order). The steps
//! themselves, and the trace kept in memory for `GET /rvlab/v1/trace`, are the instruments'
//! (`rvlab_instruments::trace`).

use std::io::Write;
use std::path::Path;
use std::sync::mpsc;

/// The queue to the writer thread of `--trace FILE`.
pub(crate) struct TraceFile {
    tx: mpsc::Sender<String>,
}

impl TraceFile {
    /// Creates `path` and starts its writer thread.
    pub fn create(path: &Path) -> anyhow::Result<TraceFile> {
        let f = std::fs::File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot write the trace file {}: {e}", path.display()))?;
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::Builder::new()
            .name("rvlab-trace".into())
            .spawn(move || {
                let mut w = std::io::BufWriter::new(f);
                while let Ok(line) = rx.recv() {
                    let ok = w.write_all(line.as_bytes()).is_ok()
                        && w.write_all(b"\n").is_ok()
                        && w.flush().is_ok();
                    if !ok {
                        break;
                    }
                }
            })?;
        Ok(TraceFile { tx })
    }

    /// Queues a step's line (never blocks).
    pub fn append(&self, line: String) {
        let _ = self.tx.send(line);
    }
}
