//! Run statistics (`--stats`).

use serde::Serialize;

/// One iteration.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IterStats {
    pub iteration: usize,
    pub seconds: f64,
    pub bytes_read: u64,
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
    pub engine: &'static str,
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
    pub read_requests: u64,
    pub io_wait_seconds: f64,
    pub compute_seconds: f64,
    pub peak_rss_bytes: u64,
    pub memory_budget: u64,
    pub vertex_state_bytes: u64,
    pub segment_bytes: u64,
    pub cache_pool_bytes: u64,
    pub threads: usize,
    pub iterations: Vec<IterStats>,
}
