//! Bitsets: one bit per vertex (a vertex program's next frontier) or per
//! tile block (blocks that send, blocks that received a change), in u64
//! words: an eighth of a `Vec<bool>`'s bytes, and a word answers for 64.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A fixed-size bitset.
#[derive(Clone, Debug, Default)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// `n` bits, all clear.
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    /// Bytes `n` bits take.
    pub const fn bytes(n: u64) -> u64 {
        n.div_ceil(64) * 8
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    #[inline(always)]
    pub fn set(&mut self, i: usize, v: bool) {
        let m = 1u64 << (i % 64);
        let w = &mut self.0[i / 64];
        *w = (*w & !m) | (v as u64) << (i % 64);
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.0.fill(0);
    }

    /// The words (bit `i` is bit `i % 64` of word `i / 64`), for passes
    /// that split the set into whole words.
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.0
    }

    /// The words, read only (a checkpoint saves them).
    pub fn words(&self) -> &[u64] {
        &self.0
    }

    /// The set bits in order: a word at a time, so clear words cost one
    /// test for 64 bits.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + b
                })
            })
        })
    }
}

/// A fixed-size bitset that threads set at once.
#[derive(Debug, Default)]
pub struct AtomicBits(Vec<AtomicU64>);

impl AtomicBits {
    /// `n` bits, all clear.
    pub fn new(n: usize) -> AtomicBits {
        AtomicBits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64].load(Relaxed) >> (i % 64) & 1 != 0
    }

    /// Sets bit `i` (a read first: a set bit costs no locked write).
    #[inline(always)]
    pub fn set(&self, i: usize) {
        let m = 1u64 << (i % 64);
        let w = &self.0[i / 64];
        if w.load(Relaxed) & m == 0 {
            w.fetch_or(m, Relaxed);
        }
    }

    /// Sets bit `i` through an exclusive borrow (no locked write: a pass
    /// that sets every bit, as an in-place program's init, took 60 ms
    /// at kron-24 with [`Self::set`]).
    #[inline(always)]
    pub fn set_mut(&mut self, i: usize) {
        *self.0[i / 64].get_mut() |= 1u64 << (i % 64);
    }

    /// Sets the bits of `x` in word `i` (bits `64 i ..`): a pass that
    /// builds whole words costs one locked write per word, not per bit.
    #[inline(always)]
    pub fn or_word(&self, i: usize, x: u64) {
        if x != 0 {
            self.0[i].fetch_or(x, Relaxed);
        }
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.0.iter_mut().for_each(|w| *w.get_mut() = 0);
    }

    /// Word `i` (bits `64 i ..`).
    #[inline(always)]
    pub fn word(&self, i: usize) -> u64 {
        self.0[i].load(Relaxed)
    }

    /// The words (a checkpoint saves and loads them).
    pub fn words(&self) -> &[AtomicU64] {
        &self.0
    }

    /// Word `i`, cleared.
    #[inline(always)]
    pub fn take_word(&mut self, i: usize) -> u64 {
        std::mem::take(self.0[i].get_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_set_and_clear_one_at_a_time() {
        let mut b = Bits::new(130);
        for i in [0, 63, 64, 129] {
            b.set(i, true);
        }
        assert!(b.get(0) && b.get(63) && b.get(64) && b.get(129));
        assert!(!b.get(1) && !b.get(65) && !b.get(128));
        b.set(63, false);
        assert!(!b.get(63) && b.get(0) && b.get(64));
        assert_eq!(b.words_mut().len(), 3);
        assert_eq!(b.ones().collect::<Vec<_>>(), [0, 64, 129]);
        assert_eq!(Bits::bytes(130), 24);
        let mut a = AtomicBits::new(70);
        a.set(69);
        a.set(69);
        a.set_mut(3);
        assert!(a.get(69) && a.get(3) && !a.get(5));
    }
}
