//! A run's opening on a store with a delta (issue 53): the view's
//! out-degrees are read from disk once per run (the source's choice, the
//! planner's prices and the states' init share them), and every reader
//! of them (whole, streamed one by one, in batches) gives the degrees of
//! the updated edge list, the overflow entries the update makes and
//! drops included; BFS, PageRank and WCC on base + delta give what they
//! give on a store built from the updated edge list.
//! `OUTCORE_DELTA_SKIP=shared-degrees` (each reader loads its own) turns
//! `delta_degrees_read_once_per_run` red.

use crate::common::{dense_store, Rng};
use outcore::api::{Algorithm, RunOptions};
use outcore::store::degrees::{self, DegreeStream, Degrees};
use outcore::store::delta::degrees::loads;
use outcore::store::delta::testing::write_ops;
use outcore::store::{Id, Store};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Edge = (u64, u64);

/// A directed base of `n` vertices from `base` at `dir/g.oc`, then a
/// delta removing `rm` and adding `add` (original ids): the view and the
/// updated edges.
fn view(
    dir: &Path,
    n: u64,
    base: &BTreeSet<Edge>,
    rm: &[Edge],
    add: &[Edge],
) -> (Store, BTreeSet<Edge>) {
    let w: Vec<(u64, u64, f64)> = base.iter().map(|&(s, d)| (s, d, 1.0)).collect();
    let store = dense_store(dir, n, &w, true, false);
    let id = |x: u64| Id::Int(x);
    let rm_ids: Vec<_> = rm.iter().map(|&(s, d)| (id(s), id(d))).collect();
    let add_ids: Vec<_> = add.iter().map(|&(s, d)| (id(s), id(d), 1.0)).collect();
    write_ops(&store, &rm_ids, &add_ids).unwrap();
    let path = store.path().to_path_buf();
    drop(store);
    let mut edges = base.clone();
    rm.iter().for_each(|e| {
        edges.remove(e);
    });
    edges.extend(add.iter().copied());
    (Store::open_with_delta(&path).unwrap(), edges)
}

/// `id value` lines of `alg` (BFS from `max-degree`) on `store`, by id.
fn run(store: &Store, alg: Algorithm) -> BTreeMap<String, String> {
    let mut o = RunOptions::new(alg);
    o.source = (alg == Algorithm::Bfs).then(|| "max-degree".to_string());
    o.memory = 256 << 20;
    o.iterations = 6;
    crate::delta::run_with(store, &o)
}

#[test]
fn delta_degrees_read_once_per_run() {
    outcore::progress::set_quiet(true);
    let d = tempfile::tempdir().unwrap();
    let mut r = Rng::new(53);
    let n = 400;
    let base: BTreeSet<Edge> = (0..2000)
        .map(|i| (if i % 4 == 0 { r.below(3) } else { r.below(n) }, r.below(n)))
        .filter(|e| e.0 != e.1)
        .collect();
    let held: Vec<Edge> = base.iter().copied().collect();
    let rm: Vec<Edge> = (0..150)
        .map(|_| held[r.below(held.len() as u64) as usize])
        .collect();
    let mut add: Vec<Edge> = (0..150).map(|_| (r.below(n), r.below(n))).collect();
    add.retain(|e| e.0 != e.1);
    // A new hub: the source max-degree picks is new to the base.
    add.extend((0..300).map(|k| (n, k)));
    add.push((n + 1, 7));
    let (view, edges) = view(d.path(), n, &base, &rm, &add);
    let rebuilt_dir = d.path().join("rebuilt");
    std::fs::create_dir_all(&rebuilt_dir).unwrap();
    let w: Vec<(u64, u64, f64)> = edges.iter().map(|&(s, d)| (s, d, 1.0)).collect();
    let rebuilt = dense_store(&rebuilt_dir, n + 2, &w, true, false);
    for alg in [Algorithm::Bfs, Algorithm::Pagerank, Algorithm::Wcc] {
        let before = loads();
        let got = run(&view, alg);
        assert_eq!(
            loads() - before,
            1,
            "{alg:?}: the view's degrees read more than once"
        );
        let want = run(&rebuilt, alg);
        assert_eq!(got.len(), want.len(), "{alg:?}");
        for (k, v) in &want {
            let (a, b) = (got[k].parse::<f64>().unwrap(), v.parse::<f64>().unwrap());
            assert!(
                (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                "{alg:?} {k}: {a} vs {b}"
            );
        }
    }
}

#[test]
fn delta_degrees_every_reader_with_overflow() {
    outcore::progress::set_quiet(true);
    let d = tempfile::tempdir().unwrap();
    let n = 70_000u64;
    // Hub 0 above the u16 mark, 1 just below it, 2 above it untouched.
    let mut base: BTreeSet<Edge> = BTreeSet::new();
    base.extend((1..65_601).map(|u| (0, u)));
    base.extend((2..65_532).map(|u| (1, u)));
    base.extend((3..65_543).map(|u| (2, u)));
    let mut r = Rng::new(7);
    base.extend(
        (0..3000)
            .map(|_| (3 + r.below(n - 3), r.below(n)))
            .filter(|e| e.0 != e.1),
    );
    // 0 drops below the mark, 1 rises above it, new vertices 70000-70001.
    let rm: Vec<Edge> = (1..200).map(|u| (0, u)).collect();
    let mut add: Vec<Edge> = (65_532..65_560).map(|u| (1, u)).collect();
    add.extend([(n, 5), (n, 9), (5, n + 1), (n + 1, n)]);
    add.extend(
        (0..500)
            .map(|_| (3 + r.below(n - 3), r.below(n)))
            .filter(|e| e.0 != e.1),
    );
    let (view, edges) = view(d.path(), n, &base, &rm, &add);
    let mut deg: BTreeMap<u64, u64> = BTreeMap::new();
    for &(s, _) in &edges {
        *deg.entry(s).or_default() += 1;
    }
    let ids = view.load_ids().unwrap();
    let m = view.manifest().num_vertices;
    assert_eq!(m, n + 2);
    let want: Vec<u64> = (0..m)
        .map(|v| deg.get(&ids.get(v).as_u64().unwrap()).copied().unwrap_or(0))
        .collect();
    let mut streamed = Vec::new();
    degrees::for_each_of(&view, "out", |_, x| {
        streamed.push(x);
        Ok(())
    })
    .unwrap();
    assert_eq!(streamed, want, "for_each_of");
    let whole = Degrees::of(&view, "out").unwrap();
    assert_eq!(whole.len() as u64, m);
    let whole: Vec<u64> = (0..m as usize).map(|v| whole.get(v)).collect();
    assert_eq!(whole, want, "Degrees::of");
    // Batches of odd sizes across words and the base's end, and single
    // vertices between them.
    let mut s = DegreeStream::of(&view, "out").unwrap();
    let (mut got, mut buf, mut k) = (Vec::new(), Vec::new(), 0u64);
    while (got.len() as u64) < m {
        let left = m - got.len() as u64;
        match k % 3 {
            2 => got.push(s.next_degree().unwrap()),
            _ => {
                let mut out = vec![0; (97 + 1000 * k).min(left) as usize];
                s.next_degrees(&mut out, &mut buf).unwrap();
                got.extend(out);
            }
        }
        k += 1;
    }
    assert_eq!(got, want, "DegreeStream::of");
}
