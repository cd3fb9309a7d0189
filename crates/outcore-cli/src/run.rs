//! `outcore run`: algorithms on a store.

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use outcore::algo::output::{write_vertex_labels, write_vertex_values, Ldbc};
use outcore::algo::results;
use outcore::algo::{bfs, cdlp, kcore, lcc, pagerank, sssp, vertex, wcc};
use outcore::engine::external::ExternalConfig;
use outcore::engine::planned;
use outcore::engine::planner::{self, EngineChoice};
use outcore::engine::select::SelectConfig;
use outcore::engine::stats::RunStats;
use outcore::engine::stream;
use outcore::engine::stream::StreamConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::size::format_size;
use outcore::store::{IdLookup, Store};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algorithm {
    Pagerank,
    Wcc,
    Bfs,
    Sssp,
    Kcore,
    Cdlp,
    Lcc,
}

#[derive(Args)]
pub struct RunArgs {
    /// pagerank, wcc, bfs, sssp, kcore, cdlp or lcc.
    pub algorithm: Algorithm,
    /// The store.
    pub store: PathBuf,
    /// bfs, sssp: the source vertex (an original id), or `max-degree` for a vertex of the highest degree.
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
    /// Memory budget: 512MiB, 4GiB or 4G (powers of 1024), 4GB (10^9); default: half of RAM.
    #[arg(long, value_parser = crate::parse_size)]
    pub memory: Option<u64>,
    /// Write one `id value` line per vertex (original ids, LDBC format).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write run statistics as JSON.
    #[arg(long)]
    pub stats: Option<PathBuf>,
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
    /// kcore on select or external; bfs on any; cdlp and lcc on external.
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
    /// pagerank: follow edge weights as NetworkX's pagerank(G) does (transition
    /// probability proportional to weight; needs a weighted store; runs on the
    /// external engine). Default: LDBC Graphalytics' unweighted PageRank.
    #[arg(long)]
    pub weighted: bool,
    /// kcore: also write the vertices of the k-core for this k to --kcore-out.
    #[arg(long)]
    pub k: Option<u32>,
    /// kcore: where the k-core's vertices go (one original id per line).
    #[arg(long)]
    pub kcore_out: Option<PathBuf>,
}

/// The dense id of the vertex of the highest out-degree; of several, the
/// one of the smallest original id (whatever the store's vertex order).
pub fn max_degree_vertex(store: &Store) -> Result<u64> {
    let ranks = store.load_ranks()?;
    let rank = |v: u64| ranks.as_ref().map_or(v, |r| r[v as usize] as u64);
    let (mut best, mut deg) = (0, 0);
    outcore::store::degrees::for_each(store.path(), "out", |v, d| {
        if d > deg || (d == deg && rank(v) < rank(best)) {
            (best, deg) = (v, d);
        }
        Ok(())
    })?;
    Ok(best)
}

/// The dense id of `--source` (an original id or `max-degree`).
pub fn source(store: &Store, src: Option<&str>, alg: &str) -> Result<u64> {
    let Some(src) = src else {
        bail!("{alg} needs --source ID (an original vertex id, or max-degree)");
    };
    if src == "max-degree" {
        return max_degree_vertex(store);
    }
    dense_of(store, src)
}

/// Dense id of an original id as the user wrote it (original -> rank by
/// binary search over the store's ids, rank -> dense id through `order.inv`).
pub fn dense_of(store: &Store, original: &str) -> Result<u64> {
    match IdLookup::open(store)?.dense_of_text(original)? {
        Some(v) => Ok(v),
        None => bail!("source vertex {original} is not in the graph"),
    }
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
    let started = crate::utc_now();
    let store = Store::open(&a.store)?;
    let memory = a.memory.unwrap_or_else(Budget::default_limit);
    let budget = Budget::new(memory);
    let engine = StreamConfig {
        io: a.io,
        segment_bytes: a.segment,
        segments: a.segments,
        cache_bytes: a.cache,
        label: format!("{:?}", a.algorithm).to_lowercase(),
        ..Default::default()
    };
    let select = SelectConfig {
        io: a.io,
        depth: a.depth,
        ..Default::default()
    };
    let only = |engine: EngineChoice, name: &str| -> Result<()> {
        if a.engine != EngineChoice::Auto && a.engine != engine {
            bail!(
                "{:?} runs on the {name} engine only; drop --engine or pass --engine {name}",
                a.algorithm
            );
        }
        Ok(())
    };
    let n = store.manifest().num_vertices;
    let ext = ExternalConfig {
        io: a.io,
        tmp_dir: a.tmp_dir.clone(),
        ..Default::default()
    };
    // Results left on disk by the external engine go out through a sort by
    // rank beside the store (or in --tmp-dir) when dense ids are not ranks.
    let scratch = a.tmp_dir.clone().unwrap_or_else(|| {
        store
            .path()
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    });
    let results_to = results::Out {
        path: Path::new("-"),
        store: &store,
        budget: &budget,
        scratch: &scratch,
    };
    // External when forced, or when auto and the in-memory state does not fit.
    let external = |state: u64| -> bool {
        planner::needs_external(a.engine, &format!("{:?}", a.algorithm), state, &budget)
    };
    if a.weighted && a.algorithm != Algorithm::Pagerank {
        bail!("--weighted applies to pagerank (sssp always follows weights)");
    }
    let pr_cfg = pagerank::PageRankConfig {
        damping: a.damping,
        iterations: a.iterations,
        tol: a.tol,
    };
    let (stats, extra) = match a.algorithm {
        Algorithm::Pagerank
            if a.weighted
                || external(stream::required_bytes(
                    &store,
                    pagerank::PageRank::state_bytes(n),
                )) =>
        {
            if a.weighted && a.engine != EngineChoice::Auto && a.engine != EngineChoice::External {
                bail!("weighted pagerank runs on the external engine; drop --engine or pass --engine external");
            }
            let (mut pr, p, stats) =
                vertex::pagerank::run_on_disk(&store, &pr_cfg, a.weighted, &ext, &budget)?;
            if let Some(out) = &a.out {
                results::write_values(&results_to.at(out), pr.as_mut(), |x| {
                    Ldbc(f64::from_bits(x))
                })?;
            }
            let extra = format!(
                "{}{} iterations, last L1 change {:.3e}",
                if a.weighted { "weighted, " } else { "" },
                p.done_iterations,
                p.last_change
            );
            (stats, extra)
        }
        Algorithm::Wcc
            if a.engine == EngineChoice::Select
                || external(stream::required_bytes(&store, wcc::Wcc::state_bytes(n))) =>
        {
            if a.engine == EngineChoice::Select {
                let (w, stats) = planned::run(
                    &store,
                    &mut vertex::wcc::WccVp,
                    usize::MAX,
                    a.engine,
                    engine.clone(),
                    &select,
                    &budget,
                )?;
                (
                    stats,
                    write_components(&store, a.out.as_deref(), n, |v| w[v as usize])?,
                )
            } else {
                let (mut w, stats) = vertex::wcc::run_on_disk(&store, &ext, &budget)?;
                // A component's label is the rank of its smallest vertex.
                let mut ranks = store.rank_reader()?;
                let (mut components, mut err) = (0u64, None);
                w.for_each(&budget, &mut |_, label| match ranks.next_rank() {
                    Ok(r) => components += (label == r as u64) as u64,
                    Err(e) => err = Some(e),
                })?;
                if let Some(e) = err {
                    return Err(e.into());
                }
                if let Some(out) = &a.out {
                    results::write_labels(&results_to.at(out), w.as_mut())?;
                }
                (stats, format!("{components} components"))
            }
        }
        Algorithm::Bfs
            if external(stream::required_bytes(
                &store,
                bfs::Bfs::state_bytes(n) + 2 * n,
            )) =>
        {
            let dense = source(&store, a.source.as_deref(), "bfs")?;
            let (mut b, stats) = vertex::bfs::run_on_disk(&store, dense, &ext, &budget)?;
            let (mut reached, mut depth) = (0u64, 0u64);
            b.for_each(&budget, &mut |_, d| {
                if d != u32::MAX as u64 {
                    reached += 1;
                    depth = depth.max(d);
                }
            })?;
            if let Some(out) = &a.out {
                results::write_values(&results_to.at(out), b.as_mut(), |d| {
                    match d == u32::MAX as u64 {
                        true => bfs::UNREACHABLE,
                        false => d as i64,
                    }
                })?;
            }
            (stats, format!("{reached} vertices reached, depth {depth}"))
        }
        Algorithm::Sssp if external(sssp::Sssp::state_bytes(n) + (16 << 20)) => {
            let dense = source(&store, a.source.as_deref(), "sssp")?;
            let (mut d, stats) = vertex::sssp::run_on_disk(&store, dense, &ext, &budget)?;
            let mut reached = 0u64;
            d.for_each(&budget, &mut |_, x| {
                reached += f64::from_bits(x).is_finite() as u64
            })?;
            if let Some(out) = &a.out {
                results::write_values(&results_to.at(out), d.as_mut(), |x| {
                    Ldbc(f64::from_bits(x))
                })?;
            }
            (stats, format!("{reached} vertices reached"))
        }
        Algorithm::Kcore if external(kcore::KCore::state_bytes(n) + (16 << 20)) => {
            let (mut c, stats) = vertex::kcore::run_on_disk(&store, &ext, &budget)?;
            if let Some(out) = &a.out {
                results::write_values(&results_to.at(out), c.as_mut(), |x| x)?;
            }
            if let (Some(kk), Some(path)) = (a.k, &a.kcore_out) {
                results::write_set(&results_to.at(path), c.as_mut(), |x| x >= kk as u64)?;
            }
            let mut max = 0;
            c.for_each(&budget, &mut |_, x| max = max.max(x))?;
            (stats, format!("max core {max}"))
        }
        Algorithm::Cdlp => {
            only(EngineChoice::External, "external")?;
            let cfg = cdlp::CdlpConfig {
                iterations: a.iterations,
            };
            let (mut l, stats) = cdlp::cdlp_on_disk(&store, &cfg, &ext, &budget)?;
            if let Some(out) = &a.out {
                results::write_labels(&results_to.at(out), l.as_mut())?;
            }
            // Distinct labels, in a bit per vertex when the budget has it.
            let summary = match budget.charge(n.div_ceil(8), "cdlp label count") {
                Ok(_charge) => {
                    let mut seen = vec![0u64; n.div_ceil(64) as usize];
                    l.for_each(&budget, &mut |_, x| {
                        seen[(x / 64) as usize] |= 1 << (x % 64)
                    })?;
                    let c: u64 = seen.iter().map(|w| w.count_ones() as u64).sum();
                    format!("{c} communities")
                }
                Err(_) => "labels written (too many vertices to count communities)".into(),
            };
            (stats, summary)
        }
        Algorithm::Lcc => {
            only(EngineChoice::External, "external")?;
            let (l, stats) = lcc::lcc(&store, &ext, &budget)?;
            if let Some(out) = &a.out {
                write(&store, out, n, |v| Ldbc(l[v as usize]))?;
            }
            let mean = l.iter().sum::<f64>() / (n.max(1) as f64);
            (stats, format!("mean LCC {mean:.6}"))
        }
        // The vertex programs on the select engine (the stream engine runs
        // the hand-tuned tile kernels below, 2x faster).
        Algorithm::Pagerank if a.engine == EngineChoice::Select => {
            pr_cfg.validate()?;
            let mut p = vertex::pagerank::PageRankVp::new(n, &pr_cfg);
            let (s, stats) = planned::run(
                &store,
                &mut p,
                a.iterations,
                a.engine,
                engine.clone(),
                &select,
                &budget,
            )?;
            if let Some(out) = &a.out {
                write(&store, out, n, |v| Ldbc(s[v as usize].0))?;
            }
            let extra = format!(
                "{} iterations, last L1 change {:.3e}",
                p.done_iterations, p.last_change
            );
            (stats, extra)
        }
        Algorithm::Pagerank => {
            only(EngineChoice::Stream, "stream")?;
            let (pr, stats) = pagerank::pagerank(&store, &pr_cfg, engine, &budget)?;
            if let Some(out) = &a.out {
                write(&store, out, n, |v| Ldbc(pr.value(v as usize)))?;
            }
            (
                stats,
                format!(
                    "{} iterations, last L1 change {:.3e}",
                    pr.iterations(),
                    pr.last_change
                ),
            )
        }
        Algorithm::Wcc => {
            only(EngineChoice::Stream, "stream")?;
            let (w, stats) = wcc::wcc(&store, engine, &budget)?;
            (
                stats,
                write_components(&store, a.out.as_deref(), n, |v| w.value(v as usize))?,
            )
        }
        Algorithm::Bfs => {
            let dense = source(&store, a.source.as_deref(), "bfs")?;
            let (b, stats) =
                bfs::bfs_planned(&store, dense, a.engine, engine, select.clone(), &budget)?;
            let reached = (0..n as usize)
                .filter(|&v| b.value(v) != bfs::UNREACHABLE)
                .count();
            let depth = (0..n as usize)
                .map(|v| b.value(v))
                .filter(|&d| d != bfs::UNREACHABLE)
                .max()
                .unwrap_or(0);
            if let Some(out) = &a.out {
                write(&store, out, n, |v| b.value(v as usize))?;
            }
            (stats, format!("{reached} vertices reached, depth {depth}"))
        }
        Algorithm::Sssp => {
            only(EngineChoice::Select, "select")?;
            let dense = source(&store, a.source.as_deref(), "sssp")?;
            let cfg = sssp::SsspConfig { delta: a.delta };
            let (d, stats) = sssp::sssp(&store, dense, &cfg, &select, &budget)?;
            let reached = (0..n as usize).filter(|&v| d.value(v).is_finite()).count();
            if let Some(out) = &a.out {
                write(&store, out, n, |v| Ldbc(d.value(v as usize)))?;
            }
            (stats, format!("{reached} vertices reached"))
        }
        Algorithm::Kcore => {
            only(EngineChoice::Select, "select")?;
            let (k, stats) = kcore::kcore(&store, &select, &budget)?;
            if let Some(out) = &a.out {
                write(&store, out, n, |v| k.value(v as usize))?;
            }
            if let (Some(kk), Some(path)) = (a.k, &a.kcore_out) {
                let ids = store.load_ids()?;
                let vs: Vec<_> = kcore::kcore_vertices(&k, kk)
                    .iter()
                    .map(|&v| ids.get(v as u64))
                    .collect();
                write_ids(path, vs)?;
            }
            (stats, format!("max core {}", k.max_core()))
        }
    };
    if let Some(path) = &a.stats {
        let mut j = serde_json::to_value(&stats)?;
        if let Some(o) = j.as_object_mut() {
            // What was run, so a stats file explains itself.
            o.insert("command".into(), "run".into());
            o.insert("outcore_version".into(), env!("CARGO_PKG_VERSION").into());
            o.insert("started_at".into(), started.into());
            o.insert("store".into(), a.store.display().to_string().into());
            o.insert("parameters".into(), parameters(&a, budget.limit()));
        }
        let text = serde_json::to_string_pretty(&j)?;
        outcore::outfile::write(path, (text + "\n").as_bytes())?;
    }
    print_summary(&stats, &extra);
    Ok(())
}

/// Every parameter of a run, as given or defaulted.
fn parameters(a: &RunArgs, memory: u64) -> serde_json::Value {
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    serde_json::json!({
        "algorithm": format!("{:?}", a.algorithm).to_lowercase(),
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

/// WCC's output (labels are ranks: a component's root carries its own);
/// returns the summary.
fn write_components(
    store: &Store,
    out: Option<&Path>,
    n: u64,
    label: impl Fn(u64) -> u32,
) -> Result<String> {
    // A component's label is the rank of its smallest vertex.
    let mut components = 0;
    let ordered = store.for_each_rank(|first, ranks| {
        for (i, &r) in ranks.iter().enumerate() {
            components += (label(first + i as u64) == r) as u64;
        }
    })?;
    if !ordered {
        components = (0..n).filter(|&v| label(v) as u64 == v).count() as u64;
    }
    if let Some(out) = out {
        write_vertex_labels(out, store, |v| label(v) as u64)?;
    }
    Ok(format!("{components} components"))
}

/// Writes ids sorted, one per line.
fn write_ids(path: &Path, mut vs: Vec<outcore::store::Id<'_>>) -> Result<()> {
    vs.sort_unstable();
    let text: String = vs.iter().map(|v| format!("{v}\n")).collect();
    Ok(outcore::outfile::write(path, text.as_bytes())?)
}

fn write<T: std::fmt::Display>(
    store: &Store,
    out: &Path,
    _n: u64,
    value: impl Fn(u64) -> T,
) -> Result<()> {
    Ok(write_vertex_values(out, store, value)?)
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
