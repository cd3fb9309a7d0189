//! Run-ahead prefetch for frontier loops on the select engine (RASP §6.3.3,
//! the priority-queue iterator): when a round holds fewer vertices than the
//! I/O depth, the algorithm names the `2 x depth` vertices it will most
//! likely process next (its own priority order); once half of that window
//! has not been requested yet (RASP's "issued" filter remembers the last
//! `8 x depth` requested), that half rides along with the round's batch, so
//! about `depth` lists are in flight instead of a handful. Those lists are
//! only read, not processed: their pages wait in the buffer pool for their
//! own round (a wrong guess only costs a read). Enabled only when the pool
//! holds at least `32 x depth` frames, so prefetched pages survive until used.

use crate::store::csr::Slot;
use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

/// The run-ahead state of one loop, over ids of type `T` (the select
/// engine's caller's: u64 on a wide store).
pub struct RunAhead<T: Slot + Hash> {
    depth: usize,
    enabled: bool,
    issued: Issued<T>,
    window: Vec<T>,
}

impl<T: Slot + Hash> RunAhead<T> {
    /// For an engine at I/O `depth` whose pool holds `frames` pages
    /// (`off`: never, as [`super::select::SelectConfig::no_run_ahead`]).
    pub fn new(depth: usize, frames: u64, off: bool) -> RunAhead<T> {
        RunAhead {
            depth,
            enabled: !off && frames >= 32 * depth as u64,
            issued: Issued::new(8 * depth),
            window: Vec::new(),
        }
    }

    /// The vertices to read along with a round of `round` vertices (sorted;
    /// empty when the round is large enough or nothing new is ahead);
    /// `ahead(k, out)` appends up to `k` vertices in priority order.
    pub fn window(&mut self, round: usize, ahead: impl FnOnce(usize, &mut Vec<T>)) -> &[T] {
        self.window.clear();
        if !self.enabled || round >= self.depth {
            return &self.window;
        }
        ahead(2 * self.depth, &mut self.window);
        let size = self.window.len();
        let issued = &self.issued;
        self.window.retain(|&v| !issued.contains(v));
        if 2 * self.window.len() >= size.max(1) && !self.window.is_empty() {
            self.issued.note(&self.window);
            self.window.sort_unstable();
        } else {
            self.window.clear();
        }
        &self.window
    }

    /// True when `v` is in the last window: read for later, not processed now.
    pub fn prefetch_only(&self, v: T) -> bool {
        !self.window.is_empty() && self.window.binary_search(&v).is_ok()
    }

    /// False when the pool is too small for run-ahead.
    pub fn enabled(&self) -> bool {
        self.enabled
    }
}

/// The vertices prefetched lately (RASP's "Issued" set): the last `cap`,
/// so that a vertex waiting in a later bucket is not requested in every
/// phase until it is processed.
struct Issued<T> {
    order: VecDeque<T>,
    set: HashSet<T>,
    cap: usize,
}

impl<T: Slot + Hash> Issued<T> {
    fn new(cap: usize) -> Issued<T> {
        Issued {
            order: VecDeque::with_capacity(cap),
            set: HashSet::with_capacity(cap),
            cap,
        }
    }

    fn contains(&self, v: T) -> bool {
        self.set.contains(&v)
    }

    fn note(&mut self, vs: &[T]) {
        for &v in vs {
            if self.set.insert(v) {
                self.order.push_back(v);
            }
            while self.order.len() > self.cap {
                let old = self.order.pop_front().expect("non-empty");
                self.set.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_hold_only_what_was_not_requested() {
        let mut ra = RunAhead::<u32>::new(4, 1000, false);
        assert!(ra.enabled());
        // A large round: no run-ahead.
        assert!(ra.window(4, |_, out| out.extend([1, 2])).is_empty());
        // 8 candidates asked for; all new.
        let w = ra
            .window(1, |k, out| out.extend((0..k as u32).rev()))
            .to_vec();
        assert_eq!(w, (0..8).collect::<Vec<_>>());
        assert!(ra.prefetch_only(3) && !ra.prefetch_only(9));
        // Mostly issued already: nothing rides along.
        assert!(ra
            .window(1, |_, out| out.extend([0, 1, 2, 3, 4, 5, 20]))
            .is_empty());
        // Half new: the new half.
        assert_eq!(ra.window(1, |_, out| out.extend([0, 1, 30, 31])), &[30, 31]);
        // A small pool: never.
        let mut small = RunAhead::<u32>::new(4, 100, false);
        assert!(small.window(1, |_, out| out.push(1)).is_empty());
    }
}
