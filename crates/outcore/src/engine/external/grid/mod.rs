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
//! 1. **Values**: each vertex's outgoing word (its message's encoding, or
//!    the identity when it sends nothing) is in a words file, with the tile
//!    blocks holding a sender noted (selective fetching: tiles of silent
//!    blocks are never read): written by the last superstep's applies for
//!    programs whose `scatter` reads the state alone ([`Words`]), else by a
//!    pass over the states and active bits.
//! 2. **Fold**: the intervals are grouped into windows whose accumulators
//!    (one word per vertex of the window's whole tile blocks) fit the
//!    memory left. For each window, the tiles that write into it (its
//!    column blocks forward; its row blocks reversed, when messages travel
//!    both ways or the store keeps each undirected edge once) are read in
//!    coalesced direct reads (`fold.rs`: several in flight, every chunk
//!    checked against the store's chunk checksums) and folded into the
//!    accumulators by two threads (`kernel.rs`). Source words stream in
//!    2 MiB windows, prefetched in the order the pieces need them; in band
//!    mode ([`Grid::choose`]) windows of half the blocks hold their own
//!    words too, and a tile inside the window is read once for both ways.
//! 3. **Apply** (`pass.rs`, with the values pass): the window's intervals
//!    are applied in vertex order as the log path applies them; states and
//!    next active bits (and the next words) are written back.
//!
//! Bytes per superstep: the tiles once per direction (once inside band
//! windows), the words written once and read per window, the states read
//! once (twice with a values pass) and written once. The planner
//! (`planner::ExternalWork`) prices this against the log and picks the
//! cheaper, per superstep.

mod fold;
mod kernel;
mod pass;
mod size;

pub use size::{cap, runs, windows};
use size::{cover, decode_bytes, read_size};

use super::disk::{read_exact, Appender};
use crate::engine::state::BLOCK;
use crate::engine::tileset::TileSet;
use crate::engine::vertex::{Aggregate, VertexProgram};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Reader};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::tiles::EDGES_FILE;
use crate::store::Store;
use fold::{Piece, Span};
use std::ops::Range;
use std::time::Instant;

/// Tile blocks per words window.
const WIN_BLOCKS: usize = 4;
/// Most tile blocks per interval when the grid may run (kron-24 at 64 MiB:
/// 24 intervals of 11 blocks made 12 band windows, 64 of 4 make 8).
pub const INTERVAL_BLOCKS: u64 = 4;
/// Tile read buffers (all but one in flight while one is folded).
const NBUF: usize = 4;
/// Memory the fold leaves free (the apply's small buffers, I/O queues).
pub const LEFT_FREE: u64 = 2 << 20;
/// Bytes of one block of accumulators.
pub const BLOCK_BYTES: u64 = (BLOCK * 8) as u64;

/// Where the external engine keeps states and active bits.
pub struct Layout<'a> {
    /// First vertex of each interval, plus n.
    pub bounds: &'a [u64],
    pub state_file: usize,
    pub bits_file: usize,
    pub stride: u64,
    pub bit_stride: u64,
}

/// The words files: two, so the applies of a superstep can write the next
/// superstep's words (programs whose `scatter` reads the state alone,
/// [`VertexProgram::SCATTER_PURE`]) while the fold still reads this one's;
/// the values pass then runs only when no apply wrote them (the first grid
/// superstep, or one after a log superstep).
pub struct Words {
    pub files: [usize; 2],
    /// The file holding the next superstep's words, if written.
    pub ready: Option<usize>,
    /// Blocks with a sender among those words.
    pub sends: Vec<bool>,
}

/// What a grid superstep did.
#[derive(Clone, Copy, Debug, Default)]
pub struct GridCounts {
    /// Windows of target intervals (each a pass over the words).
    pub windows: u64,
    /// Tile bytes read (whole checksum chunks; a tile read for two windows
    /// counts twice).
    pub tile_bytes: u64,
    /// Edge directions folded.
    pub edges: u64,
    /// Windows ran in band mode (own words resident, tiles inside the
    /// window read once for both ways).
    pub band: bool,
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
    read_bytes: u64,
    bufs: Vec<AlignedBuf>,
    win: [AlignedBuf; 2],
    /// Blocks holding a sender this superstep.
    sends: Vec<bool>,
    pieces: Vec<Piece>,
    spans: Vec<Span>,
    /// Words windows the planned pieces read, in order.
    wseq: Vec<usize>,
    /// The kernel's scratch: piece order, and a block of accumulators.
    order: Vec<usize>,
    spare: Vec<u64>,
    _spare: Charge,
    /// Compressed tiles: a run's pieces decoded, and where each lies.
    decoded: Option<(Vec<u32>, Vec<Piece>, Charge)>,
}

impl Grid {
    /// Opens the store's tiles for a program whose messages travel both ways
    /// (`reverse`) or not, with tile reads of `read_bytes` (two buffers) and
    /// `words_file` for the outgoing words; everything charged to `budget`.
    pub fn open(
        store: &Store,
        reader: &mut Reader,
        reverse: bool,
        read_bytes: u64,
        budget: &Budget,
    ) -> Result<Grid> {
        let read_bytes = read_size(read_bytes);
        // A piece and its rounding to whole chunks fit one read, and the
        // pieces of a big tile share no chunk.
        let tiles = TileSet::load_aligned(store, budget, read_bytes)?;
        let m = store.manifest();
        let blocks = (m.num_vertices as usize).div_ceil(BLOCK).max(1);
        let win = WIN_BLOCKS * BLOCK * 8;
        Ok(Grid {
            tiles,
            edges_file: store.open_in(reader, EDGES_FILE, "tiles")?,
            words_file: usize::MAX,
            undirected: !m.directed,
            reverse: reverse || !m.directed,
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
            wseq: Vec::new(),
            order: Vec::new(),
            spare: vec![0; BLOCK],
            _spare: budget.charge(BLOCK_BYTES, "grid shared block")?,
            decoded: match m.tiles.compressed() {
                true => {
                    let bytes = decode_bytes(store, read_bytes);
                    let charge = budget.charge(bytes, "grid tile decoding")?;
                    Some((Vec::with_capacity(bytes as usize / 4), Vec::new(), charge))
                }
                false => None,
            },
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
        words: &mut Words,
        active: &mut [u64],
        blocks: &mut [u64],
        agg: &mut Aggregate,
        budget: &Budget,
    ) -> Result<GridCounts> {
        let id = P::IDENTITY.expect("grid supersteps need an identity");
        let mut counts = GridCounts::default();
        let t0 = Instant::now();
        let src = match words.ready.take() {
            Some(f) => {
                std::mem::swap(&mut self.sends, &mut words.sends);
                f
            }
            None => {
                self.words_file = words.files[0];
                self.values(reader, prog, lay, state_buf, bits_buf, stage, active, id)?;
                0
            }
        };
        self.words_file = words.files[src];
        counts.values_seconds = t0.elapsed().as_secs_f64();
        // The applies write the next superstep's words to the other file.
        let fuse = P::SCATTER_PURE;
        if fuse {
            stage.switch(reader, words.files[1 - src], 0)?;
            words.sends.fill(false);
        }
        let (wins, band) = self.choose(lay.bounds, cap).ok_or_else(|| {
            Error::Budget("the external engine's grid window does not fit; raise --memory".into())
        })?;
        counts.band = band;
        let need = wins
            .iter()
            .map(|w| cover(lay.bounds[w.start], lay.bounds[w.end]))
            .max()
            .unwrap_or(0);
        let _charge = budget.charge((need * BLOCK * 8) as u64, "grid accumulators")?;
        let mut acc = vec![0u64; need * BLOCK];
        let mut own = match band {
            true => Some(AlignedBuf::new(need * BLOCK * 8, budget, "grid own words")?),
            false => None,
        };
        let mut cur = None;
        for w in wins {
            crate::cancel::check()?;
            let (lo, hi) = (lay.bounds[w.start], lay.bounds[w.end]);
            let b0 = lo as usize / BLOCK;
            let b1 = (hi as usize).div_ceil(BLOCK);
            let acc = &mut acc[..(b1 - b0) * BLOCK];
            acc.fill(0);
            let t = Instant::now();
            let own = match own.as_mut() {
                Some(buf) => {
                    let bytes = (b1 - b0) * BLOCK * 8;
                    let buf = &mut buf.as_mut_slice()[..bytes];
                    read_exact(reader, self.words_file, (b0 * BLOCK * 8) as u64, buf, 0)?;
                    Some(&*buf)
                }
                None => None,
            };
            self.fold::<P>(reader, store, b0, b1, acc, own, &mut cur, id, &mut counts)?;
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
                    fuse.then_some((&mut *stage, &mut words.sends[..])),
                )?;
            }
        }
        if fuse {
            stage.finish_run(reader)?;
            stage.drain(reader)?;
            words.ready = Some(1 - src);
        }
        Ok(counts)
    }

    /// The windows of this superstep and whether they run in band mode:
    /// with messages both ways, windows of half the blocks may hold their
    /// own words beside their accumulators, so each tile inside a window is
    /// read once for both ways (on degree-ordered graphs most edges join
    /// vertices of one window: 94% at kron-24 with 5 windows); the mode
    /// reading fewer bytes, counted from the tile index, wins.
    fn choose(&mut self, bounds: &[u64], cap: usize) -> Option<(Vec<Range<usize>>, bool)> {
        let plain = windows(bounds, cap);
        let band = match self.reverse {
            true => windows(bounds, cap / 2),
            false => None,
        };
        let mut cost = |wins: &[Range<usize>], band: bool| -> u64 {
            wins.iter()
                .map(|w| {
                    let b0 = bounds[w.start] as usize / BLOCK;
                    self.plan(b0, (bounds[w.end] as usize).div_ceil(BLOCK), band)
                })
                .sum()
        };
        match (plain, band) {
            (Some(p), Some(b)) => match cost(&b, true) < cost(&p, false) {
                true => Some((b, true)),
                false => Some((p, false)),
            },
            (p, b) => p.map(|p| (p, false)).or(b.map(|b| (b, true))),
        }
    }
}
