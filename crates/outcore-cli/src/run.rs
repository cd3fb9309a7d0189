//! `outcore run`: algorithms on a store (a shell over [`outcore::api::run`](mod@outcore::api::run)).

use anyhow::{bail, Result};
use clap::Args;
use outcore::api::{Algorithm, RunOptions};
use outcore::engine::planner::EngineChoice;
use outcore::engine::results;
use outcore::engine::stats::RunStats;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::size::format_size;
use outcore::store::Store;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct RunArgs {
    /// pagerank, wcc, bfs, sssp, kcore, cdlp, lcc, triangles, coloring, mis, randomwalk or betweenness.
    pub algorithm: Algorithm,
    /// The store.
    pub store: PathBuf,
    /// bfs, sssp: the source vertex (an original id), or `max-degree` for a vertex of the highest degree;
    /// randomwalk: where every walk starts and restarts (personalised PageRank).
    #[arg(long)]
    pub source: Option<String>,
    /// pagerank: iterations (with --tol, the maximum); cdlp: iterations.
    #[arg(long, default_value_t = 10)]
    pub iterations: usize,
    /// pagerank: damping factor.
    #[arg(long, default_value_t = 0.85)]
    pub damping: f64,
    /// pagerank: stop once an iteration changes the ranks by less than this (L1).
    #[arg(long)]
    pub tol: Option<f64>,
    /// Memory budget: 512MiB, 4GiB or 4G (powers of 1024), 4GB (10^9), at most the RAM (or the cgroup memory limit, if lower); default: half of that.
    #[arg(long, value_parser = crate::parse_memory)]
    pub memory: Option<u64>,
    /// Write one `id value` line per vertex (original ids, LDBC format),
    /// or, for a name ending in .parquet, a Parquet file of columns `id`
    /// and `value`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The format of --out: text or parquet (default: parquet for a name
    /// ending in .parquet, else text).
    #[arg(long, requires = "out")]
    pub out_format: Option<outcore::api::OutFormat>,
    /// Write run statistics as JSON (with a summary of the result and the
    /// store's calibrated disk rate, when it has one).
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Write an HTML report of the run (charts of the same statistics; see
    /// `outcore report`).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// I/O backend: uring (io_uring + O_DIRECT) or sync (portable positioned reads); default: uring when available.
    #[arg(long)]
    pub io: Option<Backend>,
    /// Segment size of the stream engine (default: from the budget).
    #[arg(long, value_parser = crate::parse_size)]
    pub segment: Option<u64>,
    /// Segments in the stream engine's ring, at least 2: one is processed while the others are read (default: up to 4, from the budget).
    #[arg(long)]
    pub segments: Option<usize>,
    /// Cap the cache pool (default: the rest of the budget).
    #[arg(long, value_parser = crate::parse_size)]
    pub cache: Option<u64>,
    /// Engine: auto (external when the vertex state does not fit the budget, else the
    /// planner's pick), stream (tiles), select (CSR pages) or external (state on disk).
    /// pagerank and wcc run on stream, select (their vertex programs) or external; sssp and
    /// kcore on select or external; bfs, betweenness, cdlp, coloring and mis on any
    /// (weighted betweenness on select or external); lcc, triangles and randomwalk on
    /// external.
    #[arg(long, default_value = "auto")]
    pub engine: EngineChoice,
    /// Requests in flight for the select engine (default: `outcore calibrate`'s best, else 64).
    #[arg(long)]
    pub depth: Option<usize>,
    /// sssp: bucket width of delta-stepping (default: from the mean edge weight).
    #[arg(long)]
    pub delta: Option<f64>,
    /// external engine: where its spill files go (default: beside the store).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
    /// pagerank, betweenness: follow edge weights as NetworkX's pagerank(G) and
    /// betweenness_centrality(G, weight=) do (needs a weighted store; runs on the
    /// external engine). Default: unweighted, as LDBC Graphalytics.
    #[arg(long)]
    pub weighted: bool,
    /// kcore: also write the vertices of the k-core for this k to --kcore-out.
    #[arg(long)]
    pub k: Option<u32>,
    /// kcore: where the k-core's vertices go (one original id per line; for
    /// a name ending in .parquet, a Parquet file of column `id`).
    #[arg(long)]
    pub kcore_out: Option<PathBuf>,
    /// coloring, mis, randomwalk: seed of the random choices (the same seed
    /// gives the same answer on any budget).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// randomwalk: walks from each vertex (from --source only, when given).
    #[arg(long, default_value_t = 1, value_name = "R")]
    pub walks_per_vertex: u64,
    /// randomwalk: steps per walk.
    #[arg(long, default_value_t = 10, value_name = "L")]
    pub length: u32,
    /// randomwalk: probability of a restart at each step (to --source, or to a
    /// uniform random vertex: then visits sample PageRank with damping 1 - P).
    #[arg(long, default_value_t = 0.0, value_name = "P")]
    pub restart: f64,
    /// randomwalk: write the walks, one per line (original ids, space-separated).
    #[arg(long, value_name = "FILE")]
    pub walks: Option<PathBuf>,
    /// betweenness: a file of source vertices, one original id per line
    /// (NetworkX's betweenness_centrality_subset to all targets); without it, every vertex.
    #[arg(long, value_name = "FILE")]
    pub sources: Option<PathBuf>,
    /// betweenness: sample this many sources uniformly by --seed (NetworkX's k,
    /// scaled as NetworkX scales it).
    #[arg(long, value_name = "K")]
    pub samples: Option<u64>,
    /// betweenness: normalize as NetworkX's normalized=True (dividing by the
    /// pairs of other vertices). Off by default, unlike NetworkX, whose
    /// default is normalized=True: pass --normalized to compare with it.
    #[arg(long)]
    pub normalized: bool,
}

pub fn run(a: RunArgs) -> Result<()> {
    match (a.k, &a.kcore_out) {
        (Some(_), None) | (None, Some(_)) => bail!(
            "--k and --kcore-out go together: `run kcore STORE --k K --kcore-out FILE` writes the vertices of the K-core to FILE (core numbers of all vertices go to --out)"
        ),
        _ if a.k.is_some() && a.algorithm != Algorithm::Kcore => {
            bail!("--k and --kcore-out belong to `run kcore`")
        }
        _ => {}
    }
    // Every output, before the run (a missing directory fails now, not
    // after the work).
    for path in [&a.out, &a.stats, &a.report, &a.kcore_out, &a.walks]
        .into_iter()
        .flatten()
    {
        outcore::outfile::check_writable(path)?;
    }
    let started = crate::utc_now();
    // Base + delta: the planner picks an engine that reads the delta, or
    // refuses the run (`outcore compact`).
    let store = Store::open_with_delta(&a.store)?;
    let opts = RunOptions {
        algorithm: a.algorithm,
        source: a.source.clone(),
        iterations: a.iterations,
        damping: a.damping,
        tol: a.tol,
        weighted: a.weighted,
        memory: a.memory.unwrap_or_else(Budget::default_limit),
        engine: a.engine,
        io: a.io,
        segment: a.segment,
        segments: a.segments,
        cache: a.cache,
        depth: a.depth,
        delta: a.delta,
        tmp_dir: a.tmp_dir.clone(),
        seed: a.seed,
        walks_per_vertex: a.walks_per_vertex,
        length: a.length,
        restart: a.restart,
        walks_out: a.walks.clone(),
        sources: a.sources.clone(),
        samples: a.samples,
        normalized: a.normalized,
    };
    let budget = Budget::checked(opts.memory)?;
    let mut run = outcore::api::run(&store, &opts, &budget)?;
    // Results left on disk by the external engine go out through a sort by
    // rank beside the store (or in --tmp-dir) when dense ids are not ranks.
    let scratch = outcore::api::run::scratch_dir(&store, a.tmp_dir.as_deref());
    let to = results::Out {
        path: Path::new("-"),
        store: &store,
        budget: &budget,
        scratch: &scratch,
    };
    if let Some(out) = &a.out {
        match a
            .out_format
            .unwrap_or_else(|| outcore::api::OutFormat::of(out))
        {
            outcore::api::OutFormat::Text => run.values.write(&to.at(out))?,
            outcore::api::OutFormat::Parquet => run.values.write_parquet(&to.at(out))?,
        }
    }
    if let (Some(k), Some(path)) = (a.k, &a.kcore_out) {
        let keep = |x: u64| x >= k as u64;
        match outcore::api::OutFormat::of(path) {
            outcore::api::OutFormat::Text => run.values.write_set(&to.at(path), keep)?,
            outcore::api::OutFormat::Parquet => run.values.write_set_parquet(&to.at(path), keep)?,
        }
    }
    if a.stats.is_some() || a.report.is_some() {
        let mut j = serde_json::to_value(&run.stats)?;
        if let Some(o) = j.as_object_mut() {
            // What was run, so a stats file explains itself.
            o.insert("command".into(), "run".into());
            o.insert("outcore_version".into(), env!("CARGO_PKG_VERSION").into());
            o.insert("started_at".into(), started.into());
            o.insert("store".into(), a.store.display().to_string().into());
            o.insert("parameters".into(), parameters(&a, budget.limit()));
            // The source as chosen (max-degree names its vertex here).
            let chosen = run.source.as_ref().map(|id| id.to_string());
            o.insert("source_vertex".into(), crate::id_json(chosen.as_deref()));
        }
        outcore::api::summary::annotate(&mut j, a.algorithm, &mut run.values, &store, &budget)?;
        if let Some(path) = &a.stats {
            let text = serde_json::to_string_pretty(&j)?;
            outcore::outfile::write(path, (text + "\n").as_bytes())?;
        }
        if let Some(path) = &a.report {
            let name = format!("{} on {}", a.algorithm.name(), a.store.display());
            crate::report::write_one(path, &j, &name)?;
        }
    }
    print_summary(&run.stats, &run.summary);
    if a.out.is_none() && !outcore::progress::quiet() {
        // No values written: what a person reads of them instead (with
        // --quiet, the summary line alone).
        for line in
            outcore::api::figures::highlights(a.algorithm, &mut run.values, &store, &budget)?
        {
            eprintln!("{line}");
        }
        eprintln!(
            "--out FILE writes every vertex's value ({} vertices)",
            store.manifest().num_vertices
        );
    }
    Ok(())
}

/// Every parameter of a run, as given or defaulted.
fn parameters(a: &RunArgs, memory: u64) -> serde_json::Value {
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    serde_json::json!({
        "algorithm": a.algorithm.name(),
        "engine": format!("{:?}", a.engine).to_lowercase(),
        "memory": memory,
        "iterations": a.iterations,
        "damping": a.damping,
        "tol": a.tol,
        "weighted": a.weighted,
        "source": crate::id_json(a.source.as_deref()),
        "delta": a.delta,
        "k": a.k,
        "kcore_out": path(&a.kcore_out),
        "seed": a.seed,
        "walks_per_vertex": a.walks_per_vertex,
        "length": a.length,
        "restart": a.restart,
        "walks": path(&a.walks),
        "sources": path(&a.sources),
        "samples": a.samples,
        "normalized": a.normalized,
        "io": a.io.map(|b| b.to_string()),
        "segment": a.segment,
        "segments": a.segments,
        "cache": a.cache,
        "depth": a.depth,
        "tmp_dir": path(&a.tmp_dir),
        "out": path(&a.out),
        "quiet": outcore::progress::quiet(),
    })
}

/// One line: what ran, how long, how many bytes, I/O vs compute, peak RSS.
pub fn print_summary(s: &RunStats, extra: &str) {
    let secs = s.wall_seconds.max(1e-9);
    // A summary, not data: stderr (stdout may carry `--out -`).
    eprintln!(
        "{}: {extra}; {} iterations in {:.2}s, read {} ({:.0} MB/s), I/O wait {:.2}s, compute {:.2}s, io {}{}, peak RSS {} of {} budget",
        s.algorithm,
        s.iterations.len(),
        s.wall_seconds,
        format_size(s.bytes_read),
        s.bytes_read as f64 / 1e6 / secs,
        s.io_wait_seconds,
        s.compute_seconds,
        s.io_backend,
        if s.direct_io { "+O_DIRECT" } else { "" },
        format_size(s.peak_rss_bytes),
        format_size(s.memory_budget),
    );
}
