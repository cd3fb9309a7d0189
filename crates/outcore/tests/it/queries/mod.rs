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
//!
//! This module holds the shared helpers (stores, engines, random graphs and
//! the reference model); the tests are in the submodules.

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

mod by_hand;
mod costs;
mod random_graphs;

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

    fn dense(&self, v: u32) -> u64 {
        self.ids
            .dense_of_original(v as u64, self.g.n as u64)
            .unwrap()
    }

    fn dense_set(&self, vs: &[u32]) -> Vec<u64> {
        vs.iter().map(|&v| self.dense(v)).collect()
    }

    fn original(&self, v: u64) -> Result<u64, outcore::Error> {
        Ok(self.ids.get(v).as_u64().unwrap())
    }

    fn vertices(&self, vs: &[u64]) -> Vec<u32> {
        assert!(vs.windows(2).all(|w| w[0] < w[1]), "sorted in dense ids");
        let out = query::original_vertices(vs, |v| self.original(v)).unwrap();
        out.into_iter().map(|v| v as u32).collect()
    }

    fn edges(&self, es: &[(u64, u64)], min_max: impl Fn(u64, u64) -> bool) -> Vec<(u32, u32)> {
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
