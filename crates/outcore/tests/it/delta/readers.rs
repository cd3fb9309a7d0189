//! The readers with lists of their own read base + delta (issue 53, S6):
//! random sequences of updates (new vertices, among them a new hub whose
//! dense id is past every base vertex's whatever its degree; removals,
//! new weights, self-loops; directed and undirected, weighted, string
//! ids), each written as the next delta generation by `update`. After
//! each, triangle counts and LCC (the triangle listing's orientation, in
//! memory and with credits spilled to logs in small blocks) and weighted
//! PageRank (its out-weights) give on base + delta what they give on a
//! store imported from the updated edge list, in original ids; random
//! walks, over held lists and through the walker logs, are step by step
//! the in-memory reference's on the view's `MemGraph`. Both I/O
//! backends. `OUTCORE_DELTA_SKIP=triangles`, `=walks` and `=weights`
//! turn them red.

use super::external::{run_with, same};
use super::steps::{random_base, shape, update_step};
use crate::common::Rng;
use crate::delta_update::{batch, import, name, text, unquote, Shape};
use outcore::algo::randomwalk::{random_walks, reference, WalkConfig};
use outcore::algo::reference::MemGraph;
use outcore::algo::{lcc, triangles};
use outcore::api::{Algorithm, RunOptions};
use outcore::engine::external::ExternalConfig;
use outcore::engine::planner::EngineChoice;
use outcore::engine::results::collect;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::export::{for_each_edge, Layout};
use outcore::store::Store;
use std::collections::{BTreeMap, BTreeSet};

/// Values by dense id as `original id -> value`.
fn by_id(store: &Store, values: &[String]) -> BTreeMap<String, String> {
    let ids = store.load_ids().unwrap();
    (values.iter().enumerate())
        .map(|(v, x)| (unquote(text(&ids.get(v as u64))), x.clone()))
        .collect()
}

/// Triangle counts and LCC of `store` by original id, on `ext`.
fn listed(store: &Store, ext: &ExternalConfig) -> [BTreeMap<String, String>; 2] {
    let budget = Budget::new(32 << 20);
    let (t, _) = triangles::triangles(store, ext, &budget).unwrap();
    let (l, _) = lcc::lcc(store, ext, &budget).unwrap();
    let t: Vec<String> = t.iter().map(|x| x.to_string()).collect();
    let l: Vec<String> = l.iter().map(|x| x.to_string()).collect();
    [by_id(store, &t), by_id(store, &l)]
}

/// Walks on `view` over held lists and through the walker logs (small
/// intervals and logs, walks kept in small batches) against the reference
/// on the view's `MemGraph`.
fn walks(view: &Store, io: Backend, source: Option<u64>, seed: u64, what: &str) {
    let g = MemGraph::load(view).unwrap();
    let cfg = WalkConfig {
        walks_per_vertex: 2,
        length: 9,
        seed,
        restart: if source.is_some() { 0.2 } else { 0.0 },
        source,
    };
    let (want_walks, want_visits) = reference(&g, &cfg);
    for (choice, small) in [
        (EngineChoice::Select, false),
        (EngineChoice::External, false),
        (EngineChoice::External, true),
    ] {
        let ext = ExternalConfig {
            io: Some(io),
            interval_vertices: small.then_some(7),
            message_buffer: small.then_some(16 * 37),
            merge_memory: small.then_some(4096),
            fan_in: small.then_some(3),
            walk_batch: small.then_some(11),
            ..Default::default()
        };
        let budget = Budget::new(32 << 20);
        let mut got = Vec::new();
        let mut keep = |_: u64, p: &[u64]| {
            got.push(p.to_vec());
            Ok(())
        };
        let run = random_walks(view, &cfg, choice, &ext, &budget, Some(&mut keep));
        let mut run = run.unwrap_or_else(|e| panic!("{what} {choice:?}: {e}"));
        assert_eq!(got, want_walks, "{what}: walks, {choice:?} small {small}");
        let visits = collect(run.visits.as_mut(), &budget, |x| x).unwrap();
        assert_eq!(visits, want_visits, "{what}: visits, {choice:?}");
        let engine = if choice == EngineChoice::Select {
            "held"
        } else {
            "external"
        };
        assert_eq!(run.stats.engine, engine, "{what}");
    }
}

/// The edges `export` gives of `layout`, in original ids, with weights.
fn exported(store: &Store, layout: Layout) -> BTreeSet<(String, String, u64)> {
    let mut out = BTreeSet::new();
    for_each_edge(store, layout, true, |s, d, w| {
        out.insert((text(&s), text(&d), w.to_bits()));
        Ok(())
    })
    .unwrap();
    out
}

/// The readers on `view` (base + delta) against `rebuilt`.
fn compare(view: &Store, rebuilt: &Store, shape: Shape, io: Backend, step: u64, what: &str) {
    let spill = ExternalConfig {
        io: Some(io),
        triangle_block: Some(16 << 10),
        force_spill: true,
        interval_vertices: Some(9),
        ..Default::default()
    };
    let plain = ExternalConfig {
        io: Some(io),
        ..Default::default()
    };
    let want = listed(rebuilt, &plain);
    for ext in [&plain, &spill] {
        let got = listed(view, ext);
        assert_eq!(got[0], want[0], "{what}: triangles");
        same(Algorithm::Lcc, &got[1], &want[1]);
    }
    for alg in [Algorithm::Triangles, Algorithm::Lcc] {
        let mut o = RunOptions::new(alg);
        o.io = Some(io);
        o.memory = 256 << 20;
        same(alg, &run_with(view, &o), &run_with(rebuilt, &o));
    }
    if shape.weighted {
        for engine in [EngineChoice::Auto, EngineChoice::External] {
            let mut o = RunOptions::new(Algorithm::Pagerank);
            o.io = Some(io);
            o.engine = engine;
            o.weighted = true;
            o.memory = 256 << 20;
            o.iterations = 8;
            same(
                Algorithm::Pagerank,
                &run_with(view, &o),
                &run_with(rebuilt, &o),
            );
        }
    }
    // Export: the CSR layouts are the view; the tiles (the base) refused.
    let mut layouts = vec![Layout::Csr];
    if shape.directed {
        layouts.push(Layout::CsrIn);
    }
    for layout in layouts {
        let want = exported(rebuilt, layout);
        assert_eq!(exported(view, layout), want, "{what}: export {layout:?}");
    }
    let e = for_each_edge(view, Layout::Tiles, false, |_, _, _| Ok(())).unwrap_err();
    assert!(e.to_string().contains("outcore compact"), "{e}");
    let n = view.manifest().num_vertices;
    walks(view, io, None, step + 3, what);
    walks(view, io, Some(n - 1), step + 5, what);
}

/// A base of 70 vertices (a few hubs), then three random updates, each
/// with a new hub, compared.
fn sequence(shape: Shape, seed: u64, io: Backend) {
    outcore::progress::set_quiet(true);
    let d = tempfile::tempdir().unwrap();
    let mut r = Rng::new(seed);
    let n = 70;
    let (mut o, path) = random_base(d.path(), shape, &mut r, n, 4, false);
    for step in 0..3 {
        let (rm, mut add) = batch(&o, &mut r, n, 30 + 20 * step);
        // A new hub: a vertex first seen here, tied to 25 base vertices.
        let hub = n * 30 + step as u64;
        add.extend((0..25).map(|_| (hub, r.below(n), (r.below(5) + 1) as f64)));
        let view = update_step(d.path(), &path, &mut o, &format!("u{step}"), &rm, &add);
        assert!(view.manifest().num_vertices > view.base().num_vertices);
        let rebuilt = import(d.path(), &format!("want{step}.oc"), shape, &o);
        let what = format!(
            "{shape:?} seed {seed} step {step} {io:?} (hub {})",
            name(shape, hub)
        );
        compare(&view, &rebuilt, shape, io, step as u64, &what);
    }
}

#[test]
fn delta_readers_directed_weighted() {
    sequence(shape(true, true, false), 11, Backend::Sync);
}

#[test]
fn delta_readers_undirected_weighted_uring() {
    sequence(shape(false, true, false), 12, Backend::Uring);
}

#[test]
fn delta_readers_directed_names_uring() {
    sequence(shape(true, false, true), 13, Backend::Uring);
}

#[test]
fn delta_readers_undirected_names() {
    sequence(shape(false, false, true), 14, Backend::Sync);
}
