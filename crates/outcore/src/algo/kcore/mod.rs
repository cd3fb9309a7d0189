//! k-core decomposition on the select engine: the core number of every
//! vertex, direction and self-loops ignored (`networkx.core_number` on the
//! undirected simple graph: a vertex's neighbours are `out ∪ in` as a set,
//! without itself).
//!
//! **h-index iteration** (Montresor, De Pellegrini, Miorandi, "Distributed
//! k-core decomposition", TPDS 2013; Lü et al. 2016): every estimate starts
//! above the core number (infinity, which the first update turns into the
//! degree) and is lowered to the h-index of the neighbours' estimates — the
//! largest `h` such that at least `h` neighbours have an estimate `>= h` —
//! until no estimate changes; the fixed point is the core numbers.
//!
//! - Iteration 1 processes every vertex; later iterations only vertices with a
//!   neighbour whose estimate dropped from `>= est(u)` to below it (the only
//!   change that can lower `u`'s h-index). The active set is a bitmap scanned
//!   in id order; a batch's updates are applied before the next batch, so a
//!   vertex activated ahead of the scan is processed in the same iteration.
//! - Active vertices go to the select engine in batches of up to 64 Ki
//!   vertices in id order (smaller when their lists exceed 256 Ki slots):
//!   only the pages of their lists are read. Directed stores open two engines
//!   ("out" and "in", each half of the buffer pool). A batch's list pieces
//!   (one per page of a list, arriving in any order) are ordered by (vertex,
//!   direction, first neighbour), which restores each sorted list; the out-
//!   and in-list of a vertex are merged without duplicates or itself.
//!
//! Threads: the h-indices of a batch are computed on every core from the
//! estimates before the batch (Jacobi inside a batch, Gauss-Seidel across
//! batches), then applied; so are the activation tests, which see the new
//! estimates. The random reads of neighbours' estimates dominate the compute.
//!
//! Memory: 4 bytes of estimate and 1 active bit per vertex, charged before
//! allocating, plus the batch buffers; the buffer pools take the rest (less
//! 8 MiB of slack) when `SelectConfig::pool_bytes` is not given.
//!
//! PartitionedVC (Matam et al.) runs k-core as one pass of edge deletions
//! with all vertices active; the h-index form needs no graph updates, reads
//! the lists of active vertices only, and its active set shrinks quickly.
//!
//! Two paths give the same answers: [`kcore`] runs the program
//! ([`KCoreVp`]) in the select engine's pull mode (`engine/pull.rs`,
//! [`crate::engine::select::simple`] lists, [`crate::engine::frontier::Dense`]
//! rounds); [`kcore_driver`] is the hand-written loop below, which the api
//! runs until the program meets issue 50's speed gate (P4: with the pull
//! mode's fused gather, wall 0.95-1.17x and cpu 1.01-1.05x the driver's on
//! kron-22 at 1 GiB in three noisy calls; `OUTCORE_KCORE=program` picks
//! the program).
//!
//! Files: this one holds the result and the driver's loop;
//! `state.rs` the estimates, the active set (`Dense`) and the h-index update
//! (`State`, `h_index`); the select engine's simple lists
//! (`engine/select/simple.rs`) gather a batch's list pieces and merge a
//! vertex's out- and in-list into its neighbour set. The in-memory reference is
//! `crate::algo::reference::core_numbers` (`reference/cores.rs`).

mod state;
#[cfg(test)]
mod tests;

use crate::algo::vertex::kcore::KCoreVp;
use crate::engine::frontier::Dense;
use crate::engine::pull::{self, PullStates};
use crate::engine::select::simple::Simple;
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::select_run::{
    min_pool_bytes, pool_bytes, run_stats, slot_batches, Snap, SLOT_CHUNK, VERTEX_CHUNK,
};
use crate::engine::stats::RunStats;
use crate::engine::vertex::Label;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::{huge_vec, Budget};
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::csr::{Slot, SlotWidth};
use crate::store::Store;
use state::State;
use std::time::Instant;

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

    /// Bytes of vertex state for `n` vertices: a u32 estimate and an active bit each.
    pub fn state_bytes(n: u64) -> u64 {
        4 * n + 8 * n.div_ceil(64)
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

/// The hand-written h-index driver the program replaces (same answers;
/// kept for the speed gate of issue 50, P4).
#[doc(hidden)]
pub fn kcore_driver(
    store: &Store,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(KCore, RunStats)> {
    crate::with_label!(store, kcore_as(store, select, budget))
}

/// [`kcore`] with batches and lists of ids of type `T` (u64 on a wide
/// store); the estimates stay u32.
fn kcore_as<T: Slot>(
    store: &Store,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(KCore, RunStats)> {
    let start = Instant::now();
    let m = store.manifest();
    let n = m.num_vertices;
    if T::WIDTH == SlotWidth::Narrow && n >= u32::MAX as u64 {
        return Err(Error::Invalid(format!(
            "{n} vertices do not fit u32 dense ids"
        )));
    }
    let dirs: &[&str] = if m.directed { &["out", "in"] } else { &["out"] };
    let max_degs: Vec<u64> = if m.directed {
        vec![m.degrees.max_out, m.degrees.max_in]
    } else {
        vec![m.degrees.max_out]
    };
    let entries = m.csr.out_entries + m.csr.in_entries;
    let bound: u64 = max_degs.iter().sum();
    let state_bytes = KCore::state_bytes(n);
    // Gathered neighbours and neighbours to wake (two ids a slot), pieces
    // (24 or 32 bytes, one per vertex and page), per thread the scratch
    // lists and h-index counts (three ids and 4 bytes per entry of the
    // longest union), per vertex the engines' ranges and page lists (about
    // 112 bytes) and the batch (an id), bounds, h-indices and drops (28
    // bytes).
    let threads = rayon::current_num_threads().max(1) as u64;
    let slots = SLOT_CHUNK.max(bound).min(entries + 1);
    let vertices = VERTEX_CHUNK.min(n as usize) as u64;
    let id = std::mem::size_of::<T>() as u64;
    let batch_bytes = slots * 2 * id
        + (vertices + slots / 256 + 1) * Simple::<T>::PIECE_BYTES
        + threads * (4 + 3 * id) * (bound.min(n) + 1)
        + vertices * (112 + 28 + id)
        + 4096;
    let min_pool: u64 = dirs
        .iter()
        .map(|d| min_pool_bytes(store, d, false, budget))
        .sum();
    budget.require(
        &format!("kcore on {n} vertices"),
        &[
            ("estimates", state_bytes),
            ("batch buffers", batch_bytes),
            ("minimal buffer pools", min_pool),
            ("slack", 1 << 20),
        ],
    )?;
    let charge = budget.charge(state_bytes, "kcore estimates")?;
    let _batch = budget.charge(batch_bytes, "kcore batch buffers")?;
    // The pool of each engine: half of the total for directed stores.
    let per_engine =
        pool_bytes(store, dirs, false, select.pool_bytes, budget, |_| 0) / dirs.len() as u64;
    let used0 = budget.used();
    let mut engines: Vec<SelectEngine> = dirs
        .iter()
        .map(|d| {
            SelectEngine::new(
                store,
                d,
                false,
                budget,
                &SelectConfig {
                    pool_bytes: Some(per_engine),
                    ..select.clone()
                },
            )
        })
        .collect::<Result<_>>()?;
    let pool_charged = budget.used() - used0;

    let mut st = State {
        est: huge_vec(n as usize, |_| u32::MAX),
        active: Dense::full(n),
    };

    let mut iterations = Vec::new();
    let mut progress = Progress::new("kcore");
    let mut g = Simple::<T>::default();
    let mut batch: Vec<T> = Vec::new();
    let mut iter = 0usize;
    while st.active.count() > 0 {
        let snap = Snap::take(&engines.iter().collect::<Vec<_>>());
        let (mut processed, mut edges, mut changed) = (0u64, 0u64, 0u64);
        let mut cursor = 0u64;
        loop {
            crate::cancel::check()?;
            st.active.take(&mut cursor, VERTEX_CHUNK, &mut batch);
            if batch.is_empty() {
                break;
            }
            processed += batch.len() as u64;
            let mut refs: Vec<&mut SelectEngine> = engines.iter_mut().collect();
            let ranges = slot_batches(&mut refs, &max_degs, &batch)?;
            for r in ranges {
                let vs = &batch[r];
                edges += g.gather(&mut refs, vs)?;
                changed += st.update(vs, &g);
            }
            let done = cursor;
            progress.tick(|| format!("iteration {iter}: {done}/{n} scanned, {processed} active"));
        }
        let refs: Vec<&SelectEngine> = engines.iter().collect();
        iterations.push(snap.finish(&refs, iter, processed, edges));
        let line = format!("iteration {iter}: {processed} active, {changed} lowered");
        progress.tick(|| line);
        iter += 1;
    }
    drop(g);
    drop(batch);
    let refs: Vec<&SelectEngine> = engines.iter().collect();
    let mut stats = run_stats(
        "kcore",
        &refs,
        budget,
        state_bytes,
        pool_charged,
        start,
        iterations,
    );
    stats.threads = threads as usize;
    let State { est, .. } = st;
    let max_core = est.iter().copied().max().unwrap_or(0);
    let summary = format!(
        "{iter} iterations, max core {max_core}, {} read in {:.2}s (I/O wait {:.2}s)",
        format_size(stats.bytes_read),
        stats.wall_seconds,
        stats.io_wait_seconds
    );
    progress.done(|| summary);
    Ok((
        KCore {
            core: est,
            max_core,
            _charge: charge,
        },
        stats,
    ))
}
