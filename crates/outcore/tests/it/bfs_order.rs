//! `--order bfs` (Cuthill-McKee, `ingest::build::locality`): the store's
//! order is exactly the one an in-memory reference computes from the edge
//! list, every result is the same as in the original order, and `--order
//! auto --compress` takes it where it codes smaller.

use crate::common;
use outcore::ingest::build::BuildOptions;
use outcore::store::verify::verify;
use outcore::store::{Store, VertexOrder};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The reference order: rank -> dense id. Ranks are the sorted distinct ids;
/// the first order is by degree (undirected: distinct neighbours, a
/// self-loop once; directed: distinct out- plus in-arcs), ties by rank; then
/// Cuthill-McKee levels over the undirected edges, roots taken in first
/// order in batches of 1, 2, 4, ... 4096 whenever a level reaches nobody,
/// each level's vertices by (smallest dense id of a neighbour in the level
/// before, first id).
fn reference(edges: &[(u64, u64, f64)], isolated: &[u64], directed: bool) -> Vec<u32> {
    let ids: BTreeSet<u64> = edges
        .iter()
        .flat_map(|e| [e.0, e.1])
        .chain(isolated.iter().copied())
        .collect();
    let rank: BTreeMap<u64, usize> = ids.iter().enumerate().map(|(r, &i)| (i, r)).collect();
    let n = ids.len();
    let mut arcs = BTreeSet::new();
    for &(s, d, _) in edges {
        let (s, d) = (rank[&s], rank[&d]);
        arcs.insert(if directed {
            (s, d)
        } else {
            (s.min(d), s.max(d))
        });
    }
    let mut deg = vec![0u64; n];
    let mut adj = vec![BTreeSet::new(); n];
    for &(s, d) in &arcs {
        deg[s] += 1;
        if directed || s != d {
            deg[d] += 1;
        }
        if s != d {
            adj[s].insert(d);
            adj[d].insert(s);
        }
    }
    let mut first: Vec<usize> = (0..n).collect();
    first.sort_by_key(|&r| (std::cmp::Reverse(deg[r]), r));
    let mut pos = vec![0; n];
    for (p, &r) in first.iter().enumerate() {
        pos[r] = p;
    }
    const NONE: u32 = u32::MAX;
    let mut id = vec![NONE; n];
    let (mut next, mut cursor, mut roots) = (0u32, 0, 1);
    let mut level: Vec<usize> = Vec::new();
    while (next as usize) < n {
        if level.is_empty() {
            while level.len() < roots && cursor < n {
                if id[first[cursor]] == NONE {
                    level.push(first[cursor]);
                }
                cursor += 1;
            }
            roots = (2 * roots).min(4096);
            for &r in &level {
                id[r] = next;
                next += 1;
            }
        }
        let mut found: BTreeMap<usize, u32> = BTreeMap::new();
        for &v in &level {
            for &u in &adj[v] {
                if id[u] == NONE {
                    let k = found.entry(u).or_insert(NONE);
                    *k = (*k).min(id[v]);
                }
            }
        }
        let mut found: Vec<(u32, usize)> = found.into_iter().map(|(u, k)| (k, pos[u])).collect();
        found.sort();
        level = found.iter().map(|&(_, p)| first[p]).collect();
        for &u in &level {
            id[u] = next;
            next += 1;
        }
    }
    id
}

fn store(
    dir: &std::path::Path,
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    directed: bool,
    order: VertexOrder,
    compress: bool,
    on_disk: bool,
) -> Store {
    let opts = BuildOptions {
        directed,
        weighted: true,
        memory: 256 << 20,
        group_tiles: 2,
        order,
        order_auto: false,
        compress,
        bfs_lists_on_disk: on_disk,
        ..Default::default()
    };
    let sub = dir.join(format!("{order}-{compress}"));
    std::fs::create_dir_all(&sub).unwrap();
    let report = common::build(&sub, edges, isolated, &opts);
    verify(&report.path).unwrap();
    Store::open(&report.path).unwrap()
}

/// The store's rank -> dense id map.
fn dense_of_rank(store: &Store) -> Vec<u32> {
    let n = store.manifest().num_vertices as usize;
    let mut out: Vec<u32> = (0..n as u32).collect();
    if let Some(ranks) = store.load_ranks().unwrap() {
        for (v, &r) in ranks.iter().enumerate() {
            out[r as usize] = v as u32;
        }
    }
    out
}

/// `on_disk`: the levels read lists and tiles through the engines, not the
/// lists held in memory.
fn check(
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    directed: bool,
    compress: bool,
    on_disk: bool,
) {
    let dir = tempfile::tempdir().unwrap();
    let s = store(
        dir.path(),
        edges,
        isolated,
        directed,
        VertexOrder::Bfs,
        compress,
        on_disk,
    );
    assert_eq!(s.manifest().vertex_order, VertexOrder::Bfs);
    assert_eq!(dense_of_rank(&s), reference(edges, isolated, directed));
    // No first store or scratch is left behind.
    let left: Vec<_> = std::fs::read_dir(s.path().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("g.oc")]);
}

fn id() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..200, (u64::MAX - 50)..=u64::MAX, any::<u64>()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random graphs with many small components, isolated vertices,
    /// duplicates and self-loops: the order is the reference's.
    #[test]
    fn the_order_is_cuthill_mckee(
        edges in prop::collection::vec((id(), id()), 0..400),
        isolated in prop::collection::vec(id(), 0..40),
        directed in any::<bool>(),
        compress in any::<bool>(),
        on_disk in any::<bool>(),
    ) {
        let edges: Vec<_> = edges.into_iter().map(|(s, d)| (s, d, 1.0)).collect();
        check(&edges, &isolated, directed, compress, on_disk);
    }
}

/// More than one tile block, two big components and 5,000 pairs: many root
/// batches, levels spanning blocks.
#[test]
fn blocks_components_and_pairs() {
    let mut edges = Vec::new();
    let side = 300u64;
    for r in 0..side {
        for c in 0..side {
            let v = r * side + c;
            if c + 1 < side {
                edges.push((v, v + 1, 1.0));
            }
            if r + 1 < side {
                edges.push((v, v + side, 1.0));
            }
        }
    }
    for i in 0..5000u64 {
        edges.push(((1 << 40) + 2 * i, (1 << 40) + 2 * i + 1, 1.0));
    }
    for i in 0..3000u64 {
        edges.push(((1 << 50) + i, (1 << 50) + (i * 7 + 1) % 3000, 1.0));
    }
    for on_disk in [false, true] {
        check(&edges, &[7 << 55], false, false, on_disk);
    }
}

/// A first store left by a killed build is removed by the next one on the
/// same target; an existing target without `force` is refused before any
/// work.
#[test]
fn leftovers_and_an_existing_target() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join(".g.oc.outcore-first-4000000000");
    std::fs::create_dir_all(stale.join("store")).unwrap();
    std::fs::write(stale.join("store").join("x"), b"left").unwrap();
    let edges = [(1, 2, 1.0), (2, 3, 1.0)];
    let opts = BuildOptions {
        order: VertexOrder::Bfs,
        ..Default::default()
    };
    common::build(dir.path(), &edges, &[], &opts);
    assert!(!stale.exists());
    let mut src = outcore::ingest::VecSource::new(edges.iter().copied());
    let err = match outcore::ingest::build::build_store(&mut src, &dir.path().join("g.oc"), &opts) {
        Ok(_) => panic!("an existing store was replaced without force"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("already exists"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("g.oc")]);
}
