//! The planner's side of the external engine's grid supersteps
//! (GridGraph's dual sliding windows over the tiles, `external/grid/`):
//! what one costs, and whether a superstep takes it or the log.

use super::{choose, CostModel, ExternalWork};
use crate::engine::stats::PlanEstimate;
use crate::engine::tileset::tile_bytes;
use crate::store::Store;

/// The external engine's pick for one superstep: GraFBoost's sort-reduce
/// log against GridGraph's dual sliding windows when `work.grid` prices
/// them; the grid when it is cheaper, or as `grid` forces (`Some(true)`:
/// the grid, `Some(false)`: the log).
pub fn choose_external(model: &CostModel, work: &ExternalWork, grid: Option<bool>) -> PlanEstimate {
    let mut plan = choose(model, None, None, Some(work));
    let cheaper = plan.grid_seconds < plan.external_seconds;
    if work.grid.is_some() && grid.unwrap_or(cheaper) {
        plan.chosen = "external-grid";
    }
    plan
}

/// Bytes a grid superstep reads and writes with `windows` windows when a
/// share `f` of the tile blocks holds an active vertex: each direction's
/// tiles (those of blocks with a sender) times `tile_factor`, what the last
/// grid superstep read of its own such estimate (band windows read the
/// tiles inside them once; reads round to whole chunks); the words written
/// once and read per window, the states read twice (values, apply; once
/// when the last apply wrote the words, `fused`) and written once, the
/// active bits; and the edge directions folded (4 bytes each: the
/// unscaled tile estimate).
pub fn grid_work(
    store: &Store,
    reverse: bool,
    windows: u64,
    f: f64,
    state: u64,
    fused: bool,
    tile_factor: f64,
) -> (u64, u64, u64) {
    let m = store.manifest();
    let n = m.num_vertices.max(1);
    let dirs = if reverse || !m.directed { 2 } else { 1 };
    let tiles = (tile_bytes(store) as f64 * dirs as f64 * f) as u64;
    let edges = (m.tiles.edges as f64 * dirs as f64 * f) as u64;
    let passes = if fused { 1 } else { 2 };
    let read = (tiles as f64 * tile_factor) as u64 + windows * n * 8 + passes * n * state + n / 8;
    (read, n * 8 + n * state + n / 8, edges)
}
