//! Vertex programs (the external engine's PageRank, WCC and BFS) on the
//! stream engine's tiles (the runner with `EngineChoice::Stream`) against
//! the in-memory references: random directed and undirected graphs with
//! hubs, self-loops and duplicates (several tile blocks), segments from the
//! smallest to the default, caches from none to everything, both I/O
//! backends.

use crate::common;

use common::{dense_store as store_of, hub_edges};
use outcore::algo::pagerank::PageRankConfig;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::vertex::{bfs::BfsVp, pagerank::PageRankVp, wcc::WccVp};
use outcore::engine::planner::EngineChoice;
use outcore::engine::select::SelectConfig;
use outcore::engine::stats::RunStats;
use outcore::engine::stream::StreamConfig;
use outcore::engine::vertex::VertexProgram;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::{Store, VertexOrder};
use proptest::prelude::*;

/// The runner with the stream engine forced (`--engine stream`).
fn on_stream<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    cfg: StreamConfig,
    budget: &Budget,
) -> outcore::error::Result<(Vec<P::State>, RunStats)> {
    let sel = SelectConfig::default();
    outcore::engine::run(
        store,
        prog,
        max_steps,
        EngineChoice::Stream,
        cfg,
        &sel,
        budget,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn programs_on_tiles_match_references(
        n in 1u64..200_000,
        m in 0usize..40_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        uring in any::<bool>(),
        kind in 0u8..3,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = store_of(dir.path(), n, &hub_edges(n, m, seed), directed, false);
        let g = MemGraph::load(&store).unwrap();
        let io = Some(if uring { Backend::Uring } else { Backend::Sync });
        let (seg, cache) = match kind {
            0 => (Some(1), Some(0)),
            1 => (Some(1), Some(96 << 10)),
            _ => (None, None),
        };
        // Every hub block shared over the threads (private copies merged).
        let cfg = StreamConfig { io, segment_bytes: seg, cache_bytes: cache, share_min_edges: Some(0), ..Default::default() };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let budget = Budget::new(256 << 20);

        let pr_cfg = PageRankConfig { iterations: 5, ..Default::default() };
        let mut p = PageRankVp::new(n, &pr_cfg);
        let (s, stats) = pool.install(|| on_stream(&store, &mut p, 5, cfg.clone(), &budget)).unwrap();
        prop_assert_eq!(stats.engine.as_str(), "stream");
        let want = reference::pagerank(&g, 0.85, 5);
        for v in 0..g.n {
            prop_assert!((s[v] - want[v]).abs() <= 1e-9 * want[v].abs(), "pagerank[{}] = {} != {}", v, s[v], want[v]);
        }

        let (w, _) = pool.install(|| on_stream(&store, &mut WccVp::<u32>::new(), usize::MAX, cfg.clone(), &budget)).unwrap();
        prop_assert_eq!(w, reference::wcc(&g));

        let source = (seed % n) as u32;
        let (b, stats) = on_stream(&store, &mut BfsVp::new(source as u64), usize::MAX, cfg.clone(), &budget).unwrap();
        let b: Vec<i64> = b.iter().map(|&d| if d == u32::MAX { i64::MAX } else { d as i64 }).collect();
        prop_assert_eq!(b, reference::bfs(&g, source));
        let _ = stats;
        prop_assert_eq!(budget.used(), 0);
    }
}

/// Selective fetching: a superstep reads only the tile rows of blocks with
/// a sending vertex (four blocks, one edge in each; BFS from the last).
#[test]
fn only_sending_rows_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let b = 1u64 << 16;
    let edges: Vec<(u64, u64, f64)> = (0..4).map(|i| (i * b, i * b + 1, 1.0)).collect();
    let store = common::dense_store_in(
        dir.path(),
        4 * b,
        &edges,
        true,
        false,
        VertexOrder::Original,
    );
    let budget = Budget::new(256 << 20);
    let (d, stats) = on_stream(
        &store,
        &mut BfsVp::new(3 * b),
        usize::MAX,
        StreamConfig::default(),
        &budget,
    )
    .unwrap();
    assert_eq!(d[3 * b as usize + 1], 1);
    assert_eq!(d[1], u32::MAX);
    assert_eq!(
        stats.iterations[0].tiles_processed, 1,
        "{:?}",
        stats.iterations[0]
    );
    // PageRank sends everywhere: every tile.
    let mut p = PageRankVp::new(4 * b, &PageRankConfig::default());
    let (_, stats) = on_stream(&store, &mut p, 1, StreamConfig::default(), &budget).unwrap();
    assert_eq!(stats.iterations[0].tiles_processed, 4);
}

/// In-place min-propagation (`VertexProgram::IN_PLACE`): on a path in id order a
/// label lowered early in a superstep travels on within it, so WCC ends in
/// a few supersteps where one label hop per superstep would take ~|V|.
#[test]
fn eager_labels_travel_within_a_superstep() {
    let dir = tempfile::tempdir().unwrap();
    let n = 2_000u64;
    let edges: Vec<(u64, u64, f64)> = (0..n - 1).map(|i| (i, i + 1, 1.0)).collect();
    let store = common::dense_store_in(dir.path(), n, &edges, false, false, VertexOrder::Original);
    let budget = Budget::new(256 << 20);
    let (w, stats) = on_stream(
        &store,
        &mut WccVp::<u32>::new(),
        usize::MAX,
        StreamConfig::default(),
        &budget,
    )
    .unwrap();
    assert!(w.iter().all(|&l| l == 0));
    assert!(
        stats.iterations.len() <= 3,
        "{} supersteps",
        stats.iterations.len()
    );
}

/// Lean program state (issue 50): BFS and WCC run in place, holding a
/// 4-byte word per vertex (the depth or label, padded to whole tile
/// blocks) and one bit for the next frontier, as the kernels' 4 bytes.
/// PageRank accumulates into its state: its out and accumulator words and
/// the degrees, the kernel's bytes (18 a vertex), on the stream engine and
/// the planned one.
#[test]
fn vertex_state_is_lean() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3_000u64;
    let edges: Vec<(u64, u64, f64)> = (0..n - 1).map(|i| (i, i + 1, 1.0)).collect();
    let store = common::dense_store_in(dir.path(), n, &edges, false, false, VertexOrder::Original);
    let budget = Budget::new(256 << 20);
    let padded = n.next_multiple_of(1 << 16);
    let bits = n.div_ceil(64) * 8;
    let cfg = StreamConfig::default;
    let mut bfs = BfsVp::new(0);
    let (_, stats) = on_stream(&store, &mut bfs, usize::MAX, cfg(), &budget).unwrap();
    assert_eq!(stats.vertex_state_bytes, 4 * padded + bits);
    let mut wcc = WccVp::<u32>::new();
    let (_, stats) = on_stream(&store, &mut wcc, usize::MAX, cfg(), &budget).unwrap();
    assert_eq!(stats.vertex_state_bytes, 4 * padded + bits);
    let pr_cfg = PageRankConfig::default();
    // The hand kernel's bytes, which the program holds.
    let kernel = 16 * padded + 2 * n;
    let mut pr = PageRankVp::new(n, &pr_cfg);
    let (_, stats) = on_stream(&store, &mut pr, 3, cfg(), &budget).unwrap();
    assert_eq!(stats.vertex_state_bytes, kernel);
    let mut pr = PageRankVp::new(n, &pr_cfg);
    let sel = outcore::engine::select::SelectConfig::default();
    let auto = outcore::engine::planner::EngineChoice::Auto;
    let (_, stats) = outcore::engine::run(&store, &mut pr, 3, auto, cfg(), &sel, &budget).unwrap();
    assert_eq!(stats.vertex_state_bytes, kernel);
    assert!(
        stats.iterations.iter().all(|i| i.state_passes == 1),
        "{:?}",
        stats.iterations
    );
    assert_eq!(budget.used(), 0);
}

/// The cache keeps a tile whose column block received a change on an
/// undirected store (its edges run backward next superstep), as the
/// kernels do: BFS from 0 over the edges 0 - B and 1 - B of tile (0, 1)
/// reaches B first, then B sends back through the same tile, from the cache.
#[test]
fn tiles_sent_backward_next_stay_cached() {
    let dir = tempfile::tempdir().unwrap();
    let b = 1u64 << 16;
    let edges = [(0, b, 1.0), (1, b, 1.0)];
    let store = common::dense_store_in(
        dir.path(),
        2 * b,
        &edges,
        false,
        false,
        VertexOrder::Original,
    );
    let budget = Budget::new(256 << 20);
    let (d, stats) = on_stream(
        &store,
        &mut BfsVp::new(0),
        usize::MAX,
        StreamConfig::default(),
        &budget,
    )
    .unwrap();
    assert_eq!((d[b as usize], d[1]), (1, 2));
    let it = &stats.iterations[1];
    assert_eq!((it.cache_hits, it.cache_misses), (1, 0), "{it:?}");
}
