//! The stream engine's settings and how it cuts the budget: vertex state
//! and the tile index first, then a ring of read segments (a quarter of
//! what is left, 2-4 segments) and the cache pool (the rest).

use super::super::tileset::{tile_bytes, TileMeta, PIECE_BYTES};
use crate::io::Backend;
use crate::store::tilecode;
use crate::store::tiles::CHUNK_BYTES;
use crate::store::Store;

/// Stream engine settings.
#[derive(Clone, Debug)]
pub struct StreamConfig {
    /// I/O backend (`None`: io_uring when available, else the portable one).
    pub io: Option<Backend>,
    /// Segment size (default: the ring's share of what the budget leaves,
    /// see [`StreamConfig::segments`]; at least the largest tile).
    pub segment_bytes: Option<u64>,
    /// Segments in the ring, at least 2: one is processed while the others
    /// are read (default: up to 4, so that the ring takes about a quarter of
    /// what the budget leaves, 8–128 MiB, in segments of at least 16 MiB).
    pub segments: Option<usize>,
    /// Requests in flight (at least; the engine raises it so that every
    /// segment of the ring can be read at once).
    pub depth: usize,
    /// Bytes per read request.
    pub request_bytes: u64,
    /// Cache pool size (default: the rest of the budget).
    pub cache_bytes: Option<u64>,
    /// Name of the algorithm, for progress and statistics.
    pub label: String,
    /// Largest piece of a tile handled at once (default
    /// [`PIECE_BYTES`]; smaller values exercise the splitting in tests).
    pub piece_bytes: Option<u64>,
    /// Least work (edges) of one block in a batch for it to be shared over
    /// threads (default [`SHARE_MIN_EDGES`]; 0 in tests to share small
    /// graphs' blocks).
    pub share_min_edges: Option<u64>,
}

/// Default [`StreamConfig::share_min_edges`]: below a million edges a block's
/// work is too short for splitting to pay, and small graphs keep one writer
/// per block (and so the summation order of the Graphalytics reference).
pub const SHARE_MIN_EDGES: u64 = 1 << 20;

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig {
            io: None,
            segment_bytes: None,
            segments: None,
            depth: 32,
            request_bytes: 1 << 20,
            cache_bytes: None,
            label: String::new(),
            piece_bytes: None,
            share_min_edges: None,
        }
    }
}

/// Budget the engine leaves free for small allocations (iteration lists,
/// statistics, the program's per-block flags).
pub(super) const SLACK: u64 = 8 << 20;
/// The ring takes a quarter of what the budget leaves, within these bounds
/// (the total of the former two segments of 4–64 MiB).
pub(super) const MIN_RING: u64 = 8 << 20;
pub(super) const MAX_RING: u64 = 128 << 20;
/// A default segment is at least this large unless the ring has only two: a
/// small ring has fewer segments (a load is processed as one batch, and
/// larger batches keep more of the work on one column together).
pub(super) const MIN_SEGMENT: u64 = 16 << 20;
/// Segments in the ring by default (at most).
pub(super) const DEFAULT_SEGMENTS: usize = 4;

/// The smallest budget that runs a program needing `state_bytes` of vertex
/// state on `store`: the state, the tile index and two minimal segments.
pub fn required_bytes(store: &Store, state_bytes: u64) -> u64 {
    let m = store.manifest();
    let bytes = tile_bytes(store);
    let pieces = bytes / PIECE_BYTES;
    let index = (m.tiles.index_entries() + 1) * 40
        + pieces * std::mem::size_of::<TileMeta>() as u64
        + bytes / CHUNK_BYTES * 8
        + 4096;
    let seg = min_segment((m.tiles.max_tile_edges * 4).min(PIECE_BYTES));
    let decode = match m.tiles.compressed() {
        true => decode_bytes(rayon::current_num_threads()),
        false => 0,
    };
    // The delta's tiles (4 bytes a piece for their tombstone runs).
    let delta = match store.delta() {
        Some(_) => crate::store::delta::tiles::load_bytes(store) + 4 * pieces,
        None => 0,
    };
    state_bytes + index + 2 * seg + decode + delta + SLACK
}

/// Frame decoding scratch of compressed tiles for `threads` threads.
pub(super) fn decode_bytes(threads: usize) -> u64 {
    threads as u64 * tilecode::SCRATCH_WORDS * 4
}

pub(super) fn min_segment(max_tile_bytes: u64) -> u64 {
    // A tile may start anywhere in a chunk: room for it plus two chunk edges.
    (max_tile_bytes + 2 * CHUNK_BYTES).next_multiple_of(CHUNK_BYTES)
}
