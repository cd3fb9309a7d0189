//! Checkpoints of runs over shards (issue 54, E5; BSP checkpointing at
//! the beginning of a superstep): each of the six programs run S
//! supersteps, checkpointed on every shard, restored into jobs opened
//! afresh and run on ends with the uninterrupted run's values bit for
//! bit (and the single-machine run's, PageRank within 1e-12); a
//! checkpoint with a flipped byte, of another superstep, shard or job is
//! refused.

use crate::shards::{build_with, options, parts_of, random_edges, same, single};
use outcore::api::partition::Partition;
use outcore::api::shard::{open, run_parts, ShardJob};
use outcore::api::{Algorithm, RunOptions};
use outcore::engine::planner::EngineChoice;
use outcore::engine::shard::{steps, ShardSteps};
use outcore::engine::vertex::Aggregate;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Every shard's job of `o`, at the beginning of superstep 0.
fn jobs(dir: &Path, o: &RunOptions) -> Vec<Box<dyn ShardJob>> {
    let parts = Partition::open(dir).unwrap().manifest().parts as usize;
    let mut agg = Aggregate::default();
    let mut js = Vec::new();
    for k in 0..parts {
        let (j, a, _) = open(dir, k, o).unwrap();
        agg.merge(&a);
        js.push(j);
    }
    for j in &mut js {
        j.set_aggregate(agg);
    }
    js
}

fn ckpt(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("ckpt-{k}"))
}

/// The jobs' values by original id, and by global id.
fn finish_values(dir: &Path, js: &mut [Box<dyn ShardJob>]) -> (HashMap<String, u64>, Vec<u64>) {
    let values: Vec<u64> = js.iter_mut().flat_map(|j| j.values()).collect();
    let ids = Partition::open(dir).unwrap().load_ids().unwrap();
    let by_id = (values.iter().enumerate())
        .map(|(g, &x)| (ids.get(g as u64).to_string(), x))
        .collect();
    (by_id, values)
}

#[test]
fn a_run_restored_from_a_checkpoint_ends_as_the_uninterrupted_run() {
    for (seed, directed) in [(31, true), (32, false)] {
        let d = tempfile::tempdir().unwrap();
        let edges = random_edges(seed, 400, 4000);
        let store = build_with(d.path(), &edges, directed, true);
        let dir = d.path().join("p3");
        parts_of(&store, &dir, 3);
        let algs = [
            Algorithm::Pagerank,
            Algorithm::Wcc,
            Algorithm::Bfs,
            Algorithm::Sssp,
            Algorithm::Cdlp,
            Algorithm::Kcore,
        ];
        for alg in algs {
            let o = options(alg, EngineChoice::Auto, "3");
            let what = format!("{}, directed {directed}", alg.name());
            let whole = run_parts(&dir, &o).unwrap();
            let want = single(&store, &o);
            // Supersteps before the checkpoint: some, and the run not over.
            let at = 2;
            assert!(
                whole.steps.len() > at,
                "{what}: {} steps",
                whole.steps.len()
            );
            let mut first = jobs(&dir, &o);
            let (_, done) = steps(&mut first, 0..at).unwrap();
            assert!(!done, "{what}");
            for (k, j) in first.iter_mut().enumerate() {
                assert_eq!(j.next_step(), at);
                let c = j.checkpoint(&ckpt(d.path(), k)).unwrap();
                assert_eq!(
                    (c.step, c.bytes),
                    (at, ckpt(d.path(), k).metadata().unwrap().len())
                );
            }
            // The workers are lost; new ones restore and go on.
            drop(first);
            let mut again: Vec<Box<dyn ShardJob>> =
                (0..3).map(|k| open(&dir, k, &o).unwrap().0).collect();
            for (k, j) in again.iter_mut().enumerate() {
                j.restore(&ckpt(d.path(), k), at).unwrap();
                assert_eq!(j.next_step(), at);
            }
            let max = again[0].max_steps();
            let (rest, done) = steps(&mut again, at..max).unwrap();
            assert!(done || at + rest.len() == max, "{what}");
            // What crossed, superstep by superstep, as in the uninterrupted
            // run (not for in-place programs, WCC and SSSP: a vertex lowered
            // during a superstep may send its new value in the same one,
            // as the threads meet it, so their counts vary between runs;
            // their values do not).
            if !matches!(alg, Algorithm::Wcc | Algorithm::Sssp) {
                assert_eq!(at + rest.len(), whole.steps.len(), "{what}: supersteps");
                for (a, b) in rest.iter().zip(&whole.steps[at..]) {
                    let step = a.step;
                    assert_eq!(
                        (a.messages, a.bytes),
                        (b.messages, b.bytes),
                        "{what}: {step}"
                    );
                }
            }
            let (got, values) = finish_values(&dir, &mut again);
            assert_eq!(values, whole.values, "{what}: bit for bit");
            same(alg, &what, &want, &got);
        }
    }
}

#[test]
fn a_damaged_or_foreign_checkpoint_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let edges = random_edges(33, 300, 3000);
    let store = build_with(d.path(), &edges, true, true);
    let dir = d.path().join("p2");
    parts_of(&store, &dir, 2);
    let o = options(Algorithm::Pagerank, EngineChoice::Auto, "3");
    let mut js = jobs(&dir, &o);
    steps(&mut js, 0..3).unwrap();
    for (k, j) in js.iter_mut().enumerate() {
        j.checkpoint(&ckpt(d.path(), k)).unwrap();
    }
    // Nothing but the checkpoints: the temporary names are gone.
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("ckpt"))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let fresh = |k: usize, o: &RunOptions| open(&dir, k, o).unwrap().0;
    let err = |r: outcore::Result<()>| r.unwrap_err().to_string();
    // Another superstep than asked.
    let e = err(fresh(0, &o).restore(&ckpt(d.path(), 0), 4));
    assert!(e.contains("superstep 3, not 4"), "{e}");
    // Another shard's.
    let e = err(fresh(1, &o).restore(&ckpt(d.path(), 0), 3));
    assert!(e.contains("of shard 0 of 2"), "{e}");
    // Another job's (other options, other algorithm).
    let mut o2 = o.clone();
    o2.damping = 0.5;
    let e = err(fresh(0, &o2).restore(&ckpt(d.path(), 0), 3));
    assert!(e.contains("of the job"), "{e}");
    let wcc = options(Algorithm::Wcc, EngineChoice::Auto, "3");
    let e = err(fresh(0, &wcc).restore(&ckpt(d.path(), 0), 3));
    assert!(e.contains("of the job `pagerank"), "{e}");
    // A flipped byte anywhere: in the header, in the state, in the sum.
    let path = ckpt(d.path(), 0);
    let good = std::fs::read(&path).unwrap();
    for at in [12, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        let e = err(fresh(0, &o).restore(&path, 3));
        assert!(e.contains("checkpoint damaged"), "byte {at}: {e}");
    }
    std::fs::write(&path, &good[..good.len() - 9]).unwrap();
    let e = err(fresh(0, &o).restore(&path, 3));
    assert!(e.contains("checkpoint damaged"), "truncated: {e}");
    std::fs::write(&path, &good).unwrap();
    fresh(0, &o).restore(&path, 3).unwrap();
}
