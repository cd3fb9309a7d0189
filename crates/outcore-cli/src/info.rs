//! `outcore info`, `outcore verify`, `outcore export`.

use anyhow::Result;
use clap::Args;
use outcore::size::format_size;
use outcore::store::export::Layout;
use outcore::store::{Store, VertexOrder};
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
    /// The store to check (every file's checksum and the layout's
    /// invariants), or a partition (`outcore partition`): its
    /// partition.json, id map and every shard.
    pub store: PathBuf,
}

#[derive(Args)]
pub struct ExportArgs {
    /// The store.
    pub store: PathBuf,
    /// tiles, csr (out-adjacency) or csr-in (directed stores).
    #[arg(long, default_value = "tiles")]
    pub layout: Layout,
    /// Output file (`-` for standard output): `src dst [weight]` lines or,
    /// for a name ending in .parquet, a Parquet file of columns `source`,
    /// `target` (uint64, or string ids) and, weighted, `weight` (float64).
    #[arg(long, short)]
    pub out: PathBuf,
    /// The format of --out: text or parquet (default: parquet for a name
    /// ending in .parquet, else text).
    #[arg(long)]
    pub out_format: Option<outcore::api::OutFormat>,
    /// Memory budget (sizes the Parquet row groups), like every command.
    #[arg(long, value_parser = crate::parse_memory)]
    pub memory: Option<u64>,
    /// Undirected stores: write each edge in both directions.
    #[arg(long)]
    pub both_directions: bool,
    /// Accepted for older scripts: an existing plain file is always replaced
    /// (atomically: temporary file + rename); special files such as
    /// /dev/stdout or a FIFO are written directly.
    #[arg(long, hide = true)]
    pub force: bool,
}

pub fn info(a: InfoArgs) -> Result<()> {
    // `info` reads a delta's counts (the view's).
    let store = Store::open_with_delta(&a.store)?;
    let mut j = outcore::api::info_json(&store);
    outcore::api::update::policy::annotate_info(&store, &mut j)?;
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
    if let Some(x) = j["delta"].as_object() {
        line(
            "delta",
            format!(
                "generation {} ({}): {} new vertices, {} edges added and {} removed against \
                 the base ({} vertices, {} edges)",
                x["generation"],
                format_size(x["bytes"].as_u64().unwrap_or(0)),
                x["new_vertices"],
                x["added"],
                x["removed"],
                x["base_vertices"],
                x["base_edges"]
            ),
        );
        let (f, at) = (
            x["fraction"].as_f64().unwrap_or(0.0),
            x["compact_at"].as_f64().unwrap_or(0.0),
        );
        line(
            "compaction",
            match x["compaction_due"].as_bool() == Some(true) {
                true => format!(
                    "due: the delta is {:.2}% of the base, past {:.2}% (run `outcore compact`)",
                    f * 100.0,
                    at * 100.0
                ),
                false => format!(
                    "not due: the delta is {:.2}% of the base, below {:.2}%",
                    f * 100.0,
                    at * 100.0
                ),
            },
        );
    }
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
            (VertexOrder::Bfs, _) => {
                "by breadth-first levels, Cuthill-McKee (ranks of original ids in order.bin)".into()
            }
        },
    );
    line(
        "tiles",
        format!(
            "{} non-empty of {} ({}x{} blocks{}), largest {} edges, {} groups of {}x{} tiles; {} = {:.2} bytes/edge{}",
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
            match &m.tiles.compression {
                Some(c) => format!(" ({c}-coded in {} frames)", t["frames"]),
                None => String::new(),
            },
        ),
    );
    line(
        "csr",
        format!(
            "{} in {} pages; {} = {:.2} bytes/edge{}",
            if m.directed {
                "out + in"
            } else {
                "adjacency (both directions)"
            },
            format_size(m.csr.page_bytes),
            format_size(c["out_bytes"].as_u64().unwrap_or(0) + c["in_bytes"].as_u64().unwrap_or(0)),
            c["bytes_per_edge"].as_f64().unwrap_or(0.0),
            match &m.csr.compression {
                Some(codec) => {
                    let bits = |l: &str| j["layouts"][l]["bits_per_edge"].as_f64().unwrap_or(0.0);
                    match m.directed {
                        true => format!(
                            " ({codec}-coded: out {:.2}, in {:.2} bits/entry)",
                            bits("csr_out"),
                            bits("csr_in")
                        ),
                        false => format!(" ({codec}-coded: {:.2} bits/entry)", bits("csr_out")),
                    }
                }
                None => String::new(),
            },
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
    let partitioned = a
        .store
        .join(outcore::store::partition::PARTITION_FILE)
        .is_file();
    if partitioned && !a.store.join("manifest.json").exists() {
        let r = outcore::store::partition::verify_partition(&a.store)?;
        let k = outcore::store::partition::Partition::open(&a.store)?
            .manifest()
            .parts;
        crate::outln!(
            "{}: ok ({k} shards, {} files, {} checked)",
            a.store.display(),
            r.files,
            format_size(r.bytes)
        )?;
        return Ok(());
    }
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
    outcore::outfile::check_writable(&a.out)?;
    let store = Store::open_with_delta(&a.store)?;
    let format = (a.out_format).unwrap_or_else(|| outcore::api::OutFormat::of(&a.out));
    let n = match format {
        outcore::api::OutFormat::Text => {
            outcore::store::export::export(&store, a.layout, a.both_directions, &a.out)?
        }
        outcore::api::OutFormat::Parquet => {
            let budget = outcore::mem::Budget::checked(
                (a.memory).unwrap_or_else(outcore::mem::Budget::default_limit),
            )?;
            outcore::api::export_parquet(&store, a.layout, a.both_directions, &a.out, &budget)?
        }
    };
    if a.out.as_os_str() != "-" {
        eprintln!("wrote {n} edges to {}", a.out.display());
    }
    Ok(())
}
