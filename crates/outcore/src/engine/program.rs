//! The programming model of the stream engine (G-Store's edge function over a
//! tile, vertex function per block, activity test), free of engine details so
//! later engines can run the same algorithms.

use super::state::BLOCK;
use crate::store::tiles::TILE_BITS;
use std::sync::atomic::AtomicU64;

/// Which way a stored edge (u, v) of a tile is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// u -> v: reads u's block (the tile's row), writes v's block (its column).
    Forward,
    /// v -> u: reads v's block (column), writes u's block (row). Undirected
    /// stores keep each edge once (upper triangle), so an edge serves both
    /// directions (G-Store's Algorithm 1); algorithms that ignore direction
    /// (WCC) use both on directed stores too.
    Reverse,
}

/// The edges of one tile: each `u32` packs the source's local id in the low
/// 16 bits and the target's in the high 16 bits.
#[derive(Clone, Copy, Debug)]
pub struct Tile<'a> {
    pub row: u32,
    pub col: u32,
    pub edges: &'a [u32],
}

impl Tile<'_> {
    /// First vertex of the source block.
    #[inline]
    pub fn src_base(&self) -> usize {
        (self.row as usize) << TILE_BITS
    }

    /// First vertex of the target block.
    #[inline]
    pub fn dst_base(&self) -> usize {
        (self.col as usize) << TILE_BITS
    }

    /// The block written by applying the tile in `dir`.
    #[inline]
    pub fn written_block(&self, dir: Dir) -> u32 {
        match dir {
            Dir::Forward => self.col,
            Dir::Reverse => self.row,
        }
    }
}

/// Splits a packed edge into (source local id, target local id).
#[inline(always)]
pub fn unpack(e: u32) -> (usize, usize) {
    ((e & 0xFFFF) as usize, (e >> 16) as usize)
}

/// What a program reports at the end of an iteration.
#[derive(Clone, Copy, Debug, Default)]
pub struct IterEnd {
    /// Vertices active in the next iteration.
    pub active_vertices: u64,
    /// True when the run is complete.
    pub done: bool,
}

/// An algorithm for the stream engine.
///
/// The engine calls, per iteration: [`begin`](TileProgram::begin), then
/// [`apply`](TileProgram::apply) for every needed tile and direction — from
/// several threads at once, but never two calls writing the same block at the
/// same time — then [`end`](TileProgram::end).
pub trait TileProgram: Sync {
    /// The directions every stored edge is applied in.
    fn directions(&self) -> &'static [Dir];
    /// Starts iteration `iter` (0-based); returns false to stop before it.
    fn begin(&mut self, iter: usize) -> bool;
    /// Vertices active in this iteration (for statistics).
    fn active_vertices(&self) -> u64;
    /// True when block `b` holds vertices whose edges must be processed in
    /// this iteration (selective fetching: other tile rows are not read).
    fn active(&self, block: u64) -> bool;
    /// Applies a tile's edges in one direction.
    fn apply(&self, tile: &Tile, dir: Dir);
    /// Completes the iteration (the vertex function).
    fn end(&mut self, iter: usize) -> IterEnd;
    /// With what is known so far in this iteration, may tile (row, col) be
    /// needed in the next one? Drives proactive caching; a wrong `true` only
    /// costs cache space, a wrong `false` only costs a re-read.
    fn may_need_next(&self, row: u32, col: u32) -> bool;

    /// Whether the edge function is a commutative, associative reduction
    /// into the written block that can run on a private copy: then the engine
    /// may split a hub block's work over several threads, the owner applying
    /// its share with [`apply`](TileProgram::apply) and the others with
    /// [`apply_private`](TileProgram::apply_private), merged afterwards with
    /// [`merge_private`](TileProgram::merge_private). Default: no.
    fn shares_blocks(&self) -> bool {
        false
    }
    /// Applies a tile like [`apply`](TileProgram::apply), but writes into
    /// `into`, a private copy of the written block whose cells start as zero
    /// bits (the reduction's identity must be zero bits).
    fn apply_private(&self, _tile: &Tile, _dir: Dir, _into: &[AtomicU64; BLOCK]) {
        unreachable!("apply_private called on a program that does not share blocks")
    }
    /// Folds a private copy of `block` into the state. The engine zeroes the
    /// copy afterwards; no other thread writes `block` meanwhile.
    fn merge_private(&self, _block: u32, _from: &[AtomicU64; BLOCK]) {}
}
