//! Runs over the shards of a partitioned store (issue 54): every shard's
//! run driven in this process ([`outcore::api::shard::run_parts`]) gives
//! the single-machine run's values ([`outcore::api::run`] on the store the
//! partition was made from): PageRank within 1e-12, the rest exactly
//! (WCC's and CDLP's labels, BFS's depths, SSSP's distances, core
//! numbers); K = 1, 2, 3, 5, directed and undirected, each engine.

use crate::common::Rng;
use outcore::api::partition::{partition, Partition, PartitionOptions};
use outcore::api::shard::run_parts;
use outcore::api::{run, Algorithm, RunOptions};
use outcore::engine::planner::EngineChoice;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::VecSource;
use outcore::mem::Budget;
use outcore::store::{Store, VertexOrder};
use std::collections::HashMap;
use std::path::Path;

pub(crate) fn random_edges(seed: u64, n: u64, m: usize) -> Vec<(u64, u64, f64)> {
    let mut rng = Rng::new(seed);
    (0..m)
        .map(|_| {
            // Skewed (low ids are hubs), ids spread out (an id map), some
            // vertices apart (several components).
            let s = rng.below(n).min(rng.below(n)) * 7 + 3;
            let d = match rng.below(10) {
                0 => rng.below(n) * 7 + 3 + 7 * n,
                _ => rng.below(n) * 7 + 3,
            };
            let (s, d) = if d > 7 * n { (d + 7 * n, d) } else { (s, d) };
            (s, d, (rng.below(1000) as f64) / 8.0)
        })
        .collect()
}

fn build(dir: &Path, edges: &[(u64, u64, f64)], directed: bool) -> Store {
    build_with(dir, edges, directed, false)
}

pub(crate) fn build_with(
    dir: &Path,
    edges: &[(u64, u64, f64)],
    directed: bool,
    weighted: bool,
) -> Store {
    outcore::progress::set_quiet(true);
    let mut src = VecSource::new(edges.iter().copied());
    src.vertices = vec![1_000_000, 5]; // isolated vertices
    let o = BuildOptions {
        directed,
        weighted,
        memory: 256 << 20,
        group_tiles: 2,
        order: VertexOrder::Degree,
        ..Default::default()
    };
    let path = dir.join("g.oc");
    build_store(&mut src, &path, &o).unwrap();
    Store::open(&path).unwrap()
}

pub(crate) fn options(alg: Algorithm, engine: EngineChoice, source: &str) -> RunOptions {
    let mut o = RunOptions::new(alg);
    o.memory = 64 << 20;
    o.engine = engine;
    o.iterations = 12;
    o.source = Some(source.to_string());
    o
}

/// The single-machine run's values by original id.
pub(crate) fn single(store: &Store, o: &RunOptions) -> HashMap<String, u64> {
    let budget = Budget::new(o.memory);
    let mut r = run(store, o, &budget).unwrap();
    let ids = store.load_ids().unwrap();
    let mut out = HashMap::new();
    r.values
        .for_each_dense(store, &budget, &mut |v, x| {
            out.insert(ids.get(v).to_string(), x);
        })
        .unwrap();
    out
}

/// The run over the shards' values by original id.
fn sharded(dir: &Path, o: &RunOptions) -> HashMap<String, u64> {
    let r = run_parts(dir, o).unwrap();
    let ids = Partition::open(dir).unwrap().load_ids().unwrap();
    assert_eq!(
        r.values.len() as u64,
        Partition::open(dir).unwrap().manifest().num_vertices
    );
    (r.values.iter().enumerate())
        .map(|(g, &x)| (ids.get(g as u64).to_string(), x))
        .collect()
}

pub(crate) fn same(
    alg: Algorithm,
    what: &str,
    want: &HashMap<String, u64>,
    got: &HashMap<String, u64>,
) {
    assert_eq!(want.len(), got.len(), "{what}: vertex counts");
    for (id, &w) in want {
        let g = got[id];
        match alg {
            Algorithm::Pagerank => {
                let (w, g) = (f64::from_bits(w), f64::from_bits(g));
                assert!((w - g).abs() <= 1e-12, "{what}: vertex {id}: {g} != {w}");
            }
            _ => assert_eq!(g, w, "{what}: vertex {id}"),
        }
    }
}

#[test]
fn runs_over_shards_equal_the_single_machine_run() {
    for (seed, directed) in [(11, true), (12, false)] {
        let d = tempfile::tempdir().unwrap();
        let edges = random_edges(seed, 400, 4000);
        let store = build(d.path(), &edges, directed);
        let source = edges[0].0.to_string();
        let runs = [
            (Algorithm::Pagerank, EngineChoice::Auto),
            (Algorithm::Wcc, EngineChoice::Stream),
            (Algorithm::Wcc, EngineChoice::Select),
            (Algorithm::Bfs, EngineChoice::Stream),
            (Algorithm::Bfs, EngineChoice::Select),
            (Algorithm::Cdlp, EngineChoice::Stream),
            (Algorithm::Cdlp, EngineChoice::Select),
            (Algorithm::Kcore, EngineChoice::Auto),
        ];
        let want: Vec<_> = (runs.iter())
            .map(|&(a, e)| single(&store, &options(a, e, &source)))
            .collect();
        for parts in [1, 2, 3, 5] {
            let out = d.path().join(format!("p{parts}"));
            let popts = PartitionOptions {
                parts,
                memory: 256 << 20,
                force: false,
                scratch_dir: None,
            };
            partition(store.path(), &out, &popts).unwrap();
            for (&(alg, engine), want) in runs.iter().zip(&want) {
                let what = format!(
                    "{} on {engine:?}, K = {parts}, directed {directed}",
                    alg.name()
                );
                let got = sharded(&out, &options(alg, engine, &source));
                same(alg, &what, want, &got);
            }
        }
    }
}

pub(crate) fn parts_of(store: &Store, out: &Path, parts: usize) {
    let popts = PartitionOptions {
        parts,
        memory: 256 << 20,
        force: false,
        scratch_dir: None,
    };
    partition(store.path(), out, &popts).unwrap();
}

/// SSSP over shards (Bellman-Ford supersteps) gives the single run's
/// (delta-stepping's) distances bit for bit, and a negative weight is the
/// single run's error, naming the edge by original ids.
#[test]
fn sssp_over_shards_equals_the_single_machine_run() {
    for (seed, directed) in [(21, true), (22, false)] {
        let d = tempfile::tempdir().unwrap();
        let edges = random_edges(seed, 300, 3000);
        let store = build_with(d.path(), &edges, directed, true);
        // The largest hub (id 0 * 7 + 3).
        let o = options(Algorithm::Sssp, EngineChoice::Auto, "3");
        let want = single(&store, &o);
        let reached = want.values().filter(|&&x| f64::from_bits(x).is_finite());
        assert!(reached.count() > 50);
        for parts in [1, 2, 3] {
            let out = d.path().join(format!("p{parts}"));
            parts_of(&store, &out, parts);
            let got = sharded(&out, &o);
            same(
                Algorithm::Sssp,
                &format!("sssp, K = {parts}, directed {directed}"),
                &want,
                &got,
            );
        }
    }
    let d = tempfile::tempdir().unwrap();
    let mut edges = random_edges(23, 200, 2000);
    edges.push((3, 7 * 401 + 3, -2.5));
    let store = build_with(d.path(), &edges, true, true);
    let out = d.path().join("p2");
    parts_of(&store, &out, 2);
    let e = run_parts(&out, &options(Algorithm::Sssp, EngineChoice::Auto, "3"))
        .unwrap_err()
        .to_string();
    let want = format!("edge 3 -> {} has weight -2.5 (negative)", 7 * 401 + 3);
    assert!(e.contains(&want), "{e}");
    let u = tempfile::tempdir().unwrap();
    let unweighted = build(u.path(), &edges, true);
    parts_of(&unweighted, &u.path().join("p2"), 2);
    let o = options(Algorithm::Sssp, EngineChoice::Auto, "3");
    let e = run_parts(&u.path().join("p2"), &o).unwrap_err().to_string();
    assert!(e.contains("is not weighted"), "{e}");
}

/// Messages cross between shards: a K = 3 partition of a connected graph
/// sends some, and a shard refuses a message for a vertex it does not own.
#[test]
fn messages_cross_to_their_owners_only() {
    let d = tempfile::tempdir().unwrap();
    let store = build(d.path(), &random_edges(13, 300, 3000), false);
    let out = d.path().join("p3");
    let popts = PartitionOptions {
        parts: 3,
        memory: 256 << 20,
        force: false,
        scratch_dir: None,
    };
    partition(store.path(), &out, &popts).unwrap();
    let o = options(Algorithm::Pagerank, EngineChoice::Auto, "3");
    let r = run_parts(&out, &o).unwrap();
    assert_eq!(r.steps.len(), 12);
    let cross = Partition::open(&out)
        .unwrap()
        .manifest()
        .balance
        .cross_edges;
    for s in &r.steps {
        assert!(
            s.messages > 0 && s.messages <= 2 * cross,
            "{s:?}, {cross} cross edges"
        );
        // A 4-byte target id and an 8-byte rank each.
        assert_eq!(s.bytes, s.messages * 12);
    }
    let (mut job, _, _) = outcore::api::shard::open(&out, 1, &o).unwrap();
    let e = job
        .receive(0, (&[0u32][..]).into(), &1.0f64.to_le_bytes())
        .unwrap_err()
        .to_string();
    let first = Partition::open(&out).unwrap().manifest().shards[1].local_first;
    if first > 0 {
        assert!(e.contains("does not own"), "{e}");
    }
    let first32 = [first as u32];
    let e = job
        .receive(0, (&first32[..]).into(), &[0u8; 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("message bytes"), "{e}");
    // An outbox of 8-byte ids is refused, not read as 4-byte ones.
    let e = job
        .receive(0, (&[first][..]).into(), &1.0f64.to_le_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("8-byte target ids") && e.contains("refused"),
        "{e}"
    );
}

/// A shard whose state does not fit its budget says so (the external
/// engine does not run on shards yet).
#[test]
fn a_shard_too_big_for_its_budget_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let store = build(d.path(), &random_edges(14, 300, 3000), true);
    let out = d.path().join("p2");
    let popts = PartitionOptions {
        parts: 2,
        memory: 256 << 20,
        force: false,
        scratch_dir: None,
    };
    partition(store.path(), &out, &popts).unwrap();
    let mut o = options(Algorithm::Wcc, EngineChoice::Auto, "3");
    o.memory = 1 << 20;
    let e = run_parts(&out, &o).unwrap_err().to_string();
    assert!(e.contains("shard 0") && e.contains("in memory only"), "{e}");
}

/// A shard file damaged after opening is met during a superstep: the
/// error names the shard, as opening a damaged shard does.
#[test]
fn a_shard_damaged_during_a_run_is_named() {
    let d = tempfile::tempdir().unwrap();
    let store = build(d.path(), &random_edges(15, 300, 3000), true);
    let out = d.path().join("p2");
    parts_of(&store, &out, 2);
    let mut o = options(Algorithm::Wcc, EngineChoice::Stream, "3");
    o.cache = Some(0);
    let (mut job, agg, _) = outcore::api::shard::open(&out, 1, &o).unwrap();
    let edges = out.join("shard-001/tiles/edges.bin");
    let mut bytes = std::fs::read(&edges).unwrap();
    bytes[10] ^= 0x40;
    std::fs::write(&edges, bytes).unwrap();
    job.set_aggregate(agg);
    let e = job.scatter(0).unwrap_err().to_string();
    assert!(e.contains("shard 1 (") && e.contains("damaged"), "{e}");
}
