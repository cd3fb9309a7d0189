//! Every layout of a built store round-trips the input edge set (property
//! tests), in both vertex orders; verify catches a damaged vertex order.
//!
//! This module holds the shared check (build, verify, compare every layout
//! with the in-memory reference); the tests are in the submodules.

use crate::common;

use common::*;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::VecSource;
use outcore::store::export::Layout;
use outcore::store::verify::verify;
use outcore::store::{Store, VertexOrder};
use proptest::prelude::*;
use std::collections::BTreeMap;

mod integrity;
mod round_trips;
mod same_bytes;

fn check(
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    directed: bool,
    weighted: bool,
    drop_loops: bool,
    cap: Option<u64>,
) {
    for order in [VertexOrder::Degree, VertexOrder::Original] {
        check_in(edges, isolated, directed, weighted, drop_loops, cap, order);
    }
}

#[allow(clippy::too_many_arguments)]
fn check_in(
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    directed: bool,
    weighted: bool,
    drop_loops: bool,
    cap: Option<u64>,
    order: VertexOrder,
) {
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        directed,
        weighted,
        drop_self_loops: drop_loops,
        memory: 128 << 20,
        sort_buffer_cap: cap,
        group_tiles: 2,
        order,
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
    assert_eq!(m.vertex_order, order);
    assert_eq!(m.has_order_map, m.files.contains_key("order.bin"));
    assert_eq!(m.has_order_map, m.files.contains_key("order.inv"));
    // The id maps: dense id -> rank -> original id and back.
    let ids = store.load_ids().unwrap();
    let n = m.num_vertices;
    let mut degree = vec![0u64; n as usize];
    for &(s, d) in expect.keys() {
        let (s, d) = (
            ids.dense_of_original(s, n).unwrap(),
            ids.dense_of_original(d, n).unwrap(),
        );
        degree[s as usize] += 1;
        if directed || s != d {
            degree[d as usize] += 1;
        }
    }
    for (r, &o) in verts.iter().enumerate() {
        let v = ids.dense_of_rank(r as u64);
        assert_eq!(
            (
                ids.rank(v),
                ids.get(v).as_u64(),
                ids.original_of_rank(r as u64).as_u64()
            ),
            (r as u64, Some(o), Some(o))
        );
    }
    if order == VertexOrder::Degree {
        for v in 1..n {
            let (a, b) = (v as usize - 1, v as usize);
            let (ka, kb) = (
                (std::cmp::Reverse(degree[a]), ids.rank(a as u64)),
                (std::cmp::Reverse(degree[b]), ids.rank(b as u64)),
            );
            assert!(
                ka < kb,
                "dense {a} and {b}: degrees {} and {}",
                degree[a],
                degree[b]
            );
        }
    } else {
        assert!(ids.order_is_identity());
    }
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
