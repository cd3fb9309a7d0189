//! A damaged or half-written delta generation (issue 53, S1): readers that
//! do not merge a delta refuse the store, unknown manifest fields are
//! refused, a kill before the manifest's rename leaves the store as it was,
//! and a flipped byte or a wrong `generation.json` is found by `verify`.

use super::{base_edges, batch, ids};
use crate::common::dense_store;
use outcore::store::delta::testing::{write_ops, write_ops_torn};
use outcore::store::delta::Stop;
use outcore::store::verify::verify;
use outcore::store::{Manifest, Store};
use std::path::Path;

/// A store with its first generation written.
pub(super) fn updated_store(dir: &Path) -> std::path::PathBuf {
    let base = base_edges(40, 5, true);
    let store = dense_store(dir, 40, &base, true, true);
    let (removes, adds) = ids(&batch(&base, 40, 6));
    write_ops(&store, &removes, &adds).unwrap();
    store.path().to_path_buf()
}

#[test]
fn delta_store_refused_by_readers_that_ignore_it() {
    let d = tempfile::tempdir().unwrap();
    let path = updated_store(d.path());
    let e = Store::open(&path).unwrap_err().to_string();
    assert!(
        e.contains("pending updates") && e.contains("outcore compact"),
        "{e}"
    );
    // Older builds read versions 1 and 2 only.
    let e = Manifest::read_known(&path, &[1, 2])
        .unwrap_err()
        .to_string();
    assert!(e.contains("format version 3 is not supported"), "{e}");
    let m = Manifest::read(&path).unwrap();
    assert!(m.delta.is_some() && m.format_version == 3);
}

#[test]
fn delta_unknown_field_refused() {
    let d = tempfile::tempdir().unwrap();
    let path = updated_store(d.path());
    let mpath = path.join("manifest.json");
    let text = std::fs::read_to_string(&mpath).unwrap();
    assert!(text.contains("\"generation\":"));
    std::fs::write(
        &mpath,
        text.replacen("\"generation\":", "\"tiles_v9\": 1, \"generation\":", 1),
    )
    .unwrap();
    let e = Store::open_with_delta(&path).unwrap_err().to_string();
    assert!(e.contains("unknown field `tiles_v9`"), "{e}");
}

#[test]
fn delta_torn_update_opens_as_before() {
    for at in [Stop::AfterFiles, Stop::AfterRename] {
        let d = tempfile::tempdir().unwrap();
        let base = base_edges(40, 9, false);
        let store = dense_store(d.path(), 40, &base, false, false);
        let path = store.path().to_path_buf();
        let before = store.manifest().clone();
        let (removes, adds) = ids(&batch(&base, 40, 10));
        write_ops_torn(&store, &removes, &adds, at).unwrap();
        drop(store);
        let entries = || -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(path.join("delta"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        let left = entries();
        assert_eq!(left.len(), 1, "{at:?}: {left:?}");
        assert_eq!(
            left[0] == "g000001",
            at == Stop::AfterRename,
            "{at:?}: {left:?}"
        );
        let again = Store::open(&path).unwrap();
        assert_eq!(again.manifest(), &before, "{at:?}: the store as it was");
        verify(&path).unwrap();
        // The next update removes the leftovers and commits.
        write_ops(&again, &removes, &adds).unwrap();
        assert_eq!(entries(), ["g000001"], "{at:?}");
        let view = Store::open_with_delta(&path).unwrap();
        assert_eq!(view.delta().unwrap().generation, 1);
        verify(&path).unwrap();
    }
}

#[test]
fn delta_flipped_byte_detected() {
    for rel in [
        "lists/out.rec",
        "lists/in.w",
        "ids/new.bin",
        "lists/out.bits",
    ] {
        let d = tempfile::tempdir().unwrap();
        let path = updated_store(d.path());
        let file = path.join("delta/g000001").join(rel);
        let mut bytes = std::fs::read(&file).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x10;
        std::fs::write(&file, &bytes).unwrap();
        let e = verify(&path).unwrap_err().to_string();
        assert!(
            e.contains(&format!("delta/g000001/{rel}")) && e.contains("checksum"),
            "{rel}: {e}"
        );
        // Cut short: refused on open.
        std::fs::write(&file, &bytes[..at]).unwrap();
        let e = Store::open_with_delta(&path).unwrap_err().to_string();
        assert!(
            e.contains(&format!("delta/g000001/{rel}")) && e.contains("damaged"),
            "{rel}: {e}"
        );
    }
}

/// `verify` reads the generation's own record (`generation.json`): one
/// that disagrees with the manifest, or is not a record, is named.
#[test]
fn delta_generation_record_checked() {
    let d = tempfile::tempdir().unwrap();
    let path = updated_store(d.path());
    let file = path.join("delta/g000001/generation.json");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(verify(&path).is_ok());
    let bumped = text.replacen("\"removed\": ", "\"removed\": 1", 1);
    assert_ne!(bumped, text);
    for (what, body) in [
        ("does not match", bumped.as_str()),
        ("not a delta record", "{}"),
    ] {
        std::fs::write(&file, body).unwrap();
        let e = verify(&path).unwrap_err().to_string();
        assert!(
            e.contains("delta/g000001/generation.json") && e.contains(what),
            "{what}: {e}"
        );
    }
    std::fs::remove_file(&file).unwrap();
    let e = verify(&path).unwrap_err().to_string();
    assert!(
        e.contains("generation.json") && e.contains("cannot be read"),
        "{e}"
    );
}
