//! The delta layer's format (issue 53, S1): a batch of removals and
//! additions written as a delta generation ([`write_ops`]) opens with the
//! counts of a store rebuilt from the updated edge list, and its lists
//! merged into the base's hold the rebuild's edges; older readers and
//! readers that do not merge a delta refuse the store; a kill before the
//! manifest's rename leaves the store as it was; damage to a delta file is
//! found.

mod damage;
mod external;
mod ids;
mod prune;
mod readers;
mod select;
mod steps;
mod stream;
mod tiles;

use damage::updated_store;
pub(crate) use external::run_with;

use crate::common::{dense_store, hub_edges, reference, Rng};
use outcore::algo::reference::MemGraph;
use outcore::store::delta::format::{self, is_tombstone, lists_files, nbr};
use outcore::store::delta::testing::write_ops;
use outcore::store::delta::DeltaLists;
use outcore::store::file::read_u64s;
use outcore::store::verify::verify;
use outcore::store::{Id, Manifest, Store};
use std::collections::BTreeMap;

type Edges = Vec<(u64, u64, f64)>;
type Ids = (Id<'static>, Id<'static>);

/// A batch on a base of `n` vertices: removals of held edges (twice, one
/// reversed), of absent ones (an unknown vertex), additions of new edges,
/// new weights, self-loops and edges to new vertices `n, n+1, ...`.
struct Batch {
    removes: Vec<(u64, u64)>,
    adds: Edges,
}

fn batch(base: &Edges, n: u64, seed: u64) -> Batch {
    let mut r = Rng::new(seed);
    let w = |r: &mut Rng| (r.below(9) + 1) as f64 / 2.0;
    let mut removes = Vec::new();
    for _ in 0..base.len() / 5 {
        let (s, d, _) = base[r.below(base.len() as u64) as usize];
        removes.push((s, d));
        if r.below(3) == 0 {
            removes.push((d, s));
        }
    }
    removes.push((n + 50, 0));
    let mut adds = Vec::new();
    let mut next_new = n;
    for i in 0..base.len() / 4 {
        match i % 5 {
            0 => {
                let (s, d, _) = base[r.below(base.len() as u64) as usize];
                adds.push((s, d, w(&mut r)));
            }
            1 => {
                // A new vertex, first seen here (so dense id = original id).
                adds.push((r.below(n), next_new, w(&mut r)));
                next_new += 1;
            }
            2 => adds.push((i as u64 % n, i as u64 % n, w(&mut r))),
            _ => adds.push((r.below(n), r.below(n), w(&mut r))),
        }
    }
    Batch { removes, adds }
}

fn ids(b: &Batch) -> (Vec<Ids>, Vec<(Id<'static>, Id<'static>, f64)>) {
    (
        b.removes
            .iter()
            .map(|&(s, d)| (Id::Int(s), Id::Int(d)))
            .collect(),
        b.adds
            .iter()
            .map(|&(s, d, w)| (Id::Int(s), Id::Int(d), w))
            .collect(),
    )
}

/// The updated edge set (NetworkX semantics: removals, then additions).
fn updated(base: &Edges, b: &Batch, directed: bool, weighted: bool) -> BTreeMap<(u64, u64), f64> {
    let key = |s: u64, d: u64| {
        if directed {
            (s, d)
        } else {
            (s.min(d), s.max(d))
        }
    };
    let mut m = reference(base, directed, false);
    for &(s, d) in &b.removes {
        m.remove(&key(s, d));
    }
    for &(s, d, w) in &b.adds {
        m.insert(key(s, d), if weighted { w } else { 1.0 });
    }
    m
}

fn base_edges(n: u64, seed: u64, weighted: bool) -> Edges {
    let mut r = Rng::new(seed ^ 7);
    hub_edges(n, 6 * n as usize, seed)
        .into_iter()
        .map(|(s, d, _)| {
            (
                s,
                d,
                if weighted {
                    (r.below(5) + 1) as f64
                } else {
                    1.0
                },
            )
        })
        .collect()
}

/// The lists of the view: the base's (in memory) merged with the delta's
/// records, read back from their files; checks each touched vertex's
/// degree in `.deg`.
fn merged(store: &Store, base: &MemGraph) -> Vec<Vec<BTreeMap<u64, f64>>> {
    let n = store.manifest().num_vertices as usize;
    let dirs = format::directions(store.base());
    let mut out = Vec::new();
    for (i, which) in dirs.iter().enumerate() {
        let lists = if i == 0 { &base.out } else { &base.inn };
        let mut adj: Vec<BTreeMap<u64, f64>> = vec![BTreeMap::new(); n];
        for (v, l) in lists.iter().enumerate() {
            adj[v] = l.iter().map(|&(u, w)| (u as u64, w)).collect();
        }
        let [bits, _, off, deg, rec, w] = lists_files(which);
        let load = |rel: &str| read_u64s(&store.delta_file(rel)).unwrap();
        let (bits, off, deg, rec) = (load(&bits), load(&off), load(&deg), load(&rec));
        let wts = match store.base().weighted {
            true => load(&w).into_iter().map(f64::from_bits).collect(),
            false => vec![1.0; rec.len()],
        };
        let touched = (0..n as u64).filter(|&v| bits[(v / 64) as usize] >> (v % 64) & 1 == 1);
        for (k, v) in touched.enumerate() {
            // Tombstones filter the base list, then the additions go in.
            let recs = off[k] as usize..off[k + 1] as usize;
            for j in recs.clone().filter(|&j| is_tombstone(rec[j])) {
                let gone = adj[v as usize].remove(&nbr(rec[j]));
                assert!(gone.is_some(), "a tombstone of an absent edge");
            }
            for j in recs.filter(|&j| !is_tombstone(rec[j])) {
                let old = adj[v as usize].insert(nbr(rec[j]), wts[j]);
                assert!(old.is_none(), "an addition of a present edge");
            }
            assert_eq!(
                deg[k],
                adj[v as usize].len() as u64,
                "degree of {v} ({which})"
            );
        }
        out.push(adj);
    }
    out
}

/// Each direction's lists as (vertex, neighbour) -> weight in original ids.
fn in_original(g: &MemGraph, orig: impl Fn(u64) -> u64) -> [BTreeMap<(u64, u64), u64>; 2] {
    let map = |lists: &[Vec<(u32, f64)>]| {
        let mut m = BTreeMap::new();
        for (v, l) in lists.iter().enumerate() {
            for &(u, w) in l {
                m.insert((orig(v as u64), orig(u as u64)), w.to_bits());
            }
        }
        m
    };
    [map(&g.out), map(&g.inn)]
}

fn round_trip(directed: bool, weighted: bool, seed: u64) {
    let d = tempfile::tempdir().unwrap();
    let n = 60;
    let base = base_edges(n, seed, weighted);
    let store = dense_store(d.path(), n, &base, directed, weighted);
    let before = store.manifest().clone();
    let mem = MemGraph::load(&store).unwrap();
    let b = batch(&base, n, seed + 1);
    let (removes, adds) = ids(&b);
    let report = write_ops(&store, &removes, &adds).unwrap();

    let want = updated(&base, &b, directed, weighted);
    let n2 = n + report.new_vertices;
    let edges: Edges = want.iter().map(|(&(s, t), &w)| (s, t, w)).collect();
    std::fs::create_dir(d.path().join("r")).unwrap();
    let rebuilt = dense_store(&d.path().join("r"), n2, &edges, directed, weighted);
    let r = rebuilt.manifest();

    let path = store.path().to_path_buf();
    let view = Store::open_with_delta(&path).unwrap();
    let (v, bm) = (view.manifest(), view.base());
    let counts = |m: &Manifest| {
        (
            m.num_vertices,
            m.num_edges,
            m.num_self_loops,
            m.degrees.max_out,
            m.degrees.max_in,
            m.tiles.blocks,
        )
    };
    assert_eq!(counts(v), counts(r), "the view's counts are the rebuild's");
    assert_eq!(counts(bm), counts(&before), "the base's counts stay");
    assert_eq!(bm.files, before.files);
    assert_eq!(bm.format_version, 3);
    assert_eq!(view.delta().unwrap().generation, 1);
    assert!(
        report.absent_removes >= 1 && report.new_vertices >= 1,
        "{report:?}"
    );

    // The lists merged, in original ids, are the updated edge set.
    let lists = merged(&view, &mem);
    let ids = store.load_ids().unwrap();
    let orig = |v: u64| {
        if v < n {
            ids.get(v).as_u64().unwrap()
        } else {
            v
        }
    };
    let mut got = BTreeMap::new();
    for (v, l) in lists[0].iter().enumerate() {
        for (&u, &w) in l {
            let (s, t) = (orig(v as u64), orig(u));
            got.insert(
                if directed {
                    (s, t)
                } else {
                    (s.min(t), s.max(t))
                },
                w,
            );
        }
    }
    assert_eq!(got, want, "the out lists merged are the updated edges");
    if directed {
        let mut inn = BTreeMap::new();
        for (v, l) in lists[1].iter().enumerate() {
            for (&u, &w) in l {
                inn.insert((orig(u), orig(v as u64)), w);
            }
        }
        assert_eq!(inn, want, "the in lists merged are the updated edges");
    }
    verify(&path).unwrap();

    // The L seam (S2): the view's CSR scan, as MemGraph loads it, is the
    // rebuild's in original ids (new vertex v has original id v here).
    let view_graph = MemGraph::load(&view).unwrap();
    let rebuilt_ids = rebuilt.load_ids().unwrap();
    let orig_r = |v: u64| rebuilt_ids.get(v).as_u64().unwrap();
    let rebuilt_graph = MemGraph::load(&rebuilt).unwrap();
    assert_eq!(
        in_original(&view_graph, orig),
        in_original(&rebuilt_graph, orig_r),
        "MemGraph of the view is the rebuild's"
    );
    for which in format::directions(view.base()) {
        let l = DeltaLists::load(&view, which).unwrap().unwrap();
        let by_cursor: Vec<(u64, Vec<u64>)> = l.cursor().map(|r| (r.v, r.recs.to_vec())).collect();
        let by_lookup: Vec<(u64, Vec<u64>)> = (0..n2)
            .filter_map(|v| l.lookup(v).map(|r| (r.v, r.recs.to_vec())))
            .collect();
        assert_eq!(by_cursor, by_lookup, "{which}");
    }
    let new = std::fs::read(view.delta_file(format::NEW_IDS_FILE)).unwrap();
    let new: Vec<u64> = new
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        new,
        (n..n2).collect::<Vec<_>>(),
        "new vertices in order of arrival"
    );
}

#[test]
fn delta_round_trip_directed_weighted() {
    round_trip(true, true, 11);
}

#[test]
fn delta_round_trip_undirected_unweighted() {
    round_trip(false, false, 23);
}

#[test]
fn delta_round_trip_undirected_weighted() {
    round_trip(false, true, 37);
}
