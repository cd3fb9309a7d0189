//! The apply step of a superstep in memory: every vertex's combined
//! messages through `apply`, the next frontier, and (for a
//! [`VertexProgram::SCATTER_PURE`] program) the next messages in the same
//! pass.

use super::{MemState, CHUNK};
use crate::engine::frontier::{Collect, Part};
use crate::engine::program::IterEnd;
use crate::engine::vertex::{Aggregate, VertexProgram};
use crate::engine::words::Word;
use rayon::prelude::*;

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// Applies the superstep's messages; names the next frontier. A
    /// [`VertexProgram::SCATTER_PURE`] program's next messages are
    /// computed here too, as each vertex is applied (so the next `begin`
    /// makes no pass).
    pub fn end(&mut self, prog: &mut P, step: usize) -> IterEnd {
        let (agg, active) = self.apply_local(prog);
        self.finish(prog, step, agg, active)
    }

    /// [`MemState::end`] before the program's verdict: applies the owned
    /// vertices; returns their aggregate and how many are active next.
    pub fn apply_local(&mut self, prog: &P) -> (Aggregate, u64) {
        if P::IN_PLACE {
            return (Aggregate::default(), self.count_changed());
        }
        if crate::engine::vertex::accumulates::<P>() {
            return self.apply_accumulated(prog);
        }
        if !P::COMBINES {
            return self.apply_grouped(prog);
        }
        let p = prog;
        let owned = self.owned.clone();
        let apply_all = p.apply_all();
        let fuse = P::SCATTER_PURE;
        let cells = &self.acc;
        // A chunk is whole words of `active` (no word is shared), and the
        // accumulators are read and zeroed through `&mut` (no locked swap).
        // The chunks are the held vertices' (`b`: a whole chunk).
        let b = self.held.start;
        let chunks = self.states.len().div_ceil(CHUNK);
        let (out, id, acc): (&[W::Cell], W, &mut [W::Cell]) = match &mut self.words {
            Some(w) => (&w.out, w.id, &mut w.acc[b..]),
            None => (&[], W::default(), &mut []),
        };
        let mut accs: Vec<&mut [W::Cell]> = acc.chunks_mut(CHUNK).take(chunks).collect();
        accs.resize_with(chunks, Default::default);
        // The general form's next messages (written only when fused).
        let mut msgs: Vec<&mut [Option<P::Msg>]> = match fuse {
            true => {
                let from = b.min(self.out.len());
                self.out[from..].chunks_mut(CHUNK).collect()
            }
            false => Vec::new(),
        };
        msgs.resize_with(chunks, Default::default);
        let col = Collect::default();
        let parts: Vec<(u64, Aggregate, Part)> = self
            .states
            .par_chunks_mut(CHUNK)
            .zip(self.active.words_mut()[b / 64..].par_chunks_mut(CHUNK / 64))
            .zip(accs)
            .zip(msgs)
            .enumerate()
            .map(|(c, (((states, active), acc), msgs))| {
                let (mut count, mut agg, mut part) = (0u64, Aggregate::default(), col.part());
                active.fill(0);
                for (i, s) in states.iter_mut().enumerate() {
                    let v = b + c * CHUNK + i;
                    let m = if out.is_empty() {
                        // SAFETY: every delivery of the superstep has returned.
                        unsafe { (*cells.0[v].get()).take() }
                    } else {
                        let c = std::mem::take(W::get_mut(&mut acc[i])) ^ id;
                        (c != id).then(|| c.get::<P::Msg>())
                    };
                    let a = match m {
                        // A ghost: its owner applies it.
                        _ if !owned.contains(&v) => false,
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
        self.gather(parts, fuse)
    }

    /// The end of an applying pass over the held vertices' chunks: sums
    /// their active counts and aggregates and, when the pass computed the
    /// next messages (`fuse`), takes their senders as the next frontier.
    /// The vertices not held (a shard's ghosts) leave the frontier: a
    /// mirror's bit, set by `inject`, lasts one superstep.
    pub(super) fn gather(
        &mut self,
        mut parts: Vec<(u64, Aggregate, Part)>,
        fuse: bool,
    ) -> (Aggregate, u64) {
        self.passes += 1;
        let (b, end) = (self.held.start, self.held.end.div_ceil(64));
        let words = self.active.words_mut();
        let end = end.min(words.len());
        words[..b / 64].fill(0);
        words[end..].fill(0);
        // The chunks before the held ones: empty (listed whole).
        let col = Collect::default();
        parts.splice(
            0..0,
            (0..b / CHUNK).map(|_| (0, Aggregate::default(), col.part())),
        );
        let (mut count, mut agg) = (0, Aggregate::default());
        for (c, a, _) in &parts {
            count += c;
            agg.merge(a);
        }
        if fuse {
            let mut parts: Vec<Part> = parts.iter_mut().map(|p| std::mem::take(&mut p.2)).collect();
            self.set_senders(&mut parts);
            self.ready = true;
        }
        (agg, count)
    }
}
