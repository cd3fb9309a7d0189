//! Collecting an input's distinct ids inside a budget share, for the id
//! map: a bitmap over the id range while it fits (O(1) per id), else a
//! list sorted and deduplicated whenever it fills.

use super::{words_ids, IdMap};
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

fn too_many(n: usize) -> Error {
    Error::Budget(format!(
        "the input has more than {n} distinct vertex ids, whose id map does not fit the budget; raise --memory"
    ))
}

fn bitmap_ids(bits: &[u64]) -> impl Iterator<Item = u64> + '_ {
    words_ids(bits.iter().copied())
}
