//! Random, empty, many-block, duplicate-flooded and big-id graphs round-trip
//! through every layout, in both vertex orders, in memory and spilled.

use super::*;

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
