//! The select engine's reads of a store's delta (issue 53, the L seam in
//! select): a touched vertex's list is its base list merged with its delta
//! records, an LSM-style merge on read of PartitionedVC's buffered
//! structural updates ([`crate::store::delta::merge`]: tombstones drop
//! base entries, additions go in order, weights beside); a new vertex
//! (`>= n_base`) has its records alone. Untouched vertices keep the page
//! path as it is: one bit test each.
//!
//! A touched vertex's base pieces reach the caller as they arrive, less
//! the entries its tombstones remove ([`Scratch::kept`]); its additions
//! follow as one more piece once its window's pages are read
//! ([`Scratch::additions`]): nothing is held beyond a piece, and a
//! replaced weight is a tombstone and an addition. The delta's records
//! are read a window at a time too ([`PagedLists::window`]): the engine
//! holds `.bits`, `.rnk` and page sums, charged; a window's records live
//! while its pieces are delivered. With
//! `OUTCORE_DELTA_SKIP=select` the engine reads the base alone (the
//! seam's red check).

use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::csr::Slot;
use crate::store::delta::{skip, PagedLists, Window};
use crate::store::Store;

/// One direction's delta lists, opened (what it holds charged) by a
/// select engine.
pub(super) struct Delta {
    lists: PagedLists,
    _held: Charge,
}

impl Delta {
    /// Direction `which` of `store`'s delta, what it holds charged to
    /// `budget`; `None` without a delta (or with the seam switched off).
    pub(super) fn load(store: &Store, which: &str, budget: &Budget) -> Result<Option<Delta>> {
        if skip("select") {
            return Ok(None);
        }
        let Some(lists) = PagedLists::open(store, which)? else {
            return Ok(None);
        };
        let held = budget.charge(lists.memory_bytes(), "delta lists")?;
        Ok(Some(Delta { lists, _held: held }))
    }

    /// The records of the touched vertices among `vs`.
    pub(super) fn window<T: Slot>(&self, vs: &[T]) -> Result<Window> {
        self.lists.window(vs.iter().map(|v| v.get()))
    }
}

/// Scratch of the merge on read: a base piece without its tombstoned
/// entries, a vertex's additions.
pub(super) struct Scratch<T> {
    ids: Vec<T>,
    ws: Vec<f64>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            ids: Vec::new(),
            ws: Vec::new(),
        }
    }
}

impl<T: Slot> Scratch<T> {
    /// Base piece `nbrs` (weights `ws`, or none) of `v` with the entries
    /// the delta removes dropped; `None` when the delta leaves `v` alone.
    pub(super) fn kept(
        &mut self,
        d: &Window,
        v: u64,
        nbrs: &[T],
        ws: &[f64],
    ) -> Option<(&[T], &[f64])> {
        let r = d.lookup(v)?;
        self.ids.clear();
        self.ws.clear();
        for (k, &u) in nbrs.iter().enumerate() {
            if !r.removes(u.get()) {
                self.ids.push(u);
                if let Some(&w) = ws.get(k) {
                    self.ws.push(w);
                }
            }
        }
        Some((&self.ids, &self.ws))
    }

    /// Calls `f(v, additions, weights)` for each vertex of `vs` (every
    /// occurrence) the delta adds to.
    pub(super) fn additions(
        &mut self,
        d: &Window,
        vs: &[T],
        mut f: impl FnMut(T, &[T], &[f64]) -> Result<()>,
    ) -> Result<()> {
        for &v in vs {
            let Some(r) = d.lookup(v.get()) else {
                continue;
            };
            self.ids.clear();
            self.ws.clear();
            for (u, w) in r.additions() {
                self.ids.push(T::of(u));
                self.ws.push(w);
            }
            if !self.ids.is_empty() {
                f(v, &self.ids, &self.ws)?;
            }
        }
        Ok(())
    }
}
