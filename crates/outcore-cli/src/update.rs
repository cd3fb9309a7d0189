//! `outcore update`: add and remove edges of a store.

use anyhow::{bail, Result};
use clap::Args;
use outcore::api::update::{
    self as edit, edit_options, open_edits, removal_options, Compaction, PolicyReport,
};
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
    /// Compact (merge the delta into a new base, as `outcore compact`)
    /// when the delta's edge changes (edges added plus base edges removed)
    /// reach FRACTION of the base's edges [default: $OUTCORE_COMPACT_AT,
    /// else 0.1]. 0 compacts at every update: the store is rewritten at
    /// once and no delta is written (as --rewrite).
    #[arg(long, value_name = "FRACTION", conflicts_with_all = ["no_compact", "rewrite"])]
    pub compact_at: Option<f64>,
    /// Keep the delta whatever its size (`info` then says when a
    /// compaction is due; `outcore compact` merges it).
    #[arg(long, conflicts_with = "rewrite")]
    pub no_compact: bool,
    /// Rewrite the store from its adjacency instead of writing a delta
    /// (the cost of a binary import; the same as --compact-at 0).
    #[arg(long)]
    pub rewrite: bool,
    /// The default, accepted for older scripts: the update lands in the
    /// delta (compacted as --compact-at says).
    #[arg(long, hide = true, conflicts_with = "rewrite")]
    pub delta: bool,
    /// Write the update's statistics as JSON: the delta's counts (of a
    /// rewrite: import's, plus the counts of removals and additions) and
    /// `compaction` (`compacted`, `reason`, `delta_fraction`).
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
    let policy = match a.rewrite {
        true => Compaction::At(0.0),
        false => Compaction::resolve(a.compact_at, !a.no_compact)?,
    };
    // Locked from here until the updated store is in place.
    let target = edit::open(&a.store)?;
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
    let r = edit::update_with_policy(target, adds, removes, &opts, policy)?;
    if let Some(d) = &r.delta {
        eprintln!("{}", edit::delta_line(&a.store, d));
    }
    match (&r.delta, &r.compaction) {
        (None, Some(c)) => eprintln!("{}\n{}", c.line(), r.reason),
        (Some(_), Some(c)) => eprintln!("{}; {:.2} s", r.reason, c.build.seconds),
        _ => eprintln!("{}", r.reason),
    }
    if let Some(path) = &a.stats {
        let j = stats(&r, &opts);
        let text = serde_json::to_string_pretty(&j)? + "\n";
        outcore::outfile::write(path, text.as_bytes())?;
    }
    Ok(())
}

/// `--stats`: the delta's counts (or, for a rewrite, import's statistics
/// with the removals' counts), and the policy's `compaction` object.
fn stats(r: &PolicyReport, opts: &UpdateOptions) -> serde_json::Value {
    let mut j = match (&r.delta, &r.compaction) {
        (Some(d), _) => {
            let c = &d.counts;
            serde_json::json!({
                "command": "update",
                "delta": true,
                "generation": d.generation,
                "vertices_before": d.vertices_before,
                "edges_before": d.edges_before,
                "vertices": d.vertices,
                "edges": d.edges,
                "additions_read": d.additions_read,
                "removals_read": d.removals_read,
                "removals": c.removals,
                "removals_absent": c.removals_absent,
                "added": c.added,
                "removed": c.removed,
                "reweighted": c.reweighted,
                "self_loops_dropped": c.self_loops_dropped,
                "new_vertices": d.new_vertices,
                "records": d.records,
                "delta_bytes": d.delta_bytes,
                "memory": opts.memory,
            })
        }
        (None, Some(u)) => {
            let mut j = api::import_stats(&u.build, opts.memory);
            if let Some(o) = j.as_object_mut() {
                o.insert("command".into(), "update".into());
                o.insert("delta".into(), false.into());
                o.insert("vertices_before".into(), u.vertices_before.into());
                o.insert("edges_before".into(), u.edges_before.into());
                o.insert("removals".into(), u.removals.into());
                o.insert("removals_absent".into(), u.removals_absent.into());
                o.insert("removed".into(), u.removed().into());
                o.insert("additions_read".into(), u.additions_read.into());
            }
            j
        }
        (None, None) => serde_json::json!({}),
    };
    if let Some(o) = j.as_object_mut() {
        o.insert("seconds".into(), r.seconds.into());
        o.insert("compaction".into(), r.json());
    }
    j
}

#[derive(Args)]
pub struct CompactArgs {
    /// The store whose delta (from `update`) to merge into a new
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
