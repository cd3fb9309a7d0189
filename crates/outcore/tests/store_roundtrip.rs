//! Every layout of a built store round-trips the input edge set (property tests).

mod common;

use common::*;
use outcore::ingest::build::BuildOptions;
use outcore::store::export::Layout;
use outcore::store::verify::verify;
use outcore::store::Store;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn check(
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    directed: bool,
    weighted: bool,
    drop_loops: bool,
    cap: Option<u64>,
) {
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        directed,
        weighted,
        drop_self_loops: drop_loops,
        memory: 128 << 20,
        sort_buffer_cap: cap,
        group_tiles: 2,
        ..Default::default()
    };
    let edges: Vec<(u64, u64, f64)> = edges
        .iter()
        .map(|&(s, d, w)| (s, d, if weighted { w } else { 1.0 }))
        .collect();
    let report = build(dir.path(), &edges, isolated, &opts);
    let store = Store::open(&report.path).unwrap();
    verify(&report.path).unwrap();
    let expect = reference(&edges, directed, drop_loops);
    let verts = reference_vertices(&edges, isolated);
    let m = store.manifest();
    assert_eq!(m.num_vertices, verts.len() as u64);
    assert_eq!(m.num_edges, expect.len() as u64);
    assert_eq!(
        m.num_self_loops,
        expect.keys().filter(|(s, d)| s == d).count() as u64
    );

    let as_map = |v: Vec<(u64, u64, f64)>| -> BTreeMap<(u64, u64), f64> {
        let n = v.len();
        let m: BTreeMap<_, _> = v.into_iter().map(|(s, d, w)| ((s, d), w)).collect();
        assert_eq!(m.len(), n, "an edge was exported twice");
        m
    };
    assert_eq!(as_map(exported(&store, Layout::Tiles, false)), expect);
    assert_eq!(as_map(exported(&store, Layout::Csr, false)), expect);
    if directed {
        assert_eq!(as_map(exported(&store, Layout::CsrIn, false)), expect);
    } else {
        let mut both = expect.clone();
        for (&(s, d), &w) in &expect {
            both.insert((d, s), w);
        }
        assert_eq!(as_map(exported(&store, Layout::Tiles, true)), both);
        assert_eq!(as_map(exported(&store, Layout::Csr, true)), both);
    }
}

/// Ids drawn from a mix: small, dense, near 2^32, near 2^64, and beyond 2^17.
fn id() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..20,
        0u64..200_000,
        (u32::MAX as u64 - 3)..(u32::MAX as u64 + 3),
        (u64::MAX - 5)..=u64::MAX,
        any::<u64>(),
    ]
}

fn edge() -> impl Strategy<Value = (u64, u64, f64)> {
    (id(), id(), 0u32..1000).prop_map(|(s, d, w)| (s, d, w as f64 / 8.0))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_round_trip(
        mut edges in prop::collection::vec(edge(), 0..400),
        isolated in prop::collection::vec(id(), 0..5),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        drop_loops in any::<bool>(),
        tiny_buffers in any::<bool>(),
        dup in 0usize..50,
    ) {
        // Duplicates (same endpoints, maybe reversed, other weight) and self-loops.
        for i in 0..dup.min(edges.len()) {
            let (s, d, w) = edges[i * 7 % edges.len()];
            edges.push(if i % 2 == 0 { (d, s, w + 1.0) } else { (s, d, w + 2.0) });
            if i % 5 == 0 { edges.push((s, s, w)); }
        }
        check(&edges, &isolated, directed, weighted, drop_loops, tiny_buffers.then_some(0));
    }
}

#[test]
fn empty_graph_and_single_vertex() {
    check(&[], &[], true, false, false, None);
    check(&[], &[], false, true, false, None);
    check(&[], &[7], false, false, false, None);
    check(&[(3, 3, 1.0)], &[], false, true, false, None);
    check(&[(3, 3, 1.0)], &[], true, false, true, None);
}

#[test]
fn many_blocks_and_groups_with_spilling() {
    // > 2^17 vertices: tiles span 3+ blocks and several 2x2 groups; hubs make
    // lists longer than a page; tiny sort buffers force many runs.
    let mut edges = Vec::new();
    let mut x: u64 = 1;
    for i in 0..60_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let s = if i % 3 == 0 { 5 } else { (x >> 20) % 300_000 };
        let d = (x >> 40) % 300_000;
        edges.push((s, d, (i % 17) as f64));
    }
    for directed in [true, false] {
        check(&edges, &[299_999, 1 << 40], directed, true, false, Some(0));
    }
}
