//! The external engine (vertex state on disk, sort-reduced update logs)
//! against the in-memory references: random directed, undirected and
//! weighted graphs; intervals from a handful of vertices (state many times
//! the memory it may use, many runs per log, several merge levels) to one
//! interval; both I/O backends; and the LDBC Graphalytics examples.

use crate::common;

use common::Rng;

use common::{dense_store as store_of, graphalytics_dir as data, import_graphalytics};
use outcore::algo::cdlp::{cdlp, CdlpConfig};
use outcore::algo::output::{write_vertex_values, Ldbc};
use outcore::algo::pagerank::PageRankConfig;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::validate::{rule_for, validate};
use outcore::algo::vertex;
use outcore::engine::external::ExternalConfig;
use outcore::engine::stats::RunStats;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

/// `m` random edges on `0..n` (self-loops, duplicates and hubs happen).
fn random_edges(n: u64, m: usize, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    (0..m)
        .map(|i| {
            let s = if i % 5 == 0 {
                r.below(3.min(n))
            } else {
                r.below(n)
            };
            let d = r.below(n);
            let w = (r.below(100) as f64) / 4.0;
            (s, d, w)
        })
        .collect()
}

fn ext(
    io: Backend,
    interval: Option<u64>,
    buffer: Option<u64>,
    fan_in: Option<usize>,
) -> ExternalConfig {
    ExternalConfig {
        io: Some(io),
        interval_vertices: interval,
        message_buffer: buffer,
        fan_in,
        ..Default::default()
    }
}

fn check_stats(stats: &RunStats, budget: &Budget) {
    assert_eq!(stats.engine, "external");
    assert!(stats.iterations.iter().all(|i| i.engine == "external"));
    assert!(budget.peak() <= budget.limit());
    assert_eq!(budget.used(), 0, "everything is released");
}

fn close(a: f64, e: f64) -> bool {
    (a - e).abs() <= 1e-9 * e.abs().max(1e-300) || a == e
}

/// PageRank (`iterations`) on the external engine equals the reference;
/// returns its stats (checked).
fn pagerank_matches(
    store: &Store,
    g: &MemGraph,
    iterations: usize,
    cfg: &ExternalConfig,
    budget: &Budget,
) -> RunStats {
    let pr_cfg = PageRankConfig {
        iterations,
        ..Default::default()
    };
    let (pr, _, stats) = vertex::pagerank::run(store, &pr_cfg, cfg, budget).unwrap();
    check_stats(&stats, budget);
    let want = reference::pagerank(g, 0.85, iterations);
    for v in 0..g.n {
        assert!(
            close(pr[v], want[v]),
            "pagerank[{v}] = {} != {}",
            pr[v],
            want[v]
        );
    }
    stats
}

/// Every program on `store` equals its reference.
fn check_all(store: &Store, cfg: &ExternalConfig, budget_bytes: u64, source: u64) {
    let g = MemGraph::load(store).unwrap();
    let budget = Budget::new(budget_bytes);
    pagerank_matches(store, &g, 6, cfg, &budget);
    let (w, stats) = vertex::wcc::run(store, cfg, &budget).unwrap();
    check_stats(&stats, &budget);
    assert_eq!(w, reference::wcc(&g), "wcc");
    if g.n > 0 {
        let (b, stats) = vertex::bfs::run(store, source, cfg, &budget).unwrap();
        check_stats(&stats, &budget);
        assert_eq!(b, reference::bfs(&g, source as u32), "bfs from {source}");
        if store.manifest().weighted {
            let (d, stats) = vertex::sssp::run(store, source, cfg, &budget).unwrap();
            check_stats(&stats, &budget);
            let want = reference::sssp(&g, source as u32);
            for v in 0..g.n {
                assert!(close(d[v], want[v]), "sssp[{v}] = {} != {}", d[v], want[v]);
            }
        }
    }
    let (c, stats) = vertex::kcore::run(store, cfg, &budget).unwrap();
    check_stats(&stats, &budget);
    assert_eq!(c, reference::core_numbers(&g), "core numbers");
    let (l, stats) = cdlp(store, &CdlpConfig { iterations: 5 }, cfg, &budget).unwrap();
    check_stats(&stats, &budget);
    assert_eq!(l, reference::cdlp(&g, 5), "cdlp");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_program_matches_its_reference(
        n in 1u64..1500,
        m in 0usize..6000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        interval in prop_oneof![Just(None), (1u64..400).prop_map(Some)],
        buffer in prop_oneof![Just(None), (64u64..4096).prop_map(Some)],
        fan_in in prop_oneof![Just(None), (2usize..5).prop_map(Some)],
        sync in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = random_edges(n, m, seed);
        let store = store_of(dir.path(), n, &edges, directed, weighted);
        let io = if sync { Backend::Sync } else { Backend::Uring };
        let source = seed % n;
        check_all(&store, &ext(io, interval, buffer, fan_in), 64 << 20, source);
    }
}

/// Tiny intervals, buffers and merge memory: logs of many runs, merged from
/// disk over several levels, with reduction in every merge.
#[test]
fn many_runs_merge_over_levels() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3000;
    let edges = random_edges(n, 30_000, 7);
    for directed in [false, true] {
        let sub = dir.path().join(format!("{directed}"));
        std::fs::create_dir_all(&sub).unwrap();
        let store = store_of(&sub, n, &edges, directed, true);
        let g = MemGraph::load(&store).unwrap();
        for io in [Backend::Uring, Backend::Sync] {
            let cfg = ExternalConfig {
                merge_memory: Some(8 << 10),
                staging: Some(4096),
                grid: Some(false),
                ..ext(io, Some(700), Some(4096), Some(3))
            };
            let budget = Budget::new(64 << 20);
            let stats = pagerank_matches(&store, &g, 3, &cfg, &budget);
            let x = stats.iterations[0].external.unwrap();
            assert!(x.intervals >= 5, "{x:?}");
            assert!(x.flushes > 10, "{x:?}");
            assert!(x.logs_merged_external > 0 && x.merge_levels > 0, "{x:?}");
            assert!(
                x.log_bytes_reduced < x.log_bytes_raw,
                "hub messages reduce: {x:?}"
            );
            // Grouped (non-combining) messages through the same merges.
            let (l, stats) = cdlp(&store, &CdlpConfig { iterations: 3 }, &cfg, &budget).unwrap();
            assert_eq!(l, reference::cdlp(&g, 3));
            let x = stats.iterations[0].external.unwrap();
            assert!(
                x.merge_levels > 0 && x.log_bytes_reduced == x.log_bytes_raw,
                "{x:?}"
            );
            // 12-byte records straddle the 4 KiB staging buffers.
            let straddle = ExternalConfig {
                message_buffer: Some(256 << 10),
                ..cfg.clone()
            };
            let (c, _) = vertex::kcore::run(&store, &straddle, &budget).unwrap();
            assert_eq!(c, reference::core_numbers(&g));
        }
    }
}

/// The Graphalytics examples: BFS, WCC, PR, SSSP and CDLP on the external
/// engine, validated with the Graphalytics rules.
#[test]
fn graphalytics_examples() {
    let dir = tempfile::tempdir().unwrap();
    for (name, directed) in [("example-directed", true), ("example-undirected", false)] {
        let store = import_graphalytics(dir.path(), name, directed);
        let props = common::graphalytics_properties(name);
        let g = MemGraph::load(&store).unwrap();
        let ids = store.load_ids().unwrap();
        let key = |k: &str| props[k].clone();
        let budget = Budget::new(64 << 20);
        let cfg = ext(Backend::Uring, Some(3), Some(64), Some(2));
        let src: u64 = key("bfs.source-vertex").parse().unwrap();
        let dense_src = ids.dense_of_original(src, g.n as u64).unwrap();
        let out = dir.path().join(format!("{name}.out"));
        let check = |algo: &str, text: String| {
            std::fs::write(&out, text).unwrap();
            let expected = data().join(format!("{name}-{algo}"));
            validate(&out, &expected, rule_for(algo).unwrap())
                .unwrap_or_else(|e| panic!("{name} {algo}: {e}"));
        };
        let n = g.n as u64;
        let lines = |f: &dyn Fn(u64) -> String| -> String {
            let p = dir.path().join("tmp.out");
            write_vertex_values(&p, &store, f).unwrap();
            std::fs::read_to_string(&p).unwrap()
        };
        let (b, _) = vertex::bfs::run(&store, dense_src, &cfg, &budget).unwrap();
        check("BFS", lines(&|v| b[v as usize].to_string()));
        let (w, _) = vertex::wcc::run(&store, &cfg, &budget).unwrap();
        check(
            "WCC",
            lines(&|v| ids.original_of_rank(w[v as usize] as u64).to_string()),
        );
        let iters: usize = key("pr.num-iterations").parse().unwrap();
        let damping: f64 = key("pr.damping-factor").parse().unwrap();
        let pr_cfg = PageRankConfig {
            iterations: iters,
            damping,
            tol: None,
        };
        let (pr, _, _) = vertex::pagerank::run(&store, &pr_cfg, &cfg, &budget).unwrap();
        check("PR", lines(&|v| Ldbc(pr[v as usize]).to_string()));
        let iters: usize = key("cdlp.max-iterations").parse().unwrap();
        let (l, _) = cdlp(&store, &CdlpConfig { iterations: iters }, &cfg, &budget).unwrap();
        check(
            "CDLP",
            lines(&|v| ids.original_of_rank(l[v as usize] as u64).to_string()),
        );
        let ssrc: u64 = key("sssp.source-vertex").parse().unwrap();
        let dense = ids.dense_of_original(ssrc, n).unwrap();
        let (d, _) = vertex::sssp::run(&store, dense, &cfg, &budget).unwrap();
        check("SSSP", lines(&|v| Ldbc(d[v as usize]).to_string()));
    }
}

/// With one interval the state, active bits and offsets stay in memory
/// between supersteps: BFS down a path of 1500 vertices (1500 supersteps
/// of one vertex each) reads about an adjacency page a superstep, not the
/// interval's state, bits and offsets again (16 KiB a superstep); with
/// `force_spill` it does read them, and the depths are the same.
#[test]
fn a_single_interval_stays_in_memory_between_supersteps() {
    let dir = tempfile::tempdir().unwrap();
    let n = 1500u64;
    let edges: Vec<(u64, u64)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    let store = common::unweighted_store(dir.path(), n, &edges, true);
    let src = common::dense_id(&store, 0);
    let budget = Budget::new(64 << 20);
    let (resident, stats) =
        vertex::bfs::run(&store, src, &ExternalConfig::default(), &budget).unwrap();
    let steps = stats.iterations.len() as u64;
    assert!(steps >= n - 1);
    assert!(
        stats.bytes_read < steps * 9000,
        "{} bytes read in {steps} supersteps",
        stats.bytes_read
    );
    let spill = ExternalConfig {
        force_spill: true,
        ..Default::default()
    };
    let (spilled, stats) = vertex::bfs::run(&store, src, &spill, &budget).unwrap();
    assert_eq!(resident, spilled);
    assert!(
        stats.bytes_read > steps * 14000,
        "{} bytes read spilled",
        stats.bytes_read
    );
}

/// Sparse state access: with the state spilled in two large intervals, a
/// superstep of one active vertex reads that vertex's state page, its
/// offsets page and the pages its messages land on, not the interval's
/// whole state or offsets. BFS down a path of 300 vertices that goes back
/// and forth between the intervals, beside 60,000 others.
#[test]
fn a_sparse_superstep_reads_pages_not_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let n = 60_300u64;
    let half = n / 2 + 1;
    let mut edges: Vec<(u64, u64)> = (0..150)
        .flat_map(|i| [(i, half + i), (half + i, i + 1)])
        .collect();
    edges.extend((300..half - 1).step_by(2).map(|i| (i, i + 1)));
    let order = outcore::store::VertexOrder::Original;
    let store = common::unweighted_store_in(dir.path(), n, &edges, true, order);
    let budget = Budget::new(64 << 20);
    let cfg = ExternalConfig {
        force_spill: true,
        interval_vertices: Some(half),
        ..Default::default()
    };
    let (got, stats) = vertex::bfs::run(&store, 0, &cfg, &budget).unwrap();
    assert_eq!(got, reference::bfs(&MemGraph::load(&store).unwrap(), 0));
    let steps = stats.iterations.len() as u64;
    assert!(steps >= 299);
    let sparse: u64 = stats
        .iterations
        .iter()
        .map(|i| i.external.as_ref().unwrap().sparse_intervals)
        .sum();
    assert!(sparse >= 2 * 298, "{sparse} sparse intervals");
    // Per superstep: the active bits (4 KiB), a state page each way, an
    // offsets page, an adjacency page, a log; an interval's whole state or
    // offsets would be 30,151 x 8 bytes.
    let per_step = stats.bytes_read / steps;
    assert!(per_step < 48 << 10, "{per_step} bytes read a superstep");
}

/// Every program equals its reference with the state spilled in a few
/// large intervals, so that shrinking frontiers and few messages go page
/// by page (both backends; directed and undirected, weighted).
#[test]
fn every_program_matches_its_reference_page_by_page() {
    for (seed, directed, sync) in [(1, true, false), (2, false, true)] {
        let dir = tempfile::tempdir().unwrap();
        let n = 200_000u64;
        let mut edges = random_edges(n, 60_000, seed);
        edges.extend((0..400).map(|i| (i, i + 1, 1.5)));
        let store = store_of(dir.path(), n, &edges, directed, true);
        let cfg = ExternalConfig {
            io: Some(if sync { Backend::Sync } else { Backend::Uring }),
            force_spill: true,
            interval_vertices: Some(50_000),
            ..Default::default()
        };
        check_all(&store, &cfg, 64 << 20, common::dense_id(&store, 0));
    }
}

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
            assert_eq!(w, reference::wcc(&g), "wcc");
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
            assert_eq!(w, reference::wcc(&g), "wcc");
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
