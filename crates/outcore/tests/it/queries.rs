//! Targeted queries (k-hop, egonet, induced subgraph, cross edges) on the
//! select engine against references computed from the whole graph in memory:
//! random graphs (directed and undirected, self-loops, duplicate edges, hubs
//! with lists longer than a page, several tiles), pools from a handful of
//! frames to everything cached, both I/O backends, both vertex orders.
//!
//! The graphs have vertices `0..n` and the checks speak those (original)
//! ids: queries get dense ids through the store's id maps and their results
//! go back through [`query::original_vertices`] / [`query::original_edges`],
//! so degree-ordered and original-ordered stores must give the same answers.

use crate::common;

use common::Rng;
use outcore::algo::query::{self, QueryStats};
use outcore::algo::reference::{self, MemGraph};
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::VecSource;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::{OriginalIds, Store, VertexOrder};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn store_of(dir: &std::path::Path, n: u64, edges: &[(u64, u64)], directed: bool) -> Store {
    store_in(dir, n, edges, directed, VertexOrder::Degree)
}

fn store_in(
    dir: &std::path::Path,
    n: u64,
    edges: &[(u64, u64)],
    directed: bool,
    order: VertexOrder,
) -> Store {
    outcore::progress::set_quiet(true);
    let mut src = VecSource::new(edges.iter().map(|&(s, d)| (s, d, 1.0)));
    src.dense = Some(n);
    let opts = BuildOptions {
        directed,
        memory: 256 << 20,
        group_tiles: 2,
        order,
        ..Default::default()
    };
    let r = build_store(&mut src, &dir.join("g.oc"), &opts).unwrap();
    Store::open(&r.path).unwrap()
}

/// Pool sizes: 16 KiB (4 frames each for offsets and adjacency), 256 KiB, 32 MiB (everything).
const POOLS: [u64; 3] = [16 << 10, 256 << 10, 32 << 20];

fn engine(store: &Store, io: Backend, pool: u64) -> SelectEngine {
    let cfg = SelectConfig {
        io: Some(io),
        pool_bytes: Some(pool),
        ..Default::default()
    };
    SelectEngine::new(store, "out", false, &Budget::new(1 << 30), &cfg).unwrap()
}

/// `m` random edges over `0..n`; with `hub`, a quarter leave vertex `3 % n`
/// and a few more are self-loops and repeats.
fn random_edges(n: u64, m: usize, seed: u64, hub: bool) -> Vec<(u64, u64)> {
    let mut r = Rng::new(seed);
    let mut e: Vec<(u64, u64)> = Vec::with_capacity(m);
    for i in 0..m {
        let s = if hub && i % 4 == 0 { 3 % n } else { r.below(n) };
        let d = r.below(n);
        match i % 17 {
            5 => e.push((s, s)),
            9 if !e.is_empty() => {
                let j = r.below(e.len() as u64) as usize;
                e.push(e[j]);
            }
            11 if !e.is_empty() => {
                // the reverse of an earlier edge
                let j = r.below(e.len() as u64) as usize;
                e.push((e[j].1, e[j].0));
            }
            _ => e.push((s, d)),
        }
    }
    e
}

/// The reference model, in original ids: the graph's edges as stored
/// (directed: (u, v); undirected: (min, max)), from the in-memory graph in
/// rank order (ranks are the original ids `0..n`). `ids` maps the store's
/// dense ids.
struct Model {
    g: MemGraph,
    edges: BTreeSet<(u32, u32)>,
    ids: OriginalIds,
}

impl Model {
    fn new(store: &Store, raw: &[(u64, u64)]) -> Model {
        let g = MemGraph::load(store).unwrap().in_rank_order();
        let mut edges = BTreeSet::new();
        for (v, list) in g.out.iter().enumerate() {
            for &(u, _) in list {
                let v = v as u32;
                edges.insert(if g.directed {
                    (v, u)
                } else {
                    (v.min(u), v.max(u))
                });
            }
        }
        // Sanity: the stored graph is the input graph.
        let from_raw: BTreeSet<(u32, u32)> = raw
            .iter()
            .map(|&(s, d)| {
                let (s, d) = (s as u32, d as u32);
                if g.directed {
                    (s, d)
                } else {
                    (s.min(d), s.max(d))
                }
            })
            .collect();
        assert_eq!(edges, from_raw, "the store holds the input edges");
        let ids = store.load_ids().unwrap();
        Model { g, edges, ids }
    }

    /// Another store of the same graph: its ids instead.
    fn with_store(&self, store: &Store) -> Model {
        assert_eq!(MemGraph::load(store).unwrap().in_rank_order(), self.g);
        Model {
            g: self.g.clone(),
            edges: self.edges.clone(),
            ids: store.load_ids().unwrap(),
        }
    }

    fn dense(&self, v: u32) -> u32 {
        self.ids
            .dense_of_original(v as u64, self.g.n as u64)
            .unwrap() as u32
    }

    fn dense_set(&self, vs: &[u32]) -> Vec<u32> {
        vs.iter().map(|&v| self.dense(v)).collect()
    }

    fn original(&self, v: u32) -> Result<u64, outcore::Error> {
        Ok(self.ids.get(v as u64).as_u64().unwrap())
    }

    fn vertices(&self, vs: &[u32]) -> Vec<u32> {
        assert!(vs.windows(2).all(|w| w[0] < w[1]), "sorted in dense ids");
        let out = query::original_vertices(vs, |v| self.original(v)).unwrap();
        out.into_iter().map(|v| v as u32).collect()
    }

    fn edges(&self, es: &[(u32, u32)], min_max: impl Fn(u32, u32) -> bool) -> Vec<(u32, u32)> {
        assert!(es.windows(2).all(|w| w[0] < w[1]), "sorted in dense ids");
        let out = query::original_edges(es, min_max, |v| self.original(v)).unwrap();
        out.into_iter().map(|(a, b)| (a as u32, b as u32)).collect()
    }

    /// The queries, in original ids.
    fn q_khop(&self, eng: &mut SelectEngine, s: u32, k: u32) -> (Vec<u32>, QueryStats) {
        let (vs, st) = query::khop(eng, self.dense(s), k).unwrap();
        (self.vertices(&vs), st)
    }

    fn q_egonet(&self, eng: &mut SelectEngine, s: u32, k: u32) -> (Vec<(u32, u32)>, QueryStats) {
        let directed = self.g.directed;
        let (es, st) = query::egonet(eng, self.dense(s), k, directed).unwrap();
        assert!(directed || es.iter().all(|&(a, b)| a <= b), "(min, max)");
        (self.edges(&es, |_, _| !directed), st)
    }

    fn q_induced(&self, eng: &mut SelectEngine, set: &[u32]) -> (Vec<(u32, u32)>, QueryStats) {
        let directed = self.g.directed;
        let (es, st) = query::induced(eng, &self.dense_set(set), directed).unwrap();
        assert!(directed || es.iter().all(|&(a, b)| a <= b), "(min, max)");
        (self.edges(&es, |_, _| !directed), st)
    }

    fn q_cross(
        &self,
        eng: &mut SelectEngine,
        a: &[u32],
        b: &[u32],
    ) -> (Vec<(u32, u32)>, QueryStats) {
        let directed = self.g.directed;
        let (da, db) = (self.dense_set(a), self.dense_set(b));
        let (es, st) = query::cross(eng, &da, &db, directed).unwrap();
        let both = query::cross_min_max(&da, &db);
        (self.edges(&es, |s, d| !directed && both(s, d)), st)
    }

    fn induced(&self, set: &[u32]) -> Vec<(u32, u32)> {
        let s: BTreeSet<u32> = set.iter().copied().collect();
        self.edges
            .iter()
            .copied()
            .filter(|(u, v)| s.contains(u) && s.contains(v))
            .collect()
    }

    fn cross(&self, a: &[u32], b: &[u32]) -> Vec<(u32, u32)> {
        let a: BTreeSet<u32> = a.iter().copied().collect();
        let b: BTreeSet<u32> = b.iter().copied().collect();
        let mut out = Vec::new();
        for &(x, y) in &self.edges {
            let fwd = a.contains(&x) && b.contains(&y);
            if self.g.directed {
                if fwd {
                    out.push((x, y));
                }
                continue;
            }
            let back = a.contains(&y) && b.contains(&x);
            match (fwd, back) {
                (true, _) => out.push((x, y)), // (x, y) is (min, max) when both hold
                (false, true) => out.push((y, x)),
                _ => {}
            }
        }
        out.sort_unstable();
        out
    }
}

fn check_stats(s: &QueryStats, size: usize) {
    assert_eq!(s.result_size, size as u64);
    assert!(s.seconds >= 0.0);
    assert!(s.read_requests <= s.bytes_read.max(1));
}

/// Random vertex sets: empty, random with duplicates, a neighbourhood with
/// some random vertices and repeats.
fn sets(m: &Model, r: &mut Rng, around: u32) -> Vec<Vec<u32>> {
    let n = m.g.n as u64;
    let mut out = vec![Vec::new()];
    let k = 1 + r.below(40) as usize;
    let mut s: Vec<u32> = (0..k).map(|_| r.below(n) as u32).collect();
    s.extend_from_slice(&s.clone()[..k / 2]);
    out.push(s);
    let mut s: Vec<u32> = reference::khop(&m.g, around, 2)
        .into_iter()
        .filter(|_| r.below(3) > 0)
        .collect();
    s.extend((0..5).map(|_| r.below(n) as u32));
    if let Some(&x) = s.first() {
        s.push(x);
    }
    s.reverse();
    out.push(s);
    out.push(reference::khop(&m.g, around, 1));
    out
}

/// Runs every query from `sources` on one engine and compares.
fn check_queries(store: &Store, m: &Model, io: Backend, pool: u64, sources: &[u32], seed: u64) {
    let directed = m.g.directed;
    let mut eng = engine(store, io, pool);
    let mut r = Rng::new(seed);
    for &s in sources {
        for k in 0..=3 {
            let (vs, st) = m.q_khop(&mut eng, s, k);
            assert_eq!(
                vs,
                reference::khop(&m.g, s, k),
                "khop({s}, {k}) {io:?} pool {pool}"
            );
            check_stats(&st, vs.len());
            let (es, st) = m.q_egonet(&mut eng, s, k);
            assert_eq!(es, m.induced(&vs), "egonet({s}, {k}) {io:?} pool {pool}");
            check_stats(&st, es.len());
        }
        let sets = sets(m, &mut r, s);
        for a in &sets {
            let (es, st) = m.q_induced(&mut eng, a);
            assert_eq!(es, m.induced(a), "induced({a:?})");
            check_stats(&st, es.len());
            for b in &sets {
                let (es, st) = m.q_cross(&mut eng, a, b);
                assert_eq!(es, m.cross(a, b), "cross({a:?}, {b:?}) directed {directed}");
                check_stats(&st, es.len());
            }
        }
    }
    // Overlapping sets, one inside the other.
    if let Some(&s) = sources.first() {
        let a = reference::khop(&m.g, s, 2);
        let b = reference::khop(&m.g, s, 1);
        assert_eq!(m.q_cross(&mut eng, &a, &b).0, m.cross(&a, &b));
        assert_eq!(m.q_cross(&mut eng, &b, &a).0, m.cross(&b, &a));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_match_references(
        n in prop_oneof![1u64..64, 64u64..5_000, 60_000u64..200_000],
        m in 0usize..20_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        hub in any::<bool>(),
        uring in any::<bool>(),
        pool in 0usize..3,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let raw = random_edges(n, m, seed, hub);
        let store = store_of(dir.path(), n, &raw, directed);
        let model = Model::new(&store, &raw);
        let io = if uring { Backend::Uring } else { Backend::Sync };
        let mut sources = vec![(3 % n) as u32, (seed % n) as u32];
        if let Some(&(s, _)) = raw.get(seed as usize % raw.len().max(1)) {
            sources.push(s as u32);
        }
        check_queries(&store, &model, io, POOLS[pool], &sources, seed);
        // The same graph with dense id = original id: the same answers.
        let dir = tempfile::tempdir().unwrap();
        let plain = store_in(dir.path(), n, &raw, directed, VertexOrder::Original);
        check_queries(&plain, &model.with_store(&plain), io, POOLS[pool], &sources, seed);
    }
}

/// A hub whose list spans several pages, several tiles, every pool size and
/// both backends.
#[test]
fn hub_longer_than_a_page() {
    let n = 70_000u64;
    let mut raw = random_edges(n, 12_000, 7, false);
    let mut r = Rng::new(99);
    for _ in 0..5_000 {
        raw.push((5, r.below(n)));
    }
    // Neighbours of the hub that link back and to each other (egonet edges).
    for i in 0..2_000u64 {
        let j = r.below(n);
        raw.push((j, 5));
        raw.push((j, (j + i) % n));
    }
    raw.push((5, 5));
    for directed in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let store = store_of(dir.path(), n, &raw, directed);
        let model = Model::new(&store, &raw);
        assert!(model.g.out[5].len() > 2 * 1024, "the hub list spans pages");
        assert_eq!(model.dense(5), 0, "the hub comes first by degree");
        for io in [Backend::Uring, Backend::Sync] {
            for pool in POOLS {
                check_queries(&store, &model, io, pool, &[5, 0, 69_999], 1);
            }
        }
    }
}

#[test]
fn tiny_graphs_by_hand() {
    let orders = [VertexOrder::Degree, VertexOrder::Original];
    let cases = [Backend::Uring, Backend::Sync].map(|io| orders.map(|o| (io, o)));
    for (io, order) in cases.into_iter().flatten() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 3, 4 isolated.
        let raw = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (1, 2)];
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path(), 5, &raw, true, order);
        let m = Model::new(&store, &raw);
        let mut eng = engine(&store, io, 16 << 10);
        assert_eq!(m.q_khop(&mut eng, 0, 0).0, vec![0]);
        assert_eq!(m.q_khop(&mut eng, 0, 1).0, vec![0, 1]);
        assert_eq!(m.q_khop(&mut eng, 0, 3).0, vec![0, 1, 2, 3]);
        assert_eq!(m.q_khop(&mut eng, 4, 3).0, vec![4]);
        assert_eq!(m.q_egonet(&mut eng, 3, 0).0, vec![(3, 3)]);
        assert_eq!(m.q_egonet(&mut eng, 0, 0).0, vec![]);
        assert_eq!(m.q_egonet(&mut eng, 0, 2).0, vec![(0, 1), (1, 2), (2, 0)]);
        assert_eq!(m.q_induced(&mut eng, &[3, 2, 2, 3]).0, vec![(2, 3), (3, 3)]);
        assert_eq!(m.q_cross(&mut eng, &[2], &[0, 3]).0, vec![(2, 0), (2, 3)]);
        assert_eq!(m.q_cross(&mut eng, &[0, 3], &[2]).0, vec![]);
        assert_eq!(m.q_cross(&mut eng, &[], &[2]).0, vec![]);

        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path(), 5, &raw, false, order);
        let m = Model::new(&store, &raw);
        let mut eng = engine(&store, io, 16 << 10);
        assert_eq!(m.q_khop(&mut eng, 3, 1).0, vec![2, 3]);
        assert_eq!(m.q_khop(&mut eng, 3, 2).0, vec![0, 1, 2, 3]);
        assert_eq!(m.q_egonet(&mut eng, 3, 1).0, vec![(2, 3), (3, 3)]);
        assert_eq!(
            m.q_egonet(&mut eng, 3, 2).0,
            vec![(0, 1), (0, 2), (1, 2), (2, 3), (3, 3)]
        );
        // A = {2}, B = {0, 3}: (2, 0) and (2, 3) oriented A -> B.
        assert_eq!(m.q_cross(&mut eng, &[2], &[0, 3]).0, vec![(2, 0), (2, 3)]);
        assert_eq!(m.q_cross(&mut eng, &[0, 3], &[2]).0, vec![(0, 2), (3, 2)]);
        // Both ends in A ∩ B: once, as (min, max); the self-loop once.
        assert_eq!(
            m.q_cross(&mut eng, &[2, 3, 0], &[3, 2]).0,
            vec![(0, 2), (2, 3), (3, 3)]
        );
        assert_eq!(
            m.q_cross(&mut eng, &[3, 2], &[2, 3, 0]).0,
            vec![(2, 0), (2, 3), (3, 3)]
        );
    }
}

#[test]
fn out_of_range_ids_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), 5, &[(0, 1)], true);
    let mut eng = engine(&store, Backend::Sync, 16 << 10);
    for k in 0..3 {
        assert!(query::khop(&mut eng, 5, k).is_err());
        assert!(query::egonet(&mut eng, 5, k, true).is_err());
    }
    assert!(query::induced(&mut eng, &[1, 9], true).is_err());
    assert!(query::cross(&mut eng, &[1], &[0, 9], true).is_err());
    assert!(query::cross(&mut eng, &[9], &[0], true).is_err());
    assert!(query::cross(&mut eng, &[1, 2, 3], &[9], false).is_err());
    assert!(query::cross(&mut eng, &[9], &[1, 2, 3], false).is_err());
    assert!(query::cross(&mut eng, &[9], &[], false).is_err());
    assert!(query::cross(&mut eng, &[], &[9], true).is_err());
    assert!(query::induced(&mut eng, &[], true).unwrap().0.is_empty());
}

/// Stats come from the engine: a cold query reads, the same query on a pool
/// that holds everything reads nothing the second time.
#[test]
fn stats_follow_the_engine() {
    let n = 100_000u64;
    let raw = random_edges(n, 30_000, 3, true);
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), n, &raw, false);
    for io in [Backend::Uring, Backend::Sync] {
        let mut eng = engine(&store, io, 32 << 20);
        let (vs, cold) = query::khop(&mut eng, 3, 2).unwrap();
        assert!(vs.len() > 1000, "{}", vs.len());
        assert!(
            cold.bytes_read >= 4096 && cold.read_requests > 0,
            "{cold:?}"
        );
        assert!(cold.pages_touched > 0);
        let (again, warm) = query::khop(&mut eng, 3, 2).unwrap();
        assert_eq!(vs, again);
        assert_eq!((warm.bytes_read, warm.read_requests), (0, 0), "{warm:?}");
        assert_eq!(warm.pages_touched, cold.pages_touched);
        // The egonet reads the last level too.
        let (_, ego) = query::egonet(&mut eng, 3, 2, false).unwrap();
        assert!(ego.pages_touched > warm.pages_touched, "{ego:?} {warm:?}");
    }
}

/// A query on a 16M-vertex graph costs what it touches: a few pages, no
/// per-vertex arrays.
#[test]
fn big_sparse_graph_queries_are_cheap() {
    let n = 1u64 << 24;
    let mut raw = random_edges(n, 2_000, 11, false);
    raw.extend([(n - 1, 0), (0, n / 2), (n / 2, n - 2), (n - 2, n - 2)]);
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), n, &raw, false);
    let m = Model::new(&store, &raw);
    let (last, half) = ((n - 1) as u32, (n / 2) as u32);
    for io in [Backend::Uring, Backend::Sync] {
        let mut eng = engine(&store, io, 1 << 20);
        let (vs, st) = m.q_khop(&mut eng, last, 3);
        // The random edges (2,000 among 2^24 vertices) miss these.
        assert_eq!(vs, vec![0, half, last - 1, last]);
        assert!(st.pages_touched < 16 && st.bytes_read < 64 << 10, "{st:?}");
        let (es, _) = m.q_egonet(&mut eng, last, 3);
        assert_eq!(
            es,
            vec![(0, half), (0, last), (half, last - 1), (last - 1, last - 1)]
        );
        let (es, _) = m.q_cross(&mut eng, &[last, half], &[0]);
        assert_eq!(es, vec![(half, 0), (last, 0)]);
    }
}

#[test]
fn a_pool_share_covers_its_bookkeeping() {
    // Files larger than the share: the pools' page tables and frame records
    // come out of the share, so a share of everything the budget has fits.
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(
        dir.path(),
        40_000,
        &random_edges(40_000, 400_000, 9, true),
        true,
    );
    for limit in [1u64 << 20, 3 << 20] {
        let budget = Budget::new(limit);
        let cfg = SelectConfig {
            pool_bytes: Some(budget.available()),
            ..Default::default()
        };
        let eng = SelectEngine::new(&store, "out", false, &budget, &cfg);
        assert!(eng.is_ok(), "{limit}: {:?}", eng.err());
        assert!(budget.used() <= limit);
    }
}
