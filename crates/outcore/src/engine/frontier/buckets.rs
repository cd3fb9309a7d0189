//! A priority frontier: the bucket queue of delta-stepping (Meyer & Sanders)
//! with a "queued" bit per vertex. A vertex waits in the bucket of its
//! priority (SSSP: `floor(dist / delta)`); when its priority changes while
//! it waits, it is filed again and the old entry goes stale (a vertex has
//! exactly one live entry: queued, and in the bucket its priority names).
//! The buckets are sparse (an ordered map from bucket index to vertex
//! list), charged to the budget by capacity in 1 MiB steps, and compacted
//! (stale entries dropped) when more than half of them are stale or a
//! charge is refused. The caller owns the priorities: every call that
//! tells live from stale entries takes `prio(v)`, v's bucket now.

use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::size::format_size;
use crate::store::csr::Slot;
use std::collections::BTreeMap;

/// Bucket memory is charged in steps of this.
pub const BUCKET_CHUNK: u64 = 1 << 20;
/// Approximate bytes of map overhead per non-empty bucket.
const BUCKET_OVERHEAD: u64 = 64;

/// The bucket queue over ids of type `T` (u64 on a wide store).
pub struct Buckets<T: Slot> {
    buckets: BTreeMap<u64, Vec<T>>,
    /// Bit v: v has not been taken since its priority last dropped; then
    /// v has exactly one live entry, in bucket `prio(v)`.
    queued: Vec<u64>,
    queued_count: u64,
    /// Entries in `buckets`.
    entries: u64,
    /// Sum of the capacities of the vectors in `buckets`, in entries.
    cap: u64,
    /// Capacity of a taken bucket still being processed.
    held: u64,
    charges: Vec<Charge>,
    budget: Budget,
    /// The algorithm, for the budget's ledger and errors.
    what: &'static str,
}

/// The word and bit of `v`'s queued flag.
#[inline(always)]
fn flag<T: Slot>(v: T) -> (usize, u64) {
    let v = v.get();
    ((v >> 6) as usize, 1 << (v & 63))
}

impl<T: Slot> Buckets<T> {
    /// Bytes of the queued bits for `n` vertices (the caller charges them
    /// with its state; the buckets charge themselves).
    pub fn bits_bytes(n: u64) -> u64 {
        8 * n.div_ceil(64)
    }

    /// Empty buckets for `n` vertices; `what` names them in the budget's
    /// ledger and in errors ("sssp bucket queue").
    pub fn new(n: u64, budget: &Budget, what: &'static str) -> Buckets<T> {
        Buckets {
            buckets: BTreeMap::new(),
            queued: vec![0u64; n.div_ceil(64) as usize],
            queued_count: 0,
            entries: 0,
            cap: 0,
            held: 0,
            charges: Vec::new(),
            budget: budget.clone(),
            what,
        }
    }

    /// The lowest non-empty bucket (its entries may all be stale).
    pub fn first(&self) -> Option<u64> {
        self.buckets.first_key_value().map(|(&b, _)| b)
    }

    /// Vertices queued (with a live entry).
    pub fn queued_count(&self) -> u64 {
        self.queued_count
    }

    /// True when `v` is queued.
    #[inline(always)]
    pub fn is_queued(&self, v: T) -> bool {
        let (w, bit) = flag(v);
        self.queued[w] & bit != 0
    }

    /// Bytes the buckets hold (charged in [`BUCKET_CHUNK`] steps).
    pub fn bytes(&self) -> u64 {
        (self.cap + self.held) * std::mem::size_of::<T>() as u64
            + self.buckets.len() as u64 * BUCKET_OVERHEAD
    }

    /// `v`'s priority became `b` (it was `old` while queued): queues `v` in
    /// bucket `b`, or files it again when it waits in another bucket (that
    /// entry goes stale). Inlined into the caller's relaxation loop, with
    /// the growth of a list out of line ([`Buckets::push`]).
    #[inline(always)]
    pub fn update(&mut self, v: T, b: u64, old: u64, prio: impl Fn(T) -> u64) -> Result<()> {
        if !self.is_queued(v) {
            let (w, bit) = flag(v);
            self.queued[w] |= bit;
            self.queued_count += 1;
            self.push(v, b, prio)
        } else if b != old {
            self.push(v, b, prio)
        } else {
            Ok(())
        }
    }

    /// Files `v` in bucket `b`: in place when its list has room (the
    /// common case, inlined), else through [`Buckets::grow`].
    #[inline(always)]
    fn push(&mut self, v: T, b: u64, prio: impl Fn(T) -> u64) -> Result<()> {
        if let Some(list) = self.buckets.get_mut(&b) {
            if list.len() < list.capacity() {
                list.push(v);
                self.entries += 1;
                return Ok(());
            }
        }
        self.grow(v, b, prio)
    }

    /// [`Buckets::push`] when `b`'s list is full or missing: grows it and
    /// charges the growth; on a refused charge, compacts and tries again.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, v: T, b: u64, prio: impl Fn(T) -> u64) -> Result<()> {
        let fresh = !self.buckets.contains_key(&b);
        let list = self.buckets.entry(b).or_default();
        let before = list.capacity();
        list.push(v);
        let after = list.capacity();
        self.entries += 1;
        self.cap += (after - before) as u64;
        if (after == before && !fresh) || self.fit() {
            return Ok(());
        }
        // A charge was refused: drop stale entries and try again.
        self.compact(prio);
        if self.fit() {
            return Ok(());
        }
        Err(Error::Budget(format!(
            "the {} needs {} ({} vertices queued) and the budget has no room left; raise \
             --memory or give the buffer pool less",
            self.what,
            format_size(self.bytes()),
            self.queued_count
        )))
    }

    /// Charges or releases whole chunks to cover [`Buckets::bytes`]; false
    /// if a charge was refused.
    fn fit(&mut self) -> bool {
        let need = self.bytes().div_ceil(BUCKET_CHUNK) as usize;
        while self.charges.len() < need {
            match self.budget.charge(BUCKET_CHUNK, self.what) {
                Ok(c) => self.charges.push(c),
                Err(_) => return false,
            }
        }
        while self.charges.len() > need + 2 {
            self.charges.pop();
        }
        true
    }

    /// The live entries of bucket `b`, removed from the queue and
    /// unflagged; hand the list back through [`Buckets::done_with`].
    pub fn take(&mut self, b: u64, prio: impl Fn(T) -> u64) -> Vec<T> {
        let mut cur = self.buckets.remove(&b).unwrap_or_default();
        self.entries -= cur.len() as u64;
        self.cap -= cur.capacity() as u64;
        self.held += cur.capacity() as u64;
        cur.retain(|&v| {
            let (w, bit) = flag(v);
            let w = &mut self.queued[w];
            if *w & bit != 0 && prio(v) == b {
                *w &= !bit;
                self.queued_count -= 1;
                true
            } else {
                false
            }
        });
        cur
    }

    /// Releases a list from [`Buckets::take`].
    pub fn done_with(&mut self, list: Vec<T>) {
        self.held -= list.capacity() as u64;
        drop(list);
        self.fit();
    }

    /// Up to `k` queued vertices of the lowest buckets, in `order` within
    /// the last bucket named (RASP's priority-queue run-ahead), appended to
    /// `out`: at most `4 k` entries are scanned.
    pub fn lookahead(
        &self,
        k: usize,
        out: &mut Vec<T>,
        prio: impl Fn(T) -> u64,
        order: impl Fn(T, T) -> std::cmp::Ordering,
    ) {
        let mut scan = 4 * k;
        let mut cand: Vec<T> = Vec::new();
        for (&b, list) in &self.buckets {
            cand.clear();
            for &v in list.iter().take(scan) {
                if self.is_queued(v) && prio(v) == b {
                    cand.push(v);
                }
            }
            scan = scan.saturating_sub(list.len());
            let want = k - out.len();
            if cand.len() >= want {
                cand.sort_unstable_by(|&a, &c| order(a, c));
                out.extend_from_slice(&cand[..want]);
                return;
            }
            out.extend_from_slice(&cand);
            if scan == 0 {
                return;
            }
        }
    }

    /// Compacts when more than half of the entries (and over a million)
    /// are stale.
    pub fn maybe_compact(&mut self, prio: impl Fn(T) -> u64) {
        let stale = self.entries - self.queued_count;
        if stale > self.queued_count.max(1 << 20) {
            self.compact(prio);
        }
    }

    /// Drops every stale entry.
    fn compact(&mut self, prio: impl Fn(T) -> u64) {
        let queued = &self.queued;
        let (mut entries, mut cap) = (0u64, 0u64);
        self.buckets.retain(|&b, list| {
            list.retain(|&v| {
                let (w, bit) = flag(v);
                queued[w] & bit != 0 && prio(v) == b
            });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A vertex filed again leaves a stale entry that `take` skips, and
    /// the lookahead names live entries of the lowest buckets by key.
    #[test]
    fn stale_entries_are_skipped() {
        let budget = Budget::new(64 << 20);
        let mut q = Buckets::<u32>::new(100, &budget, "test");
        let mut pr = [0u64; 100];
        pr[5] = 3;
        q.update(5, 3, 3, |v| pr[v as usize]).unwrap();
        pr[7] = 3;
        q.update(7, 3, 3, |v| pr[v as usize]).unwrap();
        // 5 drops to bucket 1: its entry in 3 goes stale.
        pr[5] = 1;
        q.update(5, 1, 3, |v| pr[v as usize]).unwrap();
        assert_eq!(q.queued_count(), 2);
        let mut ahead = Vec::new();
        q.lookahead(4, &mut ahead, |v| pr[v as usize], |a, b| a.cmp(&b));
        assert_eq!(ahead, [5, 7]);
        assert_eq!(q.first(), Some(1));
        let one = q.take(1, |v| pr[v as usize]);
        assert_eq!(one, [5]);
        q.done_with(one);
        let three = q.take(3, |v| pr[v as usize]);
        assert_eq!(three, [7]);
        q.done_with(three);
        assert_eq!((q.first(), q.queued_count()), (None, 0));
        assert!(budget.used() <= 3 * BUCKET_CHUNK);
    }
}
