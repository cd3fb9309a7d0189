//! Delta-stepping details: bounded phase statistics on a long path, the
//! default delta, and run-ahead prefetch serving later phases from the pool.

use super::*;

#[test]
fn a_long_path_has_bounded_phase_statistics() {
    // 20,000 vertices on a path with weight 1: one bucket per vertex with a
    // small delta, so more phases than statistics entries.
    let n = 20_000u64;
    let edges: Vec<(u64, u64, f64)> = (0..n - 1).map(|v| (v, v + 1, 1.0)).collect();
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), n, &edges, true, true);
    let budget = Budget::new(1 << 30);
    let (d, stats) = sssp(
        &store,
        dense_id(&store, 0),
        &SsspConfig { delta: Some(0.5) },
        &select(Backend::Uring, None),
        &budget,
    )
    .unwrap();
    let ids = store.load_ids().unwrap();
    for v in 0..n {
        assert_eq!(d.value(v as usize), ids.get(v).as_u64().unwrap() as f64);
    }
    assert!(
        stats.iterations.len() <= 10_000,
        "{}",
        stats.iterations.len()
    );
    assert!(
        stats.iterations.len() >= 2_500,
        "{}",
        stats.iterations.len()
    );
    let active: u64 = stats.iterations.iter().map(|i| i.active_vertices).sum();
    assert_eq!(active, n);
    assert!(stats.bytes_read > 0);
    assert_eq!(d.delta(), 0.5);
}

#[test]
fn the_default_delta_is_the_mean_weight() {
    let edges: Vec<(u64, u64, f64)> = (0..100)
        .map(|v| (v, (v + 1) % 100, 2.0 + (v % 2) as f64 * 2.0))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), 100, &edges, false, true);
    let (d, _) = sssp(
        &store,
        dense_id(&store, 0),
        &SsspConfig::default(),
        &select(Backend::Sync, None),
        &Budget::new(1 << 30),
    )
    .unwrap();
    // Mean weight 3 over mean degree 2.
    assert!((d.delta() - 1.5).abs() < 1e-12, "{}", d.delta());
    // All weights zero: any positive width.
    let edges: Vec<(u64, u64, f64)> = (0..10).map(|v| (v, v + 1, 0.0)).collect();
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), 11, &edges, true, true);
    let (d, _) = sssp(
        &store,
        dense_id(&store, 0),
        &SsspConfig::default(),
        &select(Backend::Sync, None),
        &Budget::new(1 << 30),
    )
    .unwrap();
    assert_eq!(d.delta(), 1.0);
    assert!((0..11).all(|v| d.value(v) == 0.0));
}

/// Run-ahead prefetch (RASP, `engine::runahead`): with phases smaller than
/// the I/O depth, the lists of the next queued vertices are read along with
/// a phase's, so later phases find their pages in the pool and wait for no
/// read at all. Without it, nearly every phase reads.
#[test]
fn run_ahead_serves_later_phases_from_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    // About 3 MiB of lists, weights and offsets against a 1 MiB pool.
    let n = 50_000;
    let edges = random_edges(n, 200_000, 5, false);
    let store = store_of(dir.path(), n, &edges, true, true);
    let source = dense_id(&store, 0);
    // A tiny delta: thousands of phases of a few vertices each.
    let cfg = SsspConfig { delta: Some(0.05) };
    let run = |off: bool| {
        let sel = SelectConfig {
            no_run_ahead: off,
            ..select_depth(Backend::Sync, Some(1 << 20), Some(8))
        };
        let (d, stats) = sssp(&store, source, &cfg, &sel, &Budget::new(1 << 30)).unwrap();
        let cached = stats
            .iterations
            .iter()
            .filter(|i| i.bytes_read == 0)
            .count();
        (d.reached(), cached, stats.iterations.len())
    };
    let (reached_on, cached_on, phases) = run(false);
    let (reached_off, cached_off, _) = run(true);
    assert_eq!(reached_on, reached_off);
    assert!(phases > 1000, "{phases} phases");
    assert!(
        cached_on > 2 * cached_off + phases / 10,
        "phases without a read: {cached_on} with run-ahead, {cached_off} without, of {phases}"
    );
}

/// The priority of the SSSP program (`VertexProgram::priority` over
/// `engine::frontier::Buckets`, run by `engine::phases`) is what bounds the
/// work: on a 200 x 200 grid with weights 1..=100,
/// delta-stepping relaxes each list about once (at most twice the adjacency
/// entries), while Bellman-Ford rounds (the priority ignored: every vertex
/// in one bucket) relax lists again every time a distance drops. Both give
/// Dijkstra's distances.
#[test]
fn buckets_bound_the_relaxations_on_a_grid() {
    let side = 200u64;
    let mut r = Rng::new(11);
    let mut edges = Vec::new();
    for v in 0..side * side {
        let (row, col) = (v / side, v % side);
        if col + 1 < side {
            edges.push((v, v + 1, 1.0 + r.below(100) as f64));
        }
        if row + 1 < side {
            edges.push((v, v + side, 1.0 + r.below(100) as f64));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), side * side, &edges, false, true);
    let g = MemGraph::from_edges((side * side) as usize, false, &dense_edges(&store, &edges));
    let source = dense_id(&store, 0);
    let entries = 2 * edges.len() as u64;
    let relaxed = |no_priority: bool| {
        let sel = SelectConfig {
            no_priority,
            ..select(Backend::Sync, None)
        };
        let (d, stats) = sssp(
            &store,
            source,
            &SsspConfig::default(),
            &sel,
            &Budget::new(1 << 30),
        )
        .unwrap();
        let want = reference::sssp(&g, source as u32);
        for (v, w) in want.iter().enumerate() {
            assert_eq!(d.value(v).to_bits(), w.to_bits(), "vertex {v}");
        }
        stats
            .iterations
            .iter()
            .map(|i| i.edges_processed)
            .sum::<u64>()
    };
    let bucketed = relaxed(false);
    assert!(
        bucketed <= 2 * entries,
        "delta-stepping relaxed {bucketed} edges, over twice the {entries} adjacency entries"
    );
    let rounds = relaxed(true);
    assert!(
        rounds > 2 * entries,
        "Bellman-Ford rounds relaxed only {rounds} edges (bound {})",
        2 * entries
    );
}
