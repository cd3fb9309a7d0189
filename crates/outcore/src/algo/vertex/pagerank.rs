//! PageRank (LDBC Graphalytics semantics, as [`crate::algo::pagerank`]) as a
//! vertex program: a vertex sends PR/outdeg along its out-edges, messages
//! sum, every vertex applies PR = ((1-d) + d * sinks) / n + d * sum, where
//! `sinks` is the previous superstep's total rank of vertices without
//! out-edges (an aggregate).

use crate::algo::pagerank::PageRankConfig;
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// The program; state (rank, out-degree).
pub struct PageRankVp {
    n: f64,
    damping: f64,
    iterations: usize,
    tol: Option<f64>,
    sinks: f64,
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
            done_iterations: 0,
            last_change: 0.0,
        }
    }
}

impl VertexProgram for PageRankVp {
    type State = (f64, u64);
    type Msg = f64;
    const COMBINES: bool = true;
    const APPLY_ALL: bool = true;

    fn name(&self) -> &'static str {
        "pagerank"
    }
    fn edges(&self) -> Edges {
        Edges::Out
    }
    fn init(&self, info: &VertexInfo, agg: &mut Aggregate) -> ((f64, u64), bool) {
        let pr = 1.0 / self.n;
        if info.out_degree == 0 {
            agg.sums[0] += pr;
        }
        ((pr, info.out_degree), true)
    }
    fn begin(&mut self, step: usize, agg: &Aggregate) -> bool {
        self.sinks = agg.sums[0];
        step < self.iterations
    }
    #[inline]
    fn scatter(&self, _v: u32, s: &(f64, u64)) -> Option<f64> {
        (s.1 > 0).then(|| s.0 / s.1 as f64)
    }
    #[inline]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline]
    fn apply(&self, _v: u32, s: &mut (f64, u64), msgs: &[f64], agg: &mut Aggregate) -> bool {
        let d = self.damping;
        let base = ((1.0 - d) + d * self.sinks) / self.n;
        let pr = base + d * msgs.first().copied().unwrap_or(0.0);
        agg.sums[1] += (pr - s.0).abs();
        if s.1 == 0 {
            agg.sums[0] += pr;
        }
        s.0 = pr;
        true
    }
    fn end(&mut self, step: usize, agg: &Aggregate, _active: u64) -> bool {
        self.done_iterations = step + 1;
        self.last_change = agg.sums[1];
        self.done_iterations >= self.iterations || self.tol.is_some_and(|t| agg.sums[1] < t)
    }
}

/// PageRank on the external engine: ranks by dense id.
pub fn run(
    store: &Store,
    cfg: &PageRankConfig,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<f64>, PageRankVp, RunStats)> {
    cfg.validate()?;
    let mut p = PageRankVp::new(store.manifest().num_vertices, cfg);
    let (v, stats) = super::run_collect(store, &mut p, cfg.iterations, ext, budget, |s| s.0)?;
    Ok((v, p, stats))
}
