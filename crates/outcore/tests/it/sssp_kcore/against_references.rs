//! SSSP against Dijkstra and k-core against peeling: random graphs (property
//! tests) and tiny graphs, both I/O backends, several pools and deltas.

use super::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn sssp_matches_dijkstra(
        big in 0u8..6,
        n_small in 1u64..3000,
        m in 0usize..12_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        hub in any::<bool>(),
        uring in any::<bool>(),
        pool_kind in 0u8..3,
        delta_kind in 0u8..4,
        depth in prop::option::of(1usize..5),
    ) {
        // Sometimes more than 2^16 vertices (several tile blocks, long offsets files).
        let n = if big == 0 { 70_000 + n_small } else { n_small };
        let dir = tempfile::tempdir().unwrap();
        let edges = random_edges(n, m, seed, hub);
        let store = store_of(dir.path(), n, &edges, directed, true);
        let g = MemGraph::from_edges(n as usize, directed, &dense_edges(&store, &edges));
        let io = if uring { Backend::Uring } else { Backend::Sync };
        let pool = match pool_kind {
            0 => Some(16 << 10), // 4 frames per file: constant eviction
            1 => Some(1 << 30),  // everything cached
            _ => None,           // what the budget leaves
        };
        let delta = match delta_kind {
            0 => Some(1e-6),     // about one vertex per bucket
            1 => None,           // the mean weight
            2 => Some(1e12),     // one bucket: rounds of Bellman-Ford
            _ => Some(0.7),
        };
        let source = dense_id(&store, seed % n);
        check_sssp(&store, &g, source, &SsspConfig { delta }, &select_depth(io, pool, depth));
    }

    #[test]
    fn kcore_matches_peeling(
        shape in 0u8..6,
        n_small in 1u64..3000,
        m in 0usize..15_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        hub in any::<bool>(),
        uring in any::<bool>(),
        small_pool in any::<bool>(),
        depth in prop::option::of(1usize..5),
    ) {
        let (n, m) = match shape {
            0 => (70_000 + n_small, m),          // more than 2^16 vertices
            1 => (1 + n_small % 60, m % 2000),   // dense: high cores
            _ => (n_small, m),
        };
        let dir = tempfile::tempdir().unwrap();
        let edges = random_edges(n, m, seed, hub);
        let store = store_of(dir.path(), n, &edges, directed, false);
        let g = MemGraph::from_edges(n as usize, directed, &dense_edges(&store, &edges));
        let io = if uring { Backend::Uring } else { Backend::Sync };
        let pool = if small_pool { Some(16 << 10) } else { None };
        check_kcore(&store, &g, &select_depth(io, pool, depth));
    }
}

#[test]
fn tiny_graphs_both_backends() {
    for io in [Backend::Uring, Backend::Sync] {
        for directed in [true, false] {
            for pool in [Some(16 << 10), Some(1 << 30), None] {
                let sel = select(io, pool);
                let dir = tempfile::tempdir().unwrap();
                let edges = [
                    (0, 1, 1.0),
                    (1, 2, 0.0),
                    (2, 0, 2.5),
                    (3, 3, 1.0),
                    (1, 2, 4.0),
                ];
                let store = store_of(dir.path(), 5, &edges, directed, true);
                let g = MemGraph::from_edges(5, directed, &dense_edges(&store, &edges));
                for s in 0..5 {
                    for delta in [Some(1e-9), None, Some(f64::INFINITY)] {
                        check_sssp(&store, &g, s, &SsspConfig { delta }, &sel);
                    }
                }
                check_kcore(&store, &g, &sel);
                // A single vertex without edges.
                let dir = tempfile::tempdir().unwrap();
                let store = store_of(dir.path(), 1, &[], directed, true);
                let g = MemGraph::from_edges(1, directed, &[]);
                check_sssp(&store, &g, 0, &SsspConfig::default(), &sel);
                check_kcore(&store, &g, &sel);
            }
        }
    }
}
