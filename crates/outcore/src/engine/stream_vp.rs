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
//! Programs whose messages do not combine (CDLP, k-core) and weighted
//! programs run on the external or select engines.

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::BLOCK;
use crate::engine::stats::RunStats;
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::Store;
use rayon::prelude::*;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Per-vertex message accumulators, written only by the thread that holds
/// the vertex's block (the stream engine's one-writer-per-block rule).
struct Cells<M>(Vec<UnsafeCell<Option<M>>>);

// SAFETY: a cell is written only from `apply` of a tile whose written block
// holds it (the engine runs at most one such call per block at a time) and
// read only in `end`, after every apply of the superstep has returned.
unsafe impl<M: Send> Sync for Cells<M> {}

/// A vertex program as a tile program.
struct TileVp<'p, P: VertexProgram> {
    prog: &'p mut P,
    n: usize,
    states: Vec<P::State>,
    /// This superstep's message of each vertex (None: inactive or silent).
    out: Vec<Option<P::Msg>>,
    acc: Cells<P::Msg>,
    /// Next superstep's active vertices.
    active: Vec<bool>,
    /// Blocks with a sending vertex this superstep.
    sending: Vec<bool>,
    /// Blocks that received a message this superstep.
    received: Vec<AtomicBool>,
    senders: u64,
    agg: Aggregate,
    dirs: &'static [Dir],
    /// Undirected stores keep an edge once: a self-loop serves one message.
    skip_reverse_loops: bool,
}

impl<P: VertexProgram> TileVp<'_, P> {
    #[inline]
    fn deliver(&self, s: usize, d: usize) {
        let Some(m) = self.out[s] else { return };
        if let Some(msg) = self.prog.edge(m, s as u32, d as u32, 1.0) {
            // SAFETY: `d` lies in the block this call writes (Cells).
            let cell = unsafe { &mut *self.acc.0[d].get() };
            *cell = Some(match *cell {
                Some(x) => P::combine(x, msg),
                None => msg,
            });
        }
    }
}

impl<P: VertexProgram> TileProgram for TileVp<'_, P> {
    fn directions(&self) -> &'static [Dir] {
        self.dirs
    }

    fn begin(&mut self, iter: usize) -> bool {
        if !self.prog.begin(iter, &self.agg) {
            return false;
        }
        let prog = &*self.prog;
        let (states, active) = (&self.states, &self.active);
        self.out
            .par_iter_mut()
            .with_min_len(1 << 14)
            .enumerate()
            .for_each(|(v, o)| {
                *o = if active[v] {
                    prog.scatter(v as u32, &states[v])
                } else {
                    None
                }
            });
        self.senders = 0;
        for (b, s) in self.sending.iter_mut().enumerate() {
            let lo = b * BLOCK;
            let k = self.out[lo..(lo + BLOCK).min(self.n)]
                .iter()
                .filter(|m| m.is_some())
                .count() as u64;
            *s = k > 0;
            self.senders += k;
        }
        for r in &self.received {
            r.store(false, Relaxed);
        }
        true
    }

    fn active_vertices(&self) -> u64 {
        self.senders
    }

    fn active(&self, block: u64) -> bool {
        self.sending[block as usize]
    }

    fn apply(&self, tile: &Tile, dir: Dir) {
        let (sb, db) = match dir {
            Dir::Forward => (tile.src_base(), tile.dst_base()),
            Dir::Reverse => (tile.dst_base(), tile.src_base()),
        };
        let reverse = dir == Dir::Reverse;
        if !self.sending[sb / BLOCK] {
            return;
        }
        for &e in tile.edges {
            let (a, b) = unpack(e);
            let (s, d) = if reverse {
                (sb + b, db + a)
            } else {
                (sb + a, db + b)
            };
            if reverse && self.skip_reverse_loops && s == d {
                continue;
            }
            self.deliver(s, d);
        }
        self.received[db / BLOCK].store(true, Relaxed);
    }

    fn end(&mut self, iter: usize) -> IterEnd {
        let prog = &*self.prog;
        let acc = &self.acc;
        let chunk = 1 << 14;
        let (count, agg) = self
            .states
            .par_chunks_mut(chunk)
            .zip(self.active.par_chunks_mut(chunk))
            .enumerate()
            .map(|(c, (states, active))| {
                let (mut count, mut agg) = (0u64, Aggregate::default());
                for (i, (s, a)) in states.iter_mut().zip(active.iter_mut()).enumerate() {
                    let v = c * chunk + i;
                    // SAFETY: every apply of the superstep has returned.
                    let m = unsafe { (*acc.0[v].get()).take() };
                    *a = match m {
                        Some(m) => prog.apply(v as u32, s, &[m], &mut agg),
                        None if P::APPLY_ALL => prog.apply(v as u32, s, &[], &mut agg),
                        None => false,
                    };
                    count += *a as u64;
                }
                (count, agg)
            })
            .reduce(
                || (0, Aggregate::default()),
                |(c1, mut a1), (c2, a2)| {
                    a1.merge(&a2);
                    (c1 + c2, a1)
                },
            );
        self.agg = agg;
        let done = self.prog.end(iter, &self.agg, count);
        IterEnd {
            active_vertices: count,
            done: done || count == 0 && !P::APPLY_ALL,
        }
    }

    fn may_need_next(&self, row: u32, _col: u32) -> bool {
        P::APPLY_ALL || self.received[row as usize].load(Relaxed)
    }
}

/// In-memory bytes per vertex of `P` on the stream engine.
pub fn state_bytes<P: VertexProgram>(n: u64) -> u64 {
    let per = std::mem::size_of::<P::State>() + 2 * std::mem::size_of::<Option<P::Msg>>() + 1 + 1;
    n * per as u64
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
    if !P::COMBINES || prog.weighted() {
        return Err(Error::Invalid(format!(
            "{} does not run on the stream engine (its messages do not combine or need weights); use --engine external",
            prog.name()
        )));
    }
    let m = store.manifest();
    let n = m.num_vertices;
    let state = state_bytes::<P>(n);
    let need = required_bytes(store, state);
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "{} on {n} vertices needs at least {} on the stream engine; raise --memory or use --engine external",
            prog.name(),
            crate::size::format_size(need)
        )));
    }
    let _charge = budget.charge(state, "vertex program state")?;
    let n = n as usize;
    let mut agg = Aggregate::default();
    let mut states = Vec::with_capacity(n);
    let mut active = Vec::with_capacity(n);
    {
        let mut degs = crate::store::degrees::DegreeStream::open(store.path(), "out")?;
        let mut ranks = store.rank_reader()?;
        for v in 0..n as u32 {
            let info = VertexInfo {
                v,
                rank: ranks.next_rank()?,
                out_degree: degs.next_degree()?,
            };
            let (s, a) = prog.init(&info, &mut agg);
            states.push(s);
            active.push(a);
        }
    }
    let blocks = n.div_ceil(BLOCK).max(1);
    let both = !m.directed || prog.edges() == Edges::Both;
    let mut tp = TileVp {
        n,
        states,
        out: vec![None; n],
        acc: Cells((0..n).map(|_| UnsafeCell::new(None)).collect()),
        active,
        sending: vec![false; blocks],
        received: (0..blocks).map(|_| AtomicBool::new(false)).collect(),
        senders: 0,
        agg,
        dirs: if both {
            &[Dir::Forward, Dir::Reverse]
        } else {
            &[Dir::Forward]
        },
        skip_reverse_loops: !m.directed,
        prog,
    };
    let mut cfg = cfg;
    cfg.label = tp.prog.name().to_string();
    let mut eng = StreamEngine::new(store, budget, cfg)?;
    let mut stats = eng.run(&mut tp, max_steps)?;
    stats.vertex_state_bytes = state;
    Ok((tp.states, stats))
}
