//! What a grid superstep may run on and holds (accumulator blocks a budget
//! holds, intervals grouped into windows); what it costs is the planner's
//! ([`crate::engine::planner::grid_work`]).

use super::{BLOCK_BYTES, LEFT_FREE, NBUF, WIN_BLOCKS};
use crate::engine::state::BLOCK;
use crate::engine::tileset::TileSet;
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
