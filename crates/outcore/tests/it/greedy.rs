//! Colouring (speculation and conflict repair) against its in-memory
//! reference of the same rounds, maximal independent set (Luby) against
//! the sequential greedy one in the same priority order, and the properties
//! that make them right whatever the order: a colouring is proper and uses
//! at most max degree + 1 colours; a set is independent and maximal. Random directed and undirected graphs with hubs, self-loops and
//! duplicates; intervals from a few vertices (state spilled, logs merged) to
//! one; both I/O backends; the same seed gives the same answer at any
//! interval size and vertex order.

use crate::common::{dense_store, hub_edges, to_dense, unweighted_store};
use outcore::algo::coloring::{self, coloring};
use outcore::algo::mis::{self, mis};
use outcore::algo::priority::{self, keys};
use outcore::engine::external::ExternalConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

fn dense_edges(store: &Store, edges: &[(u64, u64, f64)]) -> Vec<(u32, u32)> {
    to_dense(store, edges)
        .iter()
        .map(|&(s, d, _)| (s, d))
        .collect()
}

/// Checks a colouring of `0..n` by its properties.
fn check_proper(n: usize, edges: &[(u32, u32)], color: &[u32]) {
    let nbrs = priority::simple_neighbours(n, edges);
    let max_deg = nbrs.iter().map(Vec::len).max().unwrap_or(0) as u32;
    for (v, l) in nbrs.iter().enumerate() {
        for &u in l {
            assert_ne!(color[v], color[u as usize], "edge {v}-{u} joins one colour");
        }
        assert!(
            color[v] <= max_deg,
            "colour {} > max degree {max_deg}",
            color[v]
        );
    }
}

/// Checks a vertex set of `0..n` by its properties.
fn check_mis(n: usize, edges: &[(u32, u32)], inside: &[bool]) {
    let nbrs = priority::simple_neighbours(n, edges);
    for (v, l) in nbrs.iter().enumerate() {
        let inner = l.iter().filter(|&&u| inside[u as usize]).count();
        if inside[v] {
            assert_eq!(inner, 0, "{v} and a neighbour are both in the set");
        } else {
            assert!(inner > 0, "{v} could join the set: not maximal");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn coloring_and_mis_match_their_references(
        n in 1u64..600,
        m in 0usize..5000,
        seed in any::<u64>(),
        alg_seed in 0u64..4,
        directed in any::<bool>(),
        interval in prop_oneof![Just(None), (1u64..64).prop_map(Some)],
        sync in any::<bool>(),
    ) {
        // At most 40 intervals: each costs a pass of every superstep (600
        // vertices one at a time took a minute), while the small message
        // buffers below still spill and merge their logs at any count.
        let n = interval.map_or(n, |i| n.min(40 * i));
        let dir = tempfile::tempdir().unwrap();
        let edges = hub_edges(n, m, seed);
        let store = dense_store(dir.path(), n, &edges, directed, false);
        let cfg = ExternalConfig {
            io: Some(if sync { Backend::Sync } else { Backend::Uring }),
            interval_vertices: interval,
            message_buffer: interval.map(|i| i * 40),
            ..Default::default()
        };
        let budget = Budget::new(32 << 20);
        let dense = dense_edges(&store, &edges);

        let (got, stats) = coloring(&store, alg_seed, &cfg, &budget).unwrap();
        check_proper(n as usize, &dense, &got);
        let bits = priority::rank_bits(n);
        let k = keys(&store, |r, d| coloring::key(alg_seed, r, d, bits)).unwrap();
        prop_assert_eq!(&got, &coloring::reference(&k, &dense, directed));
        prop_assert_eq!(stats.algorithm.as_str(), "coloring");

        let (inside, _) = mis(&store, alg_seed, &cfg, &budget).unwrap();
        check_mis(n as usize, &dense, &inside);
        let k = keys(&store, |r, _| mis::key(alg_seed, r, bits)).unwrap();
        prop_assert_eq!(&inside, &mis::reference(&k, &dense));
        prop_assert_eq!(budget.used(), 0);
    }
}

/// A clique of 150 needs 150 colours, past two 64-colour windows of the
/// free-colour search; its losers spread over more colours each round.
#[test]
fn a_clique_takes_every_colour() {
    let dir = tempfile::tempdir().unwrap();
    let k = 150u64;
    let edges: Vec<(u64, u64)> = (0..k)
        .flat_map(|a| (a + 1..k).map(move |b| (a, b)))
        .collect();
    let store = unweighted_store(dir.path(), k, &edges, false);
    let cfg = ExternalConfig {
        interval_vertices: Some(40),
        ..Default::default()
    };
    let (mut got, _) = coloring(&store, 7, &cfg, &Budget::new(32 << 20)).unwrap();
    got.sort_unstable();
    assert_eq!(got, (0..k as u32).collect::<Vec<_>>());
    let (inside, _) = mis(&store, 7, &cfg, &Budget::new(32 << 20)).unwrap();
    assert_eq!(inside.iter().filter(|&&x| x).count(), 1);
}

/// A star: the hub (highest priority) keeps colour 0, every leaf loses
/// to it once and takes the smallest free colour, 1; its MIS is the hub or all the leaves.
#[test]
fn a_star_takes_two_colours() {
    let dir = tempfile::tempdir().unwrap();
    let edges: Vec<(u64, u64)> = (1..100).map(|b| (0, b)).collect();
    let store = unweighted_store(dir.path(), 100, &edges, true);
    let (got, _) = coloring(
        &store,
        1,
        &ExternalConfig::default(),
        &Budget::new(32 << 20),
    )
    .unwrap();
    let hub = outcore::api::run::max_degree_vertex(&store).unwrap() as usize;
    for (v, &c) in got.iter().enumerate() {
        assert_eq!(c, (v != hub) as u32);
    }
}

/// Kron scale 16 (hubs and a dense core, where Jones-Plassmann took over
/// 500 supersteps): proper, at most max degree + 1 colours, in at most 64
/// supersteps, and the same colours on small intervals with spilled
/// logs, on the portable backend and on one thread.
#[test]
fn kron_16_colours_in_tens_of_supersteps() {
    let dir = tempfile::tempdir().unwrap();
    let store = kron_16(dir.path(), true);
    let n = store.manifest().num_vertices as usize;
    let exported = crate::common::exported(&store, outcore::store::export::Layout::Tiles, false);
    let dense = dense_edges(&store, &exported);
    let budget = Budget::new(256 << 20);
    let (got, stats) = coloring(&store, 3, &ExternalConfig::default(), &budget).unwrap();
    check_proper(n, &dense, &got);
    let steps = stats.iterations.len();
    assert!(steps <= 64, "{steps} supersteps");
    let small = ExternalConfig {
        io: Some(Backend::Sync),
        interval_vertices: Some(5000),
        message_buffer: Some(1 << 16),
        ..Default::default()
    };
    assert_eq!(coloring(&store, 3, &small, &budget).unwrap().0, got);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let cfg = ExternalConfig::default();
    assert_eq!(
        one.install(|| coloring(&store, 3, &cfg, &budget))
            .unwrap()
            .0,
        got
    );
}

/// The kron generator's default graph (scale 16) as a store in `dir`,
/// `directed` or not.
fn kron_16(dir: &std::path::Path, directed: bool) -> Store {
    use outcore::gen::{self, GenConfig, GenKind};
    use outcore::ingest::build::{build_store, BuildOptions};
    outcore::progress::set_quiet(true);
    let path = dir.join("k.oc");
    let cfg = GenConfig::new(GenKind::Kron);
    let mut src = gen::generator(&cfg).unwrap();
    let opts = BuildOptions {
        memory: 128 << 20,
        directed,
        ..Default::default()
    };
    build_store(src.as_mut(), &path, &opts).unwrap();
    Store::open(&path).unwrap()
}

/// The pull mode (select engine, synchronous rounds over Gauss-Seidel
/// batches: kron-16's 2 M list slots take several batches of 256 Ki, so
/// a vertex reads neighbours stepped earlier in the same round) colours
/// as the reference's rounds, for several seeds, on every thread count;
/// `auto` picks it when it fits, and the superstep form still runs on a
/// budget where it does not.
#[test]
fn pull_mode_colours_as_the_rounds_across_batches() {
    use outcore::algo::vertex::Engines;
    use outcore::engine::planner::EngineChoice;
    use outcore::engine::results::collect;
    let dir = tempfile::tempdir().unwrap();
    let store = kron_16(dir.path(), false);
    let m = store.manifest();
    let (n, directed) = (m.num_vertices, m.directed);
    assert!(!directed);
    assert!(m.csr.out_entries > 4 << 18, "several batches");
    let exported = crate::common::exported(&store, outcore::store::export::Layout::Tiles, false);
    let dense = dense_edges(&store, &exported);
    let bits = priority::rank_bits(n);
    let ext = ExternalConfig::default();
    let budget = Budget::new(256 << 20);
    let run = |choice, seed, budget: &Budget| {
        let (mut v, stats) =
            coloring::coloring_run(&store, seed, &Engines::auto(choice, &ext), budget).unwrap();
        let engines: Vec<&str> = stats.iterations.iter().map(|i| i.engine).collect();
        (collect(v.as_mut(), budget, |x| x as u32).unwrap(), engines)
    };
    for seed in [0u64, 3, 11] {
        let k = keys(&store, |r, d| coloring::key(seed, r, d, bits)).unwrap();
        let want = coloring::reference(&k, &dense, directed);
        assert!(coloring::pulls(EngineChoice::Auto, directed, n, &budget));
        let (got, engines) = run(EngineChoice::Auto, seed, &budget);
        assert!(engines.iter().all(|&e| e == "select"), "{engines:?}");
        assert_eq!(got, want, "seed {seed}");
        assert_eq!(budget.used(), 0);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(
            one.install(|| run(EngineChoice::Select, seed, &budget)).0,
            want
        );
    }
    // Too small for the pull mode's state: the supersteps, off memory.
    let small = Budget::new(16 << 20);
    assert!(!coloring::pulls(EngineChoice::Auto, directed, n, &small));
    let k = keys(&store, |r, d| coloring::key(3, r, d, bits)).unwrap();
    let (got, engines) = run(EngineChoice::Auto, 3, &small);
    assert!(engines.iter().all(|&e| e != "select"), "{engines:?}");
    assert_eq!(got, coloring::reference(&k, &dense, directed));
}
