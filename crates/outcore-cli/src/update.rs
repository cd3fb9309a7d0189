//! `outcore update`: add and remove edges of a store.

use anyhow::{bail, Result};
use clap::Args;
use outcore::api::update::{self as edit, edit_options, open_edits, removal_options};
use outcore::api::{self, UpdateOptions};
use outcore::mem::Budget;
use std::path::PathBuf;

#[derive(Args)]
pub struct UpdateArgs {
    /// The store to update (in place, atomically: a kill leaves it as it
    /// was before or after).
    pub store: PathBuf,
    /// Edge lists to add, in the store's id kind and with its weights
    /// (`-`: standard input, once among --add and --remove). An edge the
    /// store holds gets the added weight; new ids become new vertices.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub add: Vec<PathBuf>,
    /// Edge lists of edges to remove (a weight column is ignored). In an
    /// undirected store either direction names the edge; an edge the store
    /// does not hold is counted, not an error; vertices stay.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub remove: Vec<PathBuf>,
    /// snap, csv, tsv, mtx, ldbc, bin32, bin64, parquet or arrow (default:
    /// guessed from each list's first file, as `import` does).
    #[arg(long, short)]
    pub format: Option<outcore::ingest::parse::InputFormat>,
    /// snap/csv/tsv: the first line of each file is a header.
    #[arg(long)]
    pub header: bool,
    /// csv/tsv: SRC,DST[,W] as column numbers or header names;
    /// parquet/arrow: column names.
    #[arg(long)]
    pub columns: Option<String>,
    /// csv/tsv: the field separator, one ASCII character.
    #[arg(long, value_parser = crate::build::parse_delimiter)]
    pub delimiter: Option<u8>,
    /// Memory budget for the whole update (as for import).
    #[arg(long, value_parser = crate::parse_memory)]
    pub memory: Option<u64>,
    /// Directory for sorted runs (default: beside the store).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
    /// Write the update into a delta layer beside the base store (the next
    /// delta generation: seconds for a small update) instead of rewriting
    /// the store. Experimental: `run` reads base + delta on the external
    /// engine (PageRank, WCC, BFS, SSSP, k-core, CDLP, colouring, MIS,
    /// betweenness); other algorithms, `query` and `export` refuse such a
    /// store until `outcore compact` merges the delta; `info` and `verify`
    /// read it, and `update` (with or without `--delta`) adds to it.
    #[arg(long)]
    pub delta: bool,
    /// Write the update's statistics as JSON (import's, plus the counts of
    /// removals and additions).
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

pub fn update(mut a: UpdateArgs) -> Result<()> {
    if a.add.is_empty() && a.remove.is_empty() {
        bail!("nothing to do: give edge lists to add (--add FILE) or remove (--remove FILE)");
    }
    let dash = |l: &[PathBuf]| l.iter().any(|p| p.as_os_str() == "-");
    if dash(&a.add) && dash(&a.remove) {
        bail!("standard input (`-`) can be read once: give it to --add or to --remove");
    }
    if let Some(path) = &a.stats {
        outcore::outfile::check_writable(path)?;
    }
    // Locked from here until the updated store is in place.
    let target = match a.delta {
        true => edit::open_with_delta(&a.store)?,
        false => edit::open(&a.store)?,
    };
    let popts = edit_options(target.store(), a.header, a.columns.clone(), a.delimiter);
    let _spools = (
        crate::stdin::spool(&mut a.add, &a.store)?,
        crate::stdin::spool(&mut a.remove, &a.store)?,
    );
    let adds = open_edits(&a.add, a.format, &popts)?;
    let removes = open_edits(&a.remove, a.format, &removal_options(&popts))?;
    let opts = UpdateOptions {
        memory: a.memory.unwrap_or_else(Budget::default_limit),
        scratch_dir: a.tmp_dir.clone(),
    };
    if a.delta {
        return delta(&a, target, adds, removes, &opts);
    }
    let r = api::update(target, adds, removes, &opts)?;
    eprintln!("{}", r.line());
    if let Some(path) = &a.stats {
        let mut j = api::import_stats(&r.build, opts.memory);
        if let Some(o) = j.as_object_mut() {
            o.insert("command".into(), "update".into());
            o.insert("vertices_before".into(), r.vertices_before.into());
            o.insert("edges_before".into(), r.edges_before.into());
            o.insert("removals".into(), r.removals.into());
            o.insert("removals_absent".into(), r.removals_absent.into());
            o.insert("removed".into(), r.removed().into());
            o.insert("additions_read".into(), r.additions_read.into());
        }
        let text = serde_json::to_string_pretty(&j)? + "\n";
        outcore::outfile::write(path, text.as_bytes())?;
    }
    Ok(())
}

/// `update --delta`: the update as the store's next delta generation.
fn delta(
    a: &UpdateArgs,
    target: edit::Locked,
    adds: Vec<Box<dyn outcore::ingest::EdgeSource>>,
    removes: Vec<Box<dyn outcore::ingest::EdgeSource>>,
    opts: &UpdateOptions,
) -> Result<()> {
    let r = edit::update_delta(target, adds, removes, opts)?;
    eprintln!("{}", edit::delta_line(&a.store, &r));
    if let Some(path) = &a.stats {
        let c = &r.counts;
        let j = serde_json::json!({
            "command": "update",
            "delta": true,
            "generation": r.generation,
            "vertices_before": r.vertices_before,
            "edges_before": r.edges_before,
            "vertices": r.vertices,
            "edges": r.edges,
            "additions_read": r.additions_read,
            "removals_read": r.removals_read,
            "removals": c.removals,
            "removals_absent": c.removals_absent,
            "added": c.added,
            "removed": c.removed,
            "reweighted": c.reweighted,
            "self_loops_dropped": c.self_loops_dropped,
            "new_vertices": r.new_vertices,
            "records": r.records,
            "delta_bytes": r.delta_bytes,
            "seconds": r.seconds,
            "memory": opts.memory,
        });
        let text = serde_json::to_string_pretty(&j)? + "\n";
        outcore::outfile::write(path, text.as_bytes())?;
    }
    Ok(())
}

#[derive(Args)]
pub struct CompactArgs {
    /// The store whose delta (from `update --delta`) to merge into a new
    /// base (in place, atomically: a kill leaves it as it was before or
    /// after).
    pub store: PathBuf,
    /// Memory budget for the whole compaction (as for import).
    #[arg(long, value_parser = crate::parse_memory)]
    pub memory: Option<u64>,
    /// Directory for sorted runs (default: beside the store).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
}

pub fn compact(a: CompactArgs) -> Result<()> {
    let target = edit::open(&a.store)?;
    let opts = UpdateOptions {
        memory: a.memory.unwrap_or_else(Budget::default_limit),
        scratch_dir: a.tmp_dir.clone(),
    };
    match edit::compact(target, &opts)? {
        Some(r) => eprintln!("compacted: {}", r.line()),
        None => eprintln!("{}: no delta, nothing to compact", a.store.display()),
    }
    Ok(())
}
