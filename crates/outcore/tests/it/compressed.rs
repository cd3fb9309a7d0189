//! Compressed tiles (`--compress`, `store::tilecode`) against plain ones:
//! the same edge set and the same other files (property tests with hubs
//! whose tiles span many frames), the same answers from the stream engine
//! (constant eviction, small pieces) and from the external engine's grid,
//! and damage caught by `verify` and by runs.

use crate::common;

use common::programs;
use common::Rng;
use common::*;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::{pagerank, vertex};
use outcore::engine::external::ExternalConfig;
use outcore::engine::stream::StreamConfig;
use outcore::ingest::build::BuildOptions;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::export::Layout;
use outcore::store::tiles::EDGES_FILE;
use outcore::store::verify::verify;
use outcore::store::Store;
use proptest::prelude::*;
use std::path::Path;

/// Random edges on `0..n`; a quarter leave hub 3 and a tenth stay among
/// the first 300 vertices (dense tiles, small gaps).
fn edges_of(n: u64, m: usize, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    (0..m)
        .map(|i| {
            let (s, d) = match i % 10 {
                0 | 4 => (3 % n, r.below(n)),
                7 => (r.below(300.min(n)), r.below(300.min(n))),
                _ => (r.below(n), r.below(n)),
            };
            (s, d, (i % 5) as f64)
        })
        .collect()
}

/// Builds `edges` (dense ids 0..n) into `dir`/g.oc, plain or compressed.
fn store_in(dir: &Path, n: u64, edges: &[(u64, u64, f64)], opts: &BuildOptions) -> Store {
    outcore::progress::set_quiet(true);
    let mut src = outcore::ingest::VecSource::new(edges.iter().copied());
    src.dense = Some(n);
    let r = outcore::ingest::build::build_store(&mut src, &dir.join("g.oc"), opts).unwrap();
    Store::open(&r.path).unwrap()
}

/// The same graph plain and compressed, with small groups.
fn pair(dir: &Path, n: u64, edges: &[(u64, u64, f64)], directed: bool) -> (Store, Store) {
    let opts = |compress| BuildOptions {
        directed,
        weighted: true,
        memory: 128 << 20,
        group_tiles: 2,
        compress,
        ..Default::default()
    };
    let (a, b) = (dir.join("plain"), dir.join("coded"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    (
        store_in(&a, n, edges, &opts(false)),
        store_in(&b, n, edges, &opts(true)),
    )
}

fn check_pair(plain: &Store, coded: &Store) {
    verify(coded.path()).unwrap();
    // The CSR pages are coded too (tests/it/compressed_csr.rs); every
    // other file is the same bytes.
    let (p, c) = (store_files(plain.path()), store_files(coded.path()));
    for (k, v) in &p {
        if !k.starts_with("tiles/") && !k.contains(".adj") && k != "manifest.json" {
            assert!(v == &c[k], "{k} differs");
        }
    }
    // A frame costs at most 8 bytes beyond its keys (count, padding) and
    // a quarter byte a key (lengths); a key at most 4 bytes, as plain. So
    // a store of a few edges may code larger (one edge: 8 bytes against
    // 4), but never by more than that, and tiles averaging 32 edges or
    // more code smaller (each gap is then short).
    let (pb, cb) = (p[EDGES_FILE].len() as u64, c[EDGES_FILE].len() as u64);
    let (tiles, frames) = (
        coded.manifest().tiles.num_tiles,
        coded.manifest().tiles.frames.unwrap(),
    );
    assert!(
        cb <= pb + pb / 16 + 8 * frames,
        "coded {cb} bytes, plain {pb}, {frames} frames"
    );
    if pb / 4 >= 32 * tiles {
        assert!(cb < pb, "coded {cb} bytes, plain {pb}, {tiles} tiles");
    }
    assert_eq!(
        exported(plain, Layout::Tiles, true),
        exported(coded, Layout::Tiles, true)
    );
    let (mp, mc) = (plain.manifest(), coded.manifest());
    assert_eq!(mc.tiles.compression.as_deref(), Some("gap-svb"));
    assert_eq!(
        (mp.tiles.edges, mp.tiles.max_tile_edges),
        (mc.tiles.edges, mc.tiles.max_tile_edges)
    );
    assert_eq!(mc.tiles.num_tiles, mp.tiles.num_tiles);
    assert!(mc.tiles.frames.unwrap() >= mc.tiles.num_tiles);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    /// Compressed tiles hold the plain tiles' edge set; every other file is
    /// the same bytes; verify decodes them strictly.
    #[test]
    fn compressed_tiles_hold_the_same_edges(
        n in 1u64..300_000,
        m in 0usize..40_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (plain, coded) = pair(dir.path(), n, &edges_of(n, m, seed), directed);
        if m > 0 {
            check_pair(&plain, &coded);
        }
    }
}

/// A store of a few edges (a CI run once drew m = 5), or of n <= 3
/// vertices, codes within a frame's overhead of the plain tiles;
/// `check_pair` bounds it.
#[test]
fn a_few_edges_code_within_a_frame_of_plain() {
    for (n, m) in (1..=8)
        .map(|m| (70_000, m))
        .chain([(1, 9), (2, 9), (3, 40)])
    {
        for directed in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let (plain, coded) = pair(dir.path(), n, &edges_of(n, m, m as u64), directed);
            check_pair(&plain, &coded);
        }
    }
}

/// A hub tile of 200 K edges spans several 64 KiB frames (several index
/// entries with one row and column): the round trip holds, and tiles
/// placed from the out stream code to the same bytes as sorted tiles.
#[test]
fn large_tiles_span_frames_and_placed_equals_sorted() {
    let n = 140_000;
    let mut edges = edges_of(n, 60_000, 9);
    edges.extend((0..200_000u64).map(|i| (i % 500, (i * 7919) % 60_000, 1.0)));
    for directed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (plain, coded) = pair(dir.path(), n, &edges, directed);
        check_pair(&plain, &coded);
        assert!(
            coded.manifest().tiles.frames.unwrap() > plain.manifest().tiles.num_tiles,
            "the hub tile takes several frames"
        );
        let sorted = dir.path().join("sorted");
        std::fs::create_dir_all(&sorted).unwrap();
        let opts = BuildOptions {
            directed,
            weighted: true,
            memory: 128 << 20,
            group_tiles: 2,
            compress: true,
            sort_tiles: true,
            sort_buffer_cap: Some(0),
            ..Default::default()
        };
        let sorted = store_in(&sorted, n, &edges, &opts);
        let (a, b) = (store_files(coded.path()), store_files(sorted.path()));
        for (k, v) in a.iter().filter(|(k, _)| k.starts_with("tiles/")) {
            assert!(v == &b[k], "{k}: placed and sorted tiles differ");
        }
    }
}

fn close(a: f64, e: f64) -> bool {
    (a - e).abs() <= 1e-9 * e.abs().max(1e-300)
}

/// PageRank, WCC and BFS on the compressed store equal the plain store's
/// references: the stream engine with no cache (every piece read and
/// decoded each iteration) and 64 KiB pieces, and with everything cached;
/// the external engine's grid, forced, with windows of two blocks.
#[test]
fn engines_answer_the_same_on_compressed_tiles() {
    let n = 4 * 65536 + 1234;
    let mut edges = edges_of(n, 150_000, 4);
    edges.extend((0..100_000u64).map(|i| (i % 300, (i * 7919) % 5_000, 1.0)));
    for directed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (plain, coded) = pair(dir.path(), n, &edges, directed);
        let g = MemGraph::load(&plain).unwrap();
        let want_pr = reference::pagerank(&g, 0.85, 5);
        let want_wcc = reference::wcc(&g);
        let want_bfs = reference::bfs(&g, 3);
        let budget = Budget::new(256 << 20);
        // No pool; a pool holding every tile coded but not decoded; a pool
        // holding them all decoded.
        let coded_bytes = coded.manifest().files[EDGES_FILE].bytes;
        assert!(coded_bytes * 3 / 2 < plain.manifest().tiles.edges * 4);
        for cache in [Some(0), Some(coded_bytes * 3 / 2), None] {
            for io in [Backend::Uring, Backend::Sync] {
                let c = StreamConfig {
                    io: Some(io),
                    cache_bytes: cache,
                    piece_bytes: Some(64 << 10),
                    ..Default::default()
                };
                let cfgp = pagerank::PageRankConfig {
                    iterations: 5,
                    ..Default::default()
                };
                let (pr, stats) = programs::pagerank(&coded, &cfgp, c.clone(), &budget).unwrap();
                for (v, &e) in want_pr.iter().enumerate() {
                    assert!(close(pr[v], e), "pr[{v}] = {}, expected {e}", pr[v]);
                }
                let (_, plain_stats) =
                    programs::pagerank(&plain, &cfgp, c.clone(), &budget).unwrap();
                let it = (&stats.iterations[1], &plain_stats.iterations[1]);
                assert_eq!(it.0.edges_processed, it.1.edges_processed, "edges decoded");
                if cache == Some(0) {
                    assert!(
                        it.0.bytes_read * 3 < it.1.bytes_read * 2,
                        "{} vs {}",
                        it.0.bytes_read,
                        it.1.bytes_read
                    );
                }
                let (w, _) = programs::wcc(&coded, c.clone(), &budget).unwrap();
                for (v, &e) in want_wcc.iter().enumerate() {
                    assert_eq!(w[v], e as u64, "wcc of {v}");
                }
                let (b, _) = programs::bfs(&coded, 3, c.clone(), &budget).unwrap();
                for (v, &e) in want_bfs.iter().enumerate() {
                    assert_eq!(b[v], e, "bfs of {v}");
                }
            }
        }
        let cfg = ExternalConfig {
            io: Some(Backend::Uring),
            interval_vertices: Some(50_000),
            grid: Some(true),
            grid_window_blocks: Some(2),
            ..Default::default()
        };
        let budget = Budget::new(64 << 20);
        let pr_cfg = pagerank::PageRankConfig {
            iterations: 4,
            ..Default::default()
        };
        let (pr, _, stats) = vertex::pagerank::run(&coded, &pr_cfg, &cfg, &budget).unwrap();
        assert!(stats
            .iterations
            .iter()
            .all(|i| i.planner.unwrap().chosen == "external-grid"));
        let want = reference::pagerank(&g, 0.85, 4);
        for v in 0..g.n {
            assert!(
                close(pr[v], want[v]),
                "grid pr[{v}] = {} != {}",
                pr[v],
                want[v]
            );
        }
        let (w, _) = vertex::wcc::run(&coded, &cfg, &budget).unwrap();
        assert_eq!(w, common::wide(want_wcc.clone()), "grid wcc");
        assert!(budget.peak() <= budget.limit());
    }
}

/// A flipped byte in the compressed tiles: `verify` names the file, and a
/// stream run stops on the chunk checksum instead of answering.
#[test]
fn damaged_compressed_tiles_are_caught() {
    let n = 70_000;
    let dir = tempfile::tempdir().unwrap();
    let (_, coded) = pair(dir.path(), n, &edges_of(n, 30_000, 2), false);
    let path = coded.path().join(EDGES_FILE);
    let clean = std::fs::read(&path).unwrap();
    let mut r = Rng::new(77);
    for _ in 0..6 {
        let mut bad = clean.clone();
        let at = r.below(bad.len() as u64) as usize;
        bad[at] ^= 1 << r.below(8);
        std::fs::write(&path, &bad).unwrap();
        let err = verify(coded.path()).unwrap_err().to_string();
        assert!(err.contains("tiles/edges.bin"), "{err}");
        let c = StreamConfig {
            cache_bytes: Some(0),
            ..Default::default()
        };
        let budget = Budget::new(64 << 20);
        assert!(programs::wcc(&coded, c, &budget).is_err(), "byte {at}");
    }
    std::fs::write(&path, &clean).unwrap();
    verify(coded.path()).unwrap();
}
