//! Vertex programs in memory with an engine per superstep (stream or select,
//! the planner's pick or forced) against the in-memory references: random
//! directed, undirected and weighted graphs, both I/O backends; the planner
//! picks select for sparse frontiers and stream for dense ones; the
//! external estimate prices the adjacency as stored.

use crate::common;

use crate::compressed_csr::store_in;
use common::{dense_store as store_of, Rng};
use outcore::algo::pagerank::PageRankConfig;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::vertex::{self, bfs::BfsVp, pagerank::PageRankVp, sssp::SsspVp, wcc::WccVp};
use outcore::engine;
use outcore::engine::external::ExternalConfig;
use outcore::engine::planner::EngineChoice;
use outcore::engine::select::SelectConfig;
use outcore::engine::stream::StreamConfig;
use outcore::ingest::build::BuildOptions;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

fn random_edges(n: u64, m: usize, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    (0..m)
        .map(|i| {
            let s = if i % 4 == 0 {
                r.below(3.min(n))
            } else {
                r.below(n)
            };
            (s, r.below(n), (r.below(40) as f64) / 4.0)
        })
        .collect()
}

fn depths(d: &[u32]) -> Vec<i64> {
    d.iter()
        .map(|&x| if x == u32::MAX { i64::MAX } else { x as i64 })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn planned_programs_match_references(
        n in 1u64..100_000,
        m in 0usize..30_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        uring in any::<bool>(),
        choice in prop_oneof![Just(EngineChoice::Auto), Just(EngineChoice::Stream), Just(EngineChoice::Select)],
        wide in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        // A wide store's select steps read u64 ids.
        let opts = BuildOptions {
            directed,
            weighted: true,
            memory: 256 << 20,
            group_tiles: 2,
            csr_id_bytes: if wide { 8 } else { 4 },
            ..Default::default()
        };
        let store = store_in(dir.path(), n, &random_edges(n, m, seed), &opts);
        let g = MemGraph::load(&store).unwrap();
        let io = Some(if uring { Backend::Uring } else { Backend::Sync });
        let scfg = StreamConfig { io, ..Default::default() };
        let sel = SelectConfig { io, ..Default::default() };
        let budget = Budget::new(256 << 20);

        let pr = PageRankConfig { iterations: 4, ..Default::default() };
        let mut p = PageRankVp::new(n, &pr);
        let (s, _) = engine::run(&store, &mut p, 4, choice, scfg.clone(), &sel, &budget).unwrap();
        let want = reference::pagerank(&g, 0.85, 4);
        for v in 0..g.n {
            prop_assert!((s[v] - want[v]).abs() <= 1e-9 * want[v], "pagerank[{}]", v);
        }
        let (w, _) = engine::run(&store, &mut WccVp::<u32>::new(), usize::MAX, choice, scfg.clone(), &sel, &budget).unwrap();
        prop_assert_eq!(w, reference::wcc(&g));
        let source = (seed % n) as u32;
        let (b, _) = engine::run(&store, &mut BfsVp::new(source as u64), usize::MAX, choice, scfg.clone(), &sel, &budget).unwrap();
        prop_assert_eq!(depths(&b), reference::bfs(&g, source));
        // Weighted: select only (auto picks it; stream refuses).
        let mut sp = SsspVp::new(source as u64, None);
        let r = engine::run(&store, &mut sp, usize::MAX, choice, scfg.clone(), &sel, &budget);
        if choice == EngineChoice::Stream {
            prop_assert!(r.is_err());
        } else {
            let (d, _) = r.unwrap();
            let want = reference::sssp(&g, source);
            for v in 0..g.n {
                prop_assert!(d[v] == want[v] || (d[v] - want[v]).abs() <= 1e-9 * want[v], "sssp[{}]", v);
            }
        }
        prop_assert_eq!(budget.used(), 0);
    }
}

/// A program's init reads ranks and degrees a batch (2^20 vertices) at a
/// time and computes the word forms (BFS and WCC in place, PageRank
/// accumulating) in parallel chunks: a graph past one batch, not a whole
/// number of chunks, with sinks, isolated vertices and ranks that are not
/// the dense ids (degree order), against the references.
#[test]
fn programs_initialise_past_one_batch() {
    let dir = tempfile::tempdir().unwrap();
    let n = (1u64 << 20) + 3 * 16_384 + 77;
    let edges = random_edges(n, 1_500_000, 7);
    let store = store_of(dir.path(), n, &edges, true, false);
    assert!(store.manifest().has_order_map);
    let g = MemGraph::load(&store).unwrap();
    let budget = Budget::new(2 << 30);
    let (scfg, sel) = (StreamConfig::default(), SelectConfig::default());
    let auto = EngineChoice::Auto;
    let pr = PageRankConfig {
        iterations: 3,
        ..Default::default()
    };
    let mut p = PageRankVp::new(n, &pr);
    let (s, _) = engine::run(&store, &mut p, 3, auto, scfg.clone(), &sel, &budget).unwrap();
    let want = reference::pagerank(&g, 0.85, 3);
    for v in 0..g.n {
        assert!((s[v] - want[v]).abs() <= 1e-9 * want[v], "pagerank[{v}]");
    }
    let mut w = WccVp::<u32>::new();
    let (w, _) = engine::run(
        &store,
        &mut w,
        usize::MAX,
        auto,
        scfg.clone(),
        &sel,
        &budget,
    )
    .unwrap();
    assert!(w == reference::wcc(&g), "wcc labels differ");
    let source = n - 5;
    let (b, _) = engine::run(
        &store,
        &mut BfsVp::new(source),
        usize::MAX,
        auto,
        scfg,
        &sel,
        &budget,
    )
    .unwrap();
    assert!(
        depths(&b) == reference::bfs(&g, source as u32),
        "bfs depths differ"
    );
    assert_eq!(budget.used(), 0);
}

/// The planner: a path graph's BFS has one-vertex frontiers (select every
/// superstep); PageRank sends from every vertex (stream every superstep).
/// BFS runs in place (no pass over the state) over a listed frontier;
/// PageRank computes its next messages as it applies (one pass a
/// superstep, the first messages computed at init).
#[test]
fn sparse_supersteps_go_select_dense_ones_stream() {
    let dir = tempfile::tempdir().unwrap();
    let n = 200_000u64;
    let mut edges: Vec<(u64, u64, f64)> = (0..n - 1).map(|v| (v, v + 1, 1.0)).collect();
    edges.extend((0..n).map(|v| (v, (v * 7919) % n, 1.0)));
    let store = store_of(dir.path(), n, &edges, true, false);
    let budget = Budget::new(512 << 20);
    let sel = SelectConfig::default();
    let (_, stats) = engine::run(
        &store,
        &mut BfsVp::new(common::dense_id(&store, 0)),
        8,
        EngineChoice::Auto,
        StreamConfig::default(),
        &sel,
        &budget,
    )
    .unwrap();
    assert!(
        stats.iterations.iter().all(|i| i.engine == "select"),
        "{:?}",
        stats
            .iterations
            .iter()
            .map(|i| i.engine)
            .collect::<Vec<_>>()
    );
    let passes = |s: &outcore::engine::stats::RunStats| -> Vec<u64> {
        s.iterations.iter().map(|i| i.state_passes).collect()
    };
    assert_eq!(passes(&stats), [0; 8]);
    assert!(stats.iterations.iter().all(|i| i.sparse_frontier));
    let mut p = PageRankVp::new(
        n,
        &PageRankConfig {
            iterations: 3,
            ..Default::default()
        },
    );
    let (_, stats) = engine::run(
        &store,
        &mut p,
        3,
        EngineChoice::Auto,
        StreamConfig::default(),
        &sel,
        &budget,
    )
    .unwrap();
    assert!(
        stats.iterations.iter().all(|i| i.engine == "stream"),
        "{:?}",
        stats
            .iterations
            .iter()
            .map(|i| i.engine)
            .collect::<Vec<_>>()
    );
    assert_eq!(passes(&stats), [1, 1, 1]);
    assert!(stats.iterations.iter().all(|i| !i.sparse_frontier));
    let e = stats.iterations[0].planner.unwrap();
    assert!(
        e.stream_seconds < e.select_seconds && e.external_bytes > 0,
        "{e:?}"
    );
}

/// The external engine's planner prices the adjacency as it is stored: the
/// estimate of an all-active superstep (PageRank's first) differs between
/// stores of one graph by the difference of their adjacency files (8-byte
/// slots, coded pages), and by the weights when the program reads them.
#[test]
fn the_external_estimate_prices_the_adjacency_as_stored() {
    let n = 20_000;
    let edges = random_edges(n, 80_000, 3);
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, csr_id_bytes, compress| {
        let opts = BuildOptions {
            directed: true,
            weighted: true,
            csr_id_bytes,
            compress,
            memory: 128 << 20,
            ..Default::default()
        };
        store_in(&dir.path().join(name), n, &edges, &opts)
    };
    let stores = [
        build("narrow", 4, false),
        build("wide", 8, false),
        build("coded", 4, true),
    ];
    let ext = ExternalConfig {
        grid: Some(false),
        ..Default::default()
    };
    let budget = Budget::new(64 << 20);
    let cfg = PageRankConfig {
        iterations: 1,
        ..Default::default()
    };
    let first = |s: &Store, weighted: bool| {
        let run = match weighted {
            true => vertex::pagerank::run_weighted,
            false => vertex::pagerank::run,
        };
        let (_, _, stats) = run(s, &cfg, &ext, &budget).unwrap();
        stats.iterations[0].planner.unwrap().external_bytes as i64
    };
    let adj: Vec<i64> = stores
        .iter()
        .map(|s| s.manifest().adjacency_bytes("out") as i64)
        .collect();
    let m = stores[0].manifest();
    assert_eq!(adj[0] as u64, 4 * m.csr.out_slots);
    assert_eq!(adj[1] as u64, 8 * stores[1].manifest().csr.out_slots);
    assert!(adj[2] < adj[0] / 2, "{adj:?}");
    let est: Vec<i64> = stores.iter().map(|s| first(s, false)).collect();
    for i in 1..3 {
        let d = (est[i] - est[0]) - (adj[i] - adj[0]);
        assert!(
            d.abs() <= 16,
            "store {i}: estimates {est:?}, adjacency {adj:?}"
        );
    }
    let weights = 8 * m.csr.out_slots as i64;
    let d = first(&stores[0], true) - est[0] - weights;
    assert!(d.abs() <= 16, "weights priced off by {d}");
    // The in-memory planner's external estimate, likewise (scaled by the
    // share of vertices sending: those with out-edges).
    let planned_est = |s: &Store| {
        let mut p = PageRankVp::new(n, &cfg);
        let sel = SelectConfig::default();
        let (_, stats) = engine::run(
            s,
            &mut p,
            1,
            EngineChoice::Auto,
            StreamConfig::default(),
            &sel,
            &budget,
        )
        .unwrap();
        stats.iterations[0].planner.unwrap().external_bytes as i64
    };
    let est: Vec<i64> = stores.iter().map(planned_est).collect();
    let share = |i: usize| (est[i] - est[0]) as f64 / (adj[i] - adj[0]) as f64;
    assert!(
        share(1) > 0.5 && share(1) <= 1.0 && (share(1) - share(2)).abs() < 1e-3,
        "planned: estimates {est:?}, adjacency {adj:?}"
    );
    // BFS's hybrid planner, likewise, level by level (scaled by the share
    // of the vertices in the frontier).
    let bfs_est = |s: &Store| {
        let (_, stats) = crate::common::programs::bfs_on(
            s,
            0,
            EngineChoice::Auto,
            StreamConfig::default(),
            SelectConfig::default(),
            &budget,
        )
        .unwrap();
        let it = &stats.iterations;
        it.iter()
            .map(|i| (i.active_vertices, i.planner.unwrap().external_bytes as i64))
            .collect::<Vec<_>>()
    };
    let levels: Vec<_> = stores.iter().map(bfs_est).collect();
    assert!(levels[0].len() > 2, "{levels:?}");
    for i in 1..3 {
        assert_eq!(levels[i].len(), levels[0].len());
        for (&(a, e), &(_, e0)) in levels[i].iter().zip(&levels[0]) {
            let want = (adj[i] - adj[0]) as f64 * a as f64 / n as f64;
            assert!(
                ((e - e0) as f64 - want).abs() <= 2.0,
                "bfs, store {i}: {levels:?}, adjacency {adj:?}"
            );
        }
    }
}
