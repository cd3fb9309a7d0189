//! Community detection by label propagation with LDBC Graphalytics
//! semantics (CDLP): synchronous; every vertex starts with its own original
//! id as label (here its rank, which orders like the original id); in each
//! of a fixed number of iterations it takes the label most frequent among
//! its neighbours, ties to the smallest; a vertex without neighbours keeps
//! its label. On a directed graph both in- and out-neighbours count, so a
//! neighbour linked both ways counts twice. Reference:
//! [`crate::algo::reference::cdlp`].
//!
//! A vertex program whose messages do not combine (the label multiset must
//! be seen whole: PartitionedVC's grouped delivery), run in memory when the
//! labels and the label multisets fit the budget, else on the external
//! engine ([`crate::algo::vertex::run_planned`]).

use crate::algo::vertex::Engines;
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, Label, VertexInfo, VertexProgram};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::Store;
use std::marker::PhantomData;

/// CDLP parameters.
#[derive(Clone, Debug)]
pub struct CdlpConfig {
    /// Iterations (Graphalytics' `max-iterations`; default 10).
    pub iterations: usize,
}

impl Default for CdlpConfig {
    fn default() -> Self {
        CdlpConfig { iterations: 10 }
    }
}

impl CdlpConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.iterations == 0 {
            return Err(Error::Invalid("--iterations must be at least 1".into()));
        }
        Ok(())
    }
}

/// The most frequent label of `labels`, ties to the smallest.
pub fn most_frequent<L: Ord + Copy>(labels: &mut [L]) -> Option<L> {
    labels.sort_unstable();
    let (mut best, mut best_count) = (None, 0usize);
    let mut i = 0;
    while i < labels.len() {
        let j = i + labels[i..].iter().take_while(|&&l| l == labels[i]).count();
        if j - i > best_count {
            best = Some(labels[i]);
            best_count = j - i;
        }
        i = j;
    }
    best
}

/// The program; state: the label (a rank), as an `L` (u64 on a wide
/// store).
pub struct CdlpVp<L> {
    iterations: usize,
    _l: PhantomData<L>,
}

impl<L> CdlpVp<L> {
    /// The program for `iterations` iterations.
    pub fn new(iterations: usize) -> CdlpVp<L> {
        CdlpVp {
            iterations,
            _l: PhantomData,
        }
    }
}

impl<L: Label> VertexProgram for CdlpVp<L> {
    type State = L;
    type Msg = L;
    const COMBINES: bool = false;
    const APPLY_ALL: bool = true;

    fn name(&self) -> &'static str {
        "cdlp"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (L, bool) {
        (L::of_id(info.rank), true)
    }
    fn begin(&mut self, step: usize, _agg: &Aggregate) -> bool {
        step < self.iterations
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &L) -> Option<L> {
        Some(*s)
    }
    fn apply(&self, _v: u64, s: &mut L, msgs: &[L], _agg: &mut Aggregate) -> bool {
        if !msgs.is_empty() {
            let mut l = msgs.to_vec();
            *s = most_frequent(&mut l).expect("non-empty");
        }
        true
    }
    fn end(&mut self, step: usize, _agg: &Aggregate, _active: u64) -> bool {
        step + 1 >= self.iterations
    }
}

/// CDLP on `store`: labels (ranks; print with `original_of_rank`) by dense id,
/// 8 bytes a vertex whatever the store's width ([`cdlp_on_disk`] keeps them
/// on disk).
pub fn cdlp(
    store: &Store,
    cfg: &CdlpConfig,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<u64>, RunStats)> {
    let on_disk = cdlp_on_disk(store, cfg, ext, budget)?;
    crate::algo::vertex::collected(on_disk, budget, |l| l)
}

/// [`cdlp`] with the labels (ranks) left on disk.
pub fn cdlp_on_disk(
    store: &Store,
    cfg: &CdlpConfig,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    cdlp_run(store, cfg, &Engines::external(ext), budget)
}

/// CDLP on the engines `eng` allows, where the planner puts it (in memory
/// when it fits); the labels (ranks) in memory or on disk.
pub fn cdlp_run(
    store: &Store,
    cfg: &CdlpConfig,
    eng: &Engines,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    cfg.validate()?;
    fn on<L: Label>(
        store: &Store,
        cfg: &CdlpConfig,
        eng: &Engines,
        budget: &Budget,
    ) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
        let mut p = CdlpVp::<L>::new(cfg.iterations);
        let n = cfg.iterations;
        crate::algo::vertex::run_planned(store, &mut p, n, eng, budget, |l: &L| l.id())
    }
    crate::with_label!(store, on(store, cfg, eng, budget))
}
