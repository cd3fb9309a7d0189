//! In-place programs ([`VertexProgram::IN_PLACE`]: BFS, WCC): the state
//! words are the messages, a delivery combines into the receiver's state
//! and marks it changed, and the changed bits are the next frontier. No
//! pass over the vertices: `begin` and `end` read the bits of the blocks
//! that changed (G-Store's kernel, with Ligra's sparse frontier).

use super::MemState;
use crate::engine::frontier::{Frontier, SPARSE_MAX};
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Value, VertexProgram};
use crate::engine::words::{lower, Word};
use crate::error::{Error, Result};

/// An in-place program's state must be its message, in a word.
pub(super) fn check<P: VertexProgram>(prog: &P) -> Result<()> {
    let words = P::IDENTITY.is_some() && P::COMBINES && <P::Msg as Value>::BYTES <= 8;
    let same = <P::State as Value>::BYTES == <P::Msg as Value>::BYTES;
    match !P::IN_PLACE || words && same && !P::APPLY_ALL {
        true => Ok(()),
        false => Err(Error::Invalid(format!(
            "internal: {} runs in place, so its state must be its message (a combining word) and not every vertex applies",
            prog.name()
        ))),
    }
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// The words of `changed` in block `b`.
    fn block_words(&self, b: usize) -> std::ops::Range<usize> {
        let words = self.n.div_ceil(64);
        (b * BLOCK / 64).min(words)..((b + 1) * BLOCK / 64).min(words)
    }

    /// Starts a superstep: the blocks that changed send, and the changed
    /// vertices become the frontier (a list while few; the bits cleared).
    pub(super) fn begin_in_place(&mut self) {
        let (mut count, mut list, mut sparse) = (0u64, Vec::new(), true);
        self.sending.clear();
        for b in 0..self.n.div_ceil(BLOCK) {
            if !self.received.get(b) {
                continue;
            }
            self.sending.set(b, true);
            for i in self.block_words(b) {
                let mut w = self.changed.take_word(i);
                count += w.count_ones() as u64;
                if sparse && count > SPARSE_MAX as u64 {
                    (sparse, list) = (false, Vec::new());
                }
                while sparse && w != 0 {
                    list.push((i * 64) as u64 + w.trailing_zeros() as u64);
                    w &= w - 1;
                }
            }
        }
        self.received.clear();
        self.senders = count;
        self.frontier = match sparse {
            true => Frontier::Sparse(list),
            false => Frontier::Dense,
        };
    }

    /// Delivers along `s -> d`: `s`'s state through `scatter` and `edge`,
    /// combined into `d`'s state; true when it changed (then `d` is in the
    /// next frontier).
    ///
    /// # Safety
    /// As [`MemState::deliver`].
    #[inline]
    pub(super) unsafe fn deliver_in_place(
        &self,
        prog: &P,
        s: usize,
        d: usize,
        w: f64,
        rev: bool,
    ) -> bool {
        let ws = self.words.as_ref().expect("in-place state words");
        let x: P::State = W::load(&ws.out[s]).get();
        let Some(m) = prog.scatter(s as u64, &x) else {
            return false;
        };
        let m = match rev {
            false => prog.edge(m, s as u64, d as u64, w),
            true => prog.edge_rev(m, s as u64, d as u64, w),
        };
        match m {
            Some(m) if lower::<P, W>(&ws.out[d], W::msg(m)) => {
                self.mark_changed(d);
                true
            }
            _ => false,
        }
    }

    /// Marks vertex `d` changed (and its block received).
    #[inline(always)]
    pub(crate) fn mark_changed(&self, d: usize) {
        self.changed.set(d);
        self.received.set(d / BLOCK);
    }

    /// Counts the changed vertices (the bits of the blocks that
    /// received): the next superstep's active ones.
    pub(super) fn count_changed(&self) -> u64 {
        let mut count = 0u64;
        for b in 0..self.n.div_ceil(BLOCK) {
            if self.received.get(b) {
                for i in self.block_words(b) {
                    count += self.changed.word(i).count_ones() as u64;
                }
            }
        }
        count
    }

    /// The final states, by dense id (in place: the words, reused;
    /// accumulating: each vertex's [`VertexProgram::value`]).
    pub fn take_states(&mut self, prog: &P) -> Vec<P::State> {
        if crate::engine::vertex::accumulates::<P>() {
            return self.accumulated_values(prog);
        }
        match &mut self.words {
            Some(w) if P::IN_PLACE => std::mem::take(&mut w.out)
                .into_iter()
                .take(self.n)
                .map(|c| W::load(&c).get())
                .collect(),
            _ => std::mem::take(&mut self.states),
        }
    }
}
