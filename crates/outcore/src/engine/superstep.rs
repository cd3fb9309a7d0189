//! One superstep of a vertex program with its state in memory, whichever
//! engine reads the edges (Ligra's edgeMap over a frontier): `begin` asks
//! each active vertex for its message (the frontier is the set of vertices
//! with one), the engine calls `deliver` for every edge of a sending vertex
//! (stream: over tiles, select: over the CSR pages of the frontier's
//! lists), `end` applies the combined messages and names the next
//! frontier. The state survives between supersteps, so each superstep may
//! run on a different engine (the planner's choice).
//!
//! Messages live in one of three forms. The general one keeps an
//! `Option<Msg>` per vertex. Programs whose messages do not combine
//! (`COMBINES = false`) get them grouped by receiver in an arena
//! (`grouped`: every message of the superstep, as the external engine
//! delivers them). Programs that declare
//! [`VertexProgram::IDENTITY`] (messages of at most 8 bytes whose combine
//! has an identity: PageRank's sum, BFS's and WCC's min) keep them as words
//! sized to the message ([`Words`]: 4 bytes for BFS's depths and narrow WCC
//! labels, 8 for PageRank's f64): no `Option`, and the stream engine's
//! dense tile loop ([`crate::engine::stream_vp`]) runs on them without a
//! branch per edge and may split a hub block's work over threads. The next
//! frontier is a bitset, and so are the blocks that send and the blocks
//! where a message changed a cell (the stream engine's caching hint).

mod accumulate;
mod apply;
mod exchange;
mod grouped;
mod in_place;
pub(crate) mod init;
mod new;
mod senders;
mod snapshot;

pub use exchange::Local;
pub use grouped::arena_bytes;
pub use new::state_bytes;

use crate::engine::bits::{AtomicBits, Bits};
use crate::engine::frontier::{Collect, Frontier, Part};
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Aggregate, VertexProgram};
use crate::engine::words::{Word, Words};
use crate::mem::budget::Charge;
use crate::store::degrees::Degrees;
use rayon::prelude::*;
use std::cell::UnsafeCell;

/// Per-vertex message accumulators. A cell is written only by one thread
/// at a time: the stream engine never applies two tiles writing one block
/// at once, the select engine delivers from one thread.
struct Cells<M>(Vec<UnsafeCell<Option<M>>>);

// SAFETY: see `Cells`: writes to a cell never overlap (the engines' rules
// above), and reads happen in `end`, after every delivery of the superstep.
unsafe impl<M: Send> Sync for Cells<M> {}

/// Vertices of one chunk of a pass over the state: whole words of the
/// bitsets, and a block holds whole chunks.
const CHUNK: usize = 1 << 14;
const _: () = assert!(BLOCK.is_multiple_of(CHUNK));

/// The in-memory state of a vertex program between supersteps.
pub struct MemState<P: VertexProgram, W: Word> {
    pub n: usize,
    /// The states of the vertices of `held` (`states[v - held.start]`).
    states: Vec<P::State>,
    /// The vertices that hold a state (general and grouped forms): every
    /// vertex on one store; on a shard the owned ones, from the chunk
    /// holding the first (so chunks of states, active bits and message
    /// cells stay aligned). A ghost is never applied, so it holds only
    /// its message cell and its active bit (PowerGraph's ghosts cache a
    /// vertex's data; ours need none of it).
    held: std::ops::Range<usize>,
    /// This superstep's message of each vertex (None: inactive or silent);
    /// empty when `words` holds them.
    out: Vec<Option<P::Msg>>,
    acc: Cells<P::Msg>,
    /// The messages as words, for programs with an identity.
    pub words: Option<Words<W>>,
    /// A grouped program's messages (`COMBINES = false`; `acc` is empty).
    grouped: Option<grouped::Arena<P::Msg>>,
    /// Next superstep's active vertices.
    active: Bits,
    /// Blocks (of the stream engine's tiles) with a sending vertex.
    sending: Bits,
    /// Blocks where a message changed a cell this superstep (so the block
    /// may send in the next one).
    received: AtomicBits,
    /// Vertices sending this superstep.
    pub senders: u64,
    /// This superstep's senders: a list while few.
    frontier: Frontier,
    /// True when `end` computed the next superstep's messages.
    ready: bool,
    /// Passes over every vertex so far (`begin`'s and `end`'s).
    pub passes: u64,
    /// In place ([`VertexProgram::IN_PLACE`]): the vertices whose state
    /// changed this superstep (the next frontier); else empty.
    changed: AtomicBits,
    /// Accumulating ([`accumulates`](crate::engine::vertex::accumulates)): the out-degrees `apply_accumulated`
    /// sees; else none.
    deg: Option<Degrees>,
    pub agg: Aggregate,
    /// The vertices applied and sending: all but a shard's ghosts
    /// ([`Local`]).
    owned: std::ops::Range<usize>,
    /// Ghost mirrors on a shard ([`Local::mirrors`]): deliveries
    /// to ghosts are dropped (their owners deliver along their own copies
    /// of the edges).
    mirrors: bool,
    _charge: Charge,
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// Starts superstep `step`: false when the program stops before it.
    /// O(blocks) when the last `end` computed the messages (a
    /// [`VertexProgram::SCATTER_PURE`] program); else one pass asks every
    /// active vertex for its message.
    pub fn begin(&mut self, prog: &mut P, step: usize) -> bool {
        if !prog.begin(step, &self.agg) {
            return false;
        }
        if P::IN_PLACE {
            self.begin_in_place();
            return true;
        }
        self.received.clear();
        if std::mem::take(&mut self.ready) {
            return true;
        }
        self.passes += 1;
        let prog = &*prog;
        let (states, active, base) = (&self.states, &self.active, self.held.start);
        let n = self.n;
        let scatter = |v: usize| -> Option<P::Msg> {
            match active.get(v) {
                // Only held vertices are ever active here.
                true => prog.scatter(v as u64, states.get(v.wrapping_sub(base))?),
                false => None,
            }
        };
        let col = Collect::default();
        let mut parts: Vec<Part> = match &mut self.words {
            Some(w) => {
                let id = w.id;
                w.out[..n]
                    .par_chunks_mut(CHUNK)
                    .enumerate()
                    .map(|(c, out)| {
                        let mut part = col.part();
                        for (i, o) in out.iter_mut().enumerate() {
                            let x = scatter(c * CHUNK + i).map_or(id, W::msg);
                            *W::get_mut(o) = x;
                            if x != id {
                                part.push(c * CHUNK + i);
                            }
                        }
                        col.done(&part);
                        part
                    })
                    .collect()
            }
            None => self
                .out
                .par_chunks_mut(CHUNK)
                .enumerate()
                .map(|(c, out)| {
                    let mut part = col.part();
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = scatter(c * CHUNK + i);
                        if o.is_some() {
                            part.push(c * CHUNK + i);
                        }
                    }
                    col.done(&part);
                    part
                })
                .collect(),
        };
        self.set_senders(&mut parts);
        true
    }

    /// Takes the senders of a pass's chunks (in vertex order): their
    /// count, their blocks and the frontier.
    fn set_senders(&mut self, parts: &mut [Part]) {
        self.senders = parts.iter().map(|p| p.count).sum();
        self.sending.clear();
        for (c, p) in parts.iter().enumerate() {
            if p.count > 0 {
                self.sending.set(c * CHUNK / BLOCK, true);
            }
        }
        self.frontier = Collect::frontier(parts);
    }

    /// The frontier of this superstep (a list while small).
    pub fn frontier(&self) -> &Frontier {
        &self.frontier
    }

    /// True when vertex `v` sends this superstep.
    #[inline]
    pub fn sends(&self, v: usize) -> bool {
        match &self.words {
            Some(w) => W::load(&w.out[v]) != w.id,
            None => self.out[v].is_some(),
        }
    }

    /// True when block `b` holds a sending vertex.
    #[inline]
    pub fn block_sends(&self, b: usize) -> bool {
        self.sending.get(b)
    }

    /// True when block `b` received a message this superstep.
    #[inline]
    pub fn block_received(&self, b: usize) -> bool {
        self.received.get(b)
    }

    /// Delivers the message of `s` along the edge `s -> d` of weight `w`
    /// (`rev`: an in-list edge, the arc `d -> s`; see
    /// [`VertexProgram::edge_rev`]). Returns whether a message arrived and
    /// changed `d`'s combined message.
    ///
    /// # Safety
    /// No other thread may deliver to `d` at the same time (the stream
    /// engine's one writer per block; the select engine's single thread).
    #[inline]
    pub unsafe fn deliver(&self, prog: &P, s: usize, d: usize, w: f64, rev: bool) -> bool {
        if P::IN_PLACE {
            return self.deliver_in_place(prog, s, d, w, rev);
        }
        let m = match &self.words {
            Some(ws) => match W::load(&ws.out[s]) {
                x if x == ws.id => return false,
                x => x.get::<P::Msg>(),
            },
            None => match self.out[s] {
                Some(m) => m,
                None => return false,
            },
        };
        let msg = match rev {
            false => prog.edge(m, s as u64, d as u64, w),
            true => prog.edge_rev(m, s as u64, d as u64, w),
        };
        if let (Some(msg), Some(g)) = (msg, &self.grouped) {
            if self.mirrors && !self.owned.contains(&d) {
                return false;
            }
            // SAFETY: the caller guarantees exclusive access to `d`.
            unsafe { g.push(d, msg) };
            true
        } else if let (Some(msg), Some(ws)) = (msg, &self.words) {
            Words::fold::<P>(&ws.acc[d], W::msg(msg))
        } else if let Some(msg) = msg {
            // SAFETY: the caller guarantees exclusive access to `d`'s cell.
            let cell = unsafe { &mut *self.acc.0[d].get() };
            *cell = Some(match *cell {
                Some(x) => P::combine(x, msg),
                None => msg,
            });
            true
        } else {
            false
        }
    }

    /// Marks block `b` as having received messages.
    #[inline]
    pub fn mark_received(&self, b: usize) {
        self.received.set(b);
    }
}
