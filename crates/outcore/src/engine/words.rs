//! Messages as words, for vertex programs with an
//! [`VertexProgram::IDENTITY`]: a message's [`Value`] encoding in a word
//! sized to the message ([`Word`]: 4 bytes for u32 and f32 messages, 8 for
//! the rest), so BFS's depths and WCC's narrow labels take half the cache
//! footprint and memory of 64-bit words.

use crate::engine::state::BLOCK;
use crate::engine::vertex::{Value, VertexProgram};
use std::ops::BitXor;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// A message as a u64: its `Value` encoding, zero-extended to 8 bytes.
#[inline(always)]
pub fn word<M: Value>(m: M) -> u64 {
    let mut b = [0u8; 8];
    m.put(&mut b);
    u64::from_le_bytes(b)
}

/// The message of a u64 (see [`word`]).
#[inline(always)]
pub fn unword<M: Value>(w: u64) -> M {
    M::get(&w.to_le_bytes())
}

/// An unsigned word that holds a message's encoding, and its atomic cell.
pub trait Word: Copy + Eq + Default + BitXor<Output = Self> + Send + Sync + 'static {
    type Cell: Send + Sync;
    /// Bytes a word takes.
    const BYTES: u64;
    /// The low bytes of `x` (a message's [`word`], which fits).
    fn of(x: u64) -> Self;
    fn wide(self) -> u64;
    fn cell(v: Self) -> Self::Cell;
    fn load(c: &Self::Cell) -> Self;
    fn store(c: &Self::Cell, v: Self);
    fn get_mut(c: &mut Self::Cell) -> &mut Self;
    /// A block of the stream engine's 64-bit private cells as cells of
    /// this word (the first `BLOCK` of them; all start as zero bits).
    fn block_of(b: &[AtomicU64; BLOCK]) -> &[Self::Cell; BLOCK];

    /// The word of message `m`.
    #[inline(always)]
    fn msg<M: Value>(m: M) -> Self {
        Self::of(word(m))
    }

    /// The message of this word.
    #[inline(always)]
    fn get<M: Value>(self) -> M {
        unword(self.wide())
    }
}

impl Word for u64 {
    type Cell = AtomicU64;
    const BYTES: u64 = 8;
    #[inline(always)]
    fn of(x: u64) -> u64 {
        x
    }
    #[inline(always)]
    fn wide(self) -> u64 {
        self
    }
    #[inline(always)]
    fn cell(v: u64) -> AtomicU64 {
        AtomicU64::new(v)
    }
    #[inline(always)]
    fn load(c: &AtomicU64) -> u64 {
        c.load(Relaxed)
    }
    #[inline(always)]
    fn store(c: &AtomicU64, v: u64) {
        c.store(v, Relaxed)
    }
    #[inline(always)]
    fn get_mut(c: &mut AtomicU64) -> &mut u64 {
        c.get_mut()
    }
    #[inline(always)]
    fn block_of(b: &[AtomicU64; BLOCK]) -> &[AtomicU64; BLOCK] {
        b
    }
}

impl Word for u32 {
    type Cell = AtomicU32;
    const BYTES: u64 = 4;
    #[inline(always)]
    fn of(x: u64) -> u32 {
        debug_assert!(x <= u32::MAX as u64, "{x:#x} is no 4-byte word");
        x as u32
    }
    #[inline(always)]
    fn wide(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn cell(v: u32) -> AtomicU32 {
        AtomicU32::new(v)
    }
    #[inline(always)]
    fn load(c: &AtomicU32) -> u32 {
        c.load(Relaxed)
    }
    #[inline(always)]
    fn store(c: &AtomicU32, v: u32) {
        c.store(v, Relaxed)
    }
    #[inline(always)]
    fn get_mut(c: &mut AtomicU32) -> &mut u32 {
        c.get_mut()
    }
    #[inline(always)]
    fn block_of(b: &[AtomicU64; BLOCK]) -> &[AtomicU32; BLOCK] {
        // SAFETY: BLOCK u64 cells are 2 * BLOCK bytes of 4-byte cells at an
        // alignment of 8 (AtomicU32 needs 4), atomics have their integer's
        // layout, and the borrow keeps `b`'s lifetime.
        unsafe { &*(b.as_ptr() as *const [AtomicU32; BLOCK]) }
    }
}

/// Bytes of the word that carries `P`'s messages.
pub const fn word_bytes<P: VertexProgram>() -> u64 {
    if <P::Msg as Value>::BYTES <= 4 {
        4
    } else {
        8
    }
}

/// `P::IDENTITY`'s word (0 for programs without one, which never fold).
pub const fn identity<P: VertexProgram>() -> u64 {
    match P::IDENTITY {
        Some(id) => id,
        None => 0,
    }
}

/// Messages as words, for programs with an [`VertexProgram::IDENTITY`].
/// Both vectors are padded to whole tile blocks, so a block of them is a
/// `[_; BLOCK]` indexed by 16-bit local ids without bounds checks.
pub struct Words<W: Word> {
    /// The identity's word: a vertex whose word is this sends nothing.
    pub id: W,
    /// This superstep's message of each vertex; in place
    /// ([`VertexProgram::IN_PLACE`]), the states themselves.
    pub out: Vec<W::Cell>,
    /// Combined messages, stored XOR `id`, so zero bits mean none (the
    /// stream engine's private copies of hub blocks start as zero bits).
    /// Empty in place: messages lower `out` itself.
    pub acc: Vec<W::Cell>,
}

impl<W: Word> Words<W> {
    /// The senders' words of the block starting at `base`.
    #[inline(always)]
    pub fn out_block(&self, base: usize) -> &[W::Cell; BLOCK] {
        self.out[base..base + BLOCK]
            .try_into()
            .expect("a whole block")
    }

    /// The accumulators of the block starting at `base` (in place: the
    /// states, which messages lower).
    #[inline(always)]
    pub fn acc_block(&self, base: usize) -> &[W::Cell; BLOCK] {
        let acc = if self.acc.is_empty() {
            &self.out
        } else {
            &self.acc
        };
        acc[base..base + BLOCK].try_into().expect("a whole block")
    }

    /// Combines message word `m` into accumulator `cell` (XOR-encoded with
    /// the program's identity, a constant here, so for a sum the XOR folds
    /// away). Single writer per cell: a relaxed load then store, no branch
    /// (an empty cell decodes to the identity). Returns whether the cell
    /// changed.
    #[inline(always)]
    pub fn fold<P: VertexProgram>(cell: &W::Cell, m: W) -> bool {
        let id = W::of(const { identity::<P>() });
        let c = W::load(cell);
        let x = W::msg(P::combine((c ^ id).get(), m.get())) ^ id;
        W::store(cell, x);
        x != c
    }
}

/// Lowers an in-place program's receiver's state word `out` to its
/// combination with `m` (one writer per block on the stream engine, one
/// thread on select). Returns whether it lowered the word.
#[inline(always)]
pub fn lower<P: VertexProgram, W: Word>(out: &W::Cell, m: W) -> bool {
    let o = W::load(out);
    let x = W::msg(P::combine(o.get(), m.get()));
    if x != o {
        W::store(out, x);
    }
    x != o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4-byte message round-trips through a u32 word, and a u32 view of
    /// a 64-bit private block covers its first half.
    #[test]
    fn narrow_words_round_trip() {
        let w = u32::msg(7u32);
        assert_eq!(w, 7);
        assert_eq!(w.get::<u32>(), 7);
        assert_eq!(
            u32::msg(1.5f64.to_bits() as u32).get::<u32>(),
            1.5f64.to_bits() as u32
        );
        let block: Vec<AtomicU64> = (0..BLOCK).map(|_| AtomicU64::new(0)).collect();
        let block: &[AtomicU64; BLOCK] = block[..].try_into().unwrap();
        let narrow = u32::block_of(block);
        narrow[1].store(5, Relaxed);
        assert_eq!(block[0].load(Relaxed), 5 << 32);
        narrow[BLOCK - 1].store(1, Relaxed);
        assert_eq!(block[BLOCK / 2 - 1].load(Relaxed), 1 << 32);
    }
}
