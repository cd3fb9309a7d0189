//! The external engine's settings: the io backend and spill directory,
//! and the sizes (intervals, the multi-log's message buffer and staging,
//! the sort-reduce's fan-in and in-memory share, triangle blocks, walk
//! batches, grid windows) that otherwise default to shares of the budget.

use crate::io::Backend;
use std::path::PathBuf;

/// External engine settings (all sizes default to shares of the budget).
#[derive(Clone, Debug, Default)]
pub struct ExternalConfig {
    /// I/O backend (`None`: io_uring when available).
    pub io: Option<Backend>,
    /// Where the spill directory goes (default: beside the store).
    pub tmp_dir: Option<PathBuf>,
    /// Vertices per interval.
    pub interval_vertices: Option<u64>,
    /// Bytes of the message buffer.
    pub message_buffer: Option<u64>,
    /// Runs merged at once.
    pub fan_in: Option<usize>,
    /// Bytes of each of the two log staging buffers.
    pub staging: Option<usize>,
    /// Bytes of log an interval may sort in memory (larger logs are merged
    /// from disk).
    pub merge_memory: Option<u64>,
    /// Bytes of one block of oriented lists in triangle listing.
    pub triangle_block: Option<u64>,
    /// Walks per batch when random walks keep their paths.
    pub walk_batch: Option<u64>,
    /// Keeps per-vertex arrays on disk even when they would fit in memory
    /// (tests of the spilling paths).
    pub force_spill: bool,
    /// Dense supersteps fold tiles into windows of accumulators instead of
    /// logging messages (`grid/`): `None` when the planner prices it
    /// lower, `Some(true)` whenever the program and store allow it,
    /// `Some(false)` never.
    pub grid: Option<bool>,
    /// Most tile blocks of accumulators per grid window (tests of many
    /// windows; default: what the budget holds).
    pub grid_window_blocks: Option<u64>,
    /// With `grid: Some(true)`: grid on even supersteps only, the log on
    /// odd ones (tests of the switches between them).
    pub grid_alternate: bool,
}
