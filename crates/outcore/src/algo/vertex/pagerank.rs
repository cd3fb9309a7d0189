//! PageRank (LDBC Graphalytics semantics, as [`crate::algo::pagerank`]) as a
//! vertex program: a vertex sends PR/outdeg along its out-edges, messages
//! sum, every vertex applies PR = ((1-d) + d * sinks) / n + d * sum, where
//! `sinks` is the previous superstep's total rank of vertices without
//! out-edges (an aggregate).
//!
//! Weighted (`PageRankVp::weighted`, as NetworkX's `pagerank(G)`): a vertex
//! sends PR * w / W(v) along each out-edge of weight w, W(v) its total
//! out-weight; a vertex with W(v) = 0 is dangling. W(v) comes from one
//! sequential pass over `csr/out.off` and `weights/out.f64`, in the order
//! the engines initialise vertices.

use crate::algo::pagerank::PageRankConfig;
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::csrscan::CheckedReader;
use crate::store::Store;
use std::sync::Mutex;

/// Total out-weights in vertex order (the weighted variant's divisors),
/// every page of the offsets and weights checked against its page sum.
struct OutWeights {
    off: CheckedReader,
    wts: CheckedReader,
    at: u64,
    next: u64,
}

impl OutWeights {
    fn open(store: &Store, budget: &Budget) -> Result<OutWeights> {
        let (_, o, w) = crate::store::csr::files("out");
        let mut off = CheckedReader::open_in(store, &o, budget)?;
        off.req_u64()?;
        Ok(OutWeights {
            off,
            wts: CheckedReader::open_in(store, &w, budget)?,
            at: 0,
            next: 0,
        })
    }

    fn of(&mut self, v: u64) -> Result<f64> {
        if v != self.next {
            return Err(Error::Invalid(format!(
                "weighted PageRank: vertex {v} initialised out of order"
            )));
        }
        self.next += 1;
        let end = self.off.req_u64()?;
        let mut sum = 0.0;
        while self.at < end {
            let w = self.wts.req_f64()?;
            if w < 0.0 || !w.is_finite() {
                return Err(Error::Invalid(format!(
                    "weighted PageRank needs finite non-negative weights; vertex {v} has an out-edge of weight {w}"
                )));
            }
            sum += w;
            self.at += 1;
        }
        Ok(sum)
    }
}

/// The program; state (rank, out-degree, or the bits of the total
/// out-weight when weighted).
pub struct PageRankVp {
    n: f64,
    damping: f64,
    iterations: usize,
    tol: Option<f64>,
    sinks: f64,
    /// Iterations run and the last one's L1 change.
    pub done_iterations: usize,
    pub last_change: f64,
    weights: Option<Mutex<OutWeights>>,
    /// The first error of the weight pass (init cannot return one).
    failed: Mutex<Option<Error>>,
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
            weights: None,
            failed: Mutex::new(None),
        }
    }

    /// The weighted variant (NetworkX's `pagerank` with `weight="weight"`).
    pub fn weighted(store: &Store, cfg: &PageRankConfig, budget: &Budget) -> Result<PageRankVp> {
        if !store.manifest().weighted {
            return Err(Error::Invalid(format!(
                "{} has no weights; import it with --weighted, or drop --weighted for LDBC's unweighted PageRank",
                store.path().display()
            )));
        }
        let mut p = PageRankVp::new(store.manifest().num_vertices, cfg);
        p.weights = Some(Mutex::new(OutWeights::open(store, budget)?));
        Ok(p)
    }

    /// The divisor of a vertex's rank: out-degree or total out-weight.
    #[inline]
    fn divisor(&self, s: &(f64, u64)) -> f64 {
        if self.weights.is_some() {
            f64::from_bits(s.1)
        } else {
            s.1 as f64
        }
    }

    /// The error the weight pass met, if any.
    pub fn take_error(&self) -> Option<Error> {
        self.failed.lock().expect("not poisoned").take()
    }
}

impl VertexProgram for PageRankVp {
    type State = (f64, u64);
    type Msg = f64;
    const COMBINES: bool = true;
    const IDENTITY: Option<u64> = Some(0);
    const SCATTER_PURE: bool = true;
    const APPLY_ALL: bool = true;

    fn name(&self) -> &'static str {
        "pagerank"
    }
    fn edges(&self) -> Edges {
        Edges::Out
    }
    fn weighted(&self) -> bool {
        self.weights.is_some()
    }
    fn init(&self, info: &VertexInfo, agg: &mut Aggregate) -> ((f64, u64), bool) {
        let pr = 1.0 / self.n;
        let d = match &self.weights {
            None => info.out_degree,
            Some(w) => {
                let sum = w
                    .lock()
                    .expect("not poisoned")
                    .of(info.v)
                    .unwrap_or_else(|e| {
                        self.failed.lock().expect("not poisoned").get_or_insert(e);
                        0.0
                    });
                sum.to_bits()
            }
        };
        let s = (pr, d);
        if self.divisor(&s) == 0.0 {
            agg.sums[0] += pr;
        }
        (s, true)
    }
    fn begin(&mut self, step: usize, agg: &Aggregate) -> bool {
        self.sinks = agg.sums[0];
        step < self.iterations && self.failed.lock().expect("not poisoned").is_none()
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &(f64, u64)) -> Option<f64> {
        let d = self.divisor(s);
        (d > 0.0).then(|| s.0 / d)
    }
    #[inline]
    fn edge(&self, m: f64, _src: u64, _dst: u64, w: f64) -> Option<f64> {
        Some(if self.weights.is_some() { m * w } else { m })
    }
    #[inline]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline]
    fn apply(&self, _v: u64, s: &mut (f64, u64), msgs: &[f64], agg: &mut Aggregate) -> bool {
        let d = self.damping;
        let base = ((1.0 - d) + d * self.sinks) / self.n;
        let pr = base + d * msgs.first().copied().unwrap_or(0.0);
        agg.sums[1] += (pr - s.0).abs();
        if self.divisor(s) == 0.0 {
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
    collected(run_on_disk(store, cfg, false, ext, budget)?, budget)
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

type OnDisk = (
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
    let mut p = match weighted {
        true => PageRankVp::weighted(store, cfg, budget)?,
        false => PageRankVp::new(store.manifest().num_vertices, cfg),
    };
    let (v, stats) = super::run_on_disk(store, &mut p, cfg.iterations, ext, budget, |s| {
        s.0.to_bits()
    })?;
    if let Some(e) = p.take_error() {
        return Err(e);
    }
    Ok((v, p, stats))
}
