//! What a grid superstep may run on, holds and costs: the planner's side
//! of [`super`] (accumulator blocks a budget holds, intervals grouped into
//! windows, bytes read and written).

use super::{BLOCK_BYTES, LEFT_FREE, NBUF, WIN_BLOCKS};
use crate::engine::state::BLOCK;
use crate::engine::tileset::{tile_bytes, TileSet};
use crate::engine::vertex::VertexProgram;
use crate::store::tiles::{CHUNK_BYTES, EDGES_FILE};
use crate::store::Store;
use std::ops::Range;

/// Whether `prog` may run grid supersteps on `store`: messages with an
/// identity that edges pass unchanged (no weights), and a tile layout.
pub fn runs<P: VertexProgram>(store: &Store, prog: &P) -> bool {
    let m = store.manifest();
    P::IDENTITY.is_some()
        && P::COMBINES
        && !prog.weighted()
        && m.tiles.num_tiles > 0
        && m.files.contains_key(EDGES_FILE)
        // Tiles do not merge a delta yet (issue 53, S4): the lists do.
        && store.delta().is_none()
}

/// The size of each tile read, from the engine's chunk size (the
/// [`NBUF`] buffers hold two chunks).
pub(super) fn read_size(chunk: u64) -> u64 {
    (2 * chunk / NBUF as u64).max(4 * CHUNK_BYTES) / CHUNK_BYTES * CHUNK_BYTES
}

/// Blocks of accumulators a grid opened with `free` bytes of the budget
/// holds (what its reads, windows and tile index leave).
pub fn cap(store: &Store, free: u64, chunk: u64) -> u64 {
    let rb = read_size(chunk);
    let fixed =
        NBUF as u64 * rb + (2 * WIN_BLOCKS + 1) as u64 * BLOCK_BYTES + decode_bytes(store, rb);
    let index = TileSet::index_bytes(store, rb);
    free.saturating_sub(fixed + index + LEFT_FREE) / BLOCK_BYTES
}

/// Compressed tiles: the decoded run of one read of `rb` bytes (an edge
/// takes at least a byte coded and 4 decoded).
pub(super) fn decode_bytes(store: &Store, rb: u64) -> u64 {
    match store.manifest().tiles.compressed() {
        true => 4 * rb,
        false => 0,
    }
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
pub fn work(
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

/// Blocks of `lo..hi` counted whole.
pub(super) fn cover(lo: u64, hi: u64) -> usize {
    (hi as usize).div_ceil(BLOCK) - lo as usize / BLOCK
}

/// Consecutive intervals grouped so each group's blocks number at most
/// `cap`; `None` when one interval alone does not fit.
pub fn windows(bounds: &[u64], cap: usize) -> Option<Vec<Range<usize>>> {
    let k = bounds.len() - 1;
    let mut out = Vec::new();
    let mut i0 = 0;
    while i0 < k {
        let mut i1 = i0 + 1;
        if cover(bounds[i0], bounds[i1]) > cap {
            return None;
        }
        while i1 < k && cover(bounds[i0], bounds[i1 + 1]) <= cap {
            i1 += 1;
        }
        out.push(i0..i1);
        i0 = i1;
    }
    Some(out)
}
