//! SSSP (delta-stepping) and k-core (h-index iteration) on the select engine
//! against the in-memory references: random graphs, pools from a few frames
//! to everything cached, both I/O backends, and the Graphalytics examples.

use crate::common;

use common::Rng;

use common::{
    dense_id, dense_store as store_of, graphalytics_dir as data,
    graphalytics_properties as properties, to_dense as dense_edges,
};
use outcore::algo::kcore::{kcore, kcore_vertices};
use outcore::algo::output::{write_vertex_values, Ldbc};
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::sssp::{sssp, SsspConfig};
use outcore::algo::validate::{rule_for, validate};
use outcore::engine::select::SelectConfig;
use outcore::error::Error;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::VecSource;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

fn select(io: Backend, pool: Option<u64>) -> SelectConfig {
    SelectConfig {
        io: Some(io),
        pool_bytes: pool,
        ..Default::default()
    }
}

/// With a shallow depth the pool has room for SSSP's run-ahead prefetch.
fn select_depth(io: Backend, pool: Option<u64>, depth: Option<usize>) -> SelectConfig {
    SelectConfig {
        depth,
        ..select(io, pool)
    }
}

/// `m` random edges on `0..n` (self-loops and duplicates happen), plus 1500
/// edges out of vertex 3 with `hub`; weights are 0 for about a fifth, else
/// small integers or arbitrary reals.
fn random_edges(n: u64, m: usize, seed: u64, hub: bool) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    let mut out = Vec::with_capacity(m + 1500);
    let weight = |r: &mut Rng| match r.below(5) {
        0 => 0.0,
        1 | 2 => r.below(10) as f64,
        _ => (r.next() >> 11) as f64 / (1u64 << 53) as f64 * 100.0,
    };
    for _ in 0..m {
        let (s, d) = (r.below(n), r.below(n));
        let w = weight(&mut r);
        out.push((s, d, w));
    }
    if hub && n > 3 {
        for _ in 0..1500 {
            let d = r.below(n);
            let w = weight(&mut r);
            out.push((3, d, w));
        }
    }
    out
}

fn check_sssp(store: &Store, g: &MemGraph, source: u64, cfg: &SsspConfig, sel: &SelectConfig) {
    let budget = Budget::new(1 << 30);
    let (got, stats) = sssp(store, source, cfg, sel, &budget).unwrap();
    let expect = reference::sssp(g, source as u32);
    for (v, &e) in expect.iter().enumerate() {
        let a = got.value(v);
        if e.is_infinite() {
            assert_eq!(a, e, "dist[{v}] (source {source}, delta {:?})", cfg.delta);
        } else {
            assert!(
                (a - e).abs() <= 1e-9 * e.abs(),
                "dist[{v}] = {a}, expected {e} (source {source}, delta {:?})",
                cfg.delta
            );
        }
    }
    assert_eq!(stats.engine, "select");
    assert_eq!(stats.io_backend, sel.io.unwrap().to_string());
    assert!(!stats.iterations.is_empty());
    assert!(stats.iterations.len() <= 10_000);
    assert!(stats.iterations.iter().all(|i| i.engine == "select"));
    let active: u64 = stats.iterations.iter().map(|i| i.active_vertices).sum();
    let reached = expect.iter().filter(|d| d.is_finite()).count() as u64;
    assert!(active >= reached, "{active} processed < {reached} reached");
    drop(got);
    assert_eq!(budget.used(), 0, "everything is released");
}

fn check_kcore(store: &Store, g: &MemGraph, sel: &SelectConfig) {
    let budget = Budget::new(1 << 30);
    let (got, stats) = kcore(store, sel, &budget).unwrap();
    let expect = reference::core_numbers(g);
    for (v, &e) in expect.iter().enumerate() {
        assert_eq!(got.value(v), e, "core number of {v}");
    }
    let max = expect.iter().copied().max().unwrap_or(0);
    assert_eq!(got.max_core(), max);
    for k in [0, 1, 2, max / 2, max, max + 1] {
        let want: Vec<u32> = (0..g.n as u32)
            .filter(|&v| expect[v as usize] >= k)
            .collect();
        assert_eq!(kcore_vertices(&got, k), want, "the {k}-core");
    }
    assert_eq!(stats.engine, "select");
    if g.n > 0 {
        assert_eq!(stats.iterations[0].active_vertices, g.n as u64);
        assert!(stats.iterations.iter().all(|i| i.engine == "select"));
    }
    drop(got);
    assert_eq!(budget.used(), 0, "everything is released");
}

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

#[test]
fn sssp_refuses_bad_input() {
    let budget = Budget::new(1 << 30);
    let sel = select(Backend::Sync, None);
    let dir = tempfile::tempdir().unwrap();
    // Unweighted.
    let store = store_of(dir.path(), 3, &[(0, 1, 1.0)], true, false);
    let err = sssp(&store, 0, &SsspConfig::default(), &sel, &budget).unwrap_err();
    assert!(
        matches!(err, Error::Invalid(_)) && err.to_string().contains("weighted"),
        "{err}"
    );
    // Source out of range; bad delta.
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), 3, &[(0, 1, 1.0)], true, true);
    let err = sssp(&store, 3, &SsspConfig::default(), &sel, &budget).unwrap_err();
    assert!(err.to_string().contains("source vertex 3"), "{err}");
    for delta in [0.0, -1.0, f64::NAN] {
        let err = sssp(&store, 0, &SsspConfig { delta: Some(delta) }, &sel, &budget).unwrap_err();
        assert!(err.to_string().contains("delta"), "{err}");
    }
    // Negative and NaN weights, named by original ids.
    for (w, what) in [(-0.5, "negative"), (f64::NAN, "NaN")] {
        for delta in [None, Some(1.0)] {
            let dir = tempfile::tempdir().unwrap();
            outcore::progress::set_quiet(true);
            let mut src = VecSource::new([(10, 20, 1.0), (20, 30, w), (30, 40, 1.0)]);
            src.dense = None;
            let opts = BuildOptions {
                weighted: true,
                memory: 256 << 20,
                ..Default::default()
            };
            let r = build_store(&mut src, &dir.path().join("g.oc"), &opts).unwrap();
            let store = Store::open(&r.path).unwrap();
            let from = dense_id(&store, 10);
            let err = sssp(&store, from, &SsspConfig { delta }, &sel, &budget).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, Error::Invalid(_)), "{msg}");
            assert!(msg.contains("20 -> 30") && msg.contains(what), "{msg}");
        }
    }
    assert_eq!(budget.used(), 0);
}

#[test]
fn too_small_a_budget_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let n = 200_000;
    let edges = random_edges(n, 1000, 5, false);
    let store = store_of(dir.path(), n, &edges, true, true);
    let sel = select(Backend::Sync, None);
    let err = sssp(
        &store,
        0,
        &SsspConfig::default(),
        &sel,
        &Budget::new(2 << 20),
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::Budget(_)) && err.to_string().contains("needs at least"),
        "{err}"
    );
    let err = kcore(&store, &sel, &Budget::new(1 << 20)).unwrap_err();
    assert!(
        matches!(err, Error::Budget(_)) && err.to_string().contains("needs at least"),
        "{err}"
    );
}

#[test]
fn graphalytics_examples_pass_sssp_validation() {
    for (name, directed) in [("example-directed", true), ("example-undirected", false)] {
        outcore::progress::set_quiet(true);
        let props = properties(name);
        let dir = tempfile::tempdir().unwrap();
        let store = common::import_graphalytics(dir.path(), name, directed);
        let ids = store.load_ids().unwrap();
        let n = store.manifest().num_vertices;
        let original: u64 = props["sssp.source-vertex"].parse().unwrap();
        let source = (0..n).find(|&v| ids.get(v) == original).unwrap();
        let g = MemGraph::load(&store).unwrap();
        for io in [Backend::Uring, Backend::Sync] {
            for delta in [None, Some(1e-3), Some(1e9)] {
                let budget = Budget::new(256 << 20);
                let (d, _) = sssp(
                    &store,
                    source,
                    &SsspConfig { delta },
                    &select(io, None),
                    &budget,
                )
                .unwrap();
                let out = dir.path().join(format!("{name}-sssp-{io}"));
                write_vertex_values(&out, &store, |v| Ldbc(d.value(v as usize))).unwrap();
                validate(
                    &out,
                    &data().join(format!("{name}-SSSP")),
                    rule_for("sssp").unwrap(),
                )
                .unwrap();
            }
            let (k, _) = kcore(&store, &select(io, None), &Budget::new(256 << 20)).unwrap();
            let expect = reference::core_numbers(&g);
            assert!(
                (0..n as usize).all(|v| k.value(v) == expect[v]),
                "{name} k-core"
            );
        }
    }
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
