//! k-core decomposition: the core number of every vertex, direction and
//! self-loops ignored (`networkx.core_number` on the undirected simple
//! graph: a vertex's neighbours are `out ∪ in` as a set, without itself).
//!
//! **h-index iteration** (Montresor, De Pellegrini, Miorandi, "Distributed
//! k-core decomposition", TPDS 2013; Lü et al. 2016): every estimate starts
//! above the core number (infinity, which the first update turns into the
//! degree) and is lowered to the h-index of the neighbours' estimates — the
//! largest `h` such that at least `h` neighbours have an estimate `>= h` —
//! until no estimate changes; the fixed point is the core numbers.
//!
//! One program ([`KCoreVp`]) on every engine. In memory [`kcore`] runs it
//! in the select engine's pull mode ([`crate::engine::pull`]): rounds over
//! a [`crate::engine::frontier::Dense`] frontier scanned in id order
//! (Gauss-Seidel across batches, so a vertex woken ahead of the scan runs
//! in the same round), the simple lists of a batch read through
//! [`crate::engine::select::simple`], and each vertex's h-index counted
//! straight from its neighbours' estimates (`VertexProgram::pull`, the
//! fused gather); only the neighbours whose count a drop takes away are
//! woken. On a store whose state does not fit the budget the api runs it
//! on the external engine ([`crate::algo::vertex::kcore::run_on_disk`]).
//!
//! PartitionedVC (Matam et al.) runs k-core as one pass of edge deletions
//! with all vertices active; the h-index form needs no graph updates, reads
//! the lists of active vertices only, and its active set shrinks quickly.
//! The in-memory reference is `crate::algo::reference::core_numbers`
//! (`reference/cores.rs`).

use crate::algo::vertex::kcore::KCoreVp;
use crate::engine::pull::{self, PullStates};
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::Label;
use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::Store;

/// k-core result: the core number of every vertex.
pub struct KCore {
    core: Vec<u32>,
    max_core: u32,
    _charge: Charge,
}

impl std::fmt::Debug for KCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KCore")
            .field("vertices", &self.core.len())
            .field("max_core", &self.max_core)
            .finish()
    }
}

impl KCore {
    /// Core number of dense vertex `v`.
    pub fn value(&self, v: usize) -> u32 {
        self.core[v]
    }

    /// The largest core number (0 for a graph without edges).
    pub fn max_core(&self) -> u32 {
        self.max_core
    }

    /// Bytes of vertex state for `n` vertices: a u32 estimate and an
    /// active bit each (the pull mode's `state_bytes` for [`KCoreVp`]).
    pub fn state_bytes(n: u64) -> u64 {
        pull::state_bytes::<KCoreVp>(n)
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// Whether the graph has no vertices.
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }
}

/// The k-core subgraph's vertices (core number >= `min_core`), sorted dense ids.
pub fn kcore_vertices(k: &KCore, min_core: u32) -> Vec<u64> {
    (0..k.core.len() as u64)
        .filter(|&v| k.core[v as usize] >= min_core)
        .collect()
}

/// Runs the k-core decomposition of `store` inside `budget`: the program
/// [`KCoreVp`] in the select engine's pull mode ([`crate::engine::pull`]).
pub fn kcore(store: &Store, select: &SelectConfig, budget: &Budget) -> Result<(KCore, RunStats)> {
    fn on<L: Label>(
        store: &Store,
        select: &SelectConfig,
        budget: &Budget,
    ) -> Result<(KCore, RunStats)> {
        let mut p = KCoreVp::<L>::new();
        let (PullStates { states, charge }, stats) = pull::run(store, &mut p, select, budget)?;
        let max_core = states.iter().copied().max().unwrap_or(0);
        let k = KCore {
            core: states,
            max_core,
            _charge: charge,
        };
        Ok((k, stats))
    }
    crate::with_label!(store, on(store, select, budget))
}
