//! A superstep's frontier, the vertices that send (Ligra's vertexSubset):
//! a sorted list while it is small, else the bitset of active vertices
//! (filtered by whether each sends). The list is filled by the pass that
//! computes the messages (`superstep::MemState`'s `end`, or `begin` for
//! programs whose messages are not computed as they apply), so a sparse
//! superstep's select price and step touch its vertices, never all n.
//! A program with a priority waits in [`Buckets`] instead (delta-stepping's
//! bucket queue, `frontier/buckets.rs`).

use crate::engine::bits::Bits;

mod buckets;
mod dense;
pub use buckets::{Buckets, BUCKET_CHUNK};
pub use dense::Dense;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Frontiers of at most this many vertices are kept as lists (the select
/// engine's chunk).
pub const SPARSE_MAX: usize = 1 << 16;

/// The sending vertices of one superstep.
#[derive(Clone, Debug, Default)]
pub enum Frontier {
    /// Sorted dense ids.
    Sparse(Vec<u64>),
    /// The active bitset's set bits (a superset: each is tested to send).
    #[default]
    Dense,
}

impl Frontier {
    /// Whether the frontier is a list.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Frontier::Sparse(_))
    }

    /// The candidates in order: the list, or the set bits of `active`.
    pub fn iter<'a>(&'a self, active: &'a Bits) -> impl Iterator<Item = u64> + 'a {
        let (list, dense) = match self {
            Frontier::Sparse(l) => (Some(l.iter().copied()), None),
            Frontier::Dense => (None, Some(active.ones().map(|v| v as u64))),
        };
        list.into_iter()
            .flatten()
            .chain(dense.into_iter().flatten())
    }
}

/// Collects the frontier's list over a parallel pass of chunks in vertex
/// order: a chunk lists its senders while the senders seen so far (over
/// every chunk) are few, so a dense superstep stops listing after about a
/// chunk per thread.
#[derive(Default)]
pub struct Collect {
    seen: AtomicU64,
}

/// One chunk's senders, and whether it listed them all.
#[derive(Default)]
pub struct Part {
    pub count: u64,
    list: Vec<u64>,
    whole: bool,
}

impl Collect {
    /// A new part for a chunk starting now.
    pub fn part(&self) -> Part {
        Part {
            count: 0,
            list: Vec::new(),
            whole: self.seen.load(Relaxed) <= SPARSE_MAX as u64,
        }
    }

    /// Ends a part: adds its count to the senders seen.
    pub fn done(&self, p: &Part) {
        self.seen.fetch_add(p.count, Relaxed);
    }

    /// The frontier from the parts in vertex order.
    pub fn frontier(parts: &mut [Part]) -> Frontier {
        let total: u64 = parts.iter().map(|p| p.count).sum();
        if total > SPARSE_MAX as u64 || parts.iter().any(|p| !p.whole) {
            return Frontier::Dense;
        }
        Frontier::Sparse(
            parts
                .iter_mut()
                .flat_map(|p| std::mem::take(&mut p.list))
                .collect(),
        )
    }
}

impl Part {
    /// Counts sender `v` (and lists it while the part is whole).
    #[inline(always)]
    pub fn push(&mut self, v: usize) {
        self.count += 1;
        if self.whole {
            if self.list.len() < SPARSE_MAX {
                self.list.push(v as u64);
            } else {
                self.whole = false;
                self.list = Vec::new();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Few senders make a list in order; past SPARSE_MAX the frontier is
    /// the bitset.
    #[test]
    fn small_frontiers_are_lists() {
        let c = Collect::default();
        let mut parts: Vec<Part> = (0..3).map(|_| c.part()).collect();
        parts[0].push(5);
        parts[2].push(70);
        parts[2].push(71);
        let f = Collect::frontier(&mut parts);
        let mut active = Bits::new(100);
        active.set(9, true);
        assert_eq!(f.iter(&active).collect::<Vec<_>>(), [5, 70, 71]);
        assert_eq!(Frontier::Dense.iter(&active).collect::<Vec<_>>(), [9]);
        let mut big = c.part();
        (0..=SPARSE_MAX).for_each(|v| big.push(v));
        assert!(!Collect::frontier(&mut [big]).is_sparse());
    }
}
