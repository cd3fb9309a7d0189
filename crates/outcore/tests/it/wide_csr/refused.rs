//! Wide stores refused: a slot past 32 bits or past the vertex count, an
//! offset past coded wide pages, a manifest that contradicts itself, a
//! build of more vertices than a store holds.

use super::pair;
use crate::common::*;
use crate::compressed_csr::{edges_of, store_in};
use outcore::algo::kcore::kcore;
use outcore::algo::lcc::lcc;
use outcore::algo::randomwalk::{random_walks, WalkConfig};
use outcore::algo::vertex;
use outcore::engine::external::ExternalConfig;
use outcore::engine::planner::EngineChoice;
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::ingest::build::BuildOptions;
use outcore::mem::Budget;
use outcore::store::verify::verify;
use outcore::store::{Store, VertexOrder};
use std::path::Path;

/// A wide slot holding an id beyond 32 bits (the page sums removed, as in
/// a store built before them): `verify`, the select engine, the external
/// scatter and the triangle streams refuse it instead of reading its low
/// half as an id (those reading u64 ids refuse it past the vertex count).
#[test]
fn a_wide_slot_beyond_32_bits_is_refused() {
    let n = 5_000;
    let dir = tempfile::tempdir().unwrap();
    let (_, wide) = pair(dir.path(), n, &edges_of(n, 20_000, 4), false, false, 4096);
    drop_csr_page_sums(wide.path());
    let path = wide.path().join("csr/out.adj");
    let mut adj = std::fs::read(&path).unwrap();
    // The first slot belongs to vertex 0, a hub of the degree order.
    let first = u64::from_le_bytes(adj[..8].try_into().unwrap());
    assert!(first < n);
    adj[..8].copy_from_slice(&((1u64 << 32) | first).to_le_bytes());
    std::fs::write(&path, &adj).unwrap();
    let wide = Store::open(wide.path()).unwrap();
    let err = verify(wide.path()).unwrap_err().to_string();
    assert!(err.contains("csr/out.adj"), "{err}");
    let budget = Budget::new(64 << 20);
    // Read as u32 ids, the select engine refuses it as no 32-bit id; read
    // as u64 ids, past the vertex count. So do k-core and the walks, which
    // read a wide store so.
    let mut eng =
        SelectEngine::new(&wide, "out", false, &budget, &SelectConfig::default()).unwrap();
    let e = eng
        .for_each_list(&[0u32], |_, _| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("beyond 32 bits"), "select, u32: {e}");
    let e = eng
        .for_each_list(&[0u64], |_, _| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("beyond the 5000 vertices"), "select, u64: {e}");
    drop(eng);
    let e = kcore(&wide, &SelectConfig::default(), &budget)
        .unwrap_err()
        .to_string();
    assert!(e.contains("beyond the 5000 vertices"), "kcore: {e}");
    let walk = WalkConfig {
        walks_per_vertex: 1,
        length: 3,
        seed: 1,
        restart: 0.0,
        source: Some(0),
    };
    for choice in [EngineChoice::External, EngineChoice::Select] {
        let e = random_walks(
            &wide,
            &walk,
            choice,
            &ExternalConfig::default(),
            &budget,
            None,
        )
        .err()
        .expect("a walk along the slot")
        .to_string();
        assert!(
            e.contains("beyond the 5000 vertices"),
            "walks, {choice:?}: {e}"
        );
    }
    let ext = ExternalConfig {
        grid: Some(false),
        ..Default::default()
    };
    // The external scatter reads ids at the store's width and refuses one
    // past the vertex count.
    let e = vertex::wcc::run(&wide, &ext, &budget)
        .unwrap_err()
        .to_string();
    assert!(e.contains("beyond the 5000 vertices"), "scatter: {e}");
    // So do the triangle streams, whose entries are u64 on a wide store.
    let e = lcc(&wide, &ext, &budget).unwrap_err().to_string();
    assert!(e.contains("names a vertex beyond 5000"), "triangles: {e}");
}

/// Coded wide pages hold half the slots of narrow ones: an offset one slot
/// past the coded adjacency is refused as a corrupted store (not read as
/// a list inside twice as many slots).
#[test]
fn an_offset_past_coded_wide_pages_is_refused() {
    let n = 5_000;
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        compress: true,
        csr_id_bytes: 8,
        memory: 128 << 20,
        ..Default::default()
    };
    let wide = store_in(dir.path(), n, &edges_of(n, 20_000, 6), &opts);
    drop_csr_page_sums(wide.path());
    let slots = wide.manifest().csr.out_slots;
    let path = wide.path().join("csr/out.off");
    let mut off = std::fs::read(&path).unwrap();
    let last = 8 * n as usize;
    assert_eq!(off[last..last + 8], slots.to_le_bytes());
    off[last..last + 8].copy_from_slice(&(slots + 1).to_le_bytes());
    std::fs::write(&path, &off).unwrap();
    let wide = Store::open(wide.path()).unwrap();
    let e = kcore(&wide, &SelectConfig::default(), &Budget::new(64 << 20))
        .unwrap_err()
        .to_string();
    assert!(e.contains(&format!("of {slots}")), "select: {e}");
}

/// The manifest edited by `edit`, its own checksum dropped.
fn rewrite_manifest(store: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let p = store.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    m.as_object_mut().unwrap().remove("checksum");
    edit(&mut m);
    std::fs::write(&p, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
}

/// A manifest whose id width is unknown, or disagrees with its format
/// version, or whose vertices pass its ids (u32 ids in a narrow store or
/// an order map, 2^48 - 2^16 in any), is refused on open; so are build options asking
/// for such a store.
#[test]
fn contradicting_widths_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (narrow, wide) = pair(dir.path(), 50, &edges_of(50, 200, 1), false, false, 4096);
    Store::open(narrow.path()).unwrap();
    Store::open(wide.path()).unwrap();
    assert!(wide.manifest().has_order_map);
    let cases: [(&Path, &str, serde_json::Value, &str); 6] = [
        (
            wide.path(),
            "num_vertices",
            (1u64 << 32).into(),
            "an order map on 4294967296 vertices (its ids are 32-bit)",
        ),
        (
            narrow.path(),
            "num_vertices",
            (1u64 << 32).into(),
            "4294967296 vertices in a store of 4-byte ids (at most 4294967295)",
        ),
        (
            wide.path(),
            "num_vertices",
            ((1u64 << 48) - (1 << 16) + 1).into(),
            "281474976645121 vertices, and a store holds at most 281474976645120",
        ),
        (wide.path(), "csr.id_bytes", 3.into(), "CSR ids of 3 bytes"),
        (
            wide.path(),
            "format_version",
            1.into(),
            "of format version 1",
        ),
        (
            narrow.path(),
            "format_version",
            2.into(),
            "of format version 2",
        ),
    ];
    for (store, field, value, want) in cases {
        let clean = std::fs::read(store.join("manifest.json")).unwrap();
        rewrite_manifest(store, |m| match field.split_once('.') {
            Some((a, b)) => m[a][b] = value,
            None => m[field] = value,
        });
        let e = Store::open(store).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("damaged"), "{field}: {e}");
        std::fs::write(store.join("manifest.json"), clean).unwrap();
    }
    let opts = BuildOptions {
        csr_id_bytes: 5,
        ..Default::default()
    };
    let e = opts.validate().unwrap_err().to_string();
    assert!(e.contains("4 or 8"), "{e}");
}

/// A dense source of more than 2^48 - 2^16 vertices (2^32 - 1 blocks) is
/// refused plainly before the read, whatever the order and the code;
/// nothing is left behind.
#[test]
fn a_build_past_the_last_block_is_refused_plainly() {
    outcore::progress::set_quiet(true);
    let n = (1u64 << 48) - (1 << 16) + 5;
    let edges = [(0, n - 1, 1.0), (1 << 32, 3, 2.0), (7, n - 2, 1.0)];
    let count = "281474976645125 vertices: a store holds at most 281474976645120 (2^48 - 2^16)";
    let cases = [
        (VertexOrder::Original, false, false, count),
        (VertexOrder::Degree, false, false, count),
        (VertexOrder::Degree, true, false, count),
        (VertexOrder::Original, false, true, count),
    ];
    for (order, order_auto, compress, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut src = outcore::ingest::VecSource::new(edges.iter().copied());
        src.dense = Some(n);
        let opts = BuildOptions {
            order,
            order_auto,
            compress,
            // The largest budget accepted (a budget above RAM is refused):
            // the count refuses the build before the degree order's 32 GiB
            // is asked of it.
            memory: outcore::mem::budget::physical_memory_bytes(),
            ..Default::default()
        };
        let path = dir.path().join("g.oc");
        let e = outcore::ingest::build::build_store(&mut src, &path, &opts)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(want),
            "{order:?} auto {order_auto} {compress}: {e}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
