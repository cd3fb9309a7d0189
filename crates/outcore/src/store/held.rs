//! A CSR direction held in memory: offsets and neighbours read once by a
//! checked sequential scan ([`scan_csr`]), for the work that reads lists at
//! random over and over when they fit the budget (Cuthill-McKee's levels,
//! random walks): one sequential pass of the disk instead of a random page
//! read per list per pass. The caller decides whether they fit
//! ([`HeldLists::bytes`]); the lists are charged while held.

use super::csr::Slot;
use super::csrscan::scan_csr;
use super::Store;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;

/// One direction's lists (`"out"` or `"in"`), neighbours as `T`.
pub struct HeldLists<T: Slot> {
    off: Vec<u64>,
    adj: Vec<T>,
    _charge: Charge,
}

/// Neighbour entries of direction `which`, at most: the base's, and with
/// a delta its records of that direction (each addition one more).
fn entries(store: &Store, which: &str) -> u64 {
    let csr = &store.manifest().csr;
    let added = store
        .delta()
        .and_then(|d| d.lists.get(which))
        .map_or(0, |l| l.records);
    added
        + match which {
            "in" => csr.in_entries,
            _ => csr.out_entries,
        }
}

impl<T: Slot> HeldLists<T> {
    /// Bytes the lists of direction `which` take held.
    pub fn bytes(store: &Store, which: &str) -> u64 {
        let n = store.manifest().num_vertices;
        8 * (n + 1) + T::WIDTH.bytes() * entries(store, which)
    }

    /// Reads direction `which` of `store`, charged to `budget`; a neighbour
    /// beyond the store's vertices (or one `T` cannot hold) is a damaged
    /// store.
    pub fn load(store: &Store, which: &str, budget: &Budget) -> Result<HeldLists<T>> {
        let charge = budget.charge(Self::bytes(store, which), "adjacency lists held")?;
        let n = store.manifest().num_vertices;
        let mut off = Vec::with_capacity(n as usize + 1);
        off.push(0);
        let mut adj = Vec::with_capacity(entries(store, which) as usize);
        let adj_file = format!("csr/{which}.adj");
        scan_csr(store, which, false, |v, _, u, _| {
            while off.len() <= v as usize {
                off.push(adj.len() as u64);
            }
            match T::of_wide(u).filter(|_| u < n) {
                Some(x) => adj.push(x),
                None => {
                    let why = format!("the list of vertex {v} holds {u}, beyond the {n} vertices");
                    return Err(Error::damaged(store.root(), &adj_file, why));
                }
            }
            Ok(())
        })?;
        while off.len() <= n as usize {
            off.push(adj.len() as u64);
        }
        Ok(HeldLists {
            off,
            adj,
            _charge: charge,
        })
    }

    /// The neighbours of `v`, ascending.
    #[inline]
    pub fn list(&self, v: u64) -> &[T] {
        &self.adj[self.off[v as usize] as usize..self.off[v as usize + 1] as usize]
    }

    /// The out-degree (or in-degree) of `v`.
    #[inline]
    pub fn degree(&self, v: u64) -> u64 {
        self.off[v as usize + 1] - self.off[v as usize]
    }
}
