//! Run statistics (`--stats`).

use serde::Serialize;

/// One iteration.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IterStats {
    pub iteration: usize,
    pub seconds: f64,
    pub bytes_read: u64,
    /// Bytes written (the external engine's logs and states).
    pub bytes_written: u64,
    pub read_requests: u64,
    /// Tiles processed from the cache pool (no I/O).
    pub cache_hits: u64,
    /// Tiles read from disk.
    pub cache_misses: u64,
    pub cache_hit_bytes: u64,
    pub tiles_processed: u64,
    pub edges_processed: u64,
    pub active_vertices: u64,
    pub io_wait_seconds: f64,
    pub compute_seconds: f64,
    /// Seconds spent copying tiles into the cache pool.
    pub cache_seconds: f64,
    /// The engine that ran the iteration: "stream" or "select".
    pub engine: &'static str,
    /// Pages of the CSR the select engine requested (select iterations).
    pub pages_touched: u64,
    /// Segments in the stream engine's ring (stream iterations; 0 otherwise).
    pub segments: usize,
    /// Segment loads the stream engine read (stream iterations).
    pub loads: u64,
    /// Hub blocks whose work the stream engine split over threads (summed
    /// over the iteration's batches).
    pub shared_blocks: u64,
    /// Passes over every vertex's state the superstep made (in-memory
    /// vertex programs run by the planner: `begin`'s and `end`'s).
    pub state_passes: u64,
    /// Whether the superstep's frontier was a list (same runs).
    pub sparse_frontier: bool,
    /// The planner's estimates before the iteration (0 when not planned).
    pub planner: Option<PlanEstimate>,
    /// What the external engine did (external iterations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalIter>,
}

/// One superstep of the external engine.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ExternalIter {
    pub intervals: u64,
    /// Adjacency (and weight) bytes read by the scatter.
    pub adjacency_bytes: u64,
    /// Messages produced, as log records (before any reduction).
    pub log_bytes_raw: u64,
    /// Records written to the logs after in-buffer reduction.
    pub log_bytes_reduced: u64,
    /// Bytes appended to the logs (with alignment padding).
    pub log_bytes_written: u64,
    pub flushes: u64,
    /// Intermediate external merge levels and the bytes they wrote.
    pub merge_levels: u64,
    pub merge_bytes_written: u64,
    pub logs_sorted_in_memory: u64,
    pub logs_merged_external: u64,
    /// Intervals whose state was read page by page (a sparse frontier or
    /// few messages), not whole.
    pub sparse_intervals: u64,
    /// Grid supersteps (`external-grid`): windows of target intervals, and
    /// tile bytes read over all windows (no log).
    pub grid_windows: u64,
    pub grid_tile_bytes: u64,
    /// The windows held their own words (band mode: each tile inside a
    /// window read once for both ways).
    pub grid_band: bool,
    pub scatter_seconds: f64,
    pub apply_seconds: f64,
}

/// What the planner estimated for one iteration.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct PlanEstimate {
    /// Tile bytes the stream engine would read (cached tiles excluded).
    pub stream_bytes: u64,
    /// Bytes the select engine would read: pages of lists and offsets, each
    /// a whole page (read amplification included).
    pub select_bytes: u64,
    pub stream_seconds: f64,
    pub select_seconds: f64,
    /// Bytes the external engine would move (adjacency, log written and
    /// read, states read and written) and their seconds.
    pub external_bytes: u64,
    pub external_seconds: f64,
    /// The same superstep folding tiles into windows of accumulators
    /// instead of logging (0 when it cannot run): bytes and seconds.
    pub grid_bytes: u64,
    pub grid_seconds: f64,
    pub chosen: &'static str,
}

/// A whole run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunStats {
    pub algorithm: String,
    pub engine: String,
    pub io_backend: String,
    pub direct_io: bool,
    pub wall_seconds: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub read_requests: u64,
    pub io_wait_seconds: f64,
    pub compute_seconds: f64,
    pub peak_rss_bytes: u64,
    pub memory_budget: u64,
    pub vertex_state_bytes: u64,
    pub segment_bytes: u64,
    pub cache_pool_bytes: u64,
    pub threads: usize,
    /// Pages the select engine requested, over the run.
    pub pages_touched: u64,
    pub iterations: Vec<IterStats>,
}

impl RunStats {
    /// Fills the run totals from one reader's counters (`io`) and the run's
    /// start: wall time, bytes, requests, I/O wait, compute, peak RSS.
    pub fn finish_io(&mut self, io: &crate::io::IoStats, start: std::time::Instant) {
        self.wall_seconds = start.elapsed().as_secs_f64();
        self.bytes_read = io.bytes_read;
        self.bytes_written = io.bytes_written;
        self.read_requests = io.requests;
        self.io_wait_seconds = io.wait_seconds;
        self.compute_seconds = (self.wall_seconds - io.wait_seconds).max(0.0);
        self.peak_rss_bytes = crate::mem::peak_rss_bytes();
    }
}
