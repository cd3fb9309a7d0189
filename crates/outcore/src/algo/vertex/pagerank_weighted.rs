//! Weighted PageRank (NetworkX's `pagerank(G)` with `weight="weight"`) as
//! a vertex program: a vertex sends PR * w / W(v) along each out-edge of
//! weight w, W(v) its total out-weight; a vertex with W(v) = 0 is
//! dangling. W(v) comes from one sequential pass over `csr/out.off` and
//! `weights/out.f64`, in the order the engines initialise vertices, and is
//! kept in the state (rank, W(v)): the engines' degrees are no divisor
//! here, so it is not in the accumulating form of
//! [`super::pagerank::PageRankVp`]. Runs on the external engine.

use super::pagerank::{OnDisk, PageRankVp};
use crate::algo::pagerank::PageRankConfig;
use crate::engine::external::ExternalConfig;
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

/// The program; state (rank, total out-weight).
pub struct WeightedPageRankVp {
    /// The settings and counters (shared with the unweighted program).
    pub pr: PageRankVp,
    weights: Mutex<OutWeights>,
    /// The first error of the weight pass (init cannot return one).
    failed: Mutex<Option<Error>>,
}

impl WeightedPageRankVp {
    pub fn new(store: &Store, cfg: &PageRankConfig, budget: &Budget) -> Result<Self> {
        if !store.manifest().weighted {
            return Err(Error::Invalid(format!(
                "{} has no weights; import it with --weighted, or drop --weighted for LDBC's unweighted PageRank",
                store.path().display()
            )));
        }
        Ok(WeightedPageRankVp {
            pr: PageRankVp::new(store.manifest().num_vertices, cfg),
            weights: Mutex::new(OutWeights::open(store, budget)?),
            failed: Mutex::new(None),
        })
    }

    /// The error the weight pass met, if any.
    pub fn take_error(&self) -> Option<Error> {
        self.failed.lock().expect("not poisoned").take()
    }
}

impl VertexProgram for WeightedPageRankVp {
    type State = (f64, f64);
    type Msg = f64;
    const COMBINES: bool = true;
    const SCATTER_PURE: bool = true;
    const APPLY_ALL: bool = true;

    fn name(&self) -> &'static str {
        "pagerank"
    }
    fn edges(&self) -> Edges {
        Edges::Out
    }
    fn weighted(&self) -> bool {
        true
    }
    fn init(&self, info: &VertexInfo, agg: &mut Aggregate) -> ((f64, f64), bool) {
        let pr = self.pr.first();
        let w = self
            .weights
            .lock()
            .expect("not poisoned")
            .of(info.v)
            .unwrap_or_else(|e| {
                self.failed.lock().expect("not poisoned").get_or_insert(e);
                0.0
            });
        if w == 0.0 {
            agg.sums[0] += pr;
        }
        ((pr, w), true)
    }
    fn begin(&mut self, step: usize, agg: &Aggregate) -> bool {
        self.pr.start(step, agg) && self.failed.lock().expect("not poisoned").is_none()
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &(f64, f64)) -> Option<f64> {
        (s.1 > 0.0).then(|| s.0 / s.1)
    }
    #[inline]
    fn edge(&self, m: f64, _src: u64, _dst: u64, w: f64) -> Option<f64> {
        Some(m * w)
    }
    #[inline]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline]
    fn apply(&self, _v: u64, s: &mut (f64, f64), msgs: &[f64], agg: &mut Aggregate) -> bool {
        let pr = self.pr.rank(msgs.first().copied().unwrap_or(0.0));
        agg.sums[1] += (pr - s.0).abs();
        if s.1 == 0.0 {
            agg.sums[0] += pr;
        }
        s.0 = pr;
        true
    }
    fn end(&mut self, step: usize, agg: &Aggregate, _active: u64) -> bool {
        self.pr.finish(step, agg)
    }
}

/// Weighted PageRank on the external engine, the ranks (f64 bits) left on
/// disk.
pub fn run_on_disk(
    store: &Store,
    cfg: &PageRankConfig,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<OnDisk> {
    let mut p = WeightedPageRankVp::new(store, cfg, budget)?;
    let (v, stats) = super::run_on_disk(store, &mut p, cfg.iterations, ext, budget, |s| {
        s.0.to_bits()
    })?;
    if let Some(e) = p.take_error() {
        return Err(e);
    }
    Ok((v, p.pr, stats))
}
