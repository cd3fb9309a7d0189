//! Damaged and foreign stores: verify catches a damaged vertex order,
//! unknown codecs and odd tile groups are refused, and manifests from before
//! the vertex-order fields still open.

use super::*;

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
