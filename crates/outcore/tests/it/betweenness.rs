//! Betweenness centrality against the in-memory Brandes reference: random
//! directed and undirected graphs with hubs, self-loops and parallel edges;
//! every source, sampled sources and given sources, normalized or not; in
//! memory on stream, select or the planner's pick, and on the external
//! engine with intervals from a few vertices to one, on both I/O backends;
//! weighted (Dijkstra order) against a Dijkstra Brandes on the external engine.

use crate::common::{dense_store, dense_store_in, hub_edges};
use outcore::algo::betweenness::{
    betweenness, betweenness_on_disk, reference, sample, scales, BcConfig,
};
use outcore::algo::betweenness_weighted::{reference as weighted_reference, weighted_on_disk};
use outcore::algo::reference::MemGraph;
use outcore::engine::external::ExternalConfig;
use outcore::engine::planner::EngineChoice;
use outcore::engine::results::collect;
use outcore::engine::select::SelectConfig;
use outcore::engine::stream::StreamConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use proptest::prelude::*;

fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(a, b)| (a - b).abs() <= 1e-9 * b.abs().max(1.0) || a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn betweenness_matches_brandes(
        n in 1u64..150,
        m in 0usize..900,
        seed in any::<u64>(),
        directed in any::<bool>(),
        which in prop_oneof![Just(0u8), Just(1), Just(1), Just(2), Just(2)],
        normalized in any::<bool>(),
        engine in prop_oneof![Just(EngineChoice::Auto), Just(EngineChoice::Stream), Just(EngineChoice::Select)],
        interval in prop_oneof![Just(None), (1u64..40).prop_map(Some)],
        sync in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = hub_edges(n, m, seed);
        let store = dense_store(dir.path(), n, &edges, directed, false);
        let g = MemGraph::load(&store).unwrap();
        let k = 1 + seed % n.min(6);
        let (sources, sampled) = match which {
            0 => (None, false),
            1 => (Some(sample(&store, k, seed).unwrap()), true),
            _ => (Some((0..n).filter(|v| (v + seed).is_multiple_of(11)).collect::<Vec<_>>()), false),
        };
        let cfg = BcConfig { sources: sources.clone(), sampled, normalized };
        let kk = sources.as_ref().filter(|_| sampled).map(|s| s.len() as u64);
        let want = reference(&g, sources.as_deref(), scales(n, kk, normalized, directed));
        let budget = Budget::new(64 << 20);
        let (got, stats) = betweenness(&store, &cfg, engine, StreamConfig::default(), &SelectConfig::default(), &budget).unwrap();
        prop_assert!(close(&got, &want), "in memory ({engine:?}): {got:?} != {want:?}");
        if engine == EngineChoice::Stream {
            prop_assert!(stats.iterations.iter().all(|i| i.engine == "stream"));
        }
        // The external engine spends a few supersteps per source, each a
        // pass over many small intervals: a dozen sources at most.
        if sources.as_ref().map_or(n, |s| s.len() as u64) > 12 {
            return Ok(());
        }
        let ext = ExternalConfig {
            io: Some(if sync { Backend::Sync } else { Backend::Uring }),
            interval_vertices: interval,
            ..Default::default()
        };
        let (mut vals, _) = betweenness_on_disk(&store, &cfg, &ext, &budget).unwrap();
        let got = collect(vals.as_mut(), &budget, f64::from_bits).unwrap();
        prop_assert!(close(&got, &want), "external: {got:?} != {want:?}");
        drop(vals);
        prop_assert_eq!(budget.used(), 0);
    }
}

/// A path a - b - c - d: b and c carry the paths between their sides.
#[test]
fn a_path_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let edges = vec![(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0)];
    let store = dense_store(dir.path(), 4, &edges, false, false);
    let cfg = BcConfig {
        sources: None,
        sampled: false,
        normalized: false,
    };
    let (got, _) = betweenness(
        &store,
        &cfg,
        EngineChoice::Auto,
        StreamConfig::default(),
        &SelectConfig::default(),
        &Budget::new(64 << 20),
    )
    .unwrap();
    // NetworkX: {0: 0, 1: 2, 2: 2, 3: 0} (pairs {0,2}, {0,3} through 1).
    for v in 0..4u64 {
        let want = if v == 1 || v == 2 { 2.0 } else { 0.0 };
        assert_eq!(got[crate::common::dense_id(&store, v) as usize], want);
    }
    let mut sorted = got.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(sorted, vec![0.0, 0.0, 2.0, 2.0]);
}

/// Weights from a few values whose sums tie often, and some that tie only
/// in exact arithmetic (0.1 + 0.2 != 0.3 in f64, as NetworkX compares).
fn weighted(edges: Vec<(u64, u64, f64)>, seed: u64) -> Vec<(u64, u64, f64)> {
    const W: [f64; 7] = [1.0, 2.0, 3.0, 0.5, 0.1, 0.2, 0.3];
    edges
        .into_iter()
        .enumerate()
        .map(|(i, (a, b, _))| (a, b, W[(i as u64 ^ seed) as usize % W.len()]))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Weighted (Dijkstra order) on the external engine: one resident
    /// interval, or many small ones with messages spilled to logs.
    #[test]
    fn weighted_betweenness_matches_dijkstra_brandes(
        n in 1u64..60,
        m in 0usize..300,
        seed in any::<u64>(),
        directed in any::<bool>(),
        which in prop_oneof![Just(0u8), Just(1), Just(2)],
        normalized in any::<bool>(),
        interval in prop_oneof![Just(None), (1u64..20).prop_map(Some)],
        sync in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = weighted(hub_edges(n, m, seed), seed);
        let store = dense_store(dir.path(), n, &edges, directed, true);
        let g = MemGraph::load(&store).unwrap();
        let k = 1 + seed % n.min(4);
        let (sources, sampled) = match which {
            0 if n <= 12 => (None, false),
            0 | 1 => (Some(sample(&store, k, seed).unwrap()), true),
            _ => (Some((0..n).filter(|v| (v + seed).is_multiple_of(13)).take(5).collect::<Vec<_>>()), false),
        };
        let cfg = BcConfig { sources: sources.clone(), sampled, normalized };
        let kk = sources.as_ref().filter(|_| sampled).map(|s| s.len() as u64);
        let want = weighted_reference(&g, sources.as_deref(), scales(n, kk, normalized, directed));
        let ext = ExternalConfig {
            io: Some(if sync { Backend::Sync } else { Backend::Uring }),
            interval_vertices: interval,
            ..Default::default()
        };
        let budget = Budget::new(64 << 20);
        let (mut vals, _) = weighted_on_disk(&store, &cfg, &ext, &budget).unwrap();
        let got = collect(vals.as_mut(), &budget, f64::from_bits).unwrap();
        prop_assert!(close(&got, &want), "external: {got:?} != {want:?}");
        drop(vals);
        prop_assert_eq!(budget.used(), 0);
    }
}

/// Two routes of equal weight 0.1 + 0.2 and 0.3 are not equal in f64 (as
/// NetworkX compares): only the 0.3 edge is a shortest path. A zero-weight
/// edge adds a path of the same length; a zero-weight cycle is refused.
#[test]
fn weighted_ties_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    // 0 -> 1 -> 3 (0.1 + 0.2), 0 -> 2 -> 3 (0.2 + 0.1), 0 -> 4 (0.3), 4 -> 3 (0.0)
    let edges = vec![
        (0, 1, 0.1),
        (1, 3, 0.2),
        (0, 2, 0.2),
        (2, 3, 0.1),
        (0, 4, 0.3),
        (4, 3, 0.0),
    ];
    let store = dense_store(dir.path(), 5, &edges, true, true);
    let cfg = BcConfig {
        sources: None,
        sampled: false,
        normalized: false,
    };
    let budget = Budget::new(64 << 20);
    let ext = ExternalConfig::default();
    let (mut vals, _) = weighted_on_disk(&store, &cfg, &ext, &budget).unwrap();
    let got = collect(vals.as_mut(), &budget, f64::from_bits).unwrap();
    let id = |v| crate::common::dense_id(&store, v) as usize;
    // 0.1 + 0.2 = 0.30000000000000004 > 0.3: 0 reaches 3 only through 4.
    assert_eq!((got[id(4)], got[id(1)], got[id(2)]), (1.0, 0.0, 0.0));
    // A cycle of zero weight: infinitely many shortest paths.
    let dir = tempfile::tempdir().unwrap();
    let edges = vec![(0, 1, 1.0), (1, 2, 0.0), (2, 1, 0.0), (2, 3, 1.0)];
    let store = dense_store(dir.path(), 4, &edges, true, true);
    let err = weighted_on_disk(&store, &cfg, &ext, &budget).err().unwrap();
    assert!(err.to_string().contains("zero-weight"), "{err}");
    // A negative weight is named with its edge.
    let dir = tempfile::tempdir().unwrap();
    let store = dense_store(dir.path(), 2, &[(0, 1, -1.0)], true, true);
    let err = weighted_on_disk(&store, &cfg, &ext, &budget).err().unwrap();
    assert!(err.to_string().contains("0 -> 1 has weight -1"), "{err}");
}

/// Issue 49: a store whose offsets file ends in a partial page (20,000
/// vertices: 160,008 bytes of offsets, 264 in the last page). Sources whose
/// offsets lie in that page start with a frontier of one vertex, so the
/// external engine reads just that page (a sparse superstep), which it
/// refused as a short read (vertices in their original order: the last
/// ones have lists). Unweighted with given sources, weighted with
/// given and sampled sources, one interval or several, both I/O backends:
/// every result equals the in-memory reference.
#[test]
fn an_offsets_file_ending_in_a_partial_page() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000u64;
    let edges = weighted(hub_edges(n, 3 * n as usize, 49), 49);
    let order = outcore::store::VertexOrder::Original;
    let store = dense_store_in(dir.path(), n, &edges, true, true, order);
    for f in ["csr/out.off", "csr/in.off"] {
        let len = std::fs::metadata(store.file(f)).unwrap().len();
        assert!(!len.is_multiple_of(4096), "{f}: {len} bytes");
    }
    let g = MemGraph::load(&store).unwrap();
    // The last offsets page holds the offsets of vertices 19,968 on.
    let last_page: Vec<u64> = (19_968..n)
        .filter(|&v| !g.out[v as usize].is_empty())
        .collect();
    assert!(last_page.len() >= 3, "{last_page:?}");
    let given = vec![last_page[0], last_page[last_page.len() / 2], n - 1];
    for (sources, sampled) in [(given, false), (vec![last_page[1], n - 2], true)] {
        let cfg = BcConfig {
            sources: Some(sources.clone()),
            sampled,
            normalized: false,
        };
        let k = sampled.then_some(sources.len() as u64);
        let scale = scales(n, k, false, true);
        let want = reference(&g, Some(&sources), scale);
        let want_w = weighted_reference(&g, Some(&sources), scale);
        for (io, interval) in [(Backend::Uring, None), (Backend::Sync, Some(7_000))] {
            let ext = ExternalConfig {
                io: Some(io),
                interval_vertices: interval,
                ..Default::default()
            };
            let budget = Budget::new(64 << 20);
            let (mut vals, _) = betweenness_on_disk(&store, &cfg, &ext, &budget).unwrap();
            let got = collect(vals.as_mut(), &budget, f64::from_bits).unwrap();
            assert!(close(&got, &want), "{io} {interval:?}: unweighted");
            drop(vals);
            let (mut vals, _) = weighted_on_disk(&store, &cfg, &ext, &budget).unwrap();
            let got = collect(vals.as_mut(), &budget, f64::from_bits).unwrap();
            assert!(close(&got, &want_w), "{io} {interval:?}: weighted");
        }
    }
}
