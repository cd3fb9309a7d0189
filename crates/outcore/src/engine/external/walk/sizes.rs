//! The random walks' memory plan: nine equal shares of what the budget
//! leaves (three log buffers, two for the select engine's pool, two for
//! the chunk of walkers, one for the paths of a batch, one for the merges)
//! and the intervals.

use super::super::log::MAX_INTERVAL;
use super::super::merge::MergeConfig;
use super::super::{ExternalConfig, SLACK};
use crate::error::{Error, Result};
use crate::io::ALIGN;
use crate::mem::Budget;

/// Bytes a walker of a chunk takes while it moves: the chunk's (vertex,
/// walk), the move's (vertex, edge, walk) and the vertex in the list of
/// those the select engine reads.
pub(super) const CHUNK_BYTES: u64 = 16 + 24 + 8;

/// Memory plan.
pub(super) struct Sizes {
    pub bounds: Vec<u64>,
    pub staging: usize,
    /// Records of each log buffer.
    pub records: usize,
    /// Walkers of a chunk (each [`CHUNK_BYTES`] while it moves).
    pub chunk: usize,
    pub pool: u64,
    pub merge: MergeConfig,
    /// Walks per batch when paths are kept.
    pub batch: u64,
}

/// The plan for `total` walks of `length` steps over `n` vertices, whose
/// paths (when kept) take `slot_bytes` a position.
pub(super) fn sizes(
    n: u64,
    total: u64,
    length: u32,
    slot_bytes: u64,
    cfg: &ExternalConfig,
    budget: &Budget,
) -> Result<Sizes> {
    let avail = budget.available().saturating_sub(SLACK);
    let staging = ((avail / 64) as usize).clamp(ALIGN, 1 << 20) / ALIGN * ALIGN;
    let share = avail.saturating_sub(6 * staging as u64) / 9;
    if share < 64 << 10 {
        return Err(Error::Budget(format!(
            "random walks need at least {}; raise --memory",
            crate::size::format_size(budget.limit() - avail + 9 * (64 << 10) + 6 * ALIGN as u64)
        )));
    }
    let records = (cfg.message_buffer.unwrap_or(share) / 16).max(16) as usize;
    let memory = cfg.merge_memory.unwrap_or(share).min(share);
    let run_buffer = ((share / 8) as usize).clamp(ALIGN, 1 << 20) / ALIGN * ALIGN;
    let iv = cfg
        .interval_vertices
        .unwrap_or_else(|| n.div_ceil((total * 16).div_ceil(memory).clamp(1, 256)))
        .clamp(1, n.max(1))
        .min(MAX_INTERVAL);
    let k = n.div_ceil(iv).max(1);
    Ok(Sizes {
        bounds: (0..=k).map(|i| (i * iv).min(n)).collect(),
        staging,
        records,
        chunk: (2 * share / CHUNK_BYTES).max(16) as usize,
        pool: 2 * share,
        merge: MergeConfig::new(memory, run_buffer, cfg.fan_in),
        batch: cfg
            .walk_batch
            .unwrap_or(share / (slot_bytes * (length as u64 + 1)))
            .max(1),
    })
}
