//! The external engine's dense superstep for programs with an identity:
//! GridGraph's streaming-apply with dual sliding windows, on G-Store's
//! tiles.
//!
//! When most vertices send, logging every edge's message and sort-reducing
//! the logs (GraFBoost, `log.rs`/`merge.rs`) writes and reads several times
//! the state per superstep. A combining program's messages for a window of
//! target vertices are instead the fold of the tiles that write into it, so
//! with the window's accumulators in memory no log is needed:
//!
//! 1. **Values**: one pass over the states and active bits writes each
//!    vertex's outgoing word (its message's encoding, or the identity when
//!    it sends nothing) to `words.bin`, and notes the tile blocks holding a
//!    sender (selective fetching: tiles of silent blocks are never read).
//! 2. **Fold**: the intervals are grouped into windows whose accumulators
//!    (one word per vertex of the window's whole tile blocks) fit the
//!    memory left. For each window, the tiles that write into it (its
//!    column blocks forward; its row blocks reversed, when messages travel
//!    both ways or the store keeps each undirected edge once) are ordered by
//!    source block and read in coalesced direct reads (`fold.rs`: several
//!    in flight, every chunk checked against the store's chunk checksums);
//!    the source words stream in window by window (one sequential pass over
//!    `words.bin` per window, prefetched) and fold into the accumulators.
//! 3. **Apply** (`pass.rs`, with the values pass): the window's intervals
//!    are applied in vertex order as the log path applies them; states and
//!    next active bits are written back.
//!
//! Bytes per superstep: the tiles once per direction, the words written once
//! and read once per window, the states read twice and written once. The
//! planner (`planner::ExternalWork`) prices this against the log and picks
//! the cheaper, per superstep.

mod fold;
mod pass;

use super::disk::Appender;
use crate::engine::state::BLOCK;
use crate::engine::tileset::TileSet;
use crate::engine::vertex::{Aggregate, VertexProgram};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Reader};
use crate::mem::Budget;
use crate::store::tiles::{CHUNK_BYTES, EDGES_FILE};
use crate::store::Store;
use fold::{Piece, Span};
use std::ops::Range;
use std::time::Instant;

/// Tile blocks per words window.
const WIN_BLOCKS: usize = 4;
/// Tile read buffers (all but one in flight while one is folded).
const NBUF: usize = 4;
/// Memory the fold leaves free (the apply's small buffers, I/O queues).
pub const LEFT_FREE: u64 = 2 << 20;
/// Bytes of one block of accumulators.
pub const BLOCK_BYTES: u64 = (BLOCK * 8) as u64;

/// Where the external engine keeps states and active bits.
pub struct Layout<'a> {
    /// First vertex of each interval, plus n.
    pub bounds: &'a [u32],
    pub state_file: usize,
    pub bits_file: usize,
    pub stride: u64,
    pub bit_stride: u64,
}

/// What a grid superstep did.
#[derive(Clone, Copy, Debug, Default)]
pub struct GridCounts {
    /// Windows of target intervals (each a pass over the words).
    pub windows: u64,
    /// Tile bytes folded (a piece read for two windows counts twice).
    pub tile_bytes: u64,
    /// Edge directions folded.
    pub edges: u64,
    pub values_seconds: f64,
    pub fold_seconds: f64,
}

/// The tile index, the tile read buffers and the words windows.
pub struct Grid {
    tiles: TileSet,
    edges_file: usize,
    words_file: usize,
    undirected: bool,
    reverse: bool,
    blocks: usize,
    read_bytes: u64,
    bufs: Vec<AlignedBuf>,
    win: [AlignedBuf; 2],
    /// Blocks holding a sender this superstep.
    sends: Vec<bool>,
    pieces: Vec<Piece>,
    spans: Vec<Span>,
}

/// Whether `prog` may run grid supersteps on `store`: messages with an
/// identity that edges pass unchanged (no weights), and a tile layout.
pub fn runs<P: VertexProgram>(store: &Store, prog: &P) -> bool {
    let m = store.manifest();
    P::IDENTITY.is_some()
        && P::COMBINES
        && !prog.weighted()
        && m.tiles.num_tiles > 0
        && m.files.contains_key(EDGES_FILE)
}

/// The size of each tile read, from the engine's chunk size (the
/// [`NBUF`] buffers hold two chunks).
fn read_size(chunk: u64) -> u64 {
    (2 * chunk / NBUF as u64).max(4 * CHUNK_BYTES) / CHUNK_BYTES * CHUNK_BYTES
}

/// Blocks of accumulators a grid opened with `free` bytes of the budget
/// holds (what its reads, windows and tile index leave).
pub fn cap(store: &Store, free: u64, chunk: u64) -> u64 {
    let rb = read_size(chunk);
    let fixed = NBUF as u64 * rb + 2 * (WIN_BLOCKS * BLOCK * 8) as u64;
    let index = TileSet::index_bytes(store, rb - 2 * CHUNK_BYTES);
    free.saturating_sub(fixed + index + LEFT_FREE) / BLOCK_BYTES
}

/// Bytes a grid superstep reads and writes with `windows` windows when a
/// share `f` of the tile blocks holds an active vertex: each direction's
/// tiles (those of blocks with a sender), the words written once and read
/// per window, the states read twice (values, apply) and written once, the
/// active bits; and the edge directions folded.
pub fn work(store: &Store, reverse: bool, windows: u64, f: f64, state: u64) -> (u64, u64, u64) {
    let m = store.manifest();
    let n = m.num_vertices.max(1);
    let dirs = if reverse || !m.directed { 2 } else { 1 };
    let tiles = (m.tiles.edges as f64 * 4.0 * dirs as f64 * f) as u64;
    let read = tiles + windows * n * 8 + 2 * n * state + n / 8;
    (read, n * 8 + n * state + n / 8, tiles / 4)
}

/// Blocks of `lo..hi` counted whole.
fn cover(lo: u32, hi: u32) -> usize {
    (hi as usize).div_ceil(BLOCK) - lo as usize / BLOCK
}

/// Consecutive intervals grouped so each group's blocks number at most
/// `cap`; `None` when one interval alone does not fit.
pub fn windows(bounds: &[u32], cap: usize) -> Option<Vec<Range<usize>>> {
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

impl Grid {
    /// Opens the store's tiles for a program whose messages travel both ways
    /// (`reverse`) or not, with tile reads of `read_bytes` (two buffers) and
    /// `words_file` for the outgoing words; everything charged to `budget`.
    pub fn open(
        store: &Store,
        reader: &mut Reader,
        words_file: usize,
        reverse: bool,
        read_bytes: u64,
        budget: &Budget,
    ) -> Result<Grid> {
        let read_bytes = read_size(read_bytes);
        // A piece and its rounding to whole chunks fit one read.
        let tiles = TileSet::load(store, budget, read_bytes - 2 * CHUNK_BYTES)?;
        let m = store.manifest();
        let blocks = (m.num_vertices as usize).div_ceil(BLOCK).max(1);
        let win = WIN_BLOCKS * BLOCK * 8;
        Ok(Grid {
            tiles,
            edges_file: reader.open(&store.file(EDGES_FILE))?,
            words_file,
            undirected: !m.directed,
            reverse: reverse || !m.directed,
            blocks,
            read_bytes,
            bufs: (0..NBUF)
                .map(|_| AlignedBuf::new(read_bytes as usize, budget, "grid tile reads"))
                .collect::<Result<_>>()?,
            win: [
                AlignedBuf::new(win, budget, "grid words window")?,
                AlignedBuf::new(win, budget, "grid words window")?,
            ],
            sends: vec![false; blocks],
            pieces: Vec::new(),
            spans: Vec::new(),
        })
    }

    /// Runs one superstep of `prog` (values, fold, apply) with at most
    /// `cap` blocks of accumulators per window; updates `active` (per
    /// interval) and adds the applies' aggregate to `agg`.
    #[allow(clippy::too_many_arguments)]
    pub fn superstep<P: VertexProgram>(
        &mut self,
        reader: &mut Reader,
        store: &Store,
        prog: &P,
        lay: &Layout,
        cap: usize,
        state_buf: &mut AlignedBuf,
        bits_buf: &mut AlignedBuf,
        stage: &mut Appender,
        active: &mut [u64],
        blocks: &mut [u64],
        agg: &mut Aggregate,
        budget: &Budget,
    ) -> Result<GridCounts> {
        let id = P::IDENTITY.expect("grid supersteps need an identity");
        let mut counts = GridCounts::default();
        let t0 = Instant::now();
        self.values(reader, prog, lay, state_buf, bits_buf, stage, active, id)?;
        counts.values_seconds = t0.elapsed().as_secs_f64();
        let wins = windows(lay.bounds, cap).ok_or_else(|| {
            Error::Budget("the external engine's grid window does not fit; raise --memory".into())
        })?;
        let need = wins
            .iter()
            .map(|w| cover(lay.bounds[w.start], lay.bounds[w.end]))
            .max()
            .unwrap_or(0);
        let _charge = budget.charge((need * BLOCK * 8) as u64, "grid accumulators")?;
        let mut acc = vec![0u64; need * BLOCK];
        let mut cur = None;
        for w in wins {
            crate::cancel::check()?;
            let (lo, hi) = (lay.bounds[w.start], lay.bounds[w.end]);
            let b0 = lo as usize / BLOCK;
            let b1 = (hi as usize).div_ceil(BLOCK);
            let acc = &mut acc[..(b1 - b0) * BLOCK];
            acc.fill(0);
            let t = Instant::now();
            self.fold::<P>(reader, store, b0, b1, acc, &mut cur, id, &mut counts)?;
            counts.fold_seconds += t.elapsed().as_secs_f64();
            counts.windows += 1;
            for i in w {
                let base = lay.bounds[i] as usize - b0 * BLOCK;
                let len = (lay.bounds[i + 1] - lay.bounds[i]) as usize;
                active[i] = pass::apply(
                    reader,
                    prog,
                    lay,
                    i,
                    &acc[base..base + len],
                    state_buf,
                    bits_buf,
                    id,
                    agg,
                    blocks,
                )?;
            }
        }
        Ok(counts)
    }
}
