//! The exchange seam of a superstep in memory, for a shard of a
//! partitioned store (DESIGN.md, "Partitioned stores"; the caller is
//! [`crate::engine::shard`]). A shard's state covers its owned vertices
//! (one local range) and its ghosts (the other endpoints of its edges):
//! only owned vertices are applied and send (a ghost's edges to owned
//! vertices are stored by its owner too, which sends along them), and the
//! messages the engines deliver to ghosts are combined locally, then
//! [`MemState::drain`]ed and handed to their owners, which fold them in
//! with [`MemState::receive`] as a local delivery. `end` is
//! [`MemState::apply_local`] + [`MemState::finish`], so the owners'
//! aggregates and active counts can be summed between the two. On one
//! store every vertex is owned and nothing is drained: the run is as
//! before.

use super::{MemState, CHUNK};
use crate::engine::frontier::{Collect, Part};
use crate::engine::program::IterEnd;
use crate::engine::state::BLOCK;
use crate::engine::vertex::{accumulates, Aggregate, VertexProgram};
use crate::engine::words::{lower, Word, Words};
use rayon::prelude::*;
use std::ops::Range;

/// A shard's local view of its vertices, for [`MemState::new_in`].
pub struct Local<'a> {
    /// The owned vertices' local ids (the rest are ghosts: never applied,
    /// never sending).
    pub owned: Range<usize>,
    /// The rank a program sees for a local id (WCC's labels): the global
    /// rank, so labels match a run on the whole store.
    pub rank: &'a (dyn Fn(u64) -> u64 + Sync),
    /// Ghost mirrors (Gemini's master/mirror vertices): a grouped
    /// program's ghosts send the messages their owners computed
    /// ([`MemState::inject`]), along this shard's copies of their edges,
    /// and deliveries to ghosts are dropped (their owners make them). So
    /// the ghosts never receive and get no rows of the grouped arena.
    pub mirrors: bool,
    /// Ghosts hold full state cells, as before they held only what they
    /// use (`OUTCORE_GHOST_CELLS=full`, to compare).
    pub ghost_states: bool,
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// The owned local ids (every vertex on one store).
    pub fn owned(&self) -> Range<usize> {
        self.owned.clone()
    }

    /// Hands `f` the combined messages the superstep delivered to the
    /// vertices of `range` (ghosts of one owner), in id order, and resets
    /// them; a grouped program's every message, each vertex's in arrival
    /// order. In place ([`VertexProgram::IN_PLACE`]): the state words of the
    /// vertices they lowered (the changed bits cleared; the word kept, as
    /// the least value sent on, so a later message that does not lower it
    /// would not lower the owner's either and is not sent again).
    pub fn drain(&mut self, range: Range<usize>, mut f: impl FnMut(usize, P::Msg)) {
        let range = range.start.min(self.n)..range.end.min(self.n);
        if range.is_empty() {
            return;
        }
        if let Some(g) = &mut self.grouped {
            for v in range {
                g.take(v, |m| f(v, m));
            }
            return;
        }
        if P::IN_PLACE {
            let ws = self.words.as_ref().expect("in-place state words");
            for i in range.start / 64..range.end.div_ceil(64) {
                let w = self.changed.take_word(i);
                let mut bits = w;
                while bits != 0 {
                    let v = i * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    match range.contains(&v) {
                        true => f(v, W::load(&ws.out[v]).get()),
                        // Not ours to take: put it back.
                        false => self.changed.set_mut(v),
                    }
                }
            }
            return;
        }
        match &mut self.words {
            Some(w) => {
                let id = w.id;
                for (i, c) in w.acc[range.clone()].iter_mut().enumerate() {
                    let x = std::mem::take(W::get_mut(c)) ^ id;
                    if x != id {
                        f(range.start + i, x.get());
                    }
                }
            }
            None => {
                for (i, c) in self.acc.0[range.clone()].iter_mut().enumerate() {
                    if let Some(m) = c.get_mut().take() {
                        f(range.start + i, m);
                    }
                }
            }
        }
    }

    /// Folds message `m` for local vertex `d` (an owned one) as a local
    /// delivery would: combined into its accumulator, or in place lowering
    /// its state (then it is in the next frontier).
    pub fn receive(&mut self, d: usize, m: P::Msg) {
        if let Some(g) = &mut self.grouped {
            g.push_mut(d, m);
            self.received.set_mut(d / BLOCK);
            return;
        }
        match &mut self.words {
            Some(ws) if P::IN_PLACE => {
                if lower::<P, W>(&ws.out[d], W::msg(m)) {
                    self.changed.set_mut(d);
                    self.received.set_mut(d / BLOCK);
                }
            }
            Some(ws) => {
                if Words::fold::<P>(&ws.acc[d], W::msg(m)) {
                    self.received.set_mut(d / BLOCK);
                }
            }
            None => {
                let cell = self.acc.0[d].get_mut();
                *cell = Some(match *cell {
                    Some(x) => P::combine(x, m),
                    None => m,
                });
                self.received.set_mut(d / BLOCK);
            }
        }
    }

    /// The bytes the state holds, charged to the budget: states, bits,
    /// message words or cells, the grouped arena.
    pub fn held_bytes(&self) -> u64 {
        self._charge.bytes() + self.grouped.as_ref().map_or(0, |g| g.charged())
    }

    /// The owned vertices' final states, in local id order; once, at the
    /// end of the run.
    pub fn take_owned(&mut self, prog: &P) -> Vec<P::State> {
        // The word forms' states cover every vertex; the others', `held`.
        let from = match P::IN_PLACE || accumulates::<P>() {
            true => 0,
            false => self.held.start,
        };
        let owned = self.owned.clone();
        let mut s = self.take_states(prog);
        s.truncate(owned.end - from);
        s.drain(..owned.start - from);
        s
    }

    /// The messages a superstep can deliver: the grouped arena's slots
    /// (0 for a combining program).
    pub fn arena_slots(&self) -> usize {
        self.grouped.as_ref().map_or(0, |g| g.slots())
    }

    /// Vertex `v`'s message this superstep (a grouped program's; its
    /// owner's value, for the shards that hold `v` as a ghost).
    pub fn message(&self, v: usize) -> Option<P::Msg> {
        self.out.get(v).copied().flatten()
    }

    /// Ghost `v` sends `m` this superstep, the message its owner computed
    /// (where `v`'s whole degree is known): the mirror of `v`. Takes
    /// effect at [`MemState::mirror_senders`].
    pub fn inject(&mut self, v: usize, m: P::Msg) {
        self.out[v] = Some(m);
        self.active.set(v, true);
    }

    /// After the injections: the senders, owned and ghosts, again (one
    /// pass over the messages). Ghosts leave the frontier at the apply.
    pub fn mirror_senders(&mut self) {
        let col = Collect::default();
        let mut parts: Vec<Part> = (self.out.par_chunks(CHUNK).enumerate())
            .map(|(c, out)| {
                let mut part = col.part();
                for (i, o) in out.iter().enumerate() {
                    if o.is_some() {
                        part.push(c * CHUNK + i);
                    }
                }
                col.done(&part);
                part
            })
            .collect();
        self.set_senders(&mut parts);
    }

    /// The owned vertices active before the first superstep (after
    /// `new`) or the next one (after `apply_local`).
    pub fn active_count(&self) -> u64 {
        if P::IN_PLACE {
            self.count_changed()
        } else if accumulates::<P>() {
            self.owned.len() as u64
        } else {
            self.owned.clone().filter(|&v| self.active.get(v)).count() as u64
        }
    }

    /// Sets the aggregate the next superstep's `begin` sees (a shard's
    /// first superstep: the sum of every shard's `init`).
    pub fn set_aggregate(&mut self, agg: Aggregate) {
        self.agg = agg;
    }

    /// Ends superstep `step` with the aggregate and the count of next
    /// superstep's active vertices of every owner (this state's own
    /// [`MemState::apply_local`]'s on one store): the program's verdict.
    pub fn finish(&mut self, prog: &mut P, step: usize, agg: Aggregate, active: u64) -> IterEnd {
        self.agg = agg;
        let done = prog.end(step, &self.agg, active);
        let done = if P::IN_PLACE {
            done || active == 0
        } else if accumulates::<P>() {
            done
        } else {
            done || active == 0 && !prog.apply_all()
        };
        IterEnd {
            active_vertices: active,
            done,
        }
    }
}
