//! Original 64-bit ids <-> dense ids.
//!
//! Dense id = rank of the original id among all distinct ids, so the map is
//! monotone: sorting by original ids is sorting by dense ids, and the smallest
//! original id of a set is its smallest dense id (what WCC labels need).
//! Lookups go through a bucket table over the id range (one cache miss plus a
//! short search) rather than a binary search over the whole array.

use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;

/// Collects the distinct ids of an input inside a budget share.
///
/// Ids start in a bitmap over `0..=max id` (one bit per possible id, O(1) per
/// id: what SNAP-style inputs with small ids need); an id too large for the
/// bitmap's share switches to a list that is sorted and deduplicated whenever
/// it fills.
pub struct IdCollector {
    bits: Vec<u64>,
    bitmap: bool,
    adds: u64,
    ids: Vec<u64>,
    limit: usize,
    budget: Budget,
    charge: Option<Charge>,
    /// Set when the ids outgrew the share: the map must go to disk.
    outgrown: bool,
}

impl IdCollector {
    /// A collector that may use up to `bytes` (fails cleanly past that).
    pub fn new(budget: &Budget, bytes: u64) -> IdCollector {
        IdCollector {
            bits: Vec::new(),
            bitmap: true,
            adds: 0,
            ids: Vec::new(),
            limit: (bytes / 16).max(1024) as usize,
            budget: budget.clone(),
            charge: None,
            outgrown: false,
        }
    }

    /// True when an [`Self::add`] failed because the ids outgrew the share
    /// (the build then ranks them on disk instead).
    pub fn outgrown(&self) -> bool {
        self.outgrown
    }

    /// Adds an id (duplicates are fine).
    #[inline]
    pub fn add(&mut self, id: u64) -> Result<()> {
        if self.bitmap {
            self.adds += 1;
            let w = (id / 64) as usize;
            if w < self.bits.len() {
                self.bits[w] |= 1 << (id % 64);
                return Ok(());
            }
            if self.grow_bitmap(id)? {
                self.bits[w] |= 1 << (id % 64);
                return Ok(());
            }
        }
        if self.ids.len() == self.ids.capacity() {
            self.grow()?;
        }
        self.ids.push(id);
        Ok(())
    }

    /// Grows the bitmap to hold `id`, or switches to list mode (false).
    fn grow_bitmap(&mut self, id: u64) -> Result<bool> {
        let words = (id / 64 + 1).next_power_of_two().max(1024);
        // The bitmap may use the whole share (16 bytes per listed id buys 128
        // bits) but, so that a few huge ids do not allocate a huge bitmap, at
        // most 2 bytes per id seen so far beyond a 16 MiB floor.
        let cap = (self.limit as u64 * 16).min(self.adds.saturating_mul(2).max(16 << 20));
        if words.saturating_mul(8) <= cap {
            if let Ok(c) = self.budget.charge(
                (words as usize - self.bits.len()) as u64 * 8,
                "vertex id bitmap",
            ) {
                self.bits.resize(words as usize, 0);
                self.charge = Some(match self.charge.take() {
                    Some(o) => o.absorb(c),
                    None => c,
                });
                return Ok(true);
            }
        }
        // Move to list mode: the bitmap's ids become the start of the list.
        self.bitmap = false;
        let bits = std::mem::take(&mut self.bits);
        let count: u64 = bits.iter().map(|w| w.count_ones() as u64).sum();
        self.charge = None;
        let cap = (count as usize * 2).max(1 << 16);
        if cap > self.limit {
            self.outgrown = true;
            return Err(too_many(count as usize));
        }
        let charge = self.budget.charge(cap as u64 * 16, "vertex id collection");
        self.outgrown = charge.is_err();
        self.charge = Some(charge?);
        self.ids.reserve_exact(cap);
        self.ids.extend(bitmap_ids(&bits));
        Ok(false)
    }

    fn grow(&mut self) -> Result<()> {
        self.compact();
        if self.ids.len() < self.ids.capacity() / 2 {
            return Ok(());
        }
        let new_cap = (self.ids.capacity() * 2).clamp(1 << 16, self.limit);
        if new_cap <= self.ids.len() {
            self.outgrown = true;
            return Err(too_many(self.ids.len()));
        }
        // Charge before allocating: the old and new vectors coexist briefly.
        self.charge = None;
        let charge = self
            .budget
            .charge(new_cap as u64 * 16, "vertex id collection");
        self.outgrown = charge.is_err();
        let charge = charge?;
        self.ids.reserve_exact(new_cap - self.ids.len());
        self.charge = Some(charge);
        Ok(())
    }

    fn compact(&mut self) {
        use rayon::slice::ParallelSliceMut;
        self.ids.par_sort_unstable();
        self.ids.dedup();
    }

    /// The map from the distinct ids collected.
    pub fn finish(mut self) -> Result<IdMap> {
        let budget = self.budget.clone();
        let ids = if self.bitmap {
            if let Some(map) = IdMap::from_bitmap(&self.bits, &budget)? {
                return Ok(map);
            }
            bitmap_ids(&self.bits).collect()
        } else {
            self.compact();
            std::mem::take(&mut self.ids)
        };
        drop(self);
        IdMap::from_sorted(ids, &budget)
    }
}

fn check_count(n: u64) -> Result<()> {
    match n > u32::MAX as u64 {
        true => Err(Error::Invalid(format!(
            "the input has {n} distinct vertices; this version supports at most {}",
            u32::MAX
        ))),
        false => Ok(()),
    }
}

fn too_many(n: usize) -> Error {
    Error::Budget(format!(
        "the input has more than {n} distinct vertex ids, whose id map does not fit the budget; raise --memory"
    ))
}

fn bitmap_ids(bits: &[u64]) -> impl Iterator<Item = u64> + '_ {
    words_ids(bits.iter().copied())
}

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
        check_count(n)?;
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
    pub fn from_sorted(ids: Vec<u64>, budget: &Budget) -> Result<IdMap> {
        let n = ids.len() as u64;
        check_count(n)?;
        if ids.last().is_none_or(|&l| l == n - 1) {
            return Ok(IdMap::identity(n));
        }
        let min = ids[0];
        let span = ids[ids.len() - 1] - min;
        if span / 64 < n / 2 {
            let mut words = vec![0u64; (span / 64 + 1) as usize];
            for &id in &ids {
                let o = id - min;
                words[(o >> 6) as usize] |= 1 << (o & 63);
            }
            return IdMap::ranked(min, n, words.into_iter(), budget);
        }
        let bits = 64 - span.leading_zeros();
        let want_bits = 64 - (n.max(2) - 1).leading_zeros() + 1; // about 2 buckets per id
        let shift = bits.saturating_sub(want_bits);
        let nb = (span >> shift) as usize + 2;
        let charge = budget.charge((ids.len() * 8 + nb * 4) as u64, "vertex id map")?;
        let mut bucket = vec![0u32; nb];
        let mut i = 0usize;
        for (b, slot) in bucket.iter_mut().enumerate() {
            while i < ids.len() && (((ids[i] - min) >> shift) as usize) < b {
                i += 1;
            }
            *slot = i as u32;
        }
        Ok(IdMap {
            ids,
            n,
            identity: false,
            bucket,
            min,
            shift,
            bits: Vec::new(),
            _charge: Some(charge),
        })
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
    pub fn dense(&self, orig: u64) -> Option<u32> {
        if self.identity {
            return (orig < self.n).then_some(orig as u32);
        }
        if orig < self.min {
            return None;
        }
        if !self.bits.is_empty() {
            let o = orig - self.min;
            let w = (o >> 6) as usize;
            let [word, rank] = *self.bits.get(w)?;
            let below = word & ((1u64 << (o & 63)) - 1);
            return (word >> (o & 63) & 1 == 1).then(|| rank as u32 + below.count_ones());
        }
        let b = ((orig - self.min) >> self.shift) as usize;
        if b + 1 >= self.bucket.len() {
            return None;
        }
        let (lo, hi) = (self.bucket[b] as usize, self.bucket[b + 1] as usize);
        self.ids[lo..hi]
            .binary_search(&orig)
            .ok()
            .map(|i| (lo + i) as u32)
    }

    /// The original id of dense id `v`.
    #[inline]
    pub fn original(&self, v: u32) -> u64 {
        if self.identity {
            return v as u64;
        }
        if self.bits.is_empty() {
            return self.ids[v as usize];
        }
        // The last word whose first rank is at most v, then v's bit in it.
        let w = self.bits.partition_point(|e| e[1] <= v as u64) - 1;
        let [mut word, rank] = self.bits[w];
        for _ in rank..v as u64 {
            word &= word - 1;
        }
        self.min + w as u64 * 64 + word.trailing_zeros() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_are_monotone_and_exact() {
        let budget = Budget::new(1 << 30);
        for ids in [
            vec![5u64, 7, 1 << 40, u64::MAX - 1, u64::MAX],
            vec![0, 1, 2, 3],
            vec![1, 2, 3],
            vec![u32::MAX as u64 - 1, u32::MAX as u64, u32::MAX as u64 + 1],
            vec![],
            vec![42],
            // Dense enough for the rank bitmap, across many words.
            (0..5000u64)
                .map(|i| 1000 + 3 * i + (i % 7 == 0) as u64)
                .collect(),
        ] {
            let mut c = IdCollector::new(&budget, 1 << 20);
            for &x in ids.iter().rev().chain(ids.iter()) {
                c.add(x).unwrap();
            }
            let m = c.finish().unwrap();
            assert_eq!(m.len(), ids.len() as u64);
            for (i, &x) in ids.iter().enumerate() {
                assert_eq!(m.dense(x), Some(i as u32), "{ids:?}");
                assert_eq!(m.original(i as u32), x);
                if x > 0 && !ids.contains(&(x - 1)) {
                    assert_eq!(m.dense(x - 1), None);
                }
            }
            assert_eq!(m.dense(u64::MAX - 2), None);
        }
    }

    /// Random id sets (dense, sparse, offset from 0, crossing words)
    /// mapped from the collector's bitmap and from the sorted list agree
    /// on every lookup both ways and on the ids written to the store.
    #[test]
    fn bitmap_and_list_maps_agree() {
        let budget = Budget::new(1 << 30);
        let mut x: u64 = 99;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..200u64 {
            let min = next() % 300;
            let span = 1 + next() % 5000;
            let keep = 1 + next() % 100; // percent of the span present
            let mut ids: Vec<u64> = (min..=min + span).filter(|_| next() % 100 < keep).collect();
            if case % 7 == 0 {
                ids = (0..span).collect(); // the identity
            }
            let mut c = IdCollector::new(&budget, 1 << 20);
            ids.iter().try_for_each(|&v| c.add(v)).unwrap();
            let m = c.finish().unwrap();
            let l = IdMap::from_sorted(ids.clone(), &budget).unwrap();
            assert_eq!(m.len(), ids.len() as u64);
            for v in min.saturating_sub(70)..min + span + 70 {
                assert_eq!(m.dense(v), l.dense(v), "case {case}: id {v}");
            }
            for (i, &id) in ids.iter().enumerate() {
                assert_eq!(m.original(i as u32), id, "case {case}");
            }
            let mut written = Vec::new();
            m.for_each_original_chunk(100, &mut |c| {
                assert!(c.len() <= 100);
                written.extend_from_slice(c);
                Ok(())
            })
            .unwrap();
            match m.is_identity() {
                true => assert!(written.is_empty()),
                false => assert_eq!(written, ids, "case {case}"),
            }
        }
    }

    /// Ids dense in their span are kept as the rank bitmap alone: a
    /// quarter byte a possible id, not 8 bytes an id beside it (which
    /// sent kron-22 at 128 MiB onto the on-disk ranking).
    #[test]
    fn dense_ids_cost_their_rank_bitmap_only() {
        let budget = Budget::new(1 << 30);
        let n = 1u64 << 20;
        let mut c = IdCollector::new(&budget, 64 << 20);
        (0..n).try_for_each(|i| c.add(5 + 3 * i / 2)).unwrap();
        let m = c.finish().unwrap();
        assert_eq!(m.len(), n);
        let span = 3 * n / 2;
        assert!(
            budget.used() <= span / 4 + 64,
            "the map holds {} bytes for {n} ids over {span}",
            budget.used()
        );
        let list = IdMap::from_sorted((0..n).map(|i| 5 + 3 * i / 2).collect(), &budget).unwrap();
        assert!(budget.used() <= 2 * (span / 4 + 64));
        assert_eq!(list.dense(5 + 3 * 1000 / 2), Some(1000));
    }

    #[test]
    fn collector_refuses_past_its_share() {
        let budget = Budget::new(1 << 30);
        let mut c = IdCollector::new(&budget, 8 * 100_000);
        let r: Result<()> = (0..1_000_000u64).try_for_each(|i| c.add(i << 30));
        assert!(matches!(r, Err(Error::Budget(_))));
    }
}
