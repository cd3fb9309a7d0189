//! What `outcore info` and the Python package's `Store.info()` show.

use crate::store::tiles::{CHUNKS_FILE, EDGES_FILE, GROUPS_FILE, INDEX_FILE};
use crate::store::{Manifest, Store};
use serde_json::json;

fn bytes_of(m: &Manifest, prefix: &[&str]) -> u64 {
    m.files
        .iter()
        .filter(|(k, _)| prefix.iter().any(|p| k.starts_with(p)))
        .map(|(_, f)| f.bytes)
        .sum()
}

/// The facts `info` shows, as JSON.
pub fn info_json(store: &Store) -> serde_json::Value {
    let m = store.manifest();
    let e = m.num_edges.max(1) as f64;
    let tiles_bytes = bytes_of(m, &["tiles/"]);
    let csr_out = bytes_of(m, &["csr/out."]);
    let csr_in = bytes_of(m, &["csr/in."]);
    let total: u64 = m.files.values().map(|f| f.bytes).sum();
    let possible = if m.tiles.upper_triangle {
        m.tiles.blocks * (m.tiles.blocks + 1) / 2
    } else {
        m.tiles.blocks * m.tiles.blocks
    };
    let out_entries = m.csr.out_entries;
    let file = |rel: &str| m.files.get(rel).map_or(0, |f| f.bytes);
    // Bits per stored edge (tiles) and per adjacency entry (CSR), data and
    // index apart, as CEESOR counts them.
    let bits = |data: u64, index: u64, per: u64| {
        json!({
            "bits_per_edge": data as f64 * 8.0 / per.max(1) as f64,
            "index_bits_per_edge": index as f64 * 8.0 / per.max(1) as f64,
        })
    };
    let mut layouts = serde_json::Map::new();
    layouts.insert(
        "tiles".into(),
        bits(
            file(EDGES_FILE),
            file(INDEX_FILE) + file(GROUPS_FILE) + file(CHUNKS_FILE),
            m.tiles.edges,
        ),
    );
    layouts["tiles"]["compression"] = json!(m.tiles.compression.as_deref().unwrap_or("none"));
    for (name, which, entries) in [
        ("csr_out", "out", m.csr.out_entries),
        ("csr_in", "in", m.csr.in_entries),
    ] {
        let (adj, off, _) = crate::store::csr::files(which);
        let (adz, pgi) = crate::store::csrcode::files(which);
        if m.files.contains_key(&adj) {
            layouts.insert(name.into(), bits(file(&adj), file(&off), entries));
        } else if m.files.contains_key(&adz) {
            // The page directory is index, as the offsets are.
            layouts.insert(
                name.into(),
                bits(file(&adz), file(&off) + file(&pgi), entries),
            );
        }
        if let Some(l) = layouts.get_mut(name) {
            l["compression"] = json!(m.csr.compression.as_deref().unwrap_or("none"));
        }
    }
    json!({
        "store": store.path(),
        "format_version": m.format_version,
        "vertices": m.num_vertices,
        "edges": m.num_edges,
        "self_loops": m.num_self_loops,
        "directed": m.directed,
        "weighted": m.weighted,
        "id_map": m.has_id_map,
        "string_ids": m.string_ids,
        "vertex_order": m.vertex_order,
        "order_map": m.has_order_map,
        "tiles": {
            "non_empty": m.tiles.num_tiles,
            "compression": m.tiles.compression,
            "frames": m.tiles.frames,
            "possible": possible,
            "largest_tile_edges": m.tiles.max_tile_edges,
            "groups": m.tiles.num_groups,
            "group_tiles": m.tiles.group_tiles,
            "blocks": m.tiles.blocks,
            "upper_triangle": m.tiles.upper_triangle,
            "bytes": tiles_bytes,
            "bytes_per_edge": tiles_bytes as f64 / e,
        },
        "csr": {
            "page_bytes": m.csr.page_bytes,
            "id_bytes": m.csr.id_bytes,
            "out_bytes": csr_out,
            "in_bytes": csr_in,
            "bytes_per_edge": (csr_out + csr_in) as f64 / e,
            "padding_slots": (m.csr.out_slots - m.csr.out_entries) + (m.csr.in_slots - m.csr.in_entries),
        },
        "layouts": layouts,
        "weights_bytes": bytes_of(m, &["weights/"]),
        "degrees": {
            "max_out": m.degrees.max_out,
            "max_in": m.degrees.max_in,
            "mean_out": out_entries as f64 / m.num_vertices.max(1) as f64,
        },
        "size_on_disk": total,
        "build": m.build,
        "delta": delta_json(store),
    })
}

/// The delta (issue 53), when the store has one: its generation, bytes,
/// new vertices, and the edges it adds and removes against the base
/// (`null` without one). The counts above are the view's (base + delta).
fn delta_json(store: &Store) -> serde_json::Value {
    let Some(d) = store.delta() else {
        return serde_json::Value::Null;
    };
    let base = store.base();
    let records: u64 = d.lists.values().map(|l| l.records).sum();
    json!({
        "generation": d.generation,
        "bytes": d.files.values().map(|f| f.bytes).sum::<u64>(),
        "new_vertices": d.new_vertices(base.num_vertices),
        "added": d.added,
        "removed": d.removed,
        "records": records,
        "base_vertices": base.num_vertices,
        "base_edges": base.num_edges,
    })
}
