//! A dense frontier scanned with a cursor: the active bitset of a
//! Gauss-Seidel sweep (the pull mode's rounds, `engine/pull.rs`), taken in
//! batches in id order while vertices behind or ahead of the cursor are
//! activated. A vertex activated ahead of the cursor joins the current
//! round; one behind it waits for the next.

use crate::store::csr::Slot;

/// The active bitset and its count.
pub struct Dense {
    words: Vec<u64>,
    count: u64,
}

impl Dense {
    /// Bytes of the bitset on `n` vertices.
    pub fn bytes(n: u64) -> u64 {
        8 * n.div_ceil(64)
    }

    /// No vertex of `n` active.
    pub fn empty(n: u64) -> Dense {
        Dense {
            words: vec![0; n.div_ceil(64) as usize],
            count: 0,
        }
    }

    /// Active vertices.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Activates `u` (again).
    #[inline]
    pub fn activate<T: Slot>(&mut self, u: T) {
        let u = u.get();
        let w = &mut self.words[(u >> 6) as usize];
        let bit = 1u64 << (u & 63);
        if *w & bit == 0 {
            *w |= bit;
            self.count += 1;
        }
    }

    /// Moves up to `max` active vertices at or after `cursor` (ascending)
    /// into `batch`, clearing their bits; advances `cursor`.
    pub fn take<T: Slot>(&mut self, cursor: &mut u64, max: usize, batch: &mut Vec<T>) {
        batch.clear();
        let end = 64 * self.words.len() as u64;
        while *cursor < end && batch.len() < max {
            let wi = (*cursor / 64) as usize;
            let mut word = self.words[wi] & (u64::MAX << (*cursor % 64));
            if word == 0 {
                *cursor = (wi as u64 + 1) * 64;
                continue;
            }
            while word != 0 && batch.len() < max {
                let b = word.trailing_zeros() as u64;
                word &= word - 1;
                batch.push(T::of(wi as u64 * 64 + b));
                self.words[wi] &= !(1u64 << b);
                self.count -= 1;
                *cursor = wi as u64 * 64 + b + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_scans_in_order() {
        let mut s = Dense::empty(200);
        for v in [3u32, 64, 65, 130, 199] {
            s.activate(v);
        }
        s.activate(64u32);
        assert_eq!(s.count(), 5);
        let mut cursor = 0;
        let mut batch: Vec<u32> = Vec::new();
        s.take(&mut cursor, 3, &mut batch);
        assert_eq!(batch, vec![3, 64, 65]);
        s.activate(100u32); // ahead of the cursor: this round
        s.activate(10u32); // behind it: the next
        s.take(&mut cursor, 100, &mut batch);
        assert_eq!(batch, vec![100, 130, 199]);
        s.take(&mut cursor, 100, &mut batch);
        assert!(batch.is_empty());
        assert_eq!(s.count(), 1);
        let mut cursor = 0;
        s.take(&mut cursor, 100, &mut batch);
        assert_eq!(batch, vec![10]);
        assert_eq!(s.count(), 0);
    }
}
