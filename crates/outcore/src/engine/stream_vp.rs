//! Vertex programs on the stream engine: the [`VertexProgram`] the external
//! engine runs, executed over G-Store's 16-bit tiles with the state in
//! memory (a [`TileProgram`] adapter, so tile selection, caching and the
//! slide-cache-rewind order are the stream engine's own).
//!
//! A superstep: `begin` asks every active vertex for its message (one
//! `scatter` per vertex, not per edge); each tile applies `edge` and
//! `combine` into a per-vertex accumulator of the block it writes (the
//! engine never lets two threads write one block at once); `end` applies
//! the accumulated messages in parallel and collects the next frontier and
//! the aggregates. Selective fetching: a tile row is read only when its
//! block holds a vertex with a message. Proactive caching: a tile may be
//! needed next when its source block received a message this superstep.
//!
//! The state and the superstep's three steps are `superstep::MemState`'s,
//! shared with the select engine; the loop is the runner's
//! ([`crate::engine::run`], `EngineChoice::Stream` for this engine alone). Programs whose messages do not combine
//! (CDLP, MIS, colouring) deliver into the state's grouped arena through
//! the general path; weighted programs run on the external or select
//! engines.

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::BLOCK;
use crate::engine::superstep::MemState;
use crate::engine::vertex::VertexProgram;
use crate::engine::words::{lower, Word, Words};
use crate::store::Store;
use std::sync::atomic::AtomicU64;

/// A vertex program and its in-memory state as a tile program.
pub(crate) struct TileVp<'a, P: VertexProgram, W: Word> {
    pub st: &'a mut MemState<P, W>,
    pub prog: &'a mut P,
    dirs: &'static [Dir],
    /// Undirected stores keep an edge once: its reverse direction is the
    /// same edge (a self-loop serves one message); on a directed store the
    /// reverse direction runs along in-lists.
    undirected: bool,
}

impl<'a, P: VertexProgram, W: Word> TileVp<'a, P, W> {
    pub(crate) fn new(store: &Store, st: &'a mut MemState<P, W>, prog: &'a mut P) -> Self {
        let directed = store.manifest().directed;
        let both = !directed || prog.edges().both();
        TileVp {
            st,
            dirs: if both {
                &[Dir::Forward, Dir::Reverse]
            } else {
                &[Dir::Forward]
            },
            undirected: !directed,
            prog,
        }
    }
}

impl<P: VertexProgram, W: Word> TileProgram for TileVp<'_, P, W> {
    fn directions(&self) -> &'static [Dir] {
        self.dirs
    }

    fn begin(&mut self, iter: usize) -> bool {
        self.st.begin(self.prog, iter)
    }

    fn active_vertices(&self) -> u64 {
        self.st.senders
    }

    fn active(&self, block: u64) -> bool {
        self.st.block_sends(block as usize)
    }

    fn apply(&self, tile: &Tile, dir: Dir) {
        if let Some(w) = &self.st.words {
            let to = w.acc_block(tile.written_block(dir) as usize * BLOCK);
            return self.dense(w, tile, dir, to, false);
        }
        let (sb, db) = match dir {
            Dir::Forward => (tile.src_base(), tile.dst_base()),
            Dir::Reverse => (tile.dst_base(), tile.src_base()),
        };
        let reverse = dir == Dir::Reverse;
        let rev = reverse && !self.undirected;
        if !self.st.block_sends(sb / BLOCK) {
            return;
        }
        let prog = &*self.prog;
        let mut changed = false;
        for &e in tile.edges {
            let (a, b) = unpack(e);
            let (s, d) = if reverse {
                (sb + b, db + a)
            } else {
                (sb + a, db + b)
            };
            if reverse && self.undirected && s == d {
                continue;
            }
            // SAFETY: `d` lies in the block this call writes; the stream
            // engine runs one such call per block at a time.
            changed |= unsafe { self.st.deliver(prog, s, d, 1.0, rev) };
        }
        if changed {
            self.st.mark_received(db / BLOCK);
        }
    }

    fn end(&mut self, iter: usize) -> IterEnd {
        self.st.end(self.prog, iter)
    }

    /// The kernels' test: a tile's source block sends next superstep when
    /// a message changed one of its cells (forward: the row; backward, on
    /// an undirected store or for `Edges::Both`: the column).
    fn may_need_next(&self, row: u32, col: u32) -> bool {
        self.prog.apply_all()
            || self.st.block_received(row as usize)
            || self.dirs.len() == 2 && self.st.block_received(col as usize)
    }

    fn shares_blocks(&self) -> bool {
        // An in-place program writes the receivers' states, which a
        // private copy cannot.
        self.st.words.is_some() && !P::IN_PLACE
    }

    fn apply_private(&self, tile: &Tile, dir: Dir, into: &[AtomicU64; BLOCK]) {
        let w = self
            .st
            .words
            .as_ref()
            .expect("only word programs share blocks");
        self.dense(w, tile, dir, W::block_of(into), true)
    }

    fn merge_private(&self, block: u32, from: &[AtomicU64; BLOCK]) {
        let w = self
            .st
            .words
            .as_ref()
            .expect("only word programs share blocks");
        let to = w.acc_block(block as usize * BLOCK);
        let mut changed = false;
        for (t, f) in to.iter().zip(W::block_of(from)) {
            match W::load(f) {
                z if z == W::default() => {}
                c => changed |= Words::fold::<P>(t, c ^ w.id),
            }
        }
        if changed {
            self.st.mark_received(block as usize);
        }
    }
}

impl<P: VertexProgram, W: Word> TileVp<'_, P, W> {
    /// The dense fast path (programs with an identity): every edge of the
    /// tile folds its source's word into `to` (the written block's
    /// accumulators or a private copy of them), with no test per edge: a
    /// silent source's word is the identity, which changes nothing. Marks
    /// the written block received when a cell changed, unless `to` is a
    /// private copy (the merge marks it then).
    #[inline]
    fn dense(&self, w: &Words<W>, tile: &Tile, dir: Dir, to: &[W::Cell; BLOCK], private: bool) {
        let (sb, db) = (tile.src_base(), tile.dst_base());
        let (from, dst) = match dir {
            Dir::Forward => (sb, db),
            Dir::Reverse => (db, sb),
        };
        if !self.st.block_sends(from / BLOCK) {
            return;
        }
        // Undirected: a self-loop is one edge, served forward.
        let loops = dir == Dir::Reverse && self.undirected && tile.row == tile.col;
        if P::IN_PLACE {
            let (p, st, fw) = (&*self.prog, &*self.st, w.out_block(from));
            let (f, t) = (from, dst);
            let e = tile.edges;
            match (dir, loops) {
                (Dir::Forward, _) => in_place::<P, W, false, false>(p, st, f, fw, t, to, e),
                (Dir::Reverse, true) => in_place::<P, W, true, true>(p, st, f, fw, t, to, e),
                (Dir::Reverse, false) => in_place::<P, W, true, false>(p, st, f, fw, t, to, e),
            }
            return;
        }
        let from = w.out_block(from);
        let changed = match (dir, loops) {
            (Dir::Forward, _) => fold_tile::<P, W, false, false>(from, to, tile.edges),
            (Dir::Reverse, true) => fold_tile::<P, W, true, true>(from, to, tile.edges),
            (Dir::Reverse, false) => fold_tile::<P, W, true, false>(from, to, tile.edges),
        };
        if changed && !private {
            self.st.mark_received(tile.written_block(dir) as usize);
        }
    }
}

/// Folds `from[u]` into `to[v]` for every packed edge (u, v), or (v, u)
/// when `FLIP`; `SKIP_LOOPS` drops u == v. Both sides are whole blocks, so
/// there are no bounds checks. Returns whether a cell changed (always true
/// for `APPLY_ALL` programs, which every tile serves anyway).
#[inline(always)]
fn fold_tile<P: VertexProgram, W: Word, const FLIP: bool, const SKIP_LOOPS: bool>(
    from: &[W::Cell; BLOCK],
    to: &[W::Cell; BLOCK],
    edges: &[u32],
) -> bool {
    let mut changed = P::APPLY_ALL;
    for &e in edges {
        let (s, d) = unpack(e);
        if SKIP_LOOPS && s == d {
            continue;
        }
        let (f, t) = if FLIP { (d, s) } else { (s, d) };
        let c = Words::fold::<P>(&to[t], W::load(&from[f]));
        if !P::APPLY_ALL {
            changed |= c;
        }
    }
    changed
}
/// The in-place form of [`fold_tile`] (G-Store's kernel): for every edge,
/// the source's state (block at `fb`) through `scatter`, combined into the
/// receiver's state (block at `tb`: `to`); a change marks the receiver for
/// the next frontier (and its block received), so tiles applied later in
/// the superstep carry the new value on.
#[inline(always)]
fn in_place<P: VertexProgram, W: Word, const FLIP: bool, const SKIP_LOOPS: bool>(
    prog: &P,
    st: &MemState<P, W>,
    fb: usize,
    from: &[W::Cell; BLOCK],
    tb: usize,
    to: &[W::Cell; BLOCK],
    edges: &[u32],
) {
    for &e in edges {
        let (s, d) = unpack(e);
        if SKIP_LOOPS && s == d {
            continue;
        }
        let (f, t) = if FLIP { (d, s) } else { (s, d) };
        let x: P::State = W::load(&from[f]).get();
        if let Some(m) = prog.scatter((fb + f) as u64, &x) {
            if lower::<P, W>(&to[t], W::msg(m)) {
                st.mark_changed(tb + t);
            }
        }
    }
}
