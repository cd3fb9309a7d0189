//! Weakly connected components (as [`crate::algo::wcc`]) as a vertex
//! program: labels are ranks, a vertex whose label dropped sends it both
//! ways along its edges, messages take the minimum.

use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{id32, Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// The program; state: the smallest rank seen.
pub struct WccVp;

impl VertexProgram for WccVp {
    type State = u32;
    type Msg = u32;
    const COMBINES: bool = true;
    const IDENTITY: Option<u64> = Some(u32::MAX as u64);
    const SCATTER_PURE: bool = true;
    const EAGER: bool = true;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "wcc"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (u32, bool) {
        (id32(info.rank), true)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &u32) -> Option<u32> {
        Some(*s)
    }
    #[inline]
    fn combine(a: u32, b: u32) -> u32 {
        a.min(b)
    }
    #[inline]
    fn apply(&self, _v: u64, s: &mut u32, msgs: &[u32], _agg: &mut Aggregate) -> bool {
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

/// WCC on the external engine: component labels (ranks) by dense id.
pub fn run(store: &Store, ext: &ExternalConfig, budget: &Budget) -> Result<(Vec<u32>, RunStats)> {
    super::collected(run_on_disk(store, ext, budget)?, budget, |x| x as u32)
}

/// [`run`] with the labels (ranks) left on disk.
pub fn run_on_disk(
    store: &Store,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::algo::results::Values>, RunStats)> {
    super::run_on_disk(store, &mut WccVp, usize::MAX, ext, budget, |&s| s as u64)
}
