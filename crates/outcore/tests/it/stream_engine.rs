//! The stream engine against the in-memory references: random graphs,
//! budgets from constant eviction to everything cached, both I/O paths.

use crate::common;

use common::programs;
use common::unweighted_store as store_of;
use outcore::algo::pagerank;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::vertex;
use outcore::engine::stats::RunStats;
use outcore::engine::stream::StreamConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

/// Engine settings: `seg` bytes per segment, `cache` bytes of pool.
fn cfg(io: Backend, seg: Option<u64>, cache: Option<u64>) -> StreamConfig {
    StreamConfig {
        io: Some(io),
        segment_bytes: seg,
        cache_bytes: cache,
        ..Default::default()
    }
}

/// The references' answers on one store.
struct Expected {
    source: u64,
    pagerank: Vec<f64>,
    wcc: Vec<u32>,
    /// Empty for an empty graph.
    bfs: Vec<i64>,
}

fn expected(store: &Store, source: u64) -> Expected {
    let g = MemGraph::load(store).unwrap();
    Expected {
        source,
        pagerank: reference::pagerank(&g, 0.85, 7),
        wcc: reference::wcc(&g),
        bfs: if g.n > 0 {
            reference::bfs(&g, source as u32)
        } else {
            Vec::new()
        },
    }
}

fn check_all(store: &Store, source: u64, c: &StreamConfig) {
    check(store, &expected(store, source), c);
}

/// Runs PageRank, WCC and BFS with `c` against `expect`; returns WCC's statistics.
fn check(store: &Store, expect: &Expected, c: &StreamConfig) -> RunStats {
    let n = store.manifest().num_vertices;
    let budget = Budget::new(1 << 30);
    // PageRank, 1e-9 relative.
    let cfgp = pagerank::PageRankConfig {
        iterations: 7,
        ..Default::default()
    };
    let (pr, stats) = programs::pagerank(store, &cfgp, c.clone(), &budget).unwrap();
    for (v, &e) in expect.pagerank.iter().enumerate() {
        let a = pr[v];
        assert!(
            (a - e).abs() <= 1e-9 * e.abs().max(1e-300),
            "pr[{v}] = {a}, expected {e}"
        );
    }
    if n > 0 {
        assert_eq!(stats.iterations.len(), 7);
    }
    // WCC, exact labels.
    let (w, wcc_stats) = programs::wcc(store, c.clone(), &budget).unwrap();
    for (v, &e) in expect.wcc.iter().enumerate() {
        assert_eq!(w[v], e as u64, "wcc label of {v}");
    }
    // BFS, exact depths.
    if n > 0 {
        let (b, _) = programs::bfs(store, expect.source, c.clone(), &budget).unwrap();
        for (v, &e) in expect.bfs.iter().enumerate() {
            assert_eq!(b[v], e, "bfs depth of {v}");
        }
    }
    wcc_stats
}

fn random_edges(n: u64, m: usize, seed: u64, hub: bool) -> Vec<(u64, u64)> {
    let mut x = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..m)
        .map(|i| {
            let s = if hub && i % 4 == 0 { 3 % n } else { next() % n };
            (s, next() % n)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_match_references(
        n in 1u64..300_000,
        m in 0usize..60_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        hub in any::<bool>(),
        uring in any::<bool>(),
        budget_kind in 0u8..3,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = random_edges(n, m, seed, hub);
        let store = store_of(dir.path(), n, &edges, directed);
        let io = if uring { Backend::Uring } else { Backend::Sync };
        let c = match budget_kind {
            0 => cfg(io, Some(1), Some(0)),          // smallest segments, no cache: many loads
            1 => cfg(io, Some(1), Some(96 << 10)),   // a small pool: constant eviction
            _ => cfg(io, None, None),                // everything cached after the first pass
        };
        check_all(&store, seed % n, &c);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Tiles split into pieces of a few edges, and 1-3 threads: the hub
    /// block (degree order puts hubs first) takes more than a thread's fair
    /// share, so its work is split over private copies for PageRank.
    #[test]
    fn pieces_and_shared_hub_blocks_match_references(
        n in 1u64..200_000,
        m in 0usize..40_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        uring in any::<bool>(),
        piece_words in prop::sample::select(vec![1u64, 7, 64, 1024]),
        threads in 1usize..=3,
        cached in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = random_edges(n, m, seed, true);
        let store = store_of(dir.path(), n, &edges, directed);
        let io = if uring { Backend::Uring } else { Backend::Sync };
        let c = StreamConfig {
            piece_bytes: Some(piece_words * 4),
            share_min_edges: Some(0),
            ..if cached { cfg(io, None, None) } else { cfg(io, Some(1), Some(0)) }
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| check_all(&store, seed % n, &c));
        // The hub block (block 0 holds the highest degrees, a third of the
        // vertices or more) is shared whenever several threads run.
        let (_, stats) = pool
            .install(|| programs::pagerank(&store, &Default::default(), c.clone(), &Budget::new(1 << 30)))
            .unwrap();
        let shared: u64 = stats.iterations.iter().map(|i| i.shared_blocks).sum();
        if threads == 1 || store.manifest().num_edges == 0 {
            prop_assert_eq!(shared, 0);
        } else if m >= 1000 {
            prop_assert!(shared > 0, "no block was shared");
        }
    }
}

/// A ring of `segments` segments of the smallest size, read in requests of
/// one chunk: many loads, several requests each, up to `segments` loads in
/// flight, so completions of different loads arrive interleaved.
fn ring(io: Backend, segments: usize, cache: Option<u64>) -> StreamConfig {
    StreamConfig {
        segments: Some(segments),
        request_bytes: 64 << 10,
        depth: 2,
        ..cfg(io, Some(1), cache)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn segment_rings_match_references(
        n in 1u64..300_000,
        m in 0usize..60_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        hub in any::<bool>(),
        uring in any::<bool>(),
        segments in 2usize..=4,
        small_pool in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = random_edges(n, m, seed, hub);
        let store = store_of(dir.path(), n, &edges, directed);
        let io = if uring { Backend::Uring } else { Backend::Sync };
        let cache = if small_pool { Some(96 << 10) } else { Some(0) };
        check_all(&store, seed % n, &ring(io, segments, cache));
    }
}

#[test]
fn rings_of_two_to_four_segments_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    // 32 blocks, about 530 small tiles: a load of the smallest segment holds
    // about a tenth of them. (In the original vertex order: by degree, the
    // 1.3 M isolated vertices would go last and the tiles be fewer.)
    let n = 2_000_000;
    let edges = random_edges(n, 400_000, 3, false);
    let store = common::unweighted_store_in(
        dir.path(),
        n,
        &edges,
        false,
        outcore::store::VertexOrder::Original,
    );
    let expect = expected(&store, 7);
    for io in [Backend::Uring, Backend::Sync] {
        for k in 2..=4 {
            let stats = check(&store, &expect, &ring(io, k, Some(0)));
            let first = &stats.iterations[0];
            assert_eq!(first.segments, k, "{io}");
            assert!(
                first.loads > 2 * k as u64,
                "{io} k={k}: {} loads",
                first.loads
            );
            assert!(
                first.read_requests > first.loads,
                "{io} k={k}: {} requests for {} loads",
                first.read_requests,
                first.loads
            );
        }
    }
}

#[test]
fn the_ring_follows_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let n = 200_000;
    let store = store_of(dir.path(), n, &random_edges(n, 50_000, 4, false), false);
    let segments = |budget: u64, c: StreamConfig| {
        let (_, s) = programs::wcc(&store, c, &Budget::new(budget)).unwrap();
        (s.iterations[0].segments, s.segment_bytes)
    };
    // A large budget: four segments of a quarter of the ring each.
    let (k, seg) = segments(1 << 30, StreamConfig::default());
    assert_eq!(k, 4);
    assert!((4 << 20..=32 << 20).contains(&seg), "{seg}");
    // The smallest budget still runs, on two segments.
    let need = vertex::wcc::required(&store);
    let (k, _) = segments(need, StreamConfig::default());
    assert_eq!(k, 2);
    // An explicit count is kept when it fits, refused when it does not.
    let c = StreamConfig {
        segments: Some(3),
        ..Default::default()
    };
    assert_eq!(segments(1 << 30, c).0, 3);
    let too_many = StreamConfig {
        segments: Some(1000),
        segment_bytes: Some(1 << 20),
        ..Default::default()
    };
    let err = programs::wcc(&store, too_many, &Budget::new(256 << 20))
        .expect_err("refused")
        .to_string();
    assert!(err.contains("1000") && err.contains("do not fit"), "{err}");
    let one = StreamConfig {
        segments: Some(1),
        ..Default::default()
    };
    let err = programs::wcc(&store, one, &Budget::new(1 << 30))
        .expect_err("refused")
        .to_string();
    assert!(err.contains("at least two segments"), "{err}");
}

#[test]
fn tiny_graphs_and_both_backends() {
    for io in [Backend::Uring, Backend::Sync] {
        for directed in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let store = store_of(dir.path(), 5, &[(0, 1), (1, 2), (2, 0), (3, 3)], directed);
            check_all(&store, 0, &cfg(io, None, None));
            let dir = tempfile::tempdir().unwrap();
            let store = store_of(dir.path(), 1, &[], directed);
            check_all(&store, 0, &cfg(io, Some(1), Some(0)));
        }
    }
}

#[test]
fn too_small_a_budget_is_refused_with_the_amount_needed() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(
        dir.path(),
        200_000,
        &random_edges(200_000, 1000, 1, false),
        false,
    );
    let err = programs::pagerank(
        &store,
        &Default::default(),
        StreamConfig::default(),
        &Budget::new(2 << 20),
    )
    .expect_err("refused")
    .to_string();
    assert!(err.contains("needs at least"), "{err}");
}

#[test]
fn a_damaged_tile_chunk_is_detected_not_computed_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(
        dir.path(),
        100_000,
        &random_edges(100_000, 50_000, 2, false),
        true,
    );
    let path = store.file("tiles/edges.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let k = bytes.len() / 3;
    bytes[k] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    for io in [Backend::Uring, Backend::Sync] {
        // Also with tiny segments: the error comes while later loads are in flight.
        for c in [cfg(io, None, None), ring(io, 4, Some(0))] {
            let err = programs::wcc(&store, c, &Budget::new(1 << 30))
                .expect_err("refused")
                .to_string();
            assert!(err.contains("checksum"), "{err}");
        }
    }
}
