//! PageRank (LDBC Graphalytics semantics: [`crate::algo::pagerank`]) as a
//! vertex program in the accumulating form
//! ([`crate::engine::vertex::accumulates`]), as the kernel: a vertex's
//! message (its out word) is its contribution, PR/outdeg (PR itself for a
//! sink, which has no edge to send it along), its state the sum of the
//! contributions it receives; every vertex applies PR = ((1-d) + d *
//! sinks) / n + d * sum, where `sinks` is the previous superstep's total
//! rank of vertices without out-edges (an aggregate). The rank is the
//! contribution times the degree, as the kernel's output, and the L1 change
//! is taken against that form of the old rank (as the kernel, so `--tol`
//! stops at the same iteration).
//!
//! The weighted variant is [`super::pagerank_weighted`].

use crate::algo::pagerank::PageRankConfig;
use crate::engine::external::ExternalConfig;
use crate::engine::planner::EngineChoice;
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram, VertexView};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// The program (unweighted); also the ranks' settings and counters of the
/// weighted variant.
pub struct PageRankVp {
    n: f64,
    pub(super) damping: f64,
    iterations: usize,
    tol: Option<f64>,
    pub(super) sinks: f64,
    /// This superstep's ((1-d) + d * sinks) / n.
    base: f64,
    /// Iterations run and the last one's L1 change.
    pub done_iterations: usize,
    pub last_change: f64,
}

impl PageRankVp {
    pub fn new(n: u64, cfg: &PageRankConfig) -> PageRankVp {
        PageRankVp {
            n: n as f64,
            damping: cfg.damping,
            iterations: cfg.iterations,
            tol: cfg.tol,
            sinks: 0.0,
            base: 0.0,
            done_iterations: 0,
            last_change: 0.0,
        }
    }

    /// PR0 = 1/n.
    pub(super) fn first(&self) -> f64 {
        1.0 / self.n
    }

    /// The rank of a vertex whose summed contributions are `sum`.
    #[inline]
    pub(super) fn rank(&self, sum: f64) -> f64 {
        self.base + self.damping * sum
    }

    /// Starts superstep `step` (the sinks' total from `agg`).
    pub(super) fn start(&mut self, step: usize, agg: &Aggregate) -> bool {
        self.sinks = agg.sums[0];
        let d = self.damping;
        // Grouped as the kernel and the Graphalytics reference.
        self.base = ((1.0 - d) + d * self.sinks) / self.n;
        step < self.iterations
    }

    /// Ends superstep `step`: true when the run is complete.
    pub(super) fn finish(&mut self, step: usize, agg: &Aggregate) -> bool {
        self.done_iterations = step + 1;
        self.last_change = agg.sums[1];
        self.done_iterations >= self.iterations || self.tol.is_some_and(|t| agg.sums[1] < t)
    }
}

impl VertexProgram for PageRankVp {
    /// The sum of the contributions received (the accumulator).
    type State = f64;
    /// A contribution.
    type Msg = f64;
    const COMBINES: bool = true;
    const IDENTITY: Option<u64> = Some(0);
    const APPLY_ALL: bool = true;

    fn name(&self) -> &'static str {
        "pagerank"
    }
    fn edges(&self) -> Edges {
        Edges::Out
    }
    /// The first contribution.
    fn init(&self, info: &VertexInfo, agg: &mut Aggregate) -> (f64, bool) {
        let pr = self.first();
        match info.out_degree {
            0 => {
                agg.sums[0] += pr;
                (pr, true)
            }
            d => (pr / d as f64, true),
        }
    }
    fn begin(&mut self, step: usize, agg: &Aggregate) -> bool {
        self.start(step, agg)
    }
    fn scatter(&self, _v: u64, _s: &f64) -> Option<f64> {
        unreachable!("pagerank accumulates: its messages are its out words")
    }
    #[inline]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    fn apply(&self, _v: u64, _s: &mut f64, _msgs: &[f64], _agg: &mut Aggregate) -> bool {
        unreachable!("pagerank accumulates: engines call apply_accumulated")
    }
    #[inline]
    fn apply_accumulated(&self, v: VertexView, sum: f64, out: &mut f64, agg: &mut Aggregate) {
        let d = v.out_degree;
        let old = match d {
            0 => *out,
            d => *out * d as f64,
        };
        let pr = self.rank(sum);
        agg.sums[1] += (pr - old).abs();
        if d == 0 {
            agg.sums[0] += pr;
            *out = pr;
        } else {
            *out = pr / d as f64;
        }
    }
    /// The rank: the contribution times the degree, as the kernel's.
    fn value(&self, v: VertexView, _sum: &f64, out: f64) -> f64 {
        match v.out_degree {
            0 => out,
            d => out * d as f64,
        }
    }
    fn end(&mut self, step: usize, agg: &Aggregate, _active: u64) -> bool {
        self.finish(step, agg)
    }
}

/// PageRank on the external engine: ranks by dense id.
pub fn run(
    store: &Store,
    cfg: &PageRankConfig,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<f64>, PageRankVp, RunStats)> {
    collected(run_on_disk(store, cfg, false, ext, budget)?, budget)
}

/// PageRank in memory, each superstep on the engine `choice` names (the
/// planner's pick with `Auto`): ranks by dense id, and the program (its
/// iterations and last change).
pub fn planned(
    store: &Store,
    cfg: &PageRankConfig,
    choice: EngineChoice,
    stream: StreamConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Vec<f64>, PageRankVp, RunStats)> {
    cfg.validate()?;
    let mut p = PageRankVp::new(store.manifest().num_vertices, cfg);
    let (ranks, stats) = crate::engine::run(
        store,
        &mut p,
        cfg.iterations,
        choice,
        stream,
        select,
        budget,
    )?;
    Ok((ranks, p, stats))
}

/// Weighted PageRank on the external engine (see the module doc).
pub fn run_weighted(
    store: &Store,
    cfg: &PageRankConfig,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<f64>, PageRankVp, RunStats)> {
    collected(run_on_disk(store, cfg, true, ext, budget)?, budget)
}

pub(super) type OnDisk = (
    Box<dyn crate::engine::results::Values>,
    PageRankVp,
    RunStats,
);

fn collected(
    (mut v, p, stats): OnDisk,
    budget: &Budget,
) -> Result<(Vec<f64>, PageRankVp, RunStats)> {
    let ranks = crate::engine::results::collect(v.as_mut(), budget, f64::from_bits)?;
    Ok((ranks, p, stats))
}

/// [`run`] (or [`run_weighted`]) with the ranks (f64 bits) left on disk.
pub fn run_on_disk(
    store: &Store,
    cfg: &PageRankConfig,
    weighted: bool,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<OnDisk> {
    cfg.validate()?;
    if weighted {
        return super::pagerank_weighted::run_on_disk(store, cfg, ext, budget);
    }
    let mut p = PageRankVp::new(store.manifest().num_vertices, cfg);
    let (v, stats) =
        super::run_on_disk(store, &mut p, cfg.iterations, ext, budget, |s| s.to_bits())?;
    Ok((v, p, stats))
}
