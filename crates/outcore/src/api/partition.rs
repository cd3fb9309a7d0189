//! `outcore partition` for the command line and the bindings: the
//! partition itself is `ingest::partition`; here, its `--stats` JSON.

pub use crate::ingest::partition::{partition, PartitionOptions, PartitionReport};
pub use crate::store::partition::{verify_partition, Partition, PartitionManifest};

/// The `--stats` JSON of a partition made inside a budget of `budget` bytes.
pub fn partition_stats(r: &PartitionReport, budget: u64) -> serde_json::Value {
    let m = &r.manifest;
    let phases: Vec<serde_json::Value> = (r.phases.iter())
        .map(|(p, s)| serde_json::json!({"name": p, "seconds": s}))
        .collect();
    let shards: Vec<serde_json::Value> = (m.shards.iter())
        .map(|s| {
            serde_json::json!({
                "dir": s.dir,
                "owned": s.owned,
                "ghosts": s.ghost_count(),
                "edges": s.edges,
                "cross_edges": s.cross_edges,
            })
        })
        .collect();
    serde_json::json!({
        "command": "partition",
        "source": m.source,
        "out": r.path.display().to_string(),
        "parts": m.parts,
        "seconds": r.seconds,
        "phases": phases,
        "bytes_written": r.bytes,
        "peak_rss_bytes": crate::mem::budget::peak_rss_bytes(),
        "memory_budget": budget,
        "num_vertices": m.num_vertices,
        "num_edges": m.num_edges,
        "directed": m.directed,
        "weighted": m.weighted,
        "balance": m.balance,
        "shards": shards,
    })
}
