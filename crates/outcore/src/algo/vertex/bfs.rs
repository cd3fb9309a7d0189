//! Breadth-first search (LDBC semantics: [`crate::algo::bfs`]) as a vertex program: the
//! vertices reached in the last superstep (depth = the level) send depth +
//! 1 along their out-edges, messages take the minimum, an unreached vertex
//! takes it. In memory it runs in place (4 bytes and a bit a vertex).

use crate::algo::bfs::UNREACHABLE;
use crate::engine::external::ExternalConfig;
use crate::engine::planner::EngineChoice;
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// The program; state: the depth (`u32::MAX` unreached).
pub struct BfsVp {
    pub source: u64,
    /// The superstep's level: the depth of the vertices that send.
    level: u32,
}

impl BfsVp {
    pub fn new(source: u64) -> BfsVp {
        BfsVp { source, level: 0 }
    }
}

impl VertexProgram for BfsVp {
    type State = u32;
    type Msg = u32;
    const COMBINES: bool = true;
    const IDENTITY: Option<u64> = Some(u32::MAX as u64);
    const IN_PLACE: bool = true;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "bfs"
    }
    fn edges(&self) -> Edges {
        Edges::Out
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (u32, bool) {
        if info.v == self.source {
            (0, true)
        } else {
            (u32::MAX, false)
        }
    }
    fn begin(&mut self, step: usize, _agg: &Aggregate) -> bool {
        self.level = step as u32;
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &u32) -> Option<u32> {
        (*s == self.level).then(|| s + 1)
    }
    #[inline]
    fn combine(a: u32, b: u32) -> u32 {
        a.min(b)
    }
    #[inline]
    fn apply(&self, _v: u64, s: &mut u32, msgs: &[u32], _agg: &mut Aggregate) -> bool {
        if *s == u32::MAX {
            *s = msgs[0];
            true
        } else {
            false
        }
    }
    fn end(&mut self, _step: usize, _agg: &Aggregate, active: u64) -> bool {
        active == 0
    }
}

/// The depth a program state stands for ([`UNREACHABLE`] for `u32::MAX`).
pub fn depth(d: u32) -> i64 {
    match d {
        u32::MAX => UNREACHABLE,
        d => d as i64,
    }
}

/// BFS in memory, each superstep on the engine `choice` names (the
/// planner's pick with `Auto`): the depths by dense id as states
/// ([`depth`] reads them).
pub fn planned(
    store: &Store,
    source: u64,
    choice: EngineChoice,
    stream: StreamConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Vec<u32>, RunStats)> {
    let mut p = BfsVp::new(source);
    crate::engine::run(store, &mut p, usize::MAX, choice, stream, select, budget)
}

/// BFS on the external engine: depths by dense id ([`UNREACHABLE`] when not reached).
pub fn run(
    store: &Store,
    source: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<i64>, RunStats)> {
    super::collected(run_on_disk(store, source, ext, budget)?, budget, |d| {
        depth(d as u32)
    })
}

/// [`run`] with the depths left on disk (`u32::MAX`: unreachable).
pub fn run_on_disk(
    store: &Store,
    source: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    let mut p = BfsVp::new(source);
    super::run_on_disk(store, &mut p, usize::MAX, ext, budget, |&d| d as u64)
}
