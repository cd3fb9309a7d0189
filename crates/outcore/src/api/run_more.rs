//! The algorithms past the first five: betweenness, CDLP, colouring and
//! maximal independent set (in memory on the planner's engines, or
//! external when their state and grouped messages do not fit), and those
//! that run on the external engine only (they list triangles, or they move
//! walkers): LCC, triangles, random walks. Each gives its values,
//! the run's statistics, the iterations done (where that means something)
//! and a one-line summary.

use super::run::{Algorithm, RunOptions};
use super::values::{Kind, VertexValues};
use crate::algo::vertex::Engines;
use crate::algo::{
    betweenness, betweenness_weighted, cdlp, coloring, lcc, mis, randomwalk, triangles,
};
use crate::engine::external::ExternalConfig;
use crate::engine::planner;
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::error::{Error, IoContext, Result};
use crate::mem::Budget;
use crate::store::{IdLookup, Store};

/// What a run gives back before it is wrapped in a [`super::Run`].
pub type Outcome = (VertexValues, RunStats, Option<usize>, String);

/// Runs `o.algorithm`, one of those above (the caller has checked that
/// `--engine` allows the external-only ones); `src`: the dense id of
/// `o.source`, resolved.
pub fn run(
    store: &Store,
    o: &RunOptions,
    src: Option<u64>,
    stream: StreamConfig,
    select: &SelectConfig,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<Outcome> {
    let n = store.manifest().num_vertices;
    let eng = Engines {
        choice: o.engine,
        stream,
        select: select.clone(),
        ext: ext.clone(),
    };
    if o.algorithm == Algorithm::Betweenness {
        return run_betweenness(store, o, &eng, budget);
    }
    Ok(match o.algorithm {
        Algorithm::Cdlp => {
            let cfg = cdlp::CdlpConfig {
                iterations: o.iterations,
            };
            let (l, stats) = cdlp::cdlp_run(store, &cfg, &eng, budget)?;
            let mut values = VertexValues::disk(Kind::Label, l, |x| x);
            // Distinct labels, in a bit per vertex when the budget has it.
            let summary = match budget.charge(n.div_ceil(8), "cdlp label count") {
                Ok(_charge) => {
                    let mut seen = vec![0u64; n.div_ceil(64) as usize];
                    values.for_each_dense(store, budget, &mut |_, x| {
                        seen[(x / 64) as usize] |= 1 << (x % 64)
                    })?;
                    let c: u64 = seen.iter().map(|w| w.count_ones() as u64).sum();
                    format!("{c} communities")
                }
                Err(_) => "labels written (too many vertices to count communities)".into(),
            };
            (values, stats, Some(o.iterations), summary)
        }
        Algorithm::Lcc => {
            let (l, stats) = lcc::lcc(store, ext, budget)?;
            let mean = l.iter().fold(0.0, |s, x| s + x) / (n.max(1) as f64);
            let values = VertexValues::memory(Kind::Float, move |v| l[v as usize].to_bits());
            (values, stats, None, format!("mean LCC {mean:.6}"))
        }
        Algorithm::Triangles => {
            let (t, stats) = triangles::triangles(store, ext, budget)?;
            let total = t.iter().sum::<u64>() / 3;
            let values = VertexValues::memory(Kind::Int, move |v| t[v as usize]);
            (values, stats, None, format!("{total} triangles"))
        }
        Algorithm::Coloring => {
            let (c, stats) = coloring::coloring_run(store, o.seed, &eng, budget)?;
            let mut values = VertexValues::disk(Kind::Int, c, |x| x);
            let mut colors = 0;
            values.for_each_dense(store, budget, &mut |_, x| colors = colors.max(x + 1))?;
            let steps = stats.iterations.len();
            (
                values,
                stats,
                None,
                format!("{colors} colours in {steps} supersteps"),
            )
        }
        Algorithm::Mis => {
            let (s, stats) = mis::mis_run(store, o.seed, &eng, budget)?;
            let mut values = VertexValues::disk(Kind::Int, s, |x| x);
            let mut size = 0;
            values.for_each_dense(store, budget, &mut |_, x| size += x)?;
            let steps = stats.iterations.len();
            (
                values,
                stats,
                None,
                format!("{size} vertices in the set, {steps} supersteps"),
            )
        }
        Algorithm::Randomwalk => {
            let cfg = randomwalk::WalkConfig {
                walks_per_vertex: o.walks_per_vertex,
                length: o.length,
                seed: o.seed,
                restart: o.restart,
                source: src,
            };
            let w = match &o.walks_out {
                None => randomwalk::random_walks(store, &cfg, o.engine, ext, budget, None)?,
                Some(path) => {
                    let mut f = crate::outfile::OutFile::create(path)?;
                    let target = f.target().to_path_buf();
                    let lookup = IdLookup::open(store)?;
                    let mut line = String::new();
                    let mut sink = |_: u64, walk: &[u64]| -> Result<()> {
                        use std::fmt::Write as _;
                        line.clear();
                        for (i, &v) in walk.iter().enumerate() {
                            let sep = if i == 0 { "" } else { " " };
                            let _ = write!(line, "{sep}{}", lookup.original(v)?);
                        }
                        line.push('\n');
                        f.writer().write_all(line.as_bytes()).at(&target)
                    };
                    let w = randomwalk::random_walks(
                        store,
                        &cfg,
                        o.engine,
                        ext,
                        budget,
                        Some(&mut sink),
                    )?;
                    f.commit()?;
                    w
                }
            };
            let s = format!(
                "{} walks of length {}, {} stopped early at a vertex without out-edges",
                w.walks, o.length, w.stopped
            );
            (
                VertexValues::disk(Kind::Int, w.visits, |x| x),
                w.stats,
                None,
                s,
            )
        }
        a => unreachable!("{} is not one of the external engine's own", a.name()),
    })
}

/// Betweenness from every vertex, `o.samples` sampled ones or those of
/// `o.sources`; in memory unless the state does not fit (or external is
/// forced).
fn run_betweenness(
    store: &Store,
    o: &RunOptions,
    eng: &Engines,
    budget: &Budget,
) -> Result<Outcome> {
    let (sources, sampled) = match (&o.sources, o.samples) {
        (Some(_), Some(_)) => return Err(Error::Invalid(
            "--sources and --samples exclude each other: pick the sources or how many to sample"
                .into(),
        )),
        (Some(path), None) => (Some(sources_file(store, path)?), false),
        (None, Some(k)) => (Some(betweenness::sample(store, k, o.seed)?), true),
        (None, None) => (None, false),
    };
    let count = sources
        .as_ref()
        .map_or(store.manifest().num_vertices, |s| s.len() as u64);
    let cfg = betweenness::BcConfig {
        sources,
        sampled,
        normalized: o.normalized,
    };
    let n = store.manifest().num_vertices;
    if o.weighted {
        let (b, stats) = betweenness_weighted::weighted_run(store, &cfg, eng, budget)?;
        let steps = stats.iterations.len();
        let s = format!("weighted, {count} sources, {steps} supersteps");
        return Ok((VertexValues::disk(Kind::Float, b, |x| x), stats, None, s));
    }
    let state = crate::engine::stream::required_bytes(
        store,
        crate::engine::superstep::state_bytes::<betweenness::BcVp>(n)
            + crate::store::degrees::Degrees::memory_bytes(n),
    ) + (4 << 20);
    let (values, stats) = if planner::needs_external(o.engine, "betweenness", state, budget) {
        let (b, stats) = betweenness::betweenness_on_disk(store, &cfg, &eng.ext, budget)?;
        (VertexValues::disk(Kind::Float, b, |x| x), stats)
    } else {
        let (s, c) = (eng.stream.clone(), &eng.select);
        let (b, stats) = betweenness::betweenness(store, &cfg, o.engine, s, c, budget)?;
        (
            VertexValues::memory(Kind::Float, move |v| b[v as usize].to_bits()),
            stats,
        )
    };
    let steps = stats.iterations.len();
    let s = format!("{count} sources, {steps} supersteps");
    Ok((values, stats, None, s))
}

/// The dense ids of the vertices named in `path` (one original id per
/// line; blank lines and `#` comments skipped), ascending, distinct.
fn sources_file(store: &Store, path: &std::path::Path) -> Result<Vec<u64>> {
    let text = std::fs::read_to_string(path).at(path)?;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let ids: Vec<&str> = lines.iter().map(|l| l.1).collect();
    let lookup = IdLookup::open(store)?;
    let mut v = super::query::dense_ids::<u64, _>(&lookup, &ids, |i| {
        format!("{}, line {}: ", path.display(), lines[i].0)
    })?;
    if v.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: no source vertices (one original id per line)",
            path.display()
        )));
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// WCC's components: the distinct labels (a label is the rank of its
/// component's smallest vertex), counted in a bit per vertex on every core;
/// when the budget has no room for the bits, the vertices whose label is
/// their own rank, read beside the rank map.
pub(super) fn components(values: &mut VertexValues, store: &Store, budget: &Budget) -> Result<u64> {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let n = store.manifest().num_vertices;
    if let Ok(_charge) = budget.charge(n.div_ceil(8), "wcc component count") {
        let seen: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let mark = |(), _, label: u64| {
            let (word, bit) = (&seen[(label / 64) as usize], 1 << (label % 64));
            // Read first: the giant component's word is not written over and over.
            if word.load(Relaxed) & bit == 0 {
                word.fetch_or(bit, Relaxed);
            }
        };
        values.fold_dense(store, budget, (), mark, |(), ()| ())?;
        return Ok(seen
            .iter()
            .map(|w| w.load(Relaxed).count_ones() as u64)
            .sum());
    }
    let mut ranks = store.rank_reader()?;
    let (mut components, mut err) = (0u64, None);
    values.for_each_dense(store, budget, &mut |_, label| match ranks.next_rank() {
        Ok(r) => components += (label == r) as u64,
        Err(e) => err = Some(e),
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(components),
    }
}
