//! The L seam in the select engine (issue 53, S5): random sequences of
//! updates (duplicates, self-loops, new vertices, new weights, absent
//! removals; directed and undirected, weighted, string ids), each written
//! as the next delta generation by `update`; after each, BFS, SSSP, WCC,
//! k-core and PageRank on `--engine select` (and `auto` where it keeps a
//! run on select alone), and the khop and egonet queries, give on base +
//! delta what they give on a store imported from the updated edge list,
//! in original ids, on both I/O backends. `OUTCORE_DELTA_SKIP=select`
//! (the engine reads the base alone) turns them red.

use super::external::{run_from, same};
use super::steps::{random_base, shape, update_step};
use crate::common::Rng;
use crate::delta_update::{batch, import, name, text, unquote, Shape};
use outcore::api::query::{self as q, Answer, Query};
use outcore::api::Algorithm;
use outcore::engine::planner::EngineChoice;
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::{IdLookup, Store};
use std::collections::{BTreeMap, BTreeSet};

/// Results in original ids, names unquoted.
fn plain(m: BTreeMap<String, String>) -> BTreeMap<String, String> {
    m.into_iter().map(|(k, v)| (unquote(k), v)).collect()
}

/// The answer of a khop or egonet query from original id `src`, as
/// sorted text.
fn query(store: &Store, io: Backend, src: &str, hops: u32, ego: bool) -> Vec<String> {
    let budget = Budget::checked(64 << 20).unwrap();
    let cfg = SelectConfig {
        io: Some(io),
        ..Default::default()
    };
    let mut eng = SelectEngine::new(store, "out", false, &budget, &cfg).unwrap();
    let lookup = IdLookup::open(store).unwrap();
    let source = lookup.dense_of_text(src).unwrap().expect("source in graph");
    let query = match ego {
        true => Query::Egonet { source, hops },
        false => Query::Khop { source, hops },
    };
    let (answer, _) = q::run(store, &lookup, &mut eng, &query).unwrap();
    let mut out: Vec<String> = match answer {
        Answer::Vertices(vs) => vs.iter().map(text).collect(),
        Answer::Edges(es) => es
            .iter()
            .map(|(a, b)| {
                let (a, b) = (text(a), text(b));
                match store.manifest().directed || a <= b {
                    true => format!("{a} {b}"),
                    false => format!("{b} {a}"),
                }
            })
            .collect(),
    };
    out.sort();
    out
}

/// The algorithms and queries on `view` (base + delta) against `rebuilt`.
fn compare(view: &Store, rebuilt: &Store, shape: Shape, io: Backend, srcs: &[String], what: &str) {
    let mut runs = vec![
        (Algorithm::Pagerank, EngineChoice::Select),
        (Algorithm::Wcc, EngineChoice::Select),
        (Algorithm::Bfs, EngineChoice::Select),
        // In memory under auto: the tiles (S4) or the lists.
        (Algorithm::Pagerank, EngineChoice::Auto),
        (Algorithm::Wcc, EngineChoice::Auto),
        (Algorithm::Bfs, EngineChoice::Auto),
    ];
    if shape.weighted {
        runs.push((Algorithm::Sssp, EngineChoice::Select));
        runs.push((Algorithm::Sssp, EngineChoice::Auto));
    }
    if !shape.directed {
        runs.push((Algorithm::Kcore, EngineChoice::Select));
        runs.push((Algorithm::Kcore, EngineChoice::Auto));
    }
    for (alg, engine) in runs {
        for src in srcs {
            let got = plain(run_from(view, alg, engine, io, src));
            let want = plain(run_from(rebuilt, alg, EngineChoice::Select, io, src));
            let ctx = format!("{what} {engine:?} from {src}");
            assert_eq!(got.len(), want.len(), "{ctx}");
            same(alg, &got, &want);
            if !matches!(alg, Algorithm::Bfs | Algorithm::Sssp) {
                break; // no source
            }
        }
    }
    for src in srcs {
        for hops in 1..=3 {
            for ego in [false, true] {
                let (got, want) = (
                    query(view, io, src, hops, ego),
                    query(rebuilt, io, src, hops, ego),
                );
                assert_eq!(
                    got, want,
                    "{what}: query from {src}, {hops} hops, egonet {ego}"
                );
            }
        }
    }
}

/// A base of 70 vertices, then three random updates, each compared.
fn sequence(shape: Shape, seed: u64, io: Backend) {
    outcore::progress::set_quiet(true);
    let d = tempfile::tempdir().unwrap();
    let mut r = Rng::new(seed);
    let n = 70;
    let (mut o, path) = random_base(d.path(), shape, &mut r, n, 4, false);
    for step in 0..3 {
        let (rm, add) = batch(&o, &mut r, n, 30 + 20 * step);
        let before: BTreeSet<u64> = o.vertices.clone();
        let view = update_step(d.path(), &path, &mut o, &format!("u{step}"), &rm, &add);
        let rebuilt = import(d.path(), &format!("want{step}.oc"), shape, &o);
        // Sources: a hub, a vertex of the base, a new vertex.
        let mut srcs = vec![name(shape, 1), name(shape, r.below(n))];
        if let Some(&v) = o.vertices.difference(&before).next() {
            srcs.push(name(shape, v));
        }
        let what = format!("{shape:?} seed {seed} step {step} {io:?}");
        compare(&view, &rebuilt, shape, io, &srcs, &what);
    }
}

#[test]
fn delta_select_directed_weighted() {
    for seed in [1, 2] {
        sequence(shape(true, true, false), seed, Backend::Sync);
    }
}

#[test]
fn delta_select_directed_uring() {
    sequence(shape(true, false, false), 3, Backend::Uring);
}

#[test]
fn delta_select_undirected_weighted_uring() {
    for seed in [4, 5] {
        sequence(shape(false, true, false), seed, Backend::Uring);
    }
}

#[test]
fn delta_select_undirected_names() {
    let dropping = Shape {
        loops: true,
        ..shape(false, false, true)
    };
    sequence(dropping, 6, Backend::Sync);
}

#[test]
fn delta_select_directed_names_weighted_uring() {
    sequence(shape(true, true, true), 7, Backend::Uring);
}
