//! Run-ahead prefetch of the select engine (RASP §6.3.3, the priority-queue
//! iterator), one per engine: when a round holds fewer vertices than the
//! I/O depth, the caller's frontier names the `2 x depth` vertices it will
//! most likely process next (its own priority order: a bucket queue's
//! lookahead); once half of that window has not been requested yet (RASP's
//! "issued" filter remembers the last `8 x depth` requested), that half
//! rides along with the round's batch, so about `depth` lists are in flight
//! instead of a handful. Those lists are only read, not processed
//! ([`SelectEngine::for_each_weighted_ahead`] drops them): their pages wait
//! in the buffer pool for their own round (a wrong guess only costs a
//! read). Enabled only when the pool holds at least `32 x depth` frames, so
//! prefetched pages survive until used, and not with
//! [`super::SelectConfig::no_run_ahead`].

use super::SelectEngine;
use crate::engine::select::run::{slot_batches, VERTEX_CHUNK};
use crate::error::Result;
use crate::store::csr::Slot;
use std::collections::{HashSet, VecDeque};

/// The run-ahead state of one engine (dense ids).
pub(super) struct RunAhead {
    depth: usize,
    enabled: bool,
    issued: Issued,
    /// The last window, sorted.
    window: Vec<u64>,
}

impl RunAhead {
    /// For an engine at I/O `depth` whose pool holds `frames` pages (`off`:
    /// never).
    pub(super) fn new(depth: usize, frames: u64, off: bool) -> RunAhead {
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
    fn window<T: Slot>(&mut self, round: usize, ahead: impl FnOnce(usize, &mut Vec<T>)) {
        self.window.clear();
        if !self.enabled || round >= self.depth {
            return;
        }
        let mut named = Vec::with_capacity(2 * self.depth);
        ahead(2 * self.depth, &mut named);
        let size = named.len();
        let issued = &self.issued;
        self.window.extend(
            named
                .iter()
                .map(|v| v.get())
                .filter(|&v| !issued.contains(v)),
        );
        if 2 * self.window.len() >= size.max(1) && !self.window.is_empty() {
            self.issued.note(&self.window);
            self.window.sort_unstable();
        } else {
            self.window.clear();
        }
    }
}

/// True when `v` is in `window`: read for later, not processed now.
#[inline]
fn prefetch_only(window: &[u64], v: u64) -> bool {
    !window.is_empty() && window.binary_search(&v).is_ok()
}

impl SelectEngine {
    /// True when the engine reads ahead of small rounds.
    pub fn runs_ahead(&self) -> bool {
        self.ahead.enabled
    }

    /// [`for_each_weighted`](Self::for_each_weighted) over one round of a
    /// frontier loop, `round`, with run-ahead: `ahead(st, k, out)` names up
    /// to `k` vertices the frontier will take next, in priority order; the
    /// new ones among them are read with the round (in batches of whole
    /// lists within the engine's slot chunk, lists up to `max_deg` long)
    /// and not passed to `f(st, ..)`. `st` is the caller's state, which
    /// both read.
    pub fn for_each_weighted_ahead<T: Slot, S>(
        &mut self,
        st: &mut S,
        round: &[T],
        max_deg: u64,
        ahead: impl FnOnce(&S, usize, &mut Vec<T>),
        f: impl FnMut(&mut S, T, &[T], &[f64]) -> Result<()>,
    ) -> Result<()> {
        self.round_ahead(st, round, max_deg, ahead, true, f)
    }

    /// [`for_each_weighted_ahead`](Self::for_each_weighted_ahead) without
    /// weights (`f` gets an empty weight slice).
    pub fn for_each_list_ahead<T: Slot, S>(
        &mut self,
        st: &mut S,
        round: &[T],
        max_deg: u64,
        ahead: impl FnOnce(&S, usize, &mut Vec<T>),
        f: impl FnMut(&mut S, T, &[T], &[f64]) -> Result<()>,
    ) -> Result<()> {
        self.round_ahead(st, round, max_deg, ahead, false, f)
    }

    fn round_ahead<T: Slot, S>(
        &mut self,
        st: &mut S,
        round: &[T],
        max_deg: u64,
        ahead: impl FnOnce(&S, usize, &mut Vec<T>),
        weighted: bool,
        mut f: impl FnMut(&mut S, T, &[T], &[f64]) -> Result<()>,
    ) -> Result<()> {
        self.ahead.window(round.len(), |k, out| ahead(st, k, out));
        let mut ra = std::mem::take(&mut self.ahead.window);
        let vs: std::borrow::Cow<[T]> = if ra.is_empty() {
            round.into()
        } else {
            let mut vs = round.to_vec();
            vs.extend(ra.iter().map(|&v| T::of(v)));
            vs.into()
        };
        let mut run = || -> Result<()> {
            for chunk in vs.chunks(VERTEX_CHUNK) {
                for r in slot_batches(&mut [&mut *self], &[max_deg], chunk)? {
                    let mut each = |v: T, nbrs: &[T], ws: &[f64]| {
                        if prefetch_only(&ra, v.get()) {
                            return Ok(()); // read for a later round
                        }
                        f(st, v, nbrs, ws)
                    };
                    match weighted {
                        true => self.for_each_weighted(&chunk[r], &mut each)?,
                        false => self.for_each_list(&chunk[r], |v, nbrs| each(v, nbrs, &[]))?,
                    }
                }
            }
            Ok(())
        };
        let out = run();
        self.ahead.window = std::mem::take(&mut ra);
        out
    }
}

/// The vertices prefetched lately (RASP's "Issued" set): the last `cap`,
/// so that a vertex waiting in a later bucket is not requested in every
/// round until it is processed.
struct Issued {
    order: VecDeque<u64>,
    set: HashSet<u64>,
    cap: usize,
}

impl Issued {
    fn new(cap: usize) -> Issued {
        Issued {
            order: VecDeque::with_capacity(cap),
            set: HashSet::with_capacity(cap),
            cap,
        }
    }

    fn contains(&self, v: u64) -> bool {
        self.set.contains(&v)
    }

    fn note(&mut self, vs: &[u64]) {
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
        let mut ra = RunAhead::new(4, 1000, false);
        assert!(ra.enabled);
        // A large round: no run-ahead.
        ra.window::<u32>(4, |_, out| out.extend([1, 2]));
        assert!(ra.window.is_empty());
        // 8 candidates asked for; all new.
        ra.window::<u32>(1, |k, out| out.extend((0..k as u32).rev()));
        assert_eq!(ra.window, (0..8).collect::<Vec<u64>>());
        assert!(prefetch_only(&ra.window, 3) && !prefetch_only(&ra.window, 9));
        // Mostly issued already: nothing rides along.
        ra.window::<u32>(1, |_, out| out.extend([0, 1, 2, 3, 4, 5, 20]));
        assert!(ra.window.is_empty());
        // Half new: the new half.
        ra.window::<u32>(1, |_, out| out.extend([0, 1, 30, 31]));
        assert_eq!(ra.window, [30, 31]);
        // A small pool: never.
        let mut small = RunAhead::new(4, 100, false);
        small.window::<u32>(1, |_, out| out.push(1));
        assert!(small.window.is_empty());
    }
}
