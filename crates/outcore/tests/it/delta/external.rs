//! The L seam in the external log engine (issue 53, S6) with the I seam
//! (S3) and the view's degrees: every algorithm the planner runs on a
//! store with a delta gives, in original ids, what it gives on a store
//! imported from the updated edge list (new vertices among the old ids,
//! removals that isolate vertices, new weights); the engines that do not
//! read a delta refuse it, naming `outcore compact`.

use super::ids::{int_store, opts, Adds, Removes};
use crate::common::{hub_edges, Rng};
use outcore::api::{Algorithm, RunOptions};
use outcore::engine::planner::EngineChoice;
use outcore::engine::results::Out;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::delta::testing::write_ops;
use outcore::store::{Id, Store, VertexOrder};
use std::collections::BTreeMap;

/// `id value` lines of `alg` on `store`, by id.
fn run(
    store: &Store,
    alg: Algorithm,
    engine: EngineChoice,
    io: Backend,
) -> BTreeMap<String, String> {
    run_from(store, alg, engine, io, "10")
}

/// [`run`] with BFS and SSSP from `source` (an original id).
pub(super) fn run_from(
    store: &Store,
    alg: Algorithm,
    engine: EngineChoice,
    io: Backend,
    source: &str,
) -> BTreeMap<String, String> {
    let mut o = RunOptions::new(alg);
    o.engine = engine;
    o.io = Some(io);
    o.source = matches!(alg, Algorithm::Bfs | Algorithm::Sssp).then(|| source.to_string());
    o.memory = 256 << 20;
    o.iterations = 6;
    run_with(store, &o)
}

/// `id value` lines of a run of `o` on `store`, by id.
pub(crate) fn run_with(store: &Store, o: &RunOptions) -> BTreeMap<String, String> {
    let alg = o.algorithm;
    let budget = Budget::checked(o.memory).unwrap();
    let mut r = outcore::api::run(store, o, &budget).unwrap_or_else(|e| panic!("{alg:?}: {e}"));
    let scratch = outcore::api::run::scratch_dir(store, None);
    let path = store.path().with_extension(format!("{}.txt", alg.name()));
    let out = Out {
        path: &path,
        store,
        budget: &budget,
        scratch: &scratch,
    };
    r.values.write(&out).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

/// Values equal, floats to 1e-9 (sums in another order).
pub(super) fn same(
    alg: Algorithm,
    got: &BTreeMap<String, String>,
    want: &BTreeMap<String, String>,
) {
    assert_eq!(got.len(), want.len(), "{alg:?}: vertices");
    for ((id, a), (id2, b)) in got.iter().zip(want) {
        assert_eq!(id, id2, "{alg:?}");
        let close = match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => x == y || (x - y).abs() <= 1e-9 * y.abs().max(1e-12),
            _ => false,
        };
        assert!(
            a == b || close,
            "{alg:?}: vertex {id}: {a} on base + delta, {b} rebuilt"
        );
    }
}

/// A base of ids 0, 10, 20, ..., then a batch: removals (all of vertex
/// 70's edges among them, isolating it), new vertices among the old ids,
/// new weights, additions between old vertices.
fn case(directed: bool, weighted: bool, seed: u64) -> (tempfile::TempDir, Store, Store) {
    let d = tempfile::tempdir().unwrap();
    let n = 40u64;
    let mut rng = Rng::new(seed);
    let mut base: Vec<(u64, u64, f64)> = hub_edges(n, 4 * n as usize, seed)
        .into_iter()
        .map(|(s, t, _)| (10 * s, 10 * t, (rng.below(4) + 1) as f64))
        .collect();
    base.push((70, 20, 1.0));
    let o = opts(directed, weighted, VertexOrder::Degree);
    let store = int_store(&d.path().join("g.oc"), &base, &[], &o);
    let key = |s: u64, t: u64| {
        if directed {
            (s, t)
        } else {
            (s.min(t), s.max(t))
        }
    };
    let mut edges: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    for &(s, t, w) in &base {
        edges.insert(key(s, t), w);
    }
    let mut removes: Removes = Vec::new();
    for &(s, t) in edges.keys() {
        if s == 70 || t == 70 || rng.below(6) == 0 {
            removes.push((Id::Int(s), Id::Int(t)));
        }
    }
    let mut adds: Adds = Vec::new();
    for i in 0..60u64 {
        let (s, t) = match i % 4 {
            0 => (10 * rng.below(n), 10 * rng.below(n) + 5),
            1 => (1000 + i % 8, 10 * rng.below(n)),
            _ => (10 * rng.below(n), 10 * rng.below(n)),
        };
        if s != t && s != 70 && t != 70 {
            adds.push((Id::Int(s), Id::Int(t), (rng.below(5) + 1) as f64));
        }
    }
    for (s, t) in &removes {
        edges.remove(&key(s.as_u64().unwrap(), t.as_u64().unwrap()));
    }
    for (s, t, w) in &adds {
        let w = if weighted { *w } else { 1.0 };
        edges.insert(key(s.as_u64().unwrap(), t.as_u64().unwrap()), w);
    }
    write_ops(&store, &removes, &adds).unwrap();
    let view = Store::open_with_delta(store.path()).unwrap();
    let ids = view.load_ids().unwrap();
    let all: Vec<u64> = (0..view.manifest().num_vertices)
        .map(|v| ids.get(v).as_u64().unwrap())
        .collect();
    assert!(all.contains(&70) && all.contains(&1001));
    let final_edges: Vec<(u64, u64, f64)> = edges.iter().map(|(&(s, t), &w)| (s, t, w)).collect();
    assert!(!final_edges.iter().any(|e| e.0 == 70 || e.1 == 70));
    let rebuilt = int_store(&d.path().join("r.oc"), &final_edges, &all, &o);
    (d, view, rebuilt)
}

const ALGS: [Algorithm; 9] = [
    Algorithm::Pagerank,
    Algorithm::Wcc,
    Algorithm::Bfs,
    Algorithm::Sssp,
    Algorithm::Kcore,
    Algorithm::Cdlp,
    Algorithm::Coloring,
    Algorithm::Mis,
    Algorithm::Betweenness,
];

fn every_algorithm(directed: bool, weighted: bool, seed: u64, io: Backend) {
    let (_d, view, rebuilt) = case(directed, weighted, seed);
    assert_eq!(view.manifest().num_edges, rebuilt.manifest().num_edges);
    for alg in ALGS {
        if (alg == Algorithm::Kcore && directed) || (alg == Algorithm::Sssp && !weighted) {
            continue;
        }
        let got = run(&view, alg, EngineChoice::External, io);
        let want = run(&rebuilt, alg, EngineChoice::External, io);
        same(alg, &got, &want);
    }
}

#[test]
fn delta_external_directed() {
    every_algorithm(true, false, 5, Backend::Sync);
}

#[test]
fn delta_external_undirected_weighted() {
    every_algorithm(false, true, 8, Backend::Sync);
}

#[test]
fn delta_external_undirected_uring() {
    every_algorithm(false, false, 13, Backend::Uring);
}

/// Engines and algorithms that do not read a delta refuse the store.
#[test]
fn delta_refused_where_not_read() {
    let (_d, view, _) = case(false, false, 3);
    let budget = Budget::checked(256 << 20).unwrap();
    let cases = [
        (Algorithm::Cdlp, EngineChoice::Stream, "stream engine"),
        (Algorithm::Cdlp, EngineChoice::Select, "select engine"),
    ];
    for (alg, engine, what) in cases {
        let mut o = RunOptions::new(alg);
        o.engine = engine;
        o.memory = 256 << 20;
        let e = match outcore::api::run(&view, &o, &budget) {
            Ok(_) => panic!("{alg:?} ran on a delta"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(what) && e.contains("outcore compact"), "{e}");
    }
}
