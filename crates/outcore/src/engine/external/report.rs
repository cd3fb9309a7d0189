//! What a superstep of the external engine reports: its iteration record
//! for `--stats`, with the engine's own counters (the multi-log's messages
//! before and after in-buffer reduction, its flushes, the sort-reduce's
//! merge levels; or the grid's windows and tile bytes).

use super::grid::GridCounts;
use super::log::LogCounts;
use super::logstep::LogStep;
use crate::engine::stats::{ExternalIter, IterStats, PlanEstimate};
use crate::io::IoStats;

/// The record of superstep `step` over `k` intervals: `secs` long, `io`
/// its io counters, `active_now` the vertices active at its start, `plan`
/// the planner's choice; `ls` and `lc` what the log path did (`rec` bytes
/// a log record), `gcounts` what the grid did.
#[allow(clippy::too_many_arguments)]
pub(super) fn iter_stats(
    step: usize,
    secs: f64,
    io: IoStats,
    active_now: u64,
    plan: PlanEstimate,
    k: usize,
    ls: &LogStep,
    lc: LogCounts,
    rec: u64,
    gcounts: Option<GridCounts>,
) -> IterStats {
    IterStats {
        iteration: step,
        seconds: secs,
        bytes_read: io.bytes_read,
        bytes_written: io.bytes_written,
        read_requests: io.requests,
        edges_processed: gcounts.map_or(lc.messages, |g| g.edges),
        active_vertices: active_now,
        io_wait_seconds: io.wait_seconds,
        compute_seconds: (secs - io.wait_seconds).max(0.0),
        engine: "external",
        planner: Some(plan),
        external: Some(ExternalIter {
            intervals: k as u64,
            adjacency_bytes: ls.adj_bytes,
            log_bytes_raw: lc.messages * rec,
            log_bytes_reduced: lc.records_written * rec,
            log_bytes_written: lc.bytes_written,
            flushes: lc.flushes,
            merge_levels: ls.merge.levels,
            merge_bytes_written: ls.merge.bytes_written,
            logs_sorted_in_memory: ls.merge.in_memory,
            logs_merged_external: ls.merge.external,
            sparse_intervals: ls.sparse_intervals,
            grid_windows: gcounts.map_or(0, |g| g.windows),
            grid_tile_bytes: gcounts.map_or(0, |g| g.tile_bytes),
            grid_band: gcounts.is_some_and(|g| g.band),
            scatter_seconds: gcounts.map_or(ls.scatter_secs, |g| g.values_seconds + g.fold_seconds),
            apply_seconds: secs
                - gcounts.map_or(ls.scatter_secs, |g| g.values_seconds + g.fold_seconds),
        }),
        ..Default::default()
    }
}
