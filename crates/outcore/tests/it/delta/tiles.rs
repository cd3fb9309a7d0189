//! The delta's tiles on disk (issue 53, the T seam): an update writes the
//! `out` records grouped as tiles (`tiles/{adds,dels}.{bin,idx}`) beside
//! the lists, so a reader of tiles need not group them at every open. A
//! flipped byte in any of them is found by `verify` and by the stream
//! engine's open; tiles that disagree with the lists (checksums made to
//! match) are found by `verify`. That results on them equal a rebuild's is
//! `delta/stream.rs`'s sequences.

use super::updated_store;
use outcore::api::{Algorithm, RunOptions};
use outcore::engine::planner::EngineChoice;
use outcore::mem::Budget;
use outcore::store::delta::format::{GENERATION_FILE, TILES_FILES};
use outcore::store::file::checksum;
use outcore::store::verify::verify;
use outcore::store::{Manifest, Store};
use std::path::Path;

/// PageRank on the stream engine over the store at `path`.
fn stream_pagerank(path: &Path) -> outcore::error::Result<()> {
    let store = Store::open_with_delta(path)?;
    let mut o = RunOptions::new(Algorithm::Pagerank);
    o.engine = EngineChoice::Stream;
    o.memory = 64 << 20;
    o.iterations = 2;
    let budget = Budget::checked(o.memory).unwrap();
    outcore::api::run(&store, &o, &budget).map(|_| ())
}

#[test]
fn delta_tiles_written_and_flips_detected() {
    for rel in TILES_FILES {
        let d = tempfile::tempdir().unwrap();
        let path = updated_store(d.path());
        let m = Manifest::read(&path).unwrap();
        let files = &m.delta.as_ref().unwrap().files;
        assert!(files[rel].bytes > 0, "{rel}: written, not empty");
        verify(&path).unwrap();
        stream_pagerank(&path).unwrap();
        let file = path.join("delta/g000001").join(rel);
        let mut bytes = std::fs::read(&file).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x04;
        std::fs::write(&file, &bytes).unwrap();
        let e = verify(&path).unwrap_err().to_string();
        assert!(
            e.contains(&format!("delta/g000001/{rel}")) && e.contains("checksum"),
            "{rel}: {e}"
        );
        // The engine's open reads the tiles checked.
        let e = stream_pagerank(&path).unwrap_err().to_string();
        assert!(
            e.contains(&format!("delta/g000001/{rel}")) && e.contains("checksum"),
            "{rel}: {e}"
        );
    }
}

/// Tiles whose checksums match but whose edges are not the lists'
/// records (a writer's bug): `verify` groups the lists again and compares.
#[test]
fn delta_tiles_checked_against_the_lists() {
    let d = tempfile::tempdir().unwrap();
    let path = updated_store(d.path());
    let rel = TILES_FILES[2]; // the tombstones
    let file = path.join("delta/g000001").join(rel);
    let mut bytes = std::fs::read(&file).unwrap();
    assert!(bytes.len() >= 4, "the update removes edges");
    let at = bytes.len() - 4;
    bytes[at] ^= 0x01; // a tombstone of another edge
    std::fs::write(&file, &bytes).unwrap();
    // Its page sums, its entries, the generation's record, the manifest.
    let sums: Vec<u8> = (bytes.chunks(4096))
        .flat_map(|p| xxhash_rust::xxh3::xxh3_64(p).to_le_bytes())
        .collect();
    let xxh = path.join("delta/g000001").join(format!("{rel}.xxh"));
    std::fs::write(&xxh, sums).unwrap();
    let mut m = Manifest::read(&path).unwrap();
    let delta = m.delta.as_mut().unwrap();
    delta
        .files
        .insert(rel.to_string(), checksum(&file).unwrap());
    delta
        .files
        .insert(format!("{rel}.xxh"), checksum(&xxh).unwrap());
    let record = serde_json::to_string_pretty(&*delta).unwrap();
    std::fs::write(path.join("delta/g000001").join(GENERATION_FILE), record).unwrap();
    std::fs::write(path.join("manifest.json"), m.to_json()).unwrap();
    Store::open_with_delta(&path).unwrap();
    let e = verify(&path).unwrap_err().to_string();
    assert!(
        e.contains(&format!("delta/g000001/{}", TILES_FILES[0]))
            && e.contains("do not hold the lists' records"),
        "{e}"
    );
}
