//! The SSSP bucket queue: sparse buckets of vertex ids (an ordered map from
//! bucket index to vertex list, stale entries included), charged to the
//! budget by capacity in 1 MiB steps and compacted by its owner
//! ([`super::state::State`]).

use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::csr::Slot;
use std::collections::BTreeMap;

/// Bucket-queue memory is charged in steps of this.
pub(super) const QUEUE_CHUNK: u64 = 1 << 20;
/// Approximate bytes of map overhead per non-empty bucket.
const BUCKET_OVERHEAD: u64 = 64;

/// The bucket queue: sparse buckets of vertex ids (with stale entries),
/// charged to the budget by capacity; ids of type `T` (u64 on a wide
/// store).
pub(super) struct Queue<T: Slot> {
    pub(super) buckets: BTreeMap<u64, Vec<T>>,
    /// Entries in `buckets`.
    pub(super) entries: u64,
    /// Sum of the capacities of the vectors in `buckets`, in entries.
    cap: u64,
    /// Capacity of a taken bucket still being processed.
    held: u64,
    charges: Vec<Charge>,
    budget: Budget,
}

impl<T: Slot> Queue<T> {
    pub(super) fn new(budget: &Budget) -> Queue<T> {
        Queue {
            buckets: BTreeMap::new(),
            entries: 0,
            cap: 0,
            held: 0,
            charges: Vec::new(),
            budget: budget.clone(),
        }
    }

    pub(super) fn first(&self) -> Option<u64> {
        self.buckets.first_key_value().map(|(&b, _)| b)
    }

    pub(super) fn bytes(&self) -> u64 {
        (self.cap + self.held) * std::mem::size_of::<T>() as u64
            + self.buckets.len() as u64 * BUCKET_OVERHEAD
    }

    /// Pushes; false if the memory charge was refused (the entry is in).
    pub(super) fn push(&mut self, b: u64, v: T) -> bool {
        let fresh = !self.buckets.contains_key(&b);
        let list = self.buckets.entry(b).or_default();
        let before = list.capacity();
        list.push(v);
        let after = list.capacity();
        self.entries += 1;
        if after != before || fresh {
            self.cap += (after - before) as u64;
            return self.fit();
        }
        true
    }

    /// Charges or releases whole chunks to cover [`Queue::bytes`]; false if
    /// a charge was refused.
    pub(super) fn fit(&mut self) -> bool {
        let need = self.bytes().div_ceil(QUEUE_CHUNK) as usize;
        while self.charges.len() < need {
            match self.budget.charge(QUEUE_CHUNK, "sssp bucket queue") {
                Ok(c) => self.charges.push(c),
                Err(_) => return false,
            }
        }
        while self.charges.len() > need + 2 {
            self.charges.pop();
        }
        true
    }

    /// Removes bucket `b` (empty if absent); its memory stays counted until
    /// [`Queue::done_with`].
    pub(super) fn take(&mut self, b: u64) -> Vec<T> {
        let list = self.buckets.remove(&b).unwrap_or_default();
        self.entries -= list.len() as u64;
        self.cap -= list.capacity() as u64;
        self.held += list.capacity() as u64;
        list
    }

    /// Releases a list from [`Queue::take`].
    pub(super) fn done_with(&mut self, list: Vec<T>) {
        self.held -= list.capacity() as u64;
        drop(list);
        self.fit();
    }

    pub(super) fn retain(&mut self, keep: impl Fn(u64, T) -> bool) {
        let (mut entries, mut cap) = (0u64, 0u64);
        self.buckets.retain(|&b, list| {
            list.retain(|&v| keep(b, v));
            list.shrink_to_fit();
            entries += list.len() as u64;
            cap += list.capacity() as u64;
            !list.is_empty()
        });
        self.entries = entries;
        self.cap = cap;
        self.fit();
    }
}
