//! `outcore info`, `outcore verify`, `outcore export`.

use anyhow::Result;
use clap::Args;
use outcore::size::format_size;
use outcore::store::export::Layout;
use outcore::store::{Manifest, Store, VertexOrder};
use serde_json::json;
use std::path::PathBuf;

#[derive(Args)]
pub struct InfoArgs {
    /// The store.
    pub store: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// The store to check (every file's checksum and the layout's invariants).
    pub store: PathBuf,
}

#[derive(Args)]
pub struct ExportArgs {
    /// The store.
    pub store: PathBuf,
    /// tiles, csr (out-adjacency) or csr-in (directed stores).
    #[arg(long, default_value = "tiles")]
    pub layout: Layout,
    /// Output file (`-` for standard output).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Undirected stores: write each edge in both directions.
    #[arg(long)]
    pub both_directions: bool,
    /// Accepted for older scripts: an existing plain file is always replaced
    /// (atomically: temporary file + rename); special files such as
    /// /dev/stdout or a FIFO are written directly.
    #[arg(long, hide = true)]
    pub force: bool,
}

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
            "out_bytes": csr_out,
            "in_bytes": csr_in,
            "bytes_per_edge": (csr_out + csr_in) as f64 / e,
            "padding_slots": (m.csr.out_slots - m.csr.out_entries) + (m.csr.in_slots - m.csr.in_entries),
        },
        "weights_bytes": bytes_of(m, &["weights/"]),
        "degrees": {
            "max_out": m.degrees.max_out,
            "max_in": m.degrees.max_in,
            "mean_out": out_entries as f64 / m.num_vertices.max(1) as f64,
        },
        "size_on_disk": total,
        "build": m.build,
    })
}

pub fn info(a: InfoArgs) -> Result<()> {
    let store = Store::open(&a.store)?;
    let j = info_json(&store);
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(());
    }
    crate::out!("{}", info_text(&store, &j))?;
    Ok(())
}

/// The human-readable `info`.
pub fn info_text(store: &Store, j: &serde_json::Value) -> String {
    let m = store.manifest();
    let t = &j["tiles"];
    let c = &j["csr"];
    let d = &j["degrees"];
    let mut s = String::new();
    let mut line = |k: &str, v: String| s.push_str(&format!("{k:<14}{v}\n"));
    line(
        "store",
        format!("{} (format v{})", store.path().display(), m.format_version),
    );
    line("vertices", m.num_vertices.to_string());
    line(
        "edges",
        format!(
            "{} {} ({} self-loops){}",
            m.num_edges,
            if m.directed { "directed" } else { "undirected" },
            m.num_self_loops,
            if m.weighted { ", weighted (f64)" } else { "" }
        ),
    );
    line(
        "ids",
        if m.string_ids {
            "strings (names kept in ids.str, in byte order)".into()
        } else if m.has_id_map {
            "remapped (original ids kept in ids.bin)".into()
        } else {
            "original ids are 0..n-1".into()
        },
    );
    line(
        "vertex order",
        match (m.vertex_order, m.has_order_map) {
            (VertexOrder::Degree, true) => {
                "by degree, highest first (ranks of original ids in order.bin)".into()
            }
            (VertexOrder::Degree, false) => {
                "by degree, highest first (the same as by original id)".into()
            }
            (VertexOrder::Original, _) => "by original id".to_string(),
        },
    );
    line(
        "tiles",
        format!(
            "{} non-empty of {} ({}x{} blocks{}), largest {} edges, {} groups of {}x{} tiles; {} = {:.2} bytes/edge",
            t["non_empty"],
            t["possible"],
            t["blocks"],
            t["blocks"],
            if m.tiles.upper_triangle { ", upper triangle" } else { "" },
            t["largest_tile_edges"],
            t["groups"],
            t["group_tiles"],
            t["group_tiles"],
            format_size(t["bytes"].as_u64().unwrap_or(0)),
            t["bytes_per_edge"].as_f64().unwrap_or(0.0),
        ),
    );
    line(
        "csr",
        format!(
            "{}{} in {} pages; {} = {:.2} bytes/edge",
            if m.directed {
                "out + in"
            } else {
                "adjacency (both directions)"
            },
            "",
            format_size(m.csr.page_bytes),
            format_size(c["out_bytes"].as_u64().unwrap_or(0) + c["in_bytes"].as_u64().unwrap_or(0)),
            c["bytes_per_edge"].as_f64().unwrap_or(0.0),
        ),
    );
    if m.weighted {
        line(
            "weights",
            format_size(j["weights_bytes"].as_u64().unwrap_or(0)),
        );
    }
    line(
        "degrees",
        if m.directed {
            format!(
                "max out {}, max in {}, mean {:.2}",
                d["max_out"],
                d["max_in"],
                d["mean_out"].as_f64().unwrap_or(0.0)
            )
        } else {
            format!(
                "max {}, mean {:.2}",
                d["max_out"],
                d["mean_out"].as_f64().unwrap_or(0.0)
            )
        },
    );
    line(
        "size on disk",
        format_size(j["size_on_disk"].as_u64().unwrap_or(0)),
    );
    line(
        "built from",
        format!(
            "{} ({} input edges, {} duplicates merged) in {:.1}s",
            m.build.source, m.build.input_edges, m.build.duplicates_merged, m.build.seconds
        ),
    );
    s
}

pub fn verify(a: VerifyArgs) -> Result<()> {
    let r = outcore::store::verify::verify(&a.store)?;
    crate::outln!(
        "{}: ok ({} files, {} checked)",
        a.store.display(),
        r.files,
        format_size(r.bytes)
    )?;
    Ok(())
}

pub fn export(a: ExportArgs) -> Result<()> {
    let store = Store::open(&a.store)?;
    let n = outcore::store::export::export(&store, a.layout, a.both_directions, &a.out)?;
    if a.out.as_os_str() != "-" {
        eprintln!("wrote {n} edges to {}", a.out.display());
    }
    Ok(())
}
