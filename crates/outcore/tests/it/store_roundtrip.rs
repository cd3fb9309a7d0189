//! Every layout of a built store round-trips the input edge set (property
//! tests), in both vertex orders; verify catches a damaged vertex order.

use crate::common;

use common::*;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::VecSource;
use outcore::store::export::Layout;
use outcore::store::verify::verify;
use outcore::store::{Store, VertexOrder};
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

#[test]
fn a_flood_of_one_duplicate_edge() {
    // 20,000 copies of one edge (several whole batches of the dedup with
    // nothing distinct in them) between other edges, last weight wins;
    // in memory and spilled.
    let mut edges: Vec<(u64, u64, f64)> = (0..300).map(|i| (i, i * 7 % 301, 1.0)).collect();
    edges.extend((0..20_000).map(|i| (150, 151, i as f64)));
    edges.extend((0..300).map(|i| (i + 200, i % 13, 2.0)));
    for cap in [None, Some(0)] {
        check(&edges, &[], false, true, false, cap);
        check(&edges, &[], true, true, false, cap);
    }
}

#[test]
fn big_ids_spill_and_rewind() {
    // Ids near 2^64 and 2^32 and anywhere; 1024-record sort buffers: the
    // sorted stream is merged from many runs (several merge levels) twice,
    // once to count degrees, once more after the rewind.
    let mut x: u64 = 7;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let pick = |r: u64| match r % 4 {
        0 => u64::MAX - r % 50,
        1 => u32::MAX as u64 - 20 + r % 40,
        2 => r % 1000,
        _ => r,
    };
    let mut edges = Vec::new();
    for i in 0..20_000u64 {
        let s = if i % 5 == 0 { u64::MAX } else { pick(next()) };
        edges.push((s, pick(next()), (i % 13) as f64));
    }
    for directed in [true, false] {
        check(&edges, &[0, 1 << 63], directed, true, false, Some(0));
    }
}

/// Rewrites `rel` in the store at `path` and fixes its manifest entry, so
/// only the structural checks can notice.
fn rewrite(path: &std::path::Path, rel: &str, bytes: &[u8]) {
    use outcore::store::file::checksum;
    use outcore::store::Manifest;
    std::fs::write(path.join(rel), bytes).unwrap();
    let mut m = Manifest::read(path).unwrap();
    m.files
        .insert(rel.to_string(), checksum(&path.join(rel)).unwrap());
    std::fs::write(path.join("manifest.json"), m.to_json()).unwrap();
}

#[test]
fn verify_catches_a_damaged_vertex_order() {
    // A star on 10 with a tail: degrees differ, so the order is not the identity.
    let edges: Vec<(u64, u64, f64)> = (0..8)
        .map(|i| (10, 20 + i, 1.0))
        .chain([(20, 30, 1.0), (30, 40, 1.0)])
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        directed: false,
        memory: 128 << 20,
        ..Default::default()
    };
    let path = build(dir.path(), &edges, &[], &opts).path;
    verify(&path).unwrap();
    let store = Store::open(&path).unwrap();
    assert!(store.manifest().has_order_map);
    let ranks = store.load_ranks().unwrap().unwrap();
    let ids = store.load_ids().unwrap();
    assert_eq!(ids.get(0), 10, "the hub is dense id 0");
    let order = std::fs::read(path.join("order.bin")).unwrap();
    let inverse = std::fs::read(path.join("order.inv")).unwrap();
    let le = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let err = |what: &str| verify(&path).unwrap_err().to_string().contains(what);

    // A flipped byte: the checksum.
    let mut bad = order.clone();
    bad[4] ^= 1;
    std::fs::write(path.join("order.bin"), &bad).unwrap();
    assert!(err("order.bin") && err("checksum"));
    // Not a permutation (a rank twice), checksum fixed.
    let mut dup = ranks.clone();
    dup[1] = dup[2];
    rewrite(&path, "order.bin", &le(&dup));
    assert!(err("order.bin") && err("not a permutation"));
    // A permutation, but not the inverse of order.inv: dense ids 1 and 2
    // (20 and 30, both of degree 2) swap ranks.
    let mut swapped = ranks.clone();
    swapped.swap(1, 2);
    rewrite(&path, "order.bin", &le(&swapped));
    assert!(err("order.inv"));
    // Consistent maps, but equal degrees are no longer by rank.
    let mut inv = vec![0u32; swapped.len()];
    for (v, &r) in swapped.iter().enumerate() {
        inv[r as usize] = v as u32;
    }
    rewrite(&path, "order.inv", &le(&inv));
    let e = verify(&path).unwrap_err().to_string();
    assert!(
        e.contains("order.bin") && e.contains("not by degree"),
        "{e}"
    );
    // Back as built: fine again.
    rewrite(&path, "order.bin", &order);
    rewrite(&path, "order.inv", &inverse);
    verify(&path).unwrap();
}

#[test]
fn unknown_codecs_and_odd_tile_groups_are_refused() {
    // A manifest naming a codec this build does not read, or tile groups
    // that are not a power of two: opening fails and says which.
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        memory: 128 << 20,
        ..Default::default()
    };
    let path = build(dir.path(), &[(5, 7, 1.0), (7, 9, 1.0)], &[], &opts).path;
    let text = std::fs::read_to_string(path.join("manifest.json")).unwrap();
    for (section, field, value, says) in [
        (
            "tiles",
            "compression",
            serde_json::json!("zstd"),
            "tiles are coded as `zstd`",
        ),
        (
            "csr",
            "compression",
            serde_json::json!("lz4"),
            "adjacency is coded as `lz4`",
        ),
        (
            "tiles",
            "group_tiles",
            serde_json::json!(3),
            "not a power of two",
        ),
    ] {
        let mut j: serde_json::Value = serde_json::from_str(&text).unwrap();
        j[section][field] = value;
        j.as_object_mut().unwrap().remove("checksum");
        std::fs::write(path.join("manifest.json"), j.to_string()).unwrap();
        let Err(e) = Store::open(&path) else {
            panic!("{section}.{field} was not refused")
        };
        let e = e.to_string();
        assert!(e.contains(says), "{section}.{field}: {e}");
    }
}

#[test]
fn stores_without_the_vertex_order_fields_still_open() {
    // A manifest written before `vertex_order` existed means the original order.
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        order: VertexOrder::Original,
        memory: 128 << 20,
        ..Default::default()
    };
    let path = build(dir.path(), &[(5, 7, 1.0), (7, 9, 1.0)], &[], &opts).path;
    let text = std::fs::read_to_string(path.join("manifest.json")).unwrap();
    let mut j: serde_json::Value = serde_json::from_str(&text).unwrap();
    let obj = j.as_object_mut().unwrap();
    assert!(obj.remove("vertex_order").is_some());
    assert!(obj.remove("has_order_map").is_some());
    obj.remove("checksum");
    std::fs::write(path.join("manifest.json"), j.to_string()).unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.manifest().vertex_order, VertexOrder::Original);
    assert!(!store.manifest().has_order_map);
    verify(&path).unwrap();
    assert_eq!(exported(&store, Layout::Csr, false).len(), 2);
}

#[test]
fn spilled_and_in_memory_builds_write_the_same_bytes() {
    // Kronecker-like skew (a hub, many repeats), ids that pack into 64-bit
    // keys and ids that do not: every file but the manifest's timings is
    // identical whether the sorters spill into many buckets or not.
    let mut x: u64 = 11;
    let mut edges = Vec::new();
    for i in 0..40_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let s = if i % 4 == 0 { 3 } else { (x >> 24) % 70_000 };
        edges.push((s, (x >> 44) % 70_000, (i % 9) as f64));
    }
    let wide: Vec<_> = edges.iter().map(|&(s, d, w)| (s << 33, d, w)).collect();
    // Sorted too, as real lists often are. A spilled input is bucketed by
    // key ranges from a sample (its stream in order: a directed build in
    // original order writes the out-CSR straight from it) or, unsampled,
    // by hash.
    let mut sorted = edges.clone();
    sorted.sort_by_key(|&(s, d, _)| (s, d));
    let cases = [
        (&edges, false, VertexOrder::Degree),
        (&edges, true, VertexOrder::Degree),
        (&edges, true, VertexOrder::Original),
        (&sorted, false, VertexOrder::Degree),
        (&sorted, true, VertexOrder::Original),
        (&wide, false, VertexOrder::Degree),
    ];
    for (edges, directed, order) in cases {
        let files = |cap: Option<u64>, sampled: bool| {
            let dir = tempfile::tempdir().unwrap();
            let opts = BuildOptions {
                directed,
                weighted: true,
                memory: 128 << 20,
                sort_buffer_cap: cap,
                order,
                ..Default::default()
            };
            let mut src = VecSource::new(edges.iter().copied());
            src.sampled = sampled;
            let path = build_store(&mut src, &dir.path().join("g.oc"), &opts)
                .unwrap()
                .path;
            store_files(&path)
        };
        let in_memory = files(None, true);
        for sampled in [true, false] {
            let spilled = files(Some(0), sampled);
            assert_eq!(
                spilled.keys().collect::<Vec<_>>(),
                in_memory.keys().collect::<Vec<_>>()
            );
            for (k, v) in &spilled {
                assert!(
                    v == &in_memory[k],
                    "{k} differs (directed {directed}, {order:?}, sampled {sampled})"
                );
            }
        }
    }
}

/// The bytes an undirected build of `edges` in `order` spills at 128 MiB
/// with sort buffers of `cap`, from a source that gives a sample or not.
fn spilled_bytes(edges: &[(u64, u64, f64)], order: VertexOrder, cap: u64, sampled: bool) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        memory: 128 << 20,
        sort_buffer_cap: Some(cap),
        order,
        ..Default::default()
    };
    let mut src = VecSource::new(edges.iter().copied());
    src.sampled = sampled;
    build_store(&mut src, &dir.path().join("g.oc"), &opts)
        .unwrap()
        .spilled_bytes
}

/// A list sorted by source comes out of the degree pass in rank order; the
/// remap's sorters then take their splitters from the input's sample in
/// dense ids. From their first buffers (the front of the ranks only) their
/// last buckets would overflow and be distributed again: more spilled than
/// the hashed build, whose stream is in hash buckets, where the ranged one
/// spills less (packed input keys).
#[test]
fn the_remap_sorters_split_a_sorted_list_by_the_input_sample() {
    let edges: Vec<(u64, u64, f64)> = (0..400_000u64)
        .map(|i| (i / 8, (i * 7919) % 50_000, 1.0))
        .collect();
    for order in [VertexOrder::Original, VertexOrder::Degree] {
        let spilled = |sampled| spilled_bytes(&edges, order, 1 << 20, sampled);
        let (ranged, hashed) = (spilled(true), spilled(false));
        assert!(ranged < hashed, "{order:?}: {ranged} >= {hashed}");
    }
}

/// A flood of one edge overflows its input bucket, which is then merged
/// from runs as it is read: those runs count in the build's spilled bytes.
#[test]
fn an_input_bucket_spilled_again_counts_in_the_report() {
    let mut edges: Vec<(u64, u64, f64)> = vec![(1, 2, 1.0); 100_000];
    edges.extend((0..1000u64).map(|i| (i, i * 7 % 1000, 1.0)));
    for order in [VertexOrder::Original, VertexOrder::Degree] {
        let spilled = spilled_bytes(&edges, order, 256 << 10, true);
        // The input once (at most 8 bytes an edge and a block of padding
        // per bucket), and the flood's runs again: more than half of it.
        let whole = 8 * edges.len() as u64 + 8 * 50_000;
        assert!(spilled > whole, "{order:?}: {spilled} <= {whole}");
    }
}

#[test]
fn placed_and_sorted_tiles_are_the_same_bytes() {
    // Tiles placed from the out stream at counted offsets (the default)
    // against tiles sorted by a sorter of their own: every file identical,
    // directed and undirected, weighted or not, spilled or in memory, with
    // many blocks and small groups (tiles far apart in the file), a hub, a
    // self-loop and duplicates. Placement shows in the bytes spilled: the
    // tile sorter's bytes for every edge are gone.
    let mut x: u64 = 5;
    let mut edges = vec![(9, 9, 1.0)];
    for i in 0..60_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let s = if i % 5 == 0 { 7 } else { (x >> 20) % 330_000 };
        edges.push((s, (x >> 42) % 330_000, (i % 7) as f64));
    }
    for directed in [false, true] {
        for weighted in [false, true] {
            for cap in [Some(0), None] {
                let files = |sort_tiles: bool| {
                    let dir = tempfile::tempdir().unwrap();
                    let opts = BuildOptions {
                        directed,
                        weighted,
                        memory: 128 << 20,
                        sort_buffer_cap: cap,
                        group_tiles: 2,
                        sort_tiles,
                        ..Default::default()
                    };
                    let report = build(dir.path(), &edges, &[], &opts);
                    (store_files(&report.path), report.spilled_bytes)
                };
                let ((placed, placed_spill), (sorted, sorted_spill)) = (files(false), files(true));
                let case = format!("directed {directed}, weighted {weighted}, cap {cap:?}");
                assert_eq!(
                    placed.keys().collect::<Vec<_>>(),
                    sorted.keys().collect::<Vec<_>>(),
                    "{case}"
                );
                for (k, v) in &placed {
                    assert!(v == &sorted[k], "{k} differs ({case})");
                }
                if cap.is_some() {
                    // A tile sorter's record: its key packed in 2-4 bytes
                    // (the tile and local ids its bucket's range needs).
                    let per_edge = 2 + if weighted { 8 } else { 0 };
                    assert!(
                        sorted_spill >= placed_spill + per_edge * 50_000,
                        "tiles were sorted, not placed ({case}: {placed_spill} vs {sorted_spill} bytes spilled)"
                    );
                }
            }
        }
    }
}
