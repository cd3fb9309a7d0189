//! Single-source shortest paths as a vertex program. A vertex whose
//! distance dropped sends it along its out-edges, each edge adds its
//! weight, messages take the minimum, in place (the state is the distance).
//! In memory it runs delta-stepping ([`crate::engine::phases`]) with the
//! priority `floor(dist / delta)` ([`crate::algo::sssp`]); on the external
//! engine, synchronous Bellman-Ford (supersteps: at most the hop count of
//! the longest shortest path).

use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;
use std::sync::Mutex;

/// The program; state: the distance (infinity unreached).
pub struct SsspVp {
    pub source: u64,
    /// The first negative or NaN weight met (its edge is dropped; the run fails).
    pub bad_weight: Mutex<Option<(u64, u64, f64)>>,
    /// Delta-stepping's bucket width (`None` until [`VertexProgram::setup`]
    /// estimates it; unused by supersteps).
    pub delta: Option<f64>,
}

impl SsspVp {
    /// From dense vertex `source`, with bucket width `delta` (`None`: the
    /// default, estimated in `setup`).
    pub fn new(source: u64, delta: Option<f64>) -> SsspVp {
        SsspVp {
            source,
            bad_weight: Mutex::new(None),
            delta,
        }
    }

    /// Records the edge of a negative or NaN weight (the first one met).
    #[cold]
    #[inline(never)]
    fn record_bad(&self, src: u64, dst: u64, w: f64) {
        if let Ok(mut b) = self.bad_weight.lock() {
            b.get_or_insert((src, dst, w));
        }
    }

    /// The first bad weight met, as its edge (dense ids) and weight.
    pub fn bad(&self) -> Option<(u64, u64, f64)> {
        *self.bad_weight.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl VertexProgram for SsspVp {
    type State = f64;
    type Msg = f64;
    const COMBINES: bool = true;
    const APPLY_ALL: bool = false;
    const IDENTITY: Option<u64> = Some(0x7ff0_0000_0000_0000); // +infinity
    const IN_PLACE: bool = true;

    fn name(&self) -> &'static str {
        "sssp"
    }
    fn edges(&self) -> Edges {
        Edges::Out
    }
    fn weighted(&self) -> bool {
        true
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (f64, bool) {
        if info.v == self.source {
            (0.0, true)
        } else {
            (f64::INFINITY, false)
        }
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &f64) -> Option<f64> {
        // In place, every vertex of a sending block is asked: the
        // unreached have nothing to send.
        s.is_finite().then_some(*s)
    }
    /// Inlined into the phase loop's relaxation, with the bad weight out
    /// of line: a call per edge there keeps fewer of the state loads (cache
    /// misses) in flight at once (measured: the relaxation's samples
    /// grew by two thirds on kron-22 weighted).
    #[inline(always)]
    fn edge(&self, m: f64, src: u64, dst: u64, w: f64) -> Option<f64> {
        if w >= 0.0 {
            Some(m + w)
        } else {
            self.record_bad(src, dst, w);
            None
        }
    }
    #[inline]
    fn combine(a: f64, b: f64) -> f64 {
        a.min(b)
    }
    #[inline]
    fn apply(&self, _v: u64, s: &mut f64, msgs: &[f64], _agg: &mut Aggregate) -> bool {
        if msgs[0] < *s {
            *s = msgs[0];
            true
        } else {
            false
        }
    }
    fn end(&mut self, _step: usize, _agg: &Aggregate, active: u64) -> bool {
        active == 0
    }
    #[inline]
    fn priority(&self, s: &f64) -> Option<u64> {
        Some(crate::algo::sssp::bucket_of(
            *s,
            self.delta.unwrap_or(f64::INFINITY),
        ))
    }
    fn setup(
        &mut self,
        store: &Store,
        lists: &mut crate::engine::select::SelectEngine,
    ) -> Result<()> {
        if self.delta.is_none() {
            self.delta = Some(crate::algo::sssp::default_delta(store, lists, self.source)?);
        }
        Ok(())
    }
}

/// SSSP on the external engine: distances by dense id.
pub fn run(
    store: &Store,
    source: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<f64>, RunStats)> {
    super::collected(
        run_on_disk(store, source, ext, budget)?,
        budget,
        f64::from_bits,
    )
}

/// [`run`] with the distances (f64 bits) left on disk.
pub fn run_on_disk(
    store: &Store,
    source: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    let mut p = SsspVp::new(source, None);
    let r = super::run_on_disk(store, &mut p, usize::MAX, ext, budget, |&d| d.to_bits())?;
    let bad = *p.bad_weight.lock().unwrap_or_else(|e| e.into_inner());
    match bad {
        None => Ok(r),
        Some((v, u, w)) => Err(crate::algo::sssp::bad_weight(store, "SSSP", v, u, w)),
    }
}
