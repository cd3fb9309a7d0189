//! Builds that must write the same bytes (spilled or in memory, sampled or
//! hashed buckets, placed or sorted tiles) and the bytes they spill.

use super::*;

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

/// A flood of one edge overflows its input bucket, which is then
/// distributed again as it is read (the flood, alone in a nested bucket,
/// is read back as it is): the nested sorter's files count in the build's
/// spilled bytes.
#[test]
fn an_input_bucket_spilled_again_counts_in_the_report() {
    let mut edges: Vec<(u64, u64, f64)> = vec![(1, 2, 1.0); 100_000];
    edges.extend((0..1000u64).map(|i| (i, i * 7 % 1000, 1.0)));
    for order in [VertexOrder::Original, VertexOrder::Degree] {
        let spilled = spilled_bytes(&edges, order, 256 << 10, true);
        // The input once (at most 8 bytes an edge and a block of padding
        // per bucket), and the flood's bucket again: more than half of it.
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
