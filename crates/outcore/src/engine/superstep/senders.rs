//! The senders of a superstep in memory, in vertex order: the frontier's
//! list, or the blocks that send, never a scan of all n.

use super::MemState;
use crate::engine::state::BLOCK;
use crate::engine::vertex::{accumulates, VertexProgram};
use crate::engine::words::Word;
use crate::error::Result;

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// The sending vertices, in order: the frontier's, never a scan of
    /// all n.
    pub fn senders(&self) -> impl Iterator<Item = u64> + '_ {
        // In place, a dense frontier is every vertex of a sending block
        // (the program's scatter tells which send, edge by edge); so is an
        // accumulating one's, filtered by its out words (no active bits).
        let lean = P::IN_PLACE || accumulates::<P>();
        let blocks = (lean && !self.frontier.is_sparse()).then(|| {
            let n = self.n;
            (self.sending.ones())
                .flat_map(move |b| (b * BLOCK) as u64..((b + 1) * BLOCK).min(n) as u64)
                .filter(|&v| P::IN_PLACE || self.sends(v as usize))
        });
        let listed = blocks.is_none().then(|| {
            self.frontier
                .iter(&self.active)
                .filter(|&v| self.sends(v as usize))
        });
        blocks
            .into_iter()
            .flatten()
            .chain(listed.into_iter().flatten())
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
}
