//! `outcore partition`: split a store into K shards by vertex.

use anyhow::Result;
use clap::Args;
use outcore::api::partition::{partition as run_partition, partition_stats, PartitionOptions};
use outcore::mem::Budget;
use std::path::PathBuf;

#[derive(Args)]
pub struct PartitionArgs {
    /// The store to partition (it is only read).
    pub store: PathBuf,
    /// K: how many shards.
    #[arg(long)]
    pub parts: usize,
    /// The partition's directory: partition.json, the id map (ids/) and
    /// one store per shard (shard-000, ...), each a store `run`, `info`
    /// and `verify` open as they are; `outcore verify DIR` checks it all.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Memory budget for the whole partition (10 bytes a vertex, then each
    /// shard's build in the rest), as for import.
    #[arg(long, value_parser = crate::parse_memory)]
    pub memory: Option<u64>,
    /// Replace an existing partition (or store) at --out.
    #[arg(long)]
    pub force: bool,
    /// Directory for the shard builds' sorted runs (default: beside them).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
    /// Write the partition's statistics as JSON: seconds per phase, bytes,
    /// the balance, each shard's owned vertices, ghosts and edges.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

pub fn partition(a: PartitionArgs) -> Result<()> {
    if let Some(path) = &a.stats {
        outcore::outfile::check_writable(path)?;
    }
    let opts = PartitionOptions {
        parts: a.parts,
        memory: a.memory.unwrap_or_else(Budget::default_limit),
        force: a.force,
        scratch_dir: a.tmp_dir.clone(),
    };
    let r = run_partition(&a.store, &a.out, &opts)?;
    eprintln!("{}", r.line());
    if let Some(path) = &a.stats {
        let j = partition_stats(&r, opts.memory);
        let text = serde_json::to_string_pretty(&j)? + "\n";
        outcore::outfile::write(path, text.as_bytes())?;
    }
    Ok(())
}
