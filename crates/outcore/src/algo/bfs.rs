//! BFS with LDBC Graphalytics semantics, as one vertex program run by every
//! engine: hop depth from the source along out-edges (both directions when
//! undirected); unreachable vertices get `9223372036854775807`.
//!
//! Level-synchronous push: the vertices reached in the last superstep send
//! depth + 1 along their out-edges, messages take the minimum, an unreached
//! vertex takes it. In memory the planner runs each level on the stream
//! engine (a tile row is read when its block holds frontier vertices;
//! G-Store's selective fetching) or the select engine (the frontier's
//! lists, page by page; TurboGraph), whichever it prices lower. Its
//! reference is [`crate::algo::reference`]'s `bfs`.

use crate::engine::external::ExternalConfig;
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::Store;

pub use crate::engine::planner::{CostModel, EngineChoice};

/// Depth of an unreachable vertex in the output.
pub const UNREACHABLE: i64 = i64::MAX;

/// The program; state: the depth (`u32::MAX` unreached).
pub struct BfsVp {
    pub source: u32,
}

impl VertexProgram for BfsVp {
    type State = u32;
    type Msg = u32;
    const COMBINES: bool = true;
    const IDENTITY: Option<u64> = Some(u32::MAX as u64);
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
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, _v: u32, s: &u32) -> Option<u32> {
        Some(s + 1)
    }
    #[inline]
    fn combine(a: u32, b: u32) -> u32 {
        a.min(b)
    }
    #[inline]
    fn apply(&self, _v: u32, s: &mut u32, msgs: &[u32], _agg: &mut Aggregate) -> bool {
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

/// Depths after an in-memory run.
pub struct Bfs {
    depth: Vec<u32>,
}

impl Bfs {
    /// Hop depth of dense vertex `v` (UNREACHABLE when not reached).
    pub fn value(&self, v: usize) -> i64 {
        match self.depth[v] {
            u32::MAX => UNREACHABLE,
            d => d as i64,
        }
    }

    /// Bytes of in-memory state for `n` vertices (see [`bfs_planned`]).
    pub fn state_bytes(n: u64) -> u64 {
        crate::engine::planned::state_bytes::<BfsVp>(n)
    }
}

/// Runs BFS from dense vertex `source` on the stream engine inside `budget`.
pub fn bfs(
    store: &Store,
    source: u64,
    engine: StreamConfig,
    budget: &Budget,
) -> Result<(Bfs, RunStats)> {
    let select = SelectConfig::default();
    bfs_planned(store, source, EngineChoice::Stream, engine, select, budget)
}

/// BFS with its state in memory, each level on the engine `choice` names
/// (`Auto`: the planner's).
pub fn bfs_planned(
    store: &Store,
    source: u64,
    choice: EngineChoice,
    stream_cfg: StreamConfig,
    select_cfg: SelectConfig,
    budget: &Budget,
) -> Result<(Bfs, RunStats)> {
    if source >= store.manifest().num_vertices {
        return Err(Error::Invalid(format!(
            "source vertex {source} is not in the graph"
        )));
    }
    let mut p = BfsVp {
        source: source as u32,
    };
    let (depth, stats) = crate::engine::planned::run(
        store,
        &mut p,
        usize::MAX,
        choice,
        stream_cfg,
        &select_cfg,
        budget,
    )?;
    Ok((Bfs { depth }, stats))
}

/// BFS on the external engine: depths by dense id ([`UNREACHABLE`] when not reached).
pub fn run(
    store: &Store,
    source: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<i64>, RunStats)> {
    let depth = |d: u64| match d == u32::MAX as u64 {
        true => UNREACHABLE,
        false => d as i64,
    };
    crate::algo::vertex::collected(run_on_disk(store, source, ext, budget)?, budget, depth)
}

/// [`run`] with the depths left on disk (`u32::MAX`: unreachable).
pub fn run_on_disk(
    store: &Store,
    source: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::algo::results::Values>, RunStats)> {
    let mut p = BfsVp {
        source: source as u32,
    };
    crate::algo::vertex::run_on_disk(store, &mut p, usize::MAX, ext, budget, |&d| d as u64)
}
