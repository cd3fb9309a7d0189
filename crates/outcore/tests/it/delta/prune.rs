//! Superseded delta generations (each holds the whole delta) are removed
//! by the next update once no reader pins them; a reader that opened an
//! older generation keeps reading it, as readers of a replaced base do.

use super::ids::{int_store, opts};
use outcore::ingest::update::{update_delta, DeltaOptions};
use outcore::ingest::{EdgeSource, VecSource};
use outcore::store::csrscan::scan_csr;
use outcore::store::{Store, VertexOrder};
use std::path::Path;

/// The generation directories in `path`'s `delta/`, by name.
fn generations(path: &Path) -> Vec<String> {
    let mut g: Vec<String> = std::fs::read_dir(path.join("delta"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('g'))
        .collect();
    g.sort();
    g
}

/// The out-edges `store` reads.
fn edges(store: &Store) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    scan_csr(store, "out", false, |v, _, u, _| {
        out.push((v, u));
        Ok(())
    })
    .unwrap();
    out
}

/// One update adding edge (`a`, `b`), by a writer that opened the store.
fn update(path: &Path, a: u64, b: u64) {
    let s = Store::open_with_delta(path).unwrap();
    let adds: Vec<Box<dyn EdgeSource>> = vec![Box::new(VecSource::new([(a, b, 1.0)].into_iter()))];
    let opts = DeltaOptions {
        memory: 64 << 20,
        stop: None,
    };
    update_delta(&s, adds, Vec::new(), &opts).unwrap();
}

#[test]
fn superseded_generations_go_unless_a_reader_pins_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.oc");
    let base: Vec<(u64, u64, f64)> = (0..40).map(|i| (i, (7 * i + 3) % 40, 1.0)).collect();
    drop(int_store(
        &path,
        &base,
        &[],
        &opts(true, false, VertexOrder::Original),
    ));
    for k in 0..3 {
        update(&path, k, 100 + k);
    }
    // Each writer pins the generation it opened, so the one before the
    // current stays until the next update removes it.
    assert_eq!(generations(&path), ["g000002", "g000003"]);

    let reader = Store::open_with_delta(&path).unwrap();
    let seen = edges(&reader);
    update(&path, 5, 200);
    update(&path, 6, 201);
    assert_eq!(generations(&path), ["g000003", "g000004", "g000005"]);
    assert_eq!(
        edges(&reader),
        seen,
        "the reader's generation changed under it"
    );
    drop(reader);
    update(&path, 7, 202);
    assert_eq!(generations(&path), ["g000005", "g000006"]);
    let now = edges(&Store::open_with_delta(&path).unwrap());
    assert_eq!(now.len(), seen.len() + 3);
}
