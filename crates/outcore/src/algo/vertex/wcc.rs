//! Weakly connected components with LDBC Graphalytics semantics, as a
//! vertex program run by every engine: components ignoring direction, each
//! vertex labelled with the smallest original id in its component. Labels
//! are *ranks* (positions of the original ids among the sorted distinct
//! ids, `order.bin`), which keep the original ids' order whatever the
//! store's vertex order: the smallest rank of a component is its smallest
//! original id. A vertex whose label dropped sends it both ways along its
//! edges; messages take the minimum; labels are updated in place, so a
//! superstep sees the labels lowered earlier in it. Labels are u32, or u64
//! on a wide store ([`Label`]).

use crate::engine::external::ExternalConfig;
use crate::engine::planner::EngineChoice;
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::vertex::{Aggregate, Edges, Label, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;
use std::marker::PhantomData;

/// The program; state: the smallest rank seen, as an `L`.
pub struct WccVp<L = u32>(PhantomData<L>);

impl<L: Label> WccVp<L> {
    pub fn new() -> Self {
        WccVp(PhantomData)
    }
}

impl<L: Label> Default for WccVp<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<L: Label> VertexProgram for WccVp<L> {
    type State = L;
    type Msg = L;
    const COMBINES: bool = true;
    const IDENTITY: Option<u64> = Some(L::NONE_WORD);
    const SCATTER_PURE: bool = true;
    const IN_PLACE: bool = true;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "wcc"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (L, bool) {
        (L::of_id(info.rank), true)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &L) -> Option<L> {
        Some(*s)
    }
    #[inline]
    fn combine(a: L, b: L) -> L {
        a.min(b)
    }
    #[inline]
    fn apply(&self, _v: u64, s: &mut L, msgs: &[L], _agg: &mut Aggregate) -> bool {
        let m = msgs[0];
        if m < *s {
            *s = m;
            true
        } else {
            false
        }
    }
    fn end(&mut self, _step: usize, _agg: &Aggregate, active: u64) -> bool {
        active == 0
    }
}

/// WCC on the external engine: component labels (ranks) by dense id, 8
/// bytes a vertex whatever the store's width ([`run_on_disk`] keeps them on
/// disk).
pub fn run(store: &Store, ext: &ExternalConfig, budget: &Budget) -> Result<(Vec<u64>, RunStats)> {
    super::collected(run_on_disk(store, ext, budget)?, budget, |l| l)
}

/// [`run`] with the labels (ranks) left on disk.
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
        let mut p = WccVp::<L>::new();
        super::run_on_disk(store, &mut p, usize::MAX, ext, budget, |s: &L| s.id())
    }
    crate::with_label!(store, on(store, ext, budget))
}

/// The least budget [`planned`] runs in, at the store's label width.
pub fn required(store: &Store) -> u64 {
    fn on<L: Label>(store: &Store) -> u64 {
        crate::engine::run::required::<WccVp<L>>(store)
    }
    crate::with_label!(store, on(store))
}

/// Labels held in memory: the label (rank) of a dense id.
pub type Labels = Box<dyn Fn(u64) -> u64 + Send + Sync>;

/// WCC in memory through the planner (stream or select engine by `choice`),
/// its labels at the store's width.
pub fn planned(
    store: &Store,
    choice: EngineChoice,
    stream: StreamConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Labels, RunStats)> {
    fn on<L: Label>(
        store: &Store,
        choice: EngineChoice,
        stream: StreamConfig,
        select: &SelectConfig,
        budget: &Budget,
    ) -> Result<(Labels, RunStats)> {
        let mut p = WccVp::<L>::new();
        let (w, stats) =
            crate::engine::run(store, &mut p, usize::MAX, choice, stream, select, budget)?;
        Ok((Box::new(move |v| w[v as usize].id()), stats))
    }
    crate::with_label!(store, on(store, choice, stream, select, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranks past 2^32 stay whole in u64 labels (a 32-bit label would take
    /// 2^32 + 1 for 1); the identity is above every rank.
    #[test]
    fn u64_labels_past_32_bits() {
        let p = WccVp::<u64>::new();
        let mut agg = Aggregate::default();
        let info = VertexInfo {
            v: 3,
            rank: (1 << 33) + 5,
            out_degree: 1,
        };
        let (mut s, active) = p.init(&info, &mut agg);
        assert_eq!((s, active), ((1 << 33) + 5, true));
        let m = WccVp::<u64>::combine((1 << 32) + 1, 1 << 34);
        assert!(p.apply(3, &mut s, &[m], &mut agg));
        assert_eq!(s, (1 << 32) + 1);
        assert!(!p.apply(3, &mut s, &[(1 << 32) + 2], &mut agg));
        assert_eq!(WccVp::<u64>::IDENTITY, Some(u64::MAX));
        let mut labels = [(1u64 << 32) + 1, 1, 1, (1 << 32) + 1, (1 << 32) + 1];
        assert_eq!(
            crate::algo::cdlp::most_frequent(&mut labels),
            Some((1 << 32) + 1)
        );
    }
}
