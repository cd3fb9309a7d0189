//! The select engine's reads of a store's delta (issue 53, the L seam in
//! select): a touched vertex's list is its base list merged with its delta
//! records, an LSM-style merge on read of PartitionedVC's buffered
//! structural updates ([`crate::store::delta::merge`]: tombstones drop
//! base entries, additions go in order, weights beside); a new vertex
//! (`>= n_base`) has its records alone. Untouched vertices keep the page
//! path as it is: one bit test each.
//!
//! The base pieces of a touched vertex are withheld while the pages
//! arrive ([`Held`]) and merged once its window is read, so a touched
//! list reaches the caller whole, in one call. With
//! `OUTCORE_DELTA_SKIP=select` the engine reads the base alone (the
//! seam's red check).

use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::csr::Slot;
use crate::store::delta::{merge, skip, DeltaLists};
use crate::store::Store;

/// One direction's delta lists, held (and charged) by a select engine.
pub(super) struct Delta {
    lists: DeltaLists,
    _held: Charge,
}

impl Delta {
    /// Direction `which` of `store`'s delta, charged to `budget` as the
    /// external engine charges it; `None` without a delta (or with the
    /// seam switched off).
    pub(super) fn load(store: &Store, which: &str, budget: &Budget) -> Result<Option<Delta>> {
        if skip("select") {
            return Ok(None);
        }
        let Some(lists) = DeltaLists::load(store, which)? else {
            return Ok(None);
        };
        let held = budget.charge(lists.memory_bytes(), "delta lists")?;
        Ok(Some(Delta { lists, _held: held }))
    }

    /// True when the delta touches `v`'s list (a bit test).
    #[inline]
    pub(super) fn touched(&self, v: u64) -> bool {
        self.lists.touches(v)
    }
}

/// Base entries of touched vertices, withheld until their lists are
/// merged: (vertex, slot, neighbour, weight).
#[derive(Default)]
pub(super) struct Held {
    e: Vec<(u64, u64, u64, f64)>,
    base: Vec<(u64, f64)>,
    out: Vec<(u64, f64)>,
}

impl Held {
    /// Withholds a piece of `v`'s base list starting at `slot` (weights
    /// beside it, else 1.0).
    pub(super) fn push<T: Slot>(&mut self, v: u64, slot: u64, nbrs: &[T], ws: Option<&[f64]>) {
        let w = |i: usize| ws.map_or(1.0, |w| w[i]);
        let at = (0..nbrs.len()).map(|i| (v, slot + i as u64, nbrs[i].get(), w(i)));
        self.e.extend(at);
    }

    /// Calls `f(v, neighbours, weights)` for each touched vertex of `vs`
    /// (every occurrence) with its merged list, when not empty; then
    /// forgets what it held.
    pub(super) fn finish<T: Slot>(
        &mut self,
        d: &Delta,
        vs: &[T],
        mut f: impl FnMut(T, &[T], &[f64]) -> Result<()>,
    ) -> Result<()> {
        // A vertex named twice had its pieces read twice: one copy kept.
        self.e.sort_unstable_by_key(|x| (x.0, x.1));
        self.e.dedup_by_key(|x| (x.0, x.1));
        let (mut ids, mut ws) = (Vec::<T>::new(), Vec::<f64>::new());
        for &v in vs {
            let Some(r) = d.lists.lookup(v.get()) else {
                continue;
            };
            let lo = self.e.partition_point(|x| x.0 < r.v);
            let hi = self.e.partition_point(|x| x.0 <= r.v);
            self.base.clear();
            self.base.extend(self.e[lo..hi].iter().map(|x| (x.2, x.3)));
            merge(&self.base, &r, &mut self.out);
            ids.clear();
            ws.clear();
            ids.extend(self.out.iter().map(|x| T::of(x.0)));
            ws.extend(self.out.iter().map(|x| x.1));
            if !ids.is_empty() {
                f(v, &ids, &ws)?;
            }
        }
        self.e.clear();
        Ok(())
    }
}
