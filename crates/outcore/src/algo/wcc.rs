//! Weakly connected components with LDBC Graphalytics semantics, as one
//! vertex program run by every engine: components ignoring direction, each
//! vertex labelled with the smallest original id in its component. Labels
//! are *ranks* (positions of the original ids among the sorted distinct
//! ids, `order.bin`), which keep the original ids' order whatever the
//! store's vertex order: the smallest rank of a component is its smallest
//! original id; print a label with `OriginalIds::original_of_rank`.
//!
//! Min-label propagation: a vertex whose label dropped sends it both ways
//! along its edges, messages take the minimum. In memory the stream
//! engine's dense tile loop runs it eagerly (a label lowered early in a
//! superstep travels on in the same superstep, as G-Store's WCC does). Its
//! reference is [`crate::algo::reference`]'s `wcc`.

use crate::engine::external::ExternalConfig;
use crate::engine::planner::EngineChoice;
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
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
    const EAGER: bool = true;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "wcc"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (u32, bool) {
        (info.rank, true)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, _v: u32, s: &u32) -> Option<u32> {
        Some(*s)
    }
    #[inline]
    fn combine(a: u32, b: u32) -> u32 {
        a.min(b)
    }
    #[inline]
    fn apply(&self, _v: u32, s: &mut u32, msgs: &[u32], _agg: &mut Aggregate) -> bool {
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

/// Component labels after an in-memory run.
pub struct Wcc {
    labels: Vec<u32>,
}

impl Wcc {
    /// The component label of dense vertex `v`: the smallest rank in its
    /// component (a vertex is its component's root when the label is its
    /// own rank).
    pub fn value(&self, v: usize) -> u32 {
        self.labels[v]
    }

    /// Bytes of in-memory state for `n` vertices (see [`in_memory`]).
    pub fn state_bytes(n: u64) -> u64 {
        crate::engine::planned::state_bytes::<WccVp>(n)
    }
}

/// Runs WCC on the stream engine inside `budget`.
pub fn wcc(store: &Store, engine: StreamConfig, budget: &Budget) -> Result<(Wcc, RunStats)> {
    in_memory(
        store,
        EngineChoice::Stream,
        engine,
        &SelectConfig::default(),
        budget,
    )
}

/// Runs WCC with its state in memory, each superstep on the engine `choice`
/// names (`Auto`: the planner's).
pub fn in_memory(
    store: &Store,
    choice: EngineChoice,
    stream: StreamConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Wcc, RunStats)> {
    let (labels, stats) = crate::engine::planned::run(
        store,
        &mut WccVp,
        usize::MAX,
        choice,
        stream,
        select,
        budget,
    )?;
    Ok((Wcc { labels }, stats))
}

/// WCC on the external engine: component labels (ranks) by dense id.
pub fn run(store: &Store, ext: &ExternalConfig, budget: &Budget) -> Result<(Vec<u32>, RunStats)> {
    crate::algo::vertex::collected(run_on_disk(store, ext, budget)?, budget, |x| x as u32)
}

/// [`run`] with the labels (ranks) left on disk.
pub fn run_on_disk(
    store: &Store,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::algo::results::Values>, RunStats)> {
    crate::algo::vertex::run_on_disk(store, &mut WccVp, usize::MAX, ext, budget, |&s| s as u64)
}
