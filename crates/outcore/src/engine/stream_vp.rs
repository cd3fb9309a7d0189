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
//! shared with the select engine. Programs whose messages do not combine
//! (CDLP, k-core) and weighted programs run on the external or select
//! engines.

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::BLOCK;
use crate::engine::stats::RunStats;
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::engine::superstep::{state_bytes, MemState};
use crate::engine::vertex::{Edges, VertexProgram};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::Store;

/// A vertex program and its in-memory state as a tile program.
pub(crate) struct TileVp<'a, P: VertexProgram> {
    pub st: &'a mut MemState<P>,
    pub prog: &'a mut P,
    dirs: &'static [Dir],
    /// Undirected stores keep an edge once: its reverse direction is the
    /// same edge (a self-loop serves one message); on a directed store the
    /// reverse direction runs along in-lists.
    undirected: bool,
}

impl<'a, P: VertexProgram> TileVp<'a, P> {
    pub(crate) fn new(store: &Store, st: &'a mut MemState<P>, prog: &'a mut P) -> Self {
        let directed = store.manifest().directed;
        let both = !directed || prog.edges() == Edges::Both;
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

impl<P: VertexProgram> TileProgram for TileVp<'_, P> {
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
            unsafe { self.st.deliver(prog, s, d, 1.0, rev) };
        }
        self.st.mark_received(db / BLOCK);
    }

    fn end(&mut self, iter: usize) -> IterEnd {
        self.st.end(self.prog, iter)
    }

    fn may_need_next(&self, row: u32, _col: u32) -> bool {
        self.prog.apply_all() || self.st.block_received(row as usize)
    }
}

/// Whether the stream engine can run `prog` (combining, unweighted).
pub fn supports<P: VertexProgram>(prog: &P) -> bool {
    P::COMBINES && !prog.weighted()
}

/// Runs `prog` for at most `max_steps` supersteps on the stream engine;
/// returns the final states by dense id.
pub fn run<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    cfg: StreamConfig,
    budget: &Budget,
) -> Result<(Vec<P::State>, RunStats)> {
    if !supports(prog) {
        return Err(Error::Invalid(format!(
            "{} does not run on the stream engine (its messages do not combine or need weights); use --engine external",
            prog.name()
        )));
    }
    let n = store.manifest().num_vertices;
    let state = state_bytes::<P>(n);
    let need = required_bytes(store, state);
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "{} on {n} vertices needs at least {} on the stream engine; raise --memory or use --engine external",
            prog.name(),
            crate::size::format_size(need)
        )));
    }
    let mut st = MemState::new(store, prog, budget)?;
    let mut cfg = cfg;
    cfg.label = prog.name().to_string();
    let mut eng = StreamEngine::new(store, budget, cfg)?;
    let mut stats = eng.run(&mut TileVp::new(store, &mut st, prog), max_steps)?;
    stats.vertex_state_bytes = state;
    Ok((std::mem::take(&mut st.states), stats))
}
