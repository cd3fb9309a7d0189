//! Weighted PageRank (NetworkX's `pagerank(G)` with `weight="weight"`) as
//! a vertex program: a vertex sends PR * w / W(v) along each out-edge of
//! weight w, W(v) its total out-weight; a vertex with W(v) = 0 is
//! dangling. W(v) comes from one sequential pass over `csr/out.off` and
//! `weights/out.f64`, in the order the engines initialise vertices, and is
//! kept in the state (rank, W(v)): the engines' degrees are no divisor
//! here, so it is not in the accumulating form of
//! [`super::pagerank::PageRankVp`]. Runs on the external engine.
//!
//! On a store with a delta (issue 53), W(v) of a vertex whose out-list the
//! delta touches is summed over its merged list (the view's CSR scan,
//! [`scan_csr`], whose merged entries have no base slot) before the run;
//! the others' come from the base files as above.
//! `OUTCORE_DELTA_SKIP=weights` takes the base's sums alone (the red
//! check).

use super::pagerank::{OnDisk, PageRankVp};
use crate::algo::pagerank::PageRankConfig;
use crate::engine::external::ExternalConfig;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::csrscan::{scan_csr, CheckedReader, NO_SLOT};
use crate::store::delta::{skip, DeltaLists};
use crate::store::Store;
use std::sync::Mutex;

/// Total out-weights in vertex order (the weighted variant's divisors),
/// every page of the offsets and weights checked against its page sum.
struct OutWeights {
    off: CheckedReader,
    wts: CheckedReader,
    at: u64,
    next: u64,
    /// The base's vertices, and with a delta the total out-weight of each
    /// vertex whose list it touches, by vertex.
    n_base: u64,
    touched: Vec<(u64, f64)>,
    _held: Option<crate::mem::budget::Charge>,
}

/// A weight W(v) may sum: finite, non-negative.
fn checked(v: u64, w: f64) -> Result<f64> {
    match w < 0.0 || !w.is_finite() {
        true => Err(Error::Invalid(format!(
            "weighted PageRank needs finite non-negative weights; vertex {v} has an out-edge of weight {w}"
        ))),
        false => Ok(w),
    }
}

impl OutWeights {
    fn open(store: &Store, budget: &Budget) -> Result<OutWeights> {
        let (_, o, w) = crate::store::csr::files("out");
        let mut off = CheckedReader::open_in(store, &o, budget)?;
        off.req_u64()?;
        let mut ow = OutWeights {
            off,
            wts: CheckedReader::open_in(store, &w, budget)?,
            at: 0,
            next: 0,
            n_base: store.base().num_vertices,
            touched: Vec::new(),
            _held: None,
        };
        let lists = match skip("weights") {
            true => None,
            false => DeltaLists::load(store, "out")?,
        };
        if let Some(l) = lists {
            let k = l.cursor().count() as u64;
            ow._held = Some(budget.charge(16 * k, "weighted PageRank touched out-weights")?);
            ow.touched = l.cursor().map(|r| (r.v, 0.0)).collect();
            drop(l);
            // Entries of the lists the delta touches come without a slot.
            let mut i = 0;
            let t = &mut ow.touched;
            scan_csr(store, "out", true, |v, slot, _, w| {
                if slot == NO_SLOT {
                    i += t[i..].partition_point(|x| x.0 < v);
                    t[i].1 += checked(v, w)?;
                }
                Ok(())
            })?;
        }
        Ok(ow)
    }

    fn of(&mut self, v: u64) -> Result<f64> {
        if v != self.next {
            return Err(Error::Invalid(format!(
                "weighted PageRank: vertex {v} initialised out of order"
            )));
        }
        self.next += 1;
        let merged = match self.touched.binary_search_by_key(&v, |x| x.0) {
            Ok(i) => Some(self.touched[i].1),
            Err(_) if v >= self.n_base => Some(0.0),
            Err(_) => None,
        };
        if v >= self.n_base {
            return Ok(merged.unwrap_or(0.0));
        }
        let end = self.off.req_u64()?;
        let mut sum = 0.0;
        while self.at < end {
            let w = self.wts.req_f64()?;
            sum += match merged {
                Some(_) => w,
                None => checked(v, w)?,
            };
            self.at += 1;
        }
        Ok(merged.unwrap_or(sum))
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
