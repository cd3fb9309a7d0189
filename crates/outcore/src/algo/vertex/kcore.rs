//! Core numbers (as [`crate::algo::kcore`]: direction and self-loops
//! ignored, like `networkx.core_number`) as a vertex program: synchronous
//! h-index iteration (Lü et al.; Montresor et al.'s distributed k-core).
//! Every vertex starts at infinity and sends (its id, its estimate) to its
//! neighbours each superstep; a vertex takes the h-index of its distinct
//! neighbours' estimates, capped by its own. Messages do not combine (the
//! h-index needs them all: PartitionedVC's grouped delivery). The run ends
//! after a superstep in which no estimate changed.

use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{id32, Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// The program; state: the core estimate.
pub struct KCoreVp;

/// The h-index of `(sender, value)` messages, each sender counted once.
pub fn h_index(msgs: &[u64]) -> u32 {
    let mut vals: Vec<(u32, u32)> = msgs.iter().map(|&m| ((m >> 32) as u32, m as u32)).collect();
    vals.sort_unstable();
    vals.dedup_by_key(|p| p.0);
    let mut v: Vec<u32> = vals.into_iter().map(|p| p.1).collect();
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

impl VertexProgram for KCoreVp {
    type State = u32;
    type Msg = u64;
    const COMBINES: bool = false;
    const APPLY_ALL: bool = true;

    fn name(&self) -> &'static str {
        "kcore"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn init(&self, _info: &VertexInfo, _agg: &mut Aggregate) -> (u32, bool) {
        (u32::MAX, true)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, v: u64, s: &u32) -> Option<u64> {
        Some((id32(v) as u64) << 32 | *s as u64)
    }
    #[inline]
    fn edge(&self, m: u64, src: u64, dst: u64, _w: f64) -> Option<u64> {
        (src != dst).then_some(m)
    }
    fn apply(&self, _v: u64, s: &mut u32, msgs: &[u64], agg: &mut Aggregate) -> bool {
        let h = h_index(msgs).min(*s);
        if h != *s {
            *s = h;
            agg.sums[0] += 1.0;
        }
        true
    }
    fn end(&mut self, _step: usize, agg: &Aggregate, _active: u64) -> bool {
        agg.sums[0] == 0.0
    }
}

/// Core numbers on the external engine, by dense id.
pub fn run(store: &Store, ext: &ExternalConfig, budget: &Budget) -> Result<(Vec<u32>, RunStats)> {
    super::collected(run_on_disk(store, ext, budget)?, budget, |x| x as u32)
}

/// [`run`] with the core numbers left on disk.
pub fn run_on_disk(
    store: &Store,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::algo::results::Values>, RunStats)> {
    super::run_on_disk(store, &mut KCoreVp, usize::MAX, ext, budget, |&c| c as u64)
}
