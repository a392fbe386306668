//! The instruments' size limits, in one place.

/// `rvlab serve`'s live view ([`crate::live::Live`]): at most this many steps are kept (the oldest are
/// dropped and counted), and at most this many bytes of their events.
pub const LIVE_HISTORY_STEPS: usize = 2_000;
/// See [`LIVE_HISTORY_STEPS`].
pub const LIVE_HISTORY_BYTES: usize = 8 << 20;
/// The most writes `--stale-reads K` may lag a read behind: the server keeps the undo of the
/// last K writes (the objects they wrote, as they were), so K is bounded.
pub const MAX_STALE_READS: u32 = 16;
/// Distinct client programs (by User-Agent) whose observed revisions are tracked
/// ([`crate::client::Observed`]); a client beyond it is tracked as having observed nothing.
pub const MAX_TRACKED_CLIENTS: usize = 1024;
/// The objects each client's lane of the live view shows as read (with whether its read is
/// still current): the ones it read last. Every live event carries every lane's, so without a
/// bound a client that read 10,000 objects made each event (and each request) O(10,000).
pub const LANE_READS: usize = 16;
/// The store's event log (who wrote what, for the narration "after alice's update") keeps
/// this many of the newest writes in a server ([`rvlab_core::store::Store::keep_recent_events`]);
/// a narration of a read older than that names only the writers the log still has.
pub const STORE_EVENTS_KEPT: usize = 4096;
