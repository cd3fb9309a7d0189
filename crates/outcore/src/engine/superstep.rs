//! One superstep of a vertex program with its state in memory, whichever
//! engine reads the edges (Ligra's edgeMap over a frontier): `begin` asks
//! each active vertex for its message (the frontier is the set of vertices
//! with one), the engine calls `deliver` for every edge of a sending vertex
//! (stream: over tiles, select: over the CSR pages of the frontier's
//! lists), `end` applies the combined messages and names the next
//! frontier. The state survives between supersteps, so each superstep may
//! run on a different engine (the planner's choice).
//!
//! Messages live in one of two forms. The general one keeps an
//! `Option<Msg>` per vertex. Programs that declare
//! [`VertexProgram::IDENTITY`] (messages of at most 8 bytes whose combine
//! has an identity: PageRank's sum, BFS's and WCC's min) keep them as words
//! sized to the message ([`Words`]: 4 bytes for BFS's depths and narrow WCC
//! labels, 8 for PageRank's f64): no `Option`, and the stream engine's
//! dense tile loop ([`crate::engine::stream_vp`]) runs on them without a
//! branch per edge and may split a hub block's work over threads. The next
//! frontier is a bitset, and so are the blocks that send and the blocks
//! where a message changed a cell (the stream engine's caching hint).

use crate::engine::bits::{AtomicBits, Bits};
use crate::engine::frontier::{Collect, Frontier, Part};
use crate::engine::program::IterEnd;
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Aggregate, Value, VertexInfo, VertexProgram};
use crate::engine::words::{lower, word_bytes, Word, Words};
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::Store;
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
const _: () = assert!(BLOCK % CHUNK == 0);

/// The in-memory state of a vertex program between supersteps.
pub struct MemState<P: VertexProgram, W: Word> {
    pub n: usize,
    pub states: Vec<P::State>,
    /// This superstep's message of each vertex (None: inactive or silent);
    /// empty when `words` holds them.
    out: Vec<Option<P::Msg>>,
    acc: Cells<P::Msg>,
    /// The messages as words, for programs with an identity.
    pub words: Option<Words<W>>,
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
    pub agg: Aggregate,
    _charge: Charge,
}

/// In-memory bytes per vertex of `P`.
pub fn state_bytes<P: VertexProgram>(n: u64) -> u64 {
    // Words are padded to whole blocks.
    let msgs = match P::IDENTITY {
        Some(_) if P::COMBINES && <P::Msg as Value>::BYTES <= 8 => {
            // Eager programs keep no accumulators.
            let w = word_bytes::<P>();
            (w + w * !P::EAGER as u64) * n.next_multiple_of(BLOCK as u64)
        }
        _ => 2 * std::mem::size_of::<Option<P::Msg>>() as u64 * n,
    };
    // One bit a vertex for the next frontier.
    n * std::mem::size_of::<P::State>() as u64 + Bits::bytes(n) + msgs
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// Initial states from the degrees and ranks (charged to `budget`), the
    /// messages in words of `W` ([`word_bytes`] of `P`).
    pub fn new(store: &Store, prog: &P, budget: &Budget) -> Result<MemState<P, W>> {
        if W::BYTES != word_bytes::<P>() {
            return Err(Error::Invalid(format!(
                "internal: {} sends {}-byte words, not {}",
                prog.name(),
                word_bytes::<P>(),
                W::BYTES
            )));
        }
        let n = store.manifest().num_vertices;
        let charge = budget.charge(state_bytes::<P>(n), "vertex program state")?;
        let n = n as usize;
        let mut agg = Aggregate::default();
        let mut states = Vec::with_capacity(n);
        let mut active = Bits::new(n);
        let mut degs = crate::store::degrees::DegreeStream::open(store.path(), "out")?;
        let mut ranks = store.rank_reader()?;
        for v in 0..n as u64 {
            let info = VertexInfo {
                v,
                rank: ranks.next_rank()?,
                out_degree: degs.next_degree()?,
            };
            let (s, a) = prog.init(&info, &mut agg);
            states.push(s);
            active.set(v as usize, a);
        }
        let blocks = n.div_ceil(BLOCK).max(1);
        let words = P::IDENTITY
            .filter(|_| P::COMBINES && <P::Msg as Value>::BYTES <= 8)
            .map(|id| Words {
                id: W::of(id),
                out: crate::mem::huge_vec(blocks * BLOCK, |_| W::cell(W::of(id))),
                acc: match P::EAGER {
                    true => Vec::new(),
                    false => crate::mem::huge_vec(blocks * BLOCK, |_| W::cell(W::default())),
                },
            });
        let general = if words.is_some() { 0 } else { n };
        Ok(MemState {
            n,
            states,
            out: vec![None; general],
            acc: Cells((0..general).map(|_| UnsafeCell::new(None)).collect()),
            words,
            active,
            sending: Bits::new(blocks),
            received: AtomicBits::new(blocks),
            senders: 0,
            frontier: Frontier::Dense,
            ready: false,
            passes: 0,
            agg,
            _charge: charge,
        })
    }

    /// Starts superstep `step`: false when the program stops before it.
    /// O(blocks) when the last `end` computed the messages (a
    /// [`VertexProgram::SCATTER_PURE`] program); else one pass asks every
    /// active vertex for its message.
    pub fn begin(&mut self, prog: &mut P, step: usize) -> bool {
        if !prog.begin(step, &self.agg) {
            return false;
        }
        self.received.clear();
        if std::mem::take(&mut self.ready) {
            return true;
        }
        self.passes += 1;
        let prog = &*prog;
        let (states, active) = (&self.states, &self.active);
        let n = self.n;
        let scatter = |v: usize| active.get(v).then(|| prog.scatter(v as u64, &states[v]))?;
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

    /// The sending vertices, in order: the frontier's, never a scan of
    /// all n.
    pub fn senders(&self) -> impl Iterator<Item = u64> + '_ {
        self.frontier
            .iter(&self.active)
            .filter(|&v| self.sends(v as usize))
    }

    /// Calls `f` with the sending vertices in order, at most `chunk` at a
    /// time (memory stays O(chunk), whatever the frontier's size), as ids
    /// of type `T` (the select engine's caller's: u64 on a wide store).
    pub fn for_each_sender_chunk<T: crate::store::csr::Slot>(
        &self,
        chunk: usize,
        mut f: impl FnMut(&[T]) -> Result<()>,
    ) -> Result<()> {
        let mut buf = Vec::with_capacity(chunk.min(self.senders as usize));
        for v in self.senders() {
            buf.push(T::of(v));
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
    /// [`VertexProgram::edge_rev`]). Returns whether a message arrived and
    /// changed `d`'s combined message.
    ///
    /// # Safety
    /// No other thread may deliver to `d` at the same time (the stream
    /// engine's one writer per block; the select engine's single thread).
    #[inline]
    pub unsafe fn deliver(&self, prog: &P, s: usize, d: usize, w: f64, rev: bool) -> bool {
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
        if let (Some(msg), Some(ws)) = (msg, &self.words) {
            if P::EAGER {
                lower::<P, W>(&ws.out[d], W::msg(msg))
            } else {
                Words::fold::<P>(&ws.acc[d], W::msg(msg))
            }
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

    /// Applies the superstep's messages; names the next frontier. A
    /// [`VertexProgram::SCATTER_PURE`] program's next messages are
    /// computed here too, as each vertex is applied (so the next `begin`
    /// makes no pass).
    pub fn end(&mut self, prog: &mut P, step: usize) -> IterEnd {
        let p = &*prog;
        let apply_all = p.apply_all();
        let fuse = P::SCATTER_PURE;
        let cells = &self.acc;
        // A chunk is whole words of `active` (no word is shared), and the
        // accumulators are read and zeroed through `&mut` (no locked swap).
        let chunks = self.n.div_ceil(CHUNK);
        let (out, id, acc): (&[W::Cell], W, &mut [W::Cell]) = match &mut self.words {
            Some(w) => (&w.out, w.id, &mut w.acc),
            None => (&[], W::default(), &mut []),
        };
        let mut accs: Vec<&mut [W::Cell]> = acc.chunks_mut(CHUNK).take(chunks).collect();
        accs.resize_with(chunks, Default::default);
        // The general form's next messages (written only when fused).
        let mut msgs: Vec<&mut [Option<P::Msg>]> = match fuse {
            true => self.out.chunks_mut(CHUNK).collect(),
            false => Vec::new(),
        };
        msgs.resize_with(chunks, Default::default);
        let col = Collect::default();
        let mut parts: Vec<(u64, Aggregate, Part)> = self
            .states
            .par_chunks_mut(CHUNK)
            .zip(self.active.words_mut().par_chunks_mut(CHUNK / 64))
            .zip(accs)
            .zip(msgs)
            .enumerate()
            .map(|(c, (((states, active), acc), msgs))| {
                let (mut count, mut agg, mut part) = (0u64, Aggregate::default(), col.part());
                active.fill(0);
                for (i, s) in states.iter_mut().enumerate() {
                    let v = c * CHUNK + i;
                    let m = if out.is_empty() {
                        // SAFETY: every delivery of the superstep has returned.
                        unsafe { (*cells.0[v].get()).take() }
                    } else {
                        // Eager: messages lowered the outgoing word (a
                        // sender's own message changes nothing).
                        let c = match P::EAGER {
                            true => W::load(&out[v]),
                            false => std::mem::take(W::get_mut(&mut acc[i])) ^ id,
                        };
                        (c != id).then(|| c.get::<P::Msg>())
                    };
                    let a = match m {
                        Some(m) => p.apply(v as u64, s, &[m], &mut agg),
                        None if apply_all => p.apply(v as u64, s, &[], &mut agg),
                        None => false,
                    };
                    active[i / 64] |= (a as u64) << (i % 64);
                    count += a as u64;
                    if fuse {
                        let m = a.then(|| p.scatter(v as u64, s)).flatten();
                        let sends = if out.is_empty() {
                            msgs[i] = m;
                            m.is_some()
                        } else {
                            let x = m.map_or(id, W::msg);
                            W::store(&out[v], x);
                            x != id
                        };
                        if sends {
                            part.push(v);
                        }
                    }
                }
                col.done(&part);
                (count, agg, part)
            })
            .collect();
        self.passes += 1;
        let (mut count, mut agg) = (0, Aggregate::default());
        for (c, a, _) in &parts {
            count += c;
            agg.merge(a);
        }
        self.agg = agg;
        if fuse {
            let mut parts: Vec<Part> = parts.iter_mut().map(|p| std::mem::take(&mut p.2)).collect();
            self.set_senders(&mut parts);
            self.ready = true;
        }
        let done = prog.end(step, &self.agg, count);
        IterEnd {
            active_vertices: count,
            done: done || count == 0 && !prog.apply_all(),
        }
    }
}
