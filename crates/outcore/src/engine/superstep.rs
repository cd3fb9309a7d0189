//! One superstep of a vertex program with its state in memory, whichever
//! engine reads the edges (Ligra's edgeMap over a frontier): `begin` asks
//! each active vertex for its message (the frontier is the set of vertices
//! with one), the engine calls `deliver` for every edge of a sending vertex
//! (stream: over tiles, select: over the CSR pages of the frontier's
//! lists), `end` applies the combined messages and names the next
//! frontier. The state survives between supersteps, so each superstep may
//! run on a different engine (the planner's choice).

use crate::engine::program::IterEnd;
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Aggregate, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::Store;
use rayon::prelude::*;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Per-vertex message accumulators. A cell is written only by one thread
/// at a time: the stream engine never applies two tiles writing one block
/// at once, the select engine delivers from one thread.
struct Cells<M>(Vec<UnsafeCell<Option<M>>>);

// SAFETY: see `Cells`: writes to a cell never overlap (the engines' rules
// above), and reads happen in `end`, after every delivery of the superstep.
unsafe impl<M: Send> Sync for Cells<M> {}

/// The in-memory state of a vertex program between supersteps.
pub struct MemState<P: VertexProgram> {
    pub n: usize,
    pub states: Vec<P::State>,
    /// This superstep's message of each vertex (None: inactive or silent).
    out: Vec<Option<P::Msg>>,
    acc: Cells<P::Msg>,
    /// Next superstep's active vertices.
    active: Vec<bool>,
    /// Blocks (of the stream engine's tiles) with a sending vertex.
    sending: Vec<bool>,
    /// Blocks that received a message this superstep.
    received: Vec<AtomicBool>,
    /// Vertices sending this superstep.
    pub senders: u64,
    pub agg: Aggregate,
    _charge: Charge,
}

/// In-memory bytes per vertex of `P`.
pub fn state_bytes<P: VertexProgram>(n: u64) -> u64 {
    let per = std::mem::size_of::<P::State>() + 2 * std::mem::size_of::<Option<P::Msg>>() + 2;
    n * per as u64
}

impl<P: VertexProgram> MemState<P> {
    /// Initial states from the degrees and ranks (charged to `budget`).
    pub fn new(store: &Store, prog: &P, budget: &Budget) -> Result<MemState<P>> {
        let n = store.manifest().num_vertices;
        let charge = budget.charge(state_bytes::<P>(n), "vertex program state")?;
        let n = n as usize;
        let mut agg = Aggregate::default();
        let mut states = Vec::with_capacity(n);
        let mut active = Vec::with_capacity(n);
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
        let blocks = n.div_ceil(BLOCK).max(1);
        Ok(MemState {
            n,
            states,
            out: vec![None; n],
            acc: Cells((0..n).map(|_| UnsafeCell::new(None)).collect()),
            active,
            sending: vec![false; blocks],
            received: (0..blocks).map(|_| AtomicBool::new(false)).collect(),
            senders: 0,
            agg,
            _charge: charge,
        })
    }

    /// Starts superstep `step`: false when the program stops before it.
    pub fn begin(&mut self, prog: &mut P, step: usize) -> bool {
        if !prog.begin(step, &self.agg) {
            return false;
        }
        let prog = &*prog;
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

    /// True when vertex `v` sends this superstep.
    #[inline]
    pub fn sends(&self, v: usize) -> bool {
        self.out[v].is_some()
    }

    /// True when block `b` holds a sending vertex.
    #[inline]
    pub fn block_sends(&self, b: usize) -> bool {
        self.sending[b]
    }

    /// True when block `b` received a message this superstep.
    #[inline]
    pub fn block_received(&self, b: usize) -> bool {
        self.received[b].load(Relaxed)
    }

    /// The sending vertices, in order.
    pub fn senders(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.n as u32).filter(|&v| self.out[v as usize].is_some())
    }

    /// Calls `f` with the sending vertices in order, at most `chunk` at a
    /// time (memory stays O(chunk), whatever the frontier's size).
    pub fn for_each_sender_chunk(
        &self,
        chunk: usize,
        mut f: impl FnMut(&[u32]) -> Result<()>,
    ) -> Result<()> {
        let mut buf = Vec::with_capacity(chunk.min(self.senders as usize));
        for v in self.senders() {
            buf.push(v);
            if buf.len() == chunk {
                f(&buf)?;
                buf.clear();
            }
        }
        if buf.is_empty() {
            Ok(())
        } else {
            f(&buf)
        }
    }

    /// Delivers the message of `s` along the edge `s -> d` of weight `w`
    /// (`rev`: an in-list edge, the arc `d -> s`; see
    /// [`VertexProgram::edge_rev`]).
    ///
    /// # Safety
    /// No other thread may deliver to `d` at the same time (the stream
    /// engine's one writer per block; the select engine's single thread).
    #[inline]
    pub unsafe fn deliver(&self, prog: &P, s: usize, d: usize, w: f64, rev: bool) {
        let Some(m) = self.out[s] else { return };
        let msg = match rev {
            false => prog.edge(m, s as u32, d as u32, w),
            true => prog.edge_rev(m, s as u32, d as u32, w),
        };
        if let Some(msg) = msg {
            // SAFETY: the caller guarantees exclusive access to `d`'s cell.
            let cell = unsafe { &mut *self.acc.0[d].get() };
            *cell = Some(match *cell {
                Some(x) => P::combine(x, msg),
                None => msg,
            });
        }
    }

    /// Marks block `b` as having received messages.
    #[inline]
    pub fn mark_received(&self, b: usize) {
        self.received[b].store(true, Relaxed);
    }

    /// Applies the superstep's messages; names the next frontier.
    pub fn end(&mut self, prog: &mut P, step: usize) -> IterEnd {
        let p = &*prog;
        let apply_all = p.apply_all();
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
                    // SAFETY: every delivery of the superstep has returned.
                    let m = unsafe { (*acc.0[v].get()).take() };
                    *a = match m {
                        Some(m) => p.apply(v as u32, s, &[m], &mut agg),
                        None if apply_all => p.apply(v as u32, s, &[], &mut agg),
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
        let done = prog.end(step, &self.agg, count);
        IterEnd {
            active_vertices: count,
            done: done || count == 0 && !prog.apply_all(),
        }
    }
}
