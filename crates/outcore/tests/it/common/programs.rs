//! PageRank, WCC and BFS in memory on the stream engine alone (forced, as
//! `--engine stream`), with the results as vectors by dense id: how the
//! engine tests drive the programs.

use outcore::algo::pagerank::PageRankConfig;
use outcore::algo::vertex;
use outcore::engine::planner::EngineChoice;
use outcore::engine::select::SelectConfig;
use outcore::engine::stats::RunStats;
use outcore::engine::stream::StreamConfig;
use outcore::error::Result;
use outcore::mem::Budget;
use outcore::store::Store;

const STREAM: EngineChoice = EngineChoice::Stream;

pub fn pagerank(
    store: &Store,
    cfg: &PageRankConfig,
    c: StreamConfig,
    budget: &Budget,
) -> Result<(Vec<f64>, RunStats)> {
    let (ranks, _, stats) =
        vertex::pagerank::planned(store, cfg, STREAM, c, &SelectConfig::default(), budget)?;
    Ok((ranks, stats))
}

/// Labels (ranks of each component's smallest original id).
pub fn wcc(store: &Store, c: StreamConfig, budget: &Budget) -> Result<(Vec<u64>, RunStats)> {
    let (w, stats) = vertex::wcc::planned(store, STREAM, c, &SelectConfig::default(), budget)?;
    Ok(((0..store.manifest().num_vertices).map(w).collect(), stats))
}

/// Depths ([`outcore::algo::bfs::UNREACHABLE`] when not reached).
pub fn bfs(
    store: &Store,
    source: u64,
    c: StreamConfig,
    budget: &Budget,
) -> Result<(Vec<i64>, RunStats)> {
    let (d, stats) =
        vertex::bfs::planned(store, source, STREAM, c, &SelectConfig::default(), budget)?;
    Ok((d.into_iter().map(vertex::bfs::depth).collect(), stats))
}

/// Depths as [`bfs`], each level on the engine `choice` names.
pub fn bfs_on(
    store: &Store,
    source: u64,
    choice: EngineChoice,
    stream: StreamConfig,
    select: SelectConfig,
    budget: &Budget,
) -> Result<(Vec<i64>, RunStats)> {
    let (d, stats) = vertex::bfs::planned(store, source, choice, stream, &select, budget)?;
    Ok((d.into_iter().map(vertex::bfs::depth).collect(), stats))
}
