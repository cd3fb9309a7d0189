//! The external engine's grid supersteps (GridGraph on G-Store's tiles):
//! tiles folded window by window, band windows and fused applies, what the
//! planner picks, and the tile index's pieces aligned to the read size.

use crate::common::dense_store as store_of;

use super::*;

/// Dense supersteps of PageRank, WCC and BFS fold tiles into windows of
/// accumulators (GridGraph on G-Store's tiles) on graphs of several tile
/// blocks, windows of two blocks, intervals cut inside blocks: the results
/// equal the references on both backends; the planner picks the grid for
/// PageRank's dense supersteps and the log for BFS's first, and a forced
/// grid superstep with one sender reads only its block's tiles.
#[test]
fn grid_supersteps_fold_tiles_window_by_window() {
    let dir = tempfile::tempdir().unwrap();
    let n = 4 * 65536 + 1234;
    let edges = random_edges(n, 400_000, 11);
    for directed in [false, true] {
        let sub = dir.path().join(format!("{directed}"));
        std::fs::create_dir_all(&sub).unwrap();
        let store = store_of(&sub, n, &edges, directed, false);
        let g = MemGraph::load(&store).unwrap();
        let tile_bytes = store.manifest().tiles.edges * 4;
        for io in [Backend::Uring, Backend::Sync] {
            let cfg = ExternalConfig {
                grid: Some(true),
                grid_window_blocks: Some(2),
                ..ext(io, Some(50_000), None, None)
            };
            let budget = Budget::new(64 << 20);
            let stats = pagerank_matches(&store, &g, 4, &cfg, &budget);
            let pr_tiles = stats.iterations[0].external.unwrap().grid_tile_bytes;
            assert!(pr_tiles >= tile_bytes, "{pr_tiles} of {tile_bytes}");
            for it in &stats.iterations {
                let x = it.external.unwrap();
                assert_eq!(it.planner.unwrap().chosen, "external-grid");
                assert!(x.grid_windows >= 3 && x.log_bytes_raw == 0, "{x:?}");
            }
            let (w, stats) = vertex::wcc::run(&store, &cfg, &budget).unwrap();
            check_stats(&stats, &budget);
            assert_eq!(w, common::wide(reference::wcc(&g)), "wcc");
            let (b, stats) = vertex::bfs::run(&store, 70_000, &cfg, &budget).unwrap();
            check_stats(&stats, &budget);
            assert_eq!(b, reference::bfs(&g, 70_000), "bfs");
            // One sender: only the tiles of its block (both ways), against
            // every tile for PageRank's first superstep.
            let x = stats.iterations[0].external.unwrap();
            assert!(x.grid_tile_bytes * 2 < pr_tiles, "{x:?} of {pr_tiles}");
        }
        // The planner: grid for PageRank's dense supersteps, the log for
        // BFS's single sender.
        let cfg = ext(Backend::Uring, Some(50_000), None, None);
        let budget = Budget::new(64 << 20);
        let pr_cfg = PageRankConfig {
            iterations: 2,
            ..Default::default()
        };
        let (_, _, stats) = vertex::pagerank::run(&store, &pr_cfg, &cfg, &budget).unwrap();
        let p = stats.iterations[0].planner.unwrap();
        assert_eq!(p.chosen, "external-grid", "{p:?}");
        let (_, stats) = vertex::bfs::run(&store, 70_000, &cfg, &budget).unwrap();
        let p = stats.iterations[0].planner.unwrap();
        assert_eq!(p.chosen, "external", "{p:?}");
    }
}

/// Band windows and fused applies: on a graph whose edges mostly stay
/// inside a tile block (original order), with windows of at most 4 blocks,
/// the windows hold their own words and read each tile inside them once
/// (less than both ways of every tile), and every PageRank superstep after
/// the first reads one state pass less (its words came from the last
/// apply). Results equal the references, undirected and directed (WCC
/// both ways), on both I/O backends; edges that cross blocks include hub
/// edges heavy enough for the kernel to split a block between threads.
#[test]
fn grid_band_windows_read_inner_tiles_once_and_applies_write_next_words() {
    let dir = tempfile::tempdir().unwrap();
    let n = 4 * 65536 + 1234;
    let mut r = Rng::new(5);
    // Edges join blocks 0 and 1, 2 and 3, 4 and itself (the band windows
    // hold 2 blocks), hubs 0..4 are in block 0, and one edge in 50 joins
    // block 4 to blocks 0 and 1 (pieces outside the band).
    let blk = 65536;
    let edges: Vec<_> = (0..1_500_000)
        .map(|i| {
            let s = if i % 7 == 0 { r.below(4) } else { r.below(n) };
            let d = match (i % 50, s / blk) {
                (0, _) => (4 * blk + r.below(n - 4 * blk), r.below(2 * blk)),
                (_, 4) => (s, 4 * blk + r.below(n - 4 * blk)),
                (_, b) => (s, (b ^ r.below(2)) * blk + r.below(blk)),
            };
            (d.0, d.1, 1.0)
        })
        .collect();
    let order = outcore::store::VertexOrder::Original;
    for directed in [false, true] {
        let sub = dir.path().join(format!("{directed}"));
        std::fs::create_dir_all(&sub).unwrap();
        let store = common::dense_store_in(&sub, n, &edges, directed, false, order);
        let g = MemGraph::load(&store).unwrap();
        let tile_bytes = store.manifest().tiles.edges * 4;
        for io in [Backend::Uring, Backend::Sync] {
            let cfg = ExternalConfig {
                grid: Some(true),
                grid_window_blocks: Some(4),
                ..ext(io, Some(65536), None, None)
            };
            let budget = Budget::new(64 << 20);
            let stats = pagerank_matches(&store, &g, 4, &cfg, &budget);
            let it = &stats.iterations;
            let state = n * 16;
            for s in &it[1..] {
                assert!(s.bytes_read + state <= it[0].bytes_read, "fused: {s:?}");
            }
            // The planner's grid bytes, scaled by what the last grid
            // superstep read of its tile estimate, come within a fifth.
            for s in &it[2..] {
                let (est, got) = (
                    s.planner.unwrap().grid_bytes as f64,
                    (s.bytes_read + s.bytes_written) as f64,
                );
                assert!((est - got).abs() <= got / 5.0, "estimate {est} of {got}");
            }
            if !directed {
                let x = it[0].external.unwrap();
                assert!(x.grid_band && x.grid_windows >= 3, "{x:?}");
                assert!(
                    x.grid_tile_bytes < tile_bytes * 3 / 2,
                    "{x:?} of {tile_bytes}"
                );
            }
            let (w, stats) = vertex::wcc::run(&store, &cfg, &budget).unwrap();
            check_stats(&stats, &budget);
            assert_eq!(w, common::wide(reference::wcc(&g)), "wcc");
            assert!(
                stats.iterations[0].external.unwrap().grid_band,
                "wcc both ways"
            );
            let (b, stats) = vertex::bfs::run(&store, 3, &cfg, &budget).unwrap();
            check_stats(&stats, &budget);
            assert_eq!(b, reference::bfs(&g, 3), "bfs");
            // Grid and log supersteps in turn: a log superstep's states
            // make the words the grid's last apply wrote stale.
            let cfg = ExternalConfig {
                grid_alternate: true,
                ..cfg
            };
            let stats = pagerank_matches(&store, &g, 5, &cfg, &budget);
            let grid: Vec<bool> = stats
                .iterations
                .iter()
                .map(|i| i.external.unwrap().grid_windows > 0)
                .collect();
            assert_eq!(grid, [true, false, true, false, true]);
        }
    }
}

/// The grid's tile index: big tiles are cut at file offsets that are
/// multiples of the read size, so every piece rounded out to whole
/// checksum chunks fits one read and no chunk is read for two pieces of a
/// tile; the pieces cover every tile exactly (the equal cuts of
/// `TileSet::load` do not meet the first two).
#[test]
fn aligned_tile_pieces_fit_one_read_and_share_no_chunk() {
    use outcore::engine::tileset::TileSet;
    use outcore::store::tiles::CHUNK_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let n = 2 * 65536 + 77;
    let mut r = Rng::new(9);
    // Hubs 0..8 make tile (0, 0) hold about 1.5 MB; the rest is spread.
    let edges: Vec<_> = (0..600_000)
        .map(|i| match i % 3 {
            0 => (r.below(8), r.below(n), 1.0),
            _ => (r.below(65536), r.below(65536), 1.0),
        })
        .collect();
    let store = store_of(dir.path(), n, &edges, false, false);
    let budget = Budget::new(64 << 20);
    let read = 4 * CHUNK_BYTES;
    let whole = TileSet::load(&store, &budget, u64::MAX / 2).unwrap();
    assert!(
        whole.max_tile_bytes > 4 * read,
        "a big tile: {}",
        whole.max_tile_bytes
    );
    let check = |t: &TileSet| -> bool {
        let mut at = 0;
        let mut ok = true;
        for w in &whole.tiles {
            let mut covered = 0;
            while covered < w.bytes {
                let p = t.tiles[at];
                assert_eq!((p.row, p.col, p.offset), (w.row, w.col, w.offset + covered));
                let (s, e) = (
                    p.offset / CHUNK_BYTES,
                    (p.offset + p.bytes).div_ceil(CHUNK_BYTES),
                );
                ok &= (e - s) * CHUNK_BYTES <= read;
                if covered + p.bytes < w.bytes {
                    ok &= (p.offset + p.bytes).is_multiple_of(read);
                }
                covered += p.bytes;
                at += 1;
            }
        }
        assert_eq!(at, t.tiles.len());
        ok
    };
    assert!(check(
        &TileSet::load_aligned(&store, &budget, read).unwrap()
    ));
    assert!(!check(
        &TileSet::load(&store, &budget, read - 2 * CHUNK_BYTES).unwrap()
    ));
}
