//! The vertex order changes nothing a user sees: the same random graphs
//! (arbitrary 64-bit original ids, duplicates, self-loops, isolated
//! vertices) stored by degree, in Cuthill-McKee order (`--order bfs`) and
//! by original id give the same results in
//! original ids: PageRank within 1e-9 relative, BFS, WCC, SSSP, k-core and
//! the queries exactly, and byte-identical BFS, WCC, SSSP and k-core files.

use crate::common;

use crate::common::programs;
use outcore::algo::bfs::EngineChoice;
use outcore::algo::kcore::kcore;
use outcore::algo::output::{write_vertex_values, Ldbc};
use outcore::algo::pagerank;
use outcore::algo::query;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::sssp::{sssp, SsspConfig};
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::engine::stream::StreamConfig;
use outcore::ingest::build::BuildOptions;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::verify::verify;
use outcore::store::{OriginalIds, Store, VertexOrder};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Everything a user can get out of a store, in original ids.
#[derive(Debug)]
struct Results {
    /// The output files (BFS, WCC, SSSP, k-core): must be byte-identical.
    files: BTreeMap<&'static str, String>,
    /// PageRank by original id.
    pagerank: BTreeMap<u64, f64>,
    /// Query answers in original ids, as text.
    queries: Vec<String>,
}

fn store_in(
    dir: &Path,
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    directed: bool,
    order: VertexOrder,
) -> Store {
    let opts = BuildOptions {
        directed,
        weighted: true,
        memory: 256 << 20,
        group_tiles: 2,
        order,
        ..Default::default()
    };
    let sub = dir.join(order.to_string());
    std::fs::create_dir_all(&sub).unwrap();
    let report = common::build(&sub, edges, isolated, &opts);
    verify(&report.path).unwrap();
    let store = Store::open(&report.path).unwrap();
    assert_eq!(store.manifest().vertex_order, order);
    store
}

fn results(store: &Store, sources: &[u64], io: Backend) -> Results {
    let ids = store.load_ids().unwrap();
    let n = store.manifest().num_vertices;
    let directed = store.manifest().directed;
    let budget = Budget::new(1 << 30);
    let stream = StreamConfig {
        io: Some(io),
        ..Default::default()
    };
    let select = SelectConfig {
        io: Some(io),
        ..Default::default()
    };
    let dense = |o: u64| ids.dense_of_original(o, n).unwrap();
    let text = |f: &dyn Fn(&Path)| -> String {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        f(&p);
        std::fs::read_to_string(&p).unwrap()
    };
    let mut files = BTreeMap::new();
    let mut queries = Vec::new();

    let cfg = pagerank::PageRankConfig {
        iterations: 9,
        ..Default::default()
    };
    let (pr, _) = programs::pagerank(store, &cfg, stream.clone(), &budget).unwrap();
    let pagerank = (0..n)
        .map(|v| (ids.get(v).as_u64().unwrap(), pr[v as usize]))
        .collect();
    // Also against the reference on this store (dense ids).
    let g = MemGraph::load(store).unwrap();
    for (v, &e) in reference::pagerank(&g, 0.85, 9).iter().enumerate() {
        let a = pr[v];
        assert!(
            (a - e).abs() <= 1e-9 * e.abs(),
            "pr of dense {v}: {a} vs {e}"
        );
    }

    let (w, _) = programs::wcc(store, stream.clone(), &budget).unwrap();
    assert_eq!(
        (0..n as usize).map(|v| w[v]).collect::<Vec<_>>(),
        common::wide(reference::wcc(&g))
    );
    files.insert(
        "wcc",
        text(&|p| write_vertex_values(p, store, |v| ids.original_of_rank(w[v as usize])).unwrap()),
    );

    let (k, _) = kcore(store, &select, &budget).unwrap();
    files.insert(
        "kcore",
        text(&|p| write_vertex_values(p, store, |v| k.value(v as usize)).unwrap()),
    );

    for &s in sources {
        let (b, _) = programs::bfs(store, dense(s), stream.clone(), &budget).unwrap();
        let (b2, _) = programs::bfs_on(
            store,
            dense(s),
            EngineChoice::Auto,
            stream.clone(),
            select.clone(),
            &budget,
        )
        .unwrap();
        assert!((0..n as usize).all(|v| b[v] == b2[v]));
        files.insert(
            "bfs",
            text(&|p| write_vertex_values(p, store, |v| b[v as usize]).unwrap()),
        );
        let (d, _) = sssp(store, dense(s), &SsspConfig::default(), &select, &budget).unwrap();
        files.insert(
            "sssp",
            text(&|p| write_vertex_values(p, store, |v| Ldbc(d.value(v as usize))).unwrap()),
        );
        queries.extend(query_answers(store, &ids, s, directed, io));
    }
    Results {
        files,
        pagerank,
        queries,
    }
}

/// k-hop, egonet, induced and cross answers from `s` in original ids.
fn query_answers(
    store: &Store,
    ids: &OriginalIds,
    s: u64,
    directed: bool,
    io: Backend,
) -> Vec<String> {
    let n = store.manifest().num_vertices;
    let cfg = SelectConfig {
        io: Some(io),
        pool_bytes: Some(64 << 10),
        ..Default::default()
    };
    let mut eng = SelectEngine::new(store, "out", false, &Budget::new(1 << 30), &cfg).unwrap();
    let dense = |o: u64| ids.dense_of_original(o, n).unwrap();
    let original = |v: u64| Ok(ids.get(v).as_u64().unwrap());
    let mut out = Vec::new();
    for k in 0..3 {
        let (vs, _) = query::khop(&mut eng, dense(s), k).unwrap();
        out.push(format!(
            "khop {k}: {:?}",
            query::original_vertices(&vs, original).unwrap()
        ));
        let (es, _) = query::egonet(&mut eng, dense(s), k, directed).unwrap();
        let es = query::original_edges(&es, |_, _| !directed, original).unwrap();
        out.push(format!("egonet {k}: {es:?}"));
    }
    // Sets in original ids: the 2-hop set and every other vertex of it.
    let (two, _) = query::khop(&mut eng, dense(s), 2).unwrap();
    let two: Vec<u64> = query::original_vertices(&two, original).unwrap();
    let half: Vec<u64> = two.iter().step_by(2).copied().collect();
    let set = |v: &[u64]| v.iter().map(|&o| dense(o)).collect::<Vec<u64>>();
    let (es, _) = query::induced(&mut eng, &set(&half), directed).unwrap();
    let es = query::original_edges(&es, |_, _| !directed, original).unwrap();
    out.push(format!("induced: {es:?}"));
    for (a, b) in [(&half, &two), (&two, &half)] {
        let (da, db) = (set(a), set(b));
        let (es, _) = query::cross(&mut eng, &da, &db, directed).unwrap();
        let both = query::cross_min_max(&da, &db);
        let es = query::original_edges(&es, |x, y| !directed && both(x, y), original).unwrap();
        out.push(format!("cross: {es:?}"));
    }
    out
}

fn compare(edges: &[(u64, u64, f64)], isolated: &[u64], directed: bool, io: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let by_id = store_in(dir.path(), edges, isolated, directed, VertexOrder::Original);
    assert!(!by_id.manifest().has_order_map);
    for order in [VertexOrder::Degree, VertexOrder::Bfs] {
        let other = store_in(dir.path(), edges, isolated, directed, order);
        compare_stores(&other, &by_id, edges, isolated, io);
    }
}

fn compare_stores(
    by_degree: &Store,
    by_id: &Store,
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    io: Backend,
) {
    // The same graph: in rank order, the loaded graphs are equal.
    assert_eq!(
        MemGraph::load(by_degree).unwrap().in_rank_order(),
        MemGraph::load(by_id).unwrap()
    );
    // Sources: the hub, an endpoint of the first edge, an isolated vertex.
    let mut sources = vec![edges.first().map_or(isolated[0], |e| e.0)];
    let ids = by_id.load_ids().unwrap();
    sources.push(ids.get(0).as_u64().unwrap());
    sources.extend(isolated.first());
    let a = results(by_degree, &sources, io);
    let b = results(by_id, &sources, io);
    for (name, text) in &a.files {
        assert!(
            text == &b.files[name],
            "{name} files differ:\n{text}\n--\n{}",
            b.files[name]
        );
    }
    assert_eq!(a.queries, b.queries);
    assert_eq!(a.pagerank.len(), b.pagerank.len());
    for ((ia, pa), (ib, pb)) in a.pagerank.iter().zip(&b.pagerank) {
        assert_eq!(ia, ib);
        assert!(
            (pa - pb).abs() <= 1e-9 * pb.abs(),
            "pagerank of {ia}: {pa} vs {pb}"
        );
    }
}

/// Ids: small, near 2^32, near 2^64, anywhere.
fn id() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..300,
        (u32::MAX as u64 - 3)..(u32::MAX as u64 + 3),
        (u64::MAX - 50)..=u64::MAX,
        any::<u64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn both_orders_give_the_same_results(
        mut edges in prop::collection::vec((id(), id(), 0u32..64), 0..500),
        isolated in prop::collection::vec(id(), 1..4),
        hub in id(),
        directed in any::<bool>(),
        uring in any::<bool>(),
    ) {
        // A hub, duplicates with other weights, self-loops.
        let k = edges.len();
        for i in 0..k / 3 {
            let (s, _, w) = edges[i];
            edges.push((hub, s, w + 1));
            if i % 4 == 0 {
                edges.push(edges[i * 2 % k]);
                edges.push((s, s, w));
            }
        }
        let edges: Vec<(u64, u64, f64)> =
            edges.into_iter().map(|(s, d, w)| (s, d, w as f64 / 4.0)).collect();
        let io = if uring { Backend::Uring } else { Backend::Sync };
        compare(&edges, &isolated, directed, io);
    }
}

#[test]
fn several_blocks_and_a_hub() {
    // More than 2^17 vertices: several tile blocks, where the degree order
    // packs the busy vertices into the first ones.
    let mut x: u64 = 5;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut edges = Vec::new();
    for i in 0..90_000u64 {
        let s = if i % 7 == 0 {
            1 << 40
        } else {
            next() % 200_000 * 3
        };
        edges.push((s, next() % 200_000 * 3, (i % 11) as f64));
    }
    for directed in [true, false] {
        compare(&edges, &[u64::MAX], directed, Backend::Uring);
    }
}
