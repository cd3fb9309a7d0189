//! Core numbers (as [`crate::algo::kcore`]: direction and self-loops
//! ignored, like `networkx.core_number`) as a vertex program: h-index
//! iteration (Lü et al.; Montresor et al.'s distributed k-core). Every
//! vertex starts at infinity and sends (its id, its estimate) to its
//! neighbours in the simple graph ([`Edges::Simple`]; the id a [`Label`]:
//! u64 on a wide store, on the external engine); a vertex takes the
//! h-index of its distinct neighbours' estimates, capped by its own.
//! Messages do not combine (the h-index needs them all: PartitionedVC's
//! grouped delivery). In memory it runs in the select engine's pull mode
//! (`engine/pull.rs`: Gauss-Seidel rounds, only the neighbours a drop
//! uncounts woken), where [`KCoreVp::pull`] counts the h-index straight
//! from the neighbours' estimates and no message is built; elsewhere in
//! synchronous supersteps. The run ends when no estimate changes.

use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, Label, Value, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;
use std::marker::PhantomData;

/// The program; state: the core estimate. Messages name their sender as
/// an `L`: its id, or on a shard of a partitioned store its global id
/// (`global[v]`), so senders on different shards never share a name.
pub struct KCoreVp<L = u32> {
    global: Option<std::sync::Arc<Vec<u64>>>,
    _l: PhantomData<L>,
}

impl<L: Label> KCoreVp<L> {
    pub fn new() -> Self {
        KCoreVp {
            global: None,
            _l: PhantomData,
        }
    }

    /// On a shard whose local vertex `v` has global id `global[v]` (the
    /// shard's table, shared, not copied).
    pub fn on_shard(global: std::sync::Arc<Vec<u64>>) -> Self {
        KCoreVp {
            global: Some(global),
            _l: PhantomData,
        }
    }
}

impl<L: Label> Default for KCoreVp<L> {
    fn default() -> Self {
        Self::new()
    }
}

/// A message: the sender and its estimate (8 bytes with a u32 sender).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Sent<L> {
    pub from: L,
    pub core: u32,
}

impl<L: Label> Value for Sent<L> {
    const BYTES: usize = L::BYTES + 4;
    #[inline]
    fn put(&self, out: &mut [u8]) {
        self.from.put(out);
        out[L::BYTES..L::BYTES + 4].copy_from_slice(&self.core.to_le_bytes());
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        Sent {
            from: L::get(b),
            core: u32::from_le_bytes(b[L::BYTES..L::BYTES + 4].try_into().expect("4 bytes")),
        }
    }
}

thread_local! {
    /// [`h_index_counted`]'s counts (zero between calls).
    static COUNTS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `min(h_index(msgs), cap)`; counted ([`h_index_counted`]) when the
/// senders are distinct and ascending (the pull mode's simple lists), else
/// as [`h_index`].
pub fn h_index_capped<L: Label>(msgs: &[Sent<L>], cap: u32) -> u32 {
    if msgs.windows(2).all(|w| w[0].from < w[1].from) {
        h_index_counted(msgs.iter().map(|m| m.core), cap)
    } else {
        h_index(msgs).min(cap)
    }
}

/// The largest h <= `cap` such that at least h of `ests` (the estimates
/// of distinct neighbours) are >= h, in one pass: each estimate counted
/// at `min(est, k)` in an array of `k + 1` counts, `k = min(len, cap)`
/// (Montresor et al.'s `computeIndex`).
#[inline]
pub fn h_index_counted(ests: impl ExactSizeIterator<Item = u32>, cap: u32) -> u32 {
    let k = ests.len().min(cap as usize);
    if k == 0 {
        return 0;
    }
    COUNTS.with_borrow_mut(|counts| {
        if counts.len() < k + 1 {
            counts.resize(k + 1, 0);
        }
        let counts = &mut counts[..=k];
        for e in ests {
            counts[(e as usize).min(k)] += 1;
        }
        h_of_counts(counts)
    })
}

/// The largest h <= k (`counts[..=k]`: how many estimates equal each
/// value, those above k counted at k) such that at least h estimates are
/// >= h; leaves `counts` zeroed.
pub fn h_of_counts(counts: &mut [u32]) -> u32 {
    let mut h = 0;
    let mut at_least = 0u32;
    for c in (1..counts.len()).rev() {
        at_least += counts[c];
        if at_least as usize >= c {
            h = c as u32;
            break;
        }
    }
    counts.fill(0);
    h
}

/// The h-index of the messages' estimates, each sender counted once.
pub fn h_index<L: Label>(msgs: &[Sent<L>]) -> u32 {
    let mut vals: Vec<Sent<L>> = msgs.to_vec();
    vals.sort_unstable();
    vals.dedup_by_key(|p| p.from);
    let mut v: Vec<u32> = vals.into_iter().map(|p| p.core).collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    let mut h = 0u32;
    for (i, &x) in v.iter().enumerate() {
        if x as usize > i {
            h = i as u32 + 1;
        } else {
            break;
        }
    }
    h
}

impl<L: Label> VertexProgram for KCoreVp<L> {
    type State = u32;
    type Msg = Sent<L>;
    const COMBINES: bool = false;
    const APPLY_ALL: bool = true;

    fn name(&self) -> &'static str {
        "kcore"
    }
    fn edges(&self) -> Edges {
        Edges::Simple
    }
    fn init(&self, _info: &VertexInfo, _agg: &mut Aggregate) -> (u32, bool) {
        (u32::MAX, true)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, v: u64, s: &u32) -> Option<Sent<L>> {
        let from = match &self.global {
            None => v,
            Some(g) => g[v as usize],
        };
        Some(Sent {
            from: L::of_id(from),
            core: *s,
        })
    }
    #[inline]
    fn edge(&self, m: Sent<L>, src: u64, dst: u64, _w: f64) -> Option<Sent<L>> {
        (src != dst).then_some(m)
    }
    fn apply(&self, _v: u64, s: &mut u32, msgs: &[Sent<L>], agg: &mut Aggregate) -> bool {
        let h = h_index_capped(msgs, *s);
        if h != *s {
            *s = h;
            agg.sums[0] += 1.0;
        }
        true
    }
    /// The pull mode's fused gather: the h-index counted straight from
    /// the neighbours' estimates, capped by the vertex's own; no message.
    #[inline]
    fn pull(
        &self,
        _v: u64,
        s: &mut u32,
        nbrs: impl ExactSizeIterator<Item = (u64, u32)>,
        agg: &mut Aggregate,
    ) -> bool {
        let h = h_index_counted(nbrs.map(|(_, e)| e), *s);
        if h != *s {
            *s = h;
            agg.sums[0] += 1.0;
        }
        true
    }
    fn end(&mut self, _step: usize, agg: &Aggregate, _active: u64) -> bool {
        agg.sums[0] == 0.0
    }
    /// A neighbour `u` counted `v` while `est(v) >= est(u)`; it no longer
    /// does when `est(u)` lies in `(new, old]`.
    #[inline]
    fn wakes(&self, old: &u32, new: &u32, nbr: &u32) -> bool {
        nbr > new && nbr <= old
    }
}

/// Core numbers on the external engine, by dense id.
pub fn run(store: &Store, ext: &ExternalConfig, budget: &Budget) -> Result<(Vec<u32>, RunStats)> {
    super::collected(run_on_disk(store, ext, budget)?, budget, |x| x as u32)
}

/// [`run`] with the core numbers left on disk (senders named in u64 on a
/// wide store).
pub fn run_on_disk(
    store: &Store,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    fn on<L: Label>(
        store: &Store,
        ext: &ExternalConfig,
        budget: &Budget,
    ) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
        let mut p = KCoreVp::<L>::new();
        super::run_on_disk(store, &mut p, usize::MAX, ext, budget, |&c| c as u64)
    }
    crate::with_label!(store, on(store, ext, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Senders past 2^32 stay apart (32-bit senders would count 2^32 + 1
    /// and 1 as one neighbour); a message round-trips its encoding.
    #[test]
    fn wide_senders_stay_apart() {
        let m = |from: u64, core| Sent { from, core };
        let msgs = [m(1, 3), m((1 << 32) + 1, 3), m(1, 3), m(1 << 40, 2)];
        assert_eq!(h_index(&msgs[..3]), 2);
        assert_eq!(h_index(&msgs), 2);
        assert_eq!(h_index(&[m(1, 3), m(1, 3)]), 1);
        let mut b = [0u8; 12];
        m((1 << 40) + 3, 17).put(&mut b);
        assert_eq!(Sent::<u64>::get(&b), m((1 << 40) + 3, 17));
        assert_eq!(Sent::<u32>::BYTES, 8);
    }

    /// Counted and sorted h-indices agree, capped.
    #[test]
    fn counted_h_index_is_the_sorted_one() {
        let m = |from: u32, core| Sent { from, core };
        let msgs: Vec<Sent<u32>> = (0..40).map(|i| m(2 * i, (i * 7919) % 23)).collect();
        for cap in [0, 1, 5, 12, 40, u32::MAX] {
            for len in [0, 1, 3, 17, 40] {
                let want = h_index(&msgs[..len]).min(cap);
                assert_eq!(h_index_capped(&msgs[..len], cap), want, "{len} {cap}");
            }
        }
        // Repeated senders: counted once.
        assert_eq!(h_index_capped(&[m(1, 3), m(1, 3)], 9), 1);
    }
}
