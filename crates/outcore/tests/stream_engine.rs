//! The stream engine against the in-memory references: random graphs,
//! budgets from constant eviction to everything cached, both I/O paths.

mod common;

use common::unweighted_store as store_of;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::{bfs, pagerank, wcc};
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

fn check_all(store: &Store, source: u64, c: &StreamConfig) {
    let g = MemGraph::load(store).unwrap();
    let n = g.n;
    let budget = Budget::new(1 << 30);
    // PageRank, 1e-9 relative.
    let cfgp = pagerank::PageRankConfig {
        iterations: 7,
        ..Default::default()
    };
    let (pr, stats) = pagerank::pagerank(store, &cfgp, c.clone(), &budget).unwrap();
    let expect = reference::pagerank(&g, 0.85, 7);
    for (v, &e) in expect.iter().enumerate() {
        let a = pr.value(v);
        assert!(
            (a - e).abs() <= 1e-9 * e.abs().max(1e-300),
            "pr[{v}] = {a}, expected {e}"
        );
    }
    if n > 0 {
        assert_eq!(stats.iterations.len(), 7);
    }
    // WCC, exact labels.
    let (w, _) = wcc::wcc(store, c.clone(), &budget).unwrap();
    let expect = reference::wcc(&g);
    for (v, &e) in expect.iter().enumerate() {
        assert_eq!(w.value(v), e, "wcc label of {v}");
    }
    // BFS, exact depths.
    if n > 0 {
        let (b, _) = bfs::bfs(store, source, c.clone(), &budget).unwrap();
        let expect = reference::bfs(&g, source as u32);
        for (v, &e) in expect.iter().enumerate() {
            assert_eq!(b.value(v), e, "bfs depth of {v}");
        }
    }
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
            let s = if hub && i % 4 == 0 { 3 } else { next() % n };
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
    let err = pagerank::pagerank(
        &store,
        &Default::default(),
        StreamConfig::default(),
        &Budget::new(2 << 20),
    )
    .err()
    .expect("refused")
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
        let err = wcc::wcc(&store, cfg(io, None, None), &Budget::new(1 << 30))
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("checksum"), "{err}");
    }
}
