//! The T seam in the stream engine (issue 53, S4): random sequences of
//! updates (duplicates, self-loops, new vertices, new weights, absent
//! removals; directed and undirected, weighted, string ids, compressed
//! tiles, stores of several tile blocks whose new vertices open a block
//! of their own), each written as the next delta generation by `update`;
//! after each, PageRank, WCC and BFS on
//! `--engine stream` and on `auto` (which now streams too) give on base +
//! delta what the stream engine gives on a store imported from the
//! updated edge list, in original ids, on both I/O backends.
//! `OUTCORE_DELTA_SKIP=stream` (the engine reads the base tiles alone)
//! turns them red, as do `stream-tombstones` and `stream-additions`.

use super::external::{run_from, same};
use super::steps::{random_base, shape, update_step};
use crate::common::Rng;
use crate::delta_update::{batch, import_coded, name, Shape};
use outcore::api::{Algorithm, RunOptions};
use outcore::engine::planner::EngineChoice;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use std::collections::BTreeSet;

/// The engines `alg`'s iterations ran on, under `engine`.
fn engines(store: &Store, alg: Algorithm, engine: EngineChoice, src: &str) -> BTreeSet<String> {
    let mut o = RunOptions::new(alg);
    o.engine = engine;
    o.source = matches!(alg, Algorithm::Bfs).then(|| src.to_string());
    o.memory = 256 << 20;
    o.iterations = 6;
    let budget = Budget::checked(o.memory).unwrap();
    let r = outcore::api::run(store, &o, &budget).unwrap();
    r.stats
        .iterations
        .iter()
        .map(|i| i.engine.to_string())
        .collect()
}

/// The algorithms on `view` (base + delta) against `rebuilt`.
fn compare(view: &Store, rebuilt: &Store, io: Backend, srcs: &[String], what: &str) {
    for alg in [Algorithm::Pagerank, Algorithm::Wcc, Algorithm::Bfs] {
        for engine in [EngineChoice::Stream, EngineChoice::Auto] {
            for src in srcs {
                let got = run_from(view, alg, engine, io, src);
                let want = run_from(rebuilt, alg, EngineChoice::Stream, io, src);
                let ctx = format!("{what} {alg:?} {engine:?} from {src}");
                assert_eq!(got.len(), want.len(), "{ctx}");
                same(alg, &got, &want);
                if alg != Algorithm::Bfs {
                    break; // no source
                }
            }
        }
    }
    // PageRank streams on base + delta as on a compacted store.
    let on = engines(view, Algorithm::Pagerank, EngineChoice::Auto, &srcs[0]);
    assert_eq!(on, BTreeSet::from(["stream".to_string()]), "{what}");
}

/// A base of `n` vertices (`4n` edges, a few hubs), compressed or not,
/// then `steps` random updates of `size` requests, each compared.
fn sequence(shape: Shape, seed: u64, io: Backend, n: u64, compress: bool, steps: usize) {
    outcore::progress::set_quiet(true);
    let d = tempfile::tempdir().unwrap();
    let mut r = Rng::new(seed);
    let (mut o, path) = random_base(d.path(), shape, &mut r, n, 4, compress);
    // Big stores: enough new vertices to open a tile block of their own.
    let size = |step: usize| match n > 1000 {
        true => 4000 + 1000 * step,
        false => 30 + 20 * step,
    };
    for step in 0..steps {
        let (rm, add) = batch(&o, &mut r, n, size(step));
        let before: BTreeSet<u64> = o.vertices.clone();
        let view = update_step(d.path(), &path, &mut o, &format!("u{step}"), &rm, &add);
        let want = format!("want{step}.oc");
        let rebuilt = import_coded(d.path(), &want, shape, &o, compress);
        // Sources: a hub, a vertex of the base, a new vertex.
        let mut srcs = vec![name(shape, 1), name(shape, r.below(n))];
        if let Some(&v) = o.vertices.difference(&before).next() {
            srcs.push(name(shape, v));
        }
        let what = format!("{shape:?} seed {seed} step {step} {io:?} compress {compress}");
        compare(&view, &rebuilt, io, &srcs, &what);
    }
}

#[test]
fn delta_stream_directed_weighted() {
    for seed in [11, 12] {
        sequence(shape(true, true, false), seed, Backend::Sync, 70, false, 3);
    }
}

#[test]
fn delta_stream_directed_uring() {
    sequence(shape(true, false, false), 13, Backend::Uring, 70, false, 3);
}

#[test]
fn delta_stream_undirected_weighted_uring() {
    for seed in [14, 15] {
        sequence(
            shape(false, true, false),
            seed,
            Backend::Uring,
            70,
            false,
            3,
        );
    }
}

#[test]
fn delta_stream_undirected_names() {
    let dropping = Shape {
        loops: true,
        ..shape(false, false, true)
    };
    sequence(dropping, 16, Backend::Sync, 70, false, 3);
}

#[test]
fn delta_stream_directed_names_weighted_uring() {
    sequence(shape(true, true, true), 17, Backend::Uring, 70, false, 3);
}

#[test]
fn delta_stream_compressed() {
    sequence(shape(true, false, false), 18, Backend::Sync, 70, true, 2);
    sequence(shape(false, true, false), 19, Backend::Uring, 70, true, 2);
}

/// Two tile blocks and a third of new vertices (n just under 2 x 2^16):
/// tombstones and additions land in many tiles, off the diagonal too.
#[test]
fn delta_stream_blocks_directed() {
    sequence(
        shape(true, false, false),
        20,
        Backend::Uring,
        131_000,
        false,
        2,
    );
}

#[test]
fn delta_stream_blocks_undirected_compressed() {
    sequence(
        shape(false, false, false),
        21,
        Backend::Sync,
        131_000,
        true,
        2,
    );
}
