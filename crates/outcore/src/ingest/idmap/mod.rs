//! Original 64-bit ids <-> dense ids.
//!
//! Dense id = rank of the original id among all distinct ids, so the map is
//! monotone: sorting by original ids is sorting by dense ids, and the smallest
//! original id of a set is its smallest dense id (what WCC labels need).
//! Lookups go through a bucket table over the id range (one cache miss plus a
//! short search) rather than a binary search over the whole array.
//!
//! The ids are gathered by [`IdCollector`] (`collect.rs`: a bitmap over
//! the id range, else a sorted list) before the map is built; ids that
//! outgrow its share are handed on sorted on disk instead ([`Collected`]).

mod collect;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;

pub use collect::{Collected, IdCollector, SortedIds};

/// The ids a bitmap's words hold (bit `i` of word `w`: id `64w + i`).
fn words_ids(words: impl Iterator<Item = u64>) -> impl Iterator<Item = u64> {
    words.enumerate().flat_map(|(w, word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            if word == 0 {
                return None;
            }
            let b = word.trailing_zeros() as u64;
            word &= word - 1;
            Some(w as u64 * 64 + b)
        })
    })
}

/// The map between original and dense ids.
pub struct IdMap {
    /// Sorted distinct original ids; empty when the map is the identity or
    /// the rank bitmap holds them.
    ids: Vec<u64>,
    n: u64,
    identity: bool,
    /// `bucket[b]` = first index whose id has bucket >= b.
    bucket: Vec<u32>,
    min: u64,
    shift: u32,
    /// When ids are dense enough (span <= 32 x count): a bitmap of the span
    /// and, beside each 64-bit word, the rank of its first bit (one 16-byte
    /// entry, so a lookup is one cache line and a popcount instead of a
    /// binary search; with the ranks in an array of their own it was two
    /// misses, a quarter of the degree pass).
    bits: Vec<[u64; 2]>,
    _charge: Option<Charge>,
}

impl IdMap {
    /// The identity map on `0..n`.
    pub fn identity(n: u64) -> IdMap {
        IdMap {
            ids: Vec::new(),
            n,
            identity: true,
            bucket: Vec::new(),
            min: 0,
            shift: 0,
            bits: Vec::new(),
            _charge: None,
        }
    }

    /// A map from a bitmap of the ids (bit `i` of word `w`: id `64w + i`),
    /// kept as the rank bitmap alone when the ids are dense enough (not
    /// the 8-byte list beside it: at kron-22 that list was 19 MB of a
    /// 128 MiB budget and pushed the build onto the on-disk ranking, 4x
    /// slower); `None` when they are not.
    pub fn from_bitmap(bits: &[u64], budget: &Budget) -> Result<Option<IdMap>> {
        let n: u64 = bits.iter().map(|w| w.count_ones() as u64).sum();
        let (Some(first), Some(last)) = (
            bits.iter().position(|&w| w != 0),
            bits.iter().rposition(|&w| w != 0),
        ) else {
            return Ok(Some(IdMap::identity(0)));
        };
        let min = first as u64 * 64 + bits[first].trailing_zeros() as u64;
        let max = last as u64 * 64 + 63 - bits[last].leading_zeros() as u64;
        if min == 0 && max == n - 1 {
            return Ok(Some(IdMap::identity(n)));
        }
        let span = max - min;
        if span / 64 >= n / 2 {
            return Ok(None);
        }
        // Word j of the rank bitmap holds ids min + 64j ..: bits of two
        // source words, shifted by min's offset in its word (no id lies
        // past max, so the last word needs no mask).
        let (w0, sh) = ((min / 64) as usize, (min % 64) as u32);
        let word = |i: usize| bits.get(i).copied().unwrap_or(0);
        let words = (0..(span / 64 + 1) as usize).map(|j| {
            let j = w0 + j;
            match sh {
                0 => word(j),
                _ => word(j) >> sh | word(j + 1) << (64 - sh),
            }
        });
        IdMap::ranked(min, n, words, budget).map(Some)
    }

    /// The rank-bitmap map of `n` ids from `min`, given the bitmap's words
    /// (bit `i` of word `j`: id `min + 64j + i`).
    fn ranked(
        min: u64,
        n: u64,
        words: impl ExactSizeIterator<Item = u64>,
        budget: &Budget,
    ) -> Result<IdMap> {
        let charge = budget.charge(words.len() as u64 * 16, "vertex id map")?;
        let mut r = 0u64;
        let bits = words
            .map(|w| {
                let e = [w, r];
                r += w.count_ones() as u64;
                e
            })
            .collect();
        Ok(IdMap {
            ids: Vec::new(),
            n,
            identity: false,
            bucket: Vec::new(),
            min,
            shift: 0,
            bits,
            _charge: Some(charge),
        })
    }

    /// A map from sorted distinct ids; the identity if they are exactly `0..n`.
    /// A budget error when the map does not fit ([`IdMap::try_sorted`]).
    pub fn from_sorted(ids: Vec<u64>, budget: &Budget) -> Result<IdMap> {
        Self::try_sorted(ids, budget)?.map_err(|ids| {
            Error::Budget(format!(
                "the id map of {} sparse vertex ids does not fit the budget",
                ids.len()
            ))
        })
    }

    /// [`IdMap::from_sorted`], or `Err(ids)` back when the map does not
    /// fit the budget: the ids then go to disk (`collect.rs`). So do sparse
    /// ids past 2^32 - 1 of them (whose bucket bounds would not fit 32
    /// bits, and whose list alone is 32 GiB).
    pub fn try_sorted(
        ids: Vec<u64>,
        budget: &Budget,
    ) -> Result<std::result::Result<IdMap, Vec<u64>>> {
        let n = ids.len() as u64;
        if ids.last().is_none_or(|&l| l == n - 1) {
            return Ok(Ok(IdMap::identity(n)));
        }
        let min = ids[0];
        let span = ids[ids.len() - 1] - min;
        if span / 64 < n / 2 {
            let mut words = vec![0u64; (span / 64 + 1) as usize];
            for &id in &ids {
                let o = id - min;
                words[(o >> 6) as usize] |= 1 << (o & 63);
            }
            return match IdMap::ranked(min, n, words.into_iter(), budget) {
                Ok(map) => Ok(Ok(map)),
                Err(Error::Budget(_)) => Ok(Err(ids)),
                Err(e) => Err(e),
            };
        }
        if n > u32::MAX as u64 {
            // More than a store holds is refused now, not after the ids
            // are ranked on disk.
            crate::ingest::build::check_count(n)?;
            return Ok(Err(ids));
        }
        let bits = 64 - span.leading_zeros();
        let want_bits = 64 - (n.max(2) - 1).leading_zeros() + 1; // about 2 buckets per id
        let shift = bits.saturating_sub(want_bits);
        let nb = (span >> shift) as usize + 2;
        let charge = match budget.charge((ids.len() * 8 + nb * 4) as u64, "vertex id map") {
            Ok(c) => c,
            Err(Error::Budget(_)) => return Ok(Err(ids)),
            Err(e) => return Err(e),
        };
        let mut bucket = vec![0u32; nb];
        let mut i = 0usize;
        for (b, slot) in bucket.iter_mut().enumerate() {
            while i < ids.len() && (((ids[i] - min) >> shift) as usize) < b {
                i += 1;
            }
            *slot = i as u32;
        }
        Ok(Ok(IdMap {
            ids,
            n,
            identity: false,
            bucket,
            min,
            shift,
            bits: Vec::new(),
            _charge: Some(charge),
        }))
    }

    /// Number of vertices.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True when there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// True when dense ids equal original ids.
    pub fn is_identity(&self) -> bool {
        self.identity
    }

    /// The sorted original ids, `max` at a time (none for the identity).
    pub fn for_each_original_chunk(
        &self,
        max: usize,
        f: &mut dyn FnMut(&[u64]) -> Result<()>,
    ) -> Result<()> {
        if !self.bits.is_empty() {
            let mut chunk = Vec::with_capacity(max.min(self.n as usize));
            for id in words_ids(self.bits.iter().map(|w| w[0])) {
                chunk.push(self.min + id);
                if chunk.len() == max {
                    f(&chunk)?;
                    chunk.clear();
                }
            }
            return match chunk.is_empty() {
                true => Ok(()),
                false => f(&chunk),
            };
        }
        self.ids.chunks(max.max(1)).try_for_each(f)
    }

    /// Asks for the cache line [`IdMap::dense`] will read for `orig` (the
    /// rank bitmap's entry or the bucket bound; a batched loop calls it
    /// [`AHEAD`](crate::mem::prefetch::AHEAD) lookups early).
    #[inline(always)]
    pub fn prefetch(&self, orig: u64) {
        let o = orig.wrapping_sub(self.min);
        if !self.bits.is_empty() {
            crate::mem::prefetch::prefetch(&self.bits, (o >> 6) as usize);
        } else if !self.identity {
            crate::mem::prefetch::prefetch(&self.bucket, (o >> self.shift) as usize);
        }
    }

    /// The dense id of `orig`, if it is a vertex.
    #[inline]
    pub fn dense(&self, orig: u64) -> Option<u64> {
        if self.identity {
            return (orig < self.n).then_some(orig);
        }
        if orig < self.min {
            return None;
        }
        if !self.bits.is_empty() {
            let o = orig - self.min;
            let w = (o >> 6) as usize;
            let [word, rank] = *self.bits.get(w)?;
            let below = word & ((1u64 << (o & 63)) - 1);
            return (word >> (o & 63) & 1 == 1).then(|| rank + below.count_ones() as u64);
        }
        let b = ((orig - self.min) >> self.shift) as usize;
        if b + 1 >= self.bucket.len() {
            return None;
        }
        let (lo, hi) = (self.bucket[b] as usize, self.bucket[b + 1] as usize);
        self.ids[lo..hi]
            .binary_search(&orig)
            .ok()
            .map(|i| (lo + i) as u64)
    }

    /// The original id of dense id `v`.
    #[inline]
    pub fn original(&self, v: u64) -> u64 {
        if self.identity {
            return v;
        }
        if self.bits.is_empty() {
            return self.ids[v as usize];
        }
        // The last word whose first rank is at most v, then v's bit in it.
        let w = self.bits.partition_point(|e| e[1] <= v) - 1;
        let [mut word, rank] = self.bits[w];
        for _ in rank..v {
            word &= word - 1;
        }
        self.min + w as u64 * 64 + word.trailing_zeros() as u64
    }
}
