//! Collecting an input's distinct ids inside a budget share, for the id
//! map: a bitmap over the id range while it fits (O(1) per id), else a
//! list sorted and deduplicated whenever it fills; past the share, the
//! list's ids go on into an ordered sorter on disk, and the build ranks
//! them there (`ingest/build/ondisk.rs`) instead of reading its input again.

use super::{words_ids, IdMap};
use crate::error::{Error, Result};
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::scratch::ScratchFiles;
use crate::ingest::sort::{Record, Sorted};
use crate::mem::budget::Charge;
use crate::mem::Budget;

/// The fewest ids the list holds.
const MIN_LIST: usize = 1 << 16;

/// Collects the distinct ids of an input inside a budget share.
///
/// Ids start in a bitmap over `0..=max id` (one bit per possible id, O(1) per
/// id: what SNAP-style inputs with small ids need); an id too large for the
/// bitmap's share switches to a list that is sorted and deduplicated whenever
/// it fills. A list that cannot grow within the share goes on to disk: it
/// keeps half the share as a buffer whose distinct ids, whenever it fills,
/// go to an ordered sorter holding the other half ([`Collected::Disk`]).
pub struct IdCollector {
    bits: Vec<u64>,
    bitmap: bool,
    adds: u64,
    ids: Vec<u64>,
    /// The most ids the list holds in memory (16 bytes each: itself and
    /// its growth).
    limit: usize,
    /// The bytes of the budget the collector may hold.
    share: u64,
    budget: Budget,
    charge: Option<Charge>,
    scratch: ScratchFiles,
    /// Edges the input is expected to hold (sizes the sorter's buckets).
    expected: Option<u64>,
    /// Once the ids outgrew the share: where the list's ids go.
    disk: Option<BucketSorter<Id>>,
    /// Caps the sorter's buffer (tests: spills on small inputs).
    sorter_cap: Option<u64>,
}

/// What a collector found: the map in memory, or the sorted ids on disk.
pub enum Collected {
    Map(IdMap),
    Disk(SortedIds),
}

/// Every distinct id collected, ascending, from the sorter on disk.
pub struct SortedIds {
    sorted: Sorted<Id>,
    last: Option<u64>,
    spilled: u64,
}

impl SortedIds {
    /// The next distinct id.
    pub fn next_id(&mut self) -> Result<Option<u64>> {
        while let Some(Id(v)) = self.sorted.next_record()? {
            if self.last != Some(v) {
                self.last = Some(v);
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// Bytes the ids' sorter wrote to its bucket files.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }
}

/// An id as the sorter carries it.
#[derive(Clone, Copy)]
struct Id(u64);

impl Record for Id {
    const BYTES: usize = 8;
    type Key = u64;
    #[inline(always)]
    fn key(&self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn radix_key(&self) -> u128 {
        self.0 as u128
    }
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.0.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        Id(u64::from_le_bytes(b[..8].try_into().unwrap()))
    }
    // Spilled, an id takes the bytes its bucket's range needs.
    const KEY_BYTES: usize = 8;
    fn from_key(key: u128, _: &[u8]) -> Self {
        Id(key as u64)
    }
}

impl IdCollector {
    /// A collector that may use up to `bytes` of `budget`, spilling into
    /// `scratch` past that; `expected` edges, when known, size its sorter.
    pub fn new(
        budget: &Budget,
        bytes: u64,
        scratch: &ScratchFiles,
        expected: Option<u64>,
    ) -> IdCollector {
        IdCollector {
            bits: Vec::new(),
            bitmap: true,
            adds: 0,
            ids: Vec::new(),
            limit: (bytes / 16).max(MIN_LIST as u64) as usize,
            share: bytes,
            budget: budget.clone(),
            charge: None,
            scratch: scratch.clone(),
            expected,
            disk: None,
            sorter_cap: None,
        }
    }

    /// Caps the sorter's buffer at `cap` bytes, if given (the hidden
    /// `sort_buffer_cap` option).
    pub fn capped(mut self, cap: Option<u64>) -> IdCollector {
        self.sorter_cap = cap;
        self
    }

    /// Collects on disk from the start (the hidden `external_ids` option).
    pub fn on_disk(mut self) -> Result<IdCollector> {
        self.bitmap = false;
        self.spill(std::iter::empty())?;
        self.buffer()?;
        Ok(self)
    }

    /// True once the ids went on to disk.
    pub fn spilled(&self) -> bool {
        self.disk.is_some()
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
        // The bitmap may use half the share (the other half is the
        // sorter's, should its ids go to disk; 16 bytes per listed id buys
        // 128 bits) but, so that a few huge ids do not allocate a huge
        // bitmap, at most 2 bytes per id seen so far beyond a 16 MiB floor.
        let cap = (self.share / 2).min(self.adds.saturating_mul(2).max(16 << 20));
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
        let cap = (count as usize * 2).max(MIN_LIST);
        if cap <= self.limit {
            let old = self.charge.take();
            match self.budget.charge(cap as u64 * 16, "vertex id collection") {
                Ok(c) => {
                    self.charge = Some(c);
                    self.ids.reserve_exact(cap);
                    self.ids.extend(bitmap_ids(&bits));
                    return Ok(false);
                }
                Err(_) => self.charge = old,
            }
        }
        self.spill(bitmap_ids(&bits))?;
        self.buffer()?;
        Ok(false)
    }

    /// The list is full: compacted, and grown when that freed less than
    /// half of it; at its limit (or past the budget) it goes to disk
    /// instead (a list kept at its limit was compacted ever more often as
    /// it filled: 20 s of a kron-21 read). On disk, its ids go on.
    fn grow(&mut self) -> Result<()> {
        self.compact();
        if self.ids.len() < self.ids.capacity() / 2 {
            return Ok(());
        }
        if let Some(disk) = self.disk.as_mut() {
            return disk.extend(self.ids.drain(..).map(Id));
        }
        let new_cap = (self.ids.capacity() * 2).clamp(MIN_LIST, self.limit);
        if new_cap <= self.ids.capacity() {
            return self.spill_list();
        }
        // Charge before allocating: the old and new vectors coexist briefly.
        self.charge = None;
        match self
            .budget
            .charge(new_cap as u64 * 16, "vertex id collection")
        {
            Ok(charge) => {
                self.ids.reserve_exact(new_cap - self.ids.len());
                self.charge = Some(charge);
                Ok(())
            }
            Err(_) => self.spill_list(),
        }
    }

    /// The list's ids go to disk, and the list becomes the sorter's buffer.
    fn spill_list(&mut self) -> Result<()> {
        let ids = std::mem::take(&mut self.ids);
        // The list's vector is all it holds now (not its growth).
        self.charge = None;
        self.charge = Some(
            self.budget
                .charge(ids.capacity() as u64 * 8, "vertex id collection")?,
        );
        self.spill(ids.into_iter())?;
        self.buffer()
    }

    /// Goes on to disk: an ordered sorter of half the share (at most what
    /// the budget has free) gets `held`, what the bitmap or the list held
    /// (sorted and distinct), and they are freed.
    fn spill(&mut self, held: impl Iterator<Item = u64>) -> Result<()> {
        let bytes = (self.share / 2).min(self.budget.available());
        let bytes = self.sorter_cap.map_or(bytes, |c| c.min(bytes));
        let mut disk = BucketSorter::new(
            "vertex ids",
            &self.scratch,
            &self.budget,
            bytes,
            Split::Ordered,
            self.expected.map(|m| 2 * m),
        )?;
        disk.extend(held.map(Id))?;
        self.disk = Some(disk);
        self.bits = Vec::new();
        self.ids = Vec::new();
        self.charge = None;
        Ok(())
    }

    /// The list as the sorter's buffer, the other half of the share.
    fn buffer(&mut self) -> Result<()> {
        let cap = self.limit;
        self.charge = Some(self.budget.charge(cap as u64 * 8, "vertex id buffer")?);
        self.ids.reserve_exact(cap);
        Ok(())
    }

    fn compact(&mut self) {
        use rayon::slice::ParallelSliceMut;
        self.ids.par_sort_unstable();
        self.ids.dedup();
    }

    /// The map from the distinct ids collected, or, when they went to
    /// disk or their map does not fit the budget, the ids sorted on disk.
    pub fn finish(mut self) -> Result<Collected> {
        let budget = self.budget.clone();
        if self.disk.is_none() && self.bitmap {
            match IdMap::from_bitmap(&self.bits, &budget) {
                Ok(Some(map)) => return Ok(Collected::Map(map)),
                Ok(None) => {
                    self.bitmap = false;
                    let bits = std::mem::take(&mut self.bits);
                    self.charge = None;
                    self.ids = bitmap_ids(&bits).collect();
                }
                Err(Error::Budget(_)) => {
                    let bits = std::mem::take(&mut self.bits);
                    self.spill(bitmap_ids(&bits))?;
                }
                Err(e) => return Err(e),
            }
        }
        self.compact();
        if self.disk.is_none() {
            let ids = std::mem::take(&mut self.ids);
            self.charge = None;
            match IdMap::try_sorted(ids, &budget)? {
                Ok(map) => return Ok(Collected::Map(map)),
                // The map does not fit: the ids go to disk after all.
                Err(ids) => self.spill(ids.into_iter())?,
            }
        }
        let mut disk = self.disk.take().expect("on disk");
        disk.extend(self.ids.drain(..).map(Id))?;
        self.ids = Vec::new();
        self.charge = None;
        disk.park()?;
        let spilled = disk.spilled_bytes();
        let mut sorted = disk.finish()?;
        // Read once: each bucket's file goes as soon as it is read.
        sorted.consume_once();
        Ok(Collected::Disk(SortedIds {
            sorted,
            last: None,
            spilled,
        }))
    }
}

fn bitmap_ids(bits: &[u64]) -> impl Iterator<Item = u64> + '_ {
    words_ids(bits.iter().copied())
}
