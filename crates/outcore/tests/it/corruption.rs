//! Corrupted stores found by the fuzz target `store` (fuzz/), kept as
//! regressions: each is refused with an error naming the damage, never a
//! panic and never a wrong answer.

use crate::common::*;
use outcore::api::{self, Algorithm, RunOptions};
use outcore::engine::external::ExternalConfig;
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::mem::Budget;
use outcore::store::{Store, VertexOrder};
use outcore::Error;
use std::path::Path;

/// A hub with 39 leaves and a path: lists long enough to corrupt mid-list.
/// Its CSR page checksums are removed (as in a store built before they
/// existed), so that the checks of the lists' structure are what a damaged
/// list meets (`tests/damage.rs` of the CLI covers the checksums).
fn hub(dir: &Path) -> Store {
    let mut edges: Vec<(u64, u64)> = (1..40).map(|v| (0, v)).collect();
    edges.extend((40..70).map(|v| (v, v + 1)));
    let store = unweighted_store_in(dir, 71, &edges, false, VertexOrder::Degree);
    drop_csr_page_sums(store.path());
    Store::open(store.path()).unwrap()
}

fn run(store: &Store, alg: Algorithm) -> outcore::Result<()> {
    let mut o = RunOptions::new(alg);
    o.memory = 64 << 20;
    o.source = Some("0".into());
    api::run(store, &o, &Budget::new(o.memory)).map(|_| ())
}

#[test]
fn a_pad_inside_an_adjacency_list_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let store = hub(tmp.path());
    // The hub's list starts the adjacency file; its second entry becomes a
    // pad (u32::MAX), then a vertex beyond the graph (the fuzzer's finding:
    // k-core indexed its estimates with it and panicked).
    let adj = store.file("csr/out.adj");
    for bad in [u32::MAX, 71] {
        let mut bytes = std::fs::read(&adj).unwrap();
        bytes[4..8].copy_from_slice(&bad.to_le_bytes());
        std::fs::write(&adj, &bytes).unwrap();
        let store = Store::open(store.path()).unwrap();
        for alg in [Algorithm::Kcore, Algorithm::Bfs, Algorithm::Wcc] {
            let mut o = RunOptions::new(alg);
            (o.memory, o.source) = (64 << 20, Some("0".into()));
            o.engine = "select".parse().unwrap();
            match api::run(&store, &o, &Budget::new(o.memory)) {
                Err(Error::Store { msg, path }) => {
                    assert!(
                        path == store.path()
                            && msg.contains("csr/out.adj")
                            && msg.contains("beyond the 71 vertices"),
                        "{msg}"
                    )
                }
                other => panic!(
                    "{alg:?} with {bad} in a list: {:?}",
                    other.map(|r| r.summary)
                ),
            }
        }
        assert!(outcore::store::verify::verify(store.path()).is_err());
    }
}

#[test]
fn an_offset_past_the_adjacency_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let store = hub(tmp.path());
    let off = store.file("csr/out.off");
    let mut bytes = std::fs::read(&off).unwrap();
    bytes[8..16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    std::fs::write(&off, &bytes).unwrap();
    let store = Store::open(store.path()).unwrap();
    let mut o = RunOptions::new(Algorithm::Kcore);
    o.memory = 64 << 20;
    match api::run(&store, &o, &Budget::new(o.memory)) {
        Err(Error::Store { msg, .. }) => assert!(msg.contains("spans slots"), "{msg}"),
        other => panic!("{:?}", other.map(|r| r.summary)),
    }
}

#[test]
fn a_damaged_manifest_flag_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let store = hub(tmp.path());
    assert!(store.manifest().has_order_map);
    let manifest = store.path().join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    // The fuzzer's finding: one flipped bit renamed the field, serde took its
    // default (no order map), verify passed and BFS answered for the wrong
    // vertices.
    for (from, to, says) in [
        ("has_order_map", "has_order_lap", "unknown field"),
        (
            "\"has_order_map\": true",
            "\"has_order_map\": false",
            "order.bin",
        ),
    ] {
        std::fs::write(&manifest, text.replace(from, to)).unwrap();
        match Store::open(store.path()) {
            Err(Error::Store { msg, .. }) => assert!(msg.contains(says), "{msg}"),
            Ok(_) => panic!("a manifest with {to} opened"),
            Err(e) => panic!("{e}"),
        }
        assert!(outcore::store::verify::verify(store.path()).is_err());
    }
    std::fs::write(&manifest, &text).unwrap();
    run(&Store::open(store.path()).unwrap(), Algorithm::Bfs).unwrap();
}

#[test]
fn a_manifest_is_checked_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let edges: Vec<(u64, u64)> = (1..40).map(|v| (0, v)).collect();
    let store = unweighted_store_in(tmp.path(), 40, &edges, false, VertexOrder::Degree);
    let path = store.path().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    // A changed timing, which no structural check could see: the
    // manifest's own checksum.
    let at = text.find("\"seconds\": ").unwrap() + 11;
    let mut bad = text.clone().into_bytes();
    bad[at] = if bad[at] == b'1' { b'2' } else { b'1' };
    std::fs::write(&path, &bad).unwrap();
    match Store::open(store.path()) {
        Err(Error::Store { msg, .. }) => assert!(msg.contains("checksum"), "{msg}"),
        other => panic!("{:?}", other.map(|s| s.manifest().num_edges)),
    }
    // Without the checksum (an older store's manifest), verify still finds
    // a largest tile that is not the one the tiles hold.
    let mut j: serde_json::Value = serde_json::from_str(&text).unwrap();
    j.as_object_mut().unwrap().remove("checksum");
    let most = j["tiles"]["max_tile_edges"].as_u64().unwrap();
    j["tiles"]["max_tile_edges"] = (most + 1).into();
    std::fs::write(&path, j.to_string()).unwrap();
    let e = outcore::store::verify::verify(store.path()).unwrap_err();
    assert!(
        e.to_string().contains(&format!("at most {most} in one")),
        "{e}"
    );
    std::fs::write(&path, &text).unwrap();
    outcore::store::verify::verify(store.path()).unwrap();
}

/// Issue 49: a file cut short after the store was opened (its sizes
/// checked then) is damage wherever it is read, never a shorter file. The
/// offsets cut inside their last page lose the last vertices' offsets:
/// read as the zeros past the cut, their lists would be empty. The select
/// and the external engine refuse the file, naming it and the remedy.
#[test]
fn a_file_cut_short_after_open_is_damage_not_a_shorter_file() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 2000u64;
    let edges: Vec<(u64, u64)> = (0..n).map(|v| (v, (v * 7 + 1) % n)).collect();
    let store = unweighted_store_in(tmp.path(), n, &edges, true, VertexOrder::Original);
    let off = store.file("csr/out.off");
    // 16,008 bytes: pages 0..3 whole, 3720 in page 3; keep 104 of those.
    assert_eq!(std::fs::metadata(&off).unwrap().len(), 8 * (n + 1));
    let f = std::fs::File::options().write(true).open(&off).unwrap();
    f.set_len(3 * 4096 + 104).unwrap();
    let damaged = |e: Error| {
        let e = e.to_string();
        assert!(
            e.contains("csr/out.off") && e.contains("re-import the graph"),
            "{e}"
        );
    };
    let budget = Budget::new(64 << 20);
    let last: Vec<u32> = (1600..n as u32).collect();
    let cfg = SelectConfig::default();
    match SelectEngine::new(&store, "out", false, &budget, &cfg) {
        Ok(mut eng) => {
            let mut lists = 0;
            let r = eng.for_each_list(&last, |_, _| {
                lists += 1;
                Ok(())
            });
            match r {
                Ok(()) => panic!("select read {lists} lists of the {} asked", last.len()),
                Err(e) => damaged(e),
            }
        }
        Err(e) => damaged(e),
    }
    let ext = ExternalConfig::default();
    match outcore::algo::vertex::bfs::run(&store, n - 1, &ext, &budget) {
        Ok(_) => panic!("external BFS ran on a cut offsets file"),
        Err(e) => damaged(e),
    }
}
