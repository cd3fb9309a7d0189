//! One algorithm run on a store, on the engine `--engine` forces or the
//! planner picks (external whenever the vertex state does not fit the
//! budget): what `outcore run` and the Python package's `Store` methods
//! both call.

use super::values::{Kind, VertexValues};
use crate::algo::{bfs, kcore, pagerank, sssp, vertex};
use crate::engine::external::ExternalConfig;
use crate::engine::planner::{self, EngineChoice};
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::error::{Error, Result};
use crate::io::Backend;
use crate::mem::Budget;
use crate::store::{Id, IdLookup, Store};
use std::path::{Path, PathBuf};

pub use super::algorithm::Algorithm;

/// Every parameter of a run (those an algorithm does not take are ignored).
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub algorithm: Algorithm,
    /// bfs, sssp: the source (an original id as text, or `max-degree`).
    pub source: Option<String>,
    /// pagerank: iterations (with `tol`, the maximum); cdlp: iterations.
    pub iterations: usize,
    pub damping: f64,
    pub tol: Option<f64>,
    /// pagerank, betweenness: follow edge weights (as NetworkX's `weight=`).
    pub weighted: bool,
    /// The memory budget in bytes.
    pub memory: u64,
    pub engine: EngineChoice,
    pub io: Option<Backend>,
    pub segment: Option<u64>,
    pub segments: Option<usize>,
    pub cache: Option<u64>,
    pub depth: Option<usize>,
    /// sssp: delta-stepping's bucket width.
    pub delta: Option<f64>,
    /// Where external spill files and result sorts go (default: beside the store).
    pub tmp_dir: Option<PathBuf>,
    /// coloring, mis, randomwalk: the seed of their random choices.
    pub seed: u64,
    /// randomwalk: walks from each vertex (from the source, when given).
    pub walks_per_vertex: u64,
    /// randomwalk: steps of each walk.
    pub length: u32,
    /// randomwalk: probability of a restart at each step.
    pub restart: f64,
    /// randomwalk: where the walks go (one per line, original ids).
    pub walks_out: Option<PathBuf>,
    /// betweenness: a file of source vertices (one original id per line).
    pub sources: Option<PathBuf>,
    /// betweenness: sources sampled uniformly (by `seed`), as NetworkX's k.
    pub samples: Option<u64>,
    /// betweenness: NetworkX's normalized=True.
    pub normalized: bool,
}

impl RunOptions {
    /// The CLI's defaults for `algorithm`.
    pub fn new(algorithm: Algorithm) -> RunOptions {
        RunOptions {
            algorithm,
            source: None,
            iterations: 10,
            damping: 0.85,
            tol: None,
            weighted: false,
            memory: Budget::default_limit(),
            engine: EngineChoice::Auto,
            io: None,
            segment: None,
            segments: None,
            cache: None,
            depth: None,
            delta: None,
            tmp_dir: None,
            seed: 0,
            walks_per_vertex: 1,
            length: 10,
            restart: 0.0,
            walks_out: None,
            sources: None,
            samples: None,
            normalized: false,
        }
    }
}

/// What a run gives back.
pub struct Run {
    pub values: VertexValues,
    pub stats: RunStats,
    /// One line for people: iterations, components, vertices reached...
    pub summary: String,
    /// pagerank and cdlp: the iterations done.
    pub iterations: Option<usize>,
    /// bfs, sssp, randomwalk: the source vertex (original id), as given or
    /// as `max-degree` chose it.
    pub source: Option<Id<'static>>,
}

/// Where results that are sorted on their way out go: `tmp_dir`, else the
/// store's parent directory.
pub fn scratch_dir(store: &Store, tmp_dir: Option<&Path>) -> PathBuf {
    tmp_dir.map(Path::to_path_buf).unwrap_or_else(|| {
        store
            .path()
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    })
}

/// The dense id of the vertex of the highest out-degree; of several, the
/// one of the smallest original id (whatever the store's vertex order).
///
/// One pass over the degrees keeps the vertices of the highest degree seen;
/// their ranks are then read one by one ([`IdLookup::rank`]), not the whole
/// rank map (67 MB at kron-24, loading it was most of the choice's time).
/// Past [`TIES`] vertices of one degree, the rank map is loaded after all.
pub fn max_degree_vertex(store: &Store) -> Result<u64> {
    const TIES: usize = 1 << 12;
    let (mut ties, mut deg, mut many) = (Vec::new(), 0, false);
    crate::store::degrees::for_each_of(store, "out", |v, d| {
        if d > deg || ties.is_empty() {
            (deg, many) = (d, false);
            ties.clear();
        }
        if d == deg && !many {
            ties.push(v);
            many = ties.len() > TIES;
        }
        Ok(())
    })?;
    if !many {
        let lookup = IdLookup::open(store)?;
        let mut best = None;
        for v in ties {
            let r = lookup.rank(v)?;
            best = match best {
                Some((_, b)) if b <= r => best,
                _ => Some((v, r)),
            };
        }
        return Ok(best.map_or(0, |(v, _)| v));
    }
    let ranks = store.load_ranks()?;
    let rank = |v: u64| ranks.as_ref().map_or(v, |r| r[v as usize] as u64);
    let (mut best, mut deg) = (0, 0);
    crate::store::degrees::for_each_of(store, "out", |v, d| {
        if d > deg || (d == deg && rank(v) < rank(best)) {
            (best, deg) = (v, d);
        }
        Ok(())
    })?;
    Ok(best)
}

/// The dense id of a source given as an original id or `max-degree`.
pub fn source(store: &Store, src: Option<&str>, alg: &str) -> Result<u64> {
    let Some(src) = src else {
        return Err(Error::Invalid(format!(
            "{alg} needs a source (an original vertex id, or max-degree)"
        )));
    };
    if src == "max-degree" {
        return max_degree_vertex(store);
    }
    IdLookup::open(store)?
        .dense_of_text(src)?
        .ok_or_else(|| Error::Invalid(format!("source vertex {src} is not in the graph")))
}

/// Runs `o.algorithm` on `store` inside `budget` (whose limit is
/// `o.memory`'s); the values stay where the engine left them.
pub fn run(store: &Store, o: &RunOptions, budget: &Budget) -> Result<Run> {
    crate::mem::budget::check_limit(budget.limit())?;
    // A store with pending updates runs on the engines that read them.
    let o = &RunOptions {
        engine: planner::for_delta(store, o.engine, o.algorithm.name())?,
        ..o.clone()
    };
    // The view's out-degrees, loaded once for the source's choice, the
    // planner and the states' init (issue 53), charged while the run is.
    let _degrees = crate::store::delta::degrees::hold(store, "out", budget)?;
    if let Some(path) = &o.walks_out {
        crate::outfile::check_writable(path)?;
    }
    let alg = o.algorithm;
    let n = store.manifest().num_vertices;
    let engine = StreamConfig {
        io: o.io,
        segment_bytes: o.segment,
        segments: o.segments,
        cache_bytes: o.cache,
        label: alg.name().into(),
        ..Default::default()
    };
    let select = SelectConfig {
        io: o.io,
        depth: o.depth,
        ..Default::default()
    };
    let ext = ExternalConfig {
        io: o.io,
        tmp_dir: o.tmp_dir.clone(),
        ..Default::default()
    };
    let only = |choice: EngineChoice, name: &str| -> Result<()> {
        match o.engine == EngineChoice::Auto || o.engine == choice {
            true => Ok(()),
            false => Err(Error::Invalid(format!(
                "{} runs on the {name} engine only; drop --engine or pass --engine {name}",
                alg.name()
            ))),
        }
    };
    // External when forced, or when auto and the in-memory state does not fit.
    let external =
        |state: u64| -> bool { planner::needs_external(o.engine, alg.name(), state, budget) };
    if o.weighted && !matches!(alg, Algorithm::Pagerank | Algorithm::Betweenness) {
        return Err(Error::Invalid(
            "--weighted applies to pagerank and betweenness (sssp always follows weights)".into(),
        ));
    }
    let pr_cfg = pagerank::PageRankConfig {
        damping: o.damping,
        iterations: o.iterations,
        tol: o.tol,
    };
    let pr_summary = |done: usize, change: f64| {
        let w = if o.weighted { "weighted, " } else { "" };
        format!("{w}{done} iterations, last L1 change {change:.3e}")
    };
    let float = |x: u64| x;
    // The source, once (max-degree scans the degrees).
    let src = match (alg, &o.source) {
        (Algorithm::Bfs | Algorithm::Sssp, s) => Some(source(store, s.as_deref(), alg.name())?),
        (Algorithm::Randomwalk, Some(s)) => Some(source(store, Some(s), alg.name())?),
        _ => None,
    };
    let (values, stats, iterations, summary) = match alg {
        Algorithm::Pagerank
            if o.weighted
                || external(
                    crate::engine::run::required::<vertex::pagerank::PageRankVp>(store),
                ) =>
        {
            if o.weighted && !matches!(o.engine, EngineChoice::Auto | EngineChoice::External) {
                return Err(Error::Invalid("weighted pagerank runs on the external engine; drop --engine or pass --engine external".into()));
            }
            let (pr, p, stats) =
                vertex::pagerank::run_on_disk(store, &pr_cfg, o.weighted, &ext, budget)?;
            let s = pr_summary(p.done_iterations, p.last_change);
            let values = VertexValues::disk(Kind::Float, pr, float);
            (values, stats, Some(p.done_iterations), s)
        }
        Algorithm::Pagerank => {
            let (s, p, stats) =
                vertex::pagerank::planned(store, &pr_cfg, o.engine, engine, &select, budget)?;
            let values = VertexValues::memory(Kind::Float, move |v| s[v as usize].to_bits());
            let sum = pr_summary(p.done_iterations, p.last_change);
            (values, stats, Some(p.done_iterations), sum)
        }
        Algorithm::Wcc => {
            let (values, stats) = if external(vertex::wcc::required(store)) {
                let (w, stats) = vertex::wcc::run_on_disk(store, &ext, budget)?;
                (VertexValues::disk(Kind::Label, w, |x| x), stats)
            } else {
                let (w, stats) = vertex::wcc::planned(store, o.engine, engine, &select, budget)?;
                (VertexValues::memory(Kind::Label, w), stats)
            };
            let mut values = values;
            let components = super::run_more::components(&mut values, store, budget)?;
            (values, stats, None, format!("{components} components"))
        }
        Algorithm::Bfs => {
            let dense = src.expect("resolved above");
            let (mut values, stats) =
                if external(crate::engine::run::required::<vertex::bfs::BfsVp>(store)) {
                    let (b, stats) = vertex::bfs::run_on_disk(store, dense, &ext, budget)?;
                    let depth = |d: u64| vertex::bfs::depth(d as u32) as u64;
                    (VertexValues::disk(Kind::Int, b, depth), stats)
                } else {
                    let (d, stats) =
                        vertex::bfs::planned(store, dense, o.engine, engine, &select, budget)?;
                    let depth = move |v: u64| vertex::bfs::depth(d[v as usize]) as u64;
                    (VertexValues::memory(Kind::Int, depth), stats)
                };
            let fold = |(n, depth): (u64, i64), _, d: u64| match d as i64 {
                bfs::UNREACHABLE => (n, depth),
                d => (n + 1, depth.max(d)),
            };
            let join = |a: (u64, i64), b: (u64, i64)| (a.0 + b.0, a.1.max(b.1));
            let (reached, depth) = values.fold_dense(store, budget, (0, 0), fold, join)?;
            let s = format!("{reached} vertices reached, depth {depth}");
            (values, stats, None, s)
        }
        Algorithm::Sssp => {
            let dense = src.expect("resolved above");
            let (mut values, stats) = if external(sssp::Sssp::state_bytes(n) + (16 << 20)) {
                let (d, stats) = vertex::sssp::run_on_disk(store, dense, &ext, budget)?;
                (VertexValues::disk(Kind::Float, d, float), stats)
            } else {
                only(EngineChoice::Select, "select")?;
                let cfg = sssp::SsspConfig { delta: o.delta };
                let (d, stats) = sssp::sssp(store, dense, &cfg, &select, budget)?;
                let values =
                    VertexValues::memory(Kind::Float, move |v| d.value(v as usize).to_bits());
                (values, stats)
            };
            let (mut reached, mut far) = (0u64, 0f64);
            values.for_each_dense(store, budget, &mut |_, x| {
                let d = f64::from_bits(x);
                if d.is_finite() {
                    reached += 1;
                    far = far.max(d);
                }
            })?;
            let far = super::figures::readable(far);
            let s = format!("{reached} vertices reached, farthest at distance {far}");
            (values, stats, None, s)
        }
        Algorithm::Kcore => {
            let (mut values, stats) = if external(kcore::KCore::state_bytes(n) + (16 << 20)) {
                let (c, stats) = vertex::kcore::run_on_disk(store, &ext, budget)?;
                (VertexValues::disk(Kind::Int, c, |x| x), stats)
            } else {
                only(EngineChoice::Select, "select")?;
                let (k, stats) = kcore::kcore(store, &select, budget)?;
                let values = VertexValues::memory(Kind::Int, move |v| k.value(v as usize) as u64);
                (values, stats)
            };
            let mut max = 0;
            values.for_each_dense(store, budget, &mut |_, x| max = max.max(x))?;
            (values, stats, None, format!("max core {max}"))
        }
        // In memory when they fit, else external: the planner's choice.
        Algorithm::Betweenness
        | Algorithm::Cdlp
        | Algorithm::Coloring
        | Algorithm::Mis
        | Algorithm::Randomwalk => {
            super::run_more::run(store, o, src, engine, &select, &ext, budget)?
        }
        _ => {
            only(EngineChoice::External, "external")?;
            super::run_more::run(store, o, src, engine, &select, &ext, budget)?
        }
    };
    let source = match src {
        Some(v) => Some(IdLookup::open(store)?.original(v)?.into_owned()),
        None => None,
    };
    let summary = match (&source, o.source.as_deref()) {
        (Some(id), Some("max-degree")) => format!("from {id} (max-degree): {summary}"),
        (Some(id), _) => format!("from {id}: {summary}"),
        (None, _) => summary,
    };
    Ok(Run {
        values,
        stats,
        summary,
        iterations,
        source,
    })
}
